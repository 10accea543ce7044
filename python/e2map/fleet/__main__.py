# SPDX-License-Identifier: LGPL-2.1-or-later
"""python3 -m e2map.fleet: e2map over many images, on Dask.

    python3 -m e2map.fleet scan IMAGES... --out DIR [--scheduler ADDR |
        --workers N] [--format jsonl|csv|body] [--timeline] [--sha256]
    python3 -m e2map.fleet du IMAGES... [--scheduler ADDR | --workers N]
    python3 -m e2map.fleet find IMAGES... [--path GLOB] [--type T]
        [--min-size N] [--sha256 HEX]... [--scheduler ADDR | --workers N]

Disks are opened first to find their ext2/3/4 partitions (a task each on
the workers); then one task per filesystem.  --scheduler joins a running
Dask scheduler (dask-scheduler, dask-worker on the machines that see the
images at the same paths); without it a LocalCluster of N worker
processes (one thread each) runs here.  Exit 0 when every task ran, even
where images failed (their rows say why), 1 when the job itself failed.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Dict, List

from . import (FORMATS, Predicate, Task, discover, done_row, du_task,
               find_task, prepare, scan_task, summarize, write_manifest)

# What one worker process may hold: a task holds the path table (about
# 24 bytes a name plus the name), a handle's caches (a few MiB) and one
# gzip stream; Dask pauses a worker at 80% and restarts it at 95%.
DEFAULT_MEMORY = "2GiB"


def parse(argv: List[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python3 -m e2map.fleet",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p):
        p.add_argument("images", nargs="+", metavar="IMAGE")
        g = p.add_mutually_exclusive_group()
        g.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running Dask scheduler (tcp://host:8786)")
        g.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                       metavar="N", help="local worker processes (default: "
                       "one per CPU)")
        p.add_argument("--memory-limit", default=DEFAULT_MEMORY,
                       help="per local worker (default %s)" % DEFAULT_MEMORY)
        p.add_argument("--no-progress", action="store_true",
                       help="no progress bar, even on a terminal")

    s = sub.add_parser("scan", help="records of every filesystem, a "
                       "manifest and a backup summary, into --out DIR")
    common(s)
    s.add_argument("--out", required=True, metavar="DIR")
    s.add_argument("--format", choices=FORMATS, default="jsonl")
    s.add_argument("--timeline", action="store_true",
                   help="also a Timesketch JSONL per filesystem")
    s.add_argument("--sha256", action="store_true",
                   help="hash each image file into the manifest")
    s.add_argument("--redo", action="store_true",
                   help="scan again what an earlier run finished")
    d = sub.add_parser("du", help="the backup summary alone, as JSON")
    common(d)
    f = sub.add_parser("find", help="records matching a predicate, JSONL")
    common(f)
    f.add_argument("--path", metavar="GLOB", help="fnmatch on full paths")
    f.add_argument("--type", choices=("regular", "directory", "symlink",
                                      "fifo", "socket", "chardev",
                                      "blockdev"))
    f.add_argument("--min-size", type=int, default=0)
    f.add_argument("--sha256", action="append", default=[], metavar="HEX",
                   help="files with these bytes (read to hash them)")
    return ap.parse_args(argv)


def client_for(args):
    from distributed import Client, LocalCluster
    if args.scheduler:
        return Client(args.scheduler), None
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                           processes=True, memory_limit=args.memory_limit,
                           dashboard_address=None)
    return Client(cluster), cluster


def gather(client, futures, progress: bool) -> List:
    """Each future's result; a task Dask gave up on (its workers died
    every time) is returned as its exception."""
    from distributed import as_completed, progress as bar
    if progress:
        # Dask's text bar writes to stdout, which du and find answer on.
        with contextlib.redirect_stdout(sys.stderr):
            bar(futures)
        print(file=sys.stderr)
    out = {}
    for fut in as_completed(futures):
        try:
            out[fut.key] = fut.result()
        except Exception as e:          # KilledWorker and the like
            out[fut.key] = e
    return [out[f.key] for f in futures]


def tasks_of(client, images: List[str], progress: bool) -> List[Task]:
    futs = client.map(discover, [os.path.abspath(i) for i in images],
                      pure=False, retries=2)
    found = gather(client, futs, False)
    tasks: List[Task] = []
    for img, got in zip(images, found):
        tasks.extend(got if isinstance(got, list) else
                     [Task(os.path.abspath(img))])
    return tasks


def _lost(task: Task, e: Exception) -> Dict:
    return {"id": task.id, "image": task.image, "partition": task.partition,
            "offset": task.offset, "image_size": task.size,
            "status": "error", "error": {"errno": None,
                                         "name": type(e).__name__,
                                         "message": str(e)}}


def run_scan(client, args, tasks: List[Task], progress: bool) -> int:
    out = os.path.abspath(args.out)
    prepare(out, args.timeline)
    rows, todo = [], []
    for t in tasks:
        row = None if args.redo else done_row(out, t)
        (rows.append(row) if row else todo.append(t))
    futs = client.map(scan_task, todo, out=out, fmt=args.format,
                      timeline=args.timeline, sha256=args.sha256,
                      pure=False, retries=2)
    for t, r in zip(todo, gather(client, futs, progress)):
        rows.append(r if isinstance(r, dict) else _lost(t, r))
    tot = write_manifest(out, rows)["total"]
    print("e2map fleet: %d filesystems in %d images (%d skipped as done, "
          "%d failed); %d records; a sparse copy moves %d of %d bytes"
          % (tot["filesystems"] + tot["failed_filesystems"], tot["images"],
             len(tasks) - len(todo), tot["failed_filesystems"],
             tot["inodes"], tot["sparse_copy_bytes"], tot["apparent_bytes"]),
          file=sys.stderr)
    return 0


def run_du(client, args, tasks: List[Task], progress: bool) -> int:
    futs = client.map(du_task, tasks, pure=False, retries=2)
    rows = [r if isinstance(r, dict) else _lost(t, r)
            for t, r in zip(tasks, gather(client, futs, progress))]
    json.dump(summarize(rows), sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


def run_find(client, args, tasks: List[Task], progress: bool) -> int:
    pred = Predicate(args.path, args.type, args.min_size,
                     tuple(h.lower() for h in args.sha256))
    futs = client.map(find_task, tasks, pred=pred, pure=False, retries=2)
    for t, r in zip(tasks, gather(client, futs, progress)):
        r = r if isinstance(r, dict) else _lost(t, r)
        if r["status"] != "ok":
            print(json.dumps({"image": r["image"],
                              "partition": r["partition"],
                              "error": r["error"]}), file=sys.stderr)
            continue
        for m in r["matches"]:
            m.update(image=r["image"], partition=r["partition"])
            print(json.dumps(m, ensure_ascii=False, sort_keys=True))
    return 0


def main(argv=None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    progress = not args.no_progress and sys.stderr.isatty()
    client, cluster = client_for(args)
    try:
        tasks = tasks_of(client, args.images, progress)
        run = {"scan": run_scan, "du": run_du, "find": run_find}[args.cmd]
        return run(client, args, tasks, progress)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: LGPL-2.1-or-later
"""A fleet of images on Dask: the unit of work and what it writes.

The unit is one filesystem: an image, or one ext2/3/4 partition of a disk
image (Turbinia's unit, a partition).  A task opens its own handle on the
image, streams its records into a gzip'd file of its own, and returns
one manifest row; an image that fails (corrupt, unreadable, not ext)
returns a row with its error, never an exception, so that a bad image
never fails the job.  A task is done once DIR/done/ID.json exists, written
last and atomically: a rerun skips it (resumable).

Everything here is plain functions of plain data, so that Dask ships
them to workers by name; python -m e2map.fleet is the driver.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import stat
import time
import zlib
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List, Optional

import e2map
from .. import formats

FORMATS = ("jsonl", "csv", "body")
_EXT = {"jsonl": "jsonl.gz", "csv": "csv.gz", "body": "body.gz"}


@dataclass(frozen=True)
class Task:
    """One filesystem: IMAGE (absolute), and its PARTITION on a disk."""
    image: str
    partition: Optional[int] = None
    offset: int = 0          # the partition's first byte in the disk
    size: int = 0            # bytes of the image file

    @property
    def id(self) -> str:
        """Stable across runs: the image's name, a hash of its path, the
        partition."""
        h = zlib.crc32(self.image.encode("utf-8", "surrogateescape"))
        base = os.path.basename(self.image)
        part = "" if self.partition is None else "-p%d" % self.partition
        return "%s-%08x%s" % (base, h, part)


def discover(image: str) -> List[Task]:
    """The tasks of IMAGE: one per ext2/3/4 partition of a disk, or the
    image itself (a bare filesystem, or anything e2map cannot read as a
    disk: its task then fails with the open's error)."""
    image = os.path.abspath(image)
    try:
        size = os.stat(image).st_size
        d = e2map.disk(image)
    except OSError:
        return [Task(image, None, 0, 0)]
    parts = [p for p in d.partitions if p.is_ext]
    if not d.table or not parts:
        return [Task(image, None, 0, size)]
    return [Task(image, p.number, p.start, size) for p in parts]


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _row(task: Task, **kw) -> Dict[str, Any]:
    row: Dict[str, Any] = {"id": task.id, "image": task.image, "partition": task.partition,
           "offset": task.offset, "image_size": task.size}
    row.update(kw)
    return row


def _error(e: BaseException) -> Dict:
    if isinstance(e, OSError) and e.errno:
        return {"errno": e.errno, "name": e2map._lib.errno_name(-e.errno),
                "message": e.strerror or str(e)}
    return {"errno": None, "name": type(e).__name__, "message": str(e)}


def _open(task: Task) -> e2map.Image:
    return e2map.open(task.image, partition=task.partition)


def _write_records(img: e2map.Image, out, fmt: str, tl, extra: Dict,
                   threads: int) -> e2map.Summary:
    """Records in FMT into OUT, events into TL: a few hundred KiB a
    write, since zlib's cost is per call on lines this short."""
    total = e2map.Summary()
    lines: List[bytes] = [formats.CSV_HEAD.encode()] if fmt == "csv" else []
    events: List[bytes] = []
    size = 0
    for rec in img.scan(threads=threads):
        total.add(rec)
        if fmt == "body":
            line = formats.body(rec, _target(img, rec))
        else:
            text = formats.jsonl(rec) if fmt == "jsonl" else formats.csv(rec)
            line = text.encode("utf-8", "surrogateescape")
        lines.append(line)
        size += len(line)
        if tl is not None:
            events.extend(formats.timesketch_line(ev).encode(
                "utf-8", "surrogateescape")
                for ev in formats.timesketch(rec, **extra))
        if size >= _FLUSH:
            _flush(out, lines, tl, events)
            size = 0
    _flush(out, lines, tl, events)
    return total


_FLUSH = 256 << 10


def _flush(out, lines: List[bytes], tl, events: List[bytes]) -> None:
    out.write(b"".join(lines))
    lines.clear()
    if tl is not None:
        tl.write(b"".join(events))
        events.clear()


def _target(img: e2map.Image, rec) -> Optional[bytes]:
    if rec.atime is None or not stat.S_ISLNK(rec.mode):
        return None
    try:
        target = img.readlink(rec.ino)      # bytes, for an inode number
    except OSError:
        return None
    return bytes(target[:4096]) if isinstance(target, bytes) else None


def scan_task(task: Task, out: str, fmt: str = "jsonl",
              timeline: bool = False, sha256: bool = False,
              threads: int = 1) -> Dict:
    """Scan TASK's filesystem into OUT/records/ID.FMT.gz (and
    OUT/timeline/ID.jsonl.gz): the manifest row, written to OUT/done/ID.json
    last.  Never raises for the image's own trouble."""
    t0 = time.monotonic()
    rec_path = os.path.join(out, "records", "%s.%s" % (task.id, _EXT[fmt]))
    tl_path = os.path.join(out, "timeline", task.id + ".jsonl.gz")
    row = _row(task, format=fmt)
    try:
        if sha256:
            row["sha256"] = _sha256(task.image)
        with _open(task) as img:
            extra: Dict[str, Any] = {"image": task.image}
            if task.partition is not None:
                extra["partition"] = task.partition
            with gzip.open(rec_path + ".part", "wb", 6) as o:
                if timeline:
                    with gzip.open(tl_path + ".part", "wb", 6) as tl:
                        total = _write_records(img, o, fmt, tl, extra,
                                               threads)
                    os.replace(tl_path + ".part", tl_path)
                else:
                    total = _write_records(img, o, fmt, None, extra, threads)
            os.replace(rec_path + ".part", rec_path)
            row["state"] = [str(s.name).lower() for s in e2map.State
                            if img.state & s]
        s = total.asdict()
        row.update(status="ok", records=total.inodes,
                   record_errors=total.errors, summary=s,
                   records_file=os.path.relpath(rec_path, out))
        if timeline:
            row["timeline_file"] = os.path.relpath(tl_path, out)
    except Exception as e:       # the image's trouble: a row, not a crash
        for p in (rec_path + ".part", tl_path + ".part"):
            if os.path.exists(p):
                os.unlink(p)
        row.update(status="error", error=_error(e))
    row["seconds"] = round(time.monotonic() - t0, 3)
    mark_done(out, task, row)
    return row


def du_task(task: Task) -> Dict:
    """The summary alone: what a sparse-aware copy of TASK moves."""
    t0 = time.monotonic()
    row = _row(task)
    try:
        total = e2map.Summary(top=0)
        with _open(task) as img:
            for rec in img.scan(threads=1):
                total.add(rec)
        row.update(status="ok", summary=total.asdict())
    except Exception as e:
        row.update(status="error", error=_error(e))
    row["seconds"] = round(time.monotonic() - t0, 3)
    return row


@dataclass(frozen=True)
class Predicate:
    """What `fleet find` looks for: paths matching a glob, files of a
    type, at least MIN_SIZE bytes, and files whose bytes have a sha256
    among SHA256 (read only where the size could match)."""
    glob: Optional[str] = None
    type: Optional[str] = None
    min_size: int = 0
    sha256: tuple = ()


def _hash_file(img: e2map.Image, ino: int) -> Optional[str]:
    h = hashlib.sha256()
    try:
        with img.open(ino) as f:
            for block in iter(lambda: f.read(1 << 20) or b"", b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def find_task(task: Task, pred: Predicate) -> Dict:
    """The records of TASK that match PRED, as {"matches": [...]}."""
    import fnmatch
    row = _row(task)
    matches: List[Dict] = []
    try:
        with _open(task) as img:
            for rec in img.scan(threads=1):
                # Names only: not the journal, the resize inode, an EA
                # inode's value, nor anything no directory reaches.
                if not rec.paths_bytes or rec.name_only:
                    continue
                if pred.type and rec.type != pred.type:
                    continue
                if rec.size < pred.min_size or rec.error:
                    continue
                paths = rec.paths
                if pred.glob:
                    paths = [p for p in paths if fnmatch.fnmatchcase(p, pred.glob)]
                    if not paths:
                        continue
                m = {"ino": rec.ino, "paths": paths, "type": rec.type,
                     "size": rec.size}
                if pred.sha256:
                    if rec.type != "regular":
                        continue
                    digest = _hash_file(img, rec.ino)
                    if digest not in pred.sha256:
                        continue
                    m["sha256"] = digest
                matches.append(m)
        row.update(status="ok", matches=matches)
    except Exception as e:
        row.update(status="error", error=_error(e))
    return row


# -- the dataset ------------------------------------------------------------

def prepare(out: str, timeline: bool) -> None:
    for sub in ("records", "done") + (("timeline",) if timeline else ()):
        os.makedirs(os.path.join(out, sub), exist_ok=True)


def mark_done(out: str, task: Task, row: Dict) -> None:
    path = os.path.join(out, "done", task.id + ".json")
    with open(path + ".part", "w") as f:
        json.dump(row, f, sort_keys=True)
    os.replace(path + ".part", path)


def done_row(out: str, task: Task) -> Optional[Dict]:
    """The row of a task a run finished before, or None."""
    try:
        with open(os.path.join(out, "done", task.id + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


SUMMED = ("apparent_bytes", "allocated_bytes", "written_bytes",
          "unwritten_bytes", "hole_bytes", "past_eof_bytes",
          "naive_copy_bytes", "sparse_copy_bytes", "regular_files", "inodes",
          "errors")


def _int(v) -> int:
    return int(v)    # past 2^53 the summary holds a decimal string


def summarize(rows: Iterable[Dict]) -> Dict:
    """Per image and in all: what a backup of the fleet moves."""
    images: Dict[str, Dict] = {}
    total = {k: 0 for k in SUMMED}
    failed = 0
    for r in rows:
        img = images.setdefault(r["image"], dict(
            {k: 0 for k in SUMMED}, image=r["image"],
            image_size=r["image_size"], filesystems=0, failed=0))
        if r["status"] != "ok":
            img["failed"] += 1
            failed += 1
            continue
        img["filesystems"] += 1
        for k in SUMMED:
            v = _int(r["summary"][k])
            img[k] += v
            total[k] += v
    total.update(images=len(images), failed_filesystems=failed,
                 filesystems=sum(i["filesystems"] for i in images.values()),
                 image_bytes=sum(i["image_size"] for i in images.values()))
    return {"total": total, "images": sorted(images.values(),
                                             key=lambda i: i["image"])}


def write_manifest(out: str, rows: List[Dict]) -> Dict:
    rows = sorted(rows, key=lambda r: (r["image"], r["partition"] or 0))
    with open(os.path.join(out, "manifest.jsonl.part"), "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    os.replace(os.path.join(out, "manifest.jsonl.part"),
               os.path.join(out, "manifest.jsonl"))
    s = summarize(rows)
    with open(os.path.join(out, "summary.json.part"), "w") as f:
        json.dump(s, f, indent=1, sort_keys=True)
    os.replace(os.path.join(out, "summary.json.part"),
               os.path.join(out, "summary.json"))
    return s


def task_dict(t: Task) -> Dict:
    return asdict(t)

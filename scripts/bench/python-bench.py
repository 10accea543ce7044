#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Timing for scripts/bench/python.sh: commands alternate within a group
(round r runs them rotated by r) after one untimed warm-up round; medians
(min-max) of RUNS runs; ratios are the other side's time over the
binding's (above 1x the binding is faster).  Prints a Markdown table.

usage: python-bench.py BIG4K.IMG WORKDIR     (env: E2MAP, BENCH_RUNS)
"""
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

E2MAP = os.environ["E2MAP"]
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
PY = sys.executable


INNER = {}     # command -> the in-process seconds it printed, per run


def run(cmd, before=None) -> float:
    if before:
        before()
    # Only a script that reports its inner time writes to a pipe; the
    # rest write to /dev/null, as a user's `e2map cat >/dev/null` does.
    inner = (isinstance(cmd, list) and cmd[1:2] == ["-c"] and
             "print('inner'" in cmd[2])
    t = time.monotonic()
    p = subprocess.run(cmd, shell=isinstance(cmd, str), check=True,
                       stdout=subprocess.PIPE if inner else subprocess.DEVNULL)
    wall = time.monotonic() - t
    if inner:
        INNER.setdefault(id(cmd), []).append(float(p.stdout.split()[1]))
    return wall


def group(cmds):
    """{name: [seconds...]} for CMDS [(name, cmd, before)], alternating."""
    for _, cmd, before in cmds:
        run(cmd, before)
    out = {name: [] for name, _, _ in cmds}
    for r in range(RUNS):
        for name, cmd, before in cmds[r % len(cmds):] + cmds[:r % len(cmds)]:
            out[name].append(run(cmd, before))
    return out


def med(v):
    return "%.3f s (%.3f-%.3f)" % (statistics.median(v), min(v), max(v))


def row(what, mine, theirs, other):
    m, t = statistics.median(mine), statistics.median(theirs)
    print("| %s | %s | %s: %s | **%.2fx** |" % (what, med(mine), other,
                                                med(theirs), t / m))


def py(code: str) -> list:
    return [PY, "-c", code]


def bench_scan(img):
    mine = py("import e2map, sys\n"
              "n = sum(1 for r in e2map.open(sys.argv[1]).scan())\n"
              "assert n > 200000\n") + [img]
    theirs = ("%s scan -q --format jsonl %s | %s -c 'import json, sys\n"
              "n = sum(1 for l in sys.stdin if json.loads(l))\n"
              "assert n > 200000'" % (E2MAP, img, PY))
    t = group([("py", mine, None), ("cli", theirs, None)])
    row("`Image.scan()` over big4k (every record)", t["py"], t["cli"],
        "`e2map scan --format jsonl` \\| `json.loads`")


def bench_read(img, path):
    """The open and read as the script times them (once e2map is
    imported), and its whole process (Python's start and the import, 60
    ms here), against `e2map cat`'s whole process."""
    mine = py("import time\n"
              "import e2map, sys\n"
              "t = time.monotonic()\n"
              "buf = bytearray(1 << 20)\n"
              "with e2map.open(sys.argv[1]) as i, i.open(sys.argv[2]) as f:\n"
              "    while f.readinto(buf):\n"
              "        pass\n"
              "print('inner', time.monotonic() - t)\n") + [img, path]
    theirs = [E2MAP, "cat", img, path]
    INNER.pop(id(mine), None)
    t = group([("py", mine, None), ("cli", theirs, None)])
    inner = INNER[id(mine)][-RUNS:]
    row("read `%s` through `File`: open and read" % path, inner,
        t["cli"], "`e2map cat` (its whole process)")
    row("the same, the whole Python process", t["py"], t["cli"],
        "`e2map cat`")


def make_images(work, n):
    """N images of one generated tree of 4,000 small files (mke2fs -d),
    so that a task's scan outweighs Dask's cost per task."""
    rnd = random.Random(7)
    tree = os.path.join(work, "tree")
    for d in range(16):
        os.makedirs(os.path.join(tree, "d%d" % d))
        for f in range(250):
            with open(os.path.join(tree, "d%d" % d, "f%d" % f), "wb") as o:
                o.write(os.urandom(rnd.randint(0, 8000)))
    imgs = []
    for i in range(n):
        img = os.path.join(work, "img%03d.ext4" % i)
        subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", "-d", tree, img,
                        "64M"], check=True, stdout=subprocess.DEVNULL)
        imgs.append(img)
    shutil.rmtree(tree)
    return imgs


def bench_fleet(work):
    n = 100
    imgs = make_images(work, n)
    out = os.path.join(work, "out")

    def fresh():
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)

    fleet = [PY, "-m", "e2map.fleet", "scan", "--out", out, "--no-progress"]
    loop = ("for i in %s; do %s scan -q --format jsonl \"$i\" | gzip > "
            "%s/$(basename \"$i\").gz; done" % (" ".join(imgs), E2MAP, out))
    t = group([("w1", fleet + ["--workers", "1"] + imgs, fresh),
               ("w2", fleet + ["--workers", "2"] + imgs, fresh),
               ("one", fleet + ["--workers", "2"] + imgs[:1], fresh),
               ("loop", loop, fresh)])
    start = statistics.median(t["one"])
    for w in ("w1", "w2"):
        m = statistics.median(t[w])
        print("| fleet scan, %s worker%s: %d images of 4,000 files (%.1f "
              "images/s; %.1f past the start-up) | %s | a shell loop of "
              "`e2map scan \\| gzip`: %s | **%.2fx** |" % (
                  w[1], "" if w == "w1" else "s", n, n / m,
                  n / max(m - start, 1e-9), med(t[w]), med(t["loop"]),
                  statistics.median(t["loop"]) / m))
    print("| fleet scan of one image: the start-up (a LocalCluster of 2, "
          "its imports) | %s | | |" % med(t["one"]))


def main():
    img, work = sys.argv[1], sys.argv[2]
    print("| what | binding | the other way | ratio |")
    print("|---|---|---|---|")
    bench_scan(img)
    for path in ("/frag/punched-128m", "/frag/holes-1g", "/q/frag-1g",
                 "/frag/unwritten-128m"):
        bench_read(img, path)
    bench_fleet(work)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""shapes-report.py: scripts/bench/shapes.sh's tables.

  shapes-report.py meta IMG SCAN_JSONL     one JSON line: the image's
      metadata a full pass must read (inode tables as far as in use,
      directory blocks up to their size, extent/indirect/xattr blocks),
      from dumpe2fs and e2map scan's records
  shapes-report.py memcpy                  memcpy speed, bytes/s (the
      best of 40 copies of 64 MiB between buffers already faulted in)
  shapes-report.py report ROWS METAS GROUP_JSON...   the Markdown tables

ROWS: one row a line, tab-separated: SHAPE MODE WHAT E2MAP_ID AGAINST
COMP_ID TARGET, where an ID may end in /N (the command made N calls: times
are per call) and TARGET is the least ratio wanted or "-".  Ratio:
competitor median / e2map median (above 1x e2map is faster).  METAS: one
"SHAPE <json of meta>" a line, plus "memcpy BYTES_PER_S".
"""
import json
import re
import statistics
import subprocess
import sys
import time


def dumpe2fs(img):
    out = subprocess.run(["dumpe2fs", img], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         check=True, universal_newlines=True).stdout
    head, groups = {}, []
    for line in out.splitlines():
        if re.match(r"Group \d+:", line):
            groups.append(None)
        elif "unused inodes" in line and groups:
            groups[-1] = int(line.split(",")[-1].split()[0])
        elif ":" in line and not line.startswith(" "):
            k, v = line.split(":", 1)
            head[k.strip()] = v.strip()
    return head, groups


def meta(img, scan):
    head, groups = dumpe2fs(img)
    bs, isz, ipg = int(head["Block size"]), int(head["Inode size"]), int(head["Inodes per group"])
    # without uninit_bg/metadata_csum no group says how much of its table
    # is unused: a pass reads the whole table
    csum = any(f in head["Filesystem features"] for f in ("uninit_bg", "metadata_csum"))
    itable = sum((ipg - (u or 0) if csum else ipg) * isz for u in groups)
    dirs = tree = files = ndirs = 0
    with open(scan) as f:
        for line in f:
            r = json.loads(line)
            if "summary" in r:
                continue
            tree += r["meta_blocks"] * bs
            if r["type"] == "directory":
                # size, not blocks: a bigalloc directory holds whole
                # clusters, it is read block by block up to its size
                dirs += r["size"]
                ndirs += 1
            elif r["type"] == "regular":
                files += 1
    inodes = int(head["Inode count"]) - int(head["Free inodes"])
    return {"block": bs, "size": int(head["Block count"]) * bs, "inodes": inodes,
            "files": files, "dirs": ndirs, "itable": itable, "dirbytes": dirs, "tree": tree,
            "features": head["Filesystem features"]}


def memcpy():
    # many short copies: on a shared machine some run without preemption
    src, dst = bytearray(b"\x5a" * (64 << 20)), bytearray(64 << 20)
    dst[:] = src    # the pages faulted in before any timing
    best = None
    for _ in range(40):
        t = time.perf_counter()
        dst[:] = src
        t = time.perf_counter() - t
        best = t if best is None or t < best else best
    return len(src) / best


def fmt_t(s):
    if s >= 1:
        return "%.2f s" % s
    if s >= 0.001:
        return "%.1f ms" % (s * 1e3)
    return "%.0f µs" % (s * 1e6)


def stats(meas, ref):
    """(wall median, min, max, cpu median) of ID[/N], per call."""
    cid, _, n = ref.partition("/")
    m = meas[cid]
    n = int(n or 1)
    return m["median"] / n, m["min"] / n, m["max"] / n, m["cpu"]["median"] / n


def cell(s):
    return "%s (%s–%s) | %s" % (fmt_t(s[0]), fmt_t(s[1]), fmt_t(s[2]), fmt_t(s[3]))


def judge(r, target):
    if target == "-":
        return "", 0
    if r >= float(target):
        return "ok", 0
    return "**MISSED**", 1


def report(rows_path, metas_path, group_jsons):
    meas = {}
    for g in group_jsons:
        with open(g) as f:
            meas.update(json.load(f))
    metas, bps = {}, None
    with open(metas_path) as f:
        for line in f:
            k, v = line.rstrip("\n").split(" ", 1)
            if k == "memcpy":
                bps = float(v)
            else:
                metas[k] = json.loads(v)
    missed = missed_cpu = 0
    print("| shape | mode | e2map | wall: median (min–max) | cpu | against | wall: median (min–max) "
          "| cpu | ratio wall | ratio cpu | target: wall, cpu |")
    print("|---|---|---|---:|---:|---|---:|---:|---:|---:|---|")
    with open(rows_path) as f:
        for line in f:
            shape, mode, what, eid, against, cid, target = line.rstrip("\n").split("\t")
            if eid.partition("/")[0] not in meas or cid.partition("/")[0] not in meas:
                continue
            e, c = stats(meas, eid), stats(meas, cid)
            r, rc = c[0] / e[0], c[3] / e[3] if e[3] else float("inf")
            (mw, nw), (mc, nc) = judge(r, target), judge(rc, target)
            missed, missed_cpu = missed + nw, missed_cpu + nc
            mark = "≥%sx: %s, %s" % (target, mw, mc) if target != "-" else ""
            print("| %s | %s | %s | %s | %s | %s | **%.2fx** | %.2fx | %s |" % (
                shape, mode, what, cell(e), against, cell(c), r, rc, mark))
    print()
    print("Targets missed: %d on wall time, %d on CPU time.  Ratio: the other command's median "
          "/ e2map's (above 1x e2map is faster); cpu: user + system of the command and its "
          "children (e2map's threads add up: `check -q` runs one per CPU, -j1 one); per-call "
          "rows divide a shell loop's time by its calls." % (missed, missed_cpu))
    if not metas:
        return
    print()
    print("Metadata a full pass reads, and those bytes at memcpy speed (%.1f GB/s here, "
          "`shapes-report.py memcpy`): `check` reads the inode tables (as far as in use) and "
          "the map blocks (extent tree, indirect, xattr); `scan` the directory blocks too (for "
          "the names). warm: e2map's wall / CPU medians; x: those over the floor." % (bps / 1e9))
    print()
    print("| shape | block | inodes | files | dirs | inode tables | dir blocks | map blocks "
          "| check floor | check warm: wall / cpu | x | scan floor | scan warm: wall / cpu | x |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    mib = lambda b: "%.1f MiB" % (b / 1048576)
    for shape, m in metas.items():
        cells = []
        for cmd, tot in (("check", m["itable"] + m["tree"]),
                         ("scan", m["itable"] + m["tree"] + m["dirbytes"])):
            floor = tot / bps
            w = meas.get("%s.%s.warm" % (shape, cmd))
            cells += [fmt_t(floor),
                      "%s / %s" % (fmt_t(w["median"]), fmt_t(w["cpu"]["median"])) if w else "-",
                      "%.0fx / %.0fx" % (w["median"] / floor, w["cpu"]["median"] / floor)
                      if w and floor else "-"]
        print("| %s | %d | %d | %d | %d | %s | %s | %s | %s |" % (
            shape, m["block"], m["inodes"], m["files"], m["dirs"], mib(m["itable"]),
            mib(m["dirbytes"]), mib(m["tree"]), " | ".join(cells)))


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "meta":
        print(json.dumps(meta(a[1], a[2]), sort_keys=True))
    elif a == ["memcpy"]:
        print("%.0f" % memcpy())
    elif len(a) >= 3 and a[0] == "report":
        report(a[1], a[2], a[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""shapes-report.py: scripts/bench/shapes.sh's tables.

  shapes-report.py meta IMG SCAN_JSONL     one JSON line: the image's
      metadata a full pass must read (inode tables as far as in use,
      directory blocks, extent/indirect/xattr blocks), from dumpe2fs and
      e2map scan's records
  shapes-report.py memcpy                  memcpy speed, bytes/s (the
      best of 5 copies of 256 MiB between buffers already faulted in)
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
                dirs += r["blocks"] * 512
                ndirs += 1
            elif r["type"] == "regular":
                files += 1
    inodes = int(head["Inode count"]) - int(head["Free inodes"])
    return {"block": bs, "size": int(head["Block count"]) * bs, "inodes": inodes,
            "files": files, "dirs": ndirs, "itable": itable, "dirbytes": dirs, "tree": tree,
            "features": head["Filesystem features"]}


def memcpy():
    src, dst = bytearray(b"\x5a" * (256 << 20)), bytearray(256 << 20)
    dst[:] = src    # the pages faulted in before any timing
    best = None
    for _ in range(5):
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
    cid, _, n = ref.partition("/")
    m = meas[cid]
    n = int(n or 1)
    return m["median"] / n, m["min"] / n, m["max"] / n, m["cmd"]


def cell(s):
    return "%s (%s–%s)" % (fmt_t(s[0]), fmt_t(s[1]), fmt_t(s[2]))


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
    missed = 0
    print("| shape | mode | e2map | median (min–max) | against | median (min–max) | ratio | target |")
    print("|---|---|---|---:|---|---:|---:|---|")
    with open(rows_path) as f:
        for line in f:
            shape, mode, what, eid, against, cid, target = line.rstrip("\n").split("\t")
            if eid.partition("/")[0] not in meas or cid.partition("/")[0] not in meas:
                continue
            e, c = stats(meas, eid), stats(meas, cid)
            r = c[0] / e[0]
            if target == "-":
                mark = ""
            elif r >= float(target):
                mark = "≥%sx ok" % target
            else:
                mark = "≥%sx **MISSED**" % target
                missed += 1
            print("| %s | %s | %s | %s | %s | %s | **%.2fx** | %s |" % (
                shape, mode, what, cell(e), against, cell(c), r, mark))
    print()
    print("%d target(s) missed.  Ratio: the other command's median / e2map's (above 1x e2map "
          "is faster); per-call rows divide a shell loop's time by its calls." % missed)
    if not metas:
        return
    print()
    print("Metadata a full pass reads (inode tables as far as in use, directory blocks, "
          "extent/indirect/xattr blocks), and that many bytes at memcpy speed "
          "(%.1f GB/s here) against `e2map check -q` warm:" % (bps / 1e9))
    print()
    print("| shape | block | inodes | files | dirs | inode tables | dir blocks | map blocks "
          "| total | at memcpy speed | check warm | x |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for shape, m in metas.items():
        tot = m["itable"] + m["dirbytes"] + m["tree"]
        floor = tot / bps
        cw = meas.get(shape + ".check.warm")
        cws = fmt_t(cw["median"]) if cw else "-"
        x = "%.0fx" % (cw["median"] / floor) if cw else "-"
        mib = lambda b: "%.1f MiB" % (b / 1048576)
        print("| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            shape, m["block"], m["inodes"], m["files"], m["dirs"], mib(m["itable"]),
            mib(m["dirbytes"]), mib(m["tree"]), mib(tot), fmt_t(floor), cws, x))


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

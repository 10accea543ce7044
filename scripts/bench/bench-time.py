#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench-time.py run GROUPFILE JSONOUT: time a group of commands, alternating.
bench-time.py report ROWS JSONOUT|"" GROUPJSON...: the results table.

GROUPFILE has one command a line: ID <TAB> RUNS <TAB> WARMUP <TAB> PRE <TAB>
CMD.  CMD runs as sh -c CMD when it needs a shell (it holds ; & | < > $ or
the like), else directly (its words split as sh would); PRE, when not "-",
runs untimed before each run of CMD (sh -c).

Rounds: round r runs every command that still has warm-up or timed runs
left, in the group's order rotated by r, so each command's runs are spread
over the whole measurement and none always follows the same other.  Each
run goes through the bench-run helper ($BENCH_RUN: a small C program,
scripts/bench/bench-run.c): wall time around its fork + exec + wait4, peak memory
wait4's ru_maxrss (the figure /usr/bin/time -v prints as "Maximum resident
set size": the largest of the process and the descendants it waited for).
stdout goes to /dev/null, stderr to ID.err beside JSONOUT.  A run that
exits non-zero stops the group (exit 1).

JSONOUT gets {ID: {"times": [...], "median", "min", "max", "maxrss_kib",
"runs", "cmd"}}; a one-line summary per command goes to stderr.

report: ROWS has TASK|E2MAP-ID|COMPETITOR|COMPETITOR-ID|KIND a line, KIND
"ratio" (competitor median / e2map median) or "growth" (e2map on a larger
fs / e2map on the small one).  Prints the Markdown table; with JSONOUT,
writes {"measurements": {...}, "rows": [...]} there too.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys

SHELL_CHARS = set(";&|<>$`*?[]{}()~\\\n")


def argv_of(cmd):
    if any(c in SHELL_CHARS for c in cmd):
        return ["sh", "-c", cmd]
    return shlex.split(cmd)


def spawn(argv, err_path):
    """Run argv through bench-run; return (seconds, exit status, peak RSS KiB)."""
    res = subprocess.run([os.environ["BENCH_RUN"], err_path] + argv, stdout=subprocess.PIPE,
                         check=True, universal_newlines=True)
    ns, rss, rc = res.stdout.split()
    return int(ns) / 1e9, int(rc), int(rss)


def read_group(path):
    cmds = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            cid, runs, warm, pre, cmd = line.split("\t", 4)
            cmds.append({"id": cid, "runs": int(runs), "warm": int(warm),
                         "pre": None if pre == "-" else pre, "argv": argv_of(cmd), "cmd": cmd,
                         "times": [], "rss": []})
    return cmds


def run_one(c, errdir, timed):
    if c["pre"]:
        subprocess.run(["sh", "-c", c["pre"]], check=True)
    err = os.path.join(errdir, c["id"] + ".err")
    t, rc, rss = spawn(c["argv"], err)
    if rc != 0:
        with open(err, errors="replace") as f:
            tail = f.read()[-600:]
        sys.exit("bench-time: [%s] exit %d: %s\n%s" % (c["id"], rc, c["cmd"], tail))
    if timed:
        c["times"].append(t)
        c["rss"].append(rss)


def run(group, jsonout):
    cmds = read_group(group)
    errdir = os.path.dirname(os.path.abspath(jsonout))
    rounds = max(c["warm"] + c["runs"] for c in cmds)
    for r in range(rounds):
        k = r % len(cmds)
        for c in cmds[k:] + cmds[:k]:
            # a command with fewer warm-up runs starts its timed runs
            # earlier; all of them end by the last round
            if r < c["warm"]:
                run_one(c, errdir, False)
            elif r - c["warm"] < c["runs"]:
                run_one(c, errdir, True)
    out = {}
    for c in cmds:
        ts = c["times"]
        out[c["id"]] = {"cmd": c["cmd"], "runs": len(ts), "times": ts,
                        "median": statistics.median(ts), "min": min(ts),
                        "max": max(ts), "maxrss_kib": max(c["rss"])}
        sys.stderr.write("bench: [%s] median %.4f s (%.4f-%.4f), %d runs, peak %d KiB\n" % (
            c["id"], statistics.median(ts), min(ts), max(ts), len(ts), max(c["rss"])))
    with open(jsonout, "w") as f:
        json.dump(out, f, indent=1)


def fmt_t(s):
    if s >= 1:
        return "%.2f s" % s
    if s >= 0.001:
        return "%.1f ms" % (s * 1e3)
    return "%.0f µs" % (s * 1e6)


def fmt_m(m):
    return "%s (%s–%s), %.1f MiB" % (fmt_t(m["median"]), fmt_t(m["min"]), fmt_t(m["max"]),
                                     m["maxrss_kib"] / 1024)


def report(rows_path, jsonout, group_jsons):
    meas = {}
    for g in group_jsons:
        with open(g) as f:
            meas.update(json.load(f))
    rows = []
    print("| task | e2map: median (min–max), peak RSS | competitor: median (min–max), peak RSS | ratio |")
    print("|---|---:|---|---:|")
    last = None
    with open(rows_path) as f:
        for line in f:
            task, eid, comp, cid, kind = line.rstrip("\n").split("|")
            if eid not in meas or cid not in meas:
                continue
            e, c = meas[eid], meas[cid]
            if kind == "growth":
                r = e["median"] / c["median"]
                cell = "grows %.2fx, memory %.2fx" % (r, e["maxrss_kib"] / c["maxrss_kib"])
            else:
                r = c["median"] / e["median"]
                cell = "**%.2fx**" % r
            same = (task, eid) == last
            print("| %s | %s | %s: %s | %s |" % ("" if same else task, "" if same else fmt_m(e),
                                                 comp, fmt_m(c), cell))
            last = (task, eid)
            rows.append({"task": task, "e2map": eid, "competitor": comp, "competitor_id": cid,
                         "kind": kind, "ratio": r})
    if jsonout:
        with open(jsonout, "w") as f:
            json.dump({"measurements": meas, "rows": rows}, f, indent=1)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

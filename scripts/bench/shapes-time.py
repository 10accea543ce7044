#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""shapes-time.py GROUPFILE JSONOUT: time a group of commands, alternating,
in wall time and in CPU time (user + system, of the command and every
descendant it waited for: wait4's rusage).

The group file is bench-time.py's: ID <TAB> RUNS <TAB> WARMUP <TAB> PRE
<TAB> CMD, CMD run as sh -c CMD when it holds a shell character, else
directly; PRE (not "-") runs untimed before each run.  Round r runs the
commands in the group's order rotated by r.  CPU time is what the machine
being shared does not inflate much (other jobs on the same cores stretch
the wall time, not the CPU time); shapes.sh reports both.

JSONOUT gets {ID: {"cmd", "runs", "times", "median", "min", "max",
"cpu": {"times", "median", "min", "max"}}}.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

SHELL_CHARS = set(";&|<>$`*?[]{}()~\\\n'\"")


def argv_of(cmd):
    if any(c in SHELL_CHARS for c in cmd):
        return ["/bin/sh", "-c", cmd]
    a = shlex.split(cmd)
    return a


def spawn(argv, err):
    """Run argv; return (wall s, cpu s, exit status)."""
    fa = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
          (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
          (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
    t = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=fa)
    _, status, ru = os.wait4(pid, 0)
    t = time.perf_counter() - t
    return t, ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status)


def summary(ts):
    return {"times": ts, "median": statistics.median(ts), "min": min(ts), "max": max(ts)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cmds = []
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                cid, runs, warm, pre, cmd = line.split("\t", 4)
                cmds.append({"id": cid, "runs": int(runs), "warm": int(warm),
                             "pre": None if pre == "-" else pre, "cmd": cmd,
                             "argv": argv_of(cmd), "wall": [], "cpu": []})
    errdir = os.path.dirname(os.path.abspath(sys.argv[2]))
    for r in range(max(c["warm"] + c["runs"] for c in cmds)):
        k = r % len(cmds)
        for c in cmds[k:] + cmds[:k]:
            if r - c["warm"] >= c["runs"]:
                continue
            if c["pre"]:
                subprocess.run(["sh", "-c", c["pre"]], check=True)
            err = os.path.join(errdir, c["id"] + ".err")
            wall, cpu, rc = spawn(c["argv"], err)
            if rc != 0:
                with open(err, errors="replace") as e:
                    sys.exit("shapes-time: [%s] exit %d: %s\n%s" % (c["id"], rc, c["cmd"],
                                                                   e.read()[-600:]))
            if r >= c["warm"]:
                c["wall"].append(wall)
                c["cpu"].append(cpu)
    out = {}
    for c in cmds:
        out[c["id"]] = dict(summary(c["wall"]), cmd=c["cmd"], runs=len(c["wall"]),
                            cpu=summary(c["cpu"]))
        sys.stderr.write("shapes-time: [%s] wall %.4f s (%.4f-%.4f), cpu %.4f s, %d runs\n" % (
            c["id"], out[c["id"]]["median"], out[c["id"]]["min"], out[c["id"]]["max"],
            out[c["id"]]["cpu"]["median"], len(c["wall"])))
    with open(sys.argv[2], "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()

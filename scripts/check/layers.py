#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Holds the tree to its layers (docs/layout.md), from the built objects.

    scripts/check/layers.py OBJDIR LAYER=SEEN... [--max-lines N]

The compiler already refuses an include of a header above a layer (each
folder is compiled with only the include directories it may see); this
checks what it cannot:
  - each lib/ object calls only into its own layer and the layers it sees
    (the LAYER=SEEN arguments, from the Makefile's SEES_* table);
  - no circle among lib/ files, nor among cmd/ files (nm's undefined
    symbols resolved to the object that defines them);
  - no quoted include reaches out of its folder by a relative path;
  - no lib/ or cmd/ source file is longer than --max-lines.
Exit 1 with one line per breach.
"""
import glob
import os
import re
import subprocess
import sys


def symbols(objs):
    """name -> defining object; object -> set of undefined names."""
    defs, undef = {}, {}
    for o in objs:
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        undef[o] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRC":
                defs[f[2]] = o
            elif len(f) == 2 and f[0] == "U":
                undef[o].add(f[1])
    return defs, undef


def edges(objs):
    defs, undef = symbols(objs)
    g = {o: {} for o in objs}
    for o, names in undef.items():
        for n in names:
            t = defs.get(n)
            if t and t != o:
                g[o].setdefault(t, n)
    return g


def cycles(g):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in g:
        if v not in index:
            visit(v)
    return out


def layer_of(obj, objdir):
    rel = os.path.relpath(obj, os.path.join(objdir, "lib"))
    return rel.split(os.sep)[0]


def short(obj, objdir):
    return os.path.relpath(obj, objdir)[:-2] + ".c"


def main(argv):
    max_lines = 800
    if "--max-lines" in argv:
        i = argv.index("--max-lines")
        max_lines = int(argv[i + 1])
        del argv[i:i + 2]
    objdir, sees = argv[1], {}
    for a in argv[2:]:
        layer, _, seen = a.partition("=")
        sees[layer] = set(seen.split())
    bad = []

    lib = sorted(glob.glob(os.path.join(objdir, "lib", "**", "*.o"),
                       recursive=True))
    cmd = sorted(glob.glob(os.path.join(objdir, "cmd", "*.o")))
    if not lib or not cmd:
        sys.exit("check-layers: no objects under %s (build first)" % objdir)
    g = edges(lib)
    for o, targets in g.items():
        lo = layer_of(o, objdir)
        for t, sym in targets.items():
            lt = layer_of(t, objdir)
            if lt not in sees.get(lo, ()):
                bad.append("%s calls %s (%s): %s may not use %s" %
                           (short(o, objdir), sym, short(t, objdir), lo, lt))
    for group, graph in (("lib", g), ("cmd", edges(cmd))):
        for comp in cycles(graph):
            bad.append("%s: files call each other in a circle: %s" %
                       (group, " ".join(short(o, objdir) for o in comp)))

    srcs = sorted(glob.glob("lib/**/*.[ch]", recursive=True) +
                  glob.glob("cmd/*.[ch]"))
    for s in srcs:
        with open(s, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r'^#\s*include\s+"([^"]+)"', text, re.M):
            if "/" in m.group(1):
                bad.append("%s: #include \"%s\" reaches out of its folder"
                           % (s, m.group(1)))
        n = text.count("\n")
        if n > max_lines:
            bad.append("%s: %d lines (at most %d: split it along its seams)"
                       % (s, n, max_lines))
    for b in bad:
        print("check-layers: " + b)
    print("check-layers: %d lib objects, %d cmd objects, %d sources: %s" %
          (len(lib), len(cmd), len(srcs), "%d breaches" % len(bad)
           if bad else "layers kept, no circle"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""shapes-tree.py KIND DIR [ARGS]: write one of scripts/bench/shapes.sh's
generated trees into DIR (a mounted filesystem: the kernel writes it).

Deterministic: every name, size and byte comes from random.Random(SEED)
(Mersenne Twister, stable across Python 3.9+ for getrandbits/randbytes).
  deep DIR CHAINS SEED   CHAINS chains of 200..800 nested directories
                         (d/d/d..., by dir_fd: no path grows past
                         PATH_MAX), a small file every 10 levels
  htree DIR N SEED       one directory of N empty files with names of
                         8..60 bytes (the kernel indexes it: htree)
  many DIR N SEED        N files of 0..3 KiB in N/1000 directories of
                         1,000, under 100 top directories
  blob FILE MIB SEED     one file of MIB MiB of random bytes
  big FILE MIB SEED      FILE of MIB MiB plus, when MIB is 0, a sparse
                         file with 1 MiB written at 4 GiB + 64 MiB (a
                         4 KiB-block indirect map's triple-indirect part)
Prints what it wrote: "files N dirs N bytes N".
"""
import os
import random
import sys

POOL_SEED = 24


def pool():
    """1 MiB of fixed bytes: files' contents are slices of it."""
    return random.Random(POOL_SEED).randbytes(1 << 20)


def write_at(dfd, name, data):
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=dfd)
    try:
        if data:
            os.write(fd, data)
    finally:
        os.close(fd)


def deep(top, chains, seed):
    r, p = random.Random(seed), pool()
    nf = nd = nb = 0
    for c in range(chains):
        depth = 200 + r.randrange(601)
        name = "c%03d" % c
        os.mkdir(os.path.join(top, name))
        fd = os.open(os.path.join(top, name), os.O_RDONLY | os.O_DIRECTORY)
        nd += 1
        for lvl in range(depth):
            if lvl % 10 == 0:
                n = r.randrange(4096)
                o = r.randrange(len(p) - n)
                write_at(fd, "f%d" % lvl, p[o:o + n])
                nf, nb = nf + 1, nb + n
            os.mkdir("d", dir_fd=fd)
            nfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd, nd = nfd, nd + 1
        os.close(fd)
    return nf, nd, nb


def htree(top, n, seed):
    r = random.Random(seed)
    d = os.path.join(top, "htree")
    os.mkdir(d)
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    alpha = "abcdefghijklmnopqrstuvwxyz0123456789_-"
    for i in range(n):
        ln = 8 + r.randrange(53)
        stem = "".join(r.choice(alpha) for _ in range(ln - 7))
        write_at(fd, "%s%07d" % (stem, i), b"")
    os.close(fd)
    return n, 1, 0


def many(top, n, seed):
    r, p = random.Random(seed), pool()
    nb = nd = 0
    per = 1000
    for i in range(0, n, per):
        k = i // per
        if k % 100 == 0 or k < 100:
            t = os.path.join(top, "t%02d" % (k % 100))
            if not os.path.isdir(t):
                os.mkdir(t)
                nd += 1
        d = os.path.join(top, "t%02d" % (k % 100), "d%05d" % k)
        os.mkdir(d)
        nd += 1
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        for j in range(i, min(n, i + per)):
            sz = 0 if r.randrange(20) == 0 else 1 + r.randrange(3072)
            o = r.randrange(len(p) - sz)
            write_at(fd, "f%07d" % j, p[o:o + sz])
            nb += sz
        os.close(fd)
    return n, nd, nb


def blob(path, mib, seed):
    r = random.Random(seed)
    with open(path, "xb") as f:
        for _ in range(mib):
            f.write(r.randbytes(1 << 20))
    return 1, 0, mib << 20


def big(path, mib, seed):
    if mib:
        return blob(path, mib, seed)
    r = random.Random(seed)
    with open(path, "xb") as f:
        f.seek((4 << 30) + (64 << 20))
        f.write(r.randbytes(1 << 20))
    return 1, 0, 1 << 20


def main():
    kind, where, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    fn = {"deep": deep, "htree": htree, "many": many, "blob": blob, "big": big}[kind]
    nf, nd, nb = fn(where, n, seed)
    print("files %d dirs %d bytes %d" % (nf, nd, nb))


if __name__ == "__main__":
    main()

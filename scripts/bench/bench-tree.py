#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench-tree.py DIR NFILES SEED [DIV]: write the file tree that scripts/bench.sh
turns into an image with mke2fs -d.

Deterministic: every choice comes from a Park-Miller generator (16807,
2^31-1) seeded with SEED, so the tree (names, sizes, bytes) is the same
on every machine and every Python 3.  NFILES regular files in:
  src/pNNN/mNN/     a source-like tree: dirs of 1..250 files
  wide/wNN/         plain directories of 1,000..8,000 names (6 per 200,000)
                    (mke2fs -d does not index them: linear directories)
  deep/cNNN/...     chains of 16..48 nested directories, files at each level
plus symlinks (short ones in the inode, long ones in a block) and hard
links.  Sizes: 3% empty, 47% 1 B..4 KiB, 35% 4..16 KiB, 12% 16..64 KiB,
2.95% 64..256 KiB, 0.05% 1..4 MiB, each divided by DIV (1); non-zero
bytes (mke2fs -d turns zero blocks into holes).  Prints "files dirs symlinks hardlinks bytes".
"""
import os
import sys

NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-."


class Rnd:
    """Park-Miller minimal standard generator: exact, tiny, stable."""

    def __init__(self, seed):
        self.x = seed % 2147483647 or 1

    def __call__(self, m):
        self.x = self.x * 16807 % 2147483647
        return self.x % m


def size_of(r):
    c = r(10000)
    if c < 300:
        return 0
    if c < 5000:
        return 1 + r(4096)
    if c < 8500:
        return 4096 + r(12288)
    if c < 9700:
        return 16384 + r(49152)
    if c < 9995:
        return 65536 + r(196608)
    return (1 << 20) + r(3 << 20)


def name_of(r, i):
    """A unique name (its index in base 36 ends it) of 1..~70 bytes."""
    n = r(100)
    ln = r(8) if n < 60 else 8 + r(24) if n < 95 else 32 + r(32)
    stem = "".join(NAME_CHARS[r(len(NAME_CHARS))] for _ in range(ln))
    return "%s%s" % (stem.lstrip("."), base36(i))


def base36(i):
    s = ""
    while True:
        s = "0123456789abcdefghijklmnopqrstuvwxyz"[i % 36] + s
        i //= 36
        if not i:
            return s


class Tree:
    def __init__(self, top, seed, div):
        self.top = top
        self.div = div
        self.r = Rnd(seed)
        self.files = self.dirs = self.links = self.hard = self.bytes = 0
        self.some = []          # a few file paths, targets for links

    def mkdir(self, rel):
        os.makedirs(os.path.join(self.top, rel), exist_ok=True)
        self.dirs += 1

    def file(self, rel):
        size = size_of(self.r) // self.div
        fd = os.open(os.path.join(self.top, rel), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fill = bytes([0x41 + self.files % 58])
        left = size
        while left:
            n = min(left, 1 << 20)
            os.write(fd, fill * n)
            left -= n
        os.close(fd)
        self.files += 1
        self.bytes += size
        if self.r(1000) < 5:
            self.some.append(rel)
        self.extras(rel)

    def extras(self, rel):
        """1% of files get a symlink beside them, 0.5% a hard link."""
        c = self.r(1000)
        d, base = os.path.split(rel)
        if c < 10:
            tgt = base if c < 7 else ("../" * rel.count("/")) + rel + "/" * (60 + c)
            dst = os.path.join(self.top, d, "ln-" + base)
            if not os.path.lexists(dst):
                os.symlink(tgt, dst)
                self.links += 1
        elif c < 15 and self.some:
            src = self.some[self.r(len(self.some))]
            dst = os.path.join(d, "hl-%d-%s" % (self.hard, base))
            if not os.path.exists(os.path.join(self.top, dst)):
                os.link(os.path.join(self.top, src), os.path.join(self.top, dst))
                self.hard += 1


def build(top, nfiles, seed, div):
    t = Tree(top, seed, div)
    r = t.r
    # wide: 12% of the files in plain directories of 1,000..8,000 names,
    # six per 200,000 files (not bigger ones: mke2fs -d scans a linear
    # directory for every name it adds)
    wide = [1000, 2000, 3000, 5000, 5000, 8000]
    for k in range(max(1, nfiles // 200000)):
        for w, n in enumerate(wide):
            d = "wide/w%02d" % (k * len(wide) + w)
            t.mkdir(d)
            for i in range(n):
                t.file("%s/%s" % (d, name_of(r, i)))
    # deep: about 3% in chains of nested directories
    c = 0
    while t.files < nfiles * 15 // 100:
        depth = 16 + r(33)
        path = "deep/c%03d" % c
        for lv in range(depth):
            path += "/%s" % name_of(r, lv)[-24:]
            t.mkdir(path)
            for k in range(1 + r(3)):
                # "+" is in no generated name: no clash with the next level
                t.file("%s/f+%d" % (path, k))
        c += 1
    # src: the rest, in directories of 1..250 files, 40 per parent
    d = 0
    while t.files < nfiles:
        dirp = "src/p%03d/%s" % (d // 40, name_of(r, d))
        t.mkdir(dirp)
        n = 1 + r(250)
        for i in range(min(n, nfiles - t.files)):
            t.file("%s/%s" % (dirp, name_of(r, i)))
        d += 1
    return t


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: bench-tree.py DIR NFILES SEED [DIV]")
    top, nfiles, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    div = int(sys.argv[4]) if len(sys.argv) == 5 else 1
    os.makedirs(top, exist_ok=True)
    os.umask(0o022)
    t = build(top, nfiles, seed, div)
    print(t.files, t.dirs, t.links, t.hard, t.bytes)


if __name__ == "__main__":
    main()

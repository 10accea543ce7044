#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hold `e2map blockmap` to the kernel's FIEMAP of every file on a mount.

    owner-check.py MNT BLOCKMAP.csv BLOCKSIZE

For each regular file and directory under MNT (a fresh read-only mount of
the image the CSV was made from), the physical blocks FS_IOC_FIEMAP maps
(inline data left out) must be exactly the blocks the block map gives that
inode as data, unwritten or directory.  Prints one line per difference
and a count; exits 1 on any.
"""
import fcntl
import os
import stat
import struct
import sys

FS_IOC_FIEMAP = 0xC020660B
EXTENT_LAST, EXTENT_INLINE = 0x1, 0x200
BATCH = 256


def fiemap_blocks(path, bs):
    blocks, start = set(), 0
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        while True:
            buf = bytearray(struct.pack("=QQIIII", start, (1 << 64) - 1 - start,
                                        0, 0, BATCH, 0) + bytes(56 * BATCH))
            fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
            n = struct.unpack_from("=I", buf, 20)[0]
            if n == 0:
                return blocks
            for i in range(n):
                lo, ph, ln = struct.unpack_from("=QQQ", buf, 32 + 56 * i)
                fl = struct.unpack_from("=I", buf, 32 + 56 * i + 40)[0]
                if not fl & EXTENT_INLINE:
                    blocks.update(range(ph // bs, (ph + ln + bs - 1) // bs))
                start = lo + ln
                if fl & EXTENT_LAST:
                    return blocks
    finally:
        os.close(fd)


def main():
    mnt, csv, bs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    owned = {}
    with open(csv) as f:
        for line in f:
            col = line.strip().split(",")
            if col[0].isdigit() and col[3] in ("data", "unwritten",
                                               "directory"):
                owned.setdefault(int(col[4]), set()).update(
                    range(int(col[0]), int(col[1]) + 1))
    bad = files = 0
    for root, dirs, names in os.walk(mnt):
        for name in [root] + [os.path.join(root, n) for n in names]:
            st = os.lstat(name)
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                continue
            if name != root and stat.S_ISDIR(st.st_mode):
                continue    # listed as its own root
            got = owned.get(st.st_ino, set())
            want = fiemap_blocks(name, bs)
            files += 1
            if got != want:
                bad += 1
                print("%s (inode %d): blockmap %d blocks, FIEMAP %d; only "
                      "in blockmap %s, only in FIEMAP %s" %
                      (name, st.st_ino, len(got), len(want),
                       sorted(got - want)[:5], sorted(want - got)[:5]))
    print("owner-check: %d files, %d differ" % (files, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Does a whole-file read change what SEEK_DATA/SEEK_HOLE and FIEMAP answer
on the same descriptor?  For each PATH of IMG, on a fresh `mount -o
loop,ro[,noload]` each time: the whole seek walk and the FIEMAP listing
(batches of 32, as xfs_io asks) on a cold descriptor, then the same after
reading the file to its end (read(2) of 128 KiB, as cat) on one
descriptor; prints each path's verdict and the first difference.

usage: read-cache-effect.py IMG MNT PATH...   (root: loop mounts)
"""
import fcntl, os, struct, subprocess, sys

FS_IOC_FIEMAP = 0xC020660B
BATCH = 32


def mount(img, mnt):
    for opts in ("loop,ro,noload", "loop,ro"):
        if subprocess.run(["mount", "-o", opts, img, mnt],
                          stderr=subprocess.DEVNULL).returncode == 0:
            return
    sys.exit("cannot mount " + img)


def seek_walk(fd, size):
    out, pos, whence = [], 0, os.SEEK_HOLE
    while pos < size:
        try:
            pos2 = os.lseek(fd, pos, whence)
        except OSError as e:
            out.append(("ERR", pos, e.errno))
            break
        out.append(("HOLE" if whence == os.SEEK_HOLE else "DATA", pos, pos2))
        if pos2 <= pos and whence == os.SEEK_DATA:
            break
        pos = pos2
        whence = os.SEEK_DATA if whence == os.SEEK_HOLE else os.SEEK_HOLE
    return out


def fiemap(fd):
    out, start = [], 0
    while True:
        buf = bytearray(struct.pack("QQIIII", start, 2**64 - 1 - start, 0, 0,
                                    BATCH, 0) + b"\0" * 56 * BATCH)
        try:
            fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
        except OSError as e:
            return out + [("ERR", e.errno)]
        n = struct.unpack_from("I", buf, 20)[0]
        for i in range(n):
            lo, ph, ln, _, _, fl = struct.unpack_from("QQQQQI", buf, 32 + 56 * i)
            out.append((lo, ph, ln, fl))
        if n == 0 or out[-1][3] & 1:
            return out
        start = out[-1][0] + out[-1][2]


def answers(img, mnt, path, read_first):
    mount(img, mnt)
    try:
        fd = os.open(mnt + path, os.O_RDONLY)
        if read_first:
            while os.read(fd, 131072):
                pass
        size = os.fstat(fd).st_size
        r = (seek_walk(fd, size), fiemap(fd))
        os.close(fd)
        return r
    finally:
        subprocess.run(["umount", mnt], check=True)


def main():
    img, mnt = sys.argv[1:3]
    for path in sys.argv[3:]:
        cold = answers(img, mnt, path, False)
        warm = answers(img, mnt, path, True)
        for what, a, b in (("seek", cold[0], warm[0]),
                           ("fiemap", cold[1], warm[1])):
            if a == b:
                print("%s %s: same (%d answers)" % (path, what, len(a)))
                continue
            i = next(i for i in range(min(len(a), len(b)) + 1)
                     if i >= len(a) or i >= len(b) or a[i] != b[i])
            print("%s %s: DIFFERS at answer %d of %d/%d: cold %s, after "
                  "read %s" % (path, what, i, len(a), len(b),
                               a[i] if i < len(a) else None,
                               b[i] if i < len(b) else None))


main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write what the kernel shows of every name under a mounted image, for
scripts/record-scan.sh: lstat(2) of each name (walked as find walks,
never following symlinks), statx's birth time from stat(1) (%W, %w),
readlink(2) of each symlink, and, for each regular file and directory,
FS_IOC_FIEMAP twice on one descriptor: the first (cold, the first call
after the mount) gives the bytes, the second, in count-only mode, what a
warm FIEMAP returns once the first has cached everything.

lstat comes from os.lstat rather than find -printf: find 4.9 prints a
time before 1970 as "-1.-000000010" (and %B@ without statx as -1), which
loses the nanoseconds; the syscall is the same.

Output (text, one record a line, fields tab-separated; a path is the
image path with bytes outside 0x21-0x7e and the backslash as \\xHH):
  P  INO PATH                      a name of INO
  I  INO MODE NLINK UID GID SIZE BLOCKS RDEV ATIME MTIME CTIME BTIME
                                   lstat; times SEC.NSEC, BTIME "-" unknown
  L  INO TARGET                    readlink (escaped as paths)
  M  INO WRITTEN UNWRITTEN HOLES PAST_EOF MAPPED COLD WARM
                                   bytes; MAPPED = all extents' bytes;
                                   COLD/WARM = extent counts
  X  ERRNO PATH                    lstat failed
  D  ERRNO PATH                    getdents failed (after the names given)
  E  INO ERRNO                     open or FIEMAP failed
"""
import array
import errno
import fcntl
import os
import stat
import struct
import subprocess
import sys

FS_IOC_FIEMAP = 0xC020660B
FIEMAP_FLAG_SYNC = 0x1
FIEMAP_EXTENT_LAST = 0x1
FIEMAP_EXTENT_UNWRITTEN = 0x800
BATCH = 292
HDR = struct.Struct("=QQIIII")          # start, length, flags, mapped, count, pad
EXT = struct.Struct("=QQQQQIIII")       # logical, physical, length, 2 pad, flags, 3 pad


def esc(b):
    return "".join(chr(c) if 0x21 <= c <= 0x7E and c != 0x5C else "\\x%02x" % c
                   for c in b)


def fiemap(fd, start, count):
    buf = bytearray(HDR.size + EXT.size * count)
    HDR.pack_into(buf, 0, start, (1 << 64) - 1 - start, FIEMAP_FLAG_SYNC, 0,
                  count, 0)
    fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
    mapped = HDR.unpack_from(buf, 0)[3]
    return mapped, [EXT.unpack_from(buf, HDR.size + i * EXT.size)
                    for i in range(min(mapped, count))]


def extents(fd):
    """The whole listing, in filefrag's batches, resuming after each."""
    out, start = [], 0
    while True:
        _, batch = fiemap(fd, start, BATCH)
        out += batch
        if not batch or batch[-1][5] & FIEMAP_EXTENT_LAST:
            return out
        start = batch[-1][0] + batch[-1][2]


def bytes_of(exts, size, bs):
    eof = (size + bs - 1) // bs * bs
    written = unwritten = past = mapped = 0
    for logical, _, length, _, _, flags, _, _, _ in exts:
        end = logical + length
        mapped += length
        below = min(end, size) - logical if logical < size else 0
        if flags & FIEMAP_EXTENT_UNWRITTEN:
            unwritten += below
        else:
            written += below
        if end > eof:
            past += end - max(logical, eof)
    return written, unwritten, size - min(size, written + unwritten), past, mapped


def tsp(ns):
    return "%d.%09d" % (ns // 10**9, ns % 10**9)


def births(mnt, paths):
    """INO -> "SEC.NSEC" or "-", from stat(1) on the mount, in batches."""
    out = {}
    for i in range(0, len(paths), 500):
        args = [os.path.join(os.fsencode(mnt), p) for p in paths[i:i + 500]]
        r = subprocess.run([b"stat", b"--printf=%i\\t%W\\t%w\\n", b"--"] +
                           args, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL,
                           env=dict(os.environ, TZ="UTC", LC_ALL="C"))
        for line in r.stdout.decode("ascii", "replace").splitlines():
            ino, sec, human = line.split("\t")
            if human == "-":
                out[int(ino)] = "-"
            else:
                frac = human.split(" ")[1].split(".")[1]
                out[int(ino)] = "%s.%s" % (sec, frac)
    return out


def listing(path, rel, out):
    """The names getdents gives, up to an error (find lists those too;
    os.listdir would drop them all); the error is a D line."""
    names = []
    try:
        with os.scandir(path) as it:
            for e in it:
                names.append(e.name)
    except OSError as e:
        out.write("D\t%d\t%s\n" % (e.errno, esc(rel)))
    return names


def walk(mnt, out):
    """(path, lstat or errno) per name, find's order: a name, then below."""
    root = os.fsencode(mnt)
    todo = [b"/"]
    while todo:
        rel = todo.pop()
        full = root + (rel if rel != b"/" else b"")
        try:
            st = os.lstat(full or b"/")
        except OSError as e:
            yield rel, e.errno
            continue
        yield rel, st
        if not stat.S_ISDIR(st.st_mode):
            continue
        for n in sorted(listing(full, rel, out), reverse=True):
            todo.append((rel if rel != b"/" else b"") + b"/" + n)


def record(mnt, out):
    bs = os.statvfs(mnt).f_bsize
    seen = {}
    paths = []
    for rel, st in walk(mnt, out):
        if isinstance(st, int):
            out.write("X\t%d\t%s\n" % (st, esc(rel)))
            continue
        out.write("P\t%d\t%s\n" % (st.st_ino, esc(rel)))
        if st.st_ino not in seen:
            seen[st.st_ino] = (rel, st)
            paths.append(rel.lstrip(b"/") or b".")
    born = births(mnt, paths)
    for ino in sorted(seen):
        rel, st = seen[ino]
        out.write("I\t%d\t%o\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n" % (
            ino, st.st_mode, st.st_nlink, st.st_uid, st.st_gid, st.st_size,
            st.st_blocks, st.st_rdev, tsp(st.st_atime_ns),
            tsp(st.st_mtime_ns), tsp(st.st_ctime_ns), born.get(ino, "-")))
        full = os.fsencode(mnt) + rel
        if stat.S_ISLNK(st.st_mode):
            try:
                out.write("L\t%d\t%s\n" % (ino, esc(os.readlink(full))))
            except OSError as e:
                out.write("E\t%d\t%d\n" % (ino, e.errno))
        if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
            map_one(full, ino, st.st_size, bs, out)


def map_one(full, ino, size, bs, out):
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        out.write("E\t%d\t%d\n" % (ino, e.errno))
        return
    try:
        cold = extents(fd)
        warm, _ = fiemap(fd, 0, 0)
        w, u, h, p, m = bytes_of(cold, size, bs)
        out.write("M\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n" % (
            ino, w, u, h, p, m, len(cold), warm))
    except OSError as e:
        out.write("E\t%d\t%d\n" % (ino, e.errno))
    finally:
        os.close(fd)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: scan-kernel.py MNTDIR")
    sys.stdout.write("# scan-format: 1\n")
    record(sys.argv[1], sys.stdout)

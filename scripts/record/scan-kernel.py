#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write what the kernel shows of every name under a mounted image, for
scripts/record/scan.sh: lstat(2) of each name (walked as find walks,
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
  C  INO                           an encrypted directory (no-key names)
  E  INO ERRNO                     open or FIEMAP failed
  B  INO EXTENTS                   extents on disk as debugfs lists them
                                   (with IMAGE): leaf entries of an extent
                                   tree, runs of contiguous blocks of a
                                   block map, 1 for inline data

With IMAGE, debugfs (e2fsprogs, not the kernel: no syscall shows the
on-disk extents) reads the same image, read-only, for the B lines.
"""
import array
import errno
import fcntl
import os
import re
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
    kinds = {}
    sizes = {}
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
            map_one(full, ino, st.st_size, bs, out, kinds)
            sizes[ino] = st.st_size
    return kinds, sizes


FS_IOC_GETFLAGS = 0x80086601
EXTENTS_FL = 0x80000
INLINE_DATA_FL = 0x10000000
ENCRYPT_FL = 0x800


def inode_flags(fd):
    buf = bytearray(8)
    fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf)
    return struct.unpack_from("=I", buf)[0]


def map_one(full, ino, size, bs, out, kinds):
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        out.write("E\t%d\t%d\n" % (ino, e.errno))
        return
    try:
        flags = inode_flags(fd)
        kinds[ino] = ("inline" if flags & INLINE_DATA_FL else
                      "extents" if flags & EXTENTS_FL else "blocks")
        if flags & ENCRYPT_FL and stat.S_ISDIR(os.fstat(fd).st_mode):
            out.write("C\t%d\n" % ino)
        cold = extents(fd)
        warm, _ = fiemap(fd, 0, 0)
        w, u, h, p, m = bytes_of(cold, size, bs)
        out.write("M\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n" % (
            ino, w, u, h, p, m, len(cold), warm))
    except OSError as e:
        out.write("E\t%d\t%d\n" % (ino, e.errno))
    finally:
        os.close(fd)


LEAF = re.compile(r"^\s*\d+/\s*\d+\s+\d+/\s*\d+\s")
RANGE = re.compile(r"\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?")


def block_runs(text):
    """Runs of a block map from debugfs stat's BLOCKS: the data ranges,
    joined where they go on logically and physically ((IND) and the like
    are not data)."""
    runs, nxt = 0, None
    for m in RANGE.finditer(text.split("BLOCKS:", 1)[-1]):
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        plo = int(m.group(3))
        if nxt != (lo, plo):
            runs += 1
        nxt = (hi + 1, plo + hi - lo + 1)
    return runs


def disk_extents(image, kinds, sizes, out):
    todo = sorted(i for i, k in kinds.items() if k != "inline")
    cmds = "".join("%s <%d>\n" % ("dump_extents -l" if kinds[i] == "extents"
                                   else "stat", i) for i in todo)
    # -c: bitmaps are not read, so a damaged one does not stop it.
    r = subprocess.run(["debugfs", "-c", "-f", "-", image], input=cmds.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    parts = r.stdout.decode("latin-1").split("debugfs: ")[1:]
    for ino, text in zip(todo, parts):
        if "Filesystem not open" in text:
            continue
        n = (sum(1 for line in text.splitlines() if LEAF.match(line))
             if kinds[ino] == "extents" else block_runs(text))
        out.write("B\t%d\t%d\n" % (ino, n))
    # Inline data is one extent when there is any (FIEMAP's DATA_INLINE).
    for ino in sorted(i for i, k in kinds.items() if k == "inline"):
        out.write("B\t%d\t%d\n" % (ino, 1 if sizes[ino] else 0))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: scan-kernel.py MNTDIR [IMAGE]")
    sys.stdout.write("# scan-format: 1\n")
    kinds = record(sys.argv[1], sys.stdout)
    if len(sys.argv) == 3:
        disk_extents(sys.argv[2], *kinds, sys.stdout)

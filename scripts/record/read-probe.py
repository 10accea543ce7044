#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""read(2) every path of a mounted image, for scripts/record/read.sh.

usage: read-probe.py IMG MNT MOUNTOPTS SIZES FRESH < paths (NUL-separated)

Each path is opened as open(2) opens it with the mount as the root
(openat2 RESOLVE_IN_ROOT: an absolute symlink resolves inside the image),
O_RDONLY | O_NONBLOCK (a FIFO opens without a writer and reads as empty),
then read(2) in calls of SIZE bytes until it returns 0 or fails.  For each
SIZE in SIZES (comma-separated) the image is mounted afresh, and, when
FRESH is 1, afresh for every path too, so that no read sees another's
page cache.  A file is read up to MAXREAD bytes (64 MiB) from its start; a larger one
(a sparse file ending at s_maxbytes) is then read on from its last MiB.
Writes NUL-terminated records to stdout:
  "e2map-read 2 SIZES MAXREAD"        once, first
  "/PATH"                             then, per path,
  "open ERRNO"                        open(2) failed, or per SIZE one or two
  "run SIZE START BYTES ERRNO SHA256" read(2) from START (lseek SEEK_SET on
      the same descriptor): the bytes read before the end or the failure,
      the errno of the failing read (0: none, the end of the file was
      reached; CUT: MAXREAD bytes were read) and the sha256 of those bytes
"""
import ctypes, errno, hashlib, os, struct, subprocess, sys

libc = ctypes.CDLL(None, use_errno=True)
SYS_openat2 = 437                       # x86-64
RESOLVE_IN_ROOT = 0x10


def openat2(rootfd, path, flags):
    how = struct.pack("QQQ", flags, 0, RESOLVE_IN_ROOT)
    fd = libc.syscall(SYS_openat2, rootfd, path, how, len(how))
    if fd < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return fd


class Mount:
    def __init__(self, img, mnt, opts):
        self.img, self.mnt, self.opts, self.root = img, mnt, opts, None

    def fresh(self):
        self.close()
        subprocess.run(["mount", "-o", self.opts, self.img, self.mnt],
                       check=True)
        self.root = os.open(self.mnt, os.O_RDONLY | os.O_DIRECTORY)

    def close(self):
        if self.root is not None:
            os.close(self.root)
            self.root = None
            subprocess.run(["umount", self.mnt], check=True)


MAXREAD = 64 << 20
TAIL = 1 << 20


def read_all(fd, size, limit):
    h, n = hashlib.sha256(), 0
    while True:
        if limit is not None and n >= limit:
            return n, "CUT", h.hexdigest()
        try:
            b = os.read(fd, size if limit is None else min(size, limit - n))
        except OSError as e:
            return n, errno.errorcode[e.errno], h.hexdigest()
        if not b:
            return n, "0", h.hexdigest()
        h.update(b)
        n += len(b)


def probe(m, path, size):
    """('open', ERRNO) or a list of runs (SIZE, START, BYTES, ERRNO, SHA)."""
    try:
        fd = openat2(m.root, path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        return ("open", errno.errorcode[e.errno])
    try:
        runs = [(size, 0) + read_all(fd, size, MAXREAD)]
        if runs[0][3] == "CUT":
            end = os.fstat(fd).st_size
            start = max(MAXREAD, (end - TAIL) & ~4095)
            os.lseek(fd, start, os.SEEK_SET)
            runs.append((size, start) + read_all(fd, size, None))
        return runs
    finally:
        os.close(fd)


def main():
    img, mnt, opts, sizes, fresh = sys.argv[1:6]
    sizes = [int(s) for s in sizes.split(",")]
    paths = [p for p in sys.stdin.buffer.read().split(b"\0") if p]
    m = Mount(img, mnt, opts)
    res = {p: [] for p in paths}
    try:
        for size in sizes:
            m.fresh()
            for p in paths:
                if fresh == "1":
                    m.fresh()
                res[p].append(probe(m, p, size))
    finally:
        m.close()
    out = sys.stdout.buffer
    out.write(("e2map-read 2 %s %d" % (",".join(map(str, sizes)), MAXREAD))
              .encode() + b"\0")
    for p in paths:
        out.write(p + b"\0")
        if res[p][0][0] == "open":
            out.write(b"open " + res[p][0][1].encode() + b"\0")
            continue
        for r in res[p]:
            if r[0] == "open":      # opened on one mount, not on the next
                r = [(0, 0, 0, r[1], "-")]
            for run in r:
                out.write(("run " + " ".join(map(str, run))).encode() + b"\0")


main()

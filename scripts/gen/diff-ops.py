#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Two images of one filesystem and what changed between them (issue 23):
operations on the kernel's read-write mounts, and their ground truth
(mkdiff.sh, record/diff.sh, bench/diff.sh).

    diff-ops.py build MNT --bs N          image A's tree
    diff-ops.py change MNT OUT.jsonl --bs N [--bulk --fraction F]
                                          B (a copy of A) changed, recorded
    diff-ops.py finish IMG OUT.jsonl NAME (unmounted: the pair line; gzip)
    diff-ops.py verify MNT_A MNT_B CHANGES.gz
                                          ro mounts: the record is whole
    diff-ops.py cmp MNT_A MNT_B BS        differing bytes of files in both
    diff-ops.py cross CHANGES.gz RSYNC.gz CMP.gz
                                          the recordings explained by the record

change writes OUT.jsonl in the schema of docs/diff.md: a line per change
(the ranges a data operation touched are its own arguments), "dir_entries"
for every directory whose entries the changes altered, and "unchanged" for
every other regular file and directory (by its path in B).  verify holds
the unchanged ones to A (stat with ctime and atime, bytes, xattrs, by inode)
and checks every inode of either side is accounted for.  Where fallocate or
punching is refused (ext3's block maps), that operation is left out.
Python 3 stdlib only; root.
"""
import argparse
import ctypes
import errno
import gzip
import importlib.util
import json
import os
import random
import stat
import struct
import subprocess
import sys

_spec = importlib.util.spec_from_file_location(
    "past_ops", os.path.join(os.path.dirname(os.path.abspath(__file__)), "past-ops.py"))
past = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(past)
pattern = past.pattern


def piece(tag, off, n, bs, salt):
    """Bytes OFF..OFF+N of pattern(TAG, ..., SALT), without the ones before
    (appends to files of gigabytes)."""
    k0 = off // bs
    return pattern(tag, off + n - k0 * bs, bs, salt + " from %d" % k0)[off - k0 * bs:]

KEEP_SIZE, PUNCH_HOLE = 1, 2
_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]


def fallocate(path, mode, off, length):
    """fallocate(2) on PATH; False where the filesystem refuses the mode."""
    fd = os.open(path, os.O_WRONLY)
    try:
        if _libc.fallocate(fd, mode, off, length) == 0:
            return True
        e = ctypes.get_errno()
        if e == errno.EOPNOTSUPP:
            return False
        raise OSError(e, os.strerror(e), path)
    finally:
        os.close(fd)


def acl_xattr(entries):
    """system.posix_acl_access's value: version 2, (tag, perm, id) sorted."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i)
                                           for t, p, i in sorted(entries))


NOID = 0xFFFFFFFF
ACL_A = acl_xattr([(0x01, 6, NOID), (0x02, 4, 1001), (0x04, 4, NOID),
                   (0x10, 4, NOID), (0x20, 0, NOID)])
ACL_B = acl_xattr([(0x01, 6, NOID), (0x02, 6, 1002), (0x02, 4, 1003),
                   (0x04, 0, NOID), (0x10, 6, NOID), (0x20, 0, NOID)])


class Tree:
    def __init__(self, mnt, bs):
        self.mnt, self.bs = mnt, bs
        self.mt = 0

    def p(self, rel):
        return os.path.join(self.mnt, rel.lstrip("/"))

    def times(self, rel):
        """Fixed, distinct times (mke2fs's clock and after): a later touch
        or write shows."""
        self.mt += 1
        ns = (past.MTIME0 + self.mt) * 10**9 + self.mt * 1001
        os.utime(self.p(rel), ns=(ns, ns), follow_symlinks=False)

    def write(self, rel, size, mode=0o644, uid=0, gid=0, salt=""):
        fd = os.open(self.p(rel), os.O_CREAT | os.O_WRONLY | os.O_EXCL, mode)
        try:
            os.write(fd, pattern(rel, size, self.bs, salt))
            os.fchmod(fd, mode)
            os.fchown(fd, uid, gid)
        finally:
            os.close(fd)

    def pwrite(self, rel, data, off, flags=0):
        fd = os.open(self.p(rel), os.O_WRONLY | flags)
        try:
            os.pwrite(fd, data, off)
        finally:
            os.close(fd)


# -- A ----------------------------------------------------------------------
DIRS = ["/docs", "/docs/old", "/src", "/src/lib", "/src/inc", "/media", "/var",
        "/var/log", "/home", "/home/u1", "/home/u2", "/mv-me", "/mv-me/deep",
        "/to-empty", "/etc", "/special", "/tiny", "/tiny/a", "/tiny/b"]


def build(t):
    """About 230 files: every size class, holes, preallocation, links,
    symlinks, xattrs and ACLs; tiny files and directories (inline_data)."""
    bs, rng = t.bs, random.Random(23)
    sizes = [0, 1, 30, 59, 200, bs - 1, bs, bs + 1, 2 * bs + 100, 3 * bs,
             5 * bs + 17, 9 * bs, 12 * bs + 1]
    for d in DIRS:
        os.mkdir(t.p(d))
    n = 0
    for d in DIRS:
        if d.startswith("/tiny") or d == "/special":
            continue
        for i in range(14):
            size = sizes[(i + n) % len(sizes)] + (rng.randrange(bs // 2) if i % 4 == 3 else 0)
            t.write("%s/f%02d" % (d, i), size, mode=[0o644, 0o600, 0o755, 0o640][i % 4],
                    uid=[0, 1000, 1001][i % 3], gid=[0, 100][i % 2])
            n += 1
    for d in ["/tiny/a", "/tiny/b"]:
        for i in range(4):
            t.write("%s/t%d" % (d, i), 10 + 7 * i)
    special(t)
    for top, ds, fs in os.walk(t.mnt):
        for name in sorted(fs) + sorted(ds):
            rel = "/" + os.path.relpath(os.path.join(top, name), t.mnt)
            if not rel.startswith("/lost+found"):
                t.times(rel)
    for d in sorted(DIRS, key=lambda d: -d.count("/")) + ["/"]:
        t.times(d)


def special(t):
    bs, s = t.bs, "/special"
    # Holes: blocks 0, 4 and 9 written, 12 blocks and 100 bytes long.
    t.write(s + "/sparse", 0)
    for k in (0, 4, 9):
        t.pwrite(s + "/sparse", pattern("sparse%d" % k, bs, bs), k * bs)
    os.truncate(t.p(s + "/sparse"), 12 * bs + 100)
    t.write(s + "/sparse-tail", 0)
    t.pwrite(s + "/sparse-tail", pattern("sparse-tail", bs, bs), 2 * bs)
    os.truncate(t.p(s + "/sparse-tail"), 20 * bs)
    # Several extents without holes: two files grown in turn, synced.
    for name in ["/frag-a", "/frag-b"]:
        t.write(s + name, 0)
    for k in range(6):
        for name in ["/frag-a", "/frag-b"]:
            fd = os.open(t.p(s + name), os.O_WRONLY | os.O_APPEND)
            os.write(fd, pattern(name + str(k), bs, bs))
            os.fsync(fd)
            os.close(fd)
    # Preallocated: 8 blocks unwritten but the first; 2 written and 6
    # unwritten past the end (KEEP_SIZE).
    t.write(s + "/prealloc", 0)
    if fallocate(t.p(s + "/prealloc"), 0, 0, 8 * bs):
        t.pwrite(s + "/prealloc", pattern("prealloc", bs, bs), 0)
    t.write(s + "/prealloc-keep", 2 * bs)
    fallocate(t.p(s + "/prealloc-keep"), KEEP_SIZE, 2 * bs, 6 * bs)
    # Hard links.
    t.write(s + "/hl", 3000)
    os.link(t.p(s + "/hl"), t.p("/docs/hl-b"))
    t.write(s + "/hl3", bs + 3)
    os.link(t.p(s + "/hl3"), t.p("/src/hl3-b"))
    os.link(t.p(s + "/hl3"), t.p("/var/hl3-c"))
    t.write(s + "/hl-keep", 700)
    os.link(t.p(s + "/hl-keep"), t.p("/home/hl-keep2"))
    # Symlinks: fast and in a block.
    os.symlink("hl", t.p(s + "/sym-short"))
    os.symlink("/" + "long-target/" * 10 + "end", t.p(s + "/sym-long"))
    os.symlink("../docs/f01", t.p(s + "/sym-keep"))
    # Extended attributes: in the inode, in a block, an ACL.
    for name in ["xa", "xa-big", "xa-keep", "acl", "acl-keep"]:
        t.write("%s/%s" % (s, name), 500)
    os.setxattr(t.p(s + "/xa"), "user.a", b"alpha")
    os.setxattr(t.p(s + "/xa"), "user.b", b"bravo")
    os.setxattr(t.p(s + "/xa-big"), "user.big", pattern("xa-big", 600, bs))
    os.setxattr(t.p(s + "/xa-keep"), "user.keep", b"kept")
    os.setxattr(t.p(s + "/xa-keep"), "user.keep-big", pattern("xa-keep", 700, bs))
    os.setxattr(t.p(s + "/acl"), "system.posix_acl_access", ACL_A)
    os.setxattr(t.p(s + "/acl-keep"), "system.posix_acl_access", ACL_A)
    os.setxattr(t.p("/home/u2"), "system.posix_acl_access", ACL_A)
    os.setxattr(t.p("/home/u2"), "user.dir", b"on a directory")


# -- B ----------------------------------------------------------------------
class Changes(Tree):
    def __init__(self, mnt, bs):
        super().__init__(mnt, bs)
        self.recs = []
        self.dirs = set()      # directories whose entries changed (paths now)

    def ino(self, rel):
        return os.lstat(self.p(rel)).st_ino

    def rec(self, op, rel, ino=None, path_a=None, **kw):
        r = {"kind": "change", "path": rel, "path_a": path_a,
             "ino": self.ino(rel) if ino is None else ino, "op": op}
        r.update(kw)
        self.recs.append(r)
        return r

    def entries(self, *rels):
        for rel in rels:
            self.dirs.add(os.path.dirname(rel) or "/")

    def size(self, rel):
        return os.lstat(self.p(rel)).st_size

    def pick(self, d, lo, hi=None):
        """The first file of D (build's fNN) with LO <= size <= HI that no
        pick took before: the changes follow build's size table."""
        self.taken = getattr(self, "taken", set())
        for i in range(14):
            rel = "%s/f%02d" % (d, i)
            if rel not in self.taken and os.path.isfile(self.p(rel)) and \
                    lo <= self.size(rel) <= (hi if hi is not None else 1 << 62):
                self.taken.add(rel)
                return rel
        raise SystemExit("diff-ops: no file in %s of %d..%s bytes" % (d, lo, hi))

    # Data.
    def append(self, rel, n):
        old = self.size(rel)
        fd = os.open(self.p(rel), os.O_WRONLY | os.O_APPEND)
        os.write(fd, piece(rel, old, n, self.bs, " appended"))
        os.close(fd)
        self.rec("append", rel, ranges=[[old, n]])

    def overwrite(self, rel, off, n):
        """Every byte of the range changes (its case bit flipped): the
        range is exactly what a byte compare finds."""
        assert off + n <= self.size(rel)
        with open(self.p(rel), "rb") as f:
            f.seek(off)
            old = f.read(n)
        self.pwrite(rel, bytes(b ^ 0x20 for b in old), off)
        self.rec("overwrite", rel, ranges=[[off, n]])

    def punch(self, rel, off, n):
        if fallocate(self.p(rel), PUNCH_HOLE | KEEP_SIZE, off, n):
            self.rec("punch", rel, ranges=[[off, n]])

    def falloc(self, rel, off, n, keep):
        if fallocate(self.p(rel), KEEP_SIZE if keep else 0, off, n):
            self.rec("fallocate", rel, ranges=[[off, n]], keep_size=keep)

    def write_unwritten(self, rel, off, n):
        self.pwrite(rel, piece(rel, off, n, self.bs, " filled"), off)
        self.rec("write_unwritten", rel, ranges=[[off, n]])

    def truncate(self, rel, size):
        old = self.size(rel)
        os.truncate(self.p(rel), size)
        self.rec("truncate", rel, ranges=[[min(old, size), abs(old - size)]],
                 size_a=old, size_b=size)

    # Metadata.
    def chmod(self, rel, mode):
        os.chmod(self.p(rel), mode)
        self.rec("chmod", rel, mode=mode)

    def chown(self, rel, uid, gid):
        os.lchown(self.p(rel), uid, gid)
        self.rec("chown", rel, uid=uid, gid=gid)

    def touch(self, rel, sec):
        os.utime(self.p(rel), ns=(sec * 10**9 + 7, sec * 10**9 + 11), follow_symlinks=False)
        self.rec("touch", rel)

    def xattr(self, rel, name, value):
        mode = os.lstat(self.p(rel)).st_mode
        if value is None:
            os.removexattr(self.p(rel), name)
        else:
            os.setxattr(self.p(rel), name, value)
        self.rec("xattr", rel, name=name, action="removed" if value is None else "set")
        if os.lstat(self.p(rel)).st_mode != mode:  # an ACL sets the mode too
            self.rec("chmod", rel, mode=stat.S_IMODE(os.lstat(self.p(rel)).st_mode))

    # Names.
    def delete(self, rel):
        ino, isdir = self.ino(rel), os.path.isdir(self.p(rel)) and not os.path.islink(self.p(rel))
        if isdir:
            for name in sorted(os.listdir(self.p(rel))):
                self.delete(rel + "/" + name)
            os.rmdir(self.p(rel))
        else:
            os.unlink(self.p(rel))
        self.entries(rel)
        return self.rec("delete", rel, ino=ino)

    def unlink_one(self, rel, other):
        ino = self.ino(rel)
        os.unlink(self.p(rel))
        self.entries(rel)
        self.rec("link_remove", rel, ino=ino, link=other)

    def link(self, old, new):
        os.link(self.p(old), self.p(new))
        self.entries(new)
        self.rec("link_add", new, link=old)

    def add(self, rel, size=None, target=None, isdir=False):
        if isdir:
            os.mkdir(self.p(rel))
        elif target is not None:
            os.symlink(target, self.p(rel))
        else:
            self.write(rel, size, salt=" new")
        self.entries(rel)
        return self.rec("add", rel)

    def retype(self, rel, how):
        """Delete a file, make a directory or symlink under its name: one
        "type" line if the kernel gave it the same inode, else two."""
        gone = self.delete(rel)
        new = self.add(rel, isdir=how == "dir", target="f00" if how == "symlink" else None)
        if new["ino"] == gone["ino"]:
            self.recs.remove(gone)
            new["op"] = "type"
            new["type_a"], new["type_b"] = "file", how

    def rename(self, old, new):
        """Moves happen last: every path recorded before is in A and in B
        but under OLD, which moves to NEW."""
        ino = self.ino(old)
        replaced = None
        if os.path.lexists(self.p(new)):
            replaced = self.ino(new)
        os.rename(self.p(old), self.p(new))
        for r in self.recs:
            if r["op"] not in ("delete", "link_remove"):
                r["path"] = moved(r["path"], old, new)
        self.dirs = {moved(d, old, new) for d in self.dirs}
        self.entries(old, new)
        if replaced is not None:
            self.rec("delete", new, ino=replaced, replaced_by=old)
        self.rec("rename", new, ino=ino, path_a=old)

    # The record.
    def finish(self, out, bulk):
        recs = self.recs
        for d in sorted(self.dirs):
            if os.path.isdir(self.p(d)):
                recs.append({"kind": "change", "path": d, "path_a": None,
                             "ino": self.ino(d), "op": "dir_entries"})
        touched = {r["ino"] for r in recs}
        gone = {r["ino"] for r in recs if r["op"] == "delete"}
        for r in recs:
            if r["op"] == "add" and r["ino"] in gone:
                r["ino_reused"] = True  # another generation of a deleted inode
        with open(out, "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
            if bulk:
                return
            for rel, st in walk(self.mnt):
                if (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)) and \
                        st.st_ino not in touched:
                    f.write(json.dumps({"kind": "unchanged", "path": rel, "ino": st.st_ino}) + "\n")


def moved(path, old, new):
    if path == old or path.startswith(old + "/"):
        return new + path[len(old):]
    return path


def walk(mnt):
    """(path, lstat) of everything under MNT, the root first, sorted."""
    yield "/", os.lstat(mnt)
    for top, ds, fs in os.walk(mnt):
        ds.sort()
        for name in sorted(ds + fs):
            full = os.path.join(top, name)
            yield "/" + os.path.relpath(full, mnt), os.lstat(full)


def small_set(c):
    """The committed pairs' changes (docs/diff.md lists them)."""
    bs, ext3, pk = c.bs, c.ext3, c.pick
    s = "/special"
    # Data.
    c.append(pk("/docs", 1, 59), 10)
    c.append(pk("/docs", bs, 3 * bs), bs)
    c.append(pk("/src", 2 * bs, 6 * bs), 3 * bs + 5)
    c.append("/tiny/a/t1", 20)
    c.append(s + "/frag-a", 2 * bs)
    c.append(pk("/var", 0, 0), 1)
    c.overwrite(pk("/docs", 3 * bs, 6 * bs), bs, bs)        # aligned, one block
    c.overwrite(pk("/src/lib", 2 * bs, 4 * bs), 1000, 100)  # inside a block
    c.overwrite(pk("/media", 9 * bs), 2 * bs, 3 * bs)        # several blocks
    c.overwrite(s + "/frag-b", 3 * bs - 10, 20)              # across two extents
    c.overwrite("/tiny/b/t2", 3, 5)                          # inline data
    c.overwrite(s + "/sparse", 4 * bs + 8, 16)               # in the middle extent
    c.punch(pk("/media", 5 * bs), bs, 2 * bs)
    c.punch(pk("/var/log", 5 * bs), bs // 2, 2 * bs)         # partial blocks zeroed
    c.punch(s + "/frag-a", 0, bs)
    if not ext3:
        c.falloc(pk("/etc", bs, 3 * bs), 4 * bs, 4 * bs, keep=True)  # past the end
        rel = pk("/etc", 2 * bs)
        c.falloc(rel, c.size(rel), 3 * bs, keep=False)
        c.falloc(s + "/sparse", bs, 2 * bs, keep=True)       # into a hole
        c.write_unwritten(s + "/prealloc", 3 * bs, bs)
        c.write_unwritten(s + "/prealloc", 5 * bs + 100, 200)
        c.write_unwritten(s + "/prealloc-keep", 2 * bs, bs)  # past the size
    c.truncate(pk("/src/inc", 3 * bs), bs + 10)
    c.truncate(pk("/home/u1", 1), 0)
    rel = pk("/home/u2", 1)
    c.truncate(rel, c.size(rel) + 3 * bs)
    c.truncate(s + "/sparse-tail", 30 * bs)
    # Metadata.
    c.chmod(pk("/docs", 0), 0o600)
    c.chmod("/src/inc", 0o700)
    c.chmod(pk("/var/log", 0), 0o4755)
    c.chown(pk("/docs", 0), 2000, 2000)
    c.chown(pk("/media", 0), 0, 50)
    c.chown(s + "/sym-short", 1000, 1000)
    c.touch(pk("/src", 0), past.MTIME0 + 86400)
    c.touch(pk("/etc", 0), past.MTIME0 - 86400)
    c.touch("/home", past.MTIME0 + 3600)
    rel = pk("/src/lib", 1)
    c.chmod(rel, 0o444)                                      # two changes
    c.append(rel, 77)
    c.xattr(s + "/xa", "user.c", b"charlie")
    c.xattr(s + "/xa", "user.b", None)
    c.xattr(s + "/xa-big", "user.big", pattern("xa-big changed", 600, bs))
    c.xattr(pk("/etc", 0), "user.new", b"a new attribute")
    c.xattr(s + "/acl", "system.posix_acl_access", ACL_B)
    c.xattr(pk("/docs", 0), "system.posix_acl_access", ACL_A)
    # Links.
    c.link(pk("/src", 0), "/var/f-link")
    c.link(s + "/hl", "/home/u2/hl-c")
    c.unlink_one("/docs/hl-b", s + "/hl")
    c.unlink_one("/var/hl3-c", s + "/hl3")
    # New files on fresh inodes (none is free yet); a type change next: the
    # inode it frees is the lowest free one, the one the kernel gives next
    # (when it does).
    for i, size in enumerate([3, 2 * bs + 1]):
        c.add("/home/u2/fresh%d" % i, size)
    # Deletes, a directory with them; then new names, taking the freed
    # inodes.
    c.retype(pk("/var/log", 0), "dir")
    c.retype(pk("/etc", 0), "symlink")
    for rel in [pk("/docs", 0), pk("/src", 0), pk("/media", bs), pk("/var/log", 0),
                pk("/etc", 0), s + "/sym-long", "/tiny/b/t3", "/to-empty"]:
        c.delete(rel)
    for i, size in enumerate([0, 5, 60, bs, 4 * bs + 3, 9 * bs]):
        c.add("/docs/new%d" % i, size)
    c.add("/newdir", isdir=True)
    for i in range(3):
        c.add("/newdir/n%d" % i, 100 * (i + 1))
    c.add("/tiny/a/t9", 12)
    c.add("/src/new-link", target="lib/f00")
    # Names, last: renames within and across directories, onto a name,
    # directories moved.
    c.rename(pk("/docs", 0), "/docs/renamed")
    c.rename(pk("/src", 0), "/var/log/moved")
    c.rename(s + "/sym-short", "/home/u1/sym-moved")
    c.rename(pk("/media", 0), pk("/media", 0))               # onto another
    c.rename("/docs/old", "/docs/older")
    c.rename("/mv-me", "/home/u1/mv-me")


def bulk_set(c, fraction, seed=2023):
    """bench/diff.sh: FRACTION of the regular files changed, one operation
    each in turn; as many new files."""
    rng = random.Random(seed)
    files = [rel for rel, st in walk(c.mnt)
             if stat.S_ISREG(st.st_mode) and st.st_nlink == 1 and not rel.startswith("/lost+found")]
    pick = rng.sample(files, max(1, int(len(files) * fraction)))
    bs = c.bs
    for i, rel in enumerate(pick):
        size, k = c.size(rel), i % 10
        if k == 0 or (size < 2 * bs and k in (1, 2)):
            c.append(rel, 1 + rng.randrange(2 * bs))
        elif k == 1:
            c.overwrite(rel, bs, min(bs, size - bs))
        elif k == 2:
            c.punch(rel, 0, bs)
        elif k == 3:
            c.truncate(rel, size // 2)
        elif k == 4:
            c.chmod(rel, 0o600)
        elif k == 5:
            c.touch(rel, past.MTIME0 + 86400)
        elif k == 6:
            c.xattr(rel, "user.bench", b"changed")
        elif k == 7:
            c.delete(rel)
        elif k == 8:
            c.rename(rel, rel + ".renamed")
        else:
            c.add(rel + ".new", 1 + rng.randrange(8 * bs))


def cmd_build(a):
    build(Tree(a.mnt, a.bs))


def cmd_change(a):
    c = Changes(a.mnt, a.bs)
    if a.bulk:
        bulk_set(c, a.fraction)
    else:
        # A's fallocate was refused (block maps): no unwritten extents.
        c.ext3 = c.size("/special/prealloc") == 0
        small_set(c)
    c.finish(a.out, a.bulk)


def cmd_finish(a):
    lines = [json.loads(l) for l in open(a.out)]
    d = past.describe(a.img)
    kv = {}
    for l in subprocess.run(["dumpe2fs", "-h", a.img], capture_output=True,
                            text=True).stdout.splitlines():
        k, _, v = l.partition(":")
        kv[k] = v.strip()
    head = {"kind": "pair", "a": a.name + "-a", "b": a.name + "-b",
            "block_size": int(kv["Block size"]), "features": d["features"]}
    if "Cluster size" in kv:
        head["cluster_size"] = int(kv["Cluster size"])
    with gzip.GzipFile(a.out + ".gz", "wb", mtime=0) as f:
        for o in [head] + lines:
            f.write((json.dumps(o) + "\n").encode())


# -- checking -------------------------------------------------------------------
def look(mnt, rel, st):
    """What a kernel mount shows of an inode, for comparison."""
    p = os.path.join(mnt, rel.lstrip("/"))
    o = {k: getattr(st, k) for k in ("st_mode", "st_uid", "st_gid", "st_size", "st_nlink",
                                      "st_mtime_ns", "st_ctime_ns", "st_atime_ns", "st_blocks")}
    o["xattrs"] = {n: os.getxattr(p, n, follow_symlinks=False)
                   for n in sorted(os.listxattr(p, follow_symlinks=False))}
    if stat.S_ISREG(st.st_mode):
        with open(p, "rb") as f:
            o["data"] = f.read()
    elif stat.S_ISLNK(st.st_mode):
        o["data"] = os.readlink(p)
    elif stat.S_ISDIR(st.st_mode):
        o["data"] = sorted((n, os.lstat(os.path.join(p, n)).st_ino) for n in os.listdir(p))
    return o


def cmd_verify(a):
    lines = [json.loads(l) for l in gzip.open(a.changes, "rt")]
    ia = {st.st_ino: (rel, st) for rel, st in walk(a.a)}
    ib = {st.st_ino: (rel, st) for rel, st in walk(a.b)}
    errs = []
    changed = {o["ino"] for o in lines if o["kind"] == "change"}
    unchanged = {o["ino"] for o in lines if o["kind"] == "unchanged"}
    for o in lines:
        if o["kind"] == "unchanged":
            rel, st = ib.get(o["ino"], (None, None))
            if o["ino"] not in ia or st is None or \
                    not os.path.samestat(os.lstat(os.path.join(a.b, o["path"].lstrip("/"))), st):
                errs.append("unchanged %s: not the same inode in A and B" % o["path"])
                continue
            ra, sa = ia[o["ino"]]
            if look(a.a, ra, sa) != look(a.b, rel, st):
                errs.append("unchanged %s (A %s): differs" % (o["path"], ra))
        elif o["kind"] == "change" and o["op"] not in ("delete", "link_remove"):
            if o["ino"] not in ib or os.lstat(os.path.join(a.b, o["path"].lstrip("/"))).st_ino != o["ino"]:
                errs.append("change %s %s: no inode %d there in B" % (o["op"], o["path"], o["ino"]))
        elif o["kind"] == "change":
            if o["ino"] not in ia:
                errs.append("change %s %s: not in A" % (o["op"], o["path"]))
    for ino, (rel, st) in sorted(ib.items()):
        if (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)) and \
                ino not in changed | unchanged:
            errs.append("B %s (inode %d): in no line" % (rel, ino))
    # An inode of A gone from B, or B's another file's (a new generation):
    # deleted, or its type changed.
    added = {o["ino"] for o in lines if o.get("op") == "add"}
    gone = {o["ino"] for o in lines if o.get("op") in ("delete", "type")}
    for ino, (rel, st) in sorted(ia.items()):
        if (ino not in ib or ino in added) and ino not in gone:
            errs.append("A %s (inode %d): gone, no line" % (rel, ino))
    for e in errs:
        print("diff-verify: %s" % e, file=sys.stderr)
    print("diff-verify: %s: %d changes, %d unchanged, %d errors" % (
        a.changes, sum(1 for o in lines if o["kind"] == "change"), len(unchanged), len(errs)))
    return 1 if errs else 0


def cmd_cmp(a):
    """PATH OFFSET LENGTH: where the bytes of a regular file present in A
    and B differ, in runs of whole blocks (the last cut at the longer end)."""
    bs = a.bs
    for rel, st in walk(a.b):
        pa = os.path.join(a.a, rel.lstrip("/"))
        if not stat.S_ISREG(st.st_mode) or not os.path.lexists(pa) or \
                not stat.S_ISREG(os.lstat(pa).st_mode):
            continue
        with open(pa, "rb") as fa, open(os.path.join(a.b, rel.lstrip("/")), "rb") as fb:
            da, db = fa.read(), fb.read()
        if da == db:
            continue
        end = max(len(da), len(db))
        runs = []
        for k in range((end + bs - 1) // bs):
            if da[k * bs:(k + 1) * bs] != db[k * bs:(k + 1) * bs]:
                if runs and runs[-1][1] == k:
                    runs[-1][1] = k + 1
                else:
                    runs.append([k, k + 1])
        for s, e in runs:
            print("%s %d %d" % (rel, s * bs, min(e * bs, end) - s * bs))


def cmd_cross(a):
    """The recordings against the record: every path rsync itemizes is a
    change's (or under a directory added, deleted or moved), every block
    a byte compare finds differing lies in a data operation's range."""
    lines = [json.loads(l) for l in gzip.open(a.changes, "rt")]
    bs = lines[0]["block_size"]
    ch = [o for o in lines if o["kind"] == "change"]
    named = {p for o in ch for p in (o["path"], o["path_a"], o.get("link")) if p}
    trees = {p for o in ch if o["op"] in ("add", "delete", "rename", "type")
             for p in (o["path"], o["path_a"]) if p}
    errs, n = [], 0
    for l in gzip.open(a.rsync, "rt"):
        item, _, p = l.rstrip("\n").partition(" ")
        p = "/" + p.strip().split(" -> ")[0].split(" => ")[0].rstrip("/")
        p = "/" if p == "/." else p
        n += 1
        up = [p] + [p[:i] for i in range(1, len(p)) if p[i] == "/"]
        if p not in named and not any(u in trees for u in up):
            errs.append("rsync %s %s: no change" % (item, p))
    where = {}
    for o in ch:
        for off, ln in o.get("ranges", []):
            where.setdefault(o["path"], set()).update(range(off // bs, (off + ln + bs - 1) // bs))
    # Another inode under the name (moved there, new): not one file's change.
    other = {o["path"] for o in ch if o["op"] in ("add", "rename", "type")}
    m = 0
    for l in gzip.open(a.cmp, "rt"):
        p, off, ln = l.split()
        m += 1
        if p in other:
            continue
        want = set(range(int(off) // bs, (int(off) + int(ln) + bs - 1) // bs))
        if not want <= where.get(p, set()):
            errs.append("cmp %s: blocks %s in no range" % (p.strip(), sorted(want - where.get(p, set()))))
    for e in errs:
        print("diff-cross: %s" % e, file=sys.stderr)
    print("diff-cross: %s: %d rsync lines, %d cmp ranges, %d unexplained" % (
        a.changes, n, m, len(errs)))
    return 1 if errs else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("mnt")
    b.add_argument("--bs", type=int, required=True)
    c = sub.add_parser("change")
    c.add_argument("mnt")
    c.add_argument("out")
    c.add_argument("--bs", type=int, required=True)
    c.add_argument("--bulk", action="store_true", help="bench: no unchanged lines")
    c.add_argument("--fraction", type=float, default=0.01)
    f = sub.add_parser("finish")
    f.add_argument("img")
    f.add_argument("out")
    f.add_argument("name")
    v = sub.add_parser("verify")
    v.add_argument("a")
    v.add_argument("b")
    v.add_argument("changes")
    m = sub.add_parser("cmp")
    m.add_argument("a")
    m.add_argument("b")
    m.add_argument("bs", type=int)
    x = sub.add_parser("cross")
    x.add_argument("changes")
    x.add_argument("rsync")
    x.add_argument("cmp")
    a = ap.parse_args()
    return {"build": cmd_build, "change": cmd_change, "finish": cmd_finish,
            "verify": cmd_verify, "cmp": cmd_cmp,
            "cross": cmd_cross}[a.cmd](a) or 0


if __name__ == "__main__":
    sys.exit(main())

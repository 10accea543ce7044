#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The past of an image: operations on the kernel's read-write mount, and
the ground truth of what they did (mkpast.sh, bench/past.sh).

    past-ops.py run MNT OUT.jsonl --bs N [--inline]
                [--fc] [--ext3] [--bulk L,LF,LD,H,HF,HD]
    past-ops.py finish IMG OUT.jsonl      (unmounted: who owns the blocks now)
    past-ops.py verify MNT MANIFEST.gz    (ro mount: live files still match)

run writes, syncs, deletes, renames, overwrites, truncates, checkpoints
(fsfreeze), deletes again and reuses what was freed, recording each file's
inode, generation, bytes' sha256, stat and FIEMAP just before its fate.
finish adds, for every file no longer whole, how many of its blocks another
inode owns now (debugfs icheck) and whether its inode number was reused.
The manifest's schema is in docs/past.md.  Python 3 stdlib only; root.
"""
import argparse
import array
import datetime
import fcntl
import gzip
import hashlib
import json
import os
import random
import struct
import subprocess
import sys

FS_IOC_FIEMAP = 0xC020660B
FS_IOC_GETVERSION = 0x80087601
FIEMAP_FLAG_SYNC = 1
FIEMAP_EXTENT_DATA_INLINE = 0x200
MTIME0 = 1700000000  # the generators' fixed time (gen_mkfs)


def fiemap(fd, bs):
    """[logical, physical, count] in fs blocks; inline data is no block."""
    out, start, n = [], 0, 256
    while True:
        hdr = struct.pack("=QQIIII", start, 2**64 - 1 - start,
                          FIEMAP_FLAG_SYNC, 0, n, 0)
        buf = bytearray(hdr + bytes(56 * n))
        fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
        mapped = struct.unpack_from("=I", buf, 20)[0]
        last = False
        for i in range(mapped):
            lg, ph, ln, _, _, fl = struct.unpack_from("=QQQQQI", buf, 32 + 56 * i)
            last = bool(fl & 1)
            start = lg + ln
            if fl & FIEMAP_EXTENT_DATA_INLINE:
                continue
            cnt = (ln + bs - 1) // bs
            if out and out[-1][0] + out[-1][2] == lg // bs and \
                    out[-1][1] + out[-1][2] == ph // bs:
                out[-1][2] += cnt  # FIEMAP splits at 128 MiB; one run
            else:
                out.append([lg // bs, ph // bs, cnt])
        if last or mapped < n:
            return out


def generation(fd):
    buf = array.array("I", [0, 0])
    fcntl.ioctl(fd, FS_IOC_GETVERSION, buf)
    return buf[0]


def pattern(tag, size, bs, salt=""):
    """Compressible, distinct per file and per block, checkable by eye."""
    filler = (" %s%s" % (tag, salt)).encode() * (bs // 8 + 1)
    blocks = []
    for k in range((size + bs - 1) // bs):
        head = ("%s%s block %d\n" % (tag, salt, k)).encode()
        blocks.append((head + filler)[:bs])
    return b"".join(blocks)[:size]


class Gen:
    def __init__(self, mnt, bs, fc, dev):
        self.mnt, self.bs, self.fc, self.dev = mnt, bs, fc, dev
        self.files = []     # every file record, in creation order
        self.by_path = {}   # current path -> record (live names)
        self.names = []
        self.dirs = {}      # path at creation -> record
        self.when = None
        self.rng = random.Random(22)
        self.mt = 0
        self.checkpoint_tid = None

    def p(self, rel):
        return os.path.join(self.mnt, rel.lstrip("/"))

    def times(self, path):
        self.mt += 1
        ns = (MTIME0 + self.mt) * 10**9 + self.mt * 1001
        os.utime(path, ns=(ns, ns), follow_symlinks=False)

    # -- creating --------------------------------------------------------
    def mkdir(self, rel):
        os.mkdir(self.p(rel))
        self.dirs[rel] = {"kind": "dir", "path": rel, "ino": os.stat(self.p(rel)).st_ino,
                          "fate": "live", "to": None}

    def write(self, rel, data, mode=0o644, uid=0, gid=0, extents=None, fsync=False):
        """extents: [(offset, bytes)] written alone (holes between)."""
        fd = os.open(self.p(rel), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, mode)
        try:
            if extents is None:
                os.write(fd, data)
                whole = data
            else:
                end = max(o + len(b) for o, b in extents)
                whole = bytearray(end)
                for o, b in extents:
                    os.pwrite(fd, b, o)
                    whole[o:o + len(b)] = b
                whole = bytes(whole)
            os.fchmod(fd, mode)
            os.fchown(fd, uid, gid)
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        self.times(self.p(rel))
        rec = {"kind": "file", "path": rel, "size": len(whole),
               "sha256": hashlib.sha256(whole).hexdigest(),
               "fate": "live", "when": None}
        self.files.append(rec)
        self.by_path[rel] = rec
        return rec

    def file(self, rel, size, **kw):
        return self.write(rel, pattern(rel, size, self.bs), **kw)

    def symlink(self, target, rel):
        os.symlink(target, self.p(rel))
        self.times(self.p(rel))
        rec = {"kind": "file", "path": rel, "size": len(target.encode()),
               "sha256": hashlib.sha256(target.encode()).hexdigest(),
               "fate": "live", "when": None}
        self.files.append(rec)
        self.by_path[rel] = rec

    def link(self, old, new):
        os.link(self.p(old), self.p(new))
        rec = self.by_path[old]
        rec.setdefault("links", []).append(new)
        self.by_path[new] = rec

    # -- what the inode is now ------------------------------------------
    def snap(self, rec):
        path = self.p(rec["path"])
        st = os.lstat(path)
        rec.update(ino=st.st_ino, mode=st.st_mode, uid=st.st_uid,
                   gid=st.st_gid, mtime_ns=st.st_mtime_ns)
        if os.path.islink(path):
            rec["gen"] = None
            rec["blocks"] = self.debugfs_blocks(st.st_ino)
            return
        fd = os.open(path, os.O_RDONLY)
        try:
            rec["gen"] = generation(fd)
            rec["blocks"] = fiemap(fd, self.bs)
        finally:
            os.close(fd)

    def debugfs_blocks(self, ino):
        """A symlink's block (no FIEMAP without opening it): [] if fast."""
        out = subprocess.run(["debugfs", "-R", "blocks <%d>" % ino, self.dev],
                             capture_output=True, text=True).stdout.split()
        return [[i, int(b), 1] for i, b in enumerate(out)]

    def sync(self):
        os.sync()

    def fc_commit(self):
        """On fast_commit: an fsync of a file logs what is pending."""
        fd = os.open(self.p("/fc-mark"), os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
        os.write(fd, b"x")
        os.fsync(fd)
        os.close(fd)

    def checkpoint(self):
        """fsfreeze flushes the journal (jbd2_journal_flush): s_start 0."""
        self.sync()
        subprocess.run(["fsfreeze", "-f", self.mnt], check=True)
        try:
            out = subprocess.run(["dumpe2fs", "-h", self.dev], capture_output=True,
                                 text=True).stdout
        finally:
            subprocess.run(["fsfreeze", "-u", self.mnt], check=True)
        start = [l.split()[-1] for l in out.splitlines() if l.startswith("Journal start:")]
        if start != ["0"]:
            sys.exit("past-ops: the freeze left the journal at %s" % start)
        # The first transaction after the checkpoint: every one before it
        # was written in place.
        self.checkpoint_tid = [int(l.split()[-1], 16) for l in out.splitlines()
                               if l.startswith("Journal sequence:")][0]

    # -- fates -------------------------------------------------------------
    def unname(self, rel, how, ino):
        d = os.path.dirname(rel)
        self.names.append({"kind": "name", "dir": d, "name": os.path.basename(rel),
                           "ino": ino, "how": how, "dir_ino": os.stat(self.p(d)).st_ino})

    def delete(self, rel):
        rec = self.by_path.pop(rel)
        others = sorted(n for n in [rec["path"]] + rec.get("links", []) if n != rel)
        if not others:
            self.snap_at(rec, rel)
            rec.update(fate="deleted", when=self.when)
            rec.pop("links", None)
        elif rec["path"] == rel:
            rec["path"] = others[0]
        if others:
            rec["links"] = [l for l in others if l != rec["path"]]
            if not rec["links"]:
                del rec["links"]
        ino = os.lstat(self.p(rel)).st_ino
        os.unlink(self.p(rel))
        self.unname(rel, "unlink", ino)

    def snap_at(self, rec, rel):
        rec["path"] = rel
        self.snap(rec)

    def rmdir(self, rel):
        ino = os.stat(self.p(rel)).st_ino
        os.rmdir(self.p(rel))
        self.unname(rel, "rmdir", ino)
        self.dir_rec(rel).update(fate="removed")

    def dir_rec(self, cur):
        for r in self.dirs.values():
            if (r["to"] or r["path"]) == cur:
                return r
        raise KeyError(cur)

    def rename(self, old, new):
        ino = os.lstat(self.p(old)).st_ino
        isdir = os.path.isdir(self.p(old))
        os.rename(self.p(old), self.p(new))
        self.unname(old, "rename", ino)
        if isdir:
            self.dir_rec(old).update(fate="renamed", to=new)
            for r in self.dirs.values():
                cur = r["to"] or r["path"]
                if cur.startswith(old + "/"):
                    r["to" if r["to"] else "path"] = new + cur[len(old):]
        def mv(path):
            return new + path[len(old):] if path == old or path.startswith(old + "/") else path
        moved = {}
        for k, v in self.by_path.items():
            if mv(k) != k and id(v) not in moved:
                moved[id(v)] = v
                v["path"] = mv(v["path"])
                if "links" in v:
                    v["links"] = [mv(l) for l in v["links"]]
        self.by_path = {mv(k): v for k, v in self.by_path.items()}

    def overwrite(self, rel):
        rec = self.by_path[rel]
        self.snap(rec)
        data = pattern(rel, rec["size"], self.bs, salt=" rewritten")
        fd = os.open(self.p(rel), os.O_WRONLY)
        os.pwrite(fd, data, 0)
        os.fsync(fd)
        os.close(fd)
        rec.update(fate="overwritten", when=self.when,
                   sha256_now=hashlib.sha256(data).hexdigest())

    def truncate(self, rel, size):
        rec = self.by_path[rel]
        self.snap(rec)
        with open(self.p(rel), "rb") as f:
            now = f.read(size)
        os.truncate(self.p(rel), size)
        if self.fc:
            fd = os.open(self.p(rel), os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)
        rec.update(fate="truncated", when=self.when, size_now=size,
                   sha256_now=hashlib.sha256(now).hexdigest())

    # -- the manifest ------------------------------------------------------
    def manifest(self, out, image):
        seen = set()
        for rel, rec in sorted(self.by_path.items()):
            if rec["fate"] == "live" and id(rec) not in seen:
                seen.add(id(rec))
                self.snap(rec)
        for r in self.dirs.values():
            if r["fate"] != "removed":
                r["ino"] = os.stat(self.p(r["to"] or r["path"])).st_ino
        keys = ["kind", "path", "ino", "gen", "size", "sha256", "fate", "when",
                "mode", "uid", "gid", "mtime_ns", "blocks"]
        with open(out, "w") as f:
            f.write(json.dumps(image) + "\n")
            for rec in self.files:
                o = {k: rec[k] for k in keys}
                o.update({k: v for k, v in rec.items() if k not in o})
                f.write(json.dumps(o) + "\n")
            for n in self.names:
                f.write(json.dumps(n) + "\n")
            for r in self.dirs.values():
                f.write(json.dumps(r) + "\n")


def small_set(g, inline, ext3, full=True):
    """The committed images' operations (docs/past.md lists them)."""
    bs = g.bs
    # Phase 1: a tree, committed.
    for d in ["/lin", "/htree", "/files", "/gone", "/move", "/move/sub", "/new"]:
        g.mkdir(d)
    for i in range(12):
        g.file("/lin/f%02d" % i, [0, 30, bs, 3 * bs, bs * 5 // 2, 100][i % 6] + i,
               mode=[0o644, 0o600, 0o755][i % 3], uid=1000 + i, gid=100 + i % 2)
    for i in range(400):
        g.file("/htree/entry-with-a-longer-name-%04d" % i, (i * 37) % 200)
    g.file("/files/empty", 0)
    g.file("/files/tiny", 42)
    g.file("/files/one-block", bs)
    g.file("/files/several", 5 * bs)
    g.write("/files/random", random.Random(7).randbytes(3000))
    g.write("/files/random-small", random.Random(8).randbytes(50))
    # Holes: every third block written (one extent each, a hole between).
    g.write("/files/sparse", None, extents=[(k * bs, pattern("/files/sparse%d" % k, bs, bs))
                                             for k in range(0, 12, 3)])
    # More than four extents: an extent index (depth 1) on ext4.
    g.write("/files/tree", None, extents=[(k * bs, pattern("/files/tree%d" % k, bs, bs))
                                           for k in range(1, 40, 4)])
    g.write("/files/tree2", None, extents=[(k * bs, pattern("/files/tree2-%d" % k, bs, bs))
                                            for k in range(0, 36, 5)])
    # Fragmented without holes: two files grown in turn, each block synced.
    for name in ["/files/frag", "/files/frag-b"]:
        g.write(name, b"")
    for k in range(6):
        for name in ["/files/frag", "/files/frag-b"]:
            fd = os.open(g.p(name), os.O_WRONLY | os.O_APPEND)
            os.write(fd, pattern(name + str(k), bs, bs))
            os.fsync(fd)
            os.close(fd)
    for name in ["/files/frag", "/files/frag-b"]:
        with open(g.p(name), "rb") as f:
            data = f.read()
        g.by_path[name]["size"] = len(data)
        g.by_path[name]["sha256"] = hashlib.sha256(data).hexdigest()
        g.times(g.p(name))
    if ext3:
        g.file("/files/big", 300 * 1024)  # past 12 + 256 blocks: double indirect
    else:
        g.file("/files/big", 40 * bs)
    g.file("/files/ow-one", bs)
    g.file("/lin/ow-three", 3 * bs)
    g.file("/files/tr-five", 5 * bs)
    g.file("/files/tr-zero", 2 * bs + 10)
    g.file("/files/ren-a", 2 * bs)
    g.file("/files/hl-a", 1000)
    g.link("/files/hl-a", "/lin/hl-b")
    g.file("/files/hl-keep", 2 * bs + 5)
    g.link("/files/hl-keep", "/lin/hl-keep2")
    g.write("/files/sparse-live", None, extents=[(k * bs, pattern("/files/sparse-live%d" % k, bs, bs))
                                                  for k in (2, 9)])
    g.symlink("hl-a", "/files/sym-short")
    g.symlink("/" + "long-target/" * 16 + "end", "/files/sym-long")
    for i in range(5):
        g.file("/gone/g%d" % i, (i + 1) * 700)
    g.file("/move/m1", bs + 1)
    g.file("/move/sub/m2", 77)
    if inline:
        for d in ["/small1", "/small2"]:
            g.mkdir(d)
            for n in "abc":
                g.file("%s/%s" % (d, n), 20 + ord(n) - ord("a"))
        g.file("/files/inline-40", 40)
        g.file("/files/inline-100", 100)
    g.sync()
    if full:
        fill(g, 12)
        g.sync()

    # Phase 2: deleted after the commit that wrote them.
    g.when = "after-commit"
    for rel in ["/lin/f03", "/lin/f07", "/files/several", "/files/frag",
                "/files/sparse", "/files/tree", "/files/tiny", "/files/big"]:
        g.delete(rel)
    for i in range(0, 400, 5):
        g.delete("/htree/entry-with-a-longer-name-%04d" % i)
    g.delete("/lin/hl-b")  # the inode stays, linked from /files/hl-a
    g.rename("/files/ren-a", "/lin/ren-a2")
    g.rename("/lin/f09", "/htree/moved-f09")
    g.rename("/move", "/lin/moved")
    for i in range(5):
        g.delete("/gone/g%d" % i)
    g.rmdir("/gone")
    g.overwrite("/files/ow-one")
    g.overwrite("/lin/ow-three")
    g.truncate("/files/tr-five", 2 * bs)
    g.truncate("/files/tr-zero", 0)
    if inline:
        g.delete("/small1/b")
        g.delete("/small2/c")
        g.delete("/files/inline-40")
    if g.fc:
        g.fc_commit()
    else:
        g.sync()

    # Phase 3: the journal checkpointed; phase 4: deleted after that.
    g.checkpoint()
    g.when = "after-checkpoint"
    for rel in ["/lin/f10", "/files/one-block", "/files/random", "/files/tree2",
                "/files/sym-long", "/lin/moved/sub/m2"]:
        g.delete(rel)
    for i in range(1, 400, 7):
        if i % 5:
            g.delete("/htree/entry-with-a-longer-name-%04d" % i)
    if inline:
        g.delete("/small1/a")
        g.delete("/files/inline-100")
    if g.fc:
        g.fc_commit()
    g.sync()

    # Phase 5: what was freed, taken again.
    g.when = None
    reuse(g, 200)
    g.sync()


def fill(g, spare):
    """A file as big as the free space less SPARE blocks: after deletions
    the next files must take blocks they freed."""
    st = os.statvfs(g.mnt)
    n = st.f_bavail - spare
    if n > 0:
        g.file("/fill", n * g.bs)


def reuse(g, files, prefix="/new/n"):
    """New files, one at a time, until they hold about half of the blocks
    the deletions freed, or there is no room (statvfs counts delalloc's
    reserve).  Over 16 blocks (mb_stream_req) each: not from the locality
    group's preallocation, which was taken before the deletions."""
    freed = {b for r in g.files if r["fate"] == "deleted"
             for lg, ph, n in r["blocks"] for b in range(ph, ph + n)}
    taken = set()
    for i in range(files):
        size = (17 + i % 8) * g.bs
        if os.statvfs(g.mnt).f_bavail < size // g.bs + 8 or 2 * len(taken) >= len(freed):
            break
        rec = g.file("%s%02d" % (prefix, i), size, fsync=g.fc)
        g.snap(rec)
        taken |= freed & {b for lg, ph, n in rec["blocks"] for b in range(ph, ph + n)}


def bulk_set(g, spec):
    """bench/past.sh's image: many deletions in linear and htree dirs."""
    ld, lf, ldel, hd, hf, hdel = spec
    bs, rng = g.bs, random.Random(2022)
    doomed = []
    g.mkdir("/bulk")
    for d in range(ld):
        g.mkdir("/bulk/l%03d" % d)
        for i in range(lf):
            g.file("/bulk/l%03d/f%02d" % (d, i), rng.randint(1, 4 * bs))
        doomed += ["/bulk/l%03d/f%02d" % (d, i) for i in rng.sample(range(lf), ldel)]
    for d in range(hd):
        g.mkdir("/bulk/h%02d" % d)
        for i in range(hf):
            g.file("/bulk/h%02d/file-%05d" % (d, i), rng.randint(1, 4 * bs))
        doomed += ["/bulk/h%02d/file-%05d" % (d, i) for i in rng.sample(range(hf), hdel)]
    rng.shuffle(doomed)
    g.sync()
    fill(g, 64)
    g.sync()
    half = len(doomed) // 2
    g.when = "after-commit"
    for rel in doomed[:half]:
        g.delete(rel)
    g.sync()
    g.checkpoint()
    g.when = "after-checkpoint"
    for rel in doomed[half:]:
        g.delete(rel)
    g.sync()
    g.when = None
    reuse(g, 4000, "/bulk/new")
    g.sync()


def cmd_run(a):
    dev = subprocess.run(["findmnt", "-n", "-o", "SOURCE", a.mnt], capture_output=True,
                         text=True, check=True).stdout.strip()
    g = Gen(a.mnt, a.bs, a.fc, dev)
    if a.bulk:
        small = a.bulk.startswith("+")
        spec = [int(x) for x in a.bulk.lstrip("+").split(",")]
        if small:
            small_set(g, False, False, full=False)
        bulk_set(g, spec)
    else:
        small_set(g, a.inline, a.ext3)
    image = {"kind": "image", "block_size": a.bs, "features": None, "journal": None,
             "checkpoint_tid": g.checkpoint_tid,
             "made": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    g.manifest(a.out, image)


def describe(img):
    """The image line's features and journal, from dumpe2fs -h."""
    kv = {}
    for l in subprocess.run(["dumpe2fs", "-h", img], capture_output=True,
                            text=True).stdout.splitlines():
        k, _, v = l.partition(":")
        kv[k] = v.strip()
    j = "internal, %s blocks, features: %s" % (kv.get("Total journal blocks", "?"),
                                                 kv.get("Journal features", "?"))
    if "Fast commit length" in kv:
        j += ", fast commit blocks: %s" % kv["Fast commit length"]
    return {"features": kv.get("Filesystem features", ""), "journal": j}


def cmd_finish(a):
    """Unmounted: debugfs icheck says who owns each old block now."""
    lines = [json.loads(l) for l in open(a.out)]
    lines[0].update(describe(a.img))
    owned = {}
    want = sorted({b for o in lines if o["kind"] == "file" and o["fate"] != "live"
                   for lg, ph, n in o["blocks"] for b in range(ph, ph + n)})
    for i in range(0, len(want), 2000):
        chunk = want[i:i + 2000]
        r = subprocess.run(["debugfs", "-R", "icheck " + " ".join(map(str, chunk)), a.img],
                           capture_output=True, text=True)
        for l in r.stdout.splitlines()[1:]:
            f = l.split(None, 1)
            if len(f) == 2 and f[1].strip().isdigit():
                owned[int(f[0])] = int(f[1])
    live = {o["ino"] for o in lines if o["kind"] == "file" and o["fate"] != "deleted"}
    live |= {o["ino"] for o in lines if o["kind"] == "dir" and o["fate"] != "removed"}
    for o in lines:
        if o["kind"] != "file" or o["fate"] == "live":
            continue
        mine = {b for lg, ph, n in o["blocks"] for b in range(ph, ph + n)}
        o["reused_blocks"] = sum(1 for b in mine if owned.get(b, o["ino"]) != o["ino"]
                                 or (o["fate"] == "deleted" and b in owned))
        if o["fate"] == "deleted":
            o["ino_reused"] = o["ino"] in live
    with gzip.GzipFile(a.out + ".gz", "wb", mtime=0) as f:
        for o in lines:
            f.write((json.dumps(o) + "\n").encode())


def cmd_verify(a):
    """Every live file's bytes, inode, generation and FIEMAP on a ro mount."""
    lines = [json.loads(l) for l in gzip.open(a.manifest, "rt")]
    bs = lines[0]["block_size"]
    bad = n = 0
    for o in lines:
        if o["kind"] != "file" or o["fate"] == "deleted":
            continue
        path = os.path.join(a.mnt, o["path"].lstrip("/"))
        st = os.lstat(path)
        if os.path.islink(path):
            now = os.readlink(path).encode()
        else:
            with open(path, "rb") as f:
                now = f.read()
        want = o.get("sha256_now", o["sha256"])
        errs = []
        if hashlib.sha256(now).hexdigest() != want:
            errs.append("sha256")
        if st.st_ino != o["ino"]:
            errs.append("ino %d" % st.st_ino)
        if o["fate"] == "live" and not os.path.islink(path):
            fd = os.open(path, os.O_RDONLY)
            if generation(fd) != o["gen"]:
                errs.append("gen")
            if fiemap(fd, bs) != o["blocks"]:
                errs.append("blocks")
            os.close(fd)
        n += 1
        if errs:
            bad += 1
            print("past-verify: %s: %s" % (o["path"], ", ".join(errs)), file=sys.stderr)
    print("past-verify: %s: %d files, %d differ" % (a.manifest, n, bad))
    return 1 if bad or not n else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("mnt")
    r.add_argument("out")
    r.add_argument("--bs", type=int, required=True)
    r.add_argument("--inline", action="store_true")
    r.add_argument("--fc", action="store_true")
    r.add_argument("--ext3", action="store_true")
    r.add_argument("--bulk", help="[+]L,LF,LD,H,HF,HD: L linear dirs of LF files, "
                   "LD deleted each; H htree dirs of HF, HD deleted ('+': the small set too)")
    f = sub.add_parser("finish")
    f.add_argument("img")
    f.add_argument("out")
    v = sub.add_parser("verify")
    v.add_argument("mnt")
    v.add_argument("manifest")
    a = ap.parse_args()
    return {"run": cmd_run, "finish": cmd_finish, "verify": cmd_verify}[a.cmd](a) or 0


if __name__ == "__main__":
    sys.exit(main())

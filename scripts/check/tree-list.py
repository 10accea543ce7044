#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A tree as one line per entry, for diffing a copy against the kernel's mount.

    tree-list.py [options] ROOT > LIST

Each line: path, type and mode, uid:gid, size (files and symlinks), mtime and
atime in ns, the symlink target or rdev, sha256 of the bytes, the data regions
(SEEK_DATA/SEEK_HOLE; with --round BS rounded out to BS and merged, as they
come out on a copy made on a filesystem of that block size), the xattrs, and
the hard-link group (the first path of the inode); --no-regions prints "*"
for the regions (a copy's allocation, where cp -a and e2map extract may
choose differently; the bytes are compared all the same).  scripts/check/kernel.sh
lists the fresh read-only mount with --round and each copy as it is, then
diffs.  --xattr-probe DIR lists only the xattrs DIR's filesystem takes (a
copy there can hold no others).  --cat E2MAP IMAGE also runs `e2map cat` on
each regular file: where its bytes or exit status are not the mount's, the
sha256 column says so, and the diff shows it.
"""
import argparse
import hashlib
import os
import stat
import subprocess
import sys
import tempfile


def regions(path, size, round_to):
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    out, pos = [], 0
    try:
        while pos < size:
            try:
                d = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:
                break
            h = os.lseek(fd, d, os.SEEK_HOLE)
            if round_to:
                d = d // round_to * round_to
                h = min(size, (h + round_to - 1) // round_to * round_to)
            if out and d <= out[-1][1]:
                out[-1][1] = max(out[-1][1], h)
            else:
                out.append([d, h])
            pos = h
    finally:
        os.close(fd)
    return " ".join("%d-%d" % (d, h) for d, h in out) or "-"


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def host_takes(probe_dir, name, value, is_dir):
    if probe_dir is None:
        return True
    p = tempfile.mkdtemp(dir=probe_dir) if is_dir else \
        tempfile.mkstemp(dir=probe_dir)[1]
    try:
        os.setxattr(p, name, value, follow_symlinks=False)
        return True
    except OSError:
        return False
    finally:
        os.rmdir(p) if is_dir else os.unlink(p)


def xattrs(path, probe_dir, is_dir):
    out = []
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError as e:
        return "E%d" % e.errno
    for n in sorted(names):
        try:
            v = os.getxattr(path, n, follow_symlinks=False)
        except OSError as e:
            out.append("%s=E%d" % (n, e.errno))
            continue
        if host_takes(probe_dir, n, v, is_dir):
            out.append("%s=%s" % (n, v.hex()))
    return ",".join(out) or "-"


def cat_differs(e2map, image, rel, want):
    r = subprocess.run([e2map, "cat", image, "/" + os.fsdecode(rel)],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    got = hashlib.sha256(r.stdout).hexdigest()
    return "" if r.returncode == 0 and got == want else \
        " e2map-cat:%d:%s" % (r.returncode, got)


def entry(a, root, rel, st, first):
    p = os.path.join(root, rel) if rel != b"/" else root
    mode = st.st_mode
    f = [os.fsdecode(rel), "%o" % mode, "%d:%d" % (st.st_uid, st.st_gid)]
    f.append(str(st.st_size) if stat.S_ISREG(mode) or stat.S_ISLNK(mode)
             else "-")
    f.append(str(st.st_mtime_ns))
    f.append(str(st.st_atime_ns))
    if stat.S_ISLNK(mode):
        f.append(os.readlink(p).hex())
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        f.append("%x" % st.st_rdev)
    else:
        f.append("-")
    if stat.S_ISREG(mode):
        f.append("*" if a.no_regions else regions(p, st.st_size, a.round))
        f.append(sha(p))
        if a.cat:
            f[-1] += cat_differs(a.cat[0], a.cat[1], rel, f[-1])
    f.append(xattrs(p, a.xattr_probe, stat.S_ISDIR(mode)))
    f.append("L:" + os.fsdecode(first) if first else "-")
    return "\t".join(f)


def walk(a, root):
    seen = {}
    todo = [b"/"]
    out = []
    while todo:
        rel = todo.pop()
        p = os.path.join(root, rel) if rel != b"/" else root
        st = os.lstat(p)
        first = None
        if not stat.S_ISDIR(st.st_mode) and st.st_nlink > 1:
            first = seen.setdefault(st.st_ino, rel)
        out.append((rel, st, first))
        if stat.S_ISDIR(st.st_mode):
            for n in os.listdir(p):
                todo.append(os.path.join(rel, n) if rel != b"/" else n)
    out.sort(key=lambda e: e[0])
    # A link group is named by its first path in sorted order, whatever
    # order the walk met them in.
    firsts = {}
    for rel, st, first in out:
        if first is not None:
            firsts.setdefault(st.st_ino, rel)
    for rel, st, first in out:
        f = firsts.get(st.st_ino) if first is not None else None
        print(entry(a, root, rel, st, f if f != rel else None))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--round", type=int, default=0)
    ap.add_argument("--xattr-probe")
    ap.add_argument("--cat", nargs=2, metavar=("E2MAP", "IMAGE"))
    ap.add_argument("--no-regions", action="store_true")
    a = ap.parse_args()
    walk(a, os.fsencode(a.root))


if __name__ == "__main__":
    sys.exit(main())

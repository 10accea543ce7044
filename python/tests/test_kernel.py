# SPDX-License-Identifier: GPL-2.0-or-later
"""Live, where loop mounts are allowed (root): the binding against the
kernel's own mount of the same image, through Python's os module on both
sides: os.walk, os.lstat, os.readlink, the xattrs, every byte read, and
SEEK_DATA/SEEK_HOLE from every offset the file's regions give."""
import errno
import hashlib
import os
import stat
import subprocess

import pytest

import e2map
from conftest import TESTDATA

IMAGES = ["ext4-4k", "ext4-1k", "ext2-1k", "ext3-1k", "ext4-names",
          "ext4-links", "ext4-inline", "ext4-bigalloc", "corrupt-4k"]


@pytest.fixture
def mounted(unpacked, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("not root: no loop mount for the live comparison")
    mounts = []

    def mount(name):
        img = unpacked(TESTDATA / (name + ".img.gz"))
        mnt = tmp_path / name
        mnt.mkdir()
        for opts in ("loop,ro,noload", "loop,ro"):
            p = subprocess.run(["mount", "-o", opts, img, str(mnt)],
                               stderr=subprocess.PIPE)
            if p.returncode == 0:
                mounts.append(mnt)
                return img, str(mnt)
        pytest.skip("mount refused here: %s" % p.stderr.decode().strip())
    yield mount
    for mnt in mounts:
        subprocess.run(["umount", str(mnt)], check=True)


def absolute_link(img, path: str) -> bool:
    try:
        return img.readlink(path).startswith("/")
    except OSError:
        return False


def rel(top: str, mnt: str) -> str:
    return "/" + os.path.relpath(top, mnt).lstrip(".")


def regions(fd: int):
    """(regions, errno): what SEEK_DATA/SEEK_HOLE give from 0 on."""
    out, off = [], 0
    try:
        while True:
            try:
                data = os.lseek(fd, off, os.SEEK_DATA)
            except OSError as e:
                if e.errno == errno.ENXIO:
                    return out, None
                raise
            off = os.lseek(fd, data, os.SEEK_HOLE)
            out.append((data, off))
    except OSError as e:
        return out, e.errno


def my_regions(f):
    out = []
    try:
        for r in f.data_ranges():
            out.append(r)
    except OSError as e:
        return out, e.errno
    return out, None


def same_stat(a: os.stat_result, b: os.stat_result) -> bool:
    keys = ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size",
            "st_blocks", "st_atime_ns", "st_mtime_ns", "st_ctime_ns")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


@pytest.mark.parametrize("name", IMAGES)
def test_the_binding_is_the_mount(name, mounted):
    img_path, mnt = mounted(name)
    want = [(rel(t, mnt), d, f) for t, d, f in os.walk(mnt)]
    with e2map.open(img_path) as img:
        got = list(img.walk("/"))
        # Names in getdents' order; dir or not alike but where a symlink
        # is absolute: on the host os.walk resolves it from the host's
        # root, e2map from the image's (as RESOLVE_IN_ROOT, the recorder's).
        assert [t for t, _, _ in got] == [t for t, _, _ in want]
        for (t, d, f), (_, kd, kf) in zip(got, want):
            assert sorted(d + f) == sorted(kd + kf), t
            absolute = {n for n in d + f
                        if absolute_link(img, t.rstrip("/") + "/" + n)}
            assert set(d) - absolute == set(kd) - absolute, t
        files = 0
        for top, dirs, names in want:
            for n in dirs + names:
                p = top.rstrip("/") + "/" + n
                host = mnt + p
                try:
                    k = os.lstat(host)
                except OSError as e:
                    with pytest.raises(OSError) as mine:
                        img.lstat(p)
                    assert mine.value.errno == e.errno, p
                    continue
                assert same_stat(img.lstat(p), k), p
                if stat.S_ISLNK(k.st_mode):
                    assert img.readlink(p) == os.readlink(host), p
                try:
                    kx = {x: os.getxattr(host, x, follow_symlinks=False)
                          for x in os.listxattr(host, follow_symlinks=False)}
                except OSError:
                    kx = None
                if kx is not None:
                    assert img.xattrs(p) == kx, p
                if stat.S_ISREG(k.st_mode):
                    files += compare_file(img, p, host)
        assert files or name == "corrupt-4k"


def compare_file(img, p: str, host: str) -> int:
    try:
        fd = os.open(host, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        with pytest.raises(OSError) as mine:
            img.open(p)
        assert mine.value.errno == e.errno, p
        return 0
    try:
        with img.open(p) as f:
            assert my_regions(f) == regions(fd), p
            f.seek(0)
            os.lseek(fd, 0, os.SEEK_SET)
            k, mine = hashlib.sha256(), hashlib.sha256()
            kerr = merr = None
            try:
                for block in iter(lambda: os.read(fd, 1 << 16), b""):
                    k.update(block)
                    if os.lseek(fd, 0, os.SEEK_CUR) >= 64 << 20:
                        break
            except OSError as e:
                kerr = e.errno
            try:
                while f.tell() < 64 << 20:
                    block = f.read(1 << 16)
                    if not block:
                        break
                    mine.update(block)
            except OSError as e:
                merr = e.errno
            if kerr is None and merr is None:
                assert mine.hexdigest() == k.hexdigest(), p
            else:
                assert kerr == merr, p
    finally:
        os.close(fd)
    return 1

# SPDX-License-Identifier: GPL-2.0-or-later
"""The binding's own promises: errors as OSError subclasses with the
kernel's errno and e2map's detail, handles closed by with, close() and
the collector, a closed one raising ValueError, pickling by path."""
import errno
import gc
import os
import pickle

import pytest

import e2map
from conftest import TESTDATA


@pytest.fixture
def img(unpacked):
    with e2map.open(unpacked(TESTDATA / "ext4-4k.img.gz")) as i:
        yield i


def test_errors_are_oserror_subclasses_with_the_kernels_errno(img, tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        img.open("/e2map-no-such-file")
    assert e.value.errno == errno.ENOENT
    assert "no entry" in e.value.strerror and e.value.filename
    with pytest.raises(NotADirectoryError):
        img.open("/alternating/x")
    with pytest.raises(NotADirectoryError):
        img.listdir("/tiny")
    with pytest.raises(IsADirectoryError):
        img.open("/dir").read()
    with pytest.raises(OSError) as e:
        img.readlink("/tiny")
    assert e.value.errno == errno.EINVAL
    with pytest.raises(OSError) as e:
        img.open("/dangling")
    assert e.value.errno == errno.ENOENT
    with pytest.raises(OSError) as e:
        img.open("/dirlink", follow_symlinks=False)
    assert e.value.errno == errno.ELOOP
    with pytest.raises(OSError) as e:
        img.open(0)
    assert e.value.errno == errno.ESTALE
    with img.open("/sparse") as f:
        with pytest.raises(OSError) as e:
            f.seek(10 << 20, os.SEEK_DATA)
        assert e.value.errno == errno.ENXIO
        with pytest.raises(e2map.FiemapError) as e:
            f.fiemap_ioctl(0, 4096, 0x80000000)
        assert e.value.errno == errno.EBADR and e.value.flags == 0x80000000
    with pytest.raises(FileNotFoundError):
        e2map.open(tmp_path / "none.img")
    (tmp_path / "zero.img").write_bytes(bytes(1 << 16))
    with pytest.raises(OSError) as e:
        e2map.open(tmp_path / "zero.img")
    assert e.value.errno == errno.EUCLEAN and "ext2/3/4" in str(e.value)
    with pytest.raises(IsADirectoryError):
        e2map.open(tmp_path)
    with pytest.raises(OSError) as e:
        e2map.open(tmp_path / "zero.img", offset=1 << 20)
    assert e.value.errno == errno.EINVAL


def test_a_closed_image_or_file_raises_valueerror(unpacked):
    img = e2map.open(unpacked(TESTDATA / "ext4-4k.img.gz"))
    f = img.open("/tiny")
    img.close()
    assert img.closed and f.closed
    img.close()
    for call in (lambda: img.lstat("/"), lambda: img.open("/tiny"),
                 lambda: img.listdir("/"), lambda: img.statfs(),
                 lambda: img.state, lambda: f.read(), lambda: f.seek(0),
                 lambda: f.fiemap()):
        with pytest.raises(ValueError):
            call()


def test_handles_are_freed_by_the_collector(unpacked):
    path = unpacked(TESTDATA / "ext4-4k.img.gz")
    for _ in range(200):
        e2map.open(path).open("/sparse").read(10)
    gc.collect()
    fds = len(os.listdir("/proc/self/fd"))
    for _ in range(200):
        e2map.open(path).open("/sparse").read(10)
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) <= fds + 2


def test_an_image_pickles_as_its_path_and_options(unpacked):
    path = unpacked(TESTDATA / "ext4-4k.img.gz")
    with e2map.open(path, cache="warm") as img:
        copy = pickle.loads(pickle.dumps(img))
        with copy:
            assert copy.path == path and "cache=warm" in repr(copy)
            assert copy.listdir("/") == img.listdir("/")


def test_file_is_a_read_only_raw_io(img):
    import io
    with img.open("/sparse") as f:
        assert isinstance(f, io.RawIOBase)
        assert f.readable() and f.seekable() and not f.writable()
        assert list(f.data_ranges()) == [(65536, 81920), (262144, 270336)]
        assert f.tell() == 0
        assert f.seek(0, os.SEEK_DATA) == 65536
        assert f.seek(0, os.SEEK_HOLE) == 0
        ext = f.fiemap()
        assert [x.logical for x in ext] == [65536, 262144] and ext[-1].last
        assert f.fiemap_ioctl(count=0).mapped == 2
        assert len(f.pread(100, 65536)) == 100 and f.tell() == 0
        buf = bytearray(8192)
        f.seek(65536)
        assert f.readinto(memoryview(buf)[:4096]) == 4096
        st = f.stat()
        assert st.st_size == 524288 and st == img.stat("/sparse")
    with img.open("/fifo") as f:
        assert not f.seekable() and f.read() == b""


def test_state_statfs_owner_and_disk(img, unpacked):
    assert img.state == e2map.State(0)
    fs = img.statfs()
    assert fs.type == 0xEF53 and fs.bsize == 4096 and fs.namelen == 255
    runs = img.runs("/sparse")
    data = [r for r in runs if r.kind == "data"]
    assert [r.lblk for r in data] == [16, 64]
    o = img.owner(data[0].pblk)
    assert o.kind == "data" and o.ino == img.lstat("/sparse").st_ino
    assert img.owner(10**12) is None
    assert img.birthtime("/").sec == 1700000000
    d = e2map.disk(img.path)
    assert d.format == "raw" and d.table == "" and d.partitions == []


def test_disks_and_containers_open_as_the_cli_opens_them():
    disks = os.environ.get("E2MAP_DISKS")
    if not disks or not os.path.isdir(disks):
        pytest.skip("no $E2MAP_DISKS (make check makes them)")
    seen = 0
    for name in sorted(os.listdir(disks)):
        path = os.path.join(disks, name)
        try:
            parts = e2map.partitions(path)
        except OSError:
            continue
        for p in parts:
            if not p.is_ext:
                continue
            with e2map.open(path, partition=p.number) as img:
                assert img.disk_offset == p.start
                assert img.lstat("/").st_ino == 2
                seen += 1
    assert seen


def test_threads_may_share_an_image(img):
    """Calls from several threads on one Image (its lock serializes them)
    give each thread what it would get alone."""
    import hashlib
    import threading
    paths = ["/sparse", "/random", "/dense", "/ext_1500", "/small5000"]
    want = {}
    for p in paths:
        with img.open(p) as f:
            want[p] = (hashlib.sha256(f.read()).hexdigest(), f.fiemap())
    got, errors = {}, []

    def work(k):
        try:
            for i in range(20):
                p = paths[(k + i) % len(paths)]
                with img.open(p) as f:
                    h = hashlib.sha256()
                    while True:
                        b = f.read(4096 * (k + 1))
                        if not b:
                            break
                        h.update(b)
                    got[(k, i)] = (p, h.hexdigest(), f.fiemap())
                img.lstat(p)
                img.listdir("/dir")
        except BaseException as e:     # reported below, not lost
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(got) == 80
    for p, digest, ext in got.values():
        assert (digest, ext) == want[p], p

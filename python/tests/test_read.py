# SPDX-License-Identifier: GPL-2.0-or-later
"""File reads against read(2) on the mount (scripts/record/read.sh): for
every recorded path, the same open error, or the same bytes (sha256) up
to the same end and the same errno where the read failed."""
import errno
import gzip
import hashlib
import os
import stat

import pytest

import e2map
from conftest import recorded


def paths(rec):
    with gzip.open(rec, "rb") as f:
        recs = f.read().split(b"\0")
    head = recs[0].split()
    assert head[:2] == [b"e2map-read", b"2"], recs[0]
    limit = int(head[3])
    cur = None
    for r in recs[1:]:
        if r.startswith(b"/"):
            if cur:
                yield cur
            cur = (r, [], limit)
        elif r:
            cur[1].append(r.decode().split(" "))
    if cur:
        yield cur


def read_run(f, size: int, start: int, limit: int):
    """read(2) in calls of SIZE from START, as the recorder read."""
    if start:
        f.seek(start)
    h, n, err = hashlib.sha256(), 0, "0"
    buf = bytearray(size)
    while True:
        if start == 0 and n >= limit:
            err = "CUT"
            break
        try:
            got = f.readinto(buf)
        except OSError as e:
            err = errno.errorcode[e.errno]
            break
        if not got:
            break
        h.update(memoryview(buf)[:got])
        n += got
    return n, err, h.hexdigest()


@pytest.mark.parametrize("rec,packed", recorded(".read.gz"))
def test_reads_are_the_kernels(rec, packed, unpacked):
    checked = 0
    with e2map.open(unpacked(packed)) as img:
        for path, results, limit in paths(rec):
            try:
                f = img.open(path)
            except OSError as e:
                if results[0][0] == "open":
                    assert errno.errorcode[e.errno] == results[0][1], path
                    continue
                # A device node: the kernel opens the host's, e2map never.
                mode = img.lstat(path).st_mode
                assert e.errno == errno.ENXIO and (
                    stat.S_ISCHR(mode) or stat.S_ISBLK(mode)), path
                continue
            f.close()
            assert results[0][0] == "run", path
            for _, size, start, nbytes, err, digest in results:
                with img.open(path) as f:   # a fresh handle, as a fresh mount
                    got = read_run(f, int(size), int(start), limit)
                if int(size) > 4096 and err not in ("0", "CUT"):
                    # The kernel fails a whole readahead folio: with
                    # large calls it may stop earlier than e2map.
                    continue
                assert got == (int(nbytes), err, digest), (path, size, start)
                checked += 1
    assert checked


@pytest.mark.parametrize("rec,packed", recorded(".read.gz")[:3])
def test_file_works_where_file_objects_do(rec, packed, unpacked, tmp_path):
    """shutil.copyfileobj, hashlib.file_digest-style loops, tarfile and
    zipfile take a File as they take an open file."""
    import shutil
    import tarfile
    import zipfile
    with e2map.open(unpacked(packed)) as img:
        for path, results, limit in paths(rec):
            if results[0][0] != "run" or results[0][4] != "0":
                continue
            want = results[0][5]
            with img.open(path) as f:
                if not stat.S_ISREG(f.stat().st_mode):
                    continue        # a FIFO copies, but does not seek
                out = tmp_path / "copy"
                with open(out, "wb") as dst:
                    shutil.copyfileobj(f, dst)
                assert hashlib.sha256(out.read_bytes()).hexdigest() == want
                f.seek(0)
                with zipfile.ZipFile(tmp_path / "z.zip", "w") as z:
                    z.writestr("x", f.read())
                f.seek(0)
                size = f.stat().st_size
                with tarfile.open(tmp_path / "t.tar", "w") as t:
                    info = tarfile.TarInfo("x")
                    info.size = size
                    t.addfile(info, f)
                with tarfile.open(tmp_path / "t.tar") as t:
                    data = t.extractfile("x").read()
                assert hashlib.sha256(data).hexdigest() == want
                with zipfile.ZipFile(tmp_path / "z.zip") as z:
                    assert hashlib.sha256(z.read("x")).hexdigest() == want
            os.unlink(tmp_path / "t.tar")

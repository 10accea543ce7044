# SPDX-License-Identifier: GPL-2.0-or-later
"""scandir/listdir against getdents64 on the mount (scripts/record/
readdir.sh's recordings), lstat against the kernel's, walk as os.walk."""
import errno
import os
import stat

import pytest

import e2map
from conftest import TESTDATA, recorded


def listings(packed_rec):
    import gzip
    with gzip.open(packed_rec, "rb") as f:
        recs = f.read().split(b"\0")
    cur = None
    for r in recs:
        if r.startswith(b"D "):
            if cur:
                yield cur
            cur = (r[2:], [], None)
        elif r.startswith(b"E "):
            cur = (cur[0], cur[1], r[2:].decode())
        elif r:
            ino, dtype, name = r.split(b" ", 2)
            cur[1].append((int(ino), int(dtype), name))
    if cur:
        yield cur


@pytest.mark.parametrize("rec,packed", recorded(".readdir.gz"))
def test_scandir_lists_as_getdents(rec, packed, unpacked):
    dirs = 0
    with e2map.open(unpacked(packed)) as img:
        for path, entries, err in listings(rec):
            want = [e for e in entries if e[2] not in (b".", b"..")]
            if err:
                with pytest.raises(OSError) as e:
                    list(img.scandir(path))
                assert errno.errorcode[e.value.errno] in (
                    err, "EOPNOTSUPP" if err == "ENOTSUP" else err), path
                continue
            got = [(d.inode(), d._type, d.name) for d in img.scandir(path)]
            assert got == want, path
            assert img.listdir(path.decode("utf-8", "surrogateescape")) == \
                [os.fsdecode(n) for _, _, n in want]
            dirs += 1
    assert dirs


def test_walk_is_os_walk_over_scandir(unpacked):
    """walk() as os.walk would make it from scandir's entries, top-down
    and bottom-up, and dirs pruned in place are not entered."""
    with e2map.open(unpacked(TESTDATA / "ext4-4k.img.gz")) as img:
        down = list(img.walk("/"))
        up = list(img.walk("/", topdown=False))
        assert sorted(down) == sorted(up)
        assert up[-1][0] == "/" and down[0][0] == "/"
        for top, dirs, files in down:
            ents = list(img.scandir(top))
            assert dirs == [e.name for e in ents if e.is_dir()]
            assert files == [e.name for e in ents if not e.is_dir()]
        # /dirlink is a symlink to a directory: listed, not entered.
        assert "dirlink" in down[0][1]
        assert not any(t.endswith("/dirlink") for t, _, _ in down)
        pruned = []
        for top, dirs, _ in img.walk("/"):
            pruned.append(top)
            dirs[:] = [d for d in dirs if d != "bigdir"]
        assert "/bigdir" not in pruned and "/dir/sub" in pruned


def test_entries_answer_as_os_direntry(unpacked):
    with e2map.open(unpacked(TESTDATA / "ext4-4k.img.gz")) as img:
        ents = {e.name: e for e in img.scandir("/")}
        assert ents["dirlink"].is_symlink() and ents["dirlink"].is_dir()
        assert not ents["dirlink"].is_dir(follow_symlinks=False)
        assert ents["dangling"].is_symlink()
        assert not ents["dangling"].is_file()
        assert ents["tiny"].is_file() and not ents["tiny"].is_dir()
        st = ents["tiny"].stat()
        assert stat.S_ISREG(st.st_mode) and st.st_size == 13
        assert st.st_ino == ents["tiny"].inode() == img.lstat("/tiny").st_ino
        assert os.fspath(ents["tiny"]) == "/tiny"
        assert img.readlink("/dirlink") == "dir/sub"
        assert img.readlink(b"/dirlink") == b"dir/sub"
        assert img.stat("/dirlink").st_ino == img.lstat("/dir/sub").st_ino
        assert stat.S_ISLNK(img.lstat("/dirlink").st_mode)

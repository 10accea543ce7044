# SPDX-License-Identifier: GPL-2.0-or-later
"""The e2fsprogs corpus shipped in testdata, damaged images all: open()
refuses what the kernel's mount refuses, with its errno; what mounts
goes through every whole-image call and every file's read without a
crash, failing only with OSError."""
import errno
import re

import pytest

import e2map
from conftest import CORPUS, _sampled, corpus_image


def verdicts():
    out = []
    for line in (CORPUS / "verdicts").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        f = line.split("\t")
        img = corpus_image(f[0])
        if img is None:
            continue
        if f[1] == "refused" and "CONFIG_" in line:
            # The recording kernel's build lacked a feature (casefold
            # needs CONFIG_UNICODE): its limit, not the image's fault.
            f[1] = "mounted"
        out.append(pytest.param(img, f[1], f[2:3] and f[2],
                                "\t".join(f[3:]), id=f[0]))
    return _sampled(out)


def everything(img: e2map.Image) -> int:
    calls = 0
    for r in img.scan():
        calls += 1
        r.asdict()
    img.check()
    img.blockmap()
    img.unallocated()
    img.statfs()
    for top, dirs, files in img.walk("/", onerror=lambda e: None):
        for name in files:
            path = top.rstrip("/") + "/" + name
            try:
                img.xattrs(path)
                with img.open(path) as f:
                    list(f.data_ranges())
                    f.fiemap()
                    while f.read(1 << 20):
                        pass
            except OSError:
                pass
            calls += 1
    return calls


# Refusals past the superblock, whose errno e2map repeats (as
# tests/test_mount.c): a superblock the kernel refuses (EINVAL) is
# libext2fs's to refuse first, with any errno.
KERNEL_WORDS = "|".join((
    r"(Block bitmap|Inode bitmap|Inode table) for group \d+ not in group",
    r"overlap system zone", r"failed to initialize system zone",
    r"corrupt root inode", r"get root inode failed",
    r"bad s_(want|min)_extra_isize"))


@pytest.mark.parametrize("packed,verdict,how,why", verdicts())
def test_corpus_image_opens_as_the_kernel_mounts_it(packed, verdict, how,
                                                    why, unpacked):
    path = unpacked(packed)
    if verdict == "refused":
        with pytest.raises(OSError) as e:
            e2map.open(path)
        if re.search(KERNEL_WORDS, why):
            assert errno.errorcode[e.value.errno] == how
        try:
            img = e2map.open(path, unmountable=True)
        except OSError as again:
            # libext2fs's own refusals come before any of the kernel's.
            assert again.errno == e.value.errno
            return
        with img:
            assert img.state & e2map.State.UNMOUNTABLE
            everything(img)
        return
    with e2map.open(path) as img:
        assert not img.state & e2map.State.UNMOUNTABLE
        assert everything(img) > 0

# SPDX-License-Identifier: GPL-2.0-or-later
"""Image.scan() against `e2map scan --format jsonl` (held to the kernel by
the C suite), record for record, on every testdata image and shipped
corpus image; and its stat fields against the kernel's own recording."""
import json
import subprocess

import pytest

import e2map
from conftest import e2map_cli, read_text, recorded


def cli_records(img: str):
    out = subprocess.run([e2map_cli(), "scan", "--format", "jsonl", img],
                         stdout=subprocess.PIPE, check=False).stdout
    assert out, "e2map scan printed nothing"
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("rec,packed", recorded(".scan.gz"))
def test_scan_is_the_clis_jsonl(rec, packed, unpacked):
    img = unpacked(packed)
    want = cli_records(img)
    total = e2map.Summary()
    got = []
    with e2map.open(img) as image:
        for r in image.scan():
            total.add(r)
            got.append(r.asdict())
    assert want[-1] == {"summary": total.asdict()}
    want = want[:-1]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == w


def kernel_stats(text: str):
    """ino -> (mode, nlink, uid, gid, size, blocks, times) of the kernel's
    `I` lines (scripts/record/scan.sh)."""
    out = {}
    for line in text.split("\n"):
        f = line.split("\t")
        if f[0] == "I":
            out[int(f[1])] = (int(f[2], 8), *map(int, f[3:8]), f[9:13])
    return out


def ts(t):
    return "-" if t is None else "%d.%09d" % (t.sec, t.nsec)


@pytest.mark.parametrize("rec,packed", recorded(".scan.gz"))
def test_scan_stat_is_the_kernels(rec, packed, unpacked):
    kernel = kernel_stats(read_text(rec))
    seen = 0
    with e2map.open(unpacked(packed)) as image:
        for r in image.scan():
            if r.ino not in kernel or r.error:
                continue
            mode, nlink, uid, gid, size, blocks, times = kernel[r.ino]
            assert (r.mode, r.nlink, r.uid, r.gid, r.size, r.blocks) == \
                (mode, nlink, uid, gid, size, blocks), r
            assert [ts(r.atime), ts(r.mtime), ts(r.ctime)] == times[:3], r
            seen += 1
    assert seen or not kernel


def test_scan_stops_early_and_leaves_the_image_usable(unpacked):
    from conftest import TESTDATA
    with e2map.open(unpacked(TESTDATA / "ext4-4k.img.gz")) as image:
        it = image.scan()
        first = next(it)
        assert image.lstat("/").st_ino == first.ino == 2
        it.close()
        assert len(list(image.scan(threads=1))) == len(list(image.scan()))


def test_scan_of_a_closed_image_raises_valueerror(unpacked):
    from conftest import TESTDATA
    image = e2map.open(unpacked(TESTDATA / "ext4-4k.img.gz"))
    image.close()
    with pytest.raises(ValueError):
        image.scan()

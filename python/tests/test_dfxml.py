# SPDX-License-Identifier: GPL-2.0-or-later
"""`e2map scan --format dfxml` held to the kernel and to fiwalk: every
regular file's and directory's byte runs against the FIEMAP answers the
kernel gave in testdata's recordings (NAME.calls.gz, tests/calls.h's
format), stat fields, runs and digests against fiwalk's DFXML of the
same image (NAME.fiwalk.xml.gz, scripts/record/fiwalk.sh), and, through
a partitioned disk and an E01 container, byte runs whose img_offset
reads the file's bytes from the disk.  The comparisons are
scripts/check/dfxml-check.py's, which also runs live against a mount."""
import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, TESTDATA, e2map_cli, read_text, recorded

_spec = importlib.util.spec_from_file_location(
    "dfxml_check", ROOT / "scripts" / "check" / "dfxml-check.py")
dfxml = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dfxml)


def scan_dfxml(img, *opts):
    run = subprocess.run([e2map_cli(), "scan", "-q", "--format", "dfxml",
                          *opts, img], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False)
    assert run.returncode in (0, 1), run.stderr.decode()
    return dfxml.parse(run.stdout)   # ElementTree parses it, or raises


def kernel_fiemaps(text):
    """path -> the extents of the first whole FIEMAP listing after an
    open of it that worked: [(logical, physical, length, flags)]."""
    out = {}
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("open /") or not line.endswith(" = 0"):
            continue
        path = line[5:-4]
        if path in out or i + 1 >= len(lines):
            continue
        f = lines[i + 1].split()
        # "fiemap 0 max 0x0 COUNT = 0 0x0 MAPPED", MAPPED below COUNT
        if len(f) != 9 or f[:4] != ["fiemap", "0", "max", "0x0"] or \
                f[5:8] != ["=", "0", "0x0"] or int(f[8]) >= int(f[4]):
            continue
        ext = []
        for e in lines[i + 2:i + 2 + int(f[8])]:
            g = e.split()
            ext.append((int(g[1]), int(g[2]), int(g[3]), int(g[4], 16)))
        out[path] = ext
    return out


@pytest.mark.parametrize("rec,packed", recorded(".calls.gz"))
def test_byte_runs_are_the_kernels_fiemap(rec, packed, unpacked):
    text = read_text(rec)
    opts = ["--replay"] if "# e2map-options: replay" in text else []
    if "# e2map-options:" in text and not opts:
        pytest.skip("options this test does not pass")
    files, off = scan_dfxml(unpacked(packed), *opts)
    assert off == 0
    bad, held = [], 0
    for path, ext in kernel_fiemaps(text).items():
        obj = files.get(path[1:])
        if obj is None or obj.get("name_type") not in ("r", "d"):
            continue        # a symlink's open reaches its target
        held += 1
        dfxml.check_runs(path, obj, dfxml.fiemap_runs(
            ext, int(obj["filesize"])), 0, bad)
        # Whole but where damage cuts the map (e2map says so).
        if obj["runs"] and not obj["errors"] and not dfxml.covers(
                obj["runs"], int(obj["filesize"])):
            bad.append("%s: runs do not cover the file" % path)
    assert not bad, "\n".join(bad[:20])
    if not held:
        pytest.skip("no whole FIEMAP of a file e2map lists recorded")


FIWALK = sorted(TESTDATA.glob("*.fiwalk.xml.gz"))


@pytest.mark.parametrize("rec", FIWALK, ids=[p.name[:-14] for p in FIWALK])
def test_dfxml_is_fiwalks(rec, unpacked):
    img = unpacked(TESTDATA / (rec.name[:-14] + ".img.gz"))
    files, off = scan_dfxml(img, "--hash", "md5,sha1", "--hash-max", "16M")
    theirs = dfxml.parse(rec)[0]
    # Every name e2map lists fiwalk lists, spelled the same.
    assert sorted(set(files) - set(theirs)) == []
    assert len(files) > 50
    hashed = sum(1 for k in files if files[k]["hashes"] and theirs[k]["hashes"])
    assert hashed > 0
    bad = dfxml.check_fiwalk(files, off, theirs)
    assert not bad, "\n".join(bad[:20])


PAST_FIWALK = sorted(TESTDATA.glob("past-*.fiwalk.xml.gz"))
PAST_FIELDS = ("filename", "name_type", "inode", "filesize", "meta_type",
               "mode", "nlink", "uid", "gid", "mtime", "ctime", "atime",
               "dtime")


def _unallocated(root):
    """fiwalk's and scan -d's names of the past: each unallocated name's
    fields, with crtime apart (TSK reads it on ext4 only)."""
    out = []
    for fo in root.iter(dfxml.NS + "fileobject"):
        d = {c.tag[len(dfxml.NS):]: c.text for c in fo
             if isinstance(c.tag, str) and c.tag.startswith(dfxml.NS)}
        if "unalloc" in d:
            out.append((tuple(d.get(k) for k in PAST_FIELDS), d.get("crtime")))
    return out


@pytest.mark.parametrize("rec", PAST_FIWALK,
                         ids=[p.name[:-14] for p in PAST_FIWALK])
def test_deleted_are_fiwalks(rec, unpacked):
    """scan -d's DFXML lists every deleted name and free inode fiwalk
    lists, field by field; more only where the name's inode is in use
    again (fls's "deleted-realloc", which fiwalk leaves out)."""
    import gzip
    import xml.etree.ElementTree as ET
    img = unpacked(TESTDATA / (rec.name[:-14] + ".img.gz"))
    run = subprocess.run([e2map_cli(), "scan", "-q", "-d", "--format",
                          "dfxml", img], stdout=subprocess.PIPE, check=True)
    ours = _unallocated(ET.fromstring(run.stdout))
    with gzip.open(rec) as f:
        theirs = _unallocated(ET.parse(f).getroot())
    assert len(theirs) > 50
    mine = {}
    for fields, crtime in ours:
        mine.setdefault(fields, []).append(crtime)
    for fields, crtime in theirs:
        have = mine.get(fields)
        assert have, "fiwalk lists %r, scan -d does not" % (fields,)
        assert crtime is None or crtime in have, fields
        have.pop(have.index(crtime) if crtime in have else 0)
    extra = [f for f, left in mine.items() for _ in left]
    assert all(f[PAST_FIELDS.index("nlink")] != "0" for f in extra), extra


def _disk(name):
    d = os.environ.get("E2MAP_DISKS")
    if not d or not Path(d, name).exists():
        pytest.skip("no %s (make builds tests/disks)" % name)
    return str(Path(d, name))


@pytest.mark.parametrize("disk,part,bare", [("gpt.img", "2", "gpt-p2.img"),
                                            ("gpt.E01", "3", "gpt-p3.img"),
                                            ("mbr.img", "5", "mbr-p5.img")])
def test_img_offset_is_in_the_disk(disk, part, bare):
    path, raw = _disk(disk), _disk(disk.rsplit(".", 1)[0] + ".img")
    files, off = scan_dfxml(path, "--partition", part)
    alone, zero = scan_dfxml(_disk(bare))
    assert off > 0 and zero == 0
    assert set(files) == set(alone) and files
    checked = 0
    with open(raw, "rb") as d, open(_disk(bare), "rb") as b:
        for name, obj in files.items():
            assert obj["runs"] == [r if r == "resident" or r[1] is None
                                   else [r[0], r[1], r[1] + off, r[3]]
                                   for r in alone[name]["runs"]], name
            for r in obj["runs"]:
                if r == "resident" or r[1] is None:
                    continue
                d.seek(r[2])
                b.seek(r[1])
                assert d.read(r[3]) == b.read(r[3]), name
                checked += 1
    assert checked > 0

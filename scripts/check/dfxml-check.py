#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hold e2map's DFXML (scan --format dfxml) to the kernel and to fiwalk.

  dfxml-check.py mount E2MAP.xml MOUNTDIR [DISK_OFFSET]
      every fileobject against the live read-only mount: lstat's inode,
      size, mode, nlink, uid, gid and times, a regular file's digests
      against its bytes read there, and, for regular files and
      directories, the byte runs against FS_IOC_FIEMAP's extents
  dfxml-check.py fiwalk E2MAP.xml FIWALK.xml[.gz]
      every name both list: inode, size, mode, owner, times, byte runs
      and the digests both have (fiwalk: md5, sha1)

Byte runs are compared as the bytes they name: data runs (fs_offset,
img_offset) joined where contiguous, and what reads as zeroes (fiwalk's
and e2map's fill='0': holes and unwritten extents) as the rest of the
file up to its size.  Exit 1 with one line per difference.  Python's
standard library only: the functions are the pytest suite's too
(python/tests/test_dfxml.py).
"""
import datetime
import fcntl
import gzip
import hashlib
import os
import stat
import struct
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML}"
STAT_FIELDS = ("inode", "filesize", "mode", "nlink", "uid", "gid")
TIMES = ("mtime", "ctime", "atime", "crtime")


def parse(path_or_bytes):
    """{filename: fileobject dict} and the volume's partition offset.
    A fileobject dict: its text fields, 'errors' (e2map's comments), 'runs' (data runs as [file_offset,
    fs_offset, img_offset, len], 'resident', or fills as [file_offset,
    None, None, len]) and 'hashes' {type: hex}."""
    # e2map says where the kernel fails in comments: kept, as 'errors'.
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    if isinstance(path_or_bytes, bytes):
        root = ET.fromstring(path_or_bytes, parser)
    else:
        opener = gzip.open if str(path_or_bytes).endswith(".gz") else open
        with opener(path_or_bytes, "rb") as f:
            root = ET.parse(f, parser).getroot()
    files = {}
    for fo in root.iter(NS + "fileobject"):
        d = {"errors": [c.text for c in fo if c.tag is ET.Comment]}
        for child in fo:
            if child.tag is ET.Comment:
                continue
            tag = child.tag[len(NS):] if child.tag.startswith(NS) else child.tag
            if tag not in ("byte_runs", "hashdigest", "parent_object"):
                d[tag] = child.text or ""
        d["runs"] = []
        for br in fo.iter(NS + "byte_run"):
            a = br.attrib
            if a.get("type") == "resident":
                d["runs"].append("resident")
            elif "fs_offset" in a:
                d["runs"].append([int(a["file_offset"]), int(a["fs_offset"]),
                                  int(a["img_offset"]), int(a["len"])])
            else:
                d["runs"].append([int(a.get("file_offset", 0)), None, None,
                                  int(a["len"])])
        d["hashes"] = {h.get("type"): (h.text or "").lower()
                       for h in fo.iter(NS + "hashdigest")}
        files.setdefault(d.get("filename", ""), d)
    vol = root.find(NS + "volume")
    off = int(vol.get("offset", "0")) if vol is not None else 0
    return files, off


def data_runs(runs):
    """The data runs joined where contiguous in the file and on disk:
    [(file_offset, fs_offset, len)]."""
    out = []
    for r in runs:
        if r == "resident" or r[1] is None:
            continue
        if out and out[-1][0] + out[-1][2] == r[0] and \
                out[-1][1] + out[-1][2] == r[1]:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + r[3])
        else:
            out.append((r[0], r[1], r[3]))
    return out


def fiemap_runs(extents, size):
    """FIEMAP's extents [(logical, physical, length, flags)] as DFXML's
    data runs: written extents below SIZE, clipped to it (unwritten ones
    read as zeroes: a fill); 'resident' for inline data."""
    runs = []
    for lo, ph, ln, fl in extents:
        if fl & 0x200:                     # FIEMAP_EXTENT_DATA_INLINE
            return ["resident"] if size else []
        if fl & 0x800 or lo >= size:       # FIEMAP_EXTENT_UNWRITTEN
            continue
        runs.append([lo, ph, None, min(ln, size - lo)])
    return runs


def fiemap(path):
    """FS_IOC_FIEMAP of PATH, whole: [(logical, physical, length, flags)]."""
    count = 4096
    buf = bytearray(32 + 56 * count)
    struct.pack_into("=QQIIII", buf, 0, 0, 0xFFFFFFFFFFFFFFFF, 0, 0, count, 0)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        fcntl.ioctl(fd, 0xC020660B, buf)
    finally:
        os.close(fd)
    mapped = struct.unpack_from("=I", buf, 20)[0]
    out = []
    for i in range(mapped):
        lo, ph, ln = struct.unpack_from("=QQQ", buf, 32 + 56 * i)
        fl = struct.unpack_from("=I", buf, 32 + 56 * i + 40)[0]
        out.append((lo, ph, ln, fl))
    return out


def iso(sec):
    return datetime.datetime.fromtimestamp(
        int(sec), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def covers(runs, size):
    """Data, fill and resident runs together cover [0, SIZE) once."""
    if runs == ["resident"]:
        return True
    at = 0
    for r in runs:
        if r == "resident" or r[0] != at:
            return False
        at += r[3]
    return at == size or (not runs and size == 0)


def check_runs(name, obj, want, off, out):
    """OBJ's byte runs against WANT (fiemap_runs' or another DFXML's)."""
    got = obj["runs"]
    for r in got:
        if r != "resident" and r[1] is not None and r[2] != r[1] + off:
            out.append("%s: img_offset %d is not fs_offset %d + %d"
                       % (name, r[2], r[1], off))
    if (got == ["resident"]) != (want == ["resident"]):
        out.append("%s: resident %s, want %s" % (name, got, want))
    elif data_runs(got) != data_runs(want):
        out.append("%s: data runs %s, want %s"
                   % (name, data_runs(got)[:4], data_runs(want)[:4]))


def check_hashes(name, obj, path, out):
    """OBJ's digests against PATH's bytes as read(2) gives them."""
    if not obj["hashes"]:
        return
    hs = {t: hashlib.new(t) for t in obj["hashes"]}
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                for h in hs.values():
                    h.update(block)
    except OSError as e:
        out.append("%s: digests, but the mount's read fails: %s" % (name, e))
        return
    for t, h in hs.items():
        if h.hexdigest() != obj["hashes"][t]:
            out.append("%s: %s %s, mount %s" % (name, t, obj["hashes"][t],
                                                h.hexdigest()))


def check_mount(e2, off, mnt):
    out = []
    for name, obj in sorted(e2.items()):
        path = os.path.join(mnt, name)
        try:
            st = os.lstat(path)
        except OSError as e:
            out.append("%s: lstat on the mount: %s" % (name, e))
            continue
        want = {"inode": st.st_ino, "filesize": st.st_size,
                "mode": stat.S_IMODE(st.st_mode), "nlink": st.st_nlink,
                "uid": st.st_uid, "gid": st.st_gid}
        for k in STAT_FIELDS:
            if k in obj and int(obj[k]) != want[k]:
                out.append("%s: %s %s, mount %s" % (name, k, obj[k], want[k]))
        for k, v in (("mtime", st.st_mtime), ("ctime", st.st_ctime),
                     ("atime", st.st_atime)):
            if k in obj and obj[k] != iso(v):
                out.append("%s: %s %s, mount %s" % (name, k, obj[k], iso(v)))
        if stat.S_ISREG(st.st_mode):
            check_hashes(name, obj, path, out)
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
            continue
        try:
            ext = fiemap(path)
        except OSError as e:
            out.append("%s: FIEMAP on the mount: %s" % (name, e))
            continue
        check_runs(name, obj, fiemap_runs(ext, st.st_size), off, out)
        if obj["runs"] and not obj["errors"] and \
                not covers(obj["runs"], st.st_size):
            out.append("%s: runs do not cover its %d bytes"
                       % (name, st.st_size))
    return out


def check_fiwalk(e2, off, fw):
    out = []
    for name, obj in sorted(e2.items()):
        other = fw.get(name)
        if other is None:
            continue
        for k in STAT_FIELDS + TIMES:
            if k in obj and k in other and obj[k] != other[k]:
                out.append("%s: %s %s, fiwalk %s" % (name, k, obj[k], other[k]))
        # fiwalk stops listing runs where TSK gives up (huge sparse
        # files); e2map maps no symlink (no open reaches one).
        if obj.get("name_type") in ("r", "d") and \
                (other["runs"] or not obj["runs"]):
            check_runs(name, obj, other["runs"], off, out)
        for t, h in obj["hashes"].items():
            if t in other["hashes"] and other["hashes"][t] != h:
                out.append("%s: %s %s, fiwalk %s"
                           % (name, t, h, other["hashes"][t]))
    return out


def main(argv):
    if len(argv) < 4 or argv[1] not in ("mount", "fiwalk"):
        sys.stderr.write(__doc__)
        return 2
    e2, off = parse(argv[2])
    if argv[1] == "mount":
        bad = check_mount(e2, off, argv[3])
    else:
        bad = check_fiwalk(e2, off, parse(argv[3])[0])
    for line in bad:
        print(line)
    print("dfxml-check %s: %d fileobjects, %d differences"
          % (argv[1], len(e2), len(bad)), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Damage one fast commit of a dirty image, in place, for --replay's tests.

    scripts/gen/fc-damage.py IMAGE first|last

Flips one byte inside the first tag of the FIRST or of the LAST fast
commit that the journal's fast-commit area holds (a commit is the tags up
to a tail whose tid is the head's).  The kernel then refuses the mount
(a bad first commit: EBADMSG), or replays the commits before the bad one
and stops (ext4_fc_replay_scan).  The journal is inode 8; its blocks are
found with debugfs bmap.
"""
import struct
import subprocess
import sys

TAIL, HEAD = 8, 9


def bmap(img, n):
    out = subprocess.run(["debugfs", "-R", f"bmap <8> {n}", img],
                         capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1])


def tags(img, f, bs, first, nblocks):
    """(position, tag, value) of each tag from the area's start, in order."""
    for k in range(nblocks):
        pos = bmap(img, first + k) * bs
        f.seek(pos)
        block = f.read(bs)
        p = 0
        while p + 4 <= bs:
            tag, length = struct.unpack("<HH", block[p:p + 4])
            if not 1 <= tag <= HEAD or p + 4 + length > bs:
                return
            yield pos + p, tag, block[p + 4:p + 4 + length]
            p += 4 + length


def main():
    img, which = sys.argv[1], sys.argv[2]
    with open(img, "r+b") as f:
        f.seek(1024 + 24)
        bs = 1024 << struct.unpack("<I", f.read(4))[0]
        f.seek(bmap(img, 0) * bs)
        jsb = f.read(1024)
        maxlen = struct.unpack(">I", jsb[16:20])[0]
        nfc = struct.unpack(">I", jsb[84:88])[0] or 256
        first = maxlen - nfc + 1
        starts, tid, start = [], None, None
        for pos, tag, val in tags(img, f, bs, first, nfc - 1):
            if tag == HEAD:
                tid = struct.unpack("<I", val[4:8])[0]
            elif tag == TAIL:
                if struct.unpack("<I", val[0:4])[0] != tid:
                    break
                if start is not None:
                    starts.append(start)
                start = None
            elif start is None:
                start = pos
        if not starts:
            sys.exit(f"fc-damage: {img}: no fast commit")
        at = starts[0] if which == "first" else starts[-1]
        f.seek(at + 5)
        b = f.read(1)[0]
        f.seek(at + 5)
        f.write(bytes([b ^ 0x55]))


if __name__ == "__main__":
    main()

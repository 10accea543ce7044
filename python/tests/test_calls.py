# SPDX-License-Identifier: GPL-2.0-or-later
"""Every kernel recording of open/lseek/FIEMAP calls (testdata's .calls,
tests/calls.h's format) replayed through the binding, line by line: the
same answers as the kernel gave on the mount, from Python."""
import os
import re

import pytest

import e2map
from e2map._lib import errno_name
from conftest import read_text, recorded

WHENCE = {"SET": 0, "CUR": 1, "END": 2, "DATA": 3, "HOLE": 4}
NAMES = {v: k for k, v in WHENCE.items()}
NOT_COPIED = 0xDEADBEEF


def unescape(path: str) -> bytes:
    raw = path.encode("utf-8", "surrogateescape")
    return re.sub(rb"\\x([0-9a-fA-F]{2})",
                  lambda m: bytes([int(m.group(1), 16)]), raw)


def ret(e: OSError) -> str:
    return "-" + errno_name(-e.errno)


class Replay:
    def __init__(self, img: e2map.Image, legacy: bool) -> None:
        self.img, self.legacy, self.f = img, legacy, None

    def open(self, path: str, nofollow: bool) -> str:
        if self.f is not None:
            self.f.close()
            self.f = None
        try:
            self.f = self.img.open(unescape(path),
                                   follow_symlinks=not nofollow)
        except OSError as e:
            return ret(e)
        return "0"

    def lseek(self, off: int, whence: int) -> str:
        try:
            return str(self.f.seek(off, whence))
        except OSError as e:
            return ret(e)

    def fiemap(self, start, length, flags, count) -> list:
        try:
            fm = self.f.fiemap_ioctl(start, length, flags, count)
        except e2map.FiemapError as e:
            mapped = NOT_COPIED if e.mapped is None else e.mapped
            return ["%s 0x%x %d" % (ret(e), e.flags, mapped)]
        out = ["0 0x%x %d" % (fm.flags, fm.mapped)]
        out += ["ext %d %d %d 0x%x" % x for x in fm.extents]
        return out


def calls(text: str):
    """(line number, call, answer lines) of each recorded call."""
    cur = None
    for n, line in enumerate(text.split("\n"), 1):
        body = line.split(" #", 1)[0].strip()
        if not body or body.startswith("#"):
            continue
        if body.startswith("ext ") and cur is not None:
            cur[2].append(body)
            continue
        if cur is not None:
            yield cur
        call, _, answer = body.partition(" = ")
        cur = (n, call, [answer.strip()])
    if cur is not None:
        yield cur


def run(r: Replay, call: str) -> list:
    tok = call.split(" ")
    if tok[0] in ("open", "open-nofollow"):
        path = call[len(tok[0]) + 1:]
        return [r.open(path, tok[0] == "open-nofollow" or r.legacy)]
    if r.f is None:
        return ["SKIP"]
    if tok[0] == "lseek":
        whence = WHENCE[tok[2]] if tok[2] in WHENCE else int(tok[2])
        return [r.lseek(int(tok[1]), whence)]
    assert tok[0] == "fiemap", call
    length = 2**64 - 1 if tok[2] == "max" else int(tok[2])
    return r.fiemap(int(tok[1]), length, int(tok[3], 16), int(tok[4]))


@pytest.mark.parametrize("rec,packed", recorded(".calls.gz") +
                         recorded(".calls"))
def test_calls_answer_as_the_kernel(rec, packed, unpacked):
    text = read_text(rec)
    opts = re.search(r"^# e2map-options: *(\S+)", text, re.M)
    kw = {}
    if opts:
        for o in opts.group(1).split(","):
            k, _, v = o.partition("=")
            kw[k] = int(v) if v.isdigit() else (v or True)
    diffs, n = [], 0
    with e2map.open(unpacked(packed), **kw) as img:
        legacy = not re.search(r"^# calls-format: 2( |$)", text, re.M)
        r = Replay(img, legacy)
        for lineno, call, expected in calls(text):
            n += 1
            got = run(r, call)
            if got != expected and len(diffs) < 5:
                diffs.append("%s:%d: %s\n  kernel: %s\n  e2map:  %s" % (
                    rec.name, lineno, call, expected, got))
    assert n > 0
    assert not diffs, "\n".join(diffs)

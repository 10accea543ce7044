# SPDX-License-Identifier: GPL-2.0-or-later
"""The fleet's record formats against the CLI's, byte for byte (csv,
body) or event for event (timesketch), on every testdata image with a
scan recording (the CLI's formats are held to the kernel by the C suite:
body through mactime against the mount's)."""
import json
import subprocess

import pytest

import e2map
from e2map import formats
from conftest import e2map_cli, recorded


def cli(img: str, fmt: str) -> bytes:
    return subprocess.run([e2map_cli(), "scan", "-q", "--format", fmt, img],
                          stdout=subprocess.PIPE).stdout


@pytest.mark.parametrize("rec,packed", recorded(".scan.gz"))
def test_formats_are_the_clis(rec, packed, unpacked):
    img = unpacked(packed)
    csv, body, events = [formats.CSV_HEAD.encode()], [], []
    jsonl = []
    with e2map.open(img) as image:
        for r in image.scan():
            jsonl.append(json.loads(formats.jsonl(r)))
            assert jsonl[-1] == r.asdict()
            csv.append(formats.csv(r).encode("utf-8", "surrogateescape"))
            target = None
            if r.atime is not None and r.type == "symlink":
                try:
                    target = image.readlink(r.ino)[:4096]
                except OSError:
                    pass
            body.append(formats.body(r, target))
            events.extend(formats.timesketch(r))
    assert jsonl == [json.loads(l) for l in cli(img, "jsonl").splitlines()][:-1]
    assert b"".join(csv) == cli(img, "csv")
    assert b"".join(body) == cli(img, "body")
    want = [json.loads(l) for l in cli(img, "timesketch").splitlines()]
    assert events == want
    assert all(list(e)[:4] == ["message", "datetime", "timestamp",
                               "timestamp_desc"] for e in events)

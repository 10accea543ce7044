# SPDX-License-Identifier: GPL-2.0-or-later
"""What the binding's tests share: testdata's images, unpacked once a run,
and the e2map CLI of the same build ($E2MAP)."""
import bz2
import gzip
import hashlib
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = Path(os.environ.get("E2MAP_TESTDATA", ROOT / "testdata"))
CORPUS = TESTDATA / "corpus"


def e2map_cli() -> str:
    cli = os.environ.get("E2MAP")
    if not cli:
        pytest.skip("no $E2MAP: run through make check-python")
    return cli


def corpus_image(name: str):
    """A corpus image shipped in testdata/corpus/e2fsprogs, or None."""
    for ext in (".img.gz", ".img.bz2"):
        p = CORPUS / "e2fsprogs" / (name + ext)
        if p.exists():
            return p
    return None


@pytest.fixture(scope="session")
def unpacked(tmp_path_factory):
    """unpacked(PACKED) -> the image's path in a scratch directory, made
    once a session, its sha256 checked again at the end (never written)."""
    done = {}
    root = tmp_path_factory.mktemp("images")

    def get(packed: Path) -> str:
        if packed not in done:
            out = root / (packed.parent.name + "-" + packed.name.rsplit(".", 1)[0])
            opener = bz2.open if packed.suffix == ".bz2" else gzip.open
            with opener(packed, "rb") as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            done[packed] = (str(out), _sha256(out))
        return done[packed][0]
    yield get
    for path, digest in done.values():
        assert _sha256(Path(path)) == digest, path + " was written"


def _sha256(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _sampled(params):
    """Every Nth of PARAMS with E2MAP_PY_SAMPLE=N: under the sanitizers
    the interpreter runs uninstrumented but every C call is checked, ten
    times slower; the C suite replays every recording there already."""
    n = int(os.environ.get("E2MAP_PY_SAMPLE", "1") or 1)
    return params[::n] if n > 1 else params


def recorded(pattern: str):
    """testdata's and the corpus's recordings named *PATTERN, with the
    packed image each belongs to (the corpus's only where it is shipped)."""
    out = []
    for rec in sorted(TESTDATA.glob("*" + pattern)):
        name = rec.name[:rec.name.index(".")]
        img = TESTDATA / (name + ".img.gz")
        if img.exists():
            out.append(pytest.param(rec, img, id=name))
    for rec in sorted(CORPUS.glob("*" + pattern)):
        name = rec.name[:rec.name.index(".")]
        img = corpus_image(name)
        if img is not None:
            out.append(pytest.param(rec, img, id="corpus/" + name))
    return _sampled(out)


def read_text(p: Path) -> str:
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")

# SPDX-License-Identifier: GPL-2.0-or-later
"""The package says it is typed (py.typed): mypy, as a user's mypy reads
it, finds nothing to complain of in it."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import e2map


def test_the_package_type_checks():
    mypy = shutil.which("mypy")
    if not mypy:
        pytest.skip("no mypy (Debian's mypy package)")
    pkg = Path(e2map.__file__).parent
    p = subprocess.run([mypy, "--ignore-missing-imports", "--no-incremental",
                        "--cache-dir", os.devnull, "-p", "e2map"],
                       cwd=pkg.parent, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout

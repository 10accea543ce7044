#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record what The Sleuth Kit's fiwalk writes as DFXML for one image (its
# byte runs, stat fields and MD5/SHA-1 digests), for
# scripts/check/dfxml-check.py and python/tests/test_dfxml.py to hold
# `e2map scan --format dfxml` to where fiwalk reads the file:
#
#   OUTDIR/NAME.fiwalk.xml.gz   fiwalk -X's document, as written
#
#   scripts/record/fiwalk.sh IMAGE.img[.gz|.bz2] OUTDIR
#
# Needs fiwalk (sleuthkit); no mount, no root.
set -euo pipefail
export LC_ALL=C

# shellcheck source=scripts/lib/record.sh
. "$(dirname "$0")/../lib/record.sh"
RECORD_ROOT=no record_start fiwalk "$@"
(cd "$tmp" && fiwalk -X "$name.xml" "$name.img" >/dev/null)
gzip -9 -n <"$tmp/$name.xml" >"$out/$name.fiwalk.xml.gz"

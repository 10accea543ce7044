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

[ $# = 2 ] || { echo "usage: $0 IMAGE.img[.gz|.bz2] OUTDIR" >&2; exit 2; }
src=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
name=$(basename "$src")
name=${name%.gz}
name=${name%.bz2}
name=${name%.img}
tmp=$(mktemp -d /tmp/record-fiwalk.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
case "$src" in
*.gz) gzip -dc "$src" >"$tmp/$name.img" ;;
*.bz2) bzip2 -dc "$src" >"$tmp/$name.img" ;;
*) cp "$src" "$tmp/$name.img" ;;
esac
(cd "$tmp" && fiwalk -X "$name.xml" "$name.img" >/dev/null)
gzip -9 -n <"$tmp/$name.xml" >"$out/$name.fiwalk.xml.gz"

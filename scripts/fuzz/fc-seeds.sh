#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The fast-commit fuzz target's base image and seeds: BASE is testdata's
# dirty-fc-4k, decompressed; each seed is the fast-commit area (the
# journal's blocks after the log) of one of testdata's dirty-fc images.
#
#   scripts/fuzz/fc-seeds.sh BASE.img SEEDDIR
set -e
base=$1
out=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out" "$(dirname "$base")"
gzip -dc "$here/testdata/dirty-fc-4k.img.gz" > "$base"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for img in "$here"/testdata/dirty-fc-*.img.gz; do
	name=$(basename "$img" .img.gz)
	gzip -dc "$img" > "$tmp/img"
	debugfs -R "dump <8> $tmp/journal" "$tmp/img" 2>/dev/null
	python3 - "$tmp/journal" "$out/$name" <<'PY'
import struct, sys
j = open(sys.argv[1], "rb").read()
bs, maxlen = struct.unpack(">II", j[12:20])
n = struct.unpack(">I", j[84:88])[0] or 256
open(sys.argv[2], "wb").write(j[(maxlen - n + 1) * bs:maxlen * bs])
PY
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Show e2map on the bundled sample image: seek, fiemap and filefrag for a
# few files.  No root needed; the image is a scratch copy.
#
#   scripts/run-sample.sh [E2MAP_BINARY]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
e2map=${1:-$here/../cmd/e2map}
testdata=${E2MAP_TESTDATA:-$here/../testdata}

gz=$testdata/sample.img.gz
if [ ! -f "$gz" ]; then
	gz=$(ls "$testdata"/*.img.gz 2>/dev/null | head -n 1 || true)
fi
if [ -z "$gz" ] || [ ! -f "$gz" ]; then
	echo "run-sample: no image in $testdata (expected sample.img.gz)" >&2
	exit 1
fi
[ -x "$e2map" ] || { echo "run-sample: no e2map binary at $e2map (run make)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/e2map-sample.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
img=$tmp/$(basename "${gz%.gz}")
gzip -dc "$gz" > "$img"

# The files to show: a few non-empty regular files of the root directory
# (debugfs reads the scratch copy; no mount needed), else the root itself.
files=$(debugfs -R 'ls -p /' "$img" 2>/dev/null |
	awk -F/ '$3 ~ /^100/ && $7 > 0 && $6 !~ /[[:space:]]/ { print "/" $6 }' |
	head -n 4 || true)
[ -n "$files" ] || files=/

echo "e2map on $(basename "$gz") (scratch copy $img)"
for f in $files; do
	for cmd in "seek -a -r" "fiemap -v" "filefrag -v"; do
		echo
		if [ "${cmd%% *}" = seek ]; then
			echo "\$ e2map $cmd $(basename "$img") $f 0"
			"$e2map" $cmd "$img" "$f" 0 || true
		else
			echo "\$ e2map $cmd $(basename "$img") $f"
			"$e2map" $cmd "$img" "$f" || true
		fi
	done
done

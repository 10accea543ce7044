#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2map check -j4 and scan -j4 (the workers of parscan.c) under
# ThreadSanitizer, over every testdata image and the shipped corpus: any
# report fails the run.
#
#   scripts/check/tsan-smoke.sh build/tsan/cmd/e2map
set -uo pipefail
[ $# = 1 ] || { echo "usage: $0 TSAN-BUILT-E2MAP" >&2; exit 2; }
e2map=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/tsan-smoke.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# exitcode 66: a race (or any TSan report), told apart from check's own 0/1
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
n=0
bad=0
for src in "$here"/../../testdata/*.img.gz "$here"/../../testdata/corpus/e2fsprogs/*.img.gz; do
	gzip -dc "$src" >"$tmp/img" 2>/dev/null || continue
	for c in "check -j4" "scan -j4 -q --format jsonl"; do
		"$e2map" $c "$tmp/img" >/dev/null 2>"$tmp/err"
		st=$?
		n=$((n + 1))
		if [ $st -gt 2 ]; then
			echo "tsan-smoke: $c $(basename "$src"): exit $st" >&2
			head -30 "$tmp/err" >&2
			bad=$((bad + 1))
		fi
	done
done
echo "tsan-smoke: $((n - bad)) passed, $bad failed"
[ $bad = 0 ]

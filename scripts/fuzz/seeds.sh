#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed inputs for the fuzz target: the small testdata images and the
# e2fsprogs corpus images (decompressed), each at most 4 MiB.  The corpus
# is the shipped testdata/corpus/e2fsprogs, then the directories of
# $E2MAP_CORPUS (colon-separated; "none" adds none), or, when it is unset,
# ../shared/corpus/e2fsprogs if present; a name already seeded is skipped.
set -e
out=$1
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
dirs="$here/testdata/corpus/e2fsprogs"
case "${E2MAP_CORPUS:-}" in
none) ;;
"") [ -d "$here/../shared/corpus/e2fsprogs" ] &&
	dirs="$dirs:$here/../shared/corpus/e2fsprogs" ;;
*) dirs="$dirs:$E2MAP_CORPUS" ;;
esac
seed() {
	f=$1
	name=$(basename "$f")
	name=${name%.gz}
	name=${name%.bz2}
	[ -f "$out/$name" ] && return 0
	case "$f" in
	*.gz) gzip -dc "$f" > "$out/$name.tmp" ;;
	*.bz2) bzip2 -dc "$f" > "$out/$name.tmp" ;;
	*) cat "$f" > "$out/$name.tmp" ;;
	esac
	if [ "$(stat -c %s "$out/$name.tmp")" -le 4194304 ]; then
		mv "$out/$name.tmp" "$out/$name"
	else
		rm -f "$out/$name.tmp"
	fi
}
for f in "$here"/testdata/*.img.gz; do
	[ -f "$f" ] && seed "$f"
done
IFS=:
for d in $dirs; do
	[ -d "$d" ] || { echo "fuzz-seeds: no corpus directory $d" >&2; exit 1; }
	for f in "$d"/*.img.gz "$d"/*.img.bz2 "$d"/*.img; do
		[ -f "$f" ] && seed "$f"
	done
done
exit 0

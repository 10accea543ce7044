#!/bin/sh
# Seed inputs for the fuzz target: the small testdata images and the
# e2fsprogs corpus images (decompressed), each at most 4 MiB.
set -e
out=$1
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${E2MAP_CORPUS:-$here/../shared/corpus/e2fsprogs}
for f in "$here"/testdata/*.img.gz "$corpus"/*.img.gz "$corpus"/*.img.bz2; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	[ -f "$out/$name" ] && continue
	case "$f" in
	*.gz) gzip -dc "$f" > "$out/$name.tmp" ;;
	*.bz2) bzip2 -dc "$f" > "$out/$name.tmp" ;;
	esac
	if [ "$(stat -c %s "$out/$name.tmp")" -le 4194304 ]; then
		mv "$out/$name.tmp" "$out/$name"
	else
		rm -f "$out/$name.tmp"
	fi
done

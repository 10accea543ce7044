#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record the kernel's view of what differs between two images of one
# filesystem (mkdiff.sh's pairs), for tests/test_diff.c to hold
# `e2map diff` to:
#
#   OUTDIR/NAME.rsync.gz  rsync -n -i -a -c -H -X -A --delete from B's
#                         read-only mount to A's: its itemized lines, sorted
#   OUTDIR/NAME.cmp.gz    PATH OFFSET LENGTH: for every regular file at the
#                         same path in both whose bytes differ, the runs of
#                         blocks that differ (block-aligned; a run ending at
#                         the longer file's end is cut there), sorted
#
#   scripts/record/diff.sh NAME-a.img[.gz] NAME-b.img[.gz] OUTDIR
#   for n in 4k 1k bigalloc inline ext3; do
#       scripts/record/diff.sh testdata/diff-$n-{a,b}.img.gz testdata; done
#
# Needs root (loop mounts), rsync (with ACL and xattr support), python3.
set -eu -o pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
[ $# = 3 ] || { echo "usage: $0 NAME-a.img[.gz] NAME-b.img[.gz] OUTDIR" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "record-diff: needs root (loop mounts)" >&2; exit 2; }
mkdir -p "$3"
out=$(cd "$3" && pwd)
name=$(basename "$1")
name=${name%.gz}
name=${name%.img}
name=${name%-a}
tmp=$(mktemp -d /tmp/record-diff.XXXXXX)
cleanup() {
	local s l
	for s in a b; do
		! mountpoint -q "$tmp/$s" || umount "$tmp/$s" || true
		for l in $(losetup -j "$tmp/$s.img" 2>/dev/null | cut -d: -f1); do
			losetup -d "$l" || true
		done
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
for s in a b; do
	src=$1
	[ $s = a ] || src=$2
	case "$src" in
	*.gz) gzip -dc "$src" >"$tmp/$s.img" ;;
	*) cp --sparse=always "$src" "$tmp/$s.img" ;;
	esac
	chmod 0444 "$tmp/$s.img"
	mkdir "$tmp/$s"
	mount -o loop,ro,noload "$tmp/$s.img" "$tmp/$s" 2>/dev/null ||
		mount -o loop,ro "$tmp/$s.img" "$tmp/$s"
done
bs=$(dumpe2fs -h "$tmp/a.img" 2>/dev/null | awk '/^Block size:/ {print $3}')
rsync -n -i -a -c -H -X -A --delete "$tmp/b/" "$tmp/a/" | sort | gzip -9n >"$out/$name.rsync.gz"
python3 "$here/../gen/diff-ops.py" cmp "$tmp/a" "$tmp/b" "$bs" | sort | gzip -9n >"$out/$name.cmp.gz"
echo "record-diff: $name: $(gzip -dc "$out/$name.rsync.gz" | wc -l) rsync lines," \
	"$(gzip -dc "$out/$name.cmp.gz" | wc -l) cmp ranges" >&2
# mkdiff.sh's record beside the images: the recordings must agree with it.
changes=$(dirname "$1")/$name.changes.jsonl.gz
[ ! -e "$changes" ] ||
	python3 "$here/../gen/diff-ops.py" cross "$changes" "$out/$name.rsync.gz" "$out/$name.cmp.gz"

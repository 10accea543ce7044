#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkdiff.sh OUTDIR
#
# Two images of one filesystem (issue 23, e2map diff): A made through the
# kernel (mke2fs, a read-write loop mount, diff-ops.py build: about 230
# files of every size class, holes, preallocation, hard links, symlinks,
# xattrs and ACLs), B a copy of A (cp --sparse=always) changed through
# the kernel (diff-ops.py change: appends, overwrites in place, punches,
# fallocate, writes into unwritten extents, truncates, chmod/chown/touch,
# xattrs, links added and removed, deletes, new files, a type change,
# renames and moved directories), for each pair:
#   diff-4k        ext4, metadata_csum, 4 KiB blocks
#   diff-1k        ext4 without metadata_csum, 1 KiB blocks
#   diff-bigalloc  ext4, bigalloc, 4 KiB blocks in 16 KiB clusters
#   diff-inline    ext4, inline_data, 4 KiB blocks
#   diff-ext3      ext3, 1 KiB blocks (block maps: no fallocate)
# -> OUTDIR/NAME-a.img.gz, NAME-b.img.gz and NAME.changes.jsonl.gz (schema:
# docs/diff.md).  Each pair is then checked: e2fsck -fn clean on both, both
# mount read-only, and diff-ops.py verify holds every "unchanged" file and
# directory to A (stat with ctime and atime, bytes, xattrs) and finds every
# inode of either side in a line.  B is mounted noatime (the generator's
# reads leave no trace) and both with noinit_itable.
#
#   ONLY=diff-1k scripts/gen/mkdiff.sh testdata    (that pair alone)
#   CHECK=1 scripts/gen/mkdiff.sh testdata  (check the committed ones only)
#
# Needs root (loop mounts), e2fsprogs, python3.  The kernel stamps times
# and generations: a run makes the same trees, not the same bytes.
# scripts/record/diff.sh records rsync's and a byte compare's view of them.
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkdiff root "$@"
mnt=$work/mnt
mnt2=$work/mnt2
mkdir -p "$mnt" "$mnt2"
# Our mounts, then any loop device still on one of our images.
cleanup() {
	local m f l
	for m in "$mnt" "$mnt2"; do umount "$m" 2>/dev/null || true; done
	for f in "$work"/*.img; do
		for l in $(losetup -j "$f" 2>/dev/null | cut -d: -f1); do
			losetup -d "$l" || true
		done
	done
	rm -rf "$work"
}
trap cleanup EXIT
ops=$here/diff-ops.py

# N NAME SIZE MKE2FS-ARGS...
one() {
	local n=$1 name=$2 size=$3 a=$work/$2-a.img b=$work/$2-b.img bs

	shift 3
	# shellcheck disable=SC2254
	case $name in ${ONLY:-*}) ;; *) return 0 ;; esac
	gen_mkfs "$n" "$a" "$size" -N 1024 -m 0 "$@"
	bs=$(dumpe2fs -h "$a" 2>/dev/null | awk '/^Block size:/ {print $3}')
	mount -o loop,noinit_itable "$a" "$mnt"
	python3 "$ops" build "$mnt" --bs "$bs"
	umount "$mnt"
	cp --sparse=always "$a" "$b"
	mount -o loop,noatime,noinit_itable "$b" "$mnt"
	python3 "$ops" change "$mnt" "$work/$name.changes.jsonl" --bs "$bs"
	umount "$mnt"
	python3 "$ops" finish "$b" "$work/$name.changes.jsonl" "$name"
	check "$a" "$b" "$work/$name.changes.jsonl.gz"
	gzip -9n <"$a" >"$out/$name-a.img.gz"
	gzip -9n <"$b" >"$out/$name-b.img.gz"
	cp "$work/$name.changes.jsonl.gz" "$out/"
	echo "mkdiff: $name: $(stat -c %s "$out/$name-a.img.gz") + $(stat -c %s "$out/$name-b.img.gz") bytes" >&2
}

# A B CHANGES: e2fsck clean, both mount read-only, the record is whole.
check() {
	e2fsck -fn "$1" >/dev/null
	e2fsck -fn "$2" >/dev/null
	mount -o loop,ro,noload "$1" "$mnt"
	mount -o loop,ro,noload "$2" "$mnt2"
	python3 "$ops" verify "$mnt" "$mnt2" "$3" ||
		{ umount "$mnt" "$mnt2"; exit 1; }
	umount "$mnt" "$mnt2"
}

# CHECK=1: check OUTDIR's pairs against their records, make nothing.
if [ "${CHECK:-0}" = 1 ]; then
	for gz in "$out"/diff-*.changes.jsonl.gz; do
		name=$(basename "$gz" .changes.jsonl.gz)
		# shellcheck disable=SC2254
		case $name in ${ONLY:-*}) ;; *) continue ;; esac
		gzip -dc "$out/$name-a.img.gz" >"$work/a.img"
		gzip -dc "$out/$name-b.img.gz" >"$work/b.img"
		check "$work/a.img" "$work/b.img" "$gz"
		rm -f "$work/a.img" "$work/b.img"
	done
	exit 0
fi

one 71 diff-4k 16M -t ext4 -b 4096 -J size=4
one 72 diff-1k 8M -t ext4 -b 1024 -J size=2 -O ^metadata_csum
one 73 diff-bigalloc 16M -t ext4 -b 4096 -C 16384 -J size=4 -O bigalloc
one 74 diff-inline 16M -t ext4 -b 4096 -J size=4 -O inline_data
one 75 diff-ext3 8M -t ext3 -b 1024 -J size=2

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Dirty journals for --replay: each image is mounted read-write on loop,
# given a baseline and unmounted clean; mounted again, changed (write,
# extend, truncate, delete, create, xattrs; a fragmented file deleted after
# its extent leaf was journalled, so that the journal holds revoke
# records), each change committed with fsync (not sync(1): that would also
# write the journalled metadata in place), and the image file copied while
# still mounted.  The copy's superblock says needs_recovery and its
# journal holds the committed transactions, not yet checkpointed.
#
#   scripts/mkdirty.sh OUTDIR      -> OUTDIR/dirty-*.img.gz
#
# Needs root (loop mounts), mke2fs, xfs_io, setfattr, dumpe2fs.
. "$(dirname "$0")/gen-common.sh"
gen_start mkdirty root "$@"
mnt=$work/mnt
mkdir -p "$mnt"

# N NAME SIZE MOUNT-OPTIONS MKE2FS-ARGS... (N: gen_mkfs's UUID number)
images() {
	one 71 dirty-ext3-1k 8M "" -t ext3 -b 1024
	one 72 dirty-ext4-1k 8M "" -t ext4 -b 1024 -O ^metadata_csum,^64bit
	one 73 dirty-ext4-4k 16M "" -t ext4 -b 4096 -O ^metadata_csum,^64bit
	one 74 dirty-csum-4k 16M "" -t ext4 -b 4096
	one 75 dirty-async-1k 8M journal_async_commit,data=writeback -t ext4 -b 1024
}

# A file of N blocks, every other block written: an extent each.
fragmented() {
	local f=$1 n=$2 bs=$3 i

	for ((i = 0; i < n; i += 2)); do
		xfs_io -f -c "pwrite -q -S 0x$((i % 90 + 10)) $((i * bs)) $bs" "$f"
	done
}

baseline() {
	local bs=$1 i

	xfs_io -f -c "pwrite -q -S 0x61 0 $((3 * bs))" "$mnt/a"
	fragmented "$mnt/frag" 24 "$bs"
	fragmented "$mnt/gone" 24 "$bs"
	mkdir -p "$mnt/d/sub"
	for i in $(seq 1 40); do echo "$i" > "$mnt/d/file-with-a-long-name-$i"; done
	echo x > "$mnt/d/sub/x"
	echo keep > "$mnt/attrs"
	setfattr -n user.small -v 1 "$mnt/attrs"
	setfattr -n user.big -v "$(head -c 600 /dev/zero | tr '\0' b)" "$mnt/attrs"
}

# The changes, each committed by an fsync of what it touched.
changes() {
	local bs=$1 i

	xfs_io -c "pwrite -q -S 0x62 $((3 * bs)) $((5 * bs))" -c fsync "$mnt/a"
	xfs_io -c "truncate $((3 * bs))" -c fsync "$mnt/frag"
	fragmented "$mnt/new" 16 "$bs"
	xfs_io -c fsync "$mnt/new"
	rm "$mnt/gone"
	xfs_io -c fsync "$mnt"
	xfs_io -f -c "pwrite -q -S 0x63 0 $((12 * bs))" -c fsync "$mnt/reuse"
	for i in $(seq 1 40 | awk 'NR % 3 == 0'); do rm "$mnt/d/file-with-a-long-name-$i"; done
	rm -r "$mnt/d/sub"
	xfs_io -c fsync "$mnt/d"
	setfattr -x user.big "$mnt/attrs"
	setfattr -n user.new -v "$(head -c 700 /dev/zero | tr '\0' n)" "$mnt/a"
	xfs_io -c fsync "$mnt/attrs" "$mnt/a"
	# Unwritten extents where there are extents (not on ext3).
	xfs_io -f -c "falloc 0 $((4 * bs))" -c "pwrite -q $bs $bs" -c fsync \
		"$mnt/prealloc" 2>/dev/null ||
		xfs_io -f -c "pwrite -q $bs $bs" -c fsync "$mnt/prealloc"
}

one() {
	local n=$1 name=$2 size=$3 mopts=$4 img=$work/$2.img bs

	shift 4
	gen_mkfs "$n" "$img" "$size" "$@"
	bs=$(dumpe2fs -h "$img" 2>/dev/null | awk '/^Block size:/ {print $3}')
	mount -o loop "$img" "$mnt"
	baseline "$bs"
	umount "$mnt"
	mount -o "loop${mopts:+,$mopts}" "$img" "$mnt"
	changes "$bs"
	# The copy, at once: within dirty_expire (30 s) nothing journalled
	# has been written in place yet.
	cp --sparse=always "$img" "$work/$name.dirty"
	umount "$mnt"
	if ! dumpe2fs -h "$work/$name.dirty" 2>/dev/null |
		grep -q '^Filesystem features:.*needs_recovery'; then
		echo "mkdirty: $name: the copy does not need recovery" >&2
		exit 1
	fi
	debugfs -R logdump "$work/$name.dirty" 2>/dev/null |
		grep -q 'revoke table' ||
		echo "mkdirty: $name: warning: no revoke block in the journal" >&2
	gzip -9n < "$work/$name.dirty" > "$out/$name.img.gz"
	echo "mkdirty: $out/$name.img.gz ($(stat -c %s "$out/$name.img.gz") bytes)" >&2
}

images

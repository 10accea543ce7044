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
#   scripts/gen/mkdirty.sh OUTDIR      -> OUTDIR/dirty-*.img.gz
#   ONLY='dirty-fc-*' scripts/gen/mkdirty.sh OUTDIR   (those images alone)
#
# Then scripts/record/replay.sh on each: NAME.calls.gz, or NAME.refused.
#
# Needs root (loop mounts), mke2fs, xfs_io, setfattr, dumpe2fs.
. "$(dirname "$0")/../lib/gen.sh"
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
	# Fast commits: most changes are logged as logical tags after the
	# last full commit (ext4_fc_commit), replayed by ext4_fc_replay.
	step=fc_changes one 76 dirty-fc-4k 16M commit=600 -t ext4 -b 4096 \
		-J size=4,fast_commit_size=256 -O fast_commit
	step=fc_changes one 77 dirty-fc-1k 16M commit=600 -t ext4 -b 1024 \
		-J size=4,fast_commit_size=256 -O fast_commit,^metadata_csum,^64bit
	step=fc_changes one 78 dirty-fc-inline-4k 16M commit=600 -t ext4 \
		-b 4096 -J size=4,fast_commit_size=256 -O fast_commit,inline_data
	# Neither hash flag in the superblock (cleared before the first
	# mount: the kernel then hashes unsigned), names with bytes >= 0x80
	# in an htree directory before the crash and added by fast commits.
	step=fc_nohash base=fc_nohash_baseline noflags=1 one 79 \
		dirty-fc-nohashflag-4k 16M commit=600 -t ext4 -b 4096 \
		-J size=4,fast_commit_size=256 -O fast_commit
	# The first fast commit damaged (the kernel refuses the mount), and
	# the last (it replays the others and stops there).
	damaged dirty-fc-4k first dirty-fc-badfirst-4k
	damaged dirty-fc-4k last dirty-fc-badlast-4k
}

# SOURCE WHICH NAME: SOURCE's dirty copy with one fast commit damaged.
damaged() {
	# shellcheck disable=SC2254
	case $3 in ${ONLY:-*}) ;; *) return 0 ;; esac
	[ -f "$work/$1.dirty" ] || { echo "mkdirty: $3 needs $1" >&2; exit 1; }
	cp --sparse=always "$work/$1.dirty" "$work/$3.dirty"
	python3 "$here/fc-damage.py" "$work/$3.dirty" "$2"
	gzip -9n < "$work/$3.dirty" > "$out/$3.img.gz"
	echo "mkdirty: $out/$3.img.gz" >&2
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

# What fast commits log: ranges added and deleted, inodes, names created,
# linked and unlinked.  Each fsync of a file is a fast commit of all that
# is pending, but the first after the mount, and an fsync of a directory,
# are full commits (that empty the fast-commit area): the one comes first,
# the other never.  A tree of more than one leaf ("big"), writes into
# unwritten extents ("prealloc"), a directory that grows, a rename, a hard
# link, a new directory, a file deleted, a small directory that grows
# (inline, where inline_data is on).
fc_changes() {
	local bs=$1 i long

	xfs_io -f -c fsync "$mnt/first"
	xfs_io -c "pwrite -q -S 0x62 $((3 * bs)) $((5 * bs))" -c fsync "$mnt/a"
	xfs_io -c "truncate $((3 * bs))" -c fsync "$mnt/frag"
	fragmented "$mnt/new" 16 "$bs"
	xfs_io -c fsync "$mnt/new"
	xfs_io -c "pwrite -q -S 0x65 $((500 * bs)) $((3 * bs))" -c fsync "$mnt/big"
	xfs_io -c "pwrite -q -S 0x66 $((41 * bs)) $bs" -c fsync "$mnt/big"
	xfs_io -c "pwrite -q -S 0x67 $bs $((2 * bs))" -c fsync "$mnt/prealloc"
	mkdir "$mnt/newdir"
	echo hello > "$mnt/newdir/f"
	xfs_io -c fsync "$mnt/newdir/f"
	rm "$mnt/gone"
	mv "$mnt/d/file-with-a-long-name-1" "$mnt/d/renamed"
	xfs_io -c fsync "$mnt/d/renamed"
	ln "$mnt/a" "$mnt/d/a-link"
	xfs_io -c fsync "$mnt/d/a-link"
	# Long names, few: the fast-commit area (1/64 of the journal) holds
	# all the fast commits since the last full one, or they fall back.
	long=$(printf '%0240d' 0)
	for i in $(seq 1 12); do
		echo "$i" > "$mnt/d/$long-$i"
	done
	xfs_io -c fsync "$mnt/d/$long-12"
	# Inline (inline_data): i_block, then system.data, then a block.
	for i in $(seq 1 8); do
		echo "$i" > "$mnt/small/entry-number-$i"
	done
	xfs_io -c fsync "$mnt/small/entry-number-8"
	rm "$mnt/d/file-with-a-long-name-2" "$mnt/frag"
	xfs_io -f -c "pwrite -q -S 0x68 0 $((6 * bs))" -c fsync "$mnt/d/late"
}

# NAME I: the I-th name with bytes >= 0x80 (UTF-8 e-acute, raw 0xff and
# 0x80, Latin-1 e-acute), one in four plain ASCII.
hiname() {
	case $(($2 % 4)) in
	0) printf '%s-\xc3\xa9t\xc3\xa9-%d' "$1" "$2" ;;
	1) printf '%s-\xff\xfe-%d' "$1" "$2" ;;
	2) printf '\x80%s\xe9-%d' "$1" "$2" ;;
	3) printf '%s-plain-%d' "$1" "$2" ;;
	esac
}

# An htree directory "h" of 400 names (4 leaves and more), most with
# bytes >= 0x80.
fc_nohash_baseline() {
	local bs=$1 i

	mkdir "$mnt/h"
	for i in $(seq 1 400); do
		echo "$i" > "$mnt/h/$(hiname old "$i")"
	done
	echo x > "$mnt/data"
}

# Names added to "h" and some removed, logged by fast commits.
fc_nohash() {
	local bs=$1 i

	xfs_io -f -c fsync "$mnt/first"
	# The mount set the unsigned flag (the superblock in the journal):
	# a freeze checkpoints it, cleared again in the copy (one_try).
	fsfreeze -f "$mnt"
	fsfreeze -u "$mnt"
	# A full commit (an fsync of a directory) in the journal again:
	# without one the journal is empty and its fast commits ignored.
	mkdir "$mnt/after"
	xfs_io -c fsync "$mnt/after" "$mnt"
	for i in $(seq 1 120); do
		echo "$i" > "$mnt/h/$(hiname new "$i")"
	done
	for i in $(seq 5 10 400); do
		rm "$mnt/h/$(hiname old "$i")"
	done
	xfs_io -c "pwrite -q -S 0x69 0 $((2 * bs))" -c fsync "$mnt/data"
}

fc_baseline() {
	local bs=$1

	baseline "$bs"
	mkdir "$mnt/small"
	echo 0 > "$mnt/small/a"
	fragmented "$mnt/big" 400 "$bs"
	xfs_io -f -c "falloc 0 $((8 * bs))" "$mnt/prealloc"
}

# A fast-commit image is made again (up to three times) when the kernel
# fell back to a full commit after the last fast one.
one() {
	local try

	# shellcheck disable=SC2254
	case $2 in ${ONLY:-*}) ;; *) return 0 ;; esac
	for try in 1 2 3; do
		one_try "$@" && return 0
		echo "mkdirty: $2: no fast commit in the journal (try $try)" >&2
	done
	exit 1
}

one_try() {
	local n=$1 name=$2 size=$3 mopts=$4 img=$work/$2.img bs

	shift 4
	gen_mkfs "$n" "$img" "$size" "$@"
	[ -z "${noflags:-}" ] || debugfs -w -R 'ssv flags 0' "$img" 2>/dev/null
	bs=$(dumpe2fs -h "$img" 2>/dev/null | awk '/^Block size:/ {print $3}')
	mount -o loop "$img" "$mnt"
	if [ "${step:-}" = fc_changes ]; then fc_baseline "$bs"; else "${base:-baseline}" "$bs"; fi
	umount "$mnt"
	mount -o "loop${mopts:+,$mopts}" "$img" "$mnt"
	"${step:-changes}" "$bs"
	# The copy, at once: within dirty_expire (30 s) nothing journalled
	# has been written in place yet.
	cp --sparse=always "$img" "$work/$name.dirty"
	umount "$mnt"
	[ -z "${noflags:-}" ] ||
		debugfs -w -R 'ssv flags 0' "$work/$name.dirty" 2>/dev/null
	if [ -n "${noflags:-}" ] && { dumpe2fs -h "$work/$name.dirty" 2>/dev/null |
		grep -q '^Filesystem flags:.*_directory_hash' ||
		debugfs -R 'logdump -a' "$work/$name.dirty" 2>/dev/null |
		grep -q 'FS block 0 logged'; }; then
		echo "mkdirty: $name: a hash flag in the superblock or its journal copy" >&2
		return 1
	fi
	if ! dumpe2fs -h "$work/$name.dirty" 2>/dev/null |
		grep -q '^Filesystem features:.*needs_recovery'; then
		echo "mkdirty: $name: the copy does not need recovery" >&2
		exit 1
	fi
	if [ "${step:-}" = fc_changes ] || [ "${step:-}" = fc_nohash ]; then
		debugfs -R logdump "$work/$name.dirty" 2>/dev/null |
			grep -q 'tag ADD_RANGE' || return 1
	else
		debugfs -R logdump "$work/$name.dirty" 2>/dev/null |
			grep -q 'revoke table' ||
			echo "mkdirty: $name: warning: no revoke block in the journal" >&2
	fi
	gzip -9n < "$work/$name.dirty" > "$out/$name.img.gz"
	echo "mkdirty: $out/$name.img.gz ($(stat -c %s "$out/$name.img.gz") bytes)" >&2
}

images

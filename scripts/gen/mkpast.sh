#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkpast.sh OUTDIR
#
# The past of an image (issue 22): five small images made through the
# kernel (mke2fs, a read-write loop mount, past-ops.py's operations,
# umount), each with the ground truth of what was done to it:
#   past-csum-4k    ext4, metadata_csum, 4 KiB blocks
#   past-1k         ext4 without metadata_csum, 1 KiB blocks
#   past-ext3-1k    ext3, 1 KiB blocks (indirect maps: the kernel zeroes a
#                   deleted file's block pointers too)
#   past-inline-4k  ext4, inline_data (inline files and directories)
#   past-fc-4k      ext4, fast_commit (phase 2 and 4 logged by fsync)
# -> OUTDIR/NAME.img.gz and OUTDIR/NAME.past.jsonl.gz (schema: docs/past.md).
# Phases, each ended by a jbd2 commit (sync): a tree is written; files
# are deleted, renamed, overwritten in place and truncated, a directory is
# emptied and removed ("after-commit"); fsfreeze checkpoints the journal;
# more are deleted ("after-checkpoint"); new files take the freed blocks
# and inodes.  The journal (1024 blocks) does not wrap.  Each image is
# then checked: e2fsck -fn clean, and on a ro,noload mount every file
# still there holds the bytes, inode, generation and FIEMAP recorded.
#
#   ONLY=past-1k scripts/gen/mkpast.sh testdata     (that image alone)
#   CHECK=1 scripts/gen/mkpast.sh testdata  (check the committed ones only)
#
# Needs root (loop mounts), e2fsprogs, util-linux (fsfreeze), python3.
# The kernel stamps times and generations: a run makes the same tree, not
# the same bytes.
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkpast root "$@"
mnt=$work/mnt
mkdir -p "$mnt"
ops=$here/past-ops.py

# N NAME SIZE PAST-OPS-ARGS -- MKE2FS-ARGS...
one() {
	local n=$1 name=$2 size=$3 img=$work/$2.img args=() bs

	shift 3
	# shellcheck disable=SC2254
	case $name in ${ONLY:-*}) ;; *) return 0 ;; esac
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	gen_mkfs "$n" "$img" "$size" -N 1024 -m 0 "$@"
	bs=$(dumpe2fs -h "$img" 2>/dev/null | awk '/^Block size:/ {print $3}')
	mount -o loop "$img" "$mnt"
	python3 "$ops" run "$mnt" "$work/$name.past.jsonl" --bs "$bs" "${args[@]}"
	umount "$mnt"
	python3 "$ops" finish "$img" "$work/$name.past.jsonl"
	check "$img" "$work/$name.past.jsonl.gz"
	gzip -9n < "$img" > "$out/$name.img.gz"
	cp "$work/$name.past.jsonl.gz" "$out/$name.past.jsonl.gz"
	echo "mkpast: $out/$name.img.gz ($(stat -c %s "$out/$name.img.gz") bytes)" >&2
}

# IMG MANIFEST: e2fsck clean; the journal's first transaction (tid 2,
# the first after mke2fs) still at its first block: it did not wrap; the
# live files as recorded on a ro mount.
check() {
	e2fsck -fn "$1" >/dev/null
	debugfs -R 'logdump -O' "$1" 2>/dev/null |
		grep '^Found expected sequence 2, type 1 (descriptor block) at block 1$' >/dev/null ||
		{ echo "mkpast: $1: the journal wrapped" >&2
		  debugfs -R 'logdump -O' "$1" 2>&1 | head -5 >&2; exit 1; }
	mount -o loop,ro,noload "$1" "$mnt"
	python3 "$ops" verify "$mnt" "$2" || { umount "$mnt"; exit 1; }
	umount "$mnt"
}

# CHECK=1: check OUTDIR's images against their manifests, make nothing.
if [ "${CHECK:-0}" = 1 ]; then
	for gz in "$out"/past-*.img.gz; do
		name=$(basename "$gz" .img.gz)
		# shellcheck disable=SC2254
		case $name in ${ONLY:-*}) ;; *) continue ;; esac
		gzip -dc "$gz" > "$work/$name.img"
		check "$work/$name.img" "$out/$name.past.jsonl.gz"
		rm -f "$work/$name.img"
	done
	exit 0
fi

one 91 past-csum-4k 16M -- -t ext4 -b 4096 -J size=4
one 92 past-1k 8M -- -t ext4 -b 1024 -J size=2 -O ^metadata_csum
one 93 past-ext3-1k 8M --ext3 -- -t ext3 -b 1024 -J size=2
one 94 past-inline-4k 16M --inline -- -t ext4 -b 4096 -J size=4 -O inline_data
one 95 past-fc-4k 16M --fc -- -t ext4 -b 4096 \
	-J size=4,fast_commit_size=256 -O fast_commit

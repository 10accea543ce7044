#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkmount.sh OUTDIR
#
# Images whose group descriptors or journal the kernel's mount-time checks
# judge (ext4_check_descriptors, ext4_setup_system_zone with its journal
# part), for tests/test_mount.c.  Each is a small filesystem with a few
# files written on a loop mount, then one descriptor field or journal
# inode field changed by debugfs:
#
#   mount-itable-overlap  ext4 1 KiB, flex_bg: group 1's inode table moved to
#                         block 264, over the bitmaps' ranges (the kernel
#                         refuses: a later range starts inside one added
#                         before it; which ranges its descent meets depends
#                         on the red-black tree's shape)
#   mount-itable-moved    the same filesystem, group 1's inode table moved to
#                         free blocks out of block order (no overlap: mounts)
#   mount-bbitmap-in-itable  ext4 1 KiB, ^flex_bg: group 1's block bitmap
#                         inside group 1's inode table, which is added after
#                         it and starts before it (mounts; libext2fs's
#                         ext2fs_check_desc refused it)
#   mount-journal-overlap ext3 1 KiB: the journal's first block pointer
#                         moved onto group 0's inode table ("blocks ... from
#                         inode overlap system zone")
#   mount-journal-unused  ext4 1 KiB: the journal inode's link count 0 (its
#                         iget fails, and with it the system zone)
#   mount-root-*          ext4 1 KiB, 256-byte inodes, one fault in the root
#                         inode each (__ext4_fill_super's last checks): a
#                         regular file (-file), link count 0 (-free), the
#                         EA_INODE flag beside EXTENTS (-eaflag), size 0
#                         (-empty)
#   mount-want-isize, mount-min-isize  the same filesystem, s_want_extra_isize
#                         or s_min_extra_isize past the inode's room
#                         (ext4_inode_info_init refuses: EINVAL)
#
# It writes OUTDIR/NAME.img.gz and OUTDIR/mount-verdicts (the kernel's
# verdicts, scripts/record/verdict.sh); with RECORD=1 the images the kernel
# mounts are recorded too (record.sh: calls and goldens).
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkmount root "$@"
mkdir "$work/mnt"
uuidn=40

mkfs() {	# mkfs IMG SIZE MKE2FS-ARGS...
	local img=$1
	uuidn=$((uuidn + 1))
	gen_mkfs "$uuidn" "$@"
	mount -o loop "$img" "$work/mnt"
	xfs_io -f -c "pwrite -q 0 5000" "$work/mnt/small"
	xfs_io -f -c "pwrite -q 0 4096" -c "pwrite -q 65536 4096" \
		"$work/mnt/sparse"
	mkdir "$work/mnt/dir"
	xfs_io -f -c "pwrite -q 0 300000" "$work/mnt/dir/big"
	umount "$work/mnt"
}

finish() {	# finish NAME DEBUGFS-COMMAND...
	local name=$1 img=$work/$1.img
	shift
	debugfs -w -f - "$img" > "$work/dbg.log" 2>&1 < <(printf '%s\n' "$@")
	if grep -qi "error\|invalid\|usage" "$work/dbg.log"; then
		cat "$work/dbg.log" >&2
		echo "mkmount: debugfs failed on $name" >&2
		exit 1
	fi
	gzip -9 -n -c "$img" > "$out/$name.img.gz"
	echo "wrote $out/$name.img.gz ($(stat -c %s "$out/$name.img.gz") bytes)" >&2
}

flex() { mkfs "$work/$1.img" 8M -t ext4 -b 1024 -g 1024 -N 256; }

flex mount-itable-overlap
finish mount-itable-overlap "set_bg 1 inode_table 264"

flex mount-itable-moved
finish mount-itable-moved "set_bg 1 inode_table 7000"

mkfs "$work/mount-bbitmap-in-itable.img" 8M -t ext4 -b 1024 -g 1024 -N 512 \
	-O ^flex_bg,^resize_inode
it=$(dumpe2fs "$work/mount-bbitmap-in-itable.img" 2>/dev/null |
     sed -n '/^Group 1:/,/^Group 2:/s/.*Inode table at \([0-9]*\)-.*/\1/p')
finish mount-bbitmap-in-itable "set_bg 1 block_bitmap $((it + 3))"

mkfs "$work/mount-journal-overlap.img" 8M -t ext3 -b 1024 -g 1024 -N 256
it=$(dumpe2fs "$work/mount-journal-overlap.img" 2>/dev/null |
     sed -n '/^Group 0:/,/^Group 1:/s/.*Inode table at \([0-9]*\)-.*/\1/p')
finish mount-journal-overlap "sif <8> block[0] $((it + 1))"

mkfs "$work/mount-journal-unused.img" 8M -t ext4 -b 1024 -g 1024 -N 256
finish mount-journal-unused "sif <8> links_count 0"

big() { mkfs "$work/$1.img" 8M -t ext4 -b 1024 -I 256 -N 256; }
big mount-root-file
finish mount-root-file "sif <2> mode 0100755"
big mount-root-free
finish mount-root-free "sif <2> links_count 0"
big mount-root-eaflag
finish mount-root-eaflag "sif <2> flags 0x280000"
big mount-root-empty
finish mount-root-empty "sif <2> size 0"
big mount-want-isize
finish mount-want-isize "ssv want_extra_isize 132"
big mount-min-isize
finish mount-min-isize "ssv min_extra_isize 132"

names="mount-itable-overlap mount-itable-moved mount-bbitmap-in-itable
       mount-journal-overlap mount-journal-unused mount-root-file
       mount-root-free mount-root-eaflag mount-root-empty mount-want-isize
       mount-min-isize"
{
	echo "# SPDX-License-Identifier: GPL-2.0-or-later"
	echo "# The kernel's verdict on mounting each image of scripts/gen/mkmount.sh"
	echo "# (scripts/record/verdict.sh): NAME TAB mounted TAB options, or"
	echo "# NAME TAB refused TAB errno TAB the kernel's lines."
	for name in $names; do
		"$here/../record/verdict.sh" "$out/$name.img.gz"
	done
} > "$out/mount-verdicts"
cat "$out/mount-verdicts" >&2

if [ "${RECORD:-0}" = 1 ]; then
	for name in $names; do
		grep -q "^$name	mounted" "$out/mount-verdicts" || continue
		"$here/../record/record.sh" "$out/$name.img.gz" "$out"
		gzip -9 -n -f "$out/$name.calls" "$out/$name.golden"
	done
fi

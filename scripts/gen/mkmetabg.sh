#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkmetabg.sh OUTDIR [NAME...]
#
# meta_bg images for statfs's overhead, the block owners and the system
# zone: the group descriptor blocks each group keeps depend on its meta
# group (group / descriptors a block) against s_first_meta_bg
# (ext4_bg_num_gdb), and statfs's f_blocks is the block count less
# ext4_calculate_overhead, which the kernel recomputes at every mount
# unless the filesystem is bigalloc and s_overhead_clusters is recorded
# and not above the block count.
#
# s_first_meta_bg > 0 is what the kernel leaves when an online resize runs
# out of descriptor room (ext4_convert_meta_bg: meta_bg on, resize_inode
# off, s_first_meta_bg = the descriptor blocks then).  Online resizing is
# not allowed in this sandbox, and resize2fs offline moves blocks instead,
# so the conversion is made as the kernel makes it: mke2fs without
# resize_inode, debugfs `feature meta_bg` and `ssv first_meta_bg D` with D
# the descriptor blocks mke2fs wrote (nothing moves: every descriptor
# block is below D), then resize2fs growing the filesystem past D meta
# groups (it adds meta groups the meta_bg way: a descriptor copy in the
# first, second and last group of each).  e2fsck -fn must find every image
# clean.  Groups are small (-g 256) so that a few MiB hold several meta
# groups.
#
#   metabg-0-1k      mke2fs -O meta_bg: s_first_meta_bg 0, 1 KiB, 64bit
#                    (16 descriptors a block), 40 groups
#   metabg-1-1k      1 KiB, 64bit: 16 groups (1 descriptor block), grown
#                    to 40: s_first_meta_bg 1
#   metabg-2-1k32    1 KiB, ^64bit (32 a block): 64 groups, grown to 100:
#                    s_first_meta_bg 2; s_overhead_clusters a wrong 1000
#                    (without bigalloc the kernel recomputes it)
#   metabg-3-1k      1 KiB, 64bit: 48 groups, grown to 72: s_first_meta_bg 3
#   metabg-1-4k      4 KiB, 64bit (64 a block): 64 groups, grown to 80:
#                    s_first_meta_bg 1
#   metabg-2-ext2    ext2 (no journal, no flex_bg: the bitmaps and inode
#                    table at each group's start), 1 KiB, 32 a block: 64
#                    groups, grown to 80: s_first_meta_bg 2
#   metabg-1-bigalloc  1 KiB blocks, 4 KiB clusters, 64bit: 16 groups,
#                    grown (resize2fs -f) to 40: s_first_meta_bg 1 (each
#                    new bitmap in a cluster of its own)
#   metabg-0-bigalloc  mke2fs -O bigalloc,meta_bg, 1 KiB blocks, 4 KiB
#                    clusters, 40 groups, s_overhead_clusters as mke2fs
#                    recorded it (bigalloc: the kernel takes it)
#   metabg-0-bigalloc-big  the same with s_overhead_clusters 50000, above
#                    the block count (the kernel ignores it and counts)
#   ovh-bigalloc-rsv  no meta_bg: bigalloc, 1 KiB blocks, 4 KiB clusters,
#                    with resize_inode's reserved GDT blocks, which the
#                    kernel's bigalloc count leaves out (mke2fs's recorded
#                    overhead counts them: the two differ); 0 recorded
#
# A read-write mount writes the kernel's count into s_overhead_clusters
# (ext4_update_overhead), so it is set after the files: 0 where no other
# value is named above.
#
# Files are written through the kernel (a read-write loop mount, xfs_io):
# small and sparse files, a directory, a symlink, one written file across
# several groups, and preallocated (unwritten) files filling most of the
# rest (written zeroes on ext2, which has no fallocate), so that extents
# or block pointers lie next to every descriptor copy and superblock
# backup (the system zone must not refuse them; the kernel did not).  The
# unwritten blocks stay zero, so the images compress to a few tens of KiB.
#
# Each image's layout is printed: s_first_meta_bg, descriptor blocks,
# descriptors a block, groups, s_overhead_clusters, the gzip size.
# With RECORD=1 each image is then recorded from the kernel: record.sh
# (NAME.calls, NAME.golden for the first 20 paths, gzip -9 -n) and
# record/statfs.sh (NAME.statfs).
d=$(dirname "$0")
. "$d/../lib/gen.sh"
scripts=$(cd "$d/.." && pwd)

[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [NAME...]" >&2; exit 2; }
outdir=$1
shift
only=" $* "
gen_start mkmetabg root "$outdir"
mkdir "$work/mnt"
for t in mke2fs debugfs resize2fs e2fsck dumpe2fs xfs_io; do
	command -v "$t" > /dev/null || { echo "mkmetabg: no $t" >&2; exit 1; }
done

wanted() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }

# sb_field IMG NAME: a dumpe2fs -h field ("Block count" ...), or empty.
sb_field() {
	dumpe2fs -h "$1" 2>/dev/null |
		awk -F: -v k="$2" '$1 == k { sub(/^[ \t]+/, "", $2); print $2 }'
}

# The layout, from dumpe2fs -h: groups, descriptors a block, descriptor
# blocks (ceil(groups / a block)).
layout() {	# layout IMG: sets groups per desc
	local img=$1 bs first count bpg dsz
	bs=$(sb_field "$img" "Block size")
	first=$(sb_field "$img" "First block")
	count=$(sb_field "$img" "Block count")
	bpg=$(sb_field "$img" "Blocks per group")
	dsz=$(sb_field "$img" "Group descriptor size")
	groups=$(( (count - first + bpg - 1) / bpg ))
	per=$(( bs / ${dsz:-32} ))
	desc=$(( (groups + per - 1) / per ))
}

mkfs() {	# mkfs UUIDN NAME SIZE MKE2FS-ARGS...
	local n=$1 name=$2
	shift 2
	gen_mkfs "$n" "$work/$name.img" "$@"
}

# Turn meta_bg on from the first group past the descriptor blocks mke2fs
# wrote, as ext4_convert_meta_bg does, then grow to SIZE.
convert_and_grow() {	# convert_and_grow NAME SIZE [RESIZE2FS-ARGS...]
	local img=$work/$1.img size=$2
	shift 2
	layout "$img"
	printf 'feature meta_bg\nssv first_meta_bg %d\n' "$desc" |
		debugfs -w -f - "$img" > "$work/dbg.log" 2>&1
	grep -qi "error\|invalid\|usage" "$work/dbg.log" &&
		{ cat "$work/dbg.log" >&2; exit 1; }
	truncate -s "$size" "$img"
	E2FSPROGS_FAKE_TIME=1700000000 resize2fs "$@" "$img" \
		> "$work/resize.log" 2>&1 ||
		{ cat "$work/resize.log" >&2; exit 1; }
}

set_overhead() {	# set_overhead NAME CLUSTERS
	debugfs -w -R "ssv overhead_clusters $2" "$work/$1.img" \
		> "$work/dbg.log" 2>&1
	[ "$(sb_field "$work/$1.img" "Overhead clusters")" = "${2#0}" ] ||
		[ "$2" = 0 ] || { cat "$work/dbg.log" >&2; exit 1; }
}

# The files, through the kernel.  Pinned to CPU 0 and fsync'd, as
# mkimages.sh does, for a steadier allocation order.
fill() {	# fill NAME
	local img=$work/$1.img m=$work/mnt
	local io="taskset -c 0 xfs_io" extents=0

	[[ " $(sb_field "$img" "Filesystem features") " != *" extent "* ]] ||
		extents=1

	mount -o loop "$img" "$m"
	mkdir "$m/d"
	$io -f -c "pwrite -q -S 0x61 0 3000" -c fsync "$m/small"
	$io -f -c "pwrite -q -S 0x62 0 64k" -c "pwrite -q -S 0x63 1m 8k" \
		-c "truncate 3m" -c fsync "$m/sparse"
	for i in 1 2 3 4 5 6; do
		$io -f -c "pwrite -q -S 0x$((40 + i)) 0 $((i * 7))k" -c fsync \
			"$m/d/f$i"
	done
	ln -s d/f1 "$m/link"
	# One written file over several groups (a repeated byte: it
	# compresses), then preallocated files to about 90% full.
	$io -f -c "pwrite -q -S 0x5a -b 1m 0 1200k" -c fsync "$m/written"
	python3 - "$m" "$extents" <<'PY'
import os, subprocess, sys
m, extents = sys.argv[1], sys.argv[2] == "1"
st = os.statvfs(m)
free = st.f_bfree * st.f_bsize
want = int(st.f_blocks * st.f_bsize * 0.10)
n = 0
while free > want and n < 8:
    size = (free - want) // 2 if n < 7 else free - want
    size -= size % st.f_bsize
    if size < st.f_bsize:
        break
    path = f"{m}/fill{n}"
    # Block-mapped files (ext2) have no fallocate: zeroes written.
    cmd = f"falloc 0 {size}" if extents else f"pwrite -q -S 0 -b 1m 0 {size}"
    subprocess.run(["taskset", "-c", "0", "xfs_io", "-f", "-c", cmd,
                    "-c", "fsync", path], check=True)
    n += 1
    st = os.statvfs(m)
    free = st.f_bfree * st.f_bsize
PY
	umount "$m"
}

# e2fsck -fn clean, the layout printed, OUTDIR/NAME.img.gz written.
finish() {	# finish NAME
	local name=$1 img=$work/$1.img gz=$out/$1.img.gz fmb ovh
	if ! e2fsck -fn "$img" > "$work/fsck.log" 2>&1; then
		cat "$work/fsck.log" >&2
		echo "mkmetabg: $name: e2fsck -fn finds errors" >&2
		exit 1
	fi
	layout "$img"
	fmb=$(sb_field "$img" "First meta block group")
	ovh=$(sb_field "$img" "Overhead clusters")
	gzip -9 -n -c "$img" > "$gz"
	printf '%s: first_meta_bg %s, %d descriptor blocks (%d a block), %d groups, overhead_clusters %s, %s bytes gzipped\n' \
		"$name" "${fmb:-0}" "$desc" "$per" "$groups" "${ovh:-0}" \
		"$(stat -c %s "$gz")"
	rm -f "$img"
}

small=(-b 1024 -g 256 -I 256 -i 4096)

if wanted metabg-0-1k; then
	mkfs 60 metabg-0-1k 10M -t ext4 "${small[@]}" -O meta_bg,^resize_inode
	fill metabg-0-1k
	set_overhead metabg-0-1k 0
	finish metabg-0-1k
fi

if wanted metabg-1-1k; then
	mkfs 61 metabg-1-1k 4M -t ext4 "${small[@]}" -O ^resize_inode
	convert_and_grow metabg-1-1k 10M
	fill metabg-1-1k
	set_overhead metabg-1-1k 0
	finish metabg-1-1k
fi

if wanted metabg-2-1k32; then
	mkfs 62 metabg-2-1k32 16M -t ext4 "${small[@]}" -O ^resize_inode,^64bit
	convert_and_grow metabg-2-1k32 25M
	fill metabg-2-1k32
	set_overhead metabg-2-1k32 1000
	finish metabg-2-1k32
fi

if wanted metabg-3-1k; then
	mkfs 63 metabg-3-1k 12M -t ext4 "${small[@]}" -O ^resize_inode
	convert_and_grow metabg-3-1k 18M
	fill metabg-3-1k
	set_overhead metabg-3-1k 0
	finish metabg-3-1k
fi

if wanted metabg-1-4k; then
	mkfs 64 metabg-1-4k 64M -t ext4 -b 4096 -g 256 -I 256 -i 65536 \
		-O ^resize_inode
	convert_and_grow metabg-1-4k 80M
	fill metabg-1-4k
	set_overhead metabg-1-4k 0
	finish metabg-1-4k
fi

if wanted metabg-2-ext2; then
	mkfs 65 metabg-2-ext2 16M -t ext2 "${small[@]}" -O ^resize_inode
	convert_and_grow metabg-2-ext2 20M
	fill metabg-2-ext2
	set_overhead metabg-2-ext2 0
	finish metabg-2-ext2
fi

big=(-t ext4 -b 1024 -C 4096 -g 256 -I 256 -i 8192)
if wanted metabg-1-bigalloc; then
	mkfs 66 metabg-1-bigalloc 16M "${big[@]}" -O bigalloc,^resize_inode
	convert_and_grow metabg-1-bigalloc 40M -f
	fill metabg-1-bigalloc
	set_overhead metabg-1-bigalloc 0
	finish metabg-1-bigalloc
fi

if wanted metabg-0-bigalloc; then
	mkfs 67 metabg-0-bigalloc 40M "${big[@]}" \
		-O bigalloc,meta_bg,^resize_inode
	ovh=$(sb_field "$work/metabg-0-bigalloc.img" "Overhead clusters")
	fill metabg-0-bigalloc
	set_overhead metabg-0-bigalloc "$ovh"
	finish metabg-0-bigalloc
fi

if wanted metabg-0-bigalloc-big; then
	mkfs 68 metabg-0-bigalloc-big 40M "${big[@]}" \
		-O bigalloc,meta_bg,^resize_inode
	fill metabg-0-bigalloc-big
	set_overhead metabg-0-bigalloc-big 50000
	finish metabg-0-bigalloc-big
fi

if wanted ovh-bigalloc-rsv; then
	mkfs 69 ovh-bigalloc-rsv 24M "${big[@]}" -O bigalloc -E resize=200000
	fill ovh-bigalloc-rsv
	set_overhead ovh-bigalloc-rsv 0
	finish ovh-bigalloc-rsv
fi

if [ "${RECORD:-0}" = 1 ]; then
	rec=$scripts/record
	for name in metabg-0-1k metabg-1-1k metabg-2-1k32 metabg-3-1k \
		    metabg-1-4k metabg-2-ext2 metabg-1-bigalloc \
		    metabg-0-bigalloc metabg-0-bigalloc-big ovh-bigalloc-rsv; do
		f=$out/$name.img.gz
		wanted "$name" || continue
		MAXFILES=1000000 MAXEMPTY=1000000 GOLDENS=basic \
			GOLDEN_MAXFILES=20 GOLDEN_MAXBYTES=1000000000 \
			"$rec/record.sh" "$f" "$out"
		gzip -9 -n -f "$out/$name.calls" "$out/$name.golden"
		"$rec/statfs.sh" "$f" "$out"
	done
fi

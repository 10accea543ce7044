#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkzone.sh OUTDIR
#
# Images whose files point at the blocks the kernel's system zone
# (fs/ext4/block_validity.c) might protect, for the kernel-parity tests.
# For every candidate block N of an image (each group's first block, every
# superblock backup and descriptor block, the first, second, middle and last
# reserved-GDT block, meta_bg descriptor copies, bitmaps, the first and
# last inode-table block, the journal's first and last block, and the block
# just past each of those ranges as controls) the kernel writes small files
# on a loop mount, then debugfs points one block reference of each at N:
#
#   /r/N   (extents) the root extent in i_block: __ext4_iget checks it
#   /l/N   (extents) the third of five extents, in a leaf block (depth 1):
#          checked when the leaf is read (the extent editor keeps the
#          leaf's checksum right)
#   /d/N   (block map) the direct pointer i_block[0]
#   /i/N   (block map) the first pointer of the indirect block i_block[12]
#   /ok    untouched
#
# Candidates come from dumpe2fs's layout (what e2fsprogs says is where),
# not from e2map's rule; the kernel decides which it refuses when
# scripts/record/record.sh records it.  Images (all NAME.img.gz in OUTDIR):
#
#   zone-1k-flex    ext4 1 KiB, 80 MiB, 8192 blocks a group (10 groups),
#                   flex_bg 16: backups in groups 5, 7, 9 (blocks 40961,
#                   57345, 73729) that are not multiples of the flex size
#   zone-4k         ext4 4 KiB, 1024 blocks a group (12 groups), flex_bg 4
#   zone-noflex     ext4 1 KiB, ^flex_bg, 1024 blocks a group
#   zone-meta       ext4 1 KiB, meta_bg (no resize_inode), 16 descriptors a
#                   block: copies in groups 15, 16, 17, 31, ... that have no
#                   superblock
#   zone-meta-first ext4 1 KiB, mke2fs's resize_inode layout turned into
#                   meta_bg from the second descriptor block on
#                   (s_first_meta_bg 1) with its reserved GDT blocks kept
#                   (resize2fs here would move blocks instead, and online
#                   resizing is not allowed in this sandbox)
#   zone-sparse2    ext4 1 KiB, sparse_super2: backups only in the groups
#                   s_backup_bgs names (1 and the last)
#   zone-bigalloc   ext4 1 KiB blocks, 4 KiB clusters
#   zone-ext3       ext3 1 KiB (block maps), 1024 blocks a group
#
# With RECORD=1 each image is then recorded from the kernel (record.sh:
# every file's calls, the goldens of the first 60 files; gzip -9 -n), as
# make-testdata.sh does.
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkzone root "$@"
mkdir "$work/mnt"
uuidn=16

mkfs() {	# mkfs IMG SIZE MKE2FS-ARGS...
	uuidn=$((uuidn + 1))
	gen_mkfs "$uuidn" "$@"
}

# Candidate blocks, one a line, from dumpe2fs's layout and the journal's
# blocks: each range's first, second, middle and last block and the block
# after it; each group's first block and the one before it.
candidates() {
	local img=$1
	{ dumpe2fs "$img" 2>/dev/null
	  echo "JOURNAL $(debugfs -R 'blocks <8>' "$img" 2>/dev/null)"
	} | python3 -c '
import re, sys
first = count = None
out = set()
def rng(a, b, inner=False):
    out.update((a, b, b + 1))
    if inner:
        out.update((min(a + 1, b), (a + b) // 2))
for line in sys.stdin:
    if line.startswith("JOURNAL"):
        j = [int(x) for x in line.split()[1:]]
        if j:
            rng(j[0], j[0]); rng(j[-1], j[-1])
        continue
    m = re.match(r"First block:\s+(\d+)", line)
    if m: first = int(m.group(1))
    m = re.match(r"Block count:\s+(\d+)", line)
    if m: count = int(m.group(1))
    m = re.match(r"Group \d+: \(Blocks (\d+)-(\d+)\)", line)
    if m:
        out.add(int(m.group(1))); out.add(int(m.group(1)) - 1)
    for pat in (r"superblock at (\d+)()", r"descriptors? at (\d+)(?:-(\d+))?",
                r"Reserved GDT blocks at (\d+)-(\d+)", r"bitmap at (\d+)()",
                r"Inode table at (\d+)-(\d+)"):
        for a, b in re.findall(pat, line):
            rng(int(a), int(b or a), pat.startswith("Reserved"))
for x in sorted(out):
    if first < x < count:
        print(x)
'
}

# Extent images: /r/N for each candidate N, and /l/N when LEAF is 1.
extent_files() {
	local img=$1 leaf=$2 n
	mount -o loop "$img" "$work/mnt"
	mkdir "$work/mnt/r"
	[ "$leaf" = 0 ] || mkdir "$work/mnt/l"
	python3 - "$work/mnt" "$work/cand" "$leaf" <<'PY'
import os, sys
mnt, cand, leaf = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
bs = os.statvfs(mnt).f_bsize
def write(path, blocks):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    for b in blocks:
        os.pwrite(fd, (b"zone %s " % path.encode()).ljust(bs, b"."), b * bs)
    os.close(fd)
for n in open(cand).read().split():
    write(f"{mnt}/r/{n}", [0])
    if leaf:
        write(f"{mnt}/l/{n}", [0, 2, 4, 6, 8])
write(f"{mnt}/ok", [0, 1])
PY
	umount "$work/mnt"
	while read -r n; do
		# i_block[5] is the root's first extent's ee_start_lo.
		echo "sif /r/$n block[5] $n"
		[ "$leaf" = 0 ] && continue
		echo "extent_open /l/$n"
		echo "goto_block 4"
		echo "replace_node 4 1 $n"
		echo "extent_close"
	done < "$work/cand" > "$work/cmds"
	debugfs -w -f "$work/cmds" "$img" > "$work/dbg.log" 2>&1
	if grep -qi "error\|invalid\|usage" "$work/dbg.log"; then
		grep -i "error\|invalid\|usage" "$work/dbg.log" | head >&2
		echo "mkzone: debugfs failed on $img" >&2
		exit 1
	fi
	[ "$leaf" = 0 ] && return 0
	n=$(debugfs -R "ex /l/$(head -1 "$work/cand")" "$img" 2>/dev/null |
	    awk '$1 == "1/" && $3 == "3/" { print $8 }')
	[ "$n" = "$(head -1 "$work/cand")" ] ||
		{ echo "mkzone: no leaf in $img" >&2; exit 1; }
}

# Block-map images: /d/N (i_block[0] = N) and /i/N (first pointer of the
# indirect block = N).
blockmap_files() {
	local img=$1 bs n ind
	bs=$(dumpe2fs -h "$img" 2>/dev/null | awk '/^Block size:/ { print $3 }')
	mount -o loop "$img" "$work/mnt"
	mkdir "$work/mnt/d" "$work/mnt/i"
	while read -r n; do
		xfs_io -f -c "pwrite -q 0 $bs" "$work/mnt/d/$n"
		xfs_io -f -c "pwrite -q $((12 * bs)) $bs" "$work/mnt/i/$n"
	done < "$work/cand"
	xfs_io -f -c "pwrite -q 0 $((2 * bs))" "$work/mnt/ok"
	umount "$work/mnt"
	while read -r n; do echo "sif /d/$n block[0] $n"; done < "$work/cand" \
		> "$work/cmds"
	debugfs -w -f "$work/cmds" "$img" > "$work/dbg.log" 2>&1
	if grep -qi "error\|invalid\|usage" "$work/dbg.log"; then
		echo "mkzone: debugfs failed on $img" >&2
		exit 1
	fi
	while read -r n; do
		ind=$(debugfs -R "stat /i/$n" "$img" 2>/dev/null |
		      sed -n 's/.*(IND):\([0-9]*\).*/\1/p')
		[ -n "$ind" ] || { echo "mkzone: /i/$n has no IND" >&2; exit 1; }
		python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<I", int(sys.argv[1])))' "$n" |
			dd of="$img" bs=1 seek=$((ind * bs)) conv=notrunc status=none
	done < "$work/cand"
}

make_image() {	# make_image NAME root|leaf|blockmap
	local name=$1 kind=$2 img=$work/$1.img
	if [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ]; then
		rm -f "$img"
		return 0
	fi
	candidates "$img" > "$work/cand"
	echo "mkzone: $name: $(wc -l < "$work/cand") candidate blocks" >&2
	case $kind in
	root) extent_files "$img" 0 ;;
	leaf) extent_files "$img" 1 ;;
	*) blockmap_files "$img" ;;
	esac
	e2fsck -fn "$img" > /dev/null 2>&1 || true	# expected: not clean
	gzip -9 -n -c "$img" > "$out/$name.img.gz"
	echo "wrote $out/$name.img.gz ($(stat -c %s "$out/$name.img.gz") bytes)"
	rm -f "$img"
}

mkfs "$work/zone-1k-flex.img" 80M -t ext4 -b 1024
make_image zone-1k-flex leaf

mkfs "$work/zone-4k.img" 48M -t ext4 -b 4096 -g 1024 -G 4
make_image zone-4k root

mkfs "$work/zone-noflex.img" 16M -t ext4 -b 1024 -g 1024 -O ^flex_bg
make_image zone-noflex root

mkfs "$work/zone-meta.img" 34M -t ext4 -b 1024 -g 1024 \
	-O meta_bg,^resize_inode
make_image zone-meta leaf

# meta_bg from the second descriptor block on (s_first_meta_bg 1), with the
# reserved GDT blocks and resize inode mke2fs made: all inode tables in
# group 0 (-G 64) and the journal out of the way, so that the first blocks
# of groups 16, 17, 31, 32 and 33 are free for the meta_bg descriptor
# copies debugfs writes there when it flushes the new layout.
img=$work/zone-meta-first.img
mkfs "$img" 34M -t ext4 -b 1024 -g 1024 -G 64 -E resize=200000 \
	-J location=20M
for g in 16 17 31 32 33; do echo "setb $((g * 1024 + 1))"; done |
	debugfs -w -f - "$img" > /dev/null 2>&1
printf 'feature meta_bg\nssv first_meta_bg 1\n' |
	debugfs -w -f - "$img" > /dev/null 2>&1
make_image zone-meta-first root

mkfs "$work/zone-sparse2.img" 16M -t ext4 -b 1024 -g 1024 -O sparse_super2
make_image zone-sparse2 root

mkfs "$work/zone-bigalloc.img" 32M -t ext4 -b 1024 -C 4096 -g 2048 \
	-O bigalloc
make_image zone-bigalloc root

mkfs "$work/zone-ext3.img" 16M -t ext3 -b 1024 -g 1024
make_image zone-ext3 blockmap

if [ "${RECORD:-0}" = 1 ]; then
	for name in zone-1k-flex zone-4k zone-noflex zone-meta zone-meta-first \
		    zone-sparse2 zone-bigalloc zone-ext3; do
		# Every file's calls; the CLI goldens for the first 60 only
		# (the replay runs a process per golden entry).
		MAXFILES=1000000 MAXEMPTY=1000000 GOLDEN_MAXFILES=60 \
			GOLDEN_MAXBYTES=1000000000 \
			"$here/../record/record.sh" "$out/$name.img.gz" "$out"
		gzip -9 -n -f "$out/$name.calls" "$out/$name.golden"
	done
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkcorrupt.sh OUTDIR
#
# Damaged images for the kernel-parity tests: the kernel writes a healthy
# filesystem (loop mount, real pwrite), then single, documented faults are
# put in with debugfs (set_inode_field recomputes inode checksums, so only
# the intended check fails) or dd.  The kernel's answers on them are then
# recorded by scripts/record/record.sh like any other image.
#
#   corrupt-4k.img.gz (ext4, 4 KiB, metadata_csum), one file per fault:
#     /leaf_magic      middle extent leaf with a zeroed magic: FIEMAP from 0
#                      lists the first leaf and ends there with success
#     /leaf_csum       extent leaf whose checksum tail is wrong: EBADMSG
#     /depth6          root header claiming depth 6: EUCLEAN on lookup
#     /index_past_end  the root index points past the end of the filesystem
#     /inode_csum      inode checksum wrong: open fails with EBADMSG
#     /ok              an intact neighbour, still answered
#
#   crafted-4k.img.gz (ext4, 4 KiB, ^metadata_csum): valid extent trees
#   deeper than a small kernel-written file reaches, built block by block:
#     /deep4, /deep5   one index block per level down to a leaf of three
#                      extents (a chain of depth 4 and of depth 5)
#     /deep6           the same chain at depth 6: deeper than the kernel
#                      walks (EXT4_MAX_EXTENT_DEPTH)
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkcorrupt root "$@"
img=$work/corrupt-4k.img
mkdir "$work/mnt"

# Files of 700 one-block extents (every other block): three extent leaves.
write_sparse() {
	python3 - "$1" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(0, 1400, 2):
    os.pwrite(fd, b"e2map" * 819 + b"!", i * 4096)
os.fsync(fd)
os.close(fd)
PY
}

truncate -s 64M "$img"
E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F -t ext4 -b 4096 \
	-U 6d6f6f72-6275-6c6b-0000-000000000001 "$img"
mount -o loop "$img" "$work/mnt"
for f in leaf_magic leaf_csum depth6 index_past_end inode_csum ok; do
	write_sparse "$work/mnt/$f"
done
umount "$work/mnt"

dbg() { debugfs -w -R "$1" "$img" >/dev/null 2>&1; }
# Physical block of leaf N (1-based) of FILE, from debugfs's extent dump.
leaf() {
	debugfs -R "ex /$1" "$img" 2>/dev/null |
		awk -v n="$2" '$1 == "0/" && $3 == n "/" { print $8 }'
}
poke() {	# poke BLOCK OFFSET HEXBYTES
	printf "$3" | dd of="$img" bs=1 seek=$(($1 * 4096 + $2)) conv=notrunc \
		status=none
}

poke "$(leaf leaf_magic 2)" 0 '\x00\x00'
poke "$(leaf leaf_csum 2)" 4092 '\xde\xad\xbe\xef'
# i_block[1] = eh_max | eh_depth << 16: the root holds 4 entries.
dbg "sif /depth6 block[1] 0x00060004"
# ei_leaf_hi of the root's first index entry: a leaf far past the end.
dbg "sif /index_past_end block[5] 0x00007fff"
dbg "sif /inode_csum checksum 0x1234"
gzip -9 -n -c "$img" > "$out/corrupt-4k.img.gz"
echo "wrote $out/corrupt-4k.img.gz"

# ---- crafted-4k: deep but valid trees ------------------------------------
img=$work/crafted-4k.img
truncate -s 64M "$img"
E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F -t ext4 -b 4096 \
	-O ^metadata_csum -U 6d6f6f72-6275-6c6b-0000-000000000002 "$img"
mount -o loop "$img" "$work/mnt"
xfs_io -f -c 'pwrite -S 0x61 0 64k' -c fsync "$work/mnt/data" >/dev/null
for f in deep4 deep5 deep6; do
	xfs_io -f -c 'pwrite -S 0x62 0 4k' -c fsync "$work/mnt/$f" >/dev/null
done
umount "$work/mnt"

# The data blocks the crafted leaves point at: /data's (shared, read-only).
data=$(debugfs -R "ex /data" "$img" 2>/dev/null | awk 'NR == 2 { print $8 }')

# le16/le32 as \x escapes for printf.
le() {
	local v=$1 n=$2 i out=""
	for ((i = 0; i < n; i++)); do
		out+=$(printf '\\x%02x' $(((v >> (8 * i)) & 255)))
	done
	printf '%s' "$out"
}
header() { le $((0xF30A)) 2; le "$1" 2; le 340 2; le "$2" 2; le 0 4; }
extent() { le "$1" 4; le "$2" 2; le 0 2; le "$3" 4; }
index() { le 0 4; le "$1" 4; le 0 4; }
put() { printf "$2" | dd of="$img" bs=4096 seek="$1" conv=notrunc status=none; }

# chain FILE DEPTH: DEPTH-1 index blocks and a leaf, the root in i_block.
chain() {
	local f=$1 depth=$2 blocks lvl child
	blocks=($(debugfs -R "ffb $depth 20000" "$img" 2>/dev/null |
		  sed -n 's/.*found: //p'))
	for b in "${blocks[@]}"; do dbg "setb $b"; done
	put "${blocks[0]}" "$(header 3 0; extent 0 2 "$data"; \
		extent 10 1 $((data + 2)); extent 1000 3 $((data + 3)))"
	for ((lvl = 1; lvl < depth; lvl++)); do
		put "${blocks[$lvl]}" "$(header 1 $lvl; index "${blocks[$((lvl - 1))]}")"
	done
	child=${blocks[$((depth - 1))]}
	# i_block words: magic|entries<<16, max|depth<<16, generation, index.
	dbg "sif /$f block[0] $((0xF30A | 1 << 16))"
	dbg "sif /$f block[1] $((4 | depth << 16))"
	dbg "sif /$f block[2] 0"
	dbg "sif /$f block[3] 0"
	dbg "sif /$f block[4] $child"
	dbg "sif /$f block[5] 0"
	dbg "sif /$f size $((1003 * 4096 + 100))"
}
chain deep4 4
chain deep5 5
chain deep6 6
gzip -9 -n -c "$img" > "$out/crafted-4k.img.gz"
echo "wrote $out/crafted-4k.img.gz"

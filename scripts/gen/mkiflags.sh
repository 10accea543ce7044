#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkiflags.sh OUTDIR
#
# iflags-4k.img.gz: inode flags __ext4_iget refuses, on ext4 with
# inline_data.  The kernel writes the files; debugfs then sets the flags
# (e2fsprogs' f_idata_and_extents in small):
#   /inline, /extents      5 bytes inline, 10,000 bytes in extents: sound
#   /both_inline           /inline with EXTENTS_FL added
#   /both_extents          10,000 bytes in extents with INLINE_DATA_FL added
#   /both_badtree          both flags and no extent header in i_block: the
#                          kernel names the flags, not the tree
#   /dir/both              both flags one level down
# Each bad one is EUCLEAN from lookup ("inode has both inline data and
# extents flags").  Record with record/record.sh, scan.sh and read.sh.
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkiflags root "$@"
img=$work/iflags-4k.img
m=$work/mnt
mkdir "$m"

gen_mkfs 80 "$img" 8M -t ext4 -b 4096 -O inline_data
mount -o loop "$img" "$m"
for f in inline both_inline; do printf 'tiny\n' > "$m/$f"; done
for f in extents both_extents both_badtree; do
	head -c 10000 /dev/zero | tr '\0' 'e' > "$m/$f"
done
mkdir "$m/dir"
printf 'tiny\n' > "$m/dir/both"
umount "$m"
debugfs -w -f - "$img" >/dev/null <<'CMDS'
sif both_inline flags 0x10080000
sif both_extents flags 0x10080000
sif both_badtree flags 0x10080000
sif both_badtree block[0] 0
sif dir/both flags 0x10080000
CMDS
gzip -9 -n -c "$img" > "$out/iflags-4k.img.gz"
echo "wrote $out/iflags-4k.img.gz"

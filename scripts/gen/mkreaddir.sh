#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkreaddir.sh OUTDIR
#
# Images for e2map_file_readdir's damaged cases: directories written by the
# kernel, then damaged with debugfs, and their listings recorded by it
# (scripts/record/readdir.sh):
#
#   readdir-1k        ext4, 1 KiB blocks, metadata_csum: /badleaf (an htree
#                     whose leaf block 2 fails its checksum: the fills
#                     before it are listed, then EBADMSG), /badroot (the
#                     htree root's hash version broken, which breaks its
#                     checksum: EBADMSG), /clean (300 names)
#   readdir-nocsum-1k the same without metadata_csum: /badroot (unknown
#                     hash version: ERR_BAD_DX_DIR, listed block by block),
#                     /badent (leaf block 2 starts with a zero rec_len: the
#                     rest of that block is not listed), /slash (a
#                     one-block directory with a "/" in a name: getdents
#                     fails with EUCLEAN where it comes in hash order)
#
# Needs root and loop mounts.
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkreaddir root "$@"
mkdir "$work/mnt"
dbg() { debugfs -w -R "$1" "$2" >/dev/null 2>&1; }

# fill DIR PREFIX COUNT: empty files PREFIX_0001...
fill() {
	local i
	mkdir -p "$1"
	for ((i = 1; i <= $3; i++)); do
		: > "$1/$(printf '%s_%04d' "$2" "$i")"
	done
}

build() {	# NAME N FEATURES DIRS...
	local name=$1 n=$2 feat=$3 img=$work/$1.img d
	shift 3
	gen_mkfs "$n" "$img" 4M -t ext4 -b 1024 -N 2000 \
		-O "^has_journal$feat" -E root_owner=0:0
	mount -o loop "$img" "$work/mnt"
	for d in "$@"; do
		case $d in
		slash) fill "$work/mnt/$d" s 5 ;;
		*) fill "$work/mnt/$d" "${d:0:1}" 300 ;;
		esac
	done
	umount "$work/mnt"
}

build readdir-1k 40 "" badleaf badroot clean
dbg "zap_block -f /badleaf -o 100 -l 1 -p 0x41 2" "$work/readdir-1k.img"
dbg "zap_block -f /badroot -o 28 -l 1 -p 7 0" "$work/readdir-1k.img"

build readdir-nocsum-1k 41 ",^metadata_csum" badroot badent slash
dbg "zap_block -f /badroot -o 28 -l 1 -p 7 0" "$work/readdir-nocsum-1k.img"
dbg "zap_block -f /badent -o 4 -l 2 -p 0 2" "$work/readdir-nocsum-1k.img"
# "s_0001" is the first name after "." and "..": its second byte.
dbg "zap_block -f /slash -o 33 -l 1 -p 0x2f 0" "$work/readdir-nocsum-1k.img"

for name in readdir-1k readdir-nocsum-1k; do
	gzip -9 -n -c "$work/$name.img" > "$out/$name.img.gz"
	"$here/../record/readdir.sh" "$out/$name.img.gz" "$out"
	echo "wrote $out/$name.img.gz and $out/$name.readdir.gz"
done

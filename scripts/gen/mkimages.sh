#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkimages.sh OUTDIR
#
# Build e2map's test images with the real kernel: mke2fs an empty sparse
# image, loop-mount it read-write, make files with real syscalls (xfs_io
# pwrite/falloc/fpunch/fzero/fcollapse/finsert/truncate, setfattr, mkdir,
# ln -s), umount, run `e2fsck -fn` as a sanity check, and write
# OUTDIR/NAME.img.gz (gzip -9 -n).  Needs root, loop devices, e2fsprogs,
# xfsprogs (xfs_io) and setfattr (package attr; python3 is used instead when
# setfattr is missing).
#
# Determinism: mke2fs runs with a private mke2fs.conf, a fixed UUID and
# hash seed derived from the image name and E2FSPROGS_FAKE_TIME; every
# xfs_io run is pinned to CPU 0 and ends with fsync, so block allocation
# happens in a fixed order.  Layouts are therefore very similar from run to
# run, but not byte-identical (the kernel stamps real times into inodes and
# the superblock).
#
# Output: OUTDIR/<image>.img.gz for every image below, plus
# OUTDIR/sample.img.gz (the friendly image used by `make run`).  A summary of
# every file (size, mapping kind, extent count and tree depth) and of every
# operation the kernel refused is printed on stdout.
#
# Usage: scripts/gen/mkimages.sh OUTDIR [IMAGE...]   (default: all images)
#
# Images (every regular-file set also has empty, sparse, truncated, random
# and maxbytes files; see ext_files, blk_files and tree_files below):
#   ext4-4k            default ext4 (64bit, metadata_csum, huge_file), 4 KiB:
#                      extent files of depth 0-2, unwritten/prealloc/fzero/
#                      fpunch/fcollapse/finsert, htree dir, symlinks, xattrs
#   ext4-1k            the same with 1 KiB blocks (+ sparse_super2 without
#                      backups): also a 38 MiB run split at 32768 blocks
#   ext4-2k            the same with 2 KiB blocks, 512-byte inodes, inline_data
#   ext4-deep          1 KiB blocks: extent trees of depth 0, 1, 2 and 3
#   ext4-no64bit-nocsum  ext4 ^metadata_csum,^64bit,^dir_index (plain
#                      multi-block extent-mapped directories)
#   ext4-nohuge(-1k)   ^huge_file: files ending at the smaller s_maxbytes
#   ext4-inline        inline_data: 1..160-byte files, inline dirs, outgrown
#   ext4-links         symlinks of every kind as the last component (followed)
#   ext4-bigalloc      bigalloc, 16 KiB clusters
#   ext4-noextents     ext4 ^extent,^64bit: block-mapped files on ext4
#   ext4-mixed         ext3 upgraded with tune2fs -O extent: both kinds
#   ext3-1k, ext3-2k   block-mapped, direct/indirect/double/triple indirect
#   ext2-4k            ext2, 128-byte inodes, ^dir_index, no huge_file
#   ext2-1k            small ext2 with a triple-indirect file
#   sample             a friendly image for `make run`

set -u -o pipefail
export LC_ALL=C

die() { echo "mkimages: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: $0 OUTDIR [IMAGE...]"
[ "$(id -u)" = 0 ] || die "must run as root (mounts loop devices)"
for t in mke2fs tune2fs e2fsck debugfs xfs_io mountpoint mount umount gzip truncate awk md5sum; do
	command -v "$t" >/dev/null 2>&1 || die "missing tool: $t"
done

mkdir -p "$1" || die "cannot create $1"
OUT=$(cd "$1" && pwd)
shift
WANT=" ${*:-} "

WORK=$(mktemp -d /tmp/mkimg-XXXXXX) || die "mktemp failed"
MNT=$WORK/mnt
mkdir -p "$MNT"
IMG=""
NAME=""

cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" || umount -l "$MNT"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A private mke2fs.conf: the image layout must not depend on the host's file.
export MKE2FS_CONFIG=$(cd "$(dirname "$0")" && pwd)/mke2fs.conf
export E2FSPROGS_FAKE_TIME=1700000000

PIN=()
command -v taskset >/dev/null 2>&1 && PIN=(taskset -c 0)

SETFATTR=1
command -v setfattr >/dev/null 2>&1 || SETFATTR=0
if [ $SETFATTR = 0 ] && ! command -v python3 >/dev/null 2>&1; then
	die "need setfattr (package attr) or python3"
fi

REFUSED=$WORK/refused.log   # operations the kernel refused (expected or not)
FSCK=$WORK/fsck.log         # e2fsck findings
SUMMARY=$WORK/summary.log   # per-file description
: >"$REFUSED"; : >"$FSCK"; : >"$SUMMARY"
FILES=()                    # paths made in the current image, for the summary

log() { printf '%s\n' "$*"; }

# uuid_of STRING: a fixed, valid UUID derived from STRING.
uuid_of() {
	local h
	h=$(printf '%s' "$1" | md5sum | cut -c1-32)
	printf '%s-%s-4%s-8%s-%s\n' "${h:0:8}" "${h:8:4}" "${h:13:3}" "${h:17:3}" "${h:20:12}"
}

want() { [ "$WANT" = "  " ] || [[ "$WANT" == *" $1 "* ]]; }

# new_image NAME SIZE_MIB FSTYPE [mke2fs options...]: make and mount $IMG.
new_image() {
	NAME=$1; local size=$2 type=$3; shift 3
	IMG=$WORK/$NAME.img
	FILES=()
	log "== $NAME: mke2fs -t $type $* (${size} MiB)"
	rm -f "$IMG"
	truncate -s "${size}M" "$IMG" || die "truncate $IMG"
	mke2fs -q -F -t "$type" -L "${NAME:0:16}" -U "$(uuid_of "$NAME")" \
		-E "hash_seed=$(uuid_of "hash:$NAME"),lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0" \
		"$@" "$IMG" || die "mke2fs failed for $NAME"
	mount -o loop "$IMG" "$MNT" || die "mount failed for $NAME"
}

# finish: umount, fsck, describe, compress.
finish() {
	sync
	umount "$MNT" || die "umount failed for $NAME"
	local out
	if ! out=$(e2fsck -fn "$IMG" 2>&1); then
		{ echo "== $NAME: e2fsck -fn reported problems:"; echo "$out"; } >>"$FSCK"
		log "   e2fsck -fn: PROBLEMS (see end of log)"
	else
		log "   e2fsck -fn: clean"
	fi
	describe
	gzip -9 -n -c "$IMG" >"$OUT/$NAME.img.gz" || die "gzip failed for $NAME"
	rm -f "$IMG"
	log "   -> $OUT/$NAME.img.gz ($(du -k "$OUT/$NAME.img.gz" | cut -f1) KiB)"
}

# refuse OP-DESCRIPTION MESSAGE: note a refused operation.
refuse() { printf '%s: %s: %s\n' "$NAME" "$1" "$2" | tr '\n' ' ' >>"$REFUSED"; echo >>"$REFUSED"; }

# io PATH CMD...: run xfs_io commands on $MNT/PATH (created if missing),
# then fsync.  Failures are logged, not fatal.
io() {
	local f=$1; shift
	local args=() c err
	for c in "$@"; do args+=(-c "$c"); done
	mkdir -p "$(dirname "$MNT/$f")"
	err=$("${PIN[@]}" xfs_io -f "${args[@]}" -c fsync "$MNT/$f" 2>&1 >/dev/null)
	if [ $? -ne 0 ] || [ -n "$err" ]; then
		refuse "/$f: xfs_io $*" "$err"
	fi
	track "$f"
}

track() {
	local p
	for p in "${FILES[@]+"${FILES[@]}"}"; do [ "$p" = "/$1" ] && return; done
	FILES+=("/$1")
}

# batch_io PATH: read xfs_io commands on stdin, run them in batches.
batch_io() {
	local f=$1 line args=() n=0
	mkdir -p "$(dirname "$MNT/$f")"
	while IFS= read -r line; do
		args+=(-c "$line"); n=$((n + 1))
		if [ $n -ge 2000 ]; then
			"${PIN[@]}" xfs_io -f "${args[@]}" "$MNT/$f" >/dev/null 2>>"$WORK/batch.err"
			args=(); n=0
		fi
	done
	args+=(-c fsync)
	"${PIN[@]}" xfs_io -f "${args[@]}" "$MNT/$f" >/dev/null 2>>"$WORK/batch.err"
	if [ -s "$WORK/batch.err" ]; then
		refuse "/$f: batch xfs_io" "$(head -3 "$WORK/batch.err")"
		: >"$WORK/batch.err"
	fi
	track "$f"
}

# stride PATH FIRST_BLOCK STEP COUNT BS [PATTERN]: write one block every
# STEP blocks, COUNT times: COUNT separate extents (or pointer runs).
stride() {
	local f=$1 first=$2 step=$3 count=$4 bs=$5 pat=${6:-0x61}
	batch_io "$f" < <(awk -v a="$first" -v s="$step" -v n="$count" -v bs="$bs" -v p="$pat" \
		'BEGIN { for (i = 0; i < n; i++) printf "pwrite -q -S %s %d %d\n", p, (a + i * s) * bs, bs }')
}

# randw PATH SEED COUNT SPAN_BLOCKS BS: COUNT writes of 1..3 blocks (some at
# unaligned offsets, some of odd lengths) at pseudo-random places in
# [0, SPAN_BLOCKS) blocks.  A 32-bit LCG with a fixed seed: reproducible.
randw() {
	local f=$1 seed=$2 count=$3 span=$4 bs=$5
	batch_io "$f" < <(awk -v x="$seed" -v n="$count" -v span="$span" -v bs="$bs" '
	function rnd(m) { x = (x * 1103515245 + 12345) % 2147483648; return int(x / 65536) % m }
	BEGIN {
		for (i = 0; i < n; i++) {
			b = rnd(span); len = (rnd(3) + 1) * bs; off = b * bs
			if (rnd(4) == 0) off += rnd(bs)
			if (rnd(5) == 0) len -= rnd(bs)
			printf "pwrite -q -S 0x%02x %d %d\n", 97 + i % 26, off, len
		}
	}')
}

# setx PATH NAME VALUE: set an extended attribute (user.NAME unless NAME has a dot).
setx() {
	local f=$MNT/$1 n=$2 v=$3
	[[ $n == *.* ]] || n=user.$n
	if [ $SETFATTR = 1 ]; then
		setfattr -n "$n" -v "$v" "$f" 2>"$WORK/x.err" || refuse "/$1: setfattr $n (${#v} bytes)" "$(cat "$WORK/x.err")"
	else
		python3 -c 'import os,sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode())' "$f" "$n" "$v" \
			2>"$WORK/x.err" || refuse "/$1: setxattr $n (${#v} bytes)" "$(tail -1 "$WORK/x.err")"
	fi
	track "$1"
}

# str N [CHAR]: N copies of CHAR.
str() { local s; printf -v s '%*s' "$1" ''; printf '%s' "${s// /${2:-x}}"; }

mkd() { mkdir -p "$MNT/$1" && track "$1"; }
lnk() { ln -s "$1" "$MNT/$2" && track "$2"; }
fifo() { mkfifo "$MNT/$1" && track "$1"; }

# create_entries DIR COUNT [PREFIX]: COUNT empty files named PREFIX-NNNN.
create_entries() {
	local d=$1 n=$2 p=${3:-entry} i
	mkd "$d"
	for ((i = 0; i < n; i++)); do
		: >"$MNT/$d/$(printf '%s-%04d' "$p" "$i")"
	done
}

# describe: print one line per tracked path (mode, size, mapping, depth).
describe() {
	local p st kind depth nex size
	for p in "${FILES[@]+"${FILES[@]}"}"; do
		st=$(debugfs -R "stat \"$p\"" "$IMG" 2>/dev/null)
		size=$(printf '%s\n' "$st" | sed -n 's/.*Size: \([0-9]*\).*/\1/p' | head -1)
		kind=$(printf '%s\n' "$st" | sed -n 's/^Inode: .*Type: \([A-Za-z]*\).*/\1/p' | head -1)
		local flags
		flags=$(printf '%s\n' "$st" | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p' | head -1)
		flags=$((${flags:-0}))
		if printf '%s\n' "$st" | grep -q 'Size of inline data'; then
			depth="inline($(printf '%s\n' "$st" | sed -n 's/.*Size of inline data: \([0-9]*\).*/\1/p'))"
		elif [ $((flags & 0x80000)) -ne 0 ]; then
			local ex
			ex=$(debugfs -R "ex \"$p\"" "$IMG" 2>/dev/null)
			depth=$(printf '%s\n' "$ex" | awk 'NR == 2 { print $2 + 0 }')
			nex=$(printf '%s\n' "$ex" | awk -v d="${depth:-0}" 'NR > 1 && $1 + 0 == d { n++ } END { print n + 0 }')
			depth="extents depth=${depth:-0} leaf_extents=$nex"
		elif [ "$kind" = symlink ] || [ "$kind" = FIFO ] || [ "$kind" = fifo ]; then
			depth=""
		else
			local nb
			nb=$(printf '%s\n' "$st" | sed -n 's/.*Blockcount: \([0-9]*\).*/\1/p' | head -1)
			depth="blockmap i_blocks=$nb"
		fi
		printf '   %-28s %-9s size=%-15s %s\n' "$p" "$kind" "$size" "$depth" | tee -a "$SUMMARY"
	done
}

###########################################################################
# File sets shared by several images.

# ext_files BS MAXBYTES: the extent-file set (ext4 with extents).
ext_files() {
	local b=$1 max=$2
	io empty
	io empty_prealloc "falloc -k 0 16384"
	io tiny "pwrite -q -S 0x74 0 13"
	io small5000 "pwrite -q -S 0x62 0 5000"
	io dense "pwrite -q -S 0x64 -b $((64 * b)) 0 $((256 * b))"
	io sparse "pwrite -q -S 0x73 $((16 * b)) $((4 * b))" "pwrite -q -S 0x53 $((64 * b)) $((2 * b))" "truncate $((128 * b))"
	io leading_hole "pwrite -q -S 0x6c $((100 * b)) $b"
	io trailing_hole "pwrite -q -S 0x6d 0 $((2 * b))" "truncate $((10 * b))"
	io trunc_down "pwrite -q -S 0x44 0 $((64 * b))" "truncate $((2 * b + 100))"
	io trunc_up "pwrite -q -S 0x55 0 $((3 * b + 5))" "truncate $((20 * b))"
	io prealloc "falloc 0 $((64 * b))"
	io prealloc_past_eof "pwrite -q -S 0x70 0 $((2 * b))" "falloc -k $((2 * b)) $((4 * b))"
	io prealloc_gap_past_eof "pwrite -q -S 0x71 0 $((2 * b))" "falloc -k $((6 * b)) $((2 * b))"
	io prealloc_partial "falloc 0 $((64 * b))" "pwrite -q -S 0x50 0 $b" \
		"pwrite -q -S 0x51 $((20 * b + 100)) 3000" "pwrite -q -S 0x52 $((63 * b)) $b"
	io fzero "pwrite -q -S 0x7a 0 $((32 * b))" "fzero $((b + 100)) $((10 * b))"
	io fzero_past_eof "pwrite -q -S 0x7a 0 $((2 * b))" "fzero -k $((4 * b)) $((4 * b))"
	io punched "pwrite -q -S 0x68 0 $((64 * b))" "fpunch $((8 * b)) $((8 * b))" \
		"fpunch $((30 * b + 100)) $((3 * b))" "fpunch $((60 * b)) $((4 * b))"
	io collapsed "pwrite -q -S 0x63 0 $((32 * b))" "pwrite -q -S 0x43 $((32 * b)) $((32 * b))" \
		"fcollapse $((16 * b)) $((8 * b))"
	io collapse_unaligned "pwrite -q -S 0x63 0 $((16 * b))" "fcollapse 1000 $b"
	io inserted "pwrite -q -S 0x69 0 $((32 * b))" "finsert $((8 * b)) $((8 * b))"
	io insert_prealloc "falloc 0 $((16 * b))" "pwrite -q -S 0x49 0 $((4 * b))" "finsert $((4 * b)) $((4 * b))"
	randw random 12345 120 2048 "$b"
	stride ext_4 0 2 4 "$b"         # exactly 4 extents: full root, depth 0
	stride ext_5 0 2 5 "$b"         # 5 extents: depth 1
	stride ext_200 0 2 200 "$b"     # depth 1
	# Unwritten/written alternation: falloc, then write every other block.
	batch_io alternating < <(echo "falloc 0 $((120 * b))"
		awk -v bs="$b" 'BEGIN { for (i = 0; i < 60; i++) printf "pwrite -q -S 0x77 %d %d\n", 2 * i * bs, bs }')
	[ -n "$max" ] && io maxbytes "pwrite -q -S 0x4d $((max - b)) $b"
	[ -n "$max" ] && io near_maxbytes_sparse "pwrite -q -S 0x4e 0 $b" "pwrite -q -S 0x4e $((max - 4 * b)) $((2 * b))"
}

# blk_files BS MAXBYTES: the block-mapped set (ext2, ext3, ext4 ^extents).
blk_files() {
	local b=$1 max=$2 p=$(($1 / 4))
	local ind=12 dind=$((12 + $1 / 4)) tind=$((12 + $1 / 4 + ($1 / 4) * ($1 / 4)))
	io empty
	io tiny "pwrite -q -S 0x74 0 13"
	io small5000 "pwrite -q -S 0x62 0 5000"
	io direct_dense "pwrite -q -S 0x64 0 $((12 * b))"
	stride direct_sparse 0 5 3 "$b"                        # blocks 0, 5, 10
	io indirect_dense "pwrite -q -S 0x69 -b $((64 * b)) 0 $(((ind + p / 2) * b))"
	io indirect_sparse "pwrite -q -S 0x69 $((ind * b)) $b" "pwrite -q -S 0x69 $(((ind + 100) * b)) $((3 * b))"
	# Dense through the single-indirect window and three double-indirect windows.
	io dind_dense "pwrite -q -S 0x44 -b $((64 * b)) 0 $(((dind + 2 * p + 50) * b))"
	io dind_sparse "pwrite -q -S 0x45 $(((dind + 3) * b)) $b" "pwrite -q -S 0x45 $(((dind + 5 * p + 7) * b)) $((2 * b))" \
		"truncate $(((dind + 6 * p) * b))"
	io tind_sparse "pwrite -q -S 0x54 0 $b" "pwrite -q -S 0x54 $((tind * b)) $((3 * b))" \
		"pwrite -q -S 0x54 $(((tind + p - 1) * b)) $((2 * b))" \
		"pwrite -q -S 0x54 $(((tind + p * p + 5) * b)) $b"
	io sparse "pwrite -q -S 0x73 $((16 * b)) $((4 * b))" "pwrite -q -S 0x53 $((64 * b)) $((2 * b))" "truncate $((128 * b))"
	io leading_hole "pwrite -q -S 0x6c $((100 * b)) $b"
	io trailing_hole "pwrite -q -S 0x6d 0 $((2 * b))" "truncate $((10 * b))"
	io trunc_down "pwrite -q -S 0x44 0 $((300 * b))" "truncate $((2 * b + 100))"
	io trunc_up "pwrite -q -S 0x55 0 $((3 * b + 5))" "truncate $((20 * b))"
	io punched "pwrite -q -S 0x68 0 $((64 * b))" "fpunch $((8 * b)) $((8 * b))" "fpunch $((30 * b + 100)) $((3 * b))"
	randw random 4242 150 $((dind + 2 * p)) "$b"
	stride every_other 0 2 300 "$b"
	# Expected refusals: no unwritten extents on block-mapped inodes.
	io falloc_refused "pwrite -q -S 0x66 0 $b" "falloc -k $b $((4 * b))"
	[ -n "$max" ] && io maxbytes "pwrite -q -S 0x4d $((max - b)) $b"
	[ -n "$max" ] && io maxbytes_plus_one "pwrite -q -S 0x4d $max $b"
}

# tree_files BS: directories, symlinks, a fifo, xattrs.
tree_files() {
	local b=$1
	mkd emptydir
	mkd dir
	io dir/a "pwrite -q -S 0x61 0 100"
	io dir/b "pwrite -q -S 0x62 0 $((3 * b))"
	io dir/sub/c "pwrite -q -S 0x63 0 10"
	create_entries bigdir 400           # multi-block: htree where dir_index is on
	lnk dir/a fastlink
	lnk "dir/sub/../../dir/sub/../../dir/sub/../../dir/sub/../../dir/sub/../../dir/a" slowlink
	lnk dir/sub dirlink                 # /dirlink/c: symlink in mid-path
	lnk nowhere/at/all dangling
	fifo fifo
	io xattr_inode "pwrite -q -S 0x78 0 $b"
	setx xattr_inode small "hello"
	setx xattr_inode two "0123456789"
	io xattr_block "pwrite -q -S 0x78 0 $b"
	setx xattr_block big "$(str $((b / 2)) B)"
	io xattr_both "pwrite -q -S 0x78 0 $b"
	setx xattr_both s 1
	setx xattr_both big "$(str $((b / 2)) C)"
	io xattr_many
	local i
	for ((i = 0; i < 24; i++)); do setx xattr_many "$(printf 'name%02d' $i)" "$(str 20 v)"; done
	mkd xattr_dir
	setx xattr_dir small "dir-attr"
}

###########################################################################
# The images.

if want ext4-4k; then
	# Default ext4 (64bit, metadata_csum, huge_file, flex_bg, dir_index), 4 KiB.
	new_image ext4-4k 48 ext4 -b 4096 -I 256
	ext_files 4096 17592186040320
	stride ext_1500 0 2 1500 4096   # > 4*340 extents: depth 2 on 4 KiB blocks
	tree_files 4096
	finish
fi

if want ext4-1k; then
	# 1 KiB blocks; sparse_super2 without backups so that a 38 MiB run is
	# physically contiguous and splits only at the 32768-block extent limit.
	new_image ext4-1k 64 ext4 -b 1024 -I 256 -O sparse_super2 -E num_backup_sb=0
	io prealloc_7m "falloc 0 7m"
	io long_contig "falloc 0 40m" "pwrite -q -S 0x4c -b 1m 0 38m"
	ext_files 1024 4398046510080
	stride ext_500 0 2 500 1024     # > 4*84 extents: depth 2
	tree_files 1024
	finish
fi

if want ext4-2k; then
	# 2 KiB blocks, 512-byte inodes (large in-inode xattr area), inline_data.
	new_image ext4-2k 32 ext4 -b 2048 -I 512 -O inline_data
	ext_files 2048 8796093020160
	stride ext_800 0 2 800 2048     # > 4*169 extents: depth 2
	io inl_small "pwrite -q -S 0x31 0 40"
	io inl_300 "pwrite -q -S 0x32 0 300"
	tree_files 2048
	finish
fi

if want ext4-deep; then
	# 1 KiB blocks: 84 extents per leaf/index block, 4 in the inode root.
	new_image ext4-deep 64 ext4 -b 1024 -I 256
	stride deep0 0 2 3 1024
	stride deep1 0 2 300 1024       # <= 336: depth 1
	stride deep2 0 2 3000 1024      # <= 28224: depth 2
	stride deep3 0 2 28400 1024     # > 4*84*84 = 28224: depth 3
	# Depth 2 tree with a leading hole and unwritten/written alternation.
	batch_io deep_alternating < <(echo "falloc $((5000 * 1024)) $((1200 * 1024))"
		awk 'BEGIN { for (i = 0; i < 600; i++) printf "pwrite -q -S 0x77 %d 1024\n", (5000 + 2 * i) * 1024 }')
	finish
fi

if want ext3-1k; then
	# Block-mapped ext3 (journal, dir_index), 1 KiB blocks: the
	# triple-indirect tree starts at block 12+256+65536 = 65804.
	new_image ext3-1k 64 ext3 -b 1024 -I 256
	blk_files 1024 17247252480
	tree_files 1024
	finish
fi

if want ext3-2k; then
	# Block-mapped with 2 KiB blocks (512 pointers per block).
	new_image ext3-2k 32 ext3 -b 2048 -I 256
	blk_files 2048 275415851008
	tree_files 2048
	finish
fi

if want ext2-4k; then
	# ext2, 4 KiB, 128-byte inodes (no in-inode xattrs), no dir_index (big
	# directories are plain multi-block), no huge_file.
	new_image ext2-4k 32 ext2 -b 4096 -I 128 -O ^dir_index
	blk_files 4096 2196873666560
	tree_files 4096
	finish
fi

if want ext2-1k; then
	new_image ext2-1k 16 ext2 -b 1024 -I 128
	io direct_dense "pwrite -q -S 0x64 0 $((12 * 1024))"
	io dense "pwrite -q -S 0x64 -b 65536 0 $((2000 * 1024))"
	io sparse "pwrite -q -S 0x73 16384 4096" "pwrite -q -S 0x53 300000 2048" "truncate 1000000"
	io tind "pwrite -q -S 0x54 $((65804 * 1024)) 3072"
	io maxbytes "pwrite -q -S 0x4d $((17247252480 - 1024)) 1024"
	create_entries bigdir 300
	lnk dense fastlink
	finish
fi

if want ext4-noextents; then
	# ext4 without extents (block-mapped files on ext4; ^64bit is required).
	new_image ext4-noextents 32 ext4 -b 4096 -I 256 -O ^extent,^64bit
	blk_files 4096 4402345721856
	tree_files 4096
	finish
fi

if want ext4-mixed; then
	# Made as ext3, then extents switched on: old files stay block-mapped,
	# files written afterwards are extent-mapped.
	new_image ext4-mixed 16 ext3 -b 4096 -I 256
	io old_blockmap "pwrite -q -S 0x6f 0 $((40 * 4096))"
	io old_falloc_refused "pwrite -q -S 0x6f 0 4096"
	io old_sparse "pwrite -q -S 0x6f $((20 * 4096)) 4096" "truncate $((100 * 4096))"
	mkd olddir
	sync
	umount "$MNT"
	tune2fs -O extent "$IMG" >/dev/null || die "tune2fs failed"
	mount -t ext4 -o loop "$IMG" "$MNT" || die "mount failed for $NAME"
	io new_extents "pwrite -q -S 0x6e 0 $((40 * 4096))"
	io new_prealloc "falloc 0 $((16 * 4096))" "pwrite -q -S 0x6e 4096 4096"
	io old_blockmap "pwrite -q -S 0x4f $((60 * 4096)) 4096"
	io old_falloc_refused "pwrite -q -S 0x6f 0 4096" "falloc -k 4096 8192"
	mkd newdir
	finish
fi

if want ext4-inline; then
	# inline_data, 256-byte inodes: capacity 60 + (96-byte xattr area - overhead).
	new_image ext4-inline 16 ext4 -b 4096 -I 256 -O inline_data
	io empty
	for n in 1 10 59 60 61 100 120 128 129 160; do io "inl$n" "pwrite -q -S 0x69 0 $n"; done
	io outgrew "pwrite -q -S 0x6f 0 10" "pwrite -q -S 0x4f 0 5000"
	io outgrew_small "pwrite -q -S 0x6f 0 10" "pwrite -q -S 0x4f 10 200"
	io inl_trunc_up "pwrite -q -S 0x75 0 10" "truncate 8192"
	io inl_trunc_up_small "pwrite -q -S 0x75 0 10" "truncate 50"
	io inl_trunc_down "pwrite -q -S 0x64 0 100" "truncate 7"
	io inl_hole_write "pwrite -q -S 0x68 40 10"
	io inl_with_xattr "pwrite -q -S 0x78 0 30"
	setx inl_with_xattr tag "abc"
	io inl_xattr_grow "pwrite -q -S 0x78 0 100"
	setx inl_xattr_grow tag "$(str 40 t)"
	io inl_falloc "pwrite -q -S 0x66 0 10" "falloc -k 0 4096"
	io inl_fpunch "pwrite -q -S 0x66 0 50" "fpunch 0 20"
	io inl_sparse_far "pwrite -q -S 0x66 0 10" "pwrite -q -S 0x67 $((100 * 4096)) 10"
	mkd dir_inline
	io dir_inline/f1 "pwrite -q -S 0x61 0 5"
	io dir_inline/f2 "pwrite -q -S 0x62 0 5"
	create_entries dir_outgrew 80 name
	mkd emptydir
	lnk inl10 fastlink
	lnk "$(str 80 d)/../inl10" slowlink
	io extfile "pwrite -q -S 0x65 0 $((10 * 4096))"
	finish
fi

if want ext4-links; then
	# Symlinks followed as open(2) follows them, the last component
	# included: fast, slow and inline-data links (the last made by debugfs,
	# as the kernel never writes one), relative with "..", absolute (from
	# the image's root), chains, loops, 40 and 41 links, dangling ones,
	# trailing slashes, links met through other links.  The paths find
	# does not list are in scripts/gen/ext4-links.paths (record.sh reads it).
	new_image ext4-links 16 ext4 -b 4096 -I 256 -O inline_data
	printf 'hello\n' >"$MNT/small"; track small     # 6 bytes, inline
	io big "pwrite -q -S 0x62 0 4096" "pwrite -q -S 0x42 16384 8192"
	io dir/file "pwrite -q -S 0x66 0 10000"
	io dir/sub/deep "pwrite -q -S 0x64 0 5000" "truncate 40000"
	mkd emptydir
	lnk small fast                      # e2map seek -a -r: DATA 0, HOLE 6
	lnk big fast_big
	lnk "dir/sub/../../dir/sub/../../dir/sub/../../dir/sub/../../dir/sub/../../big" slow
	lnk "$(printf 'sub/..%.0s/' {1..150})sub/deep" dir/long_slow   # 1 KiB
	lnk dir to_dir
	lnk to_dir to_dir2                  # a link to a link to a directory
	lnk dir/ to_dir_slash               # a target with a trailing slash
	lnk small/ to_file_slash            # ENOTDIR
	lnk emptydir to_emptydir
	lnk /big abs
	lnk /dir/sub abs_dir
	lnk /../../../dir/file abs_dotdot   # ".." stops at the image's root
	lnk "/dir/sub/../sub/../sub/../sub/../sub/../sub/../sub/../sub/deep" abs_slow
	lnk / abs_root
	lnk . dot
	lnk .. dotdot
	lnk chain2 chain1
	lnk chain3 chain2
	lnk big chain3
	lnk loop_b loop_a
	lnk loop_a loop_b
	lnk self self
	mkd c                               # c/01 -> 02 -> ... -> 40 -> ../small
	for ((i = 1; i < 40; i++)); do
		lnk "$(printf '%02d' $((i + 1)))" "c/$(printf '%02d' $i)"
	done
	lnk ../small c/40
	lnk c/02 chain40                    # 1 + 39 links: followed
	lnk c/01 chain41                    # 1 + 40 links: ELOOP
	lnk nowhere dangling
	lnk /nowhere/at/all dangling_abs
	lnk dir/nothere/x dangling_mid
	lnk small/x through_file            # ENOTDIR inside the target
	lnk ../file dir/sub/upfile
	lnk ../../big dir/sub/up2
	lnk .. dir/up
	lnk /dir/file dir/sub/rel_abs
	lnk sub/deep dir/link_in_dir
	lnk ../to_dir dir/back
	sync
	umount "$MNT" || die "umount failed for $NAME"
	# Inline-data symlinks (targets of 60 bytes or more kept in the inode).
	debugfs -w -R "symlink /inline_link dir/$(printf 'sub/../%.0s' {1..10})file" "$IMG" >/dev/null 2>&1 ||
		refuse "/inline_link: debugfs symlink" "failed"
	debugfs -w -R "symlink /dir/inline_abs /dir/$(printf 'sub/../%.0s' {1..10})sub/deep" "$IMG" >/dev/null 2>&1 ||
		refuse "/dir/inline_abs: debugfs symlink" "failed"
	track inline_link; track dir/inline_abs
	mount -o loop "$IMG" "$MNT" || die "mount failed for $NAME"
	finish
fi

if want ext4-bigalloc; then
	new_image ext4-bigalloc 32 ext4 -b 4096 -I 256 -O bigalloc -C 16384
	io one_block "pwrite -q -S 0x31 0 4096"
	io blk_0_2_9 "pwrite -q -S 0x30 0 4096" "pwrite -q -S 0x32 8192 4096" "pwrite -q -S 0x39 36864 4096"
	io prealloc_10000 "falloc 0 10000"
	io prealloc_unaligned "falloc 5000 20000"
	io prealloc_past_eof "pwrite -q -S 0x70 0 4096" "falloc -k 4096 40000"
	io dense "pwrite -q -S 0x64 0 $((100 * 4096))"
	io punched_in_cluster "pwrite -q -S 0x68 0 $((32 * 4096))" "fpunch 4096 4096" "fpunch $((9 * 4096)) $((6 * 4096))"
	io collapsed "pwrite -q -S 0x63 0 $((32 * 4096))" "fcollapse $((8 * 4096)) $((4 * 4096))"
	io collapse_not_cluster "pwrite -q -S 0x63 0 $((32 * 4096))" "fcollapse 4096 4096"
	io inserted "pwrite -q -S 0x69 0 $((16 * 4096))" "finsert $((4 * 4096)) $((4 * 4096))"
	io fzero "pwrite -q -S 0x7a 0 $((32 * 4096))" "fzero 5000 40000"
	io sparse "pwrite -q -S 0x73 $((17 * 4096)) 100" "truncate $((64 * 4096))"
	stride ext_400 0 5 400 4096     # one block every 5 (clusters of 4): depth 1
	io maxbytes "pwrite -q -S 0x4d $((17592186040320 - 4096)) 4096"
	mkd dir
	io dir/x "pwrite -q -S 0x78 0 100"
	io xattr_block "pwrite -q -S 0x78 0 10"
	setx xattr_block big "$(str 2000 B)"
	finish
fi

if want ext4-no64bit-nocsum; then
	# Older ext4 layout: 32-bit block numbers, no metadata checksums, and no
	# dir_index (multi-block extent-mapped directories without htree).
	new_image ext4-no64bit-nocsum 32 ext4 -b 4096 -I 256 -O ^metadata_csum,^64bit,^dir_index
	ext_files 4096 17592186040320
	tree_files 4096
	finish
fi

if want ext4-nohuge; then
	# huge_file off: s_maxbytes capped by the 32-bit i_blocks limit.
	new_image ext4-nohuge 16 ext4 -b 4096 -I 256 -O ^huge_file
	io maxbytes "pwrite -q -S 0x4d $((2199023251456 - 4096)) 4096"
	io maxbytes_plus_one "pwrite -q -S 0x4d 2199023251456 4096"
	io sparse "pwrite -q -S 0x73 $((16 * 4096)) 4096" "truncate $((64 * 4096))"
	io prealloc_past_eof "pwrite -q -S 0x70 0 8192" "falloc -k 16384 16384"
	stride ext_20 0 3 20 4096
	finish
fi

if want ext4-nohuge-1k; then
	new_image ext4-nohuge-1k 16 ext4 -b 1024 -I 256 -O ^huge_file
	io maxbytes "pwrite -q -S 0x4d $((2199023254528 - 1024)) 1024"
	io sparse "pwrite -q -S 0x73 $((16 * 1024)) 1024" "truncate $((64 * 1024))"
	stride ext_20 0 3 20 1024
	finish
fi

if want sample; then
	# The friendly image for `make run`.
	new_image sample 16 ext4 -b 4096 -I 256
	printf 'Hello from e2map!\n' >"$MNT/hello.txt"; track hello.txt
	io sparse.bin "pwrite -q -S 0x41 0 65536" "pwrite -q -S 0x42 1048576 65536" "truncate 2097152"
	io prealloc.bin "falloc 0 262144" "pwrite -q -S 0x43 0 16384"
	io reserved.log "pwrite -q -S 0x44 0 8192" "falloc -k 8192 57344"
	io empty
	mkd docs
	printf 'Notes:\n- lseek(SEEK_DATA/SEEK_HOLE)\n- FS_IOC_FIEMAP\n' >"$MNT/docs/notes.txt"; track docs/notes.txt
	io docs/big.dat "pwrite -q -S 0x45 -b 262144 0 1048576"
	lnk docs/notes.txt notes-link
	chmod 644 "$MNT"/*.bin "$MNT"/*.log "$MNT"/empty "$MNT"/docs/*
	finish
fi

###########################################################################
compgen -G "$OUT/*.img.gz" >/dev/null || die "no image built (unknown image name?)"
log ""
log "== refused by the kernel (or by xfs_io):"
if [ -s "$REFUSED" ]; then sed 's/^/   /' "$REFUSED"; else log "   (none)"; fi
log "== e2fsck -fn:"
if [ -s "$FSCK" ]; then cat "$FSCK"; else log "   all images clean"; fi
log "== sizes:"
du -k "$OUT"/*.img.gz | sed 's/^/   /'
total=$(du -ck "$OUT"/*.img.gz | tail -1 | cut -f1)
log "   total ${total} KiB"
[ "$total" -le 20480 ] || log "   WARNING: total above 20 MiB"
exit 0

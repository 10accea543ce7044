#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mknames.sh OUTDIR
#
# Two small kernel-made images for `check`, the path table and --json
# (loop mount, real syscalls, umount, `e2fsck -fn` must be clean), written
# as OUTDIR/NAME.img.gz (gzip -9 -n).  Needs root, loop devices,
# e2fsprogs and setfattr (package attr).
#
#   ext4-ea_inode  mkfs.ext4 -O ea_inode: xattr values of 8000 and 20000
#                  bytes live in EA inodes (EXT4_EA_INODE_FL, no name in any
#                  directory); two files share one value (one EA inode with
#                  two references); a directory carries one too.
#   ext4-names     names that are not UTF-8 (a lone 0xff, a truncated and an
#                  overlong sequence, a UTF-16 surrogate, a code point above
#                  U+10FFFF), UTF-8 names, a tab in a name, hard links in
#                  three directories, a 200-entry htree directory and a
#                  directory tree 12 levels deep.
#
# Then record the kernel's answers for them (as for every testdata image):
#   scripts/record/record.sh OUTDIR/NAME.img.gz OUTDIR
#   scripts/record/paths.sh OUTDIR/NAME.img.gz OUTDIR
set -eu -o pipefail
export LC_ALL=C
export MKE2FS_CONFIG=$(cd "$(dirname "$0")" && pwd)/mke2fs.conf
export E2FSPROGS_FAKE_TIME=1700000000

die() { echo "mknames: $*" >&2; exit 1; }
[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "must run as root (loop mounts)"
command -v setfattr >/dev/null || die "missing setfattr (package attr)"
mkdir -p "$1"
out=$(cd "$1" && pwd)
work=$(mktemp -d /tmp/mknames-XXXXXX)
mnt=$work/mnt
mkdir "$mnt"
trap 'mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$work"' EXIT

# new_image NAME UUID-SUFFIX MKE2FS-OPTIONS...: make and mount $work/NAME.img.
new_image() {
	local name=$1 id=$2
	shift 2
	truncate -s 8M "$work/$name.img"
	mke2fs -q -F -t ext4 -b 4096 -U "6e616d65-7300-4000-8000-00000000000$id" \
		-E "hash_seed=6e616d65-7300-4000-8000-00000000010$id,lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0" \
		"$@" "$work/$name.img"
	mount -o loop "$work/$name.img" "$mnt"
}

# finish NAME: umount, require a clean e2fsck -fn, compress.
finish() {
	sync
	umount "$mnt"
	e2fsck -fn "$work/$1.img" >"$work/fsck.log" 2>&1 ||
		{ cat "$work/fsck.log" >&2; die "$1: e2fsck -fn is not clean"; }
	echo "$1: e2fsck -fn clean"
	gzip -9 -n -c "$work/$1.img" >"$out/$1.img.gz"
	echo "  -> $out/$1.img.gz ($(du -k "$out/$1.img.gz" | cut -f1) KiB)"
}

# value N CHAR: N copies of CHAR.
value() { local s; printf -v s '%*s' "$1" ''; printf '%s' "${s// /$2}"; }

# put PATH BYTE SIZE: a file of SIZE bytes of BYTE, written and synced.
put() { xfs_io -f -c "pwrite -q -S $2 0 $3" -c fsync "$1"; }

new_image ext4-ea_inode 1 -O ea_inode
put "$mnt/small" 0x73 6
put "$mnt/big_xattr" 0x62 5000
setfattr -n user.big -v "$(value 8000 e)" "$mnt/big_xattr"
put "$mnt/two_xattrs" 0x74 9000
setfattr -n user.a -v "$(value 8000 a)" "$mnt/two_xattrs"
setfattr -n user.b -v "$(value 20000 b)" "$mnt/two_xattrs"
put "$mnt/shared1" 0x31 100
put "$mnt/shared2" 0x32 100
setfattr -n user.same -v "$(value 8000 s)" "$mnt/shared1"
setfattr -n user.same -v "$(value 8000 s)" "$mnt/shared2"
mkdir "$mnt/dir"
setfattr -n user.dir -v "$(value 8000 d)" "$mnt/dir"
put "$mnt/dir/inner" 0x69 4096
finish ext4-ea_inode

new_image ext4-names 2
mkdir "$mnt/bad" "$mnt/utf8" "$mnt/links" "$mnt/links/sub" "$mnt/htree"
for n in $'\xff' $'a\xc3(b' $'\x80cont' $'\xc0\xafoverlong' \
	$'\xed\xa0\x80surrogate' $'\xf4\x90\x80\x80big' $'trunc\xe6\x97'; do
	put "$mnt/bad/$n" 0x6e 3000
done
mkdir "$mnt/bad/"$'\xfe\xfedir'
put "$mnt/bad/"$'\xfe\xfedir'/inside 0x69 100
put "$mnt/utf8/é日本ü" 0x75 5000
put "$mnt/utf8/"$'tab\there' 0x09 10
put "$mnt/links/file" 0x6c 8192
ln "$mnt/links/file" "$mnt/links/sub/again"
ln "$mnt/links/file" "$mnt/utf8/link_é"
for ((i = 0; i < 200; i++)); do : >"$mnt/htree/entry-$(printf %04d $i)"; done
d=$mnt/deep
for ((i = 0; i < 12; i++)); do d=$d/d$i; done
mkdir -p "$d"
put "$d/bottom" 0x62 4096
finish ext4-names

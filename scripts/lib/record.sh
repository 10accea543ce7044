# SPDX-License-Identifier: GPL-2.0-or-later
# The shared start of the recorders in scripts/record/ that read one image
# on the kernel's read-only mount (du, paths, read, readdir, scan, xattr):
#
#   . "$(dirname "$0")/../lib/record.sh"
#   record_start NAME "$@"      # IMAGE.img[.gz|.bz2] OUTDIR
#
# It checks the arguments and root, and sets SRC, OUT (absolute), NAME (the
# image's, without .img.gz), TMP (removed at exit, the mount undone), MNT
# and IMG, a read-only scratch copy of the image.  fresh_mount mounts IMG
# on MNT anew, as `mount -o loop,ro,noload` (or `loop,ro` where the
# filesystem has no journal) mounts it.  A recorder of a tool that reads
# the image file itself (tsk.sh, fiwalk.sh) sets RECORD_ROOT=no first.

record_start() {
	local tool=$1
	shift
	[ $# = 2 ] || { echo "usage: $0 IMAGE.img[.gz|.bz2] OUTDIR" >&2; exit 2; }
	[ "${RECORD_ROOT:-yes}" = no ] || [ "$(id -u)" = 0 ] ||
		{ echo "record-$tool: needs root (loop mounts)" >&2; exit 2; }
	src=$1
	mkdir -p "$2"
	out=$(cd "$2" && pwd)
	name=$(basename "$src")
	name=${name%.gz}
	name=${name%.bz2}
	name=${name%.img}
	tmp=$(mktemp -d "/tmp/record-$tool.XXXXXX")
	mnt=$tmp/mnt
	img=$tmp/$name.img
	mkdir "$mnt"
	trap 'mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$tmp"' EXIT
	case "$src" in
	*.gz) gzip -dc "$src" >"$img" ;;
	*.bz2) bzip2 -dc "$src" >"$img" ;;
	*) cp "$src" "$img" ;;
	esac
	chmod 0444 "$img"
}

fresh_mount() {
	mountpoint -q "$mnt" && umount "$mnt"
	mount -o loop,ro,noload "$img" "$mnt" 2>/dev/null ||
		mount -o loop,ro "$img" "$mnt"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record statfs(2) on the kernel's mount of each image: OUTDIR/NAME.statfs,
# what tests/test_statfs.c holds e2map_statfs to.  The mount is the one
# e2map answers for, `mount -o loop,ro,noload` (`loop,ro` where the
# filesystem does not take noload), blkid's type; errors=remount-ro only
# when the image asks for a panic on errors, as record.sh mounts.  Nothing
# comes from e2map.  Needs root and loop mounts.
#
#   scripts/record/statfs.sh IMAGE.img[.gz|.bz2]... OUTDIR
#
# NAME.statfs: "#" lines (kernel, image sha256, mount options), then one
# "FIELD VALUE" line a field of struct statfs, the values as the kernel
# returns them (unsigned: an f_blocks below zero wraps):
#   type bsize frsize blocks bfree bavail files ffree namelen
# e2map_statfs reports type, bsize, blocks, files, ffree, bfree, bavail
# and namelen.
set -euo pipefail
export LC_ALL=C

if [ $# -lt 2 ]; then
	echo "usage: $0 IMAGE.img[.gz|.bz2]... OUTDIR" >&2
	exit 2
fi
[ "$(id -u)" = 0 ] || { echo "record-statfs: needs root (loop mounts)" >&2; exit 2; }
outdir=${!#}
mkdir -p "$outdir"
tmp=$(mktemp -d /tmp/record-statfs.XXXXXX)
mnt=$tmp/mnt
mkdir "$mnt"
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

record() {	# record SRC
	local src=$1 name img fstype extra opts sha
	name=$(basename "$src")
	name=${name%.gz}
	name=${name%.bz2}
	name=${name%.img}
	img=$tmp/$name.img
	case "$src" in
	*.gz) gzip -dc "$src" > "$img" ;;
	*.bz2) bzip2 -dc "$src" > "$img" ;;
	*) cp "$src" "$img" ;;
	esac
	sha=$(sha256sum "$img" | cut -d' ' -f1)
	fstype=$(blkid -p -o value -s TYPE "$img" 2>/dev/null || true)
	case "$fstype" in ext2|ext3|ext4) ;; *)
		echo "record-statfs: $name: blkid says '${fstype:-nothing}'" >&2
		rm -f "$img"
		return 1 ;;
	esac
	extra=""
	if dumpe2fs -h "$img" 2>/dev/null |
	   grep -Eqi '^(Errors behavior: *panic|Mount options:.*errors=panic)'; then
		extra=",errors=remount-ro"
	fi
	if mount -t "$fstype" -o "loop,ro,noload$extra" "$img" "$mnt" 2>/dev/null; then
		opts="loop,ro,noload$extra"
	elif mount -t "$fstype" -o "loop,ro$extra" "$img" "$mnt"; then
		opts="loop,ro$extra"
	else
		echo "record-statfs: $name: the kernel refuses to mount it" >&2
		rm -f "$img"
		return 1
	fi
	{
		echo "# SPDX-License-Identifier: GPL-2.0-or-later"
		echo "# e2map statfs, recorded from the kernel by scripts/record/statfs.sh"
		echo "# kernel: $(uname -r)"
		echo "# image: $name.img sha256 $sha"
		echo "# mount: $opts ($fstype)"
		echo "type 0x$(stat -f -c %t "$mnt")"
		python3 -c '
import os, sys
s = os.statvfs(sys.argv[1])
for k in ("bsize", "frsize", "blocks", "bfree", "bavail", "files",
          "ffree", "namemax"):
    print(k if k != "namemax" else "namelen", getattr(s, "f_" + k))
' "$mnt"
	} > "$tmp/out"
	umount "$mnt"
	mv "$tmp/out" "$outdir/$name.statfs"
	rm -f "$img"
	echo "record-statfs: $name: $(grep -v '^#' "$outdir/$name.statfs" | tr '\n' ' ')" >&2
}

rc=0
for src in "${@:1:$#-1}"; do
	record "$src" || rc=1
done
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel's answers after journal recovery, for e2map --replay: a
# scratch copy of IMAGE mounted read-write (the kernel replays its
# journal, and processes orphans), unmounted, then scripts/record/record.sh on
# that copy (GOLDENS=none: the goldens run the CLI without --replay).
# OUTDIR/NAME.calls.gz then names the dirty image and carries
# "# e2map-options: replay", which tests/test_replay.c gives e2map_open.
# Where the kernel refuses the read-write mount, OUTDIR/NAME.refused
# holds its errno name (tests/test_journal.c expects e2map to fail so).
#
#   scripts/record/replay.sh IMAGE.img[.gz|.bz2] OUTDIR
set -euo pipefail
export LC_ALL=C
[ $# -eq 2 ] || { echo "usage: $0 IMAGE.img[.gz|.bz2] OUTDIR" >&2; exit 2; }
src=$1
outdir=$2
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "record-replay: needs root" >&2; exit 2; }
name=$(basename "$src")
name=${name%.gz}
name=${name%.bz2}
name=${name%.img}
tmp=$(mktemp -d /tmp/record-replay.XXXXXX)
trap 'umount "$tmp/mnt" 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/mnt" "$outdir"
unpack() {
	case "$src" in
	*.gz) gzip -dc "$src" > "$tmp/$name.img" ;;
	*.bz2) bzip2 -dc "$src" > "$tmp/$name.img" ;;
	*) cp "$src" "$tmp/$name.img" ;;
	esac
}
unpack
sha=$(sha256sum "$tmp/$name.img" | cut -d' ' -f1)
# mount(2)'s errno by name: mount(8)'s words for it vary (EBADMSG is
# "probably corrupted filesystem").
mount_errno() {
	local dev rc

	dev=$(losetup -f --show "$1")
	rc=$(python3 -c 'import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.mount(sys.argv[1].encode(), sys.argv[2].encode(), b"ext4", 0, None)
print("OK" if r == 0 else errno.errorcode[ctypes.get_errno()])' "$dev" "$2")
	[ "$rc" != OK ] || umount "$2"
	losetup -d "$dev"
	echo "$rc"
}

if ! mount -o loop "$tmp/$name.img" "$tmp/mnt" 2> "$tmp/err"; then
	unpack	# a failed recovery may have written some blocks
	mount_errno "$tmp/$name.img" "$tmp/mnt" > "$outdir/$name.refused"
	echo "record-replay: $name: the kernel refuses it: $(cat "$outdir/$name.refused")" >&2
	exit 0
fi
umount "$tmp/mnt"
GOLDENS=none "$here/record.sh" "$tmp/$name.img" "$tmp/out"
{
	echo "# e2map-options: replay"
	echo "# dirty image: $name.img sha256 $sha; the kernel's answers after a read-write mount of a copy (journal recovery) by scripts/record/replay.sh"
	cat "$tmp/out/$name.calls"
} | gzip -9n > "$outdir/$name.calls.gz"
echo "record-replay: $outdir/$name.calls.gz" >&2

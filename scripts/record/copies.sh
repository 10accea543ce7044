#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel's mount, the tree `cp -a` copies out of one image,
# which `e2map extract -r -p` must make the same (tests/test_extract.c):
# a fresh `mount -o loop,ro,noload` (or `loop,ro`), cp -a of its root into
# a scratch directory, then
#
#   OUTDIR/NAME.cp.gz  "# cp-exit STATUS", a line "F<TAB>/PATH" for each
#                      path cp reported a failure on, then the copy as
#                      scripts/check/tree-list.py --no-regions lists it
#
#   scripts/record/copies.sh IMAGE.img[.gz] OUTDIR
#
# The regions are left out: cp -a copies a file whose st_blocks cover its
# size as data, zeroes and all, where e2map keeps the kernel's SEEK_DATA
# holes (docs/kernel-differences.md).  Needs root and loop mounts.
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start copies "$@"
here=$(cd "$(dirname "$0")" && pwd)

fresh_mount
mkdir "$tmp/copy"
status=0
cp -a "$mnt/." "$tmp/copy/" 2>"$tmp/err" || status=$?
umount "$mnt"
{
	echo "# cp-exit $status"
	# cp's lines name the mount's path in quotes ('...' or '...'); its
	# root is "$mnt/.".
	sed -n -e "s#.*$mnt/\./\([^'’]*\)['’].*#F\t/\1#p" \
		-e "s#.*$mnt/\.['’].*#F\t/#p" "$tmp/err" | sort -u
	python3 "$here/../check/tree-list.py" --no-regions "$tmp/copy"
} | gzip -9 -n > "$out/$name.cp.gz"
rm -rf "$tmp/copy"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel's mount, what `e2map scan` must report for one
# image: on a fresh `mount -o loop,ro,noload` (or `loop,ro` where the
# filesystem refuses noload, as ext2 without a journal does) every name's
# lstat, statx birth time (stat %W/%w), symlink target and, for each
# regular file and directory, the bytes of its kernel FIEMAP (cold) and
# the count of a warm one, and, from debugfs on the same image, the
# extents on disk (scripts/record/scan-kernel.py says the format):
#
#   OUTDIR/NAME.scan.gz
#
#   scripts/record/scan.sh IMAGE.img[.gz|.bz2] OUTDIR
#
# Needs root and loop mounts.
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start scan "$@"
here=$(cd "$(dirname "$0")" && pwd)

mount -o loop,ro,noload "$img" "$mnt" 2>/dev/null || mount -o loop,ro "$img" "$mnt"
python3 "$here/scan-kernel.py" "$mnt" "$img" | gzip -9 -n >"$out/$name.scan.gz"
umount "$mnt"

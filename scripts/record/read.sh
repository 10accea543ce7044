#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel, what e2map_file_read and `e2map cat` must return for
# one image: every path `find` lists on a fresh `mount -o loop,ro,noload`
# (or `loop,ro` where the filesystem refuses noload), regular files,
# directories, symlinks (followed, as cat follows them) and special files,
# opened and read(2) to the end or the first error by scripts/record/read-probe.py,
# in calls of 4096 bytes and of 131072 (GNU cat's size), each size on a
# fresh mount, and a fresh mount per path on images of at most MAXFRESH
# (400) paths; past 64 MiB, a file's last MiB only:
#
#   OUTDIR/NAME.read.gz  NUL-terminated records: "e2map-read 2 SIZES MAXREAD",
#                        then per path "/PATH" and "open ERRNO" or, per
#                        size, "run SIZE START BYTES ERRNO SHA256" (ERRNO
#                        0: the end of the file was reached; CUT: 64 MiB
#                        read; see read-probe.py)
#
#   scripts/record/read.sh IMAGE.img[.gz|.bz2] OUTDIR
#
# MAXPATHS (default: all) keeps the first paths in `sort -z` order.
# Needs root, loop mounts and python3.
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start read "$@"
here=$(cd "$(dirname "$0")" && pwd)
opts=loop,ro,noload
mount -o "$opts" "$img" "$mnt" 2>/dev/null || { opts=loop,ro; mount -o "$opts" "$img" "$mnt"; }

{ find "$mnt" -xdev -printf '/%P\0' 2>/dev/null || true; } |
	sort -z | head -z -n "${MAXPATHS:-1000000000}" >"$tmp/paths"
umount "$mnt"
n=$(tr -cd '\0' <"$tmp/paths" | wc -c)
fresh=0
[ "$n" -gt "${MAXFRESH:-400}" ] || fresh=1
python3 "$here/read-probe.py" "$img" "$mnt" "$opts" 4096,131072 "$fresh" \
	<"$tmp/paths" | gzip -9 -n >"$out/$name.read.gz"

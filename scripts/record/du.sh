#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel's mount, what `e2map du` must print for one image:
# GNU du run on a fresh `mount -o loop,ro,noload` (or `loop,ro` where the
# filesystem refuses noload) with each set of options below, on the root
# and on the first subdirectory `find | sort` names, the mount point cut
# from every path so that they read as image paths ("/", "/dir/name"):
#
#   OUTDIR/NAME.du.gz  per run "$ OPTIONS PATH" then "<TAB>STDOUT-BYTES
#                      <TAB>STATUS<TAB>STDERR-BYTES", a newline, stdout,
#                      stderr
#
#   scripts/record/du.sh IMAGE.img[.gz] OUTDIR
#
# Needs root and loop mounts.
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start du "$@"


# run OPTIONS PATH: one record; the mount point becomes the image's root.
run() {
	local opts=$1 path=$2 status=0
	fresh_mount
	# shellcheck disable=SC2086
	du $opts "$mnt$path" >"$tmp/o" 2>"$tmp/e" || status=$?
	for f in o e; do
		sed -e "s#$mnt/#/#g" -e "s#$mnt\([\t':]\)#/\1#g" -e "s#$mnt\$#/#" \
			"$tmp/$f" >"$tmp/$f.x"
	done
	printf '$ %s %s\t%s\t%s\t%s\n' "$opts" "${path:-/}" \
		"$(stat -c %s "$tmp/o.x")" "$status" "$(stat -c %s "$tmp/e.x")"
	cat "$tmp/o.x" "$tmp/e.x"
}

fresh_mount
sub=$(cd "$mnt" && find . -mindepth 1 -maxdepth 1 -type d ! -name lost+found \
	-printf '/%P\n' 2>/dev/null | sort | head -n 1)
{
	for opts in -a -s -ah "-a --apparent-size" -sb "-a -d 1" -sh; do
		run "$opts" ""
	done
	[ -z "$sub" ] || run -a "$sub"
} | gzip -9 -n >"$out/$name.du.gz"
umount "$mnt"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/record/verdict.sh IMAGE...
#
# The kernel's verdict on mounting each image, one line each on stdout:
#
#   NAME<TAB>mounted<TAB>OPTIONS
#   NAME<TAB>refused<TAB>ERRNO-NAME<TAB>the kernel's lines, joined by "; "
#
# as record.sh mounts (loop, read-only, noload unless the filesystem
# refuses it as ext2, blkid's type): a copy of the image (IMAGE may be .gz
# or .bz2) on a read-only loop device of its own; the errno is mount(2)'s,
# the lines are what the kernel logged for that mount (its ext4_msg and
# ext4_error lines, without device, line number and command name).  tests/test_mount.c compares
# e2map_open's refusals with these.  Needs root and loop mounts; never
# clears the kernel log (other mounts may be reading it).
set -eu -o pipefail
export LC_ALL=C
[ "$(id -u)" = 0 ] || { echo "record-verdict: needs root" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: $0 IMAGE..." >&2; exit 2; }
work=$(mktemp -d /tmp/record-verdict-XXXXXX)
trap 'umount "$work/mnt" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/mnt"

# The kernel's lines after the line LAST (the log before the mount) about
# loop device DEV or no device (others may be mounting meanwhile).
new_lines() {
	dmesg | awk -v l="$1" 'f; $0 == l { f = 1 }' |
		awk -v d="$2" 'index($0, "(" d ")") || index($0, "(device " d ")") ||
			       !/\((device )?loop[0-9]+\)/' |
		sed -e 's/^\[[^]]*\] //' -e 's/^EXT4-fs error (device [^)]*): /EXT4-fs error: /' \
		    -e 's/^EXT4-fs ([^)]*): //' -e 's/^EXT4-fs: //' \
		    -e 's/\([a-z_0-9]*\):[0-9]*: /\1: /g' -e 's/comm [^:]*: //' |
		grep -v -e 'detected capacity change' -e 'using the ext4 subsystem' \
			-e 'callbacks suppressed' -e '^loop[0-9]*:' |
		paste -sd';' | sed 's/;/; /g'
}

# mount(2) itself, for its errno: "0" when it mounted (unmounted again),
# else the errno's name.
sys_mount() {	# sys_mount DEV DIR TYPE OPTS
	python3 - "$@" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
dev, mnt, fstype, opts = (a.encode() for a in sys.argv[1:5])
MS_RDONLY = 1
if libc.mount(dev, mnt, fstype, MS_RDONLY, opts or None) == 0:
    libc.umount2(mnt, 0)
    print(0)
else:
    print(errno.errorcode.get(ctypes.get_errno(), "unknown"))
PY
}

# try IMG TYPE OPTS: 0 when it mounts; else $err and $lines are set.
try() {
	local last dev
	last=$(dmesg | tail -1)
	dev=$(losetup -f --show -r "$1")
	err=$(sys_mount "$dev" "$work/mnt" "$2" "$3")
	sleep 0.2	# the log lines may trail mount's return
	losetup -d "$dev"
	[ "$err" = 0 ] && return 0
	lines=$(new_lines "$last" "${dev#/dev/}")
	return 1
}

for src in "$@"; do
	name=$(basename "$src"); name=${name%.gz}; name=${name%.bz2}; name=${name%.img}
	img=$work/$name.img
	case $src in
	*.gz) gzip -dc "$src" > "$img" ;;
	*.bz2) bzip2 -dc "$src" > "$img" ;;
	*) cp "$src" "$img" ;;
	esac
	type=$(blkid -p -o value -s TYPE "$img" 2>/dev/null || true)
	case $type in ext2|ext3|ext4) ;; *) type=ext4 ;; esac
	# noload's verdict, unless the filesystem does not take noload (ext2)
	if try "$img" "$type" noload; then
		printf '%s\tmounted\tloop,ro,noload (%s)\n' "$name" "$type"
	elif [[ $lines != *"incompatible with ext2"* ]]; then
		printf '%s\trefused\t%s\t%s\n' "$name" "$err" "$lines"
	elif try "$img" "$type" ""; then
		printf '%s\tmounted\tloop,ro (%s)\n' "$name" "$type"
	else
		printf '%s\trefused\t%s\t%s\n' "$name" "$err" "$lines"
	fi
	rm -f "$img"
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mktimes.sh OUTDIR
#
# Timestamps at the edges of ext4's encoding, set by the kernel
# (utimensat through touch on a loop mount), for scan's stat rule:
#   times-4k.img.gz    256-byte inodes: nanoseconds, crtime, and the two
#                      epoch bits of i_Xtime_extra (times from 1901 to 2446)
#   times128-1k.img.gz 128-byte inodes: whole seconds, no crtime, times
#                      clamped by the kernel to a signed 32-bit count
#   times-noextra-1k.img.gz  256-byte inodes whose i_extra_isize debugfs
#                      then sets to 0 (/t_0 to /t_4; /t_1 with crtime bytes
#                      0x12345678): __ext4_iget takes 32 all the same, so
#                      statx still gives these bytes as the birth time
# Each holds /t_DATE files whose atime and mtime are DATE, and a symlink
# and a directory with such times too.  Record with record/scan.sh.
. "$(dirname "$0")/../lib/gen.sh"
gen_start mktimes root "$@"
mkdir "$work/mnt"
m=$work/mnt

stamps="1901-12-13T20:45:52.000000001Z 1901-12-14T00:00:00.5Z
1960-01-01T00:00:00.999999999Z 1969-12-31T23:59:59.123456789Z
1970-01-01T00:00:00Z 2038-01-19T03:14:07.999999999Z
2038-01-19T03:14:08Z 2106-02-07T06:28:16.25Z 2242-03-16T12:56:31Z
2446-05-10T22:38:55.999999999Z"

fill() {
	local i=0 s

	for s in $stamps; do
		printf 'x' > "$m/t_$i"
		touch -h -d "$s" "$m/t_$i"
		i=$((i + 1))
	done
	mkdir "$m/dir"
	touch -d "2200-01-01T00:00:00.75Z" "$m/dir"
	ln -s t_0 "$m/link"
	touch -h -d "1930-06-01T12:00:00.125Z" "$m/link"
}

make_one() {	# N NAME MKE2FS-ARGS...
	local n=$1 name=$2 img=$work/$2.img

	shift 2
	gen_mkfs "$n" "$img" 8M "$@"
	mount -o loop "$img" "$m"
	fill
	umount "$m"
	e2fsck -fn "$img" >/dev/null
	gzip -9 -n -c "$img" > "$out/$name.img.gz"
	echo "wrote $out/$name.img.gz"
}

# ONLY=NAME makes that image alone (the others' bytes would change).
only() { [ -z "${ONLY:-}" ] || [ "$ONLY" = "$1" ]; }

only times-4k && make_one 60 times-4k -t ext4 -b 4096 -I 256
only times128-1k && make_one 61 times128-1k -t ext4 -b 1024 -I 128

noextra() {
	local img=$work/times-noextra-1k.img i

	gen_mkfs 62 "$img" 8M -t ext4 -b 1024 -I 256
	mount -o loop "$img" "$m"
	fill
	umount "$m"
	for i in 0 1 2 3 4; do
		debugfs -w -R "sif /t_$i extra_isize 0" "$img" >/dev/null 2>&1
	done
	debugfs -w -R "sif /t_1 crtime 0x12345678" "$img" >/dev/null 2>&1
	gzip -9 -n -c "$img" > "$out/times-noextra-1k.img.gz"
	echo "wrote $out/times-noextra-1k.img.gz"
}
only times-noextra-1k && noextra

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the table tools see on a whole-disk image, for tests/test_disks.c to
# hold `e2map partitions` to: DISK's sfdisk -d into OUT.sfdisk, and blkid -p
# of each partition (TYPE, LABEL, UUID under PARTITION=N) into OUT.blkid.
#   scripts/record/disk.sh DISK [OUT]      (OUT: DISK less its .img)
set -eu -o pipefail
export LC_ALL=C
disk=$1
name=${2:-${1%.img}}

sfdisk -d "$disk" > "$name.sfdisk"
: > "$name.blkid"
grep ' : start=' "$name.sfdisk" | while read -r line; do
	p=${line%% :*}
	p=${p##*[!0-9]}
	start=$(sed -n 's/.*start= *\([0-9]*\).*/\1/p' <<<"$line")
	size=$(sed -n 's/.*size= *\([0-9]*\).*/\1/p' <<<"$line")
	printf 'PARTITION=%s\n' "$p" >> "$name.blkid"
	blkid -p -o export -O $((start * 512)) -S $((size * 512)) "$disk" \
		2>/dev/null | grep -E '^(TYPE|LABEL|UUID)=' >> "$name.blkid" || true
done

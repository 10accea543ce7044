#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Seeds for tests/fuzz/fuzz_disk.c in OUTDIR: small whole disks (an MBR with
# logical partitions, a GPT, one ext2 partition), each 1 MiB.
set -eu -o pipefail
export LC_ALL=C
out=$1
mkdir -p "$out"
cd "$out"
rm -f mbr.img gpt.img one.img
truncate -s 1M mbr.img
printf 'label: dos\nstart=64, size=256, type=83\nstart=400, size=1600, type=5\nstart=448, size=200, type=83\nstart=700, size=200, type=83\n' |
	sfdisk -q mbr.img
truncate -s 1M gpt.img
sgdisk -n 1:34:+128K -n 2:0:+128K -n 3:0:+256K gpt.img >/dev/null
truncate -s 1M one.img
printf 'label: dos\nstart=128, size=1792, type=83\n' | sfdisk -q one.img
mke2fs -q -F -t ext2 -b 1024 -E offset=65536 one.img 896 >/dev/null

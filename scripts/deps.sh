#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what building and testing e2map needs, when it is missing (Debian).
set -e
pkgs="build-essential g++ pkg-config e2fsprogs libext2fs-dev comerr-dev libcriterion-dev libjansson-dev xfsprogs gzip attr"
# Whole disks and containers (lib/io_*.c, lib/partition.c), and the tools
# scripts/mkdisks.sh makes the test disks with.
pkgs="$pkgs libblkid-dev libewf-dev libvmdk-dev libbfio-dev libvhdi-dev libqcow-dev fdisk gdisk ewf-tools qemu-utils xz-utils"
# The Sleuth Kit's mactime: tests/test_scan.c holds scan's body file's
# timeline to the mount's.
pkgs="$pkgs sleuthkit"
# libarchive writes e2map tar's archives; bsdtar (libarchive-tools) and
# Python's tarfile read them back in tests/test_extract.c.
pkgs="$pkgs libarchive-dev libarchive-tools python3"
# libfuse3 serves e2map mount; fuse3 brings fusermount3.
pkgs="$pkgs libfuse3-dev fuse3"
# make check-kernel holds rsync -S from the FUSE mount to rsync from the
# kernel's (skipped without rsync).
pkgs="$pkgs rsync"
# scripts/deps.sh bench: also what make bench runs (not the tests, not CI)
[ "${1:-}" != bench ] || pkgs="$pkgs python3 sleuthkit util-linux fuse2fs bc"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "e2map: missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null

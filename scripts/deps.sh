#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what building and testing e2map needs, when it is missing (Debian).
#
#   scripts/deps.sh [build|bench|fresh]   build: only what compiling needs
#   fresh: only what make check-fresh needs on the host (debootstrap, git)
set -e
if [ "${1:-}" = fresh ]; then
pkgs="debootstrap git"
else
# Building: the filesystem, disks and containers, the CLI's formats.
pkgs="build-essential pkg-config libext2fs-dev comerr-dev libblkid-dev"
pkgs="$pkgs libewf-dev libvmdk-dev libbfio-dev libvhdi-dev libqcow-dev"
pkgs="$pkgs libjansson-dev libarchive-dev libfuse3-dev"
# OpenSSL's libcrypto: scan --hash's MD5, SHA-1 and SHA-256.
pkgs="$pkgs libssl-dev"
# The Python binding (python/): cffi's API mode compiles against Python.h.
pkgs="$pkgs python3 python3-dev python3-cffi"
if [ "${1:-}" != build ]; then
# Testing: Criterion, the kernel's tools, C++ for the header's C++ build.
pkgs="$pkgs g++ e2fsprogs libcriterion-dev xfsprogs gzip attr"
# The tools scripts/gen/mkdisks.sh makes the test disks with.
pkgs="$pkgs fdisk gdisk ewf-tools qemu-utils xz-utils"
# The Sleuth Kit's mactime: tests/test_scan.c holds scan's body file's
# timeline to the mount's.
pkgs="$pkgs sleuthkit"
# bsdtar (libarchive-tools) and Python's tarfile read e2map tar's archives
# back in tests/test_extract.c; fuse3 brings fusermount3 for e2map mount.
pkgs="$pkgs libarchive-tools python3 fuse3"
# make check-kernel holds rsync -S from the FUSE mount to rsync from the
# kernel's (skipped without rsync).
pkgs="$pkgs rsync"
# pkill: tests/test_cli_usage.c ends a background FUSE mount with SIGTERM
# (a minbase Debian has no procps).
pkgs="$pkgs procps"
# The binding's tests, and the fleet on a real Dask scheduler and workers.
pkgs="$pkgs python3-pytest python3-dask python3-distributed"
# mypy: the package says it is typed (py.typed); a test holds it to that.
pkgs="$pkgs mypy"
fi
# scripts/deps.sh bench: also what make bench runs (not the tests, not CI)
[ "${1:-}" != bench ] || pkgs="$pkgs python3 sleuthkit util-linux fuse2fs bc"
# bench/past.sh: the undeleters and hashdeep it scores against e2map.
[ "${1:-}" != bench ] || pkgs="$pkgs ext4magic extundelete hashdeep"
fi
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

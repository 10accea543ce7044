#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Python binding and the fleet (issue 21), against what a Python user
# would otherwise run, in one run, alternating, as ratios (scripts/bench/
# python-bench.py does the timing):
#   - Image.scan() over big4k (200,000 files: scripts/bench/bench.sh's
#     image, built here the same way and cached with it) against
#     `e2map scan -q --format jsonl` piped into json.loads, a record each;
#   - reading files through File (readinto, 1 MiB calls) against
#     `e2map cat FILE >/dev/null`;
#   - python3 -m e2map.fleet scan over 200 small images (mke2fs -d) on a
#     LocalCluster of 1 and of 2 workers: images per second, and against
#     `e2map scan` run image by image from a shell loop.
# Needs root (the kernel writes some of big4k's files on a loop mount),
# python3-cffi, python3-dask, python3-distributed.
#   sudo scripts/bench/python.sh          (E2MAP, LIBDIR, PYDIR: the build)
set -u -o pipefail
export LC_ALL=C
die() { echo "bench: $*" >&2; exit 1; }
log() { printf '%s\n' "$*" >&2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ "$(id -u)" = 0 ] || die "must run as root (loop mounts)"
E2MAP=${E2MAP:-$root/cmd/e2map}
LIBDIR=${LIBDIR:-$(dirname "$E2MAP")/../lib}
PYDIR=${PYDIR:-$(dirname "$E2MAP")/../python}
CACHE=${BENCH_CACHE:-/var/tmp/e2map-bench}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
WORK=$(mktemp -d /tmp/bench-py.XXXXXX) || die "mktemp failed"
MNT=$WORK/mnt
mkdir -p "$MNT"
PIN=(taskset -c 0)
trap 'mountpoint -q "$MNT" && umount "$MNT"; rm -rf "$WORK"' EXIT
source "$here/images.sh"
BUILT=()
build big4k big 4096 16G 200000 1
[ "${BENCH_KEEP_TREE:-0}" = 1 ] || rm -rf "$CACHE"/tree-*
[ "${BENCH_BUILD_ONLY:-0}" = 1 ] && exit 0
LD_LIBRARY_PATH=$LIBDIR PYTHONPATH=$PYDIR E2MAP=$E2MAP \
	/usr/bin/python3 "$here/python-bench.py" "$CACHE/big4k.img" "$WORK"

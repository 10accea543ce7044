#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Extract's benchmark (issue 9): one image of SIZE (default 2G) holding
# FILES sparse files of 256 MiB, each alternating 64 KiB of data and 64 KiB
# of hole (heavily fragmented), copied out whole with a warm page cache:
#   e2map extract -r      the tree, holes kept
#   debugfs rdump         e2fsprogs' copy (writes holes as zeroes)
#   cp -a from the mount  the kernel's copy (mount and umount not timed)
#   e2map tar             the tree as a pax archive, to a pipe
#   tar --sparse          GNU tar from the mount, to a pipe
#   e2map cat | sha256sum the files' bytes (holes as zeroes) into a pipe
#   cat | sha256sum       the same from the mount
# Prints seconds (best of RUNS) and ratios to e2map, and the bytes each
# copy allocates.  Needs root and loop mounts.
#   scripts/bench/extract.sh [SIZE [FILES [RUNS]]]
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
e2map=${E2MAP:-$here/../../cmd/e2map}
size=${1:-2G} files=${2:-4} runs=${3:-3}
[ "$(id -u)" = 0 ] || { echo "bench-extract: needs root" >&2; exit 2; }
work=$(mktemp -d /tmp/bench-extract.XXXXXX)
trap 'mountpoint -q "$work/mnt" && umount "$work/mnt"; rm -rf "$work"' EXIT
mkdir "$work/mnt"
img=$work/x.img
truncate -s "$size" "$img"
mke2fs -q -F -t ext4 "$img"
mount -o loop "$img" "$work/mnt"
python3 - "$work/mnt" "$files" <<'EOF'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
chunk = os.urandom(65536)
for i in range(n):
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        for off in range(0, 256 << 20, 131072):
            f.seek(off)
            f.write(chunk)
        f.truncate(256 << 20)
EOF
umount "$work/mnt"
cat "$img" > /dev/null	# warm

# The output directory, emptied before each copy.
before_each() { rm -rf "$work/out"; mkdir "$work/out"; sync; }

used() { du -sk "$work/out" | cut -f1; }

t_e2map=$(best "$e2map" extract -r -q "$img" / "$work/out/t"); k_e2map=$(used)
t_debugfs=$(best debugfs -R "rdump / $work/out" "$img"); k_debugfs=$(used)
# The archive to a pipe (GNU tar skips the data when it sees /dev/null).
t_tar=$(best sh -c "'$e2map' tar -q '$img' | cat > /dev/null"); k_tar=-
paths=$(for i in $(seq 0 $((files - 1))); do printf ' /f%d' "$i"; done)
t_cat=$(best sh -c "'$e2map' cat '$img' $paths | sha256sum"); k_cat=-
mount -o loop,ro,noload "$img" "$work/mnt"
cat "$work"/mnt/f* > /dev/null
t_cp=$(best cp -a "$work/mnt/." "$work/out/t"); k_cp=$(used)
t_tar_mount=$(best sh -c "tar --sparse -cf - -C '$work/mnt' . | cat > /dev/null")
k_tar_mount=-
t_cat_mount=$(best sh -c "cat '$work'/mnt/f* | sha256sum"); k_cat_mount=-
umount "$work/mnt"
printf '%-22s %8s %8s %10s\n' tool seconds ratio KiB_used
for t in e2map debugfs cp tar tar_mount cat cat_mount; do
	v=t_$t; k=k_$t
	printf '%-22s %8.3f %8.2f %10s\n' "$t" "${!v}" \
		"$(echo "${!v} / $t_e2map" | bc -l)" "${!k}"
done

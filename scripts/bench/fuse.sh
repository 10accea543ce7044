#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Getting data out, through mounts and pipes (issue 9): one ext4 image of
# SIZE (default 2G) holding FILES fragmented sparse files of 256 MiB (64
# KiB of data, 64 KiB of hole), a tree of 20,000 small files in 200
# directories, and one directory of 16,000 names (and one of 4,000, to
# show whether listing time grows linearly).  The image file is in the
# page cache; each mount is fresh for each run (mount and umount not
# timed), so the mount's own caches start cold, as after mounting:
#   - a full read of the sparse files (cat > /dev/null, and cat into
#     sha256sum through a pipe), a full
#     SEEK_DATA/SEEK_HOLE walk of each (xfs_io seek -a -r), tar --sparse of
#     them, find -printf '%i %s %b' over the 20,000 files and over each big
#     directory: on the kernel's ro mount, on e2map mount and on fuse2fs;
#   - e2map cat of the sparse files against cat from the kernel's mount,
#     debugfs dump and The Sleuth Kit's icat.
# Prints seconds (the median of RUNS, the mounts taking turns round by
# round) and each mount's ratio to the kernel's; the single-file rows
# are the best of RUNS.
# Needs root, loop mounts, /dev/fuse, fuse2fs and sleuthkit.
#   scripts/bench/fuse.sh [SIZE [FILES [RUNS]]]
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
e2map=${E2MAP:-$here/../../cmd/e2map}
size=${1:-2G} files=${2:-4} runs=${3:-3}
[ "$(id -u)" = 0 ] || { echo "bench-fuse: needs root" >&2; exit 2; }
for t in fuse2fs icat xfs_io; do
	command -v $t >/dev/null || { echo "bench-fuse: no $t" >&2; exit 2; }
done
work=$(mktemp -d /tmp/bench-fuse.XXXXXX)
trap 'mountpoint -q "$work/mnt" && umount "$work/mnt"; rm -rf "$work"' EXIT
mkdir "$work/mnt"
img=$work/x.img
truncate -s "$size" "$img"
mke2fs -q -F -t ext4 -N 65536 "$img"
mount -o loop "$img" "$work/mnt"
python3 - "$work/mnt" "$files" <<'EOF'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
chunk = os.urandom(65536)
os.mkdir(os.path.join(d, "sparse"))
for i in range(n):
    with open(os.path.join(d, "sparse", "f%d" % i), "wb") as f:
        for off in range(0, 256 << 20, 131072):
            f.seek(off)
            f.write(chunk)
        f.truncate(256 << 20)
for k in range(200):
    p = os.path.join(d, "tree", "d%03d" % k)
    os.makedirs(p)
    for j in range(100):
        with open(os.path.join(p, "f%03d" % j), "wb") as f:
            f.write(b"x" * (j * 37 % 3000))
for name, count in (("dir4k", 4000), ("dir16k", 16000)):
    os.mkdir(os.path.join(d, name))
    for j in range(count):
        open(os.path.join(d, name, "entry-%05d" % j), "wb").close()
EOF
umount "$work/mnt"
cat "$img" > /dev/null	# warm
ino=$(debugfs -R "stat /sparse/f0" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')

mount_kernel() { mount -o loop,ro,noload "$img" "$work/mnt"; }
mount_e2map() { "$e2map" mount "$img" "$work/mnt"; }
mount_fuse2fs() { fuse2fs -o ro "$img" "$work/mnt" >/dev/null; }
unmount() { umount "$work/mnt"; }

# Wall seconds of "$@" on a fresh mount made by $1.
time_on() {
	local how=$1 s e
	shift
	"mount_$how"
	s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
	unmount
	echo "$e - $s" | bc
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# The median of $runs runs of task $1 on each mount, the mounts taking
# turns round by round (round r starts at the r-th), after one untimed
# round: a load from elsewhere falls on all of them alike.
medians_of() {
	local task=$1 r i how t
	local -a hows=(kernel e2map fuse2fs) tk=() te=() tf=()
	for r in $(seq 0 "$runs"); do
		for i in 0 1 2; do
			how=${hows[$(( (r + i) % 3 ))]}
			t=$(time_on "$how" "$task")
			[ "$r" = 0 ] && continue
			case $how in
			kernel) tk+=("$t") ;; e2map) te+=("$t") ;; *) tf+=("$t") ;;
			esac
		done
	done
	echo "$(median "${tk[@]}") $(median "${te[@]}") $(median "${tf[@]}")"
}

m=$work/mnt
read_all() { cat "$m"/sparse/* > /dev/null; }
read_pipe() { cat "$m"/sparse/* | sha256sum; }
seek_all() { for f in "$m"/sparse/*; do xfs_io -r -c 'seek -a -r 0' "$f"; done; }
tar_sparse() { tar --sparse -cf - -C "$m" sparse | cat > /dev/null; }
find_tree() { find "$m/tree" -printf '%i %s %b\n'; }
find_4k() { find "$m/dir4k" -printf '%i %s %b\n'; }
find_16k() { find "$m/dir16k" -printf '%i %s %b\n'; }
# The same bytes again on each mount, to check the mounts agree.
sums() { "mount_$1"; (cd "$m/sparse" && sha256sum f*); seek_all; find_tree |
	sort; unmount; }
sums kernel > "$work/kernel.sum"
sums e2map > "$work/e2map.sum"
cmp -s "$work/kernel.sum" "$work/e2map.sum" ||
	{ echo "bench-fuse: e2map mount differs from the kernel's" >&2; exit 1; }

printf '%-34s %10s %10s %10s %14s %14s\n' task kernel e2map fuse2fs \
	e2map/kernel fuse2fs/e2map
for task in read_all read_pipe seek_all tar_sparse find_tree find_4k find_16k; do
	read -r k e f < <(medians_of $task)
	printf '%-34s %10.3f %10.3f %10.3f %13.2fx %13.2fx\n' "$task" "$k" \
		"$e" "$f" "$(echo "$e / $k" | bc -l)" "$(echo "$f / $e" | bc -l)"
done

mount_kernel
cat_mount=$(best cat "$m"/sparse/f0)
unmount
cat_e2map=$(best "$e2map" cat "$img" /sparse/f0)
cat_debugfs=$(best debugfs -R "dump /sparse/f0 $work/dump" "$img")
cat_icat=$(best icat "$img" "$ino")
# What each wrote: a tool that stops early is faster for it.
mount_kernel
want=$(cat "$m"/sparse/f0 | sha256sum)
unmount
out_e2map=$("$e2map" cat "$img" /sparse/f0 | sha256sum)
out_mount=$want
out_debugfs=$(debugfs -R "dump /sparse/f0 $work/dump" "$img" 2>/dev/null &&
	sha256sum < "$work/dump"; rm -f "$work/dump")
out_icat=$( (icat "$img" "$ino" 2>/dev/null || true) | sha256sum)
printf '\n%-34s %10s %10s %s\n' "one 256 MiB sparse file" seconds \
	"vs e2map" "bytes"
for t in e2map mount debugfs icat; do
	v=cat_$t o=out_$t
	printf '%-34s %10.3f %9.2fx %s\n' "$t" "${!v}" \
		"$(echo "${!v} / $cat_e2map" | bc -l)" \
		"$([ "${!o}" = "$want" ] && echo "the mount's" || echo DIFFER)"
done

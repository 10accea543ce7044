#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/bench/bench.sh: e2map at scale against the tools a user would otherwise
# run, in one run, alternating, reported as ratios (competitor time / e2map
# time; above 1x e2map is faster).  Not a test: nothing here is timed by CI.
#
#   sudo make bench                  (builds e2map, installs the tools)
#   sudo E2MAP=path/to/e2map scripts/bench/bench.sh
#
# Needs root (loop mounts), e2fsprogs, xfsprogs (xfs_io), util-linux,
# python3; The Sleuth Kit's tsk_loaddb when installed (Debian: sleuthkit;
# scripts/deps.sh bench installs all of them), else its rows are left out.
#
# Images, built once with mke2fs and the kernel, kept in $BENCH_CACHE and
# reused while their recipe (images.sh's recipe part, bench-tree.py,
# mke2fs.conf) is unchanged:
#   big4k.img  16 GiB sparse ext4, 4 KiB blocks: 200,000 files made by
#              mke2fs -d from a generated tree (scripts/bench/bench-tree.py:
#              mixed sizes, plain directories of 1,000..8,000 names, chains
#              of 16..48 nested directories, symlinks, hard links), then,
#              written through the kernel on a loop mount: /frag/holes-1g
#              (1 GiB, every other 4 KiB written: 131,072 extents),
#              /frag/unwritten-128m (fallocated, every other 4 KiB
#              written), /frag/punched-128m (written, 2,000 ranges punched
#              with fallocate -p), 240 sparse files /frag/sparse/sNNN (100..
#              1,500 scattered runs each, some with fallocated and punched
#              ranges), /htree (5,000 names: an indexed directory) and the
#              query file /q/frag-1g (below)
#   big1k.img  the same tree and files on 1 KiB blocks
#   huge.img   1 TiB sparse ext4: /frag/holes-1g and /q/frag-1g only
#   tiny.img   64 MiB ext4, 4 KiB blocks: /q/frag-1g only
#   big4k-1m.img  (BENCH_SIZE=large) 32 GiB, 1,000,000 files (sizes a
#              quarter of the default tree's), the same kernel-written files
# /q/frag-1g: 1 GiB; every 32nd 4 KiB block of its first 512 MiB written
# (4,096 extents, an extent tree of depth 2), 8 MiB fallocated at 768 MiB
# with every other block written, 4 MiB written at 896 MiB with 16 ranges
# punched.  Every random choice comes from Park-Miller generators with fixed
# seeds; mke2fs gets scripts/gen/mke2fs.conf, fixed UUIDs and hash seeds;
# writers are pinned to CPU 0.  Layouts are reproducible, not byte-identical
# (the kernel allocates and stamps times).
#
# Before timing, outputs are compared with the kernel's, each kernel
# listing taken on a fresh mount: e2map filefrag -v against filefrag -v for
# every regular file of each big image, e2map seek and fiemap against
# xfs_io for the query file on tiny, big4k and huge (the timed query and a
# whole-file walk), and e2map check must report no error.  The script exits
# 1 if any differ.
#
# Timed, in groups; within a group the commands alternate (round r runs
# them in the group's order rotated by r), after one untimed warm-up round:
#   check      e2map check IMG (a thread per CPU; and -j1); e2map
#              filefrag -v over every regular file
#              (xargs batches, as the kernel side); e2fsck -fn; one debugfs
#              -f session with `ex <INO>` for every inode in use; the kernel
#              path: mount -o loop,ro,noload + filefrag -v over every file
#              (xargs) + umount; tsk_loaddb (a fresh SQLite database each
#              run, BENCH_SLOW_RUNS runs, no warm-up; not on big1k: a run
#              takes ~40 s)
#   warm       the same e2map filefrag -v against filefrag -v on a mount
#              kept for the whole group (dentry, inode, extent caches hot)
#   scan       e2map scan -q --format jsonl IMG against e2map check, e2fsck
#              -fn, one debugfs -f session with dump_extents <INO> for every
#              inode in use, the kernel path (mount + find -printf of every
#              stat field + filefrag -v over every file + du -s + umount),
#              and on big4k The Sleuth Kit's fls -r -m / and tsk_loaddb
#   cold       scan, check and e2fsck -fn with the page cache dropped
#              before each run (sync; echo 3 > drop_caches)
#   du         e2map du -s IMG / against du -s on a fresh mount (mount +
#              du + umount) and, in a second group, on a kept mount
#   query      one SEEK_DATA (seek -d 600m) and one ranged FIEMAP (fiemap -v
#              256m 64k) of /q/frag-1g on tiny, big4k and huge, against
#              mount + xfs_io + umount; e2map check of tiny and huge
#   qwarm      the same e2map queries against xfs_io on kept mounts
# Medians with min-max over the runs; peak memory is wait4's ru_maxrss of
# each command (with its children; as /usr/bin/time -v reports it), the
# largest over the runs; the kernel's own memory (page, inode, dentry
# caches) is not in it.  Warm page cache: the warm-up round reads what each
# command reads; caches are never dropped.  "fresh" means a new mount.
#
# Env:
#   BENCH_CACHE    where images are kept          (/var/tmp/e2map-bench)
#   BENCH_SIZE     default | large (adds the 1,000,000-inode image)
#   BENCH_RUNS     timed runs per command         (3; queries 4x that)
#   BENCH_SLOW_RUNS  timed runs of tsk_loaddb     (2)
#   BENCH_ONLY     groups to time, of: check warm scan cold du query qwarm
#                  (all)
#   BENCH_REBUILD=1  rebuild the images even when cached
#   BENCH_KEEP_TREE=1  keep the generated tree in the cache after building
#   BENCH_JSON     also write every measurement and row as JSON to this file
#   E2MAP          the CLI to measure             (cmd/e2map, built by make)
set -u -o pipefail
export LC_ALL=C

die() { echo "bench: $*" >&2; exit 1; }
log() { printf '%s\n' "$*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ "$(id -u)" = 0 ] || die "must run as root (loop mounts)"
for t in mke2fs e2fsck debugfs filefrag xfs_io mount umount mountpoint awk md5sum taskset python3 xargs; do
	command -v "$t" >/dev/null 2>&1 || die "missing tool: $t (scripts/deps.sh bench)"
done

if [ -z "${E2MAP:-}" ]; then
	make -C "$root" -s >/dev/null || die "make failed"
	E2MAP=$root/cmd/e2map
fi
[ -x "$E2MAP" ] || die "no e2map CLI at $E2MAP"
E2MAP=$(cd "$(dirname "$E2MAP")" && pwd)/$(basename "$E2MAP")

CACHE=${BENCH_CACHE:-/var/tmp/e2map-bench}
SIZE=${BENCH_SIZE:-default}
case $SIZE in default|large) ;; *) die "BENCH_SIZE is default or large, not $SIZE" ;; esac
RUNS=${BENCH_RUNS:-3}
SLOW_RUNS=${BENCH_SLOW_RUNS:-2}
QRUNS=$((RUNS * 4))
ONLY=" ${BENCH_ONLY:-check warm scan cold du query qwarm} "
TIMER=$here/bench-time.py
export BENCH_RUN
WORK=$(mktemp -d /tmp/bench-work.XXXXXX) || die "mktemp failed"
MNT=$WORK/mnt
mkdir -p "$MNT" "$WORK/m1" "$WORK/m2" "$WORK/m3" "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
PIN=(taskset -c 0)
BENCH_RUN=$WORK/bench-run
${CC:-cc} -O2 -o "$BENCH_RUN" "$here/bench-run.c" || die "cannot build $BENCH_RUN"

cleanup() {
	local m i
	for m in "$MNT" "$WORK/m1" "$WORK/m2" "$WORK/m3"; do
		for i in 1 2 3; do
			mountpoint -q "$m" 2>/dev/null || break
			umount "$m" 2>/dev/null || sleep 0.3
		done
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

HAVE_TSK=0
command -v tsk_loaddb >/dev/null 2>&1 && HAVE_TSK=1

source "$here/images.sh"

BUILT=()
T_BUILD=$(date +%s)
build tiny tiny
build huge huge
build big4k big 4096 16G 200000 1
build big1k big 1024 16G 200000 1
BIGS=(big4k big1k)
if [ "$SIZE" = large ]; then
	build big4k-1m big 4096 32G 1000000 4
	BIGS+=(big4k-1m)
fi
[ "${BENCH_KEEP_TREE:-0}" = 1 ] || rm -rf "$CACHE"/tree-*
T_BUILD=$(($(date +%s) - T_BUILD))

source "$here/sanity.sh"
source "$here/groups.sh"

###########################################################################
# Report.

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
{
	echo
	echo "## e2map benchmark ($SIZE)"
	echo
	echo "Machine: $(nproc) CPUs, $cpu; kernel $(uname -r); $(awk '/^MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo); load average $LOAD0 before timing, $(cut -d' ' -f1 /proc/loadavg) after"
	echo "Tools: $("$E2MAP" --version 2>&1 | head -1); $(filefrag -V 2>&1 | head -1); $(xfs_io -V); $(e2fsck -V 2>&1 | head -1)$([ $HAVE_TSK = 1 ] && echo "; tsk_loaddb: $(tsk_loaddb -V 2>&1 | head -1)")"
	echo "Timing: medians (min-max) of $RUNS runs ($QRUNS for one-file queries, $SLOW_RUNS for tsk_loaddb), commands alternating, after one warm-up round; peak RSS (wait4 ru_maxrss, with children); warm page cache; timing took $(($(date +%s) - START)) s; $( [ ${#BUILT[@]} = 0 ] && echo "images cached" || echo "images built in $T_BUILD s ($(IFS=,; echo "${BUILT[*]}" | sed 's/,/, /g'))")"
	echo
	for d in "${DESC[@]}"; do echo "- $d"; done
	echo
	python3 "$TIMER" report "$ROWS" "${BENCH_JSON:-}" "${JSONS[@]}"
	echo
	echo "Ratio: competitor median / e2map median (above 1x e2map is faster); growth: e2map on the larger fs / on the 64 MiB fs (1x: no growth).  Commands that need a shell (every mount row) include one sh start-up."
	echo
	echo "Sanity (outputs compared before timing):"
	for s in "${SANITY[@]}"; do echo "- $s"; done
} | tee "$WORK/report.md"
cp "$WORK/report.md" "$CACHE/report.md"
exit $FAIL

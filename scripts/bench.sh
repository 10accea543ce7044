#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/bench.sh: e2map at scale against the tools a user would otherwise
# run, in one run, alternating, reported as ratios (competitor time / e2map
# time; above 1x e2map is faster).  Not a test: nothing here is timed by CI.
#
#   sudo make bench                  (builds e2map, installs the tools)
#   sudo E2MAP=path/to/e2map scripts/bench.sh
#
# Needs root (loop mounts), e2fsprogs, xfsprogs (xfs_io), util-linux,
# python3; The Sleuth Kit's tsk_loaddb when installed (Debian: sleuthkit;
# scripts/deps.sh bench installs all of them), else its rows are left out.
#
# Images, built once with mke2fs and the kernel, kept in $BENCH_CACHE and
# reused while their recipe (this script's recipe part, bench-tree.py,
# mke2fs.conf) is unchanged:
#   big4k.img  16 GiB sparse ext4, 4 KiB blocks: 200,000 files made by
#              mke2fs -d from a generated tree (scripts/bench-tree.py:
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
# seeds; mke2fs gets scripts/mke2fs.conf, fixed UUIDs and hash seeds;
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
#   BENCH_ONLY     groups to time, of: check warm du query qwarm (all)
#   BENCH_REBUILD=1  rebuild the images even when cached
#   BENCH_KEEP_TREE=1  keep the generated tree in the cache after building
#   BENCH_JSON     also write every measurement and row as JSON to this file
#   E2MAP          the CLI to measure             (cmd/e2map, built by make)
set -u -o pipefail
export LC_ALL=C

die() { echo "bench: $*" >&2; exit 1; }
log() { printf '%s\n' "$*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
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
ONLY=" ${BENCH_ONLY:-check warm du query qwarm} "
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

###########################################################################
# Image recipe.  Changing anything from here to "end of recipe" (or
# bench-tree.py, or mke2fs.conf) changes the cache keys: the images rebuild.

# uuid_of STRING: a fixed, valid UUID derived from STRING.
uuid_of() {
	local h
	h=$(printf '%s' "$1" | md5sum | cut -c1-32)
	printf '%s-%s-4%s-8%s-%s\n' "${h:0:8}" "${h:8:4}" "${h:13:3}" "${h:17:3}" "${h:20:12}"
}

# The generators print xfs_io commands (one xfs_io reads them on stdin).
# Numbers are printed with %.0f: mawk's %d clamps at 2^31-1.  rnd() is
# Park-Miller (16807, 2^31-1): exact in double arithmetic, in every awk.
AWK_RND='function rnd(m) { x = (x * 16807) % 2147483647; return x % m }'

# gen_holes PATH N: N one-block (4 KiB) extents, one every other block.
gen_holes() {
	awk -v f="$1" -v n="$2" 'BEGIN {
		printf "open -f %s\n", f
		for (i = 0; i < n; i++) printf "pwrite -q -S 0x68 %.0f 4096\n", 2 * i * 4096
		printf "fsync\nclose\n"
	}'
}

# gen_unwritten PATH N: fallocate N 4 KiB blocks, write every other one:
# alternating written and unwritten extents.
gen_unwritten() {
	awk -v f="$1" -v n="$2" 'BEGIN {
		printf "open -f %s\nfalloc 0 %.0f\n", f, n * 4096
		for (i = 0; i < n; i += 2) printf "pwrite -q -S 0x75 %.0f 4096\n", i * 4096
		printf "fsync\nclose\n"
	}'
}

# gen_punched SEED PATH MIB N: MIB written, then N ranges of 4..64 KiB
# punched (fallocate -p) at random 4 KiB-aligned offsets.
gen_punched() {
	awk -v x="$1" -v f="$2" -v mib="$3" -v n="$4" "$AWK_RND"'
	BEGIN {
		printf "open -f %s\npwrite -q -S 0x70 -b 1048576 0 %.0f\nfsync\n", f, mib * 1048576
		for (i = 0; i < n; i++)
			printf "fpunch %.0f %.0f\n", rnd(mib * 256) * 4096, (1 + rnd(16)) * 4096
		printf "fsync\nclose\n"
	}'
}

# gen_sparse SEED COUNT PREFIX: COUNT sparse files of 16..256 MiB, each
# with 100..1500 runs of 4 KiB (a tenth 4..32 KiB) at random offsets; a
# third also fallocate 1..4 ranges (unwritten), a third punch 1..4 ranges,
# a fifth are truncated past their last run.
gen_sparse() {
	awk -v x="$1" -v n="$2" -v pre="$3" "$AWK_RND"'
	BEGIN {
		for (i = 0; i < n; i++) {
			span = (16 + rnd(241)) * 256          # in 4 KiB blocks
			printf "open -f %s%03d\n", pre, i
			runs = 100 + rnd(1401)
			for (r = 0; r < runs; r++) {
				len = rnd(10) ? 4096 : 4096 * (1 + rnd(8))
				printf "pwrite -q -S 0x%02x %.0f %.0f\n", 65 + r % 26, rnd(span) * 4096, len
			}
			k = rnd(3)
			for (r = 0; k == 0 && r < 1 + rnd(4); r++)
				printf "falloc %.0f %.0f\n", rnd(span) * 4096, (16 + rnd(1024)) * 4096
			for (r = 0; k == 1 && r < 1 + rnd(4); r++)
				printf "fpunch %.0f %.0f\n", rnd(span) * 4096, (1 + rnd(256)) * 4096
			if (rnd(5) == 0)
				printf "truncate %.0f\n", span * 4096 + rnd(1048576)
			printf "fsync\nclose\n"
		}
	}'
}

# gen_query PATH: the file every query image holds (see the header).
gen_query() {
	awk -v f="$1" 'BEGIN {
		m = 1048576
		printf "open -f %s\n", f
		for (i = 0; i < 4096; i++) printf "pwrite -q -S 0x71 %.0f 4096\n", i * 32 * 4096
		printf "falloc %.0f %.0f\n", 768 * m, 8 * m
		for (i = 0; i < 2048; i += 2) printf "pwrite -q -S 0x72 %.0f 4096\n", 768 * m + i * 4096
		printf "pwrite -q -S 0x73 -b 1048576 %.0f %.0f\nfsync\n", 896 * m, 4 * m
		for (i = 0; i < 16; i++) printf "fpunch %.0f 65536\n", 896 * m + i * 262144
		printf "truncate %.0f\nfsync\nclose\n", 1024 * m
	}'
}

# gen_names DIR N: N empty files in DIR (the kernel indexes the directory).
gen_names() {
	awk -v d="$1" -v n="$2" 'BEGIN {
		for (i = 0; i < n; i++) printf "open -f %s/entry-%06d-%s\nclose\n", d, i, substr("abcdefghijklmnopqrstuvwxyz", 1 + i % 26)
	}'
}

# xio DIR: run the xfs_io commands on stdin with DIR as working directory.
xio() {
	local err
	err=$(cd "$1" && "${PIN[@]}" xfs_io 2>&1 >/dev/null)
	[ -z "$err" ] || log "bench: xfs_io: $(printf '%s\n' "$err" | head -3)"
}

# new_fs IMG SIZE BLOCKSIZE NAME EXTENDED [mke2fs args]: make the filesystem.
new_fs() {
	local img=$1 size=$2 bs=$3 name=$4 ext=$5
	shift 5
	rm -f "$img"
	truncate -s "$size" "$img" || die "truncate $img"
	mke2fs -q -F -t ext4 -b "$bs" -L "$name" -U "$(uuid_of "bench:$name")" \
		-E "hash_seed=$(uuid_of "hash:$name"),root_owner=0:0,$ext" "$@" "$img" || die "mke2fs $img"
}

# kernel_files DIR SEED: the kernel-written files of the big images.
kernel_files() {
	local d=$1
	mkdir -p "$d/frag/sparse" "$d/q" "$d/htree"
	{
		gen_holes frag/holes-1g 131072
		gen_unwritten frag/unwritten-128m 32768
		gen_punched "$2" frag/punched-128m 128 2000
	} | xio "$d"
	gen_sparse "$(($2 + 1))" 240 frag/sparse/s | xio "$d"
	gen_query q/frag-1g | xio "$d"
	gen_names htree 5000 | xio "$d"
}

# gen_tree NFILES DIV: the generated tree (shared by the images made from it).
gen_tree() {
	local t=$CACHE/tree-$1-$2-$TREE_KEY
	if [ ! -e "$t/.done" ]; then
		rm -rf "$t"
		log "bench: generating $1 files in $t ..."
		python3 "$here/bench-tree.py" "$t/root" "$1" 7001 "$2" >"$t.stats" || die "bench-tree.py failed"
		touch "$t/.done"
	fi
	echo "$t/root"
}

build_big() {	# IMG NAME BLOCKSIZE SIZE NFILES DIV
	local img=$1 name=$2 src
	src=$(gen_tree "$5" "$6") || exit 1
	new_fs "$img" "$4" "$3" "$name" lazy_itable_init=0,lazy_journal_init=0 -d "$src"
	mount -o loop "$img" "$MNT" || die "mount $img"
	kernel_files "$MNT" 4101
}

build_huge() {	# IMG NAME
	# the default inode count (64 Mi): lazy inode tables (a sparse file
	# reads zeros anyway), not zeroed by the kernel behind our back
	new_fs "$1" 1T 4096 "$2" lazy_itable_init=1,lazy_journal_init=1
	mount -o loop,noinit_itable "$1" "$MNT" || die "mount $1"
	mkdir -p "$MNT/frag" "$MNT/q"
	gen_holes frag/holes-1g 131072 | xio "$MNT"
	gen_query q/frag-1g | xio "$MNT"
}

build_tiny() {	# IMG NAME
	new_fs "$1" 64M 4096 "$2" lazy_itable_init=0,lazy_journal_init=0
	mount -o loop "$1" "$MNT" || die "mount $1"
	mkdir -p "$MNT/q"
	gen_query q/frag-1g | xio "$MNT"
}
# end of recipe
###########################################################################

RECIPE=$( { declare -f uuid_of gen_holes gen_unwritten gen_punched gen_sparse gen_query gen_names \
	xio new_fs kernel_files gen_tree build_big build_huge build_tiny; echo "$AWK_RND";
	cat "$here/mke2fs.conf"; } | md5sum | cut -c1-12)
TREE_KEY=$(md5sum <"$here/bench-tree.py" | cut -c1-12)

# build NAME HOW ARGS...: $CACHE/NAME.img and its lists, unless cached.
build() {
	local name=$1 how=$2 img=$CACHE/$1.img key t0 out
	shift 2
	key=$RECIPE
	[ "$how" != big ] || key+=$TREE_KEY
	key=$(echo "$key $how $*" | md5sum | cut -c1-12)
	if [ "${BENCH_REBUILD:-0}" != 1 ] && [ -s "$img" ] && [ -s "$CACHE/$name.files" ] &&
	   [ "$(cat "$CACHE/$name.key" 2>/dev/null)" = "$key" ]; then
		log "bench: reusing $img (recipe $key)"
		return
	fi
	log "bench: building $img ..."
	t0=$(date +%s)
	rm -f "$CACHE/$name.key"
	export MKE2FS_CONFIG=$here/mke2fs.conf E2FSPROGS_FAKE_TIME=1700000000
	"build_$how" "$img.tmp" "bench-$name" "$@"
	(cd "$MNT" && find . -xdev -type f | sed 's/^\.//' | sort) >"$CACHE/$name.files"
	(cd "$MNT" && find . -xdev -printf '%i\n' | sort -un) >"$CACHE/$name.inos"
	(cd "$MNT" && find . -xdev -type d | wc -l) >"$CACHE/$name.ndirs"
	umount "$MNT" || die "umount after building $name"
	# on disk before anything is timed (the image only: a global sync
	# would wait for whatever else the machine is writing)
	sync "$img.tmp"
	out=$(e2fsck -fn "$img.tmp" 2>&1) || die "e2fsck -fn $name: $out"
	mv -f "$img.tmp" "$img"
	echo "$key" >"$CACHE/$name.key"
	BUILT+=("$name $(($(date +%s) - t0)) s")
	log "bench: built $name in $(($(date +%s) - t0)) s"
}

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

###########################################################################
# Sanity: e2map's answers against the kernel's, each on a fresh mount.

XA="xargs -d '\\n' -s 1048576 -a"
FAIL=0
SANITY=()
DESC=()
rm -f "$CACHE"/diff-*

kmount() { mount -o loop,ro,noload "$1" "$2" || die "mount $1"; }
kumount() { umount "$1" || die "umount $1"; }

# same WHAT A B TAG: compare two outputs, report, count mismatches.
same() {
	if cmp -s "$2" "$3"; then
		SANITY+=("$1: identical ($(wc -l <"$2") lines)")
	else
		diff "$2" "$3" >"$CACHE/diff-$4"
		SANITY+=("$1: **DIFFERENT** (diff in $CACHE/diff-$4)")
		FAIL=1
	fi
	log "bench: sanity: ${SANITY[-1]}"
}

# echeck IMG NAME: e2map check must find no error.
echeck() {
	local out
	out=$("$E2MAP" check -q "$1" 2>&1)
	if [ $? = 0 ]; then
		SANITY+=("$2: e2map check: $(printf '%s\n' "$out" | tail -1)")
	else
		SANITY+=("$2: e2map check: **FAILED**: $(printf '%s\n' "$out" | tail -3 | tr '\n' ' ')")
		FAIL=1
	fi
	log "bench: sanity: ${SANITY[-1]}"
}

# describe NAME IMG KFILEFRAG: one line about the image.
describe() {
	local bs inodes
	bs=$(dumpe2fs -h "$2" 2>/dev/null | awk -F': *' '/^Block size/ { print $2 }')
	inodes=$(dumpe2fs -h "$2" 2>/dev/null | awk -F': *' '/^Inode count/ { c = $2 } /^Free inodes/ { f = $2 } END { print c - f " of " c }')
	DESC+=("$1.img: $(du -h --apparent-size "$2" | cut -f1) apparent, $(du -h "$2" | cut -f1) allocated, $bs-byte blocks, inodes in use $inodes; $(wc -l <"$CACHE/$1.files") regular files, $(cat "$CACHE/$1.ndirs") directories${3:+; $(awk '/^File size of / { n++; c = 0 } /^ *[0-9]+: / { c++; e++ }
		/ extents? found$/ { if (c > mx) mx = c; if (c >= 1000) big++ }
		END { printf "%d extents as filefrag -v lists them (at most %d in one file; %d files with >= 1000)", e, mx, big }' "$3")}")
}

# e2q XFSIO-COMMAND IMG: the e2map command that answers the xfs_io command
# on /q/frag-1g (e2map takes IMAGE PATH before the offsets).
e2q() {
	local w verb="" opts="" pos=""
	for w in $1; do
		if [ -z "$verb" ]; then verb=$w
		elif [[ $w == -* ]]; then opts+=" $w"
		else pos+=" $w"
		fi
	done
	echo "$E2MAP $verb$opts $2 /q/frag-1g$pos"
}

QSEEK="seek -d 600m"
QFIEMAP="fiemap -v 256m 64k"
for b in "${BIGS[@]}"; do
	img=$CACHE/$b.img
	sed "s#^#$MNT#" "$CACHE/$b.files" >"$WORK/$b.mfiles"
	sed "s#^#ex <#; s#\$#>#" "$CACHE/$b.inos" >"$WORK/$b.debugfs"
	kmount "$img" "$MNT"
	# filefrag -v names the filesystem type once per process: the batches
	# differ (the mount point lengthens the kernel's arguments)
	eval "$XA $WORK/$b.mfiles filefrag -v" 2>&1 | sed "s#$MNT/#/#g" |
		grep -v '^Filesystem type is: ' >"$WORK/$b.k-filefrag"
	kumount "$MNT"
	eval "$XA $CACHE/$b.files $E2MAP filefrag -v $img" 2>&1 |
		grep -v '^Filesystem type is: ' >"$WORK/$b.e-filefrag"
	same "$b: e2map filefrag -v against the kernel's, all $(wc -l <"$CACHE/$b.files") files" \
		"$WORK/$b.k-filefrag" "$WORK/$b.e-filefrag" "$b-filefrag"
	echeck "$img" "$b"
	kmount "$img" "$MNT"
	(cd "$MNT" && du -s .) | sed 's#\.$#/#' >"$WORK/$b.k-du"
	kumount "$MNT"
	"$E2MAP" du -s "$img" / >"$WORK/$b.e-du" 2>&1
	same "$b: e2map du -s against du -s on the mount" "$WORK/$b.k-du" "$WORK/$b.e-du" "$b-du"
	describe "$b" "$img" "$WORK/$b.k-filefrag"
done
for q in tiny big4k huge; do
	img=$CACHE/$q.img
	[ $q = big4k ] || describe "$q" "$img" ""
	for c in "$QSEEK" "$QFIEMAP" "seek -a -r 0" "fiemap -v"; do
		kmount "$img" "$MNT"
		xfs_io -r -c "$c" "$MNT/q/frag-1g" 2>&1 | sed "s#$MNT/#/#g" >"$WORK/k-q"
		kumount "$MNT"
		eval "$(e2q "$c" "$img")" >"$WORK/e-q" 2>&1
		same "$q: e2map $c /q/frag-1g against xfs_io's" "$WORK/k-q" "$WORK/e-q" "$q-${c// /_}"
	done
	[ $q = big4k ] || echeck "$img" "$q"
done
[ $FAIL = 0 ] || log "bench: outputs differ from the kernel's; timing anyway (exit 1 at the end)"

###########################################################################
# Timing.

ROWS=$WORK/rows
: >"$ROWS"
JSONS=()
START=$(date +%s)
LOAD0=$(cut -d' ' -f1 /proc/loadavg)

# group NAME: time the commands added with cmd since the last group.
GROUP=$WORK/group
: >"$GROUP"
# cmd ID RUNS WARMUP PRE COMMAND: add a command to the next group.
cmd() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$GROUP"; }
group() {
	log "bench: timing group $1 ($(grep -c . "$GROUP") commands)"
	python3 "$TIMER" run "$GROUP" "$WORK/$1.json" || die "group $1 failed"
	JSONS+=("$WORK/$1.json")
	: >"$GROUP"
}
# tsk_note NAME: what the last tsk_loaddb run recorded, against the kernel
# (The Sleuth Kit 4.11 gives some kernel-written extent files size 0 and no
# blocks: it does less work than the others there).
tsk_note() {
	local k
	k=$(grep -c '^File size of .* is 0 ' "$WORK/$1.k-filefrag")
	SANITY+=("$1: tsk_loaddb recorded $(python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n, z = c.execute("select count(*), sum(size = 0) from tsk_files where meta_type = 1 and type = 0").fetchone()
print("%d regular files, %d of them with size 0" % (n, z))' "$WORK/tsk.db"); the kernel lists $k empty files")
	log "bench: ${SANITY[-1]}"
}

# row TASK E2MAP-ID COMPETITOR COMPETITOR-ID [growth]
row() { printf '%s|%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" "${5:-ratio}" >>"$ROWS"; }
wanted() { [[ $ONLY == *" $1 "* ]]; }

for b in "${BIGS[@]}"; do
	img=$CACHE/$b.img n=$(wc -l <"$CACHE/$b.files") ni=$(wc -l <"$CACHE/$b.inos")
	kfresh="mount -o loop,ro,noload $img $MNT && $XA $WORK/$b.mfiles filefrag -v; umount $MNT"
	if wanted check; then
		cmd "$b-e2map-check" "$RUNS" 1 - "$E2MAP check $img"
		cmd "$b-e2map-check-j1" "$RUNS" 1 - "$E2MAP check -j1 $img"
		cmd "$b-e2map-filefrag" "$RUNS" 1 - "$XA $CACHE/$b.files $E2MAP filefrag -v $img"
		cmd "$b-e2fsck" "$RUNS" 1 - "e2fsck -fn $img"
		cmd "$b-debugfs" "$RUNS" 1 - "debugfs -f $WORK/$b.debugfs $img"
		cmd "$b-kernel-fresh" "$RUNS" 1 - "$kfresh"
		# tsk_loaddb takes ~40 s a run: on the 4 KiB-block images only
		[ $HAVE_TSK = 0 ] || [ "$b" = big1k ] || cmd "$b-tsk" "$SLOW_RUNS" 0 "rm -f $WORK/tsk.db" "tsk_loaddb -d $WORK/tsk.db $img"
		group "check-$b"
		[ $HAVE_TSK = 0 ] || [ "$b" = big1k ] || tsk_note "$b"
		t="$b: \`check\`, all $ni inodes"
		row "$t" "$b-e2map-check" "\`e2fsck -fn\`" "$b-e2fsck"
		row "$t" "$b-e2map-check" "one \`debugfs -f\` session, \`ex <INO>\` per inode" "$b-debugfs"
		row "$t" "$b-e2map-check" "mount + \`filefrag -v\` over every file + umount" "$b-kernel-fresh"
		[ $HAVE_TSK = 0 ] || [ "$b" = big1k ] || row "$t" "$b-e2map-check" "\`tsk_loaddb\` (new SQLite database)" "$b-tsk"
		row "$b: \`check -j1\` (one thread)" "$b-e2map-check-j1" "\`e2fsck -fn\`" "$b-e2fsck"
		row "$b: \`filefrag -v\` over all $n paths" "$b-e2map-filefrag" "fresh mount + \`filefrag -v\` + umount" "$b-kernel-fresh"
	fi
	if wanted warm; then
		kmount "$img" "$MNT"
		cmd "$b-e2map-filefrag-w" "$RUNS" 1 - "$XA $CACHE/$b.files $E2MAP filefrag -v $img"
		cmd "$b-kernel-warm" "$RUNS" 1 - "$XA $WORK/$b.mfiles filefrag -v"
		group "warm-$b"
		kumount "$MNT"
		row "$b: \`filefrag -v\` over all $n paths" "$b-e2map-filefrag-w" "\`filefrag -v\` on an already-mounted fs" "$b-kernel-warm"
	fi
	if wanted du; then
		cmd "$b-e2map-du" "$RUNS" 1 - "$E2MAP du -s $img /"
		cmd "$b-du-fresh" "$RUNS" 1 - "mount -o loop,ro,noload $img $MNT && du -s $MNT; umount $MNT"
		group "du-$b"
		kmount "$img" "$MNT"
		cmd "$b-e2map-du-w" "$RUNS" 1 - "$E2MAP du -s $img /"
		cmd "$b-du-warm" "$RUNS" 1 - "du -s $MNT"
		group "du-warm-$b"
		kumount "$MNT"
		row "$b: \`du -s\`" "$b-e2map-du" "mount + \`du -s\` + umount" "$b-du-fresh"
		row "$b: \`du -s\`" "$b-e2map-du-w" "\`du -s\` on an already-mounted fs" "$b-du-warm"
	fi
done

declare -A QNAME=([tiny]="64 MiB" [big4k]="16 GiB" [huge]="1 TiB")
if wanted query; then
	for q in tiny big4k huge; do
		img=$CACHE/$q.img
		cmd "$q-e2map-seek" "$QRUNS" 1 - "$(e2q "$QSEEK" "$img")"
		cmd "$q-e2map-fiemap" "$QRUNS" 1 - "$(e2q "$QFIEMAP" "$img")"
		cmd "$q-kernel-seek" "$QRUNS" 1 - "mount -o loop,ro,noload $img $MNT && xfs_io -r -c '$QSEEK' $MNT/q/frag-1g; umount $MNT"
		cmd "$q-kernel-fiemap" "$QRUNS" 1 - "mount -o loop,ro,noload $img $MNT && xfs_io -r -c '$QFIEMAP' $MNT/q/frag-1g; umount $MNT"
		[ $q = big4k ] || cmd "$q-e2map-check" "$RUNS" 1 - "$E2MAP check $img"
		[ $q = big4k ] || cmd "$q-e2fsck" "$RUNS" 1 - "e2fsck -fn $img"
	done
	group query
	for q in tiny big4k huge; do
		row "${QNAME[$q]} fs: \`$QSEEK\`, one file" "$q-e2map-seek" "mount + \`xfs_io -c '$QSEEK'\` + umount" "$q-kernel-seek"
		row "${QNAME[$q]} fs: \`$QFIEMAP\`, one file" "$q-e2map-fiemap" "mount + \`xfs_io -c '$QFIEMAP'\` + umount" "$q-kernel-fiemap"
	done
	for q in big4k huge; do
		row "\`$QSEEK\`: e2map on the ${QNAME[$q]} fs against the 64 MiB fs" "$q-e2map-seek" "64 MiB fs" "tiny-e2map-seek" growth
		row "\`$QFIEMAP\`: e2map on the ${QNAME[$q]} fs against the 64 MiB fs" "$q-e2map-fiemap" "64 MiB fs" "tiny-e2map-fiemap" growth
	done
	for q in tiny huge; do
		row "${QNAME[$q]} fs: \`check\`" "$q-e2map-check" "\`e2fsck -fn\`" "$q-e2fsck"
	done
fi
if wanted qwarm; then
	i=1
	for q in tiny big4k huge; do
		kmount "$CACHE/$q.img" "$WORK/m$i"
		cmd "$q-e2map-seek-w" "$QRUNS" 1 - "$(e2q "$QSEEK" "$CACHE/$q.img")"
		cmd "$q-xfsio-seek-w" "$QRUNS" 1 - "xfs_io -r -c '$QSEEK' $WORK/m$i/q/frag-1g"
		cmd "$q-e2map-fiemap-w" "$QRUNS" 1 - "$(e2q "$QFIEMAP" "$CACHE/$q.img")"
		cmd "$q-xfsio-fiemap-w" "$QRUNS" 1 - "xfs_io -r -c '$QFIEMAP' $WORK/m$i/q/frag-1g"
		i=$((i + 1))
	done
	group qwarm
	for i in 1 2 3; do kumount "$WORK/m$i"; done
	for q in tiny big4k huge; do
		row "${QNAME[$q]} fs: \`$QSEEK\`, one file" "$q-e2map-seek-w" "\`xfs_io -c '$QSEEK'\` on an already-mounted fs" "$q-xfsio-seek-w"
		row "${QNAME[$q]} fs: \`$QFIEMAP\`, one file" "$q-e2map-fiemap-w" "\`xfs_io -c '$QFIEMAP'\` on an already-mounted fs" "$q-xfsio-fiemap-w"
	done
fi

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

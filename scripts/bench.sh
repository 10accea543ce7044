#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/bench.sh: e2map against the tools a user would otherwise run, in
# one run, reported as ratios (competitor time / e2map time; > 1 means e2map
# is faster).
#
#   sudo scripts/bench.sh            (from the repository; builds with make)
#
# Needs root (loop mounts), e2fsprogs (mke2fs, filefrag, debugfs), xfsprogs
# (xfs_io); uses hyperfine and The Sleuth Kit (istat) when installed (on
# Debian: apt-get install hyperfine sleuthkit), otherwise a median-of-N loop
# and no istat row.
#
# Images (built once with the kernel, cached, reused while this script's
# image recipe is unchanged):
#   ext4.img  2 GiB sparse ext4, 4 KiB blocks: ~3000 small files, fragmented
#             files with thousands of extents (extent trees of depth 2),
#             sparse files, preallocated (unwritten) files, big files and a
#             1 TiB file holding one block at its end
#   ext3.img  1 GiB sparse ext3 (block-mapped, 4 KiB blocks): small files,
#             big files through double-indirect blocks, sparse files reaching
#             the triple-indirect tree, a 1 TiB file with one block at its end
# Every random choice comes from a Park-Miller generator with fixed seeds
# (exact in any awk); mke2fs gets a private mke2fs.conf, fixed UUIDs and
# hash seeds; writers are pinned to CPU 0.  Layouts are reproducible, not
# byte-identical (the kernel stamps times).
#
# Tasks:
#   A  map every file: e2map filefrag -v IMG PATH... (one batch) against a
#      cold kernel (mount -o loop,ro,noload + filefrag -v on every file in
#      one xargs batch + umount), the warm kernel (already mounted, caches
#      hot), one debugfs session (-f command file, `ex` on ext4, `blocks` on
#      ext3, per file); Sleuth Kit istat, one process per file, on every
#      32nd file (against e2map filefrag -v on the same files; istat fails
#      on some sparse extent files and walks every hole block of sparse
#      block-mapped ones: those are counted and left out); on ext4 also
#      e2map fiemap -v against xfs_io fiemap -v, one process per file, on a
#      sample (every 16th file and the fragmented ones).
#   B  seek walk of the sparse files: e2map seek -a -r IMG PATH 0, one
#      process per file (seek takes one PATH), against xfs_io -r -c
#      'seek -a -r 0' on a mount: per file cold, one batch cold, per file warm.
#   C  one query: SEEK_DATA from 0 in a 1 TiB file whose only data is its
#      last block (ext4: one extent; ext3: through the triple-indirect
#      tree): e2map seek -d against mount + xfs_io + umount, and warm xfs_io.
# Before timing, the outputs are compared, each kernel listing taken on a
# fresh mount: e2map filefrag -v against the kernel's filefrag -v on every
# file, e2map seek against xfs_io on every sparse file, e2map fiemap -v
# against xfs_io on the sample.  The script exits 1 if any differ.  (A second
# FIEMAP of the same file on the same mount may list fewer, merged extents:
# the count of such files is reported.)
#
# Caches: the page cache of the image files is warm for everybody (the
# images are read once before timing), so "cold" means a fresh mount: no
# inode, extent-status or buffer cache inside the mounted filesystem.
# Caches are never dropped with /proc/sys/vm/drop_caches.
#
# Env:
#   BENCH_CACHE   where the images are kept      (/tmp/bench-cache)
#   BENCH_REBUILD=1  rebuild the images even when cached
#   BENCH_RUNS    timed runs per measurement     (10; plus one warm-up run)
#   BENCH_SLOW_RUNS  runs for the slow per-file loops (istat, fiemap, seek) (3)
#   E2MAP         the CLI                        (cmd/e2map, built with make)
#   BENCH_JSON    also write the results as JSON to this file
#   BENCH_NO_HYPERFINE=1  time with the date loop even if hyperfine is there
set -u -o pipefail
export LC_ALL=C

die() { echo "bench: $*" >&2; exit 1; }
log() { printf '%s\n' "$*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
[ "$(id -u)" = 0 ] || die "must run as root (loop mounts)"
for t in mke2fs e2fsck debugfs filefrag xfs_io mount umount mountpoint awk md5sum taskset; do
	command -v "$t" >/dev/null 2>&1 || die "missing tool: $t"
done

if [ -z "${E2MAP:-}" ]; then
	make -C "$root" -s >/dev/null || die "make failed"
	E2MAP=$root/cmd/e2map
fi
[ -x "$E2MAP" ] || die "no e2map CLI at $E2MAP"
E2MAP=$(cd "$(dirname "$E2MAP")" && pwd)/$(basename "$E2MAP")

CACHE=${BENCH_CACHE:-/tmp/bench-cache}
RUNS=${BENCH_RUNS:-10}
SLOW_RUNS=${BENCH_SLOW_RUNS:-3}
WORK=$(mktemp -d /tmp/bench-work.XXXXXX) || die "mktemp failed"
MNT=$WORK/mnt
mkdir -p "$MNT" "$CACHE"
PIN=(taskset -c 0)

cleanup() {
	local i
	for i in 1 2 3; do
		mountpoint -q "$MNT" 2>/dev/null || break
		umount "$MNT" 2>/dev/null || sleep 0.2
	done
	mountpoint -q "$MNT" 2>/dev/null && umount -l "$MNT"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

HAVE_HF=0
[ "${BENCH_NO_HYPERFINE:-0}" = 1 ] || ! command -v hyperfine >/dev/null 2>&1 || HAVE_HF=1
HAVE_TSK=0
command -v istat >/dev/null 2>&1 && HAVE_TSK=1

###########################################################################
# Image recipe.  Changing anything from here to "end of recipe" changes the
# cache key and rebuilds the images.

# uuid_of STRING: a fixed, valid UUID derived from STRING.
uuid_of() {
	local h
	h=$(printf '%s' "$1" | md5sum | cut -c1-32)
	printf '%s-%s-4%s-8%s-%s\n' "${h:0:8}" "${h:8:4}" "${h:13:3}" "${h:17:3}" "${h:20:12}"
}

mke2fs_conf() {
	cat "$(dirname "$0")/mke2fs.conf"
}

# The generators print xfs_io commands (read by one xfs_io on stdin, which
# opens, writes and closes each file).  Numbers are printed with %.0f: mawk's
# %d clamps at 2^31-1.  rnd() is Park-Miller (16807, 2^31-1):
# exact in double arithmetic, so every awk gives the same sequence.
AWK_RND='function rnd(m) { x = (x * 16807) % 2147483647; return x % m }'

# gen_small SEED COUNT DIRS: COUNT small files spread over DIRS directories;
# 70% are 1 B..16 KiB, 25% 16..256 KiB, 5% 256 KiB..1 MiB.
gen_small() {
	awk -v x="$1" -v n="$2" -v nd="$3" "$AWK_RND"'
	BEGIN {
		for (i = 0; i < n; i++) {
			c = rnd(100)
			if (c < 70) sz = 1 + rnd(16384)
			else if (c < 95) sz = 16384 + rnd(245760)
			else sz = 262144 + rnd(786432)
			printf "open -f small/d%02d/f%05d\n", i % nd, i
			printf "pwrite -q -S 0x%02x 0 %.0f\nclose\n", 97 + i % 26, sz
		}
	}'
}

# gen_sparse SEED COUNT MAXGIB PREFIX FALLOC: COUNT sparse files: 1..40 data
# runs of 1..64 KiB (a quarter at unaligned offsets) anywhere in 1..MAXGIB
# GiB, a third with an unwritten (fallocated) range too when FALLOC is 1, a
# fifth extended by truncate past the last run.
gen_sparse() {
	awk -v x="$1" -v n="$2" -v maxg="$3" -v pre="$4" -v fa="$5" "$AWK_RND"'
	BEGIN {
		for (i = 0; i < n; i++) {
			span = (1 + rnd(maxg)) * 262144      # in 4 KiB blocks
			printf "open -f %s%04d\n", pre, i
			runs = 1 + rnd(40)
			for (r = 0; r < runs; r++) {
				off = rnd(span) * 4096
				if (rnd(4) == 0) off += rnd(4096)
				printf "pwrite -q -S 0x%02x %.0f %.0f\n", 65 + r % 26, off, 1 + rnd(65536)
			}
			if (rnd(3) == 0 && fa)
				printf "falloc %.0f %.0f\n", rnd(span) * 4096, (16 + rnd(1024)) * 4096
			if (rnd(5) == 0)
				printf "truncate %.0f\n", span * 4096 + rnd(1048576)
			printf "fsync\nclose\n"
		}
	}'
}

# gen_holes PATH N: N one-block extents, one every other block.
gen_holes() {
	awk -v f="$1" -v n="$2" 'BEGIN {
		printf "open -f %s\n", f
		for (i = 0; i < n; i++) printf "pwrite -q -S 0x68 %.0f 4096\n", 2 * i * 4096
		printf "fsync\nclose\n"
	}'
}

# gen_interleave A B N: two files of N blocks, N extents each and no holes:
# their blocks are fallocated one at a time, alternately (a concurrent
# writer's layout), then written over.  (Writing alternately does not
# fragment: mballoc's per-inode preallocation keeps each file contiguous.)
gen_interleave() {
	awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN {
		printf "open -f %s\nopen -f %s\n", a, b
		for (i = 0; i < n; i++) printf "file 0\nfalloc %.0f 4096\nfile 1\nfalloc %.0f 4096\n", i * 4096, i * 4096
		for (f = 0; f < 2; f++) printf "file %d\npwrite -q -S 0x%02x -b 1048576 0 %.0f\nfsync\n", f, 105 + f, n * 4096
		printf "close\nclose\n"
	}'
}

# gen_unwritten PATH N: fallocate N blocks, write every other one: N
# alternating written/unwritten extents.
gen_unwritten() {
	awk -v f="$1" -v n="$2" 'BEGIN {
		printf "open -f %s\nfalloc 0 %.0f\n", f, n * 4096
		for (i = 0; i < n; i += 2) printf "pwrite -q -S 0x75 %.0f 4096\n", i * 4096
		printf "fsync\nclose\n"
	}'
}

# gen_prealloc SEED COUNT: COUNT fallocated files of 1..16 MiB; half with a
# few written runs, a fifth with extra space past EOF (falloc -k).
gen_prealloc() {
	awk -v x="$1" -v n="$2" "$AWK_RND"'
	BEGIN {
		for (i = 0; i < n; i++) {
			blocks = 256 * (1 + rnd(16))
			printf "open -f prealloc/p%03d\nfalloc 0 %.0f\n", i, blocks * 4096
			if (rnd(2) == 0) {
				w = 1 + rnd(8)
				for (r = 0; r < w; r++)
					printf "pwrite -q -S 0x70 %.0f %.0f\n", rnd(blocks) * 4096, 4096 * (1 + rnd(32))
			}
			if (rnd(5) == 0) printf "falloc -k %.0f %.0f\n", blocks * 4096, 4096 * (1 + rnd(256))
			printf "fsync\nclose\n"
		}
	}'
}

# gen_big PREFIX MIB...: files written sequentially, 1 MiB at a time.
gen_big() {
	local pre=$1 i=0 m
	shift
	for m in "$@"; do
		printf 'open -f %s%02d\npwrite -q -S 0x42 -b 1048576 0 %d\nfsync\nclose\n' "$pre" $i $((m << 20))
		i=$((i + 1))
	done
}

# gen_huge PATH: a 1 TiB file whose only data is its last block.
gen_huge() {
	printf 'open -f %s\ntruncate 1t\npwrite -q -S 0x31 %d 4096\nfsync\nclose\n' "$1" $(((1 << 40) - 4096))
}

# xio DIR: run the xfs_io commands on stdin with DIR as working directory.
xio() {
	local err
	err=$(cd "$1" && "${PIN[@]}" xfs_io 2>&1 >/dev/null)
	[ -z "$err" ] || log "bench: xfs_io: $(printf '%s\n' "$err" | head -3)"
}

# new_fs IMG MIB TYPE NAME: mke2fs IMG and mount it read-write on $MNT.
new_fs() {
	local img=$1 mib=$2 type=$3 name=$4
	rm -f "$img"
	truncate -s "${mib}M" "$img" || die "truncate $img"
	mke2fs -q -F -t "$type" -L "$name" -U "$(uuid_of "bench:$name")" \
		-E "hash_seed=$(uuid_of "hash:$name"),lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0" \
		"$img" || die "mke2fs $img"
	mount -o loop "$img" "$MNT" || die "mount $img"
}

build_ext4() {
	local img=$1 d
	new_fs "$img" 2048 ext4 bench-ext4
	for d in $(seq -f 'small/d%02g' 0 29) frag sparse prealloc big; do mkdir -p "$MNT/$d"; done
	gen_small 4101 3000 30 | xio "$MNT"
	sync
	{
		for n in 1500 3000 6000; do gen_holes frag/holes-$n $n; done
		for n in 2048 4096; do gen_interleave frag/interleave-a-$n frag/interleave-b-$n $n; done
		for n in 2000 5000; do gen_unwritten frag/unwritten-$n $n; done
	} | xio "$MNT"
	gen_sparse 4102 200 64 sparse/s 1 | xio "$MNT"
	gen_prealloc 4103 40 | xio "$MNT"
	gen_big big/b 64 64 64 | xio "$MNT"
	gen_huge huge-1t | xio "$MNT"
}

build_ext3() {
	local img=$1 d
	new_fs "$img" 1024 ext3 bench-ext3
	for d in $(seq -f 'small/d%02g' 0 4) frag sparse big; do mkdir -p "$MNT/$d"; done
	gen_small 3101 500 5 | xio "$MNT"
	sync
	{ gen_holes frag/holes-1000 1000; gen_holes frag/holes-3000 3000; } | xio "$MNT"
	gen_sparse 3102 60 16 sparse/s 0 | xio "$MNT"
	gen_big big/b 16 64 128 200 | xio "$MNT"
	gen_huge huge-1t | xio "$MNT"
}
# end of recipe
###########################################################################

RECIPE_KEY=$( { declare -f uuid_of mke2fs_conf gen_small gen_sparse gen_holes gen_interleave \
	gen_unwritten gen_prealloc gen_big gen_huge xio new_fs build_ext4 build_ext3; echo "$AWK_RND"; } |
	md5sum | cut -c1-12)

# build NAME: build $CACHE/NAME.img and its file lists unless cached.
build() {
	local name=$1 img=$CACHE/$1.img key=$CACHE/$1.key t0 out
	if [ "${BENCH_REBUILD:-0}" != 1 ] && [ -s "$img" ] && [ -s "$CACHE/$name.files" ] &&
	   [ "$(cat "$key" 2>/dev/null)" = "$RECIPE_KEY" ]; then
		log "bench: reusing $img (recipe $RECIPE_KEY)"
		return
	fi
	log "bench: building $img with the kernel ..."
	t0=$(date +%s%N)
	rm -f "$key"
	export MKE2FS_CONFIG=$WORK/mke2fs.conf E2FSPROGS_FAKE_TIME=1700000000
	mke2fs_conf >"$MKE2FS_CONFIG"
	"build_$name" "$img.tmp"
	(cd "$MNT" && find . -type f | sed 's/^\.//' | sort) >"$CACHE/$name.files"
	(cd "$MNT" && find ./sparse ./huge-1t -type f | sed 's/^\.//' | sort) >"$CACHE/$name.sparse"
	sync
	umount "$MNT" || die "umount after building $name"
	out=$(e2fsck -fn "$img.tmp" 2>&1) || die "e2fsck -fn $name: $out"
	mv -f "$img.tmp" "$img"
	echo "$RECIPE_KEY" >"$key"
	log "bench: built $name in $((($(date +%s%N) - t0) / 1000000)) ms"
}

build ext4
build ext3

###########################################################################
# Measurement.

IMG_ext4=$CACHE/ext4.img
IMG_ext3=$CACHE/ext3.img
XARGS=(xargs -s 1048576)
declare -A T           # id -> median seconds
declare -A TMIN        # id -> minimum seconds
ROWS=()                # "task|e2map id|competitor|competitor id"

# No writeback of a fresh build under the timings; the image files are read
# once so that every tool starts from a warm host page cache (e2map, debugfs
# and istat read the file; the loop device reads it too).
sync
cat "$IMG_ext4" "$IMG_ext3" >/dev/null
START=$(date +%s)
if [ -r /proc/loadavg ]; then LOAD0=$(cut -d' ' -f1 /proc/loadavg); fi

kmount() { mount -o loop,ro,noload "$1" "$MNT" || die "mount $1"; }
kumount() { umount "$MNT" || die "umount $MNT"; }

# measure ID RUNS WARMUP CMD: median and minimum wall time of CMD over RUNS
# runs after WARMUP untimed ones.  A plain command is run directly; one that
# needs a shell (mount && ...; umount, loops) is run as `sh SCRIPT`, so it
# pays one sh start-up (SH_START below, reported).  hyperfine -N when
# installed, else a date +%s%N loop.  No shell-overhead subtraction: with
# other load on the machine it turns millisecond timings into noise.
measure() {
	local id=$1 runs=$2 warm=$3 cmd=$4 i t0 t1 ts=() run
	log "bench: [$id] $cmd"
	if [[ $cmd == *[\;\&\|\<\>\$]* ]]; then
		printf '%s\n' "$cmd" >"$WORK/$id.sh"
		run="sh $WORK/$id.sh"
	else
		run=$cmd
	fi
	if [ $HAVE_HF = 1 ]; then
		hyperfine -N --style none --warmup "$warm" --runs "$runs" \
			--export-json "$WORK/$id.json" "$run" >"$WORK/$id.hf" 2>&1 ||
			die "[$id] hyperfine failed: $(tail -5 "$WORK/$id.hf")"
		T[$id]=$(jq -r '.results[0].median' "$WORK/$id.json")
		TMIN[$id]=$(jq -r '.results[0].min' "$WORK/$id.json")
	else
		for ((i = 0; i < warm; i++)); do eval "$run" >/dev/null 2>&1; done
		for ((i = 0; i < runs; i++)); do
			t0=$(date +%s%N)
			eval "$run" >/dev/null 2>&1 || die "[$id] failed: $cmd"
			t1=$(date +%s%N)
			ts+=("$(((t1 - t0) / 1000))")
		done
		T[$id]=$(printf '%s\n' "${ts[@]}" | sort -n |
			awk '{ a[NR] = $1 } END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.6f", m / 1e6 }')
		TMIN[$id]=$(printf '%s\n' "${ts[@]}" | sort -n | awk 'NR == 1 { printf "%.6f", $1 / 1e6 }')
	fi
}

row() { ROWS+=("$1|$2|$3|$4"); }

# fmt SECONDS: human time.
fmt() {
	awk -v s="$1" 'BEGIN {
		if (s >= 1) printf "%.2f s", s
		else if (s >= 0.001) printf "%.1f ms", s * 1000
		else printf "%.0f µs", s * 1e6
	}'
}

FAIL=0
# same WHAT A B: compare two outputs, report, count mismatches.
same() {
	if cmp -s "$2" "$3"; then
		log "bench: sanity: $1: identical ($(wc -l <"$2") lines)"
		SANITY+=("$1: identical ($(wc -l <"$2") lines)")
	else
		log "bench: sanity: $1: DIFFERENT (diff in $CACHE/diff-$4)"
		diff "$2" "$3" >"$CACHE/diff-$4"
		SANITY+=("$1: **DIFFERENT** (see $CACHE/diff-$4)")
		FAIL=1
	fi
}
SANITY=()
DESC=()
rm -f "$CACHE"/diff-*

measure sh "$RUNS" 3 "sh -c true"
for fs in ext4 ext3; do
	img=IMG_$fs; img=${!img}
	files=$CACHE/$fs.files sparse=$CACHE/$fs.sparse
	nfiles=$(wc -l <"$files") nsparse=$(wc -l <"$sparse")
	# absolute paths on the mount, and a sample (every 16th file + the
	# fragmented ones) for the slow per-file competitors
	sed "s#^#$MNT#" "$files" >"$WORK/$fs.mfiles"
	sed "s#^#$MNT#" "$sparse" >"$WORK/$fs.msparse"
	{ awk 'NR % 16 == 1' "$files"; grep '^/frag/' "$files"; } | sort -u >"$WORK/$fs.sample"
	sed "s#^#$MNT#" "$WORK/$fs.sample" >"$WORK/$fs.msample"
	nsample=$(wc -l <"$WORK/$fs.sample")

	#### sanity: e2map's output against the kernel's, each on a fresh mount
	# (a second FIEMAP of a file on the same mount can differ: the extent
	# status cache merges extents that the on-disk tree keeps apart)
	kmount "$img"
	"${XARGS[@]}" -a "$WORK/$fs.mfiles" filefrag -v 2>&1 | sed "s#$MNT/#/#g" >"$WORK/k-filefrag"
	"${XARGS[@]}" -a "$WORK/$fs.mfiles" filefrag -v 2>&1 | sed "s#$MNT/#/#g" >"$WORK/k-filefrag2"
	(cd "$MNT" && "${XARGS[@]}" -a "$WORK/$fs.msparse" xfs_io -r -c 'seek -a -r 0') >"$WORK/k-seek" 2>&1
	"${XARGS[@]}" -a "$WORK/$fs.mfiles" stat -c %i >"$WORK/$fs.inos"
	fsinfo=$(df -h --output=size,used "$MNT" | tail -1)
	kumount
	kmount "$img"
	"${XARGS[@]}" -a "$WORK/$fs.msample" xfs_io -r -c 'fiemap -v' 2>&1 | sed "s#^$MNT/#/#" >"$WORK/k-fiemap"
	kumount
	"${XARGS[@]}" -a "$files" "$E2MAP" filefrag -v "$img" >"$WORK/e-filefrag" 2>&1
	while read -r p; do "$E2MAP" seek -a -r "$img" "$p" 0; done <"$sparse" >"$WORK/e-seek" 2>&1
	while read -r p; do "$E2MAP" fiemap -v "$img" "$p"; done <"$WORK/$fs.sample" >"$WORK/e-fiemap" 2>&1
	same "$fs: e2map filefrag -v vs kernel filefrag -v, all $nfiles files" "$WORK/k-filefrag" "$WORK/e-filefrag" "$fs-filefrag"
	same "$fs: e2map seek -a -r vs xfs_io seek -a -r, all $nsparse sparse files" "$WORK/k-seek" "$WORK/e-seek" "$fs-seek"
	same "$fs: e2map fiemap -v vs xfs_io fiemap -v, $nsample sampled files" "$WORK/k-fiemap" "$WORK/e-fiemap" "$fs-fiemap"
	nwarm=$(awk '/^File size of /{ f = $4 } { print f "\t" $0 }' "$WORK/k-filefrag" >"$WORK/k1"
		awk '/^File size of /{ f = $4 } { print f "\t" $0 }' "$WORK/k-filefrag2" >"$WORK/k2"
		diff "$WORK/k1" "$WORK/k2" | awk -F'\t' '/^[<>]/ { sub(/^[<>] /, "", $1); print $1 }' | sort -u | wc -l)
	SANITY+=("$fs: kernel filefrag -v run twice on one mount: the second (warm) listing differs from the first (fresh) for $nwarm files (the extent status cache merges extents); e2map answers as a fresh mount")

	# image description, from the kernel's filefrag output
	stats=$(awk '/^File size of / { n++; c = 0 } /^ *[0-9]+: / { c++; e++ }
		/ extents? found$/ { if (c > mx) mx = c; if (c >= 1000) big++ }
		END { printf "%d files, %d extents as filefrag -v lists them (max %d in one file, %d files with >= 1000)", n, e, mx, big }' "$WORK/k-filefrag")
	depth=""
	[ $fs = ext4 ] && depth="; extent tree depth of /frag/holes-6000: $(debugfs -R 'ex /frag/holes-6000' "$img" 2>/dev/null | awk 'NR == 2 { sub("/", " "); print $2 }')"
	DESC+=("$fs.img: $(du -h --apparent-size "$img" | cut -f1) sparse image ($(du -h "$img" | cut -f1) allocated), fs size/used $fsinfo; $stats; $nsparse sparse files$depth")

	#### Task A: every file's extent listing
	measure "A-$fs-e2map" "$RUNS" 1 "${XARGS[*]} -a $files $E2MAP filefrag -v $img"
	measure "A-$fs-cold" "$RUNS" 1 "mount -o loop,ro,noload $img $MNT && ${XARGS[*]} -a $WORK/$fs.mfiles filefrag -v; umount $MNT"
	kmount "$img"
	measure "A-$fs-warm" "$RUNS" 1 "${XARGS[*]} -a $WORK/$fs.mfiles filefrag -v"
	kumount
	if [ $fs = ext4 ]; then dcmd=ex; else dcmd=blocks; fi
	sed "s#^#$dcmd #" "$files" >"$WORK/$fs.debugfs"
	measure "A-$fs-debugfs" "$RUNS" 1 "debugfs -f $WORK/$fs.debugfs $img"
	row "A $fs: extents of all $nfiles files" "A-$fs-e2map" "kernel cold: mount + filefrag -v (one xargs batch) + umount" "A-$fs-cold"
	row "A $fs: extents of all $nfiles files" "A-$fs-e2map" "kernel warm: filefrag -v on a hot mount" "A-$fs-warm"
	row "A $fs: extents of all $nfiles files" "A-$fs-e2map" "debugfs -f (one session, \`$dcmd\` per file)" "A-$fs-debugfs"

	# per-file competitors on the sample
	if [ $HAVE_TSK = 1 ]; then
		# istat on every 32nd file; files istat fails on or takes over 2 s
		# for (it lists every block of a sparse block-mapped file, holes too)
		# are left out of the timing and counted
		paste "$files" "$WORK/$fs.inos" | awk 'NR % 32 == 1' >"$WORK/$fs.tsk-all"
		: >"$WORK/$fs.tsk-ok"; : >"$WORK/$fs.tsk-okpaths"; terr=0; tslow=0
		while read -r p i; do
			timeout 2 istat "$img" "$i" >"$WORK/istat.out" 2>&1 </dev/null
			rc=$?
			if [ $rc = 124 ]; then tslow=$((tslow + 1))
			elif [ $rc != 0 ] || grep -q 'Error' "$WORK/istat.out"; then terr=$((terr + 1))
			else echo "$i" >>"$WORK/$fs.tsk-ok"; echo "$p" >>"$WORK/$fs.tsk-okpaths"
			fi
		done <"$WORK/$fs.tsk-all"
		ntsk=$(wc -l <"$WORK/$fs.tsk-ok") ntskall=$(wc -l <"$WORK/$fs.tsk-all")
		measure "A-$fs-e2map-tsk" "$RUNS" 1 "${XARGS[*]} -a $WORK/$fs.tsk-okpaths $E2MAP filefrag -v $img"
		measure "A-$fs-istat" "$SLOW_RUNS" 0 "while read i; do istat $img \$i; done <$WORK/$fs.tsk-ok"
		row "A $fs: extents of $ntsk files (every 32nd)" "A-$fs-e2map-tsk" "Sleuth Kit istat, one per file (of $ntskall: $terr failed, $tslow took > 2 s: not timed)" "A-$fs-istat"
	fi
	if [ $fs = ext4 ]; then
		measure "A-$fs-e2map-fiemap" "$SLOW_RUNS" 0 "while read p; do $E2MAP fiemap -v $img \$p; done <$WORK/$fs.sample"
		kmount "$img"
		measure "A-$fs-xfsio-fiemap" "$SLOW_RUNS" 1 "while read p; do xfs_io -r -c 'fiemap -v' \$p; done <$WORK/$fs.msample"
		kumount
		row "A $fs: fiemap -v, $nsample sampled files, one process per file" "A-$fs-e2map-fiemap" "kernel warm: xfs_io -r -c 'fiemap -v', one per file" "A-$fs-xfsio-fiemap"
	fi

	#### Task B: seek walk of the sparse files
	measure "B-$fs-e2map" "$SLOW_RUNS" 1 "while read p; do $E2MAP seek -a -r $img \$p 0; done <$sparse"
	measure "B-$fs-cold" "$RUNS" 1 "mount -o loop,ro,noload $img $MNT && ${XARGS[*]} -a $WORK/$fs.msparse xfs_io -r -c 'seek -a -r 0'; umount $MNT"
	measure "B-$fs-cold1" "$SLOW_RUNS" 1 "mount -o loop,ro,noload $img $MNT && while read p; do xfs_io -r -c 'seek -a -r 0' \$p; done <$WORK/$fs.msparse; umount $MNT"
	kmount "$img"
	measure "B-$fs-warm1" "$SLOW_RUNS" 1 "while read p; do xfs_io -r -c 'seek -a -r 0' \$p; done <$WORK/$fs.msparse"
	kumount
	row "B $fs: seek walk of $nsparse sparse files (e2map: one process per file)" "B-$fs-e2map" "kernel cold: mount + xfs_io seek, one per file + umount" "B-$fs-cold1"
	row "B $fs: seek walk of $nsparse sparse files (e2map: one process per file)" "B-$fs-e2map" "kernel cold: mount + one xfs_io over all files + umount" "B-$fs-cold"
	row "B $fs: seek walk of $nsparse sparse files (e2map: one process per file)" "B-$fs-e2map" "kernel warm: xfs_io seek, one per file, hot mount" "B-$fs-warm1"

	#### Task C: one SEEK_DATA in a 1 TiB file holding one block at its end
	measure "C-$fs-e2map" "$((RUNS * 4))" 3 "$E2MAP seek -d $img /huge-1t 0"
	measure "C-$fs-cold" "$((RUNS * 2))" 1 "mount -o loop,ro,noload $img $MNT && xfs_io -r -c 'seek -d 0' $MNT/huge-1t; umount $MNT"
	kmount "$img"
	measure "C-$fs-warm" "$((RUNS * 4))" 3 "xfs_io -r -c 'seek -d 0' $MNT/huge-1t"
	kumount
	row "C $fs: SEEK_DATA(0) in a 1 TiB file, 1 data block" "C-$fs-e2map" "kernel cold: mount + xfs_io seek -d + umount" "C-$fs-cold"
	row "C $fs: SEEK_DATA(0) in a 1 TiB file, 1 data block" "C-$fs-e2map" "kernel warm: xfs_io seek -d on a hot mount" "C-$fs-warm"
done

###########################################################################
# Report.

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
{
	echo
	echo "## e2map benchmark"
	echo
	echo "Machine: $(nproc) CPUs, $cpu; kernel $(uname -r); $(awk '/^MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
	echo "Tools: $("$E2MAP" --version 2>&1 | head -1); $(filefrag -V 2>&1 | head -1); $(xfs_io -V); $(debugfs -V 2>&1 | head -1)$([ $HAVE_TSK = 1 ] && echo "; $(istat -V 2>&1 | head -1)")"
	echo "Timing: $([ $HAVE_HF = 1 ] && echo "$(hyperfine --version), median of $RUNS runs ($SLOW_RUNS for per-file loops) after a warm-up (hyperfine -N)" || echo "median of $RUNS runs ($SLOW_RUNS for per-file loops) after a warm-up, timed with date +%s%N (no hyperfine)"); image files warm in the host page cache; \"cold\" = fresh mount -o loop,ro,noload; measuring took $(($(date +%s) - START)) s; load average ${LOAD0:-?} before, $(cut -d' ' -f1 /proc/loadavg 2>/dev/null) after"
	echo
	for d in "${DESC[@]}"; do echo "- $d"; done
	echo
	echo "| task | e2map | competitor | competitor time | ratio (competitor / e2map) | ratio of minima |"
	echo "|---|---:|---|---:|---:|---:|"
	for r in "${ROWS[@]}"; do
		IFS='|' read -r task eid comp cid <<<"$r"
		ratio=$(awk -v a="${T[$eid]}" -v b="${T[$cid]}" 'BEGIN { printf "%.2fx", b / a }')
		rmin=$(awk -v a="${TMIN[$eid]}" -v b="${TMIN[$cid]}" 'BEGIN { printf "%.2fx", b / a }')
		echo "| $task | $(fmt "${T[$eid]}") | $comp | $(fmt "${T[$cid]}") | **$ratio** | $rmin |"
	done
	echo
	echo "Times are medians; > 1x means e2map is faster.  Commands that need a shell (every cold-kernel row, every per-file loop) include one sh start-up: $(fmt "${T[sh]}") (median of \`sh -c true\`)."
	echo
	echo "Sanity (outputs compared before timing):"
	for s in "${SANITY[@]}"; do echo "- $s"; done
} | tee "$WORK/report.md"
cp "$WORK/report.md" "$CACHE/report.md"

if [ -n "${BENCH_JSON:-}" ]; then
	for k in "${!T[@]}"; do printf '%s\t%s\n' "$k" "${T[$k]}"; done |
		jq -R -s 'split("\n") | map(select(length > 0) | split("\t") | {(.[0]): (.[1] | tonumber)}) | add' >"$BENCH_JSON"
fi
exit $FAIL

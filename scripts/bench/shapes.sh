#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 24: e2map's speed on every shape of image, against the kernel and
# e2fsprogs, warm and cold.
#
#   sudo make bench                     (this is one of its scripts)
#   sudo E2MAP=path/to/e2map scripts/bench/shapes.sh
#   sudo SHAPES="usr htree" BENCH_RUNS=3 scripts/bench/shapes.sh
#
# The images (kept in $BENCH_CACHE/shapes/, each rebuilt when its recipe
# below, shapes-tree.py, mke2fs.conf or its source tree's file count
# changes; the kernel writes every tree through a rw loop mount):
#   usr       ext4 4 KiB: cp -a of /usr/include, /usr/share, /usr/lib/python3*
#             (~127k names) and /big/blob-384m (384 MiB, random bytes)
#   deep      ext4: 100 chains of 200..800 nested directories (~50k)
#   htree     ext4: one directory of 100,000 names
#   1k        ext4 1 KiB blocks: /usr/include and /usr/lib/python3
#   bigalloc  ext4 bigalloc, 64 KiB clusters: /usr/include, /usr/lib/python3.11
#   ext3      ext3 4 KiB (indirect maps, journal): /usr/include, files of 8
#             and 48 MiB (double indirect) and a sparse one written at
#             4 GiB + 64 MiB (triple indirect)
#   1m        ext4: 1,000,000 files of 0..3 KiB in 1,000 directories
#   sample    testdata/sample.img.gz, what `make run` shows
# $BENCH_CACHE/shapes/READY lists each image with one small and one big
# file in it ("NAME IMAGE SMALL BIG"), for other scripts.
#
# Timed (paired: the commands of a row alternate within each of
# $BENCH_RUNS rounds; medians with min-max, of wall time and of CPU time
# (user + system, wait4's): on a shared machine the wall time stretches
# with the other jobs, the CPU time much less; warm = the image read once
# before, cold = `echo 3 > drop_caches` before each run):
#   check   e2map check -q (and -j1) against e2fsck -fn
#   scan    e2map scan -q --format jsonl against e2map check -q, e2fsck -fn
#   proc    per call: e2map seek -d, xfs_io seek -d on a kept ro mount,
#           mount+xfs_io+umount, debugfs bmap; e2map --version, e2fsck -V
#   read    e2map cat of the 384 MiB file | sha256sum against cat on the
#           mount; N small files by single e2map cat calls against cat
# Ratio: competitor / e2map (above 1x e2map is faster).  Before timing,
# each image is checked against the kernel (e2map du -s against du -s on
# the ro mount; e2map check finds nothing): a difference stops the script.
#
# Env: E2MAP (cmd/e2map), BENCH_CACHE (/var/tmp/e2map-bench), BENCH_RUNS
# (5), SHAPES (all), SHAPES_BUILD_ONLY=1 (build the images and READY, time
# nothing), SHAPES_PROC_N (1000), BENCH_REBUILD=1, SHAPES_PERF=1 (then
# perf record each shape's warm check and scan: $BENCH_CACHE/shapes/
# perf-NAME.txt, the shares by object and by function).
# The report: $BENCH_CACHE/shapes-report.md; the raw medians in
# $BENCH_CACHE/shapes/last/.
set -eu -o pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/bench.sh
. "$here/../lib/bench.sh"
bench_start shapes mke2fs e2fsck debugfs xfs_io python3 sha256sum mountpoint \
	losetup du
SH=$CACHE/shapes
mkdir -p "$SH"
gen=$here/shapes-tree.py
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

###########################################################################
# Image recipe.  Changing a build_NAME, new_img, cp_tree, shapes-tree.py or
# mke2fs.conf rebuilds the images that use it.

# new_img IMG SIZE NAME [mke2fs args]: a fixed UUID and hash seed per NAME.
new_img() {
	local img=$1 size=$2 name=$3 h
	shift 3
	h=$(printf 'shapes:%s' "$name" | md5sum | cut -c1-32)
	rm -f "$img"
	truncate -s "$size" "$img"
	mke2fs -q -F -L "shape-$name" -U "${h:0:8}-${h:8:4}-4${h:13:3}-8${h:17:3}-${h:20:12}" \
		-E "hash_seed=${h:20:8}-${h:12:4}-4${h:1:3}-8${h:5:3}-${h:0:12},lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0" \
		"$@" "$img" >&2
}

# cp_tree DIR...: copy system folders (path kept) into the mount, in order.
cp_tree() {
	local d
	for d in "$@"; do
		mkdir -p "$MNT$(dirname "$d")"
		cp -a "$d" "$MNT$(dirname "$d")/"
	done
}

USR_DIRS=(/usr/include /usr/share /usr/lib/python3 /usr/lib/python3.11)
build_usr() {
	new_img "$1" 4G usr -t ext4 -b 4096
	mount -o loop "$1" "$MNT"
	cp_tree "${USR_DIRS[@]}"
	mkdir "$MNT/big"
	python3 "$gen" blob "$MNT/big/blob-384m" 384 2401 >&2
	echo "/usr/include/stdio.h /big/blob-384m"
}
build_deep() {
	new_img "$1" 2G deep -t ext4 -b 4096 -N 131072
	mount -o loop "$1" "$MNT"
	python3 "$gen" deep "$MNT" 100 2402 >&2
	mkdir "$MNT/big"
	python3 "$gen" blob "$MNT/big/blob-16m" 16 2412 >&2
	echo "/c000/d/d/d/d/d/d/d/d/d/d/f10 /big/blob-16m"
}
build_htree() {
	new_img "$1" 1G htree -t ext4 -b 4096 -N 131072
	mount -o loop "$1" "$MNT"
	python3 "$gen" htree "$MNT" 100000 2403 >&2
	mkdir "$MNT/big"
	python3 "$gen" blob "$MNT/big/blob-16m" 16 2413 >&2
	echo "/htree/$(cd "$MNT/htree" && find . -name '*0050000' | cut -c3-) /big/blob-16m"
}
build_1k() {
	new_img "$1" 2G 1k -t ext4 -b 1024
	mount -o loop "$1" "$MNT"
	cp_tree /usr/include /usr/lib/python3
	echo "/usr/include/stdio.h /usr/include/$(cd "$MNT/usr/include" &&
		find . -type f -printf '%s %P\n' | sort -k1,1nr -k2 | head -1 | cut -d' ' -f2)"
}
build_bigalloc() {
	new_img "$1" 6G bigalloc -t ext4 -b 4096 -O bigalloc -C 65536
	mount -o loop "$1" "$MNT"
	cp_tree /usr/include /usr/lib/python3.11
	mkdir "$MNT/big"
	python3 "$gen" blob "$MNT/big/blob-64m" 64 2404 >&2
	echo "/usr/include/stdio.h /big/blob-64m"
}
build_ext3() {
	new_img "$1" 2G ext3 -t ext3 -b 4096
	mount -t ext4 -o loop "$1" "$MNT"
	cp_tree /usr/include
	mkdir "$MNT/big"
	python3 "$gen" big "$MNT/big/dind-8m" 8 2405 >&2
	python3 "$gen" big "$MNT/big/dind-48m" 48 2406 >&2
	python3 "$gen" big "$MNT/big/tind-sparse" 0 2407 >&2
	echo "/usr/include/stdio.h /big/dind-48m"
}
build_1m() {
	new_img "$1" 16G 1m -t ext4 -b 4096 -N 1100000
	mount -o loop "$1" "$MNT"
	python3 "$gen" many "$MNT" 1000000 2408 >&2
	mkdir "$MNT/big"
	python3 "$gen" blob "$MNT/big/blob-64m" 64 2409 >&2
	echo "/t00/d00000/f0000001 /big/blob-64m"
}
# sample: a copy of the bundled image, not built (no mount).
build_sample() {
	local f
	gzip -dc "$root/testdata/sample.img.gz" >"$1"
	f=$(debugfs -R 'ls -p /' "$1" 2>/dev/null |
		awk -F/ '$3 ~ /^100/ && $7 > 0 && $6 !~ /[[:space:]]/ { print $7, "/" $6 }' | sort -n)
	echo "$(head -1 <<<"$f" | cut -d' ' -f2) $(tail -1 <<<"$f" | cut -d' ' -f2)"
}
# end of recipe
###########################################################################

SHAPE_ALL=(usr deep htree 1k bigalloc ext3 1m sample)
read -r -a SHAPE_LIST <<<"${SHAPES:-${SHAPE_ALL[*]}}"

# key NAME: the recipe stamp of one image.
key() {
	local d
	{
		declare -f new_img cp_tree "build_$1"
		echo "${USR_DIRS[*]}"
		cat "$gen" "$here/../gen/mke2fs.conf"
		case $1 in
		usr) for d in "${USR_DIRS[@]}"; do find "$d" | wc -l; done ;;
		1k) find /usr/include /usr/lib/python3 | wc -l ;;
		bigalloc) find /usr/include /usr/lib/python3.11 | wc -l ;;
		ext3) find /usr/include | wc -l ;;
		sample) md5sum <"$root/testdata/sample.img.gz" ;;
		esac
	} | md5sum | cut -c1-12
}

# build NAME: $SH/NAME.img and $SH/NAME.paths ("SMALL BIG"), unless cached.
build() {
	local name=$1 img=$SH/$1.img k t0 paths out
	k=$(key "$name")
	if [ "${BENCH_REBUILD:-0}" != 1 ] && [ -s "$img" ] && [ -s "$SH/$name.paths" ] &&
	   [ "$(cat "$SH/$name.key" 2>/dev/null)" = "$k" ]; then
		log "bench-shapes: reusing $img (recipe $k)"
		return
	fi
	log "bench-shapes: building $img ..."
	t0=$(date +%s)
	rm -f "$SH/$name.key" "$SH/$name.paths"
	export MKE2FS_CONFIG=$here/../gen/mke2fs.conf E2FSPROGS_FAKE_TIME=1700000000
	paths=$("build_$name" "$img.tmp") || die "building $name failed"
	if mountpoint -q "$MNT"; then
		umount "$MNT" || die "umount after building $name"
	fi
	sync "$img.tmp"
	out=$(e2fsck -fn "$img.tmp" 2>&1) || die "e2fsck -fn $name: $(tail -5 <<<"$out")"
	mv -f "$img.tmp" "$img"
	echo "$paths" >"$SH/$name.paths"
	echo "$k" >"$SH/$name.key"
	log "bench-shapes: built $name in $(($(date +%s) - t0)) s"
}

for s in "${SHAPE_LIST[@]}"; do
	declare -F "build_$s" >/dev/null || die "no shape $s (shapes: ${SHAPE_ALL[*]})"
	build "$s"
done
# READY: every image built so far, whichever SHAPES this run had.
{
	echo "# NAME IMAGE SMALL_FILE BIG_FILE (scripts/bench/shapes.sh)"
	for s in "${SHAPE_ALL[@]}"; do
		if [ -s "$SH/$s.paths" ] && [ -s "$SH/$s.img" ]; then
			echo "$s $SH/$s.img $(cat "$SH/$s.paths")"
		fi
	done
} >"$SH/READY.tmp"
mv -f "$SH/READY.tmp" "$SH/READY"
log "bench-shapes: $SH/READY:"
cat "$SH/READY" >&2
[ "${SHAPES_BUILD_ONLY:-0}" != 1 ] || exit 0

###########################################################################
# Against the kernel, once per shape: a difference stops the script.
[ -x "$E2MAP" ] || die "no e2map CLI at $E2MAP"
RUNS=${BENCH_RUNS:-5}
PROC_N=${SHAPES_PROC_N:-1000}
TIMER=$here/shapes-time.py
REPORT=$here/shapes-report.py
# only clean pages go: a global sync would wait for whatever else the
# machine is writing (and the images are not being written)
DROP='echo 3 > /proc/sys/vm/drop_caches'
M2=$work/m2
mkdir "$M2"

mount_ro() { mount -o loop,ro,noload "$1" "$2" || die "mount $1"; }
umount_ro() { umount "$1" || die "umount $1"; }

# paths NAME: IMG, SMALL and BIG of a shape.
paths() {
	img=$SH/$1.img
	read -r small big <"$SH/$1.paths"
}

verify() {
	local s=$1 a b f out
	paths "$s"
	out=$("$E2MAP" check -q "$img" 2>&1) || die "$s: e2map check: $(tail -3 <<<"$out")"
	mount_ro "$img" "$MNT"
	# (e2map warns that the image is mounted: stderr dropped)
	a=$("$E2MAP" du -s -q "$img" 2>/dev/null | cut -f1)
	b=$(du -s "$MNT" | cut -f1)
	[ "$a" = "$b" ] || die "$s: e2map du -s says $a KiB, du -s on the mount $b"
	a=$("$E2MAP" du -s -q --apparent-size "$img" 2>/dev/null | cut -f1)
	b=$(du -s --apparent-size "$MNT" | cut -f1)
	[ "$a" = "$b" ] || die "$s: e2map du -s --apparent-size says $a, du on the mount $b"
	for f in "$small" "$big"; do
		a=$("$E2MAP" cat "$img" "$f" 2>/dev/null | sha256sum)
		b=$(sha256sum <"$MNT$f")
		[ "$a" = "$b" ] || die "$s: e2map cat $f differs from the mount's"
		a=$("$E2MAP" seek -a -r "$img" "$f" 0 2>/dev/null)
		b=$(xfs_io -r -c 'seek -a -r 0' "$MNT$f")
		[ "$a" = "$b" ] || die "$s: e2map seek -a -r $f differs from xfs_io's"
	done
	umount_ro "$MNT"
	log "bench-shapes: $s agrees with the kernel (check, du -s, cat and seek of $small, $big)"
}

###########################################################################
# Timing.  A group file: ID RUNS WARMUP PRE CMD (shapes-time.py).
ROWS=$work/rows.tsv
METAS=$work/metas.txt
JSONS=()
: >"$ROWS"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$ROWS"; }
group() {	# NAME: run $work/NAME.tsv
	python3 "$TIMER" "$work/$1.tsv" "$work/$1.json" || die "timing $1 failed"
	JSONS+=("$work/$1.json")
}

# the metadata passes, warm then cold
time_passes() {
	local s=$1 mode warm pre
	for mode in warm cold; do
		if [ $mode = warm ]; then warm=1 pre=-; else warm=0 pre=$DROP; fi
		{
			printf '%s\t%s\t%s\t%s\t%s\n' \
				"$s.check.$mode" "$RUNS" $warm "$pre" "$E2MAP check -q $img" \
				"$s.check1.$mode" "$RUNS" $warm "$pre" "$E2MAP check -q -j1 $img" \
				"$s.scan.$mode" "$RUNS" $warm "$pre" "$E2MAP scan -q --format jsonl $img" \
				"$s.fsck.$mode" "$RUNS" $warm "$pre" "e2fsck -fn $img"
		} >"$work/$s-$mode.tsv"
		group "$s-$mode"
		local t=2
		[ $mode = warm ] || t=1.5
		row "$s" $mode "check -q" "$s.check.$mode" "e2fsck -fn" "$s.fsck.$mode" $t
		row "$s" $mode "check -q -j1" "$s.check1.$mode" "e2fsck -fn" "$s.fsck.$mode" -
		row "$s" $mode "scan jsonl" "$s.scan.$mode" "check -q" "$s.check.$mode" 0.909
		[ $mode = warm ] && t=- || t=1.5
		row "$s" $mode "scan jsonl" "$s.scan.$mode" "e2fsck -fn" "$s.fsck.$mode" $t
	done
}

# per-process cost, on the sample image: N calls from a shell loop
time_proc() {
	local n=$PROC_N n10=$((PROC_N / 10)) loop
	paths sample
	cp "$img" "$work/sample2.img"
	mount_ro "$img" "$MNT"
	loop="i=0; while [ \$i -lt $n ]; do i=\$((i+1));"
	{
		printf 'proc.%s\t%s\t1\t-\t%s\n' \
			seek "$RUNS" "$loop $E2MAP seek -d $img $small 0; done" \
			xfsio "$RUNS" "$loop xfs_io -r -c 'seek -d 0' $MNT$small; done" \
			debugfs "$RUNS" "$loop debugfs -R 'bmap $small 0' $img; done" \
			version "$RUNS" "$loop $E2MAP --version; done" \
			fsckv "$RUNS" "$loop e2fsck -V; done" \
			mount "$RUNS" "i=0; while [ \$i -lt $n10 ]; do i=\$((i+1)); mount -o loop,ro,noload $work/sample2.img $M2 && xfs_io -r -c 'seek -d 0' $M2$small && umount $M2; done"
	} >"$work/proc.tsv"
	group proc
	umount_ro "$MNT"
	row sample "warm, per call" "seek -d $small 0" "proc.seek/$n" "xfs_io seek -d, kept mount" "proc.xfsio/$n" -
	row sample "warm, per call" "seek -d $small 0" "proc.seek/$n" "mount + xfs_io + umount" "proc.mount/$n10" -
	row sample "warm, per call" "seek -d $small 0" "proc.seek/$n" "debugfs -R bmap" "proc.debugfs/$n" -
	row sample "warm, per call" "seek -d $small 0" "proc.seek/$n" "e2fsck -V" "proc.fsckv/$n" 0.667
	row none "warm, per call" "--version" "proc.version/$n" "e2fsck -V" "proc.fsckv/$n" 0.667
}

# bulk and small-file reads on the usr image, warm, against a kept mount
time_read() {
	local n
	paths usr
	mount_ro "$img" "$MNT"
	(cd "$MNT" && find usr/include -type f -size -64k | sort | awk 'NR % 40 == 1 { print "/" $0 }') \
		>"$work/small.list"
	n=$(wc -l <"$work/small.list")
	sed "s|^|$MNT|" "$work/small.list" >"$work/small.mnt"
	{
		printf 'read.%s\t%s\t1\t-\t%s\n' \
			bulk "$RUNS" "$E2MAP cat $img $big | sha256sum" \
			bulkk "$RUNS" "cat $MNT$big | sha256sum" \
			small "$RUNS" "while read -r f; do $E2MAP cat $img \"\$f\"; done <$work/small.list" \
			smallk "$RUNS" "while read -r f; do cat \"\$f\"; done <$work/small.mnt"
	} >"$work/read.tsv"
	group read
	umount_ro "$MNT"
	row usr warm "cat ${big##*/} \| sha256sum" read.bulk "cat on the mount" read.bulkk 1
	row usr "warm, per call" "cat (one file a call, $n files)" "read.small/$n" "cat on the mount" "read.smallk/$n" -
}

# SHAPES_PERF=1: where e2map's time goes, per shape (warm check and scan
# jsonl): perf's shares by object (the kernel's copies are in [kernel])
# and by function, in $SH/perf-NAME.txt.
profile() {
	local s=$1 c d
	paths "$s"
	for c in check scan; do
		d=$work/perf-$s-$c.data
		if [ $c = check ]; then set -- check -q "$img"; else set -- scan -q --format jsonl "$img"; fi
		"$E2MAP" "$@" >/dev/null 2>&1 || true
		perf record -q -F 4999 -o "$d" -- "$E2MAP" "$@" >/dev/null 2>&1 || die "perf record $s"
		{
			echo "## $s: e2map $*"
			perf report -i "$d" --stdio --no-children --sort dso 2>/dev/null | grep -v '^#' | grep -v '^$' | head -8
			perf report -i "$d" --stdio --no-children --sort dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
		}
		rm -f "$d"
	done >"$SH/perf-$s.txt"
}

memo=$(python3 "$REPORT" memcpy)
echo "memcpy $memo" >"$METAS"
for s in "${SHAPE_LIST[@]}"; do
	verify "$s"
	"$E2MAP" scan -q --format jsonl "$img" >"$work/$s.jsonl" || die "$s: e2map scan failed"
	echo "$s $(python3 "$REPORT" meta "$img" "$work/$s.jsonl")" >>"$METAS"
	rm -f "$work/$s.jsonl"
	time_passes "$s"
done
case " ${SHAPE_LIST[*]} " in *" sample "*) time_proc ;; esac
case " ${SHAPE_LIST[*]} " in *" usr "*) time_read ;; esac
if [ "${SHAPES_PERF:-0}" = 1 ]; then
	command -v perf >/dev/null || die "SHAPES_PERF=1: no perf"
	for s in "${SHAPE_LIST[@]}"; do profile "$s"; done
fi
# the raw figures, to make the tables again: shapes-report.py report
# $SH/last/rows.tsv $SH/last/metas.txt $SH/last/*.json
rm -rf "$SH/last"
mkdir "$SH/last"
cp "$ROWS" "$METAS" "${JSONS[@]}" "$SH/last/"

out=$CACHE/shapes-report.md
{
	echo "# e2map on issue 24's shapes ($(date -u +%Y-%m-%d), $RUNS rounds, alternating; $(nproc) CPUs; $("$E2MAP" --version 2>&1 | head -1))"
	echo
	python3 "$REPORT" report "$ROWS" "$METAS" "${JSONS[@]}"
} >"$out.tmp" || die "report failed"
mv -f "$out.tmp" "$out"
cat "$out"

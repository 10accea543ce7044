#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live differential run against the kernel: N random images (default 50),
# each built by mkfs and filled with real operations through a rw mount, then
# recorded from the kernel (scripts/record/record.sh: probe --kernel-remount and the
# xfs_io/filefrag goldens; scripts/record/scan.sh: what scan must report)
# and replayed through libe2map (probe --image, probe --scan) and the CLI
# ($E2MAP).  Needs root and loop mounts; skips cleanly without them.
#
#   scripts/check/kernel.sh [N]
#
# Env: PROBE (tests/probe), E2MAP (cmd/e2map), SEED (random; printed, reuse
# it to repeat a run), KEEP=1 keeps passing images too.  Failing images and
# their diffs stay under /tmp/e2map-check-kernel/.
set -uo pipefail
export LC_ALL=C

n=${1:-50}
here=$(cd "$(dirname "$0")" && pwd)
probe=${PROBE:-$here/../../tests/probe}
e2map=${E2MAP:-$here/../../cmd/e2map}
. "$here/../lib/check.sh"
# A directory of its own: two runs at once must not share images.
work=$(mktemp -d /tmp/e2map-check-kernel.XXXXXX)
seed=${SEED:-$(( $(date +%s) % 100000 ))}

skip_unless_mount check-kernel loop,ro

[ -x "$probe" ] || { echo "check-kernel: no probe at $probe (make tests/probe)" >&2; exit 2; }
goldens=1
if [ ! -x "$e2map" ]; then
	echo "check-kernel: warning: no CLI at $e2map: goldens not compared" >&2
	goldens=0
fi

# The scan recorder is Python (scripts/record/scan-kernel.py).
scans=1
if ! command -v python3 >/dev/null; then
	echo "check-kernel: warning: no python3: scan records not compared" >&2
	scans=0
fi

mkdir -p "$work"
echo "check-kernel: $n images, SEED=$seed, work in $work"
RANDOM=$seed

pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
chance() { [ $((RANDOM % 100)) -lt "$1" ]; }

# mkfs arguments for a random filesystem; sets fsdesc, extents, bsz.
random_mkfs() {
	local type feats=() o
	type=$(pick ext2 ext3 ext4 ext4 ext4)
	bsz=$(pick 1024 2048 4096)
	extents=0
	if [ "$type" = ext4 ]; then
		extents=1
		if chance 20; then feats+=("^extents"); extents=0; fi
		chance 25 && feats+=("inline_data")
		if [ $extents = 1 ] && chance 20; then feats+=("bigalloc"); fi
		# A 64bit filesystem needs extents.
		if [ $extents = 1 ] && chance 50; then feats+=("64bit"); else feats+=("^64bit"); fi
		chance 25 && feats+=("^huge_file")
		chance 50 && feats+=("metadata_csum") || feats+=("^metadata_csum")
	fi
	chance 20 && feats+=("^dir_index")
	o=$(IFS=,; echo "${feats[*]}")
	mkfs_args=(-q -F -t "$type" -b "$bsz" -E nodiscard)
	[ -n "$o" ] && mkfs_args+=(-O "$o")
	case ",$o," in *,bigalloc,*) mkfs_args+=(-C $((bsz * (RANDOM % 2 ? 4 : 16)))) ;; esac
	fsdesc="$type bs=$bsz ${o:-default}"
}

# Random real operations on one file through xfs_io.
random_file_ops() {
	local f=$1 ops=() k nops off len
	nops=$((2 + RANDOM % 14))
	for ((k = 0; k < nops; k++)); do
		off=$(( (RANDOM % 64) * bsz ))
		chance 40 && off=$(( off + RANDOM % bsz ))
		len=$(( (1 + RANDOM % 48) * bsz ))
		chance 30 && len=$(( len + RANDOM % 1000 ))
		case $((RANDOM % 13)) in
		0|1|2) ops+=(-c "pwrite -S 0x$((RANDOM % 90 + 10)) $off $len") ;;
		3) ops+=(-c "pwrite -S 0x61 $(( (RANDOM % 8 + 1) << (20 + RANDOM % 10) )) $bsz") ;;
		4) ops+=(-c "falloc $off $len") ;;
		5) ops+=(-c "falloc -k $off $len") ;;
		6) ops+=(-c "fpunch $off $len") ;;
		7) ops+=(-c "fzero $off $len") ;;
		8) ops+=(-c "fcollapse $(( (RANDOM % 16) * 4 * bsz )) $(( (1 + RANDOM % 4) * 4 * bsz ))") ;;
		9) ops+=(-c "finsert $(( (RANDOM % 16) * 4 * bsz )) $(( (1 + RANDOM % 4) * 4 * bsz ))") ;;
		10) ops+=(-c "truncate $(( RANDOM % 200 * bsz / 2 + RANDOM % 3 ))") ;;
		11) ops+=(-c "fsync" -c "pwrite -S 0x7a $off $bsz") ;;
		12)	# Many small extents: an extent tree of depth >= 1.
			local j stride=$((2 + RANDOM % 3)) cnt=$((5 + RANDOM % 250))
			for ((j = 0; j < cnt; j++)); do
				ops+=(-c "pwrite -S 0x$((j % 80 + 10)) $((off + j * stride * bsz)) $bsz")
			done
			chance 50 && ops+=(-c "fsync") ;;
		esac
	done
	xfs_io -f "${ops[@]}" "$f" >/dev/null 2>&1 || true
}

populate() {
	local m=$1 k nfiles j
	nfiles=$((2 + RANDOM % 5))
	for ((k = 0; k < nfiles; k++)); do
		random_file_ops "$m/f$k"
		if chance 30; then
			setfattr -n user.s -v "v$RANDOM" "$m/f$k" 2>/dev/null || true
		fi
		if chance 20; then
			setfattr -n user.big -v "$(head -c $((bsz / 2 + RANDOM % bsz)) /dev/zero | tr '\0' x)" "$m/f$k" 2>/dev/null || true
		fi
	done
	chance 60 && printf 'tiny' > "$m/tiny" 2>/dev/null
	chance 30 && printf '%0100d' 0 > "$m/small100" 2>/dev/null
	chance 30 && : > "$m/empty"
	if chance 50; then
		mkdir -p "$m/dir"
		for ((j = 0; j < 20 + RANDOM % 300; j++)); do
			: > "$m/dir/entry-with-a-longish-name-$j"
		done
		random_file_ops "$m/dir/inner"
	fi
	chance 40 && ln -s f0 "$m/link" 2>/dev/null
	true
}

# tar restores no atime, nor the times of "." (the root), and holds no
# sockets: those columns and lines of a tree listing are left out.
tar_view() {
	awk -F'\t' 'BEGIN { OFS = "\t" }
		$2 ~ /^14/ { next }
		{ $6 = "-"; if ($1 == "/") $5 = "-"; print }' "$1"
}

# rsync -S finds holes by reading zeroes, not by SEEK_DATA: a copy by
# rsync -aSXHU from the FUSE mount must equal one from the kernel's mount
# (rsync's own complaints, an xattr /tmp refuses, are the same on both,
# so its exit status is not what is compared).
# rsync -U keeps files' atimes; a directory's is its own walk's.
dir_atime_out() {
	awk -F'\t' 'BEGIN { OFS = "\t" } $2 ~ /^4/ { $6 = "-" } { print }' "$1"
}

fuse_rsync() {
	local img=$1 d=$2 r=0
	command -v rsync >/dev/null || return 0
	mount -o loop,ro,noload "$img" "$d/mnt" 2>/dev/null ||
		mount -o loop,ro "$img" "$d/mnt" 2>/dev/null || return 1
	rsync -aSXHU "$d/mnt/" "$d/copy/rk/" 2>"$d/rsync.log"
	umount "$d/mnt"
	"$e2map" mount "$img" "$d/fmnt" 2>>"$d/rsync.log" || return 1
	rsync -aSXHU "$d/fmnt/" "$d/copy/rf/" 2>>"$d/rsync.log"
	fusermount3 -u "$d/fmnt" || r=1
	python3 "$here/tree-list.py" "$d/copy/rk" > "$d/rsync-kernel.list"
	python3 "$here/tree-list.py" "$d/copy/rf" > "$d/rsync-fuse.list"
	diff -u <(dir_atime_out "$d/rsync-kernel.list") \
		<(dir_atime_out "$d/rsync-fuse.list") > "$d/rsync.diff" || r=1
	return $r
}

# Getting the data out: `e2map cat` of every file, `extract -r -p` and
# `tar` (extracted by GNU tar) of the whole image, and `e2map mount` (where
# /dev/fuse is there), each listed by
# tree-list.py and diffed with the listing of the fresh read-only mount:
# bytes, data regions (rounded to the copies' block size), modes, owners,
# times, links, xattrs.  The mount is listed first, before anything reads
# it: a read leaves pages that turn unwritten ranges into data for
# SEEK_DATA.
copy_check() {
	local img=$1 d=$2 bs r=0
	mkdir -p "$d/mnt" "$d/copy"
	"$e2map" blockmap --format csv "$img" > "$d/blockmap.csv" || r=1
	"$e2map" scan -q --format dfxml --hash sha256 "$img" > "$d/dfxml.xml" ||
		r=1
	mount -o loop,ro,noload "$img" "$d/mnt" 2>/dev/null ||
		mount -o loop,ro "$img" "$d/mnt" 2>/dev/null || return 1
	bs=$(stat -f -c %S "$d/copy")
	python3 "$here/tree-list.py" --round "$bs" --xattr-probe "$d/copy" \
		--cat "$e2map" "$img" "$d/mnt" > "$d/kernel.list" || r=1
	# Block owners: every file's FIEMAP blocks are blockmap's for it.
	python3 "$here/owner-check.py" "$d/mnt" "$d/blockmap.csv" \
		"$(stat -f -c %S "$d/mnt")" > "$d/owner.diff" || r=1
	# DFXML: byte runs are FIEMAP's, stat and SHA-256 the mount's.
	python3 "$here/dfxml-check.py" mount "$d/dfxml.xml" "$d/mnt" \
		> "$d/dfxml.diff" 2>/dev/null || r=1
	umount "$d/mnt"
	[ $r = 0 ] || return 1
	"$e2map" extract -r -p -q "$img" / "$d/copy/x" 2>"$d/extract.log" || r=1
	python3 "$here/tree-list.py" "$d/copy/x" > "$d/extract.list" || r=1
	diff -u "$d/kernel.list" "$d/extract.list" > "$d/extract.diff" || r=1
	mkdir -p "$d/copy/t"
	{ "$e2map" tar -q "$img" | tar -xpf - -C "$d/copy/t" --acls --xattrs \
		--xattrs-include='*' --warning=no-unknown-keyword; } \
		2>"$d/tar.log" || r=1
	python3 "$here/tree-list.py" "$d/copy/t" > "$d/tar.list" || r=1
	diff -u <(tar_view "$d/kernel.list") <(tar_view "$d/tar.list") \
		> "$d/tar.diff" || r=1
	# The FUSE mount, listed as the kernel's was (rounded the same way).
	mkdir -p "$d/fmnt"
	if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null; then
		if "$e2map" mount "$img" "$d/fmnt" 2>"$d/fuse.log"; then
			python3 "$here/tree-list.py" --round "$bs" \
				--xattr-probe "$d/copy" "$d/fmnt" > "$d/fuse.list" || r=1
			fusermount3 -u "$d/fmnt" || r=1
			diff -u "$d/kernel.list" "$d/fuse.list" > "$d/fuse.diff" || r=1
			fuse_rsync "$img" "$d" || r=1
		else
			r=1
		fi
	fi
	rm -rf "$d/copy"
	return $r
}

passed=0
failed=0
total_calls=0
total_opens=0
total_golden=0
total_scan=0
total_copied=0
for ((i = 1; i <= n; i++)); do
	d=$work/$i
	mkdir -p "$d/mnt"
	img=$d/img$i.img
	iseed=$RANDOM
	random_mkfs
	truncate -s $(( (16 + RANDOM % 49) << 20 )) "$img"
	if ! mkfs "${mkfs_args[@]}" "$img" >"$d/mkfs.log" 2>&1; then
		echo "image $i: mkfs failed ($fsdesc), not counted"
		rm -rf "$d"
		continue
	fi
	if ! mount -o loop "$img" "$d/mnt" 2>"$d/mount.log"; then
		echo "image $i: rw mount failed ($fsdesc), not counted"
		rm -rf "$d"
		continue
	fi
	populate "$d/mnt"
	umount "$d/mnt"
	if ! SEED=$iseed GOLDENS=$([ $goldens = 1 ] && echo basic || echo none) \
		MAXFILES=40 MAXEMPTY=2 MAXEXT=8 RANDOM_CALLS=32 GOLDEN_MAXFILES=20 \
		PROBE=$probe "$here/../record/record.sh" "$img" "$d" 2>"$d/record.log"; then
		echo "image $i: FAIL ($fsdesc): recording failed, see $d/record.log"
		failed=$((failed + 1))
		continue
	fi
	bad=0
	grep -v '^#' "$d/img$i.calls" > "$d/expected"
	ncalls=$(grep -cE '^(open|lseek|fiemap) ' "$d/expected")
	nopens=$(grep -c '^open ' "$d/expected")
	ngold=$( [ $goldens = 1 ] && grep -c '^\$ ' "$d/img$i.golden" || echo 0)
	total_calls=$((total_calls + ncalls))
	total_opens=$((total_opens + nopens))
	total_golden=$((total_golden + ngold))
	"$probe" --image "$img" < "$d/expected" > "$d/got" 2>"$d/probe.log"
	if ! diff -u "$d/expected" "$d/got" > "$d/calls.diff"; then
		bad=1
	fi
	if [ $goldens = 1 ] && ! "$probe" --golden "$d/img$i.golden" --image "$img" \
		--e2map "$e2map" > "$d/golden.diff" 2>&1; then
		bad=1
	fi
	# scan's records: st_blocks holds clusters' slack on bigalloc.
	nometa=()
	case $fsdesc in *bigalloc*) nometa=(--no-meta) ;; esac
	if [ $scans = 1 ] && { ! "$here/../record/scan.sh" "$img" "$d" \
		2>"$d/record-scan.log" ||
	   ! "$probe" --scan "$d/img$i.scan" --image "$img" "${nometa[@]}" \
		> "$d/scan.diff" 2>&1; }; then
		bad=1
	fi
	if [ $scans = 1 ] && [ $goldens = 1 ] && ! copy_check "$img" "$d"; then
		bad=1
	fi
	ncopied=$( [ -s "$d/kernel.list" ] && wc -l < "$d/kernel.list" || echo 0)
	total_copied=$((total_copied + ncopied))
	nscan=$( (zcat "$d/img$i.scan.gz" 2>/dev/null || true) | grep -c '^I')
	total_scan=$((total_scan + nscan))
	if [ $bad = 0 ]; then
		passed=$((passed + 1))
		echo "image $i: ok ($fsdesc; $ncalls calls, $nopens fresh mounts, $ngold CLI outputs, $nscan scan records, $ncopied entries copied out and seen through FUSE)"
		[ "${KEEP:-0}" = 1 ] || rm -rf "$d"
	else
		failed=$((failed + 1))
		echo "image $i: FAIL ($fsdesc): $d"
		[ -s "$d/calls.diff" ] && grep -m 6 '^[-+][^-+]' "$d/calls.diff" | sed 's/^/    /'
		[ -s "$d/golden.diff" ] && head -n 6 "$d/golden.diff" | sed 's/^/    /'
		[ -s "$d/scan.diff" ] && head -n 6 "$d/scan.diff" | sed 's/^/    /'
		for f in extract.diff tar.diff fuse.diff rsync.diff owner.diff dfxml.diff extract.log \
			tar.log fuse.log rsync.log; do
			[ -s "$d/$f" ] && head -n 6 "$d/$f" | sed "s/^/    $f: /"
		done
	fi
done
rmdir "$work" 2>/dev/null || true
echo "compared: $total_calls calls on $total_opens fresh mounts, $total_golden CLI outputs, $total_scan scan records, $total_copied entries copied out (cat, extract, tar, FUSE mount)"
echo "$passed passed, $failed failed"
[ $failed = 0 ]

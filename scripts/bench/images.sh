#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/bench/images.sh, sourced by bench.sh: the images' recipe and
# their cache ($CACHE/NAME.img with its .files, .inos, .ndirs lists and the
# recipe key that built them).  Changing anything between "Image recipe"
# and "end of recipe" (or bench-tree.py, or mke2fs.conf) changes the keys:
# the images rebuild.
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
	cat "$here/../gen/mke2fs.conf"; } | md5sum | cut -c1-12)
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
	export MKE2FS_CONFIG=$here/../gen/mke2fs.conf E2FSPROGS_FAKE_TIME=1700000000
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


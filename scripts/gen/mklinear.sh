#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mklinear.sh OUTDIR
#
# Images for the dentry index (lib/dir/dcache.c): large directories that only
# the linear scan searches (no dir_index), written by the kernel, a few
# then damaged with debugfs, and recorded by it (scripts/record/record.sh, a
# fresh mount per open), then OUTDIR/NAME.calls gets one more section: an
# open of every name of the clean directories on one ro mount.
#
#   linear-1k        ext4 without dir_index or journal, 1 KiB blocks:
#                    /plain (2000 names, 45 blocks; and /plain/sub/deep),
#                    /dups (a name entered twice: the scan's first wins),
#                    /badcsum (block 3's checksum broken: names before it
#                    are found, names after it and absent ones are EBADMSG)
#   linear-nocsum-1k the same without metadata_csum: /plain, and /badent
#                    (block 2 starts with an entry of rec_len 0: names in
#                    blocks 0-1 are found, later and absent ones EUCLEAN)
#
# Needs root and loop mounts; PROBE as record.sh.
. "$(dirname "$0")/../lib/gen.sh"
probe=${PROBE:-$here/../../tests/probe}
[ -x "$probe" ] || { echo "mklinear: no probe at $probe (make tests/probe)" >&2; exit 2; }
gen_start mklinear root "$@"
mkdir "$work/mnt"
dbg() { debugfs -w -R "$1" "$2" >/dev/null 2>&1; }

# fill DIR PREFIX COUNT: empty files PREFIX_0001... (and one with data)
fill() {
	local i
	mkdir -p "$1"
	for ((i = 1; i <= $3; i++)); do
		: > "$1/$(printf '%s_%04d' "$2" "$i")"
	done
	printf 'data\n' > "$1/$(printf '%s_%04d' "$2" 1)"
}

build() {
	local name=$1 feat=$2 img=$work/$1.img
	truncate -s 8M "$img"
	E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F -t ext4 -b 1024 -N 6000 \
		-O "^dir_index,^has_journal$feat" \
		-U "$(printf '%s' "$name" | md5sum | sed -E 's/^(.{8})(.{4})(.{4})(.{4})(.{12}).*/\1-\2-\3-\4-\5/')" \
		-E root_owner=0:0 "$img"
	mount -o loop "$img" "$work/mnt"
	fill "$work/mnt/plain" f 2000
	mkdir "$work/mnt/plain/sub"
	printf 'deep\n' > "$work/mnt/plain/sub/deep"
	if [ "$feat" = "" ]; then
		fill "$work/mnt/dups" d 300
		fill "$work/mnt/badcsum" b 300
	else
		fill "$work/mnt/badent" e 300
	fi
	umount "$work/mnt"
}

# damage NAME: what debugfs writes, on top of the kernel's tree.
damage() {
	local img=$work/$1.img
	if [ "$1" = linear-1k ]; then
		# A second entry "d_0150" naming d_0001's inode (appended).
		dbg "ln /dups/d_0001 /dups/d_0150" "$img"
		dbg "zap_block -f /badcsum -o 40 -l 4 -p 0x58 3" "$img"
	else
		dbg "zap_block -f /badent -o 4 -l 2 -p 0 2" "$img"
	fi
}

# paths NAME: every 25th name of the damaged directories, the last
# names, absent names: opened each on a fresh mount by record.sh.
paths() {
	local d p i
	for d in $2; do
		p=${d:0:1}; [ "$d" = badent ] && p=e
		for ((i = 1; i <= 300; i += 25)); do printf '/%s/%s_%04d\n' "$d" "$p" "$i"; done
		printf '/%s/%s_0150\n/%s/%s_0300\n/%s/absent\n' "$d" "$p" "$d" "$p" "$d"
	done
	printf '/plain/absent\n/plain/sub/deep\n/plain/f_2000\n'
}

# lookups NAME: every name of /plain opened on one ro mount.
lookups() {
	local img=$work/$1.img i
	mount -o loop,ro "$img" "$work/mnt"
	{
		echo "# every name of /plain opened, on one ro mount (probe --kernel)"
		for ((i = 1; i <= 2000; i++)); do
			printf 'open /plain/f_%04d\nlseek 0 DATA\n' "$i"
		done
		printf 'open /plain/F_0001\nopen /plain/f_20001\n'
	} | "$probe" --kernel "$work/mnt" >> "$out/$1.calls"
	umount "$work/mnt"
}

for spec in "linear-1k::dups badcsum" "linear-nocsum-1k:,^metadata_csum:badent"; do
	IFS=: read -r name feat dirs <<< "$spec"
	build "$name" "$feat"
	damage "$name"
	gzip -9 -n -c "$work/$name.img" > "$out/$name.img.gz"
	paths "$name" "$dirs" > "$work/$name.paths"
	EXTRA_PATHS=$work/$name.paths MAXFILES=${MAXFILES:-20} \
		GOLDEN_MAXFILES=${GOLDEN_MAXFILES:-12} \
		"$here/../record/record.sh" "$out/$name.img.gz" "$out"
	lookups "$name"
	echo "wrote $out/$name.img.gz and its recordings"
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkhash.sh OUTDIR
#
# Images for the directory-hash signedness rule, written by the kernel and
# recorded by it (scripts/record/record.sh), then OUTDIR/NAME.calls gets one more
# section: an open of every name in every directory, recorded on one
# ro,noload mount (lookups do not depend on the extent cache).
#
#   hash-neither-1k  ext4 (no journal: a smaller image), 1 KiB blocks,
#                    htree directories /legacy, /half_md4, /tea of UTF-8
#                    names (e.g. "é日本ü_17"),
#                    written while s_flags said "unsigned hash", then
#                    s_flags set to 0: neither flag.  Kernels since 6.2
#                    (built with -funsigned-char) hash unsigned then, and
#                    find every name; earlier x86 kernels hashed signed.
#   hash-signed-1k   the same, written and kept with the explicit
#                    "signed hash" flag.
#
# Each directory gets its hash from s_def_hash_version, changed between
# mounts with debugfs.  Needs root and loop mounts; PROBE as record.sh.
. "$(dirname "$0")/../lib/gen.sh"
probe=${PROBE:-$here/../../tests/probe}
[ -x "$probe" ] || { echo "mkhash: no probe at $probe (make tests/probe)" >&2; exit 2; }
gen_start mkhash root "$@"
mkdir "$work/mnt"

# Names per directory: tea as in the report (3000), the others 1000.
declare -A count=([legacy]=1000 [half_md4]=1000 [tea]=3000)
dbg() { debugfs -w -R "$1" "$2" >/dev/null 2>&1; }

# build NAME FLAGS_WHILE_WRITING FLAGS_AFTER
build() {
	local name=$1 img=$work/$1.img alg i
	truncate -s 6M "$img"
	E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F -t ext4 -O ^has_journal -b 1024 -N 5400 \
		-U "$(printf '%s' "$name" | md5sum | sed -E 's/^(.{8})(.{4})(.{4})(.{4})(.{12}).*/\1-\2-\3-\4-\5/')" \
		-E hash_seed=6861736e-616d-6573-0000-000000000001,root_owner=0:0 \
		"$img"
	dbg "ssv flags $2" "$img"
	for alg in legacy half_md4 tea; do
		dbg "ssv def_hash_version $alg" "$img"
		mount -o loop "$img" "$work/mnt"
		mkdir "$work/mnt/$alg"
		for ((i = 1; i <= count[$alg]; i++)); do
			: > "$work/mnt/$alg/é日本ü_$i"
		done
		umount "$work/mnt"
	done
	dbg "ssv flags $3" "$img"
	e2fsck -fn "$img" >/dev/null 2>&1 ||
		echo "mkhash: $name: e2fsck -fn reports problems (as expected for" \
			"a signedness flag changed under a written tree)" >&2
	gzip -9 -n -c "$img" > "$out/$name.img.gz"
	echo "wrote $out/$name.img.gz"
}

# lookups NAME: every name opened on one mount, appended to NAME.calls.
lookups() {
	local name=$1 img=$work/$1.img alg i
	mount -o loop,ro,noload "$img" "$work/mnt" 2>/dev/null ||
		mount -o loop,ro "$img" "$work/mnt"
	{
		echo "# every name opened, on one ro,noload mount (probe --kernel)"
		for alg in legacy half_md4 tea; do
			for ((i = 1; i <= count[$alg]; i++)); do
				printf 'open /%s/é日本ü_%d\nlseek 0 DATA\n' "$alg" "$i"
			done
			printf 'open /%s/É日本Ü_1\n' "$alg"
		done | "$probe" --kernel "$work/mnt"
	} >> "$out/$name.calls"
	umount "$work/mnt"
}

build hash-neither-1k 2 0
build hash-signed-1k 1 1
for name in hash-neither-1k hash-signed-1k; do
	MAXFILES=${MAXFILES:-40} GOLDEN_MAXFILES=${GOLDEN_MAXFILES:-12} \
		"$here/../record/record.sh" "$out/$name.img.gz" "$out"
	lookups "$name"
	gzip -9 -n -f "$out/$name.calls" "$out/$name.golden"
done

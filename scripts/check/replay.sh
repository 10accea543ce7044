#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live differential run of --replay against the kernel's journal recovery,
# fast commits first: N random ext4 images (default 20) with fast_commit,
# filled through a rw mount, then mounted again and changed with each
# change fsynced (a fast commit, or a full one where the kernel falls back),
# and the image file copied while still mounted: a dirty image.  The
# kernel's answers after a read-write mount of a copy (scripts/record/
# replay.sh) are then replayed through libe2map with "replay" (probe
# --image --options replay), and so is every block's owner (blockmap
# --replay against blockmap of the kernel's recovered copy); a recovery
# the kernel refuses must fail in e2map_open with the same errno.  Needs root and loop mounts; skips
# cleanly without them.
#
#   scripts/check/replay.sh [N]
#
# What e2map refuses to replay (EOPNOTSUPP: an inline directory that must
# grow, a casefolded htree; see the README) is counted apart, with its
# reason, not as a difference.
#
# Env: PROBE (tests/probe), E2MAP (cmd/e2map), SEED (random; printed, reuse
# it to repeat a run), KEEP=1 keeps passing images too.  Failing images stay under
# /tmp/e2map-check-replay.*/.
set -uo pipefail
export LC_ALL=C

n=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
probe=${PROBE:-$here/../../tests/probe}
e2map=${E2MAP:-$here/../../cmd/e2map}
. "$here/../lib/check.sh"
seed=${SEED:-$(( $(date +%s) % 100000 ))}

skip_unless_mount check-replay loop
work=$(mktemp -d /tmp/e2map-check-replay.XXXXXX)
[ -x "$probe" ] || { echo "check-replay: no probe at $probe (make tests/probe)" >&2; exit 2; }

echo "check-replay: $n images, SEED=$seed, work in $work"
RANDOM=$seed
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
chance() { [ $((RANDOM % 100)) -lt "$1" ]; }

random_mkfs() {
	local feats=(fast_commit) o
	bsz=$(pick 1024 2048 4096)
	chance 50 && feats+=("64bit") || feats+=("^64bit")
	chance 60 && feats+=("metadata_csum") || feats+=("^metadata_csum")
	chance 15 && feats+=("^dir_index")
	chance 20 && feats+=("inline_data")
	chance 15 && feats+=("bigalloc")
	o=$(IFS=,; echo "${feats[*]}")
	# A fast-commit area of 1/16 of the journal, so that a few dozen
	# fast commits fit before the kernel falls back to a full commit.
	mkfs_args=(-q -F -t ext4 -b "$bsz" -E nodiscard -O "$o"
		   -J "size=4,fast_commit_size=$((256 * bsz / 1024))")
	case ",$o," in *,bigalloc,*) mkfs_args+=(-C $((bsz * (RANDOM % 2 ? 4 : 16)))) ;; esac
	fsdesc="ext4 bs=$bsz $o"
}

# A file written as a few extents, some far apart, or as many.
write_file() {
	local f=$1 k ops=() off
	for ((k = 0; k < 1 + RANDOM % 6; k++)); do
		off=$(( (RANDOM % 96) * bsz ))
		chance 30 && off=$(( off + RANDOM % bsz ))
		ops+=(-c "pwrite -q -S 0x$((RANDOM % 90 + 10)) $off $(( (1 + RANDOM % 12) * bsz ))")
	done
	if chance 25; then
		for ((k = 0; k < 5 + RANDOM % 120; k++)); do
			ops+=(-c "pwrite -q $(( (200 + 2 * k) * bsz )) $bsz")
		done
	fi
	xfs_io -f "${ops[@]}" "$f" >/dev/null 2>&1 || true
}

populate() {
	local m=$1 k
	mkdir -p "$m/d" "$m/e"
	for ((k = 0; k < 3 + RANDOM % 5; k++)); do write_file "$m/f$k"; done
	for ((k = 0; k < 10 + RANDOM % 60; k++)); do
		echo "$k" > "$m/d/name-$k-$(printf '%0*d' $((RANDOM % 40)) 0)"
	done
	chance 50 && xfs_io -f -c "falloc 0 $((12 * bsz))" "$m/pre" >/dev/null 2>&1
	true
}

# One change, then an fsync of a file it touched (a fast commit).
change() {
	local m=$1 f k victim
	f=$m/f$((RANDOM % 8))
	case $((RANDOM % 13)) in
	0|1) write_file "$f" ;;
	2) xfs_io -f -c "truncate $(( RANDOM % 80 * bsz + (RANDOM % 2) * (RANDOM % bsz) ))" "$f" ;;
	3) xfs_io -f -c "pwrite -q $(( RANDOM % 12 * bsz )) $((2 * bsz))" "$m/pre" ;;
	4)	for ((k = 0; k < 1 + RANDOM % 14; k++)); do
			f=$m/$(pick d e)/new-$RANDOM-$(printf '%0*d' $((RANDOM % 200)) 0)
			echo "$k" > "$f"
		done ;;
	5)	victim=$(ls "$m/d" 2>/dev/null | head -n $((1 + RANDOM % 20)) | tail -n 1)
		[ -n "$victim" ] && mv "$m/d/$victim" "$m/d/renamed-$RANDOM"
		f=$m/f0 ;;
	6)	[ -e "$f" ] && ln "$f" "$m/e/link-$RANDOM" 2>/dev/null ;;
	7)	victim=$(ls "$m/d" 2>/dev/null | head -n $((1 + RANDOM % 20)) | tail -n 1)
		[ -n "$victim" ] && rm -f "$m/d/$victim"
		f=$m/f1 ;;
	8)	rm -f "$f"
		f=$m/f2 ;;
	9)	k=$m/dir$RANDOM
		mkdir "$k" && write_file "$k/inner"
		f=$k/inner ;;
	10)	mv "$f" "$m/e/moved-$RANDOM" 2>/dev/null
		f=$m/f3 ;;
	11)	# Enough names for an htree that splits.
		mkdir -p "$m/many"
		for ((k = 0; k < 50 + RANDOM % 300; k++)); do
			: > "$m/many/entry-$RANDOM-$k"
		done
		f=$m/many/entry-last
		: > "$f" ;;
	12)	# Enough extents for several leaves, or a deeper tree.
		for ((k = 0; k < 100 + RANDOM % 600; k++)); do
			printf x | dd of="$f" bs=1 seek=$(( (2 * k + 1) * bsz )) conv=notrunc status=none
		done ;;
	esac
	[ -e "$f" ] || xfs_io -f -c "pwrite -q 0 $bsz" "$f" >/dev/null 2>&1
	xfs_io -c fsync "$f" >/dev/null 2>&1 || true
}

passed=0 failed=0 total_calls=0 refused=0 unsupported=0 nblocks=0
for ((i = 1; i <= n; i++)); do
	d=$work/$i
	mkdir -p "$d/mnt"
	img=$d/dirty$i.img
	random_mkfs
	truncate -s $(( (16 + RANDOM % 33) << 20 )) "$img"
	if ! mkfs "${mkfs_args[@]}" "$img" >"$d/mkfs.log" 2>&1 ||
	   ! mount -o loop "$img" "$d/mnt" 2>"$d/mount.log"; then
		echo "image $i: mkfs or mount failed ($fsdesc), not counted"
		rm -rf "$d"
		continue
	fi
	populate "$d/mnt"
	umount "$d/mnt"
	mount -o loop,commit=600 "$img" "$d/mnt"
	xfs_io -f -c fsync "$d/mnt/first" >/dev/null 2>&1
	for ((k = 0; k < 4 + RANDOM % 24; k++)); do change "$d/mnt"; done
	cp --sparse=always "$img" "$d/dirty$i.copy"
	umount "$d/mnt"
	mv "$d/dirty$i.copy" "$img"
	nfc=$(debugfs -R logdump "$img" 2>/dev/null | sed -n '/Fast Commit/,$p' | grep -c '^tag ')
	if ! PROBE=$probe "$here/../record/replay.sh" "$img" "$d" 2>"$d/record.log"; then
		echo "image $i: FAIL ($fsdesc): recording failed, see $d/record.log"
		failed=$((failed + 1))
		continue
	fi
	bad=0
	if [ -e "$d/dirty$i.refused" ]; then
		want=$(cat "$d/dirty$i.refused")
		# probe words the errno as e2map_strerror does.
		case $want in
		EBADMSG) text="Filesystem metadata checksum is bad" ;;
		EUCLEAN) text="Filesystem metadata is corrupted" ;;
		EINVAL) text="Invalid argument" ;;
		*) text="Input/output error" ;;
		esac
		got=$(printf 'open / = 0\n' | "$probe" --image "$img" --options replay 2>&1 | head -n 1)
		refused=$((refused + 1))
		case $got in *": $text") ;; *) bad=1; printf -- '-refused %s\n+e2map: %s\n' "$want" "$got" > "$d/calls.diff" ;; esac
		ncalls=0
	else
		zcat "$d/dirty$i.calls.gz" | grep -v '^#' > "$d/expected"
		ncalls=$(grep -cE '^(open|lseek|fiemap) ' "$d/expected")
		"$probe" --image "$img" --options replay < "$d/expected" > "$d/got" 2>"$d/probe.log"
		diff -u "$d/expected" "$d/got" > "$d/calls.diff" || bad=1
		# Every block's owner: the kernel's recovered copy, read by
		# blockmap (held to debugfs and FIEMAP elsewhere), against
		# blockmap --replay of the dirty image.
		cp --sparse=always "$img" "$d/recovered.img"
		if mount -o loop "$d/recovered.img" "$d/mnt" 2>/dev/null; then
			umount "$d/mnt"
			"$e2map" blockmap "$d/recovered.img" > "$d/blockmap.want" 2>&1
			"$e2map" blockmap --replay "$img" > "$d/blockmap.got" 2>&1
			# bigalloc: which clusters a removal leaves marked in
			# use (ext4_remove_blocks' partial clusters) is not
			# modelled; the owned ranges are compared.
			case $fsdesc in *bigalloc*)
				sed -i '/ free \| unknown /d' "$d/blockmap.want" "$d/blockmap.got" ;;
			esac
			diff -u "$d/blockmap.want" "$d/blockmap.got" >> "$d/calls.diff" || bad=1
			nblocks=$((nblocks + $(wc -l < "$d/blockmap.want")))
		fi
		rm -f "$d/recovered.img"
		if [ $bad = 1 ] && grep -q ': Operation not supported$' "$d/probe.log"; then
			unsupported=$((unsupported + 1))
			echo "image $i: not replayed by e2map ($fsdesc): $("$e2map" check -q --replay "$img" 2>&1 | head -n 1 | sed 's/.*fast-commit replay: //')"
			rm -rf "$d"
			continue
		fi
	fi
	total_calls=$((total_calls + ncalls))
	if [ $bad = 0 ]; then
		passed=$((passed + 1))
		echo "image $i: ok ($fsdesc; $nfc fast-commit tags, $ncalls calls$([ -e "$d/dirty$i.refused" ] && echo ", refused as the kernel: $(cat "$d/dirty$i.refused")"))"
		[ "${KEEP:-0}" = 1 ] || rm -rf "$d"
	else
		failed=$((failed + 1))
		echo "image $i: FAIL ($fsdesc; $nfc fast-commit tags): $d"
		grep -m 6 '^[-+][^-+]' "$d/calls.diff" | sed 's/^/    /'
	fi
done
rmdir "$work" 2>/dev/null || true
echo "compared: $total_calls calls after replay, $nblocks blockmap ranges, $refused refusals as the kernel's; $unsupported images e2map does not replay"
echo "$passed passed, $failed failed"
[ $failed = 0 ]

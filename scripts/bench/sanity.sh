#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/bench/sanity.sh, sourced by bench.sh: before anything is timed,
# e2map's outputs against the kernel's, each kernel listing on a fresh
# mount; FAIL=1 on any difference, each comparison a line of SANITY.
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
	sed "s#^#dump_extents <#; s#\$#>#" "$CACHE/$b.inos" >"$WORK/$b.dump_extents"
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


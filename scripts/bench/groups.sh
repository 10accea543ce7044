#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/bench/groups.sh, sourced by bench.sh: the timed groups.  Within
# a group the commands alternate (bench-time.py), and each row of the
# report is an e2map command against a competitor of the same group.
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
	if wanted scan; then
		kfind="mount -o loop,ro,noload $img $MNT && (cd $MNT && find . -printf '%i %y %m %U %G %n %s %b %A@ %T@ %C@ %p\\n' >/dev/null && $XA $WORK/$b.mfiles filefrag -v >/dev/null && du -s .); umount $MNT"
		cmd "$b-e2map-scan" "$RUNS" 1 - "$E2MAP scan -q --format jsonl $img"
		cmd "$b-e2map-scan-check" "$RUNS" 1 - "$E2MAP check $img"
		cmd "$b-scan-e2fsck" "$RUNS" 1 - "e2fsck -fn $img"
		cmd "$b-scan-debugfs" "$RUNS" 1 - "debugfs -f $WORK/$b.dump_extents $img"
		cmd "$b-scan-kernel" "$RUNS" 1 - "$kfind"
		if [ $HAVE_TSK = 1 ] && [ "$b" = big4k ]; then
			cmd "$b-scan-fls" "$SLOW_RUNS" 0 - "fls -r -m / $img"
			cmd "$b-scan-tsk" "$SLOW_RUNS" 0 "rm -f $WORK/tsk.db" "tsk_loaddb -d $WORK/tsk.db $img"
		fi
		group "scan-$b"
		t="$b: \`scan --format jsonl\`, all $ni inodes"
		row "$t" "$b-e2map-scan" "\`e2map check\` (target: scan within 1.2x)" "$b-e2map-scan-check"
		row "$t" "$b-e2map-scan" "\`e2fsck -fn\`" "$b-scan-e2fsck"
		row "$t" "$b-e2map-scan" "one \`debugfs -f\` session, \`dump_extents <INO>\` per inode" "$b-scan-debugfs"
		row "$t" "$b-e2map-scan" "mount + \`find -printf\` + \`filefrag -v\` over every file + \`du -s\` + umount" "$b-scan-kernel"
		if [ $HAVE_TSK = 1 ] && [ "$b" = big4k ]; then
			row "$t" "$b-e2map-scan" "\`fls -r -m /\` (The Sleuth Kit)" "$b-scan-fls"
			row "$t" "$b-e2map-scan" "\`tsk_loaddb\` (new SQLite database)" "$b-scan-tsk"
		fi
	fi
	if wanted cold; then
		drop="sync; echo 3 >/proc/sys/vm/drop_caches"
		cmd "$b-e2map-scan-cold" "$RUNS" 0 "$drop" "$E2MAP scan -q --format jsonl $img"
		cmd "$b-e2map-check-cold" "$RUNS" 0 "$drop" "$E2MAP check $img"
		cmd "$b-e2fsck-cold" "$RUNS" 0 "$drop" "e2fsck -fn $img"
		group "cold-$b"
		row "$b, cold page cache: \`scan --format jsonl\`" "$b-e2map-scan-cold" "\`e2fsck -fn\`, cold" "$b-e2fsck-cold"
		row "$b, cold page cache: \`check\`" "$b-e2map-check-cold" "\`e2fsck -fn\`, cold" "$b-e2fsck-cold"
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


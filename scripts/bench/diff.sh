#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two images of one filesystem (issue 23): `e2map diff` against what a
# backup planner or an examiner would otherwise run, in one run.
#
#   sudo make bench                    (this is one of its scripts)
#   sudo E2MAP=path/to/e2map scripts/bench/diff.sh
#
# The images: A is bench.sh's big4k (16 GiB ext4, 4 KiB blocks, its
# generated tree of about 200,000 files and the kernel-written fragmented
# files; built here through images.sh when not cached).  B, kept in
# $BENCH_CACHE as diff-big4k-b.img with its record diff-big4k.changes.jsonl
# (rebuilt when diff-ops.py, A or the recipe below changes), is A copied
# (cp --sparse=always) and changed on a read-write mount by diff-ops.py
# change --bulk: 1% of the single-link regular files, one operation each in
# turn (append, overwrite in place, punch, truncate, chmod, touch, xattr,
# delete, rename, a new file beside it).
#
# Timed once each, warm (each read once untimed first):
#   e2map diff --format jsonl A B
#   rsync -n -i -a -c -H -X -A --delete between the two ro mounts (loop
#     devices with direct I/O: only the filesystems' page cache is warm)
#   qemu-img compare A B (it stops at the first differing offset)
#   cat A B >/dev/null (reading both images)
# with each one's ratio to e2map, and the files e2map reports against the
# files rsync itemizes.  An e2map without the command (`e2map help diff`
# fails) is a row of n/a.
#
# Env: E2MAP (cmd/e2map), BENCH_CACHE (/var/tmp/e2map-bench),
# DIFF_FRACTION (0.01), BENCH_REBUILD=1.
# Needs root (loop mounts), e2fsprogs, rsync, qemu-utils, python3.
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/bench.sh
. "$here/../lib/bench.sh"
bench_start diff mke2fs e2fsck rsync qemu-img python3 losetup mountpoint xfs_io
ops=$here/../gen/diff-ops.py
FRACTION=${DIFF_FRACTION:-0.01}
mkdir "$work/a" "$work/b"
a=$CACHE/big4k.img
b=$CACHE/diff-big4k-b.img
man=$CACHE/diff-big4k.changes.jsonl
cleanup() {
	local m f l
	for m in "$MNT" "$work/a" "$work/b"; do
		! mountpoint -q "$m" || umount "$m" || umount -l "$m" || true
	done
	for f in "$a" "$b" "$b.tmp"; do
		for l in $(losetup -j "$f" 2>/dev/null | cut -d: -f1); do
			losetup -d "$l" || true
		done
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

###########################################################################
# The images.
# shellcheck disable=SC2034 # images.sh's build uses them
PIN=(taskset -c 0) BUILT=()
# shellcheck source=images.sh
source "$here/images.sh"
build big4k big 4096 16G 200000 1
[ "${BENCH_KEEP_TREE:-0}" = 1 ] || rm -rf "$CACHE"/tree-*
key=$( { cat "$ops" "$here/../gen/past-ops.py" "$CACHE/big4k.key"; echo "$FRACTION"; } |
	md5sum | cut -c1-12)
if [ "${BENCH_REBUILD:-0}" = 1 ] || [ ! -s "$b" ] || [ ! -s "$man" ] ||
   [ "$(cat "$CACHE/diff-big4k.key" 2>/dev/null)" != "$key" ]; then
	log "bench-diff: building $b ..."
	t0=$(date +%s)
	rm -f "$b" "$b.tmp" "$CACHE/diff-big4k.key"
	cp --sparse=always "$a" "$b.tmp"
	mount -o loop,noatime,noinit_itable "$b.tmp" "$MNT"
	python3 "$ops" change "$MNT" "$work/m.jsonl" --bs 4096 --bulk --fraction "$FRACTION"
	umount "$MNT"
	sync "$b.tmp"
	e2fsck -fn "$b.tmp" >/dev/null 2>&1 || die "e2fsck -fn $b.tmp"
	mv -f "$work/m.jsonl" "$man"
	mv -f "$b.tmp" "$b"
	echo "$key" >"$CACHE/diff-big4k.key"
	log "bench-diff: built in $(($(date +%s) - t0)) s"
else
	log "bench-diff: reusing $b (key $key)"
fi

###########################################################################
# Running.

# warm NAME CMD...: CMD once untimed, then timed.
warm() {
	local name=$1
	shift
	"$@" >/dev/null 2>&1 || true
	timed "$name" "$@"
}
t_of() { [ -e "$work/$1.t" ] && cat "$work/$1.t" || echo n/a; }
ratio() {
	if [ ! -e "$work/$1.t" ] || [ ! -e "$work/e2map.t" ]; then echo n/a; return; fi
	python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%.1fx' % (a / b) if b else 'n/a')" \
		"$(cat "$work/$1.t")" "$(cat "$work/e2map.t")"
}

if "$E2MAP" help diff >/dev/null 2>&1; then
	log "bench-diff: e2map diff"
	warm e2map "$E2MAP" diff --format jsonl "$a" "$b"
else
	log "bench-diff: $E2MAP has no diff command: n/a"
fi
log "bench-diff: qemu-img compare"
warm qemu qemu-img compare -f raw -F raw "$a" "$b"
log "bench-diff: reading both images"
# shellcheck disable=SC2016 # sh's own $1 and $2
warm cat sh -c 'cat "$1" "$2" >/dev/null' sh "$a" "$b"
log "bench-diff: rsync -n -c over the ro mounts"
# The image files' own cache dropped: room for the mounts'.
for img in "$a" "$b"; do dd if="$img" iflag=nocache count=0 status=none; done
for s in a b; do
	img=$a
	[ $s = a ] || img=$b
	dev=$(losetup --direct-io=on -r -f --show "$img")
	mount -o ro,noload "$dev" "$work/$s"
done
warm rsync rsync -n -i -a -c -H -X -A --delete "$work/b/" "$work/a/"
for s in a b; do umount "$work/$s"; done

###########################################################################
score() {
	python3 - "$man" "$work/rsync.out" "$work/e2map.out" <<'EOF'
import json, os, sys
man, rs, em = sys.argv[1:4]
want = set()
for l in open(man):
    o = json.loads(l)
    if o["op"] != "dir_entries":
        want |= {p for p in (o["path"], o["path_a"]) if p}
got = set()
for l in open(rs, errors="replace"):
    p = l.rstrip("\n").partition(" ")[2].strip().split(" -> ")[0].split(" => ")[0]
    if p and p != "./" and not p.endswith("/"):
        got.add("/" + p)
print("changes recorded by the generator: %d paths, old and new names (not counting directories whose entries changed)" % len(want))
print("rsync itemizes %d files (not directories), %d of the recorded paths; "
      "recorded paths rsync does not name: %d %s" % (len(got), len(got & want), len(want - got),
                                                    " ".join(sorted(want - got)[:3])))
if os.path.exists(em):
    e = set()
    for l in open(em, errors="replace"):
        try:
            o = json.loads(l)
        except ValueError:
            continue
        for k in ("path", "path_a"):
            if isinstance(o.get(k), str):
                e.add(o[k])
    print("e2map reports %d paths: %d of rsync's files, %d of the recorded paths; "
          "rsync's files e2map misses: %d" % (len(e), len(e & got), len(e & want), len(got - e)))
else:
    print("e2map: n/a")
EOF
}
{
	echo
	echo "## Two images of one filesystem: e2map diff against rsync -n -c and qemu-img compare"
	echo
	echo "A: big4k.img, $(wc -l <"$CACHE/big4k.files") regular files, $(du -h --apparent-size "$a" | cut -f1) apparent, $(du -h "$a" | cut -f1) allocated; B: diff-big4k-b.img, $(du -h "$b" | cut -f1) allocated, $(wc -l <"$man") changes recorded (fraction $FRACTION of the files)."
	echo "Machine: $(nproc) CPUs; kernel $(uname -r); warm page cache; each command run once; e2map: $("$E2MAP" --version 2>/dev/null | head -1 || echo none)."
	echo
	echo "| tool | command | s | x e2map |"
	echo "| --- | --- | --- | --- |"
	echo "| e2map | diff --format jsonl A B | $(t_of e2map) | 1 |"
	echo "| rsync $(rsync --version | awk 'NR == 1 {print $3}') | -n -i -a -c -H -X -A --delete B/ A/ (ro mounts) | $(t_of rsync) | $(ratio rsync) |"
	echo "| qemu-img $(qemu-img --version | awk 'NR == 1 {print $3}') | compare A B: $(head -1 "$work/qemu.out") | $(t_of qemu) | $(ratio qemu) |"
	echo "| cat | A B >/dev/null (reading both images) | $(t_of cat) | $(ratio cat) |"
	echo
	score
} | tee "$CACHE/diff-report.md"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The past of an image (issue 22): e2map against the tools an examiner
# would otherwise run, scored against ground truth, in one run.
#
#   sudo make bench                    (this is one of its scripts)
#   sudo E2MAP=path/to/e2map scripts/bench/past.sh
#
# The image, made once through the kernel and kept in $BENCH_CACHE
# (past-bulk.img and past-bulk.past.jsonl.gz, rebuilt when
# scripts/gen/past-ops.py or the recipe below changes): 256 MiB ext4, 4 KiB
# blocks, a 64 MiB journal; past-ops.py's small set (mkpast.sh's operations
# less the fill) and its bulk set: 150 linear directories of 30 files (20
# deleted in each) and 10 htree directories of 1,000 (700 deleted in
# each), 1..16 KiB of distinct bytes each, and a file filling the free
# space; half the 10,000 deleted after a journal commit, half after a
# checkpoint (fsfreeze); then new files until they hold half the freed
# blocks.
#
# Timed once each (warm cache: each tool reads the image once untimed
# first), scored against the manifest:
#   names   fls -rd -p; e2map scan -d --format jsonl (deleted names found,
#           of the manifest's removed names)
#   inodes  ils; fls's deleted entries' inodes; e2map scan -d (deleted
#           inodes found, of those no new file took)
#   history e2map history IMG DIR for every directory of the manifest
#   recover ext4magic -r and -M, extundelete --restore-all, e2map recover
#           --all (files whose bytes equal a deleted file's, of those not
#           overwritten since; outputs equal to no file the generator
#           wrote: WRONG; e2map's reports of "complete" with other bytes)
#   hash    sha256sum over the ro mount's files, hashdeep -c sha256 -r,
#           e2map scan --hash sha256 (files whose hash is the manifest's)
#   dfxml   e2map scan --format dfxml against fiwalk -z -x (no hashes)
#           and fiwalk -x (MD5, SHA1), on past-bulk and on bench.sh's
#           big4k (built here through images.sh when not cached; fiwalk
#           stopped after $PAST_FIWALK_CAP s, default 120)
# An e2map command the binary does not have (`e2map help CMD` fails, or
# its option is not in the help) is a row of n/a.
#
# Env: E2MAP (cmd/e2map), BENCH_CACHE (/var/tmp/e2map-bench),
# PAST_BIG4K=0 (skip big4k), PAST_FIWALK_CAP, BENCH_REBUILD=1.
# Needs root (loop mounts), e2fsprogs, util-linux, python3, sleuthkit,
# ext4magic, extundelete, hashdeep (scripts/deps.sh bench).
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/bench.sh
. "$here/../lib/bench.sh"
bench_start past mke2fs e2fsck debugfs fsfreeze python3 fls ils fiwalk \
	ext4magic extundelete hashdeep sha256sum timeout mountpoint
ops=$here/../gen/past-ops.py
[ -x "$E2MAP" ] || die "no e2map CLI at $E2MAP"
CAP=${PAST_FIWALK_CAP:-120}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

###########################################################################
# The image (recipe: this block, past-ops.py, mke2fs.conf).
BULK=+150,30,20,10,1000,700
MKFS=(-t ext4 -b 4096 -N 40000 -m 0 -J size=64)
SIZE=256M
img=$CACHE/past-bulk.img
man=$CACHE/past-bulk.past.jsonl.gz
key=$( { cat "$ops" "$here/../gen/mke2fs.conf"; echo "$BULK ${MKFS[*]} $SIZE"; } |
	md5sum | cut -c1-12)
if [ "${BENCH_REBUILD:-0}" = 1 ] || [ ! -s "$img" ] || [ ! -s "$man" ] ||
   [ "$(cat "$CACHE/past-bulk.key" 2>/dev/null)" != "$key" ]; then
	log "bench-past: building $img ..."
	t0=$(date +%s)
	rm -f "$img" "$img.tmp" "$CACHE/past-bulk.key"
	truncate -s "$SIZE" "$img.tmp"
	MKE2FS_CONFIG=$here/../gen/mke2fs.conf E2FSPROGS_FAKE_TIME=1700000000 \
		mke2fs -q -F -U 6d6f6f72-6275-6c6b-0000-000000000099 \
		-E hash_seed=6d6f6f72-6275-6c6b-0001-000000000099 "${MKFS[@]}" "$img.tmp"
	mount -o loop "$img.tmp" "$MNT"
	python3 "$ops" run "$MNT" "$work/m.jsonl" --bs 4096 --bulk "$BULK"
	umount "$MNT"
	python3 "$ops" finish "$img.tmp" "$work/m.jsonl"
	e2fsck -fn "$img.tmp" >/dev/null 2>&1 || die "e2fsck -fn past-bulk"
	mv -f "$work/m.jsonl.gz" "$man"
	mv -f "$img.tmp" "$img"
	echo "$key" >"$CACHE/past-bulk.key"
	log "bench-past: built in $(($(date +%s) - t0)) s"
fi

###########################################################################
# Running and scoring.

# has CMD [OPTION]: e2map has the command (and the option in its help).
has() {
	local h
	h=$("$E2MAP" help "$1" 2>&1) || return 1
	[ -z "${2:-}" ] || grep -q -- "$2" <<<"$h"
}


# The table's rows: TOOL | COMMAND | SCORE... | TIME, one line each.
ROWS=()
row() { ROWS+=("| $* |"); }
t_of() {
	local rc
	rc=$(cat "$work/$1.rc")
	if [ "$rc" -ge 128 ]; then
		echo "$(cat "$work/$1.t") (crashed: signal $((rc - 128)))"
	elif [ "$rc" != 0 ]; then
		echo "$(cat "$work/$1.t") (exit $rc)"
	else
		cat "$work/$1.t"
	fi
}
score() { python3 "$work/score.py" "$man" "$@"; }

cat >"$work/score.py" <<'EOF'
import gzip, hashlib, json, os, re, sys

man, what = sys.argv[1], sys.argv[2]
L = [json.loads(l) for l in gzip.open(man, "rt")]
files = [o for o in L if o["kind"] == "file"]
EMPTY = hashlib.sha256(b"").hexdigest()
names = {(o["dir"].rstrip("/") + "/" + o["name"]) for o in L if o["kind"] == "name"}
dead = [o for o in files if o["fate"] == "deleted"]
dead_inos = {o["ino"] for o in dead if not o["ino_reused"]}
live_now = {}
for o in files:
    if o["fate"] != "deleted" and o["mode"] & 0o170000 == 0o100000:
        for p in [o["path"]] + o.get("links", []):
            live_now[p] = o.get("sha256_now", o["sha256"])
known = {o["sha256"] for o in files} | {o.get("sha256_now") for o in files}


def jsonl(path):
    for l in open(path, errors="replace"):
        try:
            yield json.loads(l)
        except ValueError:
            pass


def field(o, *keys):
    for k in keys:
        if k in o:
            return o[k]
    return None


def out(*cells):
    print(" | ".join(str(c) for c in cells))


def tree(d):
    h = {}
    for top, _, fs in os.walk(d):
        for f in fs:
            p = os.path.join(top, f)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as fh:
                    h[p] = hashlib.sha256(fh.read()).hexdigest()
    return h


if what == "fls":
    found, inos = set(), set()
    for l in open(sys.argv[3], errors="replace"):
        m = re.match(r"\S+ \* (\d+)(\(realloc\))?:\t(.*)$", l.rstrip("\n"))
        if m:
            found.add("/" + m.group(3))
            if not m.group(2):
                inos.add(int(m.group(1)))
    out("%d / %d" % (len(found & names), len(names)),
        "%d / %d" % (len(inos & dead_inos), len(dead_inos)))
elif what == "ils":
    inos = set()
    for l in open(sys.argv[3], errors="replace"):
        f = l.split("|")
        if f[0].isdigit():
            inos.add(int(f[0]))
    out("", "%d / %d" % (len(inos & dead_inos), len(dead_inos)))
elif what == "scan-d":
    found, inos = set(), set()
    for o in jsonl(sys.argv[3]):
        kind = o.get("deleted")
        if kind == "name" and not o.get("live_copy"):
            p = (o.get("paths") or [{}])[0].get("path")
            if p:
                found.add("/" + p.lstrip("/"))
        elif kind in ("inode", "orphan"):
            i = field(o, "ino", "inode")
            if i is not None:
                inos.add(int(i))
    out("%d / %d" % (len(found & names), len(names)),
        "%d / %d" % (len(inos & dead_inos), len(dead_inos)))
elif what == "history":
    # Each directory's names no longer in it, from its history.
    found = set()
    for i, l in enumerate(open(sys.argv[3])):
        path = l.rstrip("\n").split("\t")[1].rstrip("/")
        f = os.path.join(sys.argv[4], "%d.jsonl" % i)
        if not os.path.exists(f):
            continue
        for o in jsonl(f):
            if o.get("kind") == "name" and not o.get("now"):
                found.add(path + "/" + o["name"])
    out("%d / %d" % (len(found & names), len(names)))
elif what == "recover":
    want = {o["sha256"] for o in dead if o["sha256"] != EMPTY}
    whole = {o["sha256"] for o in dead if o["sha256"] != EMPTY and not o["reused_blocks"]}
    got = tree(sys.argv[3])
    partial = set()
    if len(sys.argv) > 4 and os.path.exists(sys.argv[4]):
        # e2map labels what it writes: a partial file keeps holes where
        # its blocks are another file's now, and says so; not a claim.
        partial = {o.get("file") for o in jsonl(sys.argv[4])
                   if o.get("state") == "partial"}
    hs = set(got.values()) - {EMPTY}
    wrong = sum(1 for p, h in got.items()
                if h != EMPTY and h not in known and p not in partial)
    live = len({h for h in hs if h in set(live_now.values())} - want)
    cw = ""
    if len(sys.argv) > 4 and os.path.exists(sys.argv[4]):
        # e2map's reports: "complete" with bytes the file never had.
        by_ino = {}
        for o in dead:
            by_ino.setdefault(o["ino"], set()).add(o["sha256"])
        n = 0
        for o in jsonl(sys.argv[4]):
            st = [v for v in o.values() if v in ("complete", "partial", "overwritten", "none")]
            i, h = field(o, "ino", "inode"), o.get("sha256")
            if st[:1] == ["complete"] and h and i in by_ino and h not in by_ino[i]:
                n += 1
        cw = "; %d claimed complete with wrong bytes; %d partial, labelled" % (
            n, len(partial))
    out("%d / %d (%d not overwritten since)" % (len(hs & want), len(want), len(whole)),
        "%d%s" % (wrong, cw), live)
elif what == "hashes":
    fmt, mnt = sys.argv[3], sys.argv[5] if len(sys.argv) > 5 else ""
    got = {}
    for l in open(sys.argv[4], errors="replace"):
        if fmt == "sha256sum":
            h, _, p = l.rstrip("\n").partition("  ")
        elif fmt == "hashdeep":
            if l[:1] in "%#":
                continue
            f = l.rstrip("\n").split(",", 2)
            if len(f) < 3:
                continue
            h, p = f[1], f[2]
        else:
            try:
                o = json.loads(l)
            except ValueError:
                continue
            h = o.get("sha256")
            for q in o.get("paths") or []:
                if h and q.get("path"):
                    got["/" + q["path"].lstrip("/")] = h
            continue
        if mnt and p.startswith(mnt):
            p = p[len(mnt):]
        got["/" + p.lstrip("/")] = h
    ok = sum(1 for p, h in live_now.items() if got.get(p) == h)
    out("%d / %d" % (ok, len(live_now)))
elif what == "dfxml":
    s = open(sys.argv[3], errors="replace").read()
    out("%d fileobjects, %d hashdigests" % (s.count("<fileobject"), s.count("<hashdigest")))
EOF

# Warm the page cache: every tool then reads from memory.
cat "$img" >/dev/null

row "tool | command | deleted names found | deleted inodes found | deleted files recovered, correct bytes | outputs with WRONG bytes | live files copied | s"
row "--- | --- | --- | --- | --- | --- | --- | ---"

log "bench-past: names and inodes"
timed fls fls -rd -p "$img"
row "TSK $(fls -V | awk '{print $NF}') | fls -rd -p | $(score fls "$work/fls.out") | | | | $(t_of fls)"
timed ils ils "$img"
row "TSK | ils | $(score ils "$work/ils.out") | | | | $(t_of ils)"
if has scan --deleted; then
	timed scand "$E2MAP" scan -d --format jsonl "$img"
	row "e2map | scan -d --format jsonl | $(score scan-d "$work/scand.out") | | | | $(t_of scand)"
else
	row "e2map | scan -d --format jsonl | n/a | n/a | | | | n/a"
fi

if has history; then
	log "bench-past: e2map history of every directory"
	python3 - "$man" >"$work/dirs" <<'EOF'
import gzip, json, sys
for l in gzip.open(sys.argv[1], "rt"):
    o = json.loads(l)
    if o["kind"] == "dir":
        now = o["to"] or o["path"]
        arg = now if o["fate"] != "removed" else "<%d>" % o["ino"]
        print("%s\t%s" % (arg, o["path"]))
EOF
	hist() {
		local d p n=0
		while IFS=$'\t' read -r d p; do
			"$E2MAP" history --format jsonl "$img" "$d" \
				>"$work/hist/$n.jsonl" 2>/dev/null || true
			n=$((n + 1))
		done <"$work/dirs"
	}
	mkdir -p "$work/hist"
	timed hist hist
	row "e2map | history IMG DIR (each of $(wc -l <"$work/dirs") directories) | $(score history "$work/dirs" "$work/hist") | | | | | $(t_of hist)"
else
	row "e2map | history IMG DIR (each directory) | n/a | | | | | n/a"
fi

log "bench-past: recovery"
# ext4magic -r looks at a time window (the last 24 h by default): the day
# before the image was made, to now.
mkdir "$work/em-r" "$work/em-M" "$work/eu"
timed em_r ext4magic "$img" -r -a "$(($(stat -c %Y "$img") - 86400))" \
	-b "$(date +%s)" -d "$work/em-r/out"
row "ext4magic $(ext4magic -V 2>&1 | awk '/^ext4magic/ {print $NF}') | -r | | | $(score recover "$work/em-r") | $(t_of em_r)"
timed em_M ext4magic "$img" -M -d "$work/em-M/out"
row "ext4magic | -M | | | $(score recover "$work/em-M") | $(t_of em_M)"
# shellcheck disable=SC2016 # sh's own $1 and $2
timed eu sh -c 'cd "$1" && exec extundelete --restore-all "$2"' sh "$work/eu" "$img"
row "extundelete | --restore-all | | | $(score recover "$work/eu") | $(t_of eu)"
if has recover; then
	timed rec "$E2MAP" recover --format jsonl --hash sha256 "$img" --all "$work/rec"
	row "e2map | recover --all DEST | | | $(score recover "$work/rec" "$work/rec.out") | $(t_of rec)"
else
	row "e2map | recover --all DEST | | | n/a | n/a | n/a | n/a"
fi
rm -rf "$work/em-r" "$work/em-M" "$work/eu" "$work/rec"

log "bench-past: hashes"
mount -o loop,ro,noload "$img" "$MNT"
(cd "$MNT" && find . -type f -print0 | xargs -0 cat >/dev/null)
# shellcheck disable=SC2016 # sh's own $1
timed sha sh -c 'cd "$1" && find . -type f -print0 | xargs -0 sha256sum' sh "$MNT"
sed -i 's|  \./|  /|' "$work/sha.out"
timed hd hashdeep -c sha256 -r "$MNT"
umount "$MNT"
HROWS=()
HROWS+=("| sha256sum | find MNT -type f \| xargs sha256sum (ro mount, warm) | $(score hashes sha256sum "$work/sha.out") | $(t_of sha) |")
HROWS+=("| hashdeep $(hashdeep -V 2>&1 | head -1) | -c sha256 -r MNT | $(score hashes hashdeep "$work/hd.out" "$MNT") | $(t_of hd) |")
if has scan --hash; then
	timed e2h "$E2MAP" scan --hash sha256 --format jsonl "$img"
	HROWS+=("| e2map | scan --hash sha256 --format jsonl | $(score hashes jsonl "$work/e2h.out") | $(t_of e2h) |")
else
	HROWS+=("| e2map | scan --hash sha256 --format jsonl | n/a | n/a |")
fi

log "bench-past: DFXML"
DROWS=()
# fiwalk NAME IMAGE TAG ARGS...: one fiwalk row, stopped after $CAP s.
fiwalk_row() {
	local n=$1 im=$2 tag=$3
	shift 3
	timed "$n-$tag" timeout "$CAP" fiwalk "$@" -x "$im"
	if [ "$(cat "$work/$n-$tag.rc")" = 124 ]; then
		DROWS+=("| $n | fiwalk $* -x | skipped: over $CAP s | > $CAP |")
	else
		DROWS+=("| $n | fiwalk $* -x | $(score dfxml "$work/$n-$tag.out") | $(t_of "$n-$tag") |")
	fi
}

# dfxml NAME IMAGE: e2map's DFXML against fiwalk's, hashes and not.
dfxml() {
	local n=$1 im=$2
	fiwalk_row "$n" "$im" fz -z
	fiwalk_row "$n" "$im" fh -M -1
	if has scan dfxml; then
		timed "$n-e" "$E2MAP" scan --format dfxml "$im"
		DROWS+=("| $n | e2map scan --format dfxml | $(score dfxml "$work/$n-e.out") | $(t_of "$n-e") |")
		timed "$n-eh" "$E2MAP" scan --format dfxml --hash md5,sha1 "$im"
		DROWS+=("| $n | e2map scan --format dfxml --hash md5,sha1 | $(score dfxml "$work/$n-eh.out") | $(t_of "$n-eh") |")
	else
		DROWS+=("| $n | e2map scan --format dfxml | n/a | n/a |")
	fi
	rm -f "$work/$n"-*.out
}
dfxml past-bulk "$img"
if [ "${PAST_BIG4K:-1}" = 1 ]; then
	# bench.sh's big4k, from its own recipe and cache.
	# shellcheck disable=SC2034 # images.sh's build uses them
	PIN=(taskset -c 0) BUILT=()
	# shellcheck source=images.sh
	source "$here/images.sh"
	build big4k big 4096 16G 200000 1
	[ "${BENCH_KEEP_TREE:-0}" = 1 ] || rm -rf "$CACHE"/tree-*
	cat "$CACHE/big4k.img" >/dev/null 2>&1 || true
	dfxml big4k "$CACHE/big4k.img"
fi

###########################################################################
{
	echo
	echo "## The past of an image: e2map against fls, ils, ext4magic, extundelete, hashdeep, fiwalk"
	echo
	python3 - "$man" <<'EOF'
import gzip, json, sys, collections
L = [json.loads(l) for l in gzip.open(sys.argv[1], "rt")]
f = collections.Counter((o["fate"], o["when"]) for o in L if o["kind"] == "file")
d = [o for o in L if o["kind"] == "file" and o["fate"] == "deleted"]
print("past-bulk.img (256 MiB ext4, 4 KiB blocks): %d files written, %d deleted "
      "(%d after a commit, %d after a checkpoint; %d with blocks another file took "
      "since, %d whose inode a new file took), %d names removed." % (
      sum(f.values()), len(d), f[("deleted", "after-commit")],
      f[("deleted", "after-checkpoint")], sum(1 for o in d if o["reused_blocks"]),
      sum(1 for o in d if o["ino_reused"]), sum(1 for o in L if o["kind"] == "name")))
EOF
	echo "Machine: $(nproc) CPUs; kernel $(uname -r); warm page cache; each command run once; e2map: $("$E2MAP" --version 2>&1 | head -1)."
	echo
	for r in "${ROWS[@]}"; do echo "$r"; done
	echo
	echo "| hashes | command | live files with the manifest's sha256 | s |"
	echo "| --- | --- | --- | --- |"
	for r in "${HROWS[@]}"; do echo "$r"; done
	echo
	echo "| image | command | output | s |"
	echo "| --- | --- | --- | --- |"
	for r in "${DROWS[@]}"; do echo "$r"; done
} | tee "$CACHE/past-report.md"

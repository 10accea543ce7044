#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Block ownership and evidence containers (issue 10): one ext4 image of
# SIZE (default 1G) holding 20,000 small files in 200 directories and
# FILES fragmented sparse files of 64 MiB (4 KiB written every 8 KiB),
# with the page cache warm:
#   - e2map blockmap of the whole filesystem;
#   - a batch of LOOKUPS (default 100,000) random in-use blocks: e2map
#     owner against debugfs icheck of the same blocks (one session, 1,000
#     blocks a command, as its 8 KiB command lines allow) and
#     The Sleuth Kit's ifind (one process a block: timed on 200 blocks and
#     scaled, as 100,000 runs would take hours);
#   - the same e2map owner batch through an EnCase E01 of the image
#     (ewfacquire, fast compression) against the raw image;
#   - --replay's opening cost on testdata's dirty journals: e2map check
#     --replay against copying the image and running e2fsck -fy on it.
# Prints seconds (best of RUNS) and ratios.  Needs debugfs, sleuthkit,
# ewf-tools; root is not needed.
#   scripts/bench/owner.sh [SIZE [FILES [RUNS [LOOKUPS]]]]
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
e2map=${E2MAP:-$here/../../cmd/e2map}
size=${1:-1G} files=${2:-4} runs=${3:-3} lookups=${4:-100000}
for t in debugfs ifind ewfacquire e2fsck bc; do
	command -v $t >/dev/null || { echo "bench-owner: no $t" >&2; exit 2; }
done
work=$(mktemp -d /tmp/bench-owner.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
img=$work/x.img
mkdir "$work/tree"
python3 - "$work/tree" "$files" <<'EOF'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
chunk = os.urandom(4096)
for k in range(200):
    p = os.path.join(d, "tree", "d%03d" % k)
    os.makedirs(p)
    for j in range(100):
        with open(os.path.join(p, "f%03d" % j), "wb") as f:
            f.write(os.urandom(j * 97 % 9000))
os.mkdir(os.path.join(d, "sparse"))
for i in range(n):
    with open(os.path.join(d, "sparse", "f%d" % i), "wb") as f:
        for off in range(0, 64 << 20, 8192):
            f.seek(off)
            f.write(chunk)
EOF
truncate -s "$size" "$img"
mke2fs -q -F -t ext4 -d "$work/tree" "$img"
rm -rf "$work/tree"
cat "$img" > /dev/null


# LOOKUPS blocks drawn from those the files own (seeded: the same each run).
cat > "$work/pick.py" <<'EOF'
import bisect, random, sys
random.seed(42)
owned = []
for line in sys.stdin:
    f = line.strip().split(",")
    if f[0].isdigit() and f[3] in ("data", "directory", "extent-tree"):
        owned.append((int(f[0]), int(f[2])))
cum, total = [], 0
for _, c in owned:
    cum.append(total)
    total += c
for _ in range(int(sys.argv[1])):
    r = random.randrange(total)
    i = bisect.bisect_right(cum, r) - 1
    print(owned[i][0] + r - cum[i])
EOF
"$e2map" blockmap --format csv "$img" |
	python3 "$work/pick.py" "$lookups" > "$work/blocks"
head -200 "$work/blocks" > "$work/blocks200"
# debugfs reads a command line of 8 KiB at most: 1,000 blocks a command
# (each icheck walks every inode again; that is its cost).
xargs -n 1000 echo icheck < "$work/blocks" > "$work/icheck.cmd"

# The answers agree before they are timed: each block's inode, both ways.
"$e2map" owner "$img" $(head -2000 "$work/blocks") |
	sed -n 's/^\([0-9]*\): [a-z-]* inode \([0-9]*\).*/\1 \2/p' > "$work/e2map.ans"
head -2000 "$work/blocks" | xargs -n 1000 echo icheck > "$work/check.cmd"
debugfs -f "$work/check.cmd" "$img" 2>/dev/null |
	awk -F'\t' 'NF == 2 && $1 ~ /^[0-9]+$/ { print $1, $2 }' > "$work/debugfs.ans"
cmp -s "$work/e2map.ans" "$work/debugfs.ans" ||
	{ echo "bench-owner: e2map owner and debugfs icheck differ" >&2; exit 1; }

ewfacquire -u -q -t "$work/x" -c fast -C case -D bench -e examiner -E 1 \
	-N notes "$img" > /dev/null

t_map=$(best "$e2map" blockmap "$img")
t_owner=$(best sh -c "'$e2map' owner '$img' \$(cat '$work/blocks')")
t_owner_e01=$(best sh -c "'$e2map' owner '$work/x.E01' \$(cat '$work/blocks')")
t_icheck=$(best debugfs -f "$work/icheck.cmd" "$img")
ifind_one() { while read -r b; do ifind -d "$b" "$img"; done < "$work/blocks200"; }
t_ifind200=$(best ifind_one)
t_ifind=$(echo "$t_ifind200 * $lookups / 200" | bc -l)

printf '%-46s %10s %10s\n' task seconds "vs e2map"
printf '%-46s %10.3f\n' "e2map blockmap (whole filesystem)" "$t_map"
printf '%-46s %10.3f %9.2fx\n' "e2map owner, $lookups blocks" "$t_owner" 1
printf '%-46s %10.3f %9.2fx\n' "debugfs icheck, the same blocks" "$t_icheck" \
	"$(echo "$t_icheck / $t_owner" | bc -l)"
printf '%-46s %10.3f %9.2fx\n' "TSK ifind -d, one a block (200 timed, scaled)" \
	"$t_ifind" "$(echo "$t_ifind / $t_owner" | bc -l)"
printf '%-46s %10.3f %9.2fx\n' "e2map owner through the E01" "$t_owner_e01" \
	"$(echo "$t_owner_e01 / $t_owner" | bc -l)"

printf '\n%-30s %12s %18s %9s\n' "dirty journal" "check --replay" \
	"cp + e2fsck -fy" "ratio"
for d in "$here"/../../testdata/dirty-*.img.gz; do
	n=$(basename "$d" .img.gz)
	# The kernel refuses its recovery: nothing to time.
	[ ! -e "${d%.img.gz}.refused" ] || continue
	gzip -dc "$d" > "$work/d.img"
	t_r=$(best "$e2map" check -q --replay "$work/d.img")
	t_f=$(best sh -c "cp '$work/d.img' '$work/c.img' && e2fsck -fy '$work/c.img'")
	printf '%-30s %12.3f %18.3f %8.2fx\n' "$n" "$t_r" "$t_f" \
		"$(echo "$t_f / $t_r" | bc -l)"
done

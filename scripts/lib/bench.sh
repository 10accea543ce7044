# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by scripts/bench/extract.sh, fuse.sh, owner.sh, past.sh and diff.sh.
#
# bench_start NAME TOOL...: the start of a script that needs root and
# TOOLs: die and log (prefixed bench-NAME), root (the tree), E2MAP (made
# absolute; cmd/e2map by default), CACHE (BENCH_CACHE, made, absolute),
# work (a scratch folder; the script removes it) and MNT ($work/mnt, made).
bench_start() {
	local t
	bench_name=$1
	shift
	export LC_ALL=C
	die() { echo "bench-$bench_name: $*" >&2; exit 1; }
	log() { printf '%s\n' "$*" >&2; }
	[ "$(id -u)" = 0 ] || die "must run as root (loop mounts)"
	for t in "$@"; do
		command -v "$t" >/dev/null ||
			die "missing tool: $t (scripts/deps.sh bench)"
	done
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	E2MAP=${E2MAP:-$root/cmd/e2map}
	E2MAP=$(cd "$(dirname "$E2MAP")" && pwd)/$(basename "$E2MAP")
	CACHE=${BENCH_CACHE:-/var/tmp/e2map-bench}
	mkdir -p "$CACHE"
	CACHE=$(cd "$CACHE" && pwd)
	work=$(mktemp -d "/tmp/bench-$bench_name.XXXXXX")
	MNT=$work/mnt
	mkdir "$MNT"
}
#
# bench_unmount MNT...: unmount each (retried while busy, then lazily).
# bench_cleanup (past.sh, shapes.sh: `trap bench_cleanup EXIT`): $MNT
# unmounted, $work removed.
bench_unmount() {
	local m _
	for m in "$@"; do
		for _ in 1 2 3; do
			mountpoint -q "$m" 2>/dev/null || break
			umount "$m" 2>/dev/null || sleep 0.5
		done
		! mountpoint -q "$m" 2>/dev/null || umount -l "$m"
	done
}
bench_cleanup() {
	bench_unmount "$MNT"
	rm -rf "$work"
}
#
# timed NAME CMD... (past.sh, diff.sh): runs CMD (stdout to
# $work/NAME.out), its wall seconds in $work/NAME.t, its status in
# $work/NAME.rc.
timed() {
	local name=$1 s e rc=0
	shift
	s=$(date +%s.%N)
	"$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
	e=$(date +%s.%N)
	python3 -c "print('%.2f' % ($e - $s))" >"$work/$name.t"
	echo "$rc" >"$work/$name.rc"
}

# best CMD...: the best of $runs wall seconds of CMD, its output dropped;
# before_each, where the script defines it, runs untimed before each run.
best() {
	local b="" t s e
	for _ in $(seq "$runs"); do
		if declare -F before_each >/dev/null; then before_each; fi
		s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}

# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by scripts/bench/extract.sh, fuse.sh and owner.sh.
#
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

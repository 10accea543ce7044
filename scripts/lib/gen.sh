# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the image generators (mk*.sh): what every one of them needs so
# that its images do not depend on the host (locale, mke2fs.conf), and the
# start of a run: one OUTDIR argument, root where loop mounts are needed,
# a scratch directory removed (its mount undone) on exit.
set -eu -o pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
export MKE2FS_CONFIG=$here/mke2fs.conf

# gen_start NAME root|any "$@": sets $out (OUTDIR, absolute) and $work.
gen_start() {
	local name=$1 who=$2

	shift 2
	[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
	[ "$who" != root ] || [ "$(id -u)" = 0 ] ||
		{ echo "$name: must run as root" >&2; exit 1; }
	out=$(cd "$1" && pwd)
	work=$(mktemp -d "/tmp/$name-XXXXXX")
	trap 'umount "$work/mnt" 2>/dev/null || true; rm -rf "$work"' EXIT
}

# gen_mkfs N IMG SIZE MKE2FS-ARGS...: a fresh image file of SIZE made by
# mke2fs with a fixed time, and the N-th fixed UUID and hash seed.
gen_mkfs() {
	local n=$1 img=$2 size=$3

	shift 3
	rm -f "$img"
	truncate -s "$size" "$img"
	E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F \
		-U "6d6f6f72-6275-6c6b-0000-0000000000$n" \
		-E "hash_seed=6d6f6f72-6275-6c6b-0001-0000000000$n" \
		"$@" "$img"
}

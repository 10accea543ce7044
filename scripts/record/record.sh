#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record the kernel's answers for one image: OUTDIR/NAME.calls (lseek and
# FIEMAP through tests/probe, a fresh mount per open) and OUTDIR/NAME.golden
# (xfs_io / filefrag output, a fresh mount per command).  Everything comes
# from the kernel and its tools, never from e2map.  Needs root and loop mounts.
#
#   scripts/record/record.sh IMAGE.img[.gz|.bz2] OUTDIR
#
# Env: PROBE (tests/probe), SEED (1), GOLDENS_ONLY=1 (re-record NAME.golden
#      alone; NAME.calls is left as it is), GOLDENS=all|basic|none (all: the
#      variants for the first GOLDEN_VARIANT_FILES (12) files whose filefrag -v
#      output is under 64 KiB, basic seek/fiemap/filefrag for the others),
#      GOLDEN_MAXFILES (100), GOLDEN_MAXBYTES (524288: larger outputs are
#      left out), and queries.sh's MAXFILES (80 here), MAXEMPTY (3 here),
#      MAXEXT, RANDOM_CALLS, EXTRA_PATHS (default scripts/gen/NAME.paths when it
#      exists: paths find does not list, queried and given goldens too).
#
# Paths are opened as open(2) opens them on the mount, a final symlink
# followed, with the mount as the root (openat2 RESOLVE_IN_ROOT, also for
# the tools through probe --fresh-at), so an absolute symlink resolves
# inside the image as e2map resolves it.
set -euo pipefail
export LC_ALL=C

if [ $# -ne 2 ]; then
	echo "usage: $0 IMAGE.img[.gz|.bz2] OUTDIR" >&2
	exit 2
fi
src=$1
outdir=$2
here=$(cd "$(dirname "$0")" && pwd)
probe=${PROBE:-$here/../../tests/probe}
seed=${SEED:-1}
goldens=${GOLDENS:-all}
gmax=${GOLDEN_MAXFILES:-100}
gvar=${GOLDEN_VARIANT_FILES:-12}
gbytes=${GOLDEN_MAXBYTES:-524288}
export MAXFILES=${MAXFILES:-80} MAXEMPTY=${MAXEMPTY:-3}

[ -x "$probe" ] || { echo "record: no probe at $probe (make tests/probe)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "record: needs root (loop mounts)" >&2; exit 2; }

name=$(basename "$src")
name=${name%.gz}
name=${name%.bz2}
name=${name%.img}
tmp=$(mktemp -d /tmp/oracle-rec.XXXXXX)
mnt=$tmp/mnt
img=$tmp/$name.img
mkdir -p "$mnt" "$outdir"

cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

case "$src" in
*.gz) gzip -dc "$src" > "$img" ;;
*.bz2) bzip2 -dc "$src" > "$img" ;;
*) cp "$src" "$img" ;;
esac
sha=$(sha256sum "$img" | cut -d' ' -f1)

# Mount as mount -o loop,ro[,noload] would (probe --fresh: the same through
# mount(2), without the cost of mount(8)): blkid's type, noload where the
# filesystem takes it (journalled images), errors=remount-ro only when the
# image asks for a panic on errors.
fstype=$(blkid -p -o value -s TYPE "$img" 2>/dev/null || true)
case "$fstype" in ext2|ext3|ext4) ;; *)
	echo "record: $name: blkid says '${fstype:-nothing}', not ext2/3/4" >&2
	exit 1 ;;
esac
extra=""
if dumpe2fs -h "$img" 2>/dev/null | grep -Eqi '^(Errors behavior: *panic|Mount options:.*errors=panic)'; then
	extra="errors=remount-ro"
	echo "record: $name asks errors=panic; mounting with errors=remount-ro" >&2
fi
if "$probe" --fresh "$img" "$mnt" "$fstype" "noload${extra:+,$extra}" true 2>/dev/null; then
	data="noload${extra:+,$extra}"
elif "$probe" --fresh "$img" "$mnt" "$fstype" "$extra" true; then
	data=$extra
else
	echo "record: $name: the kernel refuses to mount it" >&2
	exit 1
fi
mopts="loop,ro${data:+,$data} ($fstype)"
mount -t "$fstype" -o "loop,ro${data:+,$data}" "$img" "$mnt"

# Throwaway mount: the query set and the golden file list.
extra=${EXTRA_PATHS:-$here/../gen/$name.paths}
[ -f "$extra" ] || extra=""
[ -n "${GOLDENS_ONLY:-}" ] ||
	EXTRA_PATHS=$extra "$here/queries.sh" "$img" "$mnt" "$seed" > "$tmp/queries"
{
	(cd "$mnt" && find . -xdev \( -type f -o -type d -o -type l -o -type p \
		-o -type s -o -type c -o -type b \) -print 2>/dev/null) |
		LC_ALL=C sort | sed 's|^\.||; s|^$|/|'
	[ -z "$extra" ] || grep -v '^[[:space:]]*\(#\|$\)' "$extra"
} | grep -v '[[:space:][:cntrl:]]' | awk -v m="$gmax" 'NR <= m' > "$tmp/gfiles" || true
(cd "$mnt" && find . -xdev -type p -print 2>/dev/null) | sed 's|^\.||' > "$tmp/gfifos" || true
umount "$mnt"

# The calls, a fresh mount per open.
if [ -z "${GOLDENS_ONLY:-}" ]; then
{
	echo "# e2map calls, recorded from the kernel by scripts/record/record.sh"
	echo "# kernel: $(uname -r)"
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# image: $name.img sha256 $sha"
	echo "# mount: $mopts"
	echo "# calls-format: 2 (open follows a final symlink; open-nofollow does not)"
	"$probe" --kernel-remount "$img" "$mnt" < "$tmp/queries"
} > "$tmp/calls"
mv "$tmp/calls" "$outdir/$name.calls"
fi

# One golden entry: ARGV (e2map form, IMAGE token), then the tool command
# with @ standing for the mounted file (probe --fresh-at: /proc/self/fd/9,
# PATH opened in the mount's root; MNT/PATH where that lookup fails).  A
# fresh mount for each.  The entry is "$ ARGV<TAB>OUTBYTES<TAB>STATUS<TAB>
# ERRBYTES", stdout, then stderr, the mount point taken out of both.
mntre=$(printf '%s' "$mnt" | sed 's/[.[\*^$]/\\&/g')
golden() {
	local argv=$1 path=$2 rc=0 nb ne
	shift 2
	local pathre
	pathre=$(printf '%s' "$path" | sed 's/[|&\\]/\\&/g')
	"$probe" --fresh-at "$img" "$mnt" "$fstype" "$data" "$path" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
	if [ $rc = 125 ] || [ $rc = 127 ] || [ $rc -gt 128 ]; then
		# 125: the mount failed; 127: no command; above 128: a signal.
		# 126 is filefrag's own: it exits with open(2)'s errno, and
		# ENOKEY is 126.
		echo "record: $name: '$*' on a fresh mount failed (status $rc)" >&2
		exit 1
	fi
	sed "s|/proc/self/fd/9|$pathre|g; s|$mntre/|/|g" "$tmp/out" > "$tmp/out2"
	sed "s|/proc/self/fd/9|$pathre|g; s|$mntre/|/|g" "$tmp/err" > "$tmp/err2"
	nb=$(wc -c < "$tmp/out2")
	ne=$(wc -c < "$tmp/err2")
	if [ "$nb" -gt "$gbytes" ]; then
		echo "record: $name: left out '$argv' ($nb bytes > GOLDEN_MAXBYTES)" >&2
		return 0
	fi
	printf '$ %s\t%d\t%d\t%d\n' "$argv" "$nb" "$rc" "$ne"
	cat "$tmp/out2" "$tmp/err2"
}

# filefrag's open(2) of a FIFO waits for a writer: hold one open (O_RDWR
# does not wait), so that it answers as e2map says it does then.
ff() {	# ff ARGV PATH FILEFRAG-OPTION...
	local argv=$1 p=$2
	shift 2
	if grep -qxF -- "$p" "$tmp/gfifos"; then
		golden "$argv" "$p" sh -c 'exec 3<>"$1"; shift; exec filefrag "$@"' \
			sh @ "$@" @
	else
		golden "$argv" "$p" filefrag "$@" @
	fi
}

: > "$tmp/golden"
if [ "$goldens" != none ]; then
	nvar=0
	while IFS= read -r p; do
		{
			golden "seek -a -r IMAGE $p 0" "$p" xfs_io -r -c 'seek -a -r 0' @
			golden "fiemap -v IMAGE $p" "$p" xfs_io -r -c 'fiemap -v' @
			ff "filefrag -v IMAGE $p" "$p" -v
		} >> "$tmp/golden"
		[ "$goldens" = all ] && [ $nvar -lt "$gvar" ] || continue
		[ "$(wc -c < "$tmp/out2")" -le 65536 ] || continue
		nvar=$((nvar + 1))
		{
			golden "seek -d IMAGE $p 0" "$p" xfs_io -r -c 'seek -d 0' @
			golden "seek -h -s IMAGE $p 0" "$p" xfs_io -r -c 'seek -h -s 0' @
			golden "fiemap -v IMAGE $p 0 8192" "$p" xfs_io -r -c 'fiemap -v 0 8192' @
			golden "fiemap -v IMAGE $p 20000" "$p" xfs_io -r -c 'fiemap -v 20000' @
			golden "fiemap -a -v IMAGE $p" "$p" xfs_io -r -c 'fiemap -a -v' @
			ff "filefrag -e IMAGE $p" "$p" -e
			ff "filefrag -k -v IMAGE $p" "$p" -k -v
			ff "filefrag -x -v IMAGE $p" "$p" -x -v
		} >> "$tmp/golden"
	done < "$tmp/gfiles"
	mv "$tmp/golden" "$outdir/$name.golden"
fi

if [ "$(sha256sum "$img" | cut -d' ' -f1)" != "$sha" ]; then
	echo "record: warning: $name.img changed while mounted read-only" >&2
fi
echo "record: $name: $(grep -c '^open' "$outdir/$name.calls" 2>/dev/null || echo 0) opens," \
	"$(grep -c '^\$ ' "$outdir/$name.golden" 2>/dev/null || echo 0) golden entries" >&2

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Generate a .calls query set (no results) for every file, directory and
# symlink of an image mounted at MNTDIR (a throwaway mount: the extent layout
# is read from it with filefrag -v; the answers are recorded later on fresh
# mounts).  Positions only need to be interesting, not right: the kernel
# answers whatever is asked.
#
#   scripts/record/queries.sh IMAGE MNTDIR [SEED] > queries
#
# Env: MAXFILES (300) files at most, chosen evenly; MAXEMPTY (all) empty
# regular files at most (they all answer alike); MAXEXT (16) extents per
# file used for boundary positions; RANDOM_CALLS (16) calls in the mixed group;
# EXTRA_PATHS, a file of more paths ("/a/b", one a line; '#' comments) that
# find does not list: through symlinks, with trailing slashes or dots.
#
# `open` follows a final symlink, as open(2) (calls-format 2): a symlink gets
# the whole query set of what it names, after an `open-nofollow` of its own.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 IMAGE MNTDIR [SEED]" >&2
	exit 2
fi
img=$1
mnt=${2%/}
seed=${3:-1}
maxfiles=${MAXFILES:-300}
maxext=${MAXEXT:-16}
nrandom=${RANDOM_CALLS:-16}

# ---- maxbytes (spec §6: ext4_max_size, ext4_max_bitmap_size) ----
sb=$(dumpe2fs -h "$img" 2>/dev/null)
bs=$(awk -F: '/^Block size:/ { gsub(/ /, "", $2); print $2 }' <<<"$sb")
features=$(awk -F: '/^Filesystem features:/ { print $2 }' <<<"$sb")
bits=0
while [ $((1 << bits)) -lt "$bs" ]; do bits=$((bits + 1)); done
huge=0
case " $features " in *" huge_file "*) huge=1 ;; esac

s_maxbytes=$(( ((1 << 32) - 1) << bits ))
if [ $huge = 0 ]; then
	ul=$(( (((1 << 32) - 1) >> (bits - 9)) << bits ))
	[ $ul -lt $s_maxbytes ] && s_maxbytes=$ul
fi

bitmap_maxbytes() {
	local ppb=$((1 << (bits - 2))) res=12 meta ul
	if [ $huge = 0 ]; then
		ul=$(( ((1 << 32) - 1) >> (bits - 9) ))
	else
		ul=$(( (1 << 48) - 1 ))
	fi
	res=$((res + ppb + ppb * ppb + ppb * ppb * ppb))
	meta=$((1 + 1 + ppb + 1 + ppb + ppb * ppb))
	if [ $((res + meta)) -gt $ul ]; then
		res=$ul
		ul=$((ul - 12))
		meta=1
		ul=$((ul - ppb))
		if [ $ul -lt $((ppb * ppb)) ]; then
			meta=$((meta + 1 + (ul + ppb - 1) / ppb))
			res=$((res - meta))
		else
			meta=$((meta + 1 + ppb))
			ul=$((ul - ppb * ppb))
			meta=$((meta + 1 + (ul + ppb - 1) / ppb + (ul + ppb * ppb - 1) / (ppb * ppb)))
			res=$((res - meta))
		fi
	fi
	echo $((res << bits))
}
b_maxbytes=$(bitmap_maxbytes)

# ---- the file list ----
list=$(mktemp /tmp/oracle-q.XXXXXX)
trap 'rm -f "$list" "$list".*' EXIT
maxempty=${MAXEMPTY:--1}
(cd "$mnt" && find . -xdev \( -type f -o -type d -o -type l -o -type p -o -type s \
	-o -type c -o -type b \) -printf '%y %s %p\0' 2>/dev/null || true) |
	while IFS= read -r -d '' e; do
		p=${e#* * }
		case "$p" in *[[:cntrl:]]*) continue ;; esac
		sz=${e#* }
		sz=${sz%% *}
		if [ "${e%% *}" = f ] && [ "$sz" = 0 ]; then
			[ "$maxempty" = 0 ] && continue
			maxempty=$((maxempty - 1))
		fi
		printf '%s\n' "$p"
	done | LC_ALL=C sort > "$list.all"
# Names the directory holds but that cannot even be looked up (a corrupt
# inode: find skips them): queried too, the kernel's error is the answer.
awk '{ print }' "$list.all" | while IFS= read -r d; do
	[ -d "$mnt/${d#./}" ] && [ ! -L "$mnt/${d#./}" ] || continue
	# A corrupt directory fails ls: then it lists nothing, and goes on.
	{ ls -1 -f "$mnt/${d#./}" 2>/dev/null || true; } | while IFS= read -r e; do
		case "$e" in .|..|*[[:cntrl:]]*) continue ;; esac
		[ -e "$mnt/${d#./}/$e" ] || [ -L "$mnt/${d#./}/$e" ] ||
			printf '%s/%s\n' "${d%/.}" "$e"
	done
done | sed 's|^\./|./|; s|^\.\./|./|' | LC_ALL=C sort > "$list.bad"
total=$(wc -l < "$list.all")
if [ "$total" -gt "$maxfiles" ]; then
	awk -v n="$total" -v m="$maxfiles" 'NR == 1 || int((NR - 1) * m / n) != int((NR - 2) * m / n)' "$list.all" > "$list"
else
	cp "$list.all" "$list"
fi
cat "$list.bad" >> "$list"
: > "$list.extra"
if [ -n "${EXTRA_PATHS:-}" ]; then
	grep -v '^[[:space:]]*\(#\|$\)' "$EXTRA_PATHS" | sed 's|^|.|' > "$list.extra"
fi
cat "$list.extra" >> "$list"

echo "# queries: $(basename "$img") bs=$bs s_maxbytes=$s_maxbytes bitmap_maxbytes=$b_maxbytes seed=$seed"
# Lookups that fail: a missing name, a file used as a directory.
first_file=$(cd "$mnt" && find . -xdev -type f -print 2>/dev/null | LC_ALL=C sort | head -1 || true)
printf 'open /e2map-no-such-file\nlseek 0 DATA\n'
if [ -n "$first_file" ]; then
	case "$first_file" in *[[:cntrl:]]*) ;; *)
		printf 'open %s/x\n' "$(printf '%s' "${first_file#.}" | sed 's/\\/\\x5c/g; s/#/\\x23/g; s/=/\\x3d/g')" ;;
	esac
fi

idx=0
while IFS= read -r rel; do
	idx=$((idx + 1))
	f="$mnt/${rel#./}"
	path=${rel#.}
	[ -z "$path" ] && path=/
	enc=$(printf '%s' "$path" | sed 's/\\/\\x5c/g; s/#/\\x23/g; s/=/\\x3d/g')
	if grep -qxF -- "$rel" "$list.bad"; then
		printf 'open %s\nlseek 0 DATA\nlseek 0 HOLE\nfiemap 0 max 0x0 500\n' "$enc"
		continue
	fi
	# A symlink, or an extra path: O_NOFOLLOW first (ELOOP for a final
	# symlink), then the queries below on what open(2) finds.
	if [ -L "$f" ] || grep -qxF -- "$rel" "$list.extra"; then
		printf 'open-nofollow %s\nlseek 0 DATA\n' "$enc"
	fi
	# FIFOs, sockets, devices: the VFS answers by type (or open refuses).
	if [ -p "$f" ] || [ -S "$f" ] || [ -c "$f" ] || [ -b "$f" ]; then
		printf 'open %s\n' "$enc"
		printf 'lseek %s\n' '0 DATA' '0 HOLE' '5 DATA' '0 SET' '5 CUR' \
			'0 END' '0 5' '-1 HOLE'
		printf 'fiemap %s\n' '0 max 0x0 500' '0 max 0x0 0' \
			'0 max 0x2 500' '0 max 0x80000000 500' '0 0 0x0 500'
		continue
	fi
	if [ -d "$f" ]; then type=d; else type=f; fi
	size=$(stat -c %s "$f" 2>/dev/null || echo 0)
	# Extents as "logical end unwritten" in bytes, from filefrag -v.
	# (Through a symlink, filefrag must not open a FIFO: it would block.)
	{ [ -f "$f" ] || [ -d "$f" ]; } && ff=$f || ff=/dev/null
	exts=$(filefrag -v "$ff" 2>/dev/null | awk -v bs="$bs" '
		/^ *[0-9]+: / {
			n = split($0, p, ":")
			split(p[2], r, /\.\./)
			l = r[1] + 0; e = r[2] + 1
			u = (p[n] ~ /unwritten/) ? 1 : 0
			printf "%.0f %.0f %d\n", l * bs, e * bs, u
		}' | head -n 200 || true)
	printf '%s\n' "$exts" | awk -v path="$enc" -v type="$type" -v size="$size" \
		-v bs="$bs" -v m1="$s_maxbytes" -v m2="$b_maxbytes" \
		-v seed="$((seed * 100003 + idx))" -v maxext="$maxext" \
		-v nrandom="$nrandom" -f <(cat <<'AWK'
function n(x) { return sprintf("%.0f", x) }
function open_() { print "open " path }
function seek(o, w) { print "lseek " n(o) " " w }
function seekraw(o, w) { print "lseek " o " " w }
function fm(s, l, f, c) { print "fiemap " n(s) " " (l == "max" ? l : n(l)) " " f " " c }
function fmraw(s, l, f, c) { print "fiemap " s " " l " " f " " c }
function addpt(x) { if (x >= 0 && !(x in seen)) { seen[x] = 1; pts[++np] = x } }
BEGIN { ne = 0 }
NF == 3 { el[ne] = $1; ee[ne] = $2; eu[ne] = $3; ne++ }
END {
	srand(seed)
	# Interesting positions.
	np = 0
	addpt(0); addpt(1); addpt(bs - 1); addpt(bs); addpt(bs + 1)
	addpt(size - 1); addpt(size); addpt(size + 1); addpt(20000)
	for (i = 0; i < ne; i++) {
		if (i >= maxext && i < ne - maxext / 2)
			continue
		addpt(el[i]); addpt(el[i] + 1); addpt(ee[i] - 1); addpt(ee[i])
		addpt(int((el[i] + ee[i]) / 2 / bs) * bs + 5)
		if (i + 1 < ne && ee[i] < el[i + 1])
			addpt(int((ee[i] + el[i + 1]) / 2))
	}

	# 1. SEEK walk as xfs_io seek -a -r 0 would go, then FIEMAP on the
	#    same handle (the walk warms the cache).
	open_()
	seek(0, "HOLE"); seek(0, "DATA")
	for (i = 0; i < ne && i < 4 * maxext; i++) {
		if (eu[i])
			continue
		seek(el[i], "HOLE"); seek(ee[i], "DATA")
	}
	seek(size, "HOLE"); seek(size, "DATA")
	fm(0, "max", "0x0", 500)

	# 2. SEEK_DATA / SEEK_HOLE at every interesting position.
	open_()
	seekraw(-1, "DATA"); seekraw(-1, "HOLE")
	seekraw("4611686018427387904", "DATA"); seekraw("4611686018427387904", "HOLE")
	for (i = 1; i <= np; i++) { seek(pts[i], "DATA"); seek(pts[i], "HOLE") }

	# 3. SET / CUR / END, limits.
	open_()
	seek(0, "CUR"); seek(12345, "SET"); seek(100, "CUR"); seek(-50, "CUR")
	seek(-20000, "CUR"); seek(0, "CUR"); seek(0, "END"); seek(-1, "END")
	seek(1, "END"); seek(-size - 1, "END"); seek(-size, "END")
	seek(m1 - 1, "SET"); seek(m1, "SET"); seek(m1 + 1, "SET")
	seek(m2 - 1, "SET"); seek(m2, "SET"); seek(m2 + 1, "SET")
	seek(5, "SET"); seek(m1, "CUR"); seek(m1 - 5, "CUR"); seek(1, "CUR")
	seek(-1, "SET"); seekraw("9223372036854775807", "SET")
	seekraw("-9223372036854775808", "SET"); seek(m1 - size, "END")
	seek(m1 - size + 1, "END"); seek(0, 5); seek(0, -1); seek(0, 99)
	seek(0, "CUR")

	# 4. Cold full range, then warm, then as xfs_io asks.
	open_()
	fm(0, "max", "0x0", 500); fm(0, "max", "0x0", 500)
	fm(0, "max", "0x1", 32)

	# 5. Count mode, then the listing.
	open_()
	fm(0, "max", "0x0", 0); fm(0, "max", "0x0", 500); fm(0, "max", "0x0", 0)

	# 6. Starts inside extents, then from 0.
	open_()
	fm(20000, "max", "0x0", 500); fm(0, "max", "0x0", 500)
	for (i = 0; i < ne && i < 3; i++) {
		if (ee[i] - el[i] <= bs)
			continue
		open_()
		fm(int((el[i] + ee[i]) / 2 / bs) * bs + 5, "max", "0x0", 500)
		fm(0, "max", "0x0", 500)
	}

	# 7. Ranges ending inside extents.
	open_(); fm(0, 10000, "0x0", 500); fm(0, "max", "0x0", 500)
	open_(); fm(8192, 31808, "0x0", 500)
	open_(); fm(5, 1, "0x0", 500); fm(0, 1, "0x0", 500)
	for (i = 0; i < ne && i < 2; i++) {
		open_()
		fm(0, int((el[i] + ee[i]) / 2) + 1, "0x0", 500)
		fm(el[i], bs, "0x0", 500)
	}

	# 8. Tiny arrays and continuation from the end of the returned extent.
	open_()
	fm(0, "max", "0x0", 1)
	if (ne > 0) fm(ee[0], "max", "0x0", 1)
	if (ne > 1) fm(ee[1], "max", "0x0", 1)
	fm(0, "max", "0x0", 2)
	open_()
	fm(0, "max", "0x0", 2)
	if (ne > 1) fm(ee[1], "max", "0x0", 2)
	if (ne > 3) fm(ee[3], "max", "0x0", 2)

	# 9. Flags.
	open_(); fm(0, "max", "0x4", 500); fm(0, "max", "0x0", 500)
	open_(); fm(0, "max", "0x1", 500); fm(0, "max", "0x5", 500)
	open_(); fm(0, "max", "0x2", 500); fm(0, "max", "0x2", 0)
	fm(1, "max", "0x2", 500); fm(100, 10, "0x2", 500); fm(4096, "max", "0x2", 500)
	fm(0, "max", "0x3", 1); fm(m1 + 1, "max", "0x2", 10); fm(0, 0, "0x2", 10)
	open_()
	fm(0, "max", "0x8", 500); fm(0, "max", "0x80000000", 500)
	fm(0, "max", "0x9", 500); fm(0, "max", "0xa", 500)
	fm(0, "max", "0xc", 500); fm(0, "max", "0x16", 500)
	fm(0, 0, "0x8", 500); fm(0, "max", "0xffffffff", 500)
	open_(); fm(0, 0, "0x6", 500); fm(0, "max", "0x0", 500)

	# 10. Lengths and starts at the limits; huge arrays.
	open_()
	fm(0, 0, "0x0", 500); fm(0, 1, "0x0", 500)
	fm(m1 - 1, "max", "0x0", 500); fm(m1, "max", "0x0", 500)
	fm(m1 + 1, "max", "0x0", 500); fm(m2 - 1, "max", "0x0", 500)
	fm(m2, "max", "0x0", 500); fm(m2 + 1, "max", "0x0", 500)
	fm(m2 - 1, 1, "0x0", 500); fm(m1 - bs, bs, "0x0", 500)
	fmraw("9223372036854775808", "max", "0x0", 500)
	fmraw("18446744073709551615", "max", "0x0", 500)
	fmraw(0, "18446744073709551614", "0x0", 500)
	fmraw(4096, "18446744073709551615", "0x0", 500)
	fm(size, "max", "0x0", 500); fm(size + bs, "max", "0x0", 500)
	open_()
	fm(0, "max", "0x0", 76695844); fm(0, "max", "0x0", 76695845)
	fm(0, "max", "0x4", 76695845); fm(0, "max", "0x0", 500)

	# 11. A random mixed sequence.
	open_()
	split("DATA HOLE DATA HOLE SET CUR END", wh, " ")
	split("0x0 0x0 0x0 0x1 0x4 0x2 0x0", fl, " ")
	split("0 1 2 3 500 500 32", cn, " ")
	for (k = 0; k < nrandom; k++) {
		p = pts[1 + int(rand() * np)]
		if (rand() < 0.3)
			p += int(rand() * 3 * bs) - bs
		if (rand() < 0.5) {
			seek(p < 0 ? 0 : p, wh[1 + int(rand() * 7)])
		} else {
			q = pts[1 + int(rand() * np)]
			len = (rand() < 0.4) ? "max" : n(q > p ? q - p + 1 : bs * (1 + int(rand() * 8)))
			fm(p < 0 ? 0 : p, len, fl[1 + int(rand() * 7)], cn[1 + int(rand() * 7)])
		}
	}
}
AWK
)
done < "$list"

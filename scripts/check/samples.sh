#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Whole disks against the kernel (Debian's forensics-samples, and any disk
# image given): for each ext partition of each disk, every file's `filefrag -v`, `xfs_io -c "fiemap -v"`
# and `xfs_io -c "seek -a -r 0"` on a fresh `mount -o loop,ro,noload,
# offset=,sizelimit=` of that partition, each on a mount of its own, equal
# e2map's through --partition N, byte for byte (the mount point cut from the
# kernel tools' paths).  A partition the kernel refuses to mount must be one
# e2map refuses too.  Exit 0, 1 on a difference, 77 when it cannot mount.
#   scripts/check/samples.sh [DISK.img|SAMPLE.xz...]
#                         (default: /usr/share/forensics-samples/fs.*.xz)
set -u -o pipefail
export LC_ALL=C
[ $# -gt 0 ] || set -- /usr/share/forensics-samples/fs.*.xz
here=$(cd "$(dirname "$0")" && pwd)
e2map=${E2MAP:-$here/../../cmd/e2map}
[ "$(id -u)" = 0 ] || { echo "check-samples: skipped: not root"; exit 77; }
work=$(mktemp -d /tmp/e2map-check-samples.XXXXXX)
mnt=$work/mnt
mkdir -p "$mnt"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$work"' EXIT
diffs=0 files=0

# Mount partition START/SIZE (sectors) of IMG read-only, without replay.
mount_part() {
	mount -o "loop,ro,noload,offset=$(($2 * 512)),sizelimit=$(($3 * 512))" \
		-t ext4 "$1" "$mnt" 2>/dev/null
}

# The kernel's output of "$@" on a fresh mount, the mount point cut.
kernel() {
	local img=$1 s=$2 z=$3

	shift 3
	mount_part "$img" "$s" "$z" || { echo "MOUNT FAILED"; return; }
	"$@" 2>&1 | sed "s|$mnt/|/|g; s|$mnt\$|/|"
	echo "status ${PIPESTATUS[0]}"
	umount "$mnt"
}

ours() {
	"$e2map" "$@" 2>&1
	echo "status $?"
}

compare() {
	local what=$1 a=$2 b=$3

	files=$((files + 1))
	if [ "$a" != "$b" ]; then
		diffs=$((diffs + 1))
		echo "check-samples: DIFF $what"
		diff <(echo "$a") <(echo "$b") | head -20
	fi
}

# Every file of partition N (START, SIZE) of IMG.
check_partition() {
	local img=$1 n=$2 s=$3 z=$4 f list

	if ! mount_part "$img" "$s" "$z"; then
		if "$e2map" check -q --partition "$n" "$img" >/dev/null 2>&1; then
			echo "check-samples: DIFF $img $n: the kernel refuses to mount it, e2map opens it"
			diffs=$((diffs + 1))
		else
			echo "check-samples: $img partition $n: refused by both: $("$e2map" check -q --partition "$n" "$img" 2>&1)"
		fi
		return
	fi
	list=$(cd "$mnt" && find . -xdev \( -type f -o -type d \) | sed 's|^\.||; s|^$|/|' | sort)
	umount "$mnt"
	while read -r f; do
		compare "$img $n filefrag -v $f" \
			"$(kernel "$img" "$s" "$z" filefrag -v "$mnt$f")" \
			"$(ours filefrag -v --partition "$n" "$img" "$f")"
		compare "$img $n fiemap -v $f" \
			"$(kernel "$img" "$s" "$z" xfs_io -r -c "fiemap -v" "$mnt$f")" \
			"$(ours fiemap -v --partition "$n" "$img" "$f")"
		compare "$img $n seek -a -r 0 $f" \
			"$(kernel "$img" "$s" "$z" xfs_io -r -c "seek -a -r 0" "$mnt$f")" \
			"$(ours seek -a -r --partition "$n" "$img" "$f" 0)"
	done <<<"$list"
}

probe=$work/probe.img
truncate -s 4M "$probe" && mkfs.ext4 -q -F "$probe" >/dev/null 2>&1
if ! mount -o loop,ro "$probe" "$mnt" 2>/dev/null; then
	echo "check-samples: skipped: loop mounts refused"
	exit 77
fi
umount "$mnt"

for src in "$@"; do
	[ -e "$src" ] || continue
	# A copy of its own: e2map warns of a mounted image, and other
	# tests may read the same disk meanwhile.
	img=$work/$(basename "$src" .xz)
	if [ "${src%.xz}" != "$src" ]; then
		img=$img.img
		xz -dc "$src" > "$img"
	else
		cp --sparse=always "$src" "$img"
	fi
	while read -r n s z; do
		check_partition "$img" "$n" "$s" "$z"
	done < <(sfdisk -d "$img" | sed -n 's/^.*[^0-9]\([0-9]*\) : start= *\([0-9]*\), size= *\([0-9]*\),.*/\1 \2 \3/p')
	rm -f "$img"
done
echo "check-samples: $files answers compared, $diffs differences"
[ "$diffs" = 0 ]

# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the live differentials against the kernel (scripts/check/
# kernel.sh, scripts/check/replay.sh): the start they share.
#
# skip_unless_mount NAME OPTIONS: unless this process is root and can make
# a scratch ext4 image and mount it with `mount -o OPTIONS`, print
# "NAME: skipped: cannot mount (...)" and exit 0: a run where mounting is
# refused skips cleanly.  The scratch image and mount are gone after.
skip_unless_mount() {
	local name=$1 opts=$2 t

	if [ "$(id -u)" != 0 ]; then
		echo "$name: skipped: cannot mount (not root)"
		exit 0
	fi
	t=$(mktemp -d /tmp/oracle-ck.XXXXXX)
	truncate -s 4M "$t/t.img"
	if ! mkfs.ext4 -q -F "$t/t.img" >/dev/null 2>&1 ||
	   ! mkdir -p "$t/m" || ! mount -o "$opts" "$t/t.img" "$t/m" 2>/dev/null; then
		rm -rf "$t"
		echo "$name: skipped: cannot mount (loop mounts not permitted)"
		exit 0
	fi
	umount "$t/m"
	rm -rf "$t"
}

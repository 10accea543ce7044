#!/bin/bash
# scripts/mkcorrupt.sh OUTDIR
#
# Damaged images for the kernel-parity tests: the kernel writes a healthy
# filesystem (loop mount, real pwrite), then single, documented faults are
# put in with debugfs (set_inode_field recomputes inode checksums, so only
# the intended check fails) or dd.  The kernel's answers on them are then
# recorded by scripts/record.sh like any other image.
#
#   corrupt-4k.img.gz (ext4, 4 KiB, metadata_csum), one file per fault:
#     /leaf_magic      middle extent leaf with a zeroed magic: FIEMAP from 0
#                      lists the first leaf and ends there with success
#     /leaf_csum       extent leaf whose checksum tail is wrong: EBADMSG
#     /depth6          root header claiming depth 6: EUCLEAN on lookup
#     /index_past_end  the root index points past the end of the filesystem
#     /inode_csum      inode checksum wrong: open fails with EBADMSG
#     /ok              an intact neighbour, still answered
set -eu -o pipefail
export LC_ALL=C
[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "mkcorrupt: must run as root" >&2; exit 1; }
out=$(cd "$1" && pwd)
work=$(mktemp -d /tmp/mkcorrupt-XXXXXX)
trap 'umount "$work/mnt" 2>/dev/null; rm -rf "$work"' EXIT
img=$work/corrupt-4k.img
mkdir "$work/mnt"

# Files of 700 one-block extents (every other block): three extent leaves.
write_sparse() {
	python3 - "$1" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(0, 1400, 2):
    os.pwrite(fd, b"e2map" * 819 + b"!", i * 4096)
os.fsync(fd)
os.close(fd)
PY
}

truncate -s 64M "$img"
E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F -t ext4 -b 4096 \
	-U 6d6f6f72-6275-6c6b-0000-000000000001 "$img"
mount -o loop "$img" "$work/mnt"
for f in leaf_magic leaf_csum depth6 index_past_end inode_csum ok; do
	write_sparse "$work/mnt/$f"
done
umount "$work/mnt"

dbg() { debugfs -w -R "$1" "$img" >/dev/null 2>&1; }
# Physical block of leaf N (1-based) of FILE, from debugfs's extent dump.
leaf() {
	debugfs -R "ex /$1" "$img" 2>/dev/null |
		awk -v n="$2" '$1 == "0/" && $3 == n "/" { print $8 }'
}
poke() {	# poke BLOCK OFFSET HEXBYTES
	printf "$3" | dd of="$img" bs=1 seek=$(($1 * 4096 + $2)) conv=notrunc \
		status=none
}

poke "$(leaf leaf_magic 2)" 0 '\x00\x00'
poke "$(leaf leaf_csum 2)" 4092 '\xde\xad\xbe\xef'
# i_block[1] = eh_max | eh_depth << 16: the root holds 4 entries.
dbg "sif /depth6 block[1] 0x00060004"
# ei_leaf_hi of the root's first index entry: a leaf far past the end.
dbg "sif /index_past_end block[5] 0x00007fff"
dbg "sif /inode_csum checksum 0x1234"
gzip -9 -n -c "$img" > "$out/corrupt-4k.img.gz"
echo "wrote $out/corrupt-4k.img.gz"

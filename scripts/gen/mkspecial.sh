#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkspecial.sh OUTDIR
#
# special-1k.img.gz: files that are neither regular files nor directories,
# made by the kernel (loop mount, mkfifo, mknod, bind(2)), for the answers
# the VFS gives by file type alone.  Only nodes whose answers do not depend
# on the host are made: a device whose major number no driver can have
# (4000, past CHRDEV_MAJOR_MAX and BLKDEV_MAJOR_MAX) fails open(2) with
# ENXIO anywhere.  Record with scripts/record/record.sh like any other image.
#
#   /file        6 bytes, a regular neighbour
#   /fifo        open works (xfs_io uses O_NONBLOCK; filefrag waits for a
#                writer): lseek ESPIPE, FIEMAP EOPNOTSUPP
#   /sock        a unix socket bound on the mount: open ENXIO
#   /chr_nodrv   character device 4000:1: open ENXIO
#   /blk_nodrv   block device 4000:1: open ENXIO
#   /dir/fifo    a FIFO one level down
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkspecial root "$@"
img=$work/special-1k.img
mkdir "$work/mnt"

truncate -s 4M "$img"
E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F -t ext4 -b 1024 \
	-U 6d6f6f72-6275-6c6b-0000-000000000003 "$img"
mount -o loop "$img" "$work/mnt"
m=$work/mnt
printf 'hello\n' > "$m/file"
mkfifo "$m/fifo"
mkdir "$m/dir"
mkfifo "$m/dir/fifo"
mknod "$m/chr_nodrv" c 4000 1
mknod "$m/blk_nodrv" b 4000 1
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$m/sock"
sync
umount "$m"
e2fsck -fn "$img" >/dev/null
gzip -9 -n -c "$img" > "$out/special-1k.img.gz"
echo "wrote $out/special-1k.img.gz"

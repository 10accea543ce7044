#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel, what e2map's path table and handle opens must
# match for one image (a fresh `mount -o loop,ro,noload`, or `loop,ro`
# where the filesystem refuses noload):
#
#   OUTDIR/NAME.paths.gz    every name the mount shows, as
#                           `find MNT -printf '%i /%P\0'`: "INO /PATH" records
#                           ended by NUL bytes (names may hold any byte but
#                           NUL and /), sorted; the root is "2 /"
#   OUTDIR/NAME.handles.gz  "INO RESULT" lines: open_by_handle_at(2) with
#                           O_RDONLY on every regular file and directory in
#                           use (what e2map_file_open_ino mirrors), RESULT 0
#                           or the errno name (an EA inode is ESTALE)
#
#   scripts/record/paths.sh IMAGE.img[.gz] OUTDIR
#
# Needs root, loop mounts, debugfs (the generation numbers the handles
# carry) and python3 (ctypes, for open_by_handle_at).
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start paths "$@"


# Inodes in use that are regular files or directories, with generations.
inodes() {
	local n
	n=$(dumpe2fs -h "$img" 2>/dev/null | awk -F: '/^Inode count:/ { print $2 + 0 }')
	seq 1 "$n" | sed 's/.*/stat <&>/' | debugfs -f - "$img" 2>/dev/null |
		awk '/^Inode: / { ino = $2; type = $4 }
		     /^Generation: / { gen = $2 }
		     /^Links: / { if ($2 > 0 && (type == "regular" || type == "directory"))
				       print ino, gen }'
}

fresh_mount
find "$mnt" -xdev -printf '%i /%P\0' | sort -z | gzip -9 -n >"$out/$name.paths.gz"
fresh_mount
inodes | python3 -c '
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class Handle(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int),
                ("ino", ctypes.c_uint), ("gen", ctypes.c_uint)]
mfd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for line in sys.stdin:
    ino, gen = map(int, line.split())
    h = Handle(8, 1, ino, gen)     # FILEID_INO32_GEN, as ext4 encodes it
    fd = libc.open_by_handle_at(mfd, ctypes.byref(h), os.O_RDONLY | os.O_NONBLOCK)
    if fd < 0:
        print(ino, errno.errorcode[ctypes.get_errno()])
    else:
        os.close(fd)
        print(ino, 0)
' "$mnt" | gzip -9 -n >"$out/$name.handles.gz"
umount "$mnt"
echo "record-paths: $name: $(gzip -dc "$out/$name.paths.gz" | tr -cd '\0' | wc -c) names," \
	"$(gzip -dc "$out/$name.handles.gz" | wc -l) handles"

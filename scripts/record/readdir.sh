#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel, what e2map_file_readdir must list for one image: on a
# fresh `mount -o loop,ro,noload` (or `loop,ro` where the filesystem
# refuses noload), every directory the mount shows read with getdents64(2)
# in 32 KiB calls, as it comes:
#
#   OUTDIR/NAME.readdir.gz  per directory "D /PATH" then one "INO TYPE NAME"
#                           per entry (TYPE is d_type), or "E ERRNO" where a
#                           getdents64 call failed (the listing stops there);
#                           every record ended by a NUL byte (names may hold
#                           any byte but NUL and /); directories in the order
#                           `find -print0 | sort -z` gives
#
#   scripts/record/readdir.sh IMAGE.img[.gz] OUTDIR
#
# Needs root, loop mounts and python3.
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start readdir "$@"
mount -o loop,ro,noload "$img" "$mnt" 2>/dev/null || mount -o loop,ro "$img" "$mnt"

# A directory find cannot read is listed all the same (its error below).
{ find "$mnt" -xdev -type d -printf '/%P\0' 2>/dev/null || true; } |
	sort -z | python3 -c '
import ctypes, errno, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
SYS_getdents64 = 217                    # x86-64
mnt = sys.argv[1].encode()
out = sys.stdout.buffer
buf = ctypes.create_string_buffer(32768)
for d in sys.stdin.buffer.read().split(b"\0"):
    if not d:
        continue
    out.write(b"D " + d + b"\0")
    try:
        fd = os.open(mnt + d, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as e:
        out.write(b"E " + errno.errorcode[e.errno].encode() + b"\0")
        continue
    while True:
        n = libc.syscall(SYS_getdents64, fd, buf, len(buf))
        if n < 0:
            out.write(b"E " + errno.errorcode[ctypes.get_errno()].encode() + b"\0")
            break
        if n == 0:
            break
        raw, off = buf.raw[:n], 0
        while off < n:
            ino, _, reclen, typ = struct.unpack_from("<QqHB", raw, off)
            nm = raw[off + 19:off + reclen].split(b"\0", 1)[0]
            out.write(b"%d %d " % (ino, typ) + nm + b"\0")
            off += reclen
    os.close(fd)
' "$mnt" | gzip -9 -n >"$out/$name.readdir.gz"
umount "$mnt"

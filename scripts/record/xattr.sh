#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel, what e2map_inode_xattrs must answer for one image:
# on a fresh `mount -o loop,ro,noload` (or `loop,ro` where the filesystem
# refuses noload), as root, for every path the mount shows (the order of
# `find -print0 | sort -z`), llistxattr(2) and then lgetxattr(2) of each
# name it lists:
#
#   OUTDIR/NAME.xattr.gz  per path "P /PATH", then either "L ERRNO" (the
#                         listing failed) or, per name in listing order,
#                         "N NAME" and "V HEX" (the value) or "E ERRNO";
#                         then, for names no listing shows (a prefix
#                         alone, system.data, an ACL, unknown ones), "G
#                         NAME" and lgetxattr's "V HEX" or "E ERRNO";
#                         every record ended by a NUL byte
#
#   scripts/record/xattr.sh IMAGE.img[.gz|.bz2] OUTDIR
#
# Needs root, loop mounts and python3.
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start xattr "$@"
mount -o loop,ro,noload "$img" "$mnt" 2>/dev/null || mount -o loop,ro "$img" "$mnt"

{ find "$mnt" -xdev -printf '/%P\0' 2>/dev/null || true; } |
	sort -z | python3 -c '
import errno, os, sys
mnt = sys.argv[1].encode()
out = sys.stdout.buffer
def err(e):       # EOPNOTSUPP is ENOTSUP here; e2map spells it so
    return errno.errorcode[e.errno].replace("ENOTSUP", "EOPNOTSUPP").encode()
probes = ["user.", "trusted.", "system.data", "system.posix_acl_access",
          "system.posix_acl_default", "bogus.x", "user.nosuch", "user." + "n" * 251]
def get(p, n, tag):
    out.write(tag + os.fsencode(n) + b"\0")
    try:
        v = os.getxattr(mnt + p, n, follow_symlinks=False)
        out.write(b"V " + v.hex().encode() + b"\0")
    except OSError as e:
        out.write(b"E " + err(e) + b"\0")
for p in sys.stdin.buffer.read().split(b"\0"):
    if not p:
        continue
    out.write(b"P " + p + b"\0")
    try:
        names = os.listxattr(mnt + p, follow_symlinks=False)
    except OSError as e:
        out.write(b"L " + err(e) + b"\0")
        continue
    for n in names:
        get(p, n, b"N ")
    for n in probes:
        get(p, n, b"G ")
' "$mnt" | gzip -9 -n >"$out/$name.xattr.gz"
umount "$mnt"

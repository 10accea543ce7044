#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel, what `e2map scan --hash md5,sha1,sha256` must
# print for one image: every regular file `find -type f` lists on a fresh
# `mount -o loop,ro,noload` (or `loop,ro`), opened and read(2) to its end
# in calls of 128 KiB as md5sum, sha1sum and sha256sum read it, its three
# digests or the errno of the open or the first failing read; files above
# MAXSIZE bytes (default 16 MiB: a sparse 16 TiB file is hours of zeroes)
# are left out, and the test passes the same limit as --hash-max:
#
#   OUTDIR/NAME.hashes.gz  NUL-terminated fields: "e2map-hashes 1 MAXSIZE",
#                          then per file "/PATH" and "MD5 SHA1 SHA256" or
#                          "error ENAME"
#
#   scripts/record/hashes.sh IMAGE.img[.gz|.bz2] OUTDIR
#
# Needs root, loop mounts and python3.
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start hashes "$@"
fresh_mount
max=${MAXSIZE:-16777216}
{ find "$mnt" -xdev -type f -size -"$((max + 1))"c -printf '/%P\0' \
	2>/dev/null || true; } | sort -z >"$tmp/paths"
cat >"$tmp/hashes.py" <<'PY'
import errno, hashlib, os, sys

mnt, maxsize = sys.argv[1].encode(), sys.argv[2]
out = sys.stdout.buffer
out.write(b"e2map-hashes 1 %s\0" % maxsize.encode())
for path in sys.stdin.buffer.read().split(b"\0"):
    if not path:
        continue
    hs = [hashlib.md5(), hashlib.sha1(), hashlib.sha256()]
    try:
        fd = os.open(mnt + path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            while True:
                b = os.read(fd, 131072)
                if not b:
                    break
                for h in hs:
                    h.update(b)
        finally:
            os.close(fd)
        rec = " ".join(h.hexdigest() for h in hs).encode()
    except OSError as e:
        rec = b"error " + errno.errorcode.get(e.errno, "E?").encode()
    out.write(path + b"\0" + rec + b"\0")
PY
python3 "$tmp/hashes.py" "$mnt" "$max" <"$tmp/paths" >"$tmp/out"
umount "$mnt"
gzip -9 -n <"$tmp/out" >"$out/$name.hashes.gz"

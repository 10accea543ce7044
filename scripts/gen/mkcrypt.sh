#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkcrypt.sh OUTDIR
#
# crypt-4k.img.gz: an encrypted directory (fscrypt v1 policy, e4crypt)
# whose key is gone when the image is mounted again, so the kernel shows
# its names as no-key names.  Names of 150 bytes and more have ciphertext
# past 149 bytes: their no-key names carry the first 149 bytes and the
# SHA-256 of the rest, and a lookup matches them by that digest, probing
# the htree with the dirhash the name carries (fscrypt_match_name).
#   /plain/file            not encrypted
#   /edir/long-NNN-000...  80 long names: an htree directory
#   /edir/sN               10 short names (/edir/s1 holds a block; the
#                          other files are empty)
#   /edir/small/x000...    2 long names in a one-block (linear) directory
#   /edir/dir-000...       a long-named directory, a long and a short
#                          name in it
#   /edir/link-000...      a long-named symlink
# The key lives in a session keyring of the generator's own (e4crypt
# new_session), dropped when it ends.  Record with record/record.sh,
# scan.sh, read.sh and xattr.sh (make-testdata.sh).
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkcrypt root "$@"
command -v e4crypt >/dev/null || { echo "mkcrypt: no e4crypt" >&2; exit 1; }
img=$work/crypt-4k.img
m=$work/mnt
mkdir "$m"

zeros() { printf "%s%0${2}d" "$1" 0; }

# No journal: its copies of the blocks the encryption nonces make random
# would be most of the compressed image.
gen_mkfs 81 "$img" 8M -t ext4 -b 4096 -O encrypt,^has_journal
mount -o loop "$img" "$m"
mkdir "$m/plain" "$m/edir"
printf 'plain\n' > "$m/plain/file"
(
	e4crypt new_session >/dev/null
	echo e2map-no-key | e4crypt add_key -S "0x$(printf '%032d' 81)" \
		"$m/edir" >/dev/null
	cd "$m/edir"
	# Empty: an encrypted file's blocks are random bytes, which would
	# be most of the compressed image.
	for i in $(seq 1 80); do
		: > "$(zeros "long-$(printf %03d "$i")-" $((140 + i)))"
	done
	for i in $(seq 1 10); do : > "s$i"; done
	printf 'some data\n' > s1
	mkdir small
	for i in 1 2; do : > "small/$(zeros "x$i" 190)"; done
	d=$(zeros dir- 220)
	mkdir "$d"
	: > "$d/$(zeros in- 160)"
	: > "$d/short"
	ln -s "$(zeros t 100)" "$(zeros link- 180)"
)
umount "$m"
gzip -9 -n -c "$img" > "$out/crypt-4k.img.gz"
echo "wrote $out/crypt-4k.img.gz"

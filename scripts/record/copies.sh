#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record, from the kernel's mount, the tree `cp -a` copies out of one image,
# which `e2map extract -r -p` and cp -a of `e2map mount` must make the same
# (tests/test_copies.c): a fresh `mount -o loop,ro,noload` (or `loop,ro`),
# cp -a of its root into a scratch directory, then
#
#   OUTDIR/NAME.cp.gz  "# cp-exit STATUS", a line "F<TAB>/PATH" for each
#                      path cp reported a failure on, then the copy as
#                      scripts/check/tree-list.py --no-regions lists it
#
# With TOOL=tar, the tree GNU tar archives from the mount instead (`tar
# --format=posix --sparse --acls --xattrs`, then `tar -xp` of that archive
# into a scratch directory), which `e2map tar` must archive the same:
#
#   OUTDIR/NAME.tar.gz "# tar-exit STATUS" (the archiving tar's), the
#                      paths it failed on as above, then the extracted
#                      tree as tree-list.py --no-regions lists it
#
#   [TOOL=tar] scripts/record/copies.sh IMAGE.img[.gz] OUTDIR
#
# The regions are left out: cp -a copies a file whose st_blocks cover its
# size as data, zeroes and all, where e2map keeps the kernel's SEEK_DATA
# holes (docs/kernel-differences.md).  Needs root and loop mounts.
set -euo pipefail
export LC_ALL=C

. "$(dirname "$0")/../lib/record.sh"
record_start copies "$@"
here=$(cd "$(dirname "$0")" && pwd)

fresh_mount
mkdir "$tmp/copy"
status=0
if [ "${TOOL:-cp}" = tar ]; then
	tar --format=posix --sparse --acls --xattrs --xattrs-include='*' \
		-C "$mnt" -cf "$tmp/a.tar" . 2>"$tmp/err" || status=$?
	umount "$mnt"
	tar -xpf "$tmp/a.tar" -C "$tmp/copy" --acls --xattrs \
		--xattrs-include='*'
	{
		echo "# tar-exit $status"
		# "tar: ./PATH: Cannot open: ..." and the like ("." is the
		# root; a directory's own "./DIR/" loses its slash); a socket
		# ignored and a warning are no failures.
		sed -n -e '/: Warning: /d' -e 's#/: #: #' \
			-e 's#^tar: \.\(/.*\): Cannot [a-z]*: .*#F\t\1#p' \
			-e 's#^tar: \.: Cannot [a-z]*: .*#F\t/#p' \
			-e 's#^tar: \.\(/.*\): File removed before we read it$#F\t\1#p' \
			"$tmp/err" | sort -u
		python3 "$here/../check/tree-list.py" --no-regions "$tmp/copy"
	} | gzip -9 -n > "$out/$name.tar.gz"
	rm -rf "$tmp/copy" "$tmp/a.tar"
	exit 0
fi
cp -a "$mnt/." "$tmp/copy/" 2>"$tmp/err" || status=$?
umount "$mnt"
{
	echo "# cp-exit $status"
	# cp's lines name the mount's path in quotes ('...' or '...'); its
	# root is "$mnt/.".
	sed -n -e "s#.*$mnt/\./\([^'’]*\)['’].*#F\t/\1#p" \
		-e "s#.*$mnt/\.['’].*#F\t/#p" "$tmp/err" | sort -u
	python3 "$here/../check/tree-list.py" --no-regions "$tmp/copy"
} | gzip -9 -n > "$out/$name.cp.gz"
rm -rf "$tmp/copy"

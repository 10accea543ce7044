#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rebuild testdata/ from nothing with the kernel on this machine: the
# images (mkimages.sh, mkcorrupt.sh, mkspecial.sh; mkzone.sh, mkhash.sh,
# mklinear.sh and mkcasefold.sh record their own), then the kernel's answers for every
# file of every image (record.sh, no caps), kept gzip-compressed as
# NAME.calls.gz and NAME.golden.gz.  Needs root and loop mounts; a few
# minutes.  The corpus recordings (testdata/corpus) are made separately:
# scripts/record/record.sh CORPUS_IMAGE testdata/corpus with GOLDENS=none, and
# scripts/record/read.sh and scripts/record/xattr.sh CORPUS_IMAGE
# testdata/corpus.
# Then, for every image the kernel mounts, what scan must report
# (record/scan.sh: NAME.scan.gz) and read(2) of every path (record/read.sh:
# NAME.read.gz) and the xattrs of every path (record/xattr.sh:
# NAME.xattr.gz).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../testdata}
"$here/mkimages.sh" "$out"
"$here/mkcorrupt.sh" "$out"
"$here/mkspecial.sh" "$out"
"$here/mkiflags.sh" "$out"
"$here/mkcrypt.sh" "$out"
"$here/mktimes.sh" "$out"	# scan's records only (record/scan.sh below)
"$here/mkxattr.sh" "$out"	# xattrs only (record/xattr.sh below)
RECORD=1 "$here/mkzone.sh" "$out"	# recorded there, with fewer goldens
RECORD=1 "$here/mkmetabg.sh" "$out"	# recorded there, statfs too
for img in "$out"/*.img.gz; do
	name=$(basename "$img" .img.gz)
	case $name in hash-*|cf-*|zone-*|metabg-*|ovh-*|linear-*|times*|xattr-*) continue ;; esac	# recorded by their scripts, or scan only
	MAXFILES=1000000 MAXEMPTY=1000000 GOLDEN_MAXFILES=1000000 \
		GOLDEN_MAXBYTES=1000000000 "$here/../record/record.sh" "$img" "$out"
	gzip -9 -n -f "$out/$name.calls" "$out/$name.golden"
done
"$here/mkhash.sh" "$out"
"$here/mklinear.sh" "$out"
"$here/mkcasefold.sh" "$out"
for img in "$out"/*.img.gz; do
	# Images the kernel refuses to mount (cf-*, mount-*) have none.
	"$here/../record/scan.sh" "$img" "$out" 2>/dev/null ||
		echo "record-scan: $(basename "$img"): not mounted, skipped"
	"$here/../record/read.sh" "$img" "$out" 2>/dev/null ||
		echo "record-read: $(basename "$img"): not mounted, skipped"
	"$here/../record/xattr.sh" "$img" "$out" 2>/dev/null ||
		echo "record-xattr: $(basename "$img"): not mounted, skipped"
done
# The past of an image (deleted, overwritten, renamed): ground truth of its
# own (NAME.past.jsonl.gz), nothing recorded.
"$here/mkpast.sh" "$out"

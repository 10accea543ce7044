#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record what The Sleuth Kit finds of the past in one image, for
# tests/test_past.c to hold `e2map scan -d` to (a superset of fls's deleted
# names, the same free inodes as ils):
#
#   OUTDIR/NAME.fls.gz  "# fls VERSION image SHA256", then the deleted
#                       lines of `fls -r -d -m /` (body format; the
#                       $OrphanFiles lines left out: ils has them)
#   OUTDIR/NAME.ils.gz  "# ils VERSION image SHA256", then `ils`'s listing
#                       (removed inodes: unallocated with a ctime) without
#                       its host and start-time lines
#
# Where TSK fails (exit status not 0, or TIMEOUT seconds passed), the file
# holds "# failed: STATUS: first line of stderr" after the first line.
#
#   scripts/record/tsk.sh IMAGE.img[.gz|.bz2] OUTDIR
#   for f in testdata/*.img.gz; do scripts/record/tsk.sh $f testdata; done
#   for f in testdata/corpus/e2fsprogs/*.img.gz; do
#           scripts/record/tsk.sh $f testdata/corpus; done
#
# Needs sleuthkit (fls, ils); no root: TSK reads the image file.
set -euo pipefail
export LC_ALL=C TZ=UTC

command -v fls >/dev/null ||
	{ echo "record-tsk: needs The Sleuth Kit (apt-get install sleuthkit)" >&2
	  exit 2; }
# shellcheck source=scripts/lib/record.sh
. "$(dirname "$0")/../lib/record.sh"
RECORD_ROOT=no record_start tsk "$@"
sum=$(sha256sum "$img" | cut -d' ' -f1)
version=$(fls -V | awk '{print $NF}')
timeout=${TIMEOUT:-600}

# record TOOL FILTER ARGS...: TOOL's output through FILTER into NAME.TOOL.gz
record() {
	local tool=$1 filter=$2 status=0
	shift 2
	timeout "$timeout" "$tool" "$@" "$img" >"$tmp/o" 2>"$tmp/e" ||
		status=$?
	{
		printf '# %s %s image %s\n' "$tool" "$version" "$sum"
		if [ "$status" != 0 ]; then
			printf '# failed: %s: %s\n' "$status" \
				"$(head -n 1 "$tmp/e" | tr -d '\r')"
		else
			$filter <"$tmp/o"
		fi
	} | gzip -9n >"$out/$name.$tool.gz"
	echo "$name.$tool: status $status, $(zcat "$out/$name.$tool.gz" |
		grep -vc '^#' || true) lines"
}

fls_deleted() { grep -a ' (deleted' | grep -av '^0|/\$OrphanFiles/' || true; }
ils_listing() { grep -av '^class|host\|^ils|' || true; }

record fls fls_deleted -r -d -m /
record ils ils_listing

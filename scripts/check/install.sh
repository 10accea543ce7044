#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# After `make install DESTDIR=ROOT`: build programs against the installed
# files the way a user would, with pkg-config only, and run them.
#   - `pkg-config --cflags e2map` names e2map's include directory only
#     (nothing of libext2fs's: a user of e2map.h does not include them);
#   - a C program and the same as C++98 link against libe2map.so;
#   - a C program links fully static with `pkg-config --static --libs`;
#   - the Python package imports from PYTHONDIR and uses the installed
#     library;
#   - each one answers as the installed e2map does on the sample image.
#
#   DESTDIR=ROOT PREFIX=... LIBDIR=... INCLUDEDIR=... PKGCONFIGDIR=... \
#   BINDIR=... PYTHONDIR=... PYTHON=... scripts/check/install.sh [EXTRA_CFLAGS]
# EXTRA_CFLAGS (the sanitizer flags of the build) go on every compile; with
# them the static link is skipped (the sanitizers do not link statically).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
extra=${1:-}
CC=${CC:-cc}
CXX=${CXX:-c++}
fail() { echo "check-install: $*" >&2; exit 1; }

[ -f "$DESTDIR$PKGCONFIGDIR/e2map.pc" ] || fail "no $DESTDIR$PKGCONFIGDIR/e2map.pc"
tmp=$(mktemp -d /tmp/e2map-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$DESTDIR$PKGCONFIGDIR"
export PKG_CONFIG_SYSROOT_DIR="$DESTDIR"

cflags=$(pkg-config --cflags e2map | sed "s/ *$//")
[ "$cflags" = "-I$DESTDIR$INCLUDEDIR" ] ||
	fail "pkg-config --cflags e2map gives '$cflags', not -I$DESTDIR$INCLUDEDIR"
libs=$(pkg-config --libs e2map)
static=$(pkg-config --static --libs e2map)

# Valid C89, C99 and C++98: SEEK_DATA from argv[3] in argv[2] of image
# argv[1], by the library the header was installed with.
cat > "$tmp/prog.c" <<'PROG'
#include <e2map.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	e2map_t *m = NULL;
	e2map_file_t *f = NULL;
	long long off;
	int err;

	if (argc != 4 || strcmp(e2map_version(0, 0, 0), E2MAP_VERSION))
		return 2;
	if ((err = e2map_open(argv[1], NULL, &m)) < 0 ||
	    (err = e2map_file_open(m, argv[2], &f)) < 0) {
		fprintf(stderr, "%s\n", e2map_strerror(err));
		return 1;
	}
	off = e2map_file_lseek(f, atol(argv[3]), E2MAP_SEEK_DATA);
	printf("DATA\t%lld\n", off);
	e2map_file_close(f);
	e2map_close(m);
	return off < 0;
}
PROG

gzip -dc "$here/testdata/sample.img.gz" > "$tmp/sample.img"
want=$("$DESTDIR$BINDIR/e2map" seek -d "$tmp/sample.img" /sparse.bin 65536 | tail -n 1)
[ "$want" = "$(printf 'DATA\t1048576')" ] || fail "installed e2map answers '$want'"

run() {
	name=$1
	shift
	got=$("$@" "$tmp/sample.img" /sparse.bin 65536) || fail "$name failed"
	[ "$got" = "$want" ] || fail "$name answers '$got', e2map '$want'"
	echo "check-install: $name: ok"
}

# $extra and $cflags/$libs are word lists: split on purpose.
# shellcheck disable=SC2086
$CC -std=c99 -Wall -Wextra -Werror $extra $cflags -o "$tmp/prog" "$tmp/prog.c" $libs
run "C, shared" env LD_LIBRARY_PATH="$DESTDIR$LIBDIR" "$tmp/prog"
# shellcheck disable=SC2086
$CC -std=c89 -Wall -Wextra -Werror $extra $cflags -o "$tmp/prog89" "$tmp/prog.c" $libs
run "C89, shared" env LD_LIBRARY_PATH="$DESTDIR$LIBDIR" "$tmp/prog89"
# shellcheck disable=SC2086
$CXX -x c++ -std=c++98 -Wall -Wextra -Werror $extra $cflags -o "$tmp/prog++" \
	"$tmp/prog.c" -x none $libs
run "C++98, shared" env LD_LIBRARY_PATH="$DESTDIR$LIBDIR" "$tmp/prog++"

# The Python package, from its installed place, on the installed library
# (its extension's RUNPATH is LIBDIR; DESTDIR moves both).
py=${PYTHON:-/usr/bin/python3}
pydir=$DESTDIR$PYTHONDIR
[ -f "$pydir/e2map/__init__.py" ] && [ -f "$pydir/e2map/py.typed" ] ||
	fail "no e2map package in $pydir"
cat > "$tmp/prog.py" <<'PROG'
import os, sys
import e2map
with e2map.open(sys.argv[1]) as img, img.open(sys.argv[2]) as f:
    print("DATA\t%d" % f.seek(int(sys.argv[3]), os.SEEK_DATA))
PROG
if [ -n "$extra" ]; then
	echo "check-install: Python skipped (sanitizer build: see make check-python)"
else
	run "Python" env LD_LIBRARY_PATH="$DESTDIR$LIBDIR" PYTHONPATH="$pydir" \
		PYTHONDONTWRITEBYTECODE=1 "$py" "$tmp/prog.py"
fi

if [ -n "$extra" ]; then
	echo "check-install: static link skipped (sanitizer build)"
	exit 0
fi
# shellcheck disable=SC2086
$CC -std=c99 -static $cflags -o "$tmp/prog-static" "$tmp/prog.c" $static \
	2> "$tmp/static.err" || { cat "$tmp/static.err" >&2; fail "static link failed"; }
ldd "$tmp/prog-static" 2>&1 | grep -q "not a dynamic executable" ||
	fail "the static program is dynamic: $(ldd "$tmp/prog-static")"
run "C, static ($static)" "$tmp/prog-static"

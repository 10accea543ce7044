#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The compiler and linker flags of e2map's libraries, as make includes them
# (BUILD/config.mk).  Asked only once the libraries are there: on a fresh
# Debian machine scripts/deps.sh installs them first, and make rereads the
# Makefile with the answers (GNU make remakes an included makefile, then
# restarts), so the first `make run` builds as the second would.
#
#   scripts/config.sh > BUILD/config.mk
set -e
here=$(dirname "$0")

# libext2fs and libcom_err (the filesystem); util-linux's libblkid and the
# libyal readers of E01, VMDK, VHD, QCOW (disks and containers); OpenSSL's
# libcrypto (e2map_file_digest); jansson
# (the CLI's JSON), libarchive (e2map tar), fuse3 (e2map mount).
lib_pkgs="ext2fs com_err blkid libewf libvmdk libbfio libvhdi libqcow libcrypto"
cli_pkgs="jansson libarchive fuse3"

if ! command -v pkg-config >/dev/null 2>&1 ||
   ! pkg-config --exists $lib_pkgs $cli_pkgs; then
	"$here/deps.sh" build >&2
fi
missing=""
for p in $lib_pkgs $cli_pkgs; do
	pkg-config --exists "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "e2map: pkg-config finds no$missing (scripts/deps.sh installs them on Debian)" >&2
	exit 1
fi

flags() { # VAR PKG...: VAR_CFLAGS and VAR_LIBS
	var=$1; shift
	echo "${var}_CFLAGS := $(pkg-config --cflags "$@")"
	echo "${var}_LIBS := $(pkg-config --libs "$@")"
}
echo "# made by scripts/config.sh: remove it to ask pkg-config again"
flags EXT2 $lib_pkgs
# For e2map.pc: a static link of libe2map.a needs these; users of e2map.h
# do not need libext2fs's headers, so no Requires.private (its Cflags
# would come with pkg-config --cflags e2map).
echo "EXT2_STATIC_LIBS := $(pkg-config --static --libs $lib_pkgs) -pthread"
flags JANSSON jansson
flags ARCHIVE libarchive
flags FUSE fuse3

# The Python binding (python/): Debian's python3 with python3-cffi and
# python3-dev, never a python3 earlier on PATH (no PyPI here: its cffi is
# Debian's).  Its headers, the extension's file suffix, and the
# interpreter's own dist-packages under PREFIX, where Debian's python3
# looks (/usr/local/lib/python3.11/dist-packages).
py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import cffi' 2>/dev/null || ! [ -x "$py-config" ]; then
	"$here/deps.sh" build >&2
fi
echo "PYTHON := $py"
echo "PY_CFLAGS := $("$py-config" --includes)"
echo "PY_EXT := $("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
echo "PY_VER := $("$py" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')"

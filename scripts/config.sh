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

# Linked: libext2fs and libcom_err (the filesystem), util-linux's libblkid
# (partition tables), jansson (the CLI's JSON).  Loaded when an image or a
# command needs them (lib/base/dl.c, cmd/dl.c say why), so compiled against
# and never linked: the libyal readers of E01, VMDK, VHD, QCOW, OpenSSL's
# libcrypto (digests), libarchive (e2map tar), fuse3 (e2map mount).
link_pkgs="ext2fs com_err blkid"
load_pkgs="libewf libvmdk libbfio libvhdi libqcow libcrypto"
cli_pkgs="jansson"
cli_load_pkgs="libarchive fuse3"
lib_pkgs="$link_pkgs $load_pkgs"
if ! command -v pkg-config >/dev/null 2>&1 ||
   ! pkg-config --exists $lib_pkgs $cli_pkgs $cli_load_pkgs; then
	"$here/deps.sh" build >&2
fi
missing=""
for p in $lib_pkgs $cli_pkgs $cli_load_pkgs; do
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
# The soname of PKG's library, as the linker would have recorded it: what
# dlopen asks for (E2MAP_SO_<PKG>, e.g. E2MAP_SO_LIBEWF="libewf.so.2").
soname() {
	lib=$(pkg-config --libs-only-l "$1" | awk '{ print substr($1, 3) }')
	dir=$(pkg-config --variable=libdir "$1")
	so=$(objdump -p "$dir/lib$lib.so" | awk '$1 == "SONAME" { print $2 }')
	if [ -z "$so" ]; then
		echo "e2map: no soname for $1 in $dir/lib$lib.so" >&2
		exit 1
	fi
	echo "-DE2MAP_SO_$(echo "$1" | tr a-z A-Z)='\"$so\"'"
}
sonames() {
	for p in "$@"; do printf ' %s' "$(soname "$p")"; done
}
echo "# made by scripts/config.sh: remove it to ask pkg-config again"
echo "EXT2_CFLAGS := $(pkg-config --cflags $lib_pkgs)"
echo "LIB_LOAD_CFLAGS :=$(sonames $load_pkgs)"
echo "EXT2_LIBS := $(pkg-config --libs $link_pkgs)"
# For e2map.pc: a static link of libe2map.a needs these; users of e2map.h
# do not need libext2fs's headers, so no Requires.private (its Cflags
# would come with pkg-config --cflags e2map).
echo "EXT2_STATIC_LIBS := $(pkg-config --static --libs $link_pkgs) -pthread"
flags JANSSON jansson
echo "ARCHIVE_CFLAGS := $(pkg-config --cflags libarchive)"
echo "FUSE_CFLAGS := $(pkg-config --cflags fuse3)"
echo "CLI_LOAD_CFLAGS :=$(sonames $cli_load_pkgs)"

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

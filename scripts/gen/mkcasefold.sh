#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkcasefold.sh OUTDIR
#
# Images with casefolded directories (the casefold feature, chattr +F) and
# what a lookup in them must answer, as OUTDIR/NAME.img.gz and
# OUTDIR/NAME.lookups (lines "PATH = INODE" or "PATH = -ERRNO", paths
# escaped as in .calls, gzip'd; tests/test_casefold.c replays them):
#
#   cf-1k         ext4, 1 KiB blocks, non-strict utf8-12.1: /cf (+F, one
#                 block) with names needing casefolding or normalisation
#                 (Straße, café in NFC, école in NFD, σίσυφος, the "ﬁ"
#                 ligature, ...) and two that are not UTF-8; /cf/Sub (+F);
#                 /cf/big (+F, an htree of 1,200 names hashed casefolded);
#                 /plain (not +F) with file.txt.
#   cf-strict-1k  strict mode (names that are not UTF-8 are refused) and
#                 inline_data: /cf (+F, inline), /plain with such a name.
#
# The trees are made with mke2fs -d, the +F flags set with debugfs, the
# htree indexes rebuilt by e2fsck -fyD (which hashes casefolded names as
# the kernel does), and names that are not UTF-8 added with debugfs.
#
# Expected answers: where the kernel can mount casefolded filesystems
# (CONFIG_UNICODE: /sys/fs/ext4/features/casefold), from the kernel itself:
# each path is lstat'ed on a ro,noload mount, and scripts/record/record.sh records
# NAME.calls and NAME.golden too.  Elsewhere (this project's reference
# kernel lacks CONFIG_UNICODE and refuses to mount them) they are derived
# without e2map: inode numbers from debugfs `ls -p`, names matched as the
# kernel's generic_ci_match does: the same bytes, or equal after NFD and
# full case folding (CaseFolding.txt C+F, Python's unicodedata); a name
# that is not valid UTF-8 only by its bytes; in strict mode such a lookup
# name in a casefolded directory is EINVAL.  Where both exist, the script
# prints where they differ (the kernel's answers are kept).
#
# Needs root only for the kernel path (loop mounts); e2fsprogs, python3.
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkcasefold any "$@"
mkdir "$work/mnt"
py=$work/cf.py
export E2FSPROGS_FAKE_TIME=1700000000

cat > "$py" <<'PY'
import errno, functools, os, re, subprocess, sys, unicodedata

NFD = lambda s: unicodedata.normalize("NFD", s)
NFC = lambda s: unicodedata.normalize("NFC", s)
WORDS = ["Äpfel", "Ωmega", "Жук", "Straße", "Élan", "mIxEd"]
SMALL = ["file.txt", NFC("café"), NFD("école"), "Straße", "σίσυφος",
         "\ufb01nal", "kelvin", "Ωmega.dat"]
BAD = [b"A\xff", b"b\xfe\xfe"]          # not UTF-8: added by debugfs


def big_names():
    return ["%s_%04d.txt" % (WORDS[i % len(WORDS)], i) for i in range(1200)]


def tree(root, kind):
    """The host tree for mke2fs -d: distinct sizes for the small files."""
    def put(path, size):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"x" * size)
    if kind == "cf":
        for i, n in enumerate(SMALL):
            put(os.path.join(root, "cf", n), i + 1)
        put(os.path.join(root, "cf", "Sub", "Inner.txt"), 30)
        for n in big_names():
            put(os.path.join(root, "cf", "big", n), 0)
    else:
        put(os.path.join(root, "cf", "file.txt"), 5)
        put(os.path.join(root, "cf", "Straße"), 6)
    put(os.path.join(root, "plain", "file.txt"), 7)


def fold(b):
    """The kernel's utf8 casefold (NFD + C+F folding), None if not UTF-8."""
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return NFD(NFD(s).casefold())


def variants(name):
    v = {name, name.upper(), name.lower(), name.swapcase(), name.title(),
         NFC(name), NFD(name), NFD(name.upper()), NFC(name.upper())}
    return sorted(x.encode() for x in v)


def queries(kind):
    q = []
    if kind == "cf":
        for n in SMALL:
            q += [b"/cf/" + v for v in variants(n)]
        q += [b"/cf/" + s.encode() for s in
              ["STRASSE", "strasse", "ΣΊΣΥΦΟΣ", "σίσυφοσ", "FINAL", "\u212aELVIN",
               "ÉCOLE", NFC("école"), "CAFE\u0301", "cafe", "file.tx", "Big"]]
        q += [b"/cf/A\xff", b"/cf/a\xff", b"/cf/b\xfe\xfe", b"/cf/B\xfe\xfe",
              b"/cf/SUB/INNER.TXT", b"/cf/sub/inner.txt", b"/cf/Sub/Inner.txt",
              b"/CF/file.txt", b"/plain/file.txt", b"/plain/FILE.TXT",
              b"/cf/FILE.TXT/x", b"/cf/BIG"]
        for i, n in enumerate(big_names()):
            q += [b"/cf/big/" + n.encode(), b"/cf/big/" + n.upper().encode()]
            if i % 7 == 0:
                q += [b"/cf/BIG/" + NFD(n.lower()).encode()]
        q += [b"/cf/big/nope_%04d.txt" % i for i in range(20)]
    else:
        q += [b"/cf/file.txt", b"/cf/FILE.TXT", b"/cf/STRASSE", b"/cf/strasse",
              b"/cf/bad\xff", b"/cf/nope\xff", b"/cf/x\xff/y", b"/cf/nothing",
              b"/plain/bad\xff", b"/plain/BAD\xff", b"/plain/FILE.TXT",
              b"/plain/file.txt"]
    return q


def debugfs(img, req):
    return subprocess.run(["debugfs", "-R", req, img], capture_output=True,
                          check=True).stdout


@functools.lru_cache(maxsize=None)
def listing(img, d):
    """(name, inode, is_dir) of directory D, from debugfs ls -p."""
    ents = []
    for line in debugfs(img, "ls -p " + d).split(b"\n"):
        f = line.split(b"/")
        if len(f) >= 7 and f[5] not in (b".", b".."):
            ents.append((f[5], int(f[1]), f[2].startswith(b"04")))
    return ents


@functools.lru_cache(maxsize=None)
def casefolded(img, d):
    m = re.search(rb"Flags: (0x[0-9a-f]+)", debugfs(img, "stat " + d))
    if not m:
        raise SystemExit("no flags for " + d)
    return bool(int(m.group(1), 16) & 0x40000000)


def resolve(img, path, strict):
    d, ino, isdir = "/", 2, True
    comps = [c for c in path.split(b"/") if c]
    for c in comps:
        if not isdir:
            return -errno.ENOTDIR
        cf = casefolded(img, d)
        if cf and strict and fold(c) is None:
            return -errno.EINVAL
        hits = [e for e in listing(img, d) if e[0] == c or
                (cf and fold(c) is not None and fold(c) == fold(e[0]))]
        if len(hits) > 1:
            raise SystemExit("ambiguous: %r in %s" % (c, d))
        if not hits:
            return -errno.ENOENT
        name, ino, isdir = hits[0]
        d = d.rstrip("/") + "/" + name.decode("utf-8", "surrogateescape")
    return ino


def esc(b):
    o = []
    for ch in b.decode("utf-8", "surrogateescape"):
        c = ord(ch)
        if 0xDC80 <= c <= 0xDCFF:
            o.append("\\x%02x" % (c - 0xDC00))
        elif c < 0x20 or c == 0x7F or ch in "\\#=":
            o.append("\\x%02x" % c)
        else:
            o.append(ch)
    return "".join(o)


def fmt(r):
    return str(r) if r >= 0 else "-" + errno.errorcode[-r]


def main():
    cmd, kind = sys.argv[1], sys.argv[2]
    if cmd == "tree":
        tree(sys.argv[3], kind)
        return
    strict = kind == "strict"
    out = sys.stdout.buffer
    for q in queries(kind):
        if cmd == "expect":
            r = resolve(sys.argv[3], q, strict)
        else:
            try:
                r = os.lstat(sys.argv[3].encode() + q).st_ino
            except OSError as e:
                r = -e.errno
        out.write(("%s = %s\n" % (esc(q), fmt(r))).encode())


main()
PY

# debugfs -w, its banner dropped (its errors still shown).
dbg() {
	debugfs -w -R "$1" "$2" 2>&1 >/dev/null | { grep -v '^debugfs [0-9]' >&2 || true; }
}
# casefold IMG DIR...: set +F on each directory, keeping its other flags.
casefold() {
	local img=$1 d fl
	shift
	for d in "$@"; do
		fl=$(debugfs -R "stat $d" "$img" 2>/dev/null |
			sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
		dbg "sif $d flags $(printf '0x%x' $((fl | 0x40000000)))" "$img"
	done
}

# build NAME KIND FEATURES EXTENDED-OPTIONS (mke2fs -O and -E additions)
build() {
	local name=$1 kind=$2 img=$work/$1.img
	rm -rf "$work/tree"
	python3 "$py" tree "$kind" "$work/tree"
	truncate -s 4M "$img"
	mke2fs -q -F -t ext4 -O "^has_journal,casefold$3" -b 1024 -N 1600 \
		-U "$(printf '%s' "$name" | md5sum | sed -E 's/^(.{8})(.{4})(.{4})(.{4})(.{12}).*/\1-\2-\3-\4-\5/')" \
		-E "hash_seed=63617365-666f-6c64-0000-000000000001,root_owner=0:0$4" \
		-d "$work/tree" "$img"
	if [ "$kind" = cf ]; then
		casefold "$img" /cf /cf/Sub /cf/big
		e2fsck -fyD "$img" >/dev/null 2>&1 || [ $? -le 1 ]
		printf 'x' > "$work/one"
		for n in $'A\xff' $'b\xfe\xfe'; do
			dbg "write $work/one /cf/$n" "$img"
		done
	else
		casefold "$img" /cf
		printf 'x' > "$work/one"
		dbg "write $work/one /cf/bad"$'\xff' "$img"
		dbg "write $work/one /plain/bad"$'\xff' "$img"
	fi
	debugfs -R "htree /cf/big" "$img" 2>/dev/null | grep -q "Number of entries" ||
		[ "$kind" != cf ] || { echo "mkcasefold: /cf/big has no htree" >&2; exit 1; }
	e2fsck -fn "$img" >/dev/null 2>&1 ||
		echo "mkcasefold: $name: e2fsck -fn reports problems (names that" \
			"are not UTF-8 in casefolded directories)" >&2
	gzip -9 -n -c "$img" > "$out/$name.img.gz"
	{
		echo "# e2map lookups in $name.img: PATH = INODE or -ERRNO"
		echo "# from debugfs ls -p and the kernel's casefold rule" \
			"(scripts/gen/mkcasefold.sh), no kernel with CONFIG_UNICODE here"
		python3 "$py" expect "$kind" "$img"
	} > "$out/$name.lookups"
	echo "wrote $out/$name.img.gz, $name.lookups.gz ($(grep -vc '^#' "$out/$name.lookups") lookups)"
	gzip -9 -n -f "$out/$name.lookups"
}

# kernel NAME KIND: the kernel's own answers and recordings, when it can.
kernel() {
	local name=$1 kind=$2 img=$work/$1.img
	if [ ! -e /sys/fs/ext4/features/casefold ] || [ "$(id -u)" != 0 ] ||
	   ! mount -o loop,ro,noload "$img" "$work/mnt" 2>/dev/null; then
		echo "mkcasefold: $name: skipped the kernel recording: this kernel" \
			"cannot mount casefolded filesystems (CONFIG_UNICODE), or not root;" \
			"the expectations come from debugfs and the casefold rule" >&2
		return 0
	fi
	{
		echo "# e2map lookups in $name.img: PATH = INODE or -ERRNO"
		echo "# recorded from the kernel $(uname -r) (lstat on a ro,noload mount)"
		python3 "$py" kernel "$kind" "$work/mnt"
	} > "$work/$name.kernel"
	umount "$work/mnt"
	diff <(zcat "$out/$name.lookups.gz" | grep -v '^#') \
		<(grep -v '^#' "$work/$name.kernel") >&2 ||
		echo "mkcasefold: $name: the kernel differs from the derived" \
			"expectations (above); keeping the kernel's" >&2
	gzip -9 -n -c "$work/$name.kernel" > "$out/$name.lookups.gz"
	"$here/../record/record.sh" "$out/$name.img.gz" "$out"
	gzip -9 -n -f "$out/$name.calls" "$out/$name.golden"
}

build cf-1k cf "" ""
build cf-strict-1k strict ,inline_data ,encoding_flags=strict
kernel cf-1k cf
kernel cf-strict-1k strict

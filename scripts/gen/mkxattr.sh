#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gen/mkxattr.sh OUTDIR
#
# Extended attributes of every kind the kernel lists, set by the kernel
# (setfattr on a loop mount), for e2map_inode_xattrs:
#   xattr-4k.img.gz    ext4 with ea_inode, 256-byte inodes: values in the
#                      inode, in a block, in both, in EA inodes; user,
#                      trusted, security and gnu names; POSIX access and
#                      default ACLs; a block shared by two files; xattrs
#                      on a directory, a symlink, a FIFO; then damaged: a
#                      block whose checksum fails, an EA inode whose hash
#                      does not match its value
#   xattr-1k.img.gz    ext4 without metadata_csum, 128-byte inodes (every
#                      value in a block), then damaged by this script:
#                      a block with a bad magic, entries running off the
#                      block, an ACL of a bad version, an ACL cut short,
#                      an unsorted block (a listed name getxattr misses)
# Record with record/xattr.sh.
. "$(dirname "$0")/../lib/gen.sh"
gen_start mkxattr root "$@"
mkdir "$work/mnt"
m=$work/mnt

# POSIX ACLs in the VFS's form (version 2, tag perm id): owner rw-,
# user 1234 rw-, group r--, group 55 r--, mask rw-, other r--.
acl=0x0200000001000600ffffffff02000600d204000004000400ffffffff\
080004003700000010000600ffffffff20000400ffffffff
dacl=0x0200000001000700ffffffff04000500ffffffff20000500ffffffff

fill_common() {
	printf 'small' > "$m/small"
	setfattr -n user.a -v hello "$m/small"
	printf 'b' > "$m/block"
	setfattr -n user.big -v "$(head -c 700 /dev/zero | tr '\0' B)" "$m/block"
	printf 'x' > "$m/acl"
	setfattr -n system.posix_acl_access -v "$acl" "$m/acl"
	mkdir "$m/dir"
	setfattr -n system.posix_acl_default -v "$dacl" "$m/dir"
	setfattr -n user.dir -v "on a dir" "$m/dir"
	printf 's' > "$m/shared1"
	printf 's' > "$m/shared2"
	for f in shared1 shared2; do
		setfattr -n user.same -v "$(head -c 300 /dev/zero | tr '\0' s)" "$m/$f"
	done
	printf 'k' > "$m/kinds"
	setfattr -n trusted.t -v trust "$m/kinds"
	setfattr -n security.s -v secure "$m/kinds"
	setfattr -n gnu.g -v hurd "$m/kinds"
	setfattr -n user.empty "$m/kinds"
	setfattr -n user.bin -v 0x00ff01fe "$m/kinds"
	ln -s small "$m/link"
	setfattr -h -n trusted.l -v onlink "$m/link"
	mkfifo "$m/fifo"
	setfattr -n trusted.f -v onfifo "$m/fifo"
	printf 'p' > "$m/plain"
}

fill_4k() {
	fill_common
	printf 'e' > "$m/ea_inode"
	setfattr -n user.huge -v "$(head -c 9000 /dev/zero | tr '\0' E)" "$m/ea_inode"
	setfattr -n user.tiny -v t "$m/ea_inode"
	printf 'h' > "$m/both"
	setfattr -n user.in -v i "$m/both"
	setfattr -n user.out -v "$(head -c 200 /dev/zero | tr '\0' O)" "$m/both"
	setfattr -n user.out2 -v "$(head -c 200 /dev/zero | tr '\0' P)" "$m/both"
	printf 'c' > "$m/bad_csum"
	setfattr -n user.big -v "$(head -c 700 /dev/zero | tr '\0' C)" "$m/bad_csum"
	printf 'a' > "$m/ea_bad"
	setfattr -n user.huge -v "$(head -c 5000 /dev/zero | tr '\0' H)" "$m/ea_bad"
}

# The EA inode holding ea_bad's 5000-byte value: the one inode with the
# EA_INODE flag and that size.
damage_ea() {
	local ino=12 n st fl

	n=$(debugfs -R "stats" "$1" 2>/dev/null | sed -n 's/^Inode count: *//p')
	while [ "$ino" -le "$n" ]; do
		st=$(debugfs -R "stat <$ino>" "$1" 2>/dev/null | tr '\n' ' ')
		fl=$(sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p' <<<"$st")
		[ $(( ${fl:-0} & 0x200000 )) != 0 ] &&
			grep -q 'Size: 5000 ' <<<"$st" && break
		ino=$((ino + 1))
	done
	[ "$ino" -le "$n" ] || { echo "mkxattr: no EA inode for ea_bad" >&2; exit 1; }
	debugfs -w -R "sif <$ino> atime 0x12345678" "$1" >/dev/null 2>&1
}

# The xattr block of PATH in IMG (debugfs's "File ACL").
acl_block() {
	debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p'
}

# damage IMG PATH HOW BLOCKSIZE: rewrite PATH's xattr block (where
# there is a checksum, it is left to fail).
damage() {
	local blk

	blk=$(acl_block "$1" "$2")
	python3 - "$1" "$blk" "$3" "$4" <<'EOF'
import struct, sys
img, blk, how, bs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
with open(img, 'r+b') as f:
    f.seek(blk * bs)
    b = bytearray(f.read(bs))
    ents, p = [], 32
    while struct.unpack_from('<I', b, p)[0]:
        ents.append(p)
        p += (16 + b[p] + 3) & ~3
    if how == 'magic':
        b[0] ^= 1
    elif how == 'value':        # a byte of the last value
        b[bs - 8] ^= 1
    elif how == 'overrun':      # the first entry's value past the block
        struct.pack_into('<H', b, ents[0] + 2, bs - 4)
        struct.pack_into('<I', b, ents[0] + 8, 64)
    elif how in ('aclver', 'aclcut'):
        e = [q for q in ents if b[q + 1] == 2][0]
        offs, size = struct.unpack_from('<H', b, e + 2)[0], struct.unpack_from('<I', b, e + 8)[0]
        if how == 'aclver':
            b[offs] = 3
        else:
            struct.pack_into('<I', b, e + 8, size - 2)
    elif how == 'unsorted':     # swap the names of the first two entries
        a, c = ents[0], ents[1]
        assert b[a] == b[c]
        n = b[a]
        b[a + 16:a + 16 + n], b[c + 16:c + 16 + n] = b[c + 16:c + 16 + n], b[a + 16:a + 16 + n]
    f.seek(blk * bs)
    f.write(b)
EOF
}

fill_1k() {
	fill_common
	for f in bad_magic overrun acl_version acl_cut unsorted; do
		printf 'd' > "$m/$f"
	done
	setfattr -n user.v -v value "$m/bad_magic"
	setfattr -n user.v -v value "$m/overrun"
	setfattr -n system.posix_acl_access -v "$acl" "$m/acl_version"
	setfattr -n user.not_shared -v 1 "$m/acl_version"
	setfattr -n system.posix_acl_access -v "$acl" "$m/acl_cut"
	setfattr -n user.not_shared -v 2 "$m/acl_cut"
	setfattr -n user.aa -v first "$m/unsorted"
	setfattr -n user.bb -v second "$m/unsorted"
}

make_one() {	# N NAME FILL MKE2FS-ARGS...
	local n=$1 name=$2 fill=$3 img=$work/$2.img

	shift 3
	gen_mkfs "$n" "$img" 8M "$@"
	mount -o loop "$img" "$m"
	"$fill"
	umount "$m"
	e2fsck -fn "$img" >/dev/null
	if [ "$fill" = fill_1k ]; then
		damage "$img" /bad_magic magic 1024
		damage "$img" /overrun overrun 1024
		damage "$img" /acl_version aclver 1024
		damage "$img" /acl_cut aclcut 1024
		damage "$img" /unsorted unsorted 1024
	else
		damage "$img" /bad_csum value 4096
		damage_ea "$img"
	fi
	gzip -9 -n -c "$img" > "$out/$name.img.gz"
	echo "wrote $out/$name.img.gz"
}

make_one 70 xattr-4k fill_4k -t ext4 -b 4096 -I 256 -O ea_inode
make_one 71 xattr-1k fill_1k -t ext4 -b 1024 -I 128 -O ^metadata_csum

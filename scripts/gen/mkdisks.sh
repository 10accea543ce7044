#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Whole-disk images and containers for tests/test_disks.c, made in OUTDIR
# (no root: mke2fs -E offset= writes each filesystem at its partition):
#   mbr.img    MBR: 1 ext4, 2 ext3, 3 extended holding 5 ext2 (1 KiB
#              blocks) and 6 (no filesystem)
#   gpt.img    GPT: 1 (no filesystem), 2 ext4, 3 ext2
#   one.img    MBR with one ext4 partition (chosen without --partition)
#   far-mbr.img  MBR: 1, extended holding 5 and 6 (ext2), 6's EBR far from
#              any partition (and far-mbr.qcow2)
#   gap-mbr.img, gap-gpt.img  only MBR slot 2, only GPT entry 3
#   NAME-pN.img  each partition's filesystem as a bare image, cut out with
#              dd: every answer through a disk must equal the answer there
#   NAME.sfdisk, NAME.blkid  sfdisk -d and blkid -p of each partition:
#              what `e2map partitions` must list
#   gpt.E01, mbr.E01 (compressed), one.E01... (1 MiB segments), gpt.vmdk,
#   gpt.vhdx, gpt.vhd, gpt.qcow2, mbr.qcow2: the same disks in containers;
#   bare.vmdk: mbr-p5.img, a filesystem without a table, in a VMDK
#   bad-*: a table past the end, overlapping partitions, a GPT whose
#   primary header or both headers fail their checksum, an E01 set with a
#   segment missing, one truncated, one with a damaged chunk; e01-renamed
#   holds one.E02 and one.E03 swapped (libewf goes by the numbers inside)
# Tools missing (ewfacquire, qemu-img, sgdisk) leave their files out;
# the tests that need them skip.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/gen.sh"
gen_start mkdisks any "$@"

have() { command -v "$1" >/dev/null 2>&1; }

# A small tree: a sparse file, a file of several extents, a directory,
# a symlink; the same in every filesystem.
make_tree() {
	local t=$work/tree

	mkdir -p "$t/dir/sub"
	printf 'hello\n' > "$t/small"
	truncate -s 300K "$t/sparse"
	for off in 10 40 41 70; do
		head -c 8192 /dev/zero | tr '\0' x |
			dd of="$t/sparse" bs=4096 seek=$off conv=notrunc 2>/dev/null
	done
	seq 1 200000 > "$t/dir/numbers"
	truncate -s 2M "$t/dir/sub/hole-at-start"
	printf 'end\n' >> "$t/dir/sub/hole-at-start"
	ln -s dir/numbers "$t/link"
}

# mkfs_at N DISK START-SECTOR SECTORS MKE2FS-ARGS...: a filesystem with
# a fixed UUID written at its partition, and cut out as DISK-pN.img.
mkfs_at() {
	local n=$1 disk=$2 start=$3 sectors=$4

	shift 4
	E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F \
		-U "6d6f6f72-6275-6c6b-0002-0000000000$n$n" \
		-E "offset=$((start * 512)),hash_seed=6d6f6f72-6275-6c6b-0003-0000000000$n$n" \
		-d "$work/tree" "$@" "$disk" $((sectors / 2))k
	dd if="$disk" of="${disk%.img}-p$n.img" bs=512 skip="$start" \
		count="$sectors" status=none
}

# NAME.sfdisk and NAME.blkid: what the table tools see on DISK.
record() {
	"$here/../record/disk.sh" "$1"
}

make_mbr() {
	truncate -s 48M mbr.img
	sfdisk -q mbr.img <<-EOF
		label: dos
		label-id: 0x6d6f6f72
		start=2048, size=16M, type=83
		start=34816, size=8M, type=83
		start=51200, size=20M, type=5
		start=53248, size=6M, type=83
		start=67584, size=2M, type=83
	EOF
	mkfs_at 1 mbr.img 2048 32768 -t ext4
	mkfs_at 2 mbr.img 34816 16384 -t ext3 -b 1024
	mkfs_at 5 mbr.img 53248 12288 -t ext2 -b 1024
	record mbr.img
}

# far-mbr.img: MBR 1 ext2, 2 extended holding 5 and 6 (ext2), the EBR of
# 6 written by hand 10 MiB past 5's end and 10 MiB before 6 (sfdisk puts
# an EBR right before its partition): a container's partition view must
# follow the EBR chain, not only the edges of the gaps (issue 20 §2).
make_far_mbr() {
	truncate -s 40M far-mbr.img
	python3 - far-mbr.img <<-'PY'
	import struct, sys
	def entry(t, lba, n):
	    return struct.pack("<B3sB3sII", 0, b"\0\0\0", t, b"\0\0\0", lba, n)
	def sector(entries, disk_id=0):
	    s = bytearray(512)
	    struct.pack_into("<I", s, 440, disk_id)
	    for i, e in enumerate(entries):
	        s[446 + 16 * i:462 + 16 * i] = e
	    s[510:512] = b"\x55\xaa"
	    return s
	ext, ext_n, ebr2 = 10240, 71680, 40960
	with open(sys.argv[1], "r+b") as f:
	    for at, sec in ((0, sector([entry(0x83, 2048, 8192),
	                                entry(0x05, ext, ext_n)], 0x6d6f6f73)),
	                    (ext, sector([entry(0x83, 2048, 8192),
	                                  entry(0x05, ebr2 - ext, 28672)])),
	                    (ebr2, sector([entry(0x83, 20480, 8192)]))):
	        f.seek(at * 512)
	        f.write(sec)
	PY
	mkfs_at 1 far-mbr.img 2048 8192 -t ext2 -b 1024
	mkfs_at 5 far-mbr.img 12288 8192 -t ext2 -b 1024
	mkfs_at 6 far-mbr.img 61440 8192 -t ext2 -b 1024
	record far-mbr.img
}

make_gpt() {
	truncate -s 40M gpt.img
	sgdisk -U 6d6f6f72-6275-6c6b-0004-000000000001 \
		-n 1:2048:+2M -t 1:8300 -u 1:6d6f6f72-6275-6c6b-0004-000000000011 \
		-n 2:0:+16M -t 2:8300 -u 2:6d6f6f72-6275-6c6b-0004-000000000012 \
		-c 2:data \
		-n 3:0:+8M -t 3:8300 -u 3:6d6f6f72-6275-6c6b-0004-000000000013 \
		gpt.img >/dev/null
	local s2 s3
	s2=$(sgdisk -i 2 gpt.img | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
	s3=$(sgdisk -i 3 gpt.img | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
	mkfs_at 2 gpt.img "$s2" 32768 -t ext4 -L data
	mkfs_at 3 gpt.img "$s3" 16384 -t ext2 -b 1024
	record gpt.img
}

make_one() {
	truncate -s 12M one.img
	printf 'label: dos\nlabel-id: 0x6f6e6531\nstart=2048, size=8M, type=83\n' |
		sfdisk -q one.img
	mkfs_at 1 one.img 2048 16384 -t ext4 -O ^has_journal
	record one.img
}

# Numbers with gaps: the kernel names a partition by its slot (MBR) or
# entry (GPT), not by its rank: only slot 2, only entry 3.
make_gaps() {
	truncate -s 4M gap-mbr.img
	printf 'label: dos\nlabel-id: 0x67617031\n2 : start=2048, size=4096, type=83\n' |
		sfdisk -q gap-mbr.img
	record gap-mbr.img
	if have sgdisk; then
		truncate -s 4M gap-gpt.img
		sgdisk -U 6d6f6f72-6275-6c6b-0005-000000000001 -n 3:2048:+1M \
			-u 3:6d6f6f72-6275-6c6b-0005-000000000013 gap-gpt.img >/dev/null
		record gap-gpt.img
	fi
}

make_containers() {
	if have ewfacquire; then
		ewfacquire -u -q -t gpt -c fast -C case -D gpt -e examiner \
			-E 1 -N notes gpt.img >/dev/null
		ewfacquire -u -q -t mbr -c fast -C case -D mbr -e examiner \
			-E 2 -N notes mbr.img >/dev/null
		# Uncompressed, in 1 MiB segments: a set of several files.
		ewfacquire -u -q -t one -c none -S 1MiB -C case -D one \
			-e examiner -E 3 -N notes one.img >/dev/null
	fi
	if have qemu-img; then
		qemu-img convert -f raw -O vmdk gpt.img gpt.vmdk
		qemu-img convert -f raw -O vhdx gpt.img gpt.vhdx
		qemu-img convert -f raw -O vpc gpt.img gpt.vhd
		qemu-img convert -f raw -O qcow2 gpt.img gpt.qcow2
		qemu-img convert -f raw -O qcow2 mbr.img mbr.qcow2
		qemu-img convert -f raw -O qcow2 far-mbr.img far-mbr.qcow2
		# Renamed, as evidence is: the sparse VMDK's descriptor still
		# names gpt.vmdk as its extent.
		cp gpt.vmdk renamed.vmdk
		# Cut short: the container's own tables point past its end.
		cp gpt.qcow2 bad-truncated.qcow2
		truncate -s 200000 bad-truncated.qcow2
		# A bare filesystem in a container: no table, the whole media.
		qemu-img convert -f raw -O vmdk mbr-p5.img bare.vmdk
	fi
}

# Byte B (decimal) of FILE at OFFSET.
poke() {
	printf "\\x$(printf %02x "$3")" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

make_bad() {
	# The table says 48 MiB, the image holds 36.
	cp mbr.img bad-past-end.img
	truncate -s 36M bad-past-end.img
	# Entry 2 (0x1ce) of one.img made to start inside entry 1.
	cp one.img bad-overlap.img
	printf 'label: dos\nlabel-id: 0x6f6e6531\nstart=2048, size=8M, type=83\nstart=20480, size=2048, type=83\n' |
		sfdisk -q bad-overlap.img
	poke bad-overlap.img $((0x1ce + 8)) 0
	poke bad-overlap.img $((0x1ce + 9)) 0x20
	poke bad-overlap.img $((0x1ce + 10)) 0
	[ -e gpt.img ] || return 0
	# The primary GPT header's disk GUID changed: its CRC fails.
	cp gpt.img bad-gpt-primary.img
	poke bad-gpt-primary.img $((512 + 56)) 0xff
	cp bad-gpt-primary.img bad-gpt-both.img
	poke bad-gpt-both.img $(( $(stat -c %s gpt.img) - 512 + 56)) 0xff
}

make_bad_ewf() {
	local last

	if [ -e one.E02 ]; then
		mkdir -p bad-e01-missing bad-e01-truncated bad-e01-chunk \
			e01-renamed
		cp one.E?? bad-e01-missing/
		rm bad-e01-missing/one.E03
		cp one.E?? bad-e01-truncated/
		last=$(ls one.E?? | tail -1)
		truncate -s 300000 "bad-e01-truncated/$last"
		cp one.E?? bad-e01-chunk/
		poke bad-e01-chunk/one.E01 200000 0xff
		poke bad-e01-chunk/one.E01 200001 0xfe
		# Segments 2 and 3 swapped by name: each holds its number,
		# and libewf reads them in that order.
		cp one.E?? e01-renamed/
		mv e01-renamed/one.E02 e01-renamed/x
		mv e01-renamed/one.E03 e01-renamed/one.E02
		mv e01-renamed/x e01-renamed/one.E03
	fi
}

cd "$out"
make_tree
make_mbr
make_far_mbr
if have sgdisk; then make_gpt; fi
make_one
make_gaps
[ -e gpt.img ] && make_containers
make_bad
make_bad_ewf
echo "mkdisks: $(ls | wc -l) files in $out"

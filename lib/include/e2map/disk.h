/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: whole disks and containers (the media layer).
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_DISK_H
#define E2MAP_PUBLIC_DISK_H

#include <e2map/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Whole disks and containers.  e2map_open reads IMAGE as a container when
 * its signature says so (EnCase E01/Ex01 segment sets, VMDK, VHD/VHDX,
 * QCOW), in place, never copied; a partition table inside (MBR with
 * logical partitions, or GPT) is read with libblkid.  OPTIONS then takes
 *   partition=N    the filesystem is partition N, numbered as the kernel
 *                  numbers /dev/sdaN (MBR 1-4 primary, 5.. logical; GPT
 *                  entries from 1)
 * Without it, a disk with exactly one ext2/3/4 partition opens that one;
 * with none -EUCLEAN, with several -EINVAL (e2map_errmsg(NULL) lists
 * them).  An image with an ext2/3/4 superblock at its start is a bare
 * filesystem, as before.  partition=N that names no partition: -ENXIO;
 * with offset=: -EINVAL.  A filesystem larger than its partition is
 * refused (-EUCLEAN) as the kernel refuses to mount it.  A container
 * that cannot be opened (a segment missing or out of order, a truncated
 * file) is -EIO, a chunk whose checksum fails -EIO when read, each with
 * the container library's words in e2map_errmsg.
 */
struct e2map_partition {
	unsigned number;	/* as the kernel numbers it */
	int extended;		/* an MBR extended partition (no filesystem) */
	uint64_t start, size;	/* bytes, in the disk (the container's media) */
	uint64_t start_sector, sectors;	/* the same in 512-byte sectors */
	char type[40];		/* MBR "0x83", or the GPT type GUID */
	char name[80];		/* the GPT partition name, or "" */
	char uuid[40];		/* the partition UUID (MBR: "ID-NN"), or "" */
	char fstype[16];	/* what libblkid finds in it: "ext4", "" */
	char label[80];		/* its filesystem label, or "" */
	char fsuuid[40];	/* its filesystem UUID, or "" */
};
struct e2map_disk {
	char format[8];		/* "raw", "ewf", "vmdk", "vhd" or "qcow" */
	char table[8];		/* "dos", "gpt", or "" for none */
	char table_id[40];	/* the disk identifier, or "" */
	uint64_t size;		/* bytes of the disk */
	size_t count;		/* partitions[] in the table's order */
	struct e2map_partition *partitions;
};
/*
 * The disk IMAGE holds, its partitions and what libblkid finds in each,
 * into *OUT (the caller's; e2map_disk_free).  A bare filesystem image is
 * a disk without a table (count 0).  A partition past the end of the
 * disk, overlapping partitions, a GPT whose primary header is corrupt
 * (the kernel then reads no partitions) or a protective MBR without a
 * GPT: -EUCLEAN; a container that does not open: -EIO; any errno of
 * open(2).  On failure e2map_errmsg(NULL) says why.
 */
E2MAP_API int e2map_disk_read(const char *image, struct e2map_disk **out);
/* NULL is a no-op. */
E2MAP_API void e2map_disk_free(struct e2map_disk *d);
/*
 * Whether P holds an ext2/3/4 filesystem, one e2map opens with its
 * number (libblkid's fstype; never an MBR extended partition).
 */
E2MAP_API int e2map_partition_is_ext(const struct e2map_partition *p);
/*
 * The ext2/3/4 partition of D that holds BYTE of the disk, or NULL: where
 * a disk offset (an examiner's byte from a carving or a log) is answered.
 */
E2MAP_API const struct e2map_partition *
e2map_disk_partition_at(const struct e2map_disk *d, uint64_t byte);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_DISK_H */

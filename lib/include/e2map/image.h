/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: an image: open and close, its state, statfs, where it lies.
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_IMAGE_H
#define E2MAP_PUBLIC_IMAGE_H

#include <e2map/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Open IMAGE read-only.  OPTIONS is NULL or a comma-separated list:
 *   offset=BYTES   the filesystem starts at that byte of the image file
 *   cache=cold     (default) each new file handle is a fresh mount's inode
 *   cache=warm     every call answers as after the whole extent tree was
 *                  cached (maximal merged runs)
 *   partition=N    the filesystem is partition N of a whole disk (see
 *                  e2map_disk_read below: disks and containers)
 *   replay         the journal recovered in memory first, as a read-write
 *                  mount recovers it (the image is never written)
 *   unmountable    open an image the kernel refuses to mount (a corrupt
 *                  root inode, descriptors outside the filesystem, a
 *                  system zone overlap...) and answer past the refusal:
 *                  every answer is then e2map's reading, beyond the
 *                  kernel (E2MAP_IMAGE_UNMOUNTABLE, e2map_image_refusal).
 *                  What libext2fs cannot open still fails.
 *   nomap          read a raw image with pread(2) only: by default its
 *                  metadata is read where it lies, mmap'd read-only, and
 *                  a handle on an image that shrinks while open would get
 *                  SIGBUS; a long-lived handle (e2map mount) takes this
 * BYTES takes the units of e2map_parse_bytes.  Unknown options: -EINVAL.
 * A missing image: -ENOENT (any errno of stat(2) or open(2)); a pipe or a
 * socket: -ESPIPE; a directory: -EISDIR; an offset at or past the end of
 * a regular file: -EINVAL.  Not an ext2/3/4 filesystem, or a truncated or corrupted
 * superblock: -EUCLEAN (-EBADMSG for a bad superblock checksum); an
 * incompatible feature the kernel would refuse: -EOPNOTSUPP.  Any other
 * refusal of the kernel's mount: its errno (-EUCLEAN, -EINVAL, -EBADMSG).
 * On failure *out is NULL, and e2map_errmsg(NULL) says why in words meant
 * for the user ("not an ext2/3/4 filesystem", "the image must be a
 * seekable file", "offset past the end of the image (N bytes)"), or is
 * empty when the errno says it all.
 */
E2MAP_API int e2map_open(const char *image, const char *options, e2map_t **out);
/* Close an image; NULL is a no-op.  Close its files first. */
E2MAP_API void e2map_close(e2map_t *m);

/* Bits of e2map_image_state(). */
#define E2MAP_IMAGE_MOUNTED 0x1
#define E2MAP_IMAGE_NEEDS_RECOVERY 0x2
#define E2MAP_IMAGE_UNMOUNTABLE 0x4
/*
 * What a reader of M should be warned of, as a mask: E2MAP_IMAGE_MOUNTED
 * when the image (a block device, or a file behind a loop device) is
 * mounted now, so the answers may be stale; E2MAP_IMAGE_NEEDS_RECOVERY
 * when the superblock says the journal needs recovery, so the answers are
 * those of the image as it lies (the kernel's ro,noload view), not after
 * a replay; E2MAP_IMAGE_UNMOUNTABLE when the kernel refuses to mount
 * the image and it was opened past that ("unmountable").  The mount
 * table is read at each call.  Returns the mask
 * (>= 0), -EINVAL for a NULL handle, or -errno when the mount table cannot
 * be read (e2map_errmsg(M) says more).
 */
E2MAP_API int e2map_image_state(e2map_t *m);

/*
 * Why the kernel refuses to mount M's image: its mount(2) errno (< 0) with
 * *WHY (if WHY is not NULL) the reason in words, or 0 and "" when it
 * mounts.  Only an image opened with "unmountable" is open to be asked.
 * -EINVAL for a NULL handle.
 */
E2MAP_API int e2map_image_refusal(const e2map_t *m, const char **why);

/*
 * Parse a byte count as xfs_io's cvtnum does: decimal, 0x hex or 0 octal,
 * then at most one unit letter, case-insensitive: b = 4096 (xfs_io's
 * block on a non-XFS file), s = 512, k m g t p e = powers of 1024.  Digits
 * beyond int64_t saturate at INT64_MAX (as strtoll); no sign, no blanks.
 * Returns 0, -EINVAL for bad syntax, -ERANGE when the unit overflows.
 */
E2MAP_API int e2map_parse_bytes(const char *s, int64_t *out);

/* What statfs(2) on the mount would tell the tools. */
#define E2MAP_STATFS_VERSION 1
#define E2MAP_STATFS_INIT { .version = E2MAP_STATFS_VERSION }
struct e2map_statfs {
	unsigned version;	/* E2MAP_STATFS_VERSION */
	uint32_t type;		/* 0xEF53 */
	uint32_t bsize;		/* block size */
	uint64_t blocks;	/* f_blocks: the block count less the overhead
				 * the kernel counts at mount (a bigalloc
				 * superblock's s_overhead_clusters if set) */
	uint64_t files;		/* f_files: the inode count */
	uint64_t ffree;		/* f_ffree: the groups' free inodes */
	uint64_t bfree;		/* f_bfree: the groups' free blocks */
	uint64_t bavail;	/* f_bavail: bfree less the blocks reserved
				 * for root and the kernel's own reserve
				 * (extents: 2% or 4096 clusters, the less),
				 * 0 below them */
	uint32_t namelen;	/* f_namelen: 255 */
};
E2MAP_API int e2map_statfs(e2map_t *m, struct e2map_statfs *st);

/*
 * The byte of the disk where the filesystem starts: a partition's start
 * (partition=N) plus offset=, 0 for a bare image.  A carver's hit at disk
 * byte X is in filesystem block (X - this) / block size.
 */
E2MAP_API uint64_t e2map_disk_offset(const e2map_t *m);

/*
 * Metadata blocks (inode tables, extent and indirect blocks) read from the
 * image through M so far: what a lookup costs, for tests and benchmarks.
 */
E2MAP_API uint64_t e2map_blocks_read(const e2map_t *m);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_IMAGE_H */

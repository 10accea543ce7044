/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: answer lseek(SEEK_DATA/SEEK_HOLE) and FS_IOC_FIEMAP for a file
 * inside an unmounted ext2/ext3/ext4 image, exactly as the Linux kernel does
 * on a fresh read-only mount of that image.  The image is never written.
 *
 * Errors: every call returns 0 (or a value >= 0) on success and a negative
 * errno on failure.  Where the kernel fails, the errno is the kernel's;
 * corrupted metadata is -EUCLEAN, a bad metadata checksum -EBADMSG.
 */
#ifndef E2MAP_H
#define E2MAP_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/fiemap.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define E2MAP_API __attribute__((visibility("default")))
#else
#define E2MAP_API
#endif

#define E2MAP_VERSION "0.1.0"

/* lseek whence values, equal to <unistd.h>'s so callers need no _GNU_SOURCE. */
#define E2MAP_SEEK_SET 0
#define E2MAP_SEEK_CUR 1
#define E2MAP_SEEK_END 2
#define E2MAP_SEEK_DATA 3
#define E2MAP_SEEK_HOLE 4

typedef struct e2map e2map_t;		/* an opened image */
typedef struct e2map_file e2map_file_t;	/* one open inode, like an fd */

/*
 * Open IMAGE read-only.  OPTIONS is NULL or a comma-separated list:
 *   offset=BYTES   the filesystem starts at that byte of the image file
 *   cache=cold     (default) each new file handle is a fresh mount's inode
 *   cache=warm     every call answers as after the whole extent tree was
 *                  cached (maximal merged runs)
 *   partition=N    the filesystem is partition N of a whole disk (see
 *                  e2map_disk_read below: disks and containers)
 * BYTES takes the units of e2map_parse_bytes.  Unknown options: -EINVAL.
 * A missing image: -ENOENT (any errno of stat(2) or open(2)); a pipe or a
 * socket: -ESPIPE; an offset at or past the end of a regular file:
 * -EINVAL.  Not an ext2/3/4 filesystem, or a truncated or corrupted
 * superblock: -EUCLEAN (-EBADMSG for a bad superblock checksum); an
 * incompatible feature the kernel would refuse: -EOPNOTSUPP.
 * On failure *out is NULL, and e2map_errmsg(NULL) says why in words meant
 * for the user ("not an ext2/3/4 filesystem", "the image must be a
 * seekable file", "offset past the end of the image (N bytes)"), or is
 * empty when the errno says it all.
 */
E2MAP_API int e2map_open(const char *image, const char *options,
			 e2map_t **out);
/* Close an image; NULL is a no-op.  Close its files first. */
E2MAP_API void e2map_close(e2map_t *m);

/* Bits of e2map_image_state(). */
#define E2MAP_IMAGE_MOUNTED 0x1
#define E2MAP_IMAGE_NEEDS_RECOVERY 0x2
/*
 * What a reader of M should be warned of, as a mask: E2MAP_IMAGE_MOUNTED
 * when the image (a block device, or a file behind a loop device) is
 * mounted now, so the answers may be stale; E2MAP_IMAGE_NEEDS_RECOVERY
 * when the superblock says the journal needs recovery, so the answers are
 * those of the image as it lies (the kernel's ro,noload view), not after
 * a replay.  The mount table is read at each call.  Returns the mask
 * (>= 0), -EINVAL for a NULL handle, or -errno when the mount table cannot
 * be read (e2map_errmsg(M) says more).
 */
E2MAP_API int e2map_image_state(e2map_t *m);

/*
 * Parse a byte count as xfs_io's cvtnum does: decimal, 0x hex or 0 octal,
 * then at most one unit letter, case-insensitive: b = 4096 (xfs_io's
 * block on a non-XFS file), s = 512, k m g t p e = powers of 1024.  Digits
 * beyond int64_t saturate at INT64_MAX (as strtoll); no sign, no blanks.
 * Returns 0, -EINVAL for bad syntax, -ERANGE when the unit overflows.
 */
E2MAP_API int e2map_parse_bytes(const char *s, int64_t *out);

/*
 * Open the inode at PATH, as open(2) on the mounted image would: "/dir/file"
 * (symlinks followed in every component, the last one included; a
 * relative target from the link's directory, an absolute one from the
 * image's root, as in a chroot; at most 40 links in all) or "<INO>"
 * (debugfs notation: 12, 0xc or 014; never followed, it is the inode
 * itself, special inodes such as <8> the journal included).
 * A missing name or a dangling symlink gives -ENOENT; more than 40 links
 * or a loop -ELOOP; a non-directory in the middle, or before a trailing
 * slash, -ENOTDIR; corrupted metadata on the way -EUCLEAN (-EBADMSG for a
 * bad checksum); an encrypted file -ENOKEY (the kernel has no key either),
 * -EINVAL or -ENODATA for a bad or missing encryption context, -EPERM for
 * one that differs from its directory's; a name too long -ENAMETOOLONG.
 * "<INO>" that is no number: -EINVAL; a number that names no inode (0, or
 * past the inode count): -ESTALE, open_by_handle_at's answer; an unused
 * inode: -ESTALE.  Each handle starts as the first open after a fresh
 * mount: a cold extent-status cache.
 * Special files, as open(2) on the mount: a FIFO opens (as with a writer
 * present, or O_NONBLOCK); then lseek gives -ESPIPE and FIEMAP (and
 * e2map_walk) -EOPNOTSUPP, as the VFS answers for any FIFO.  A socket
 * gives -ENXIO.  A character or block device gives -ENXIO too: e2map
 * never opens the host's devices, and answers as a kernel that has no
 * driver for the device's major number.
 */
E2MAP_API int e2map_file_open(e2map_t *m, const char *path,
			      e2map_file_t **out);

/* e2map_file_open_flags: a symlink as the last component is not followed. */
#define E2MAP_O_NOFOLLOW 0x1
/*
 * e2map_file_open with FLAGS: 0 is e2map_file_open; E2MAP_O_NOFOLLOW
 * answers as open(O_NOFOLLOW): a symlink as the last component gives
 * -ELOOP (a trailing slash still follows it, as in the kernel).  Any
 * other bit: -EINVAL.  Otherwise the errors of e2map_file_open.
 */
E2MAP_API int e2map_file_open_flags(e2map_t *m, const char *path, int flags,
				    e2map_file_t **out);
/* The same, for inode number INO (as "<INO>"); 0 or past the count: -ESTALE. */
E2MAP_API int e2map_file_open_ino(e2map_t *m, uint64_t ino,
				  e2map_file_t **out);
/* Close a file handle; NULL is a no-op. */
E2MAP_API void e2map_file_close(e2map_file_t *f);

/*
 * lseek(2) on the handle's position: SEEK_SET/CUR/END/DATA/HOLE.  Returns
 * the new offset or -ENXIO, -EINVAL, -ENOENT, -EUCLEAN, -EBADMSG, -EIO.
 */
E2MAP_API int64_t e2map_lseek(e2map_file_t *f, int64_t offset, int whence);

/*
 * FS_IOC_FIEMAP.  FM is the caller's struct fiemap followed by
 * fm_extent_count struct fiemap_extent; in and out exactly as the ioctl
 * (fm_flags write-back, fm_mapped_extents, EBADR with the unsupported
 * bits left in fm_flags, count mode when fm_extent_count is 0).
 */
E2MAP_API int e2map_fiemap(e2map_file_t *f, struct fiemap *fm);

/*
 * pread(2) of LEN bytes at OFF on the mounted file, into BUF: the bytes
 * read (0 at or past EOF; fewer than LEN near EOF or before damage), as
 * the kernel returns them: written data, zeroes for holes and unwritten
 * (preallocated) ranges, inline data.  LEN above 0x7ffff000 is cut to it,
 * as the kernel cuts it.  A contiguous run of data blocks is one read
 * from the image, straight into BUF.
 * Damage: a block whose mapping fails (corrupt or unreadable extent leaf,
 * bad indirect block, a block in the system zone) or whose data cannot be
 * read from the image fails its whole 4 KiB page, as the kernel fails the
 * page-cache folio: the call returns the bytes before that page (a short
 * read), and a call starting in it returns -EIO (e2map_errmsg says what
 * failed).  The kernel fails a whole folio, and readahead makes folios
 * larger than a page (up to 128 KiB here) when reads are 64 KiB or more:
 * reading in calls of 32 KiB or less, it stops at the same page as
 * e2map; `cat` (128 KiB calls) may stop up to a folio earlier.
 * Errors, in the kernel's order: -EINVAL for a negative OFF, or OFF + LEN
 * past INT64_MAX (rw_verify_area), a NULL F or BUF; -ESPIPE for a FIFO
 * (pread(2) on a pipe); -EISDIR for a directory (generic_read_dir); -EIO
 * as above; -ENOMEM.  An encrypted file never gets
 * here: its open fails with -ENOKEY, as without the key.
 * The extent-status cache: on the kernel, reads map blocks and so fill
 * the inode's cache, and the pages they leave in the page cache turn
 * unwritten ranges into data for SEEK_DATA/SEEK_HOLE.  e2map does not
 * model either: reads map through a cache of their own, and F's seek and
 * FIEMAP answers stay those of a file never read (a fresh handle's
 * answers after a read).
 */
E2MAP_API int64_t e2map_pread(e2map_file_t *f, void *buf, size_t len,
			      int64_t off);
/*
 * read(2): e2map_pread at the handle's position (the one e2map_lseek
 * moves), which moves on by the bytes read.  A FIFO reads as empty (0),
 * as read(2) on a FIFO that has no writer.  Errors as e2map_pread's.
 */
E2MAP_API int64_t e2map_read(e2map_file_t *f, void *buf, size_t len);

/* A time as statx(2) gives it: seconds since the epoch, nanoseconds. */
struct e2map_timespec {
	int64_t sec;
	uint32_t nsec;
};
/* Bits of e2map_stat.mask: what the inode has beyond the fixed fields. */
#define E2MAP_STAT_CRTIME 0x1	/* crtime is set (statx's STATX_BTIME) */
/*
 * What stat(2) (statx(2) for crtime) on the mounted file would tell the
 * tools, for an inode of any type; the library's one stat record.  As
 * ext4_iget reads the inode: times are i_Xtime as a signed 32-bit count
 * of seconds, plus, where i_extra_isize covers i_Xtime_extra, its two
 * epoch bits (times from 1901 to 2446) and its nanoseconds; a 128-byte
 * inode (or i_extra_isize 0) has neither, nor crtime.  crtime is there
 * (E2MAP_STAT_CRTIME) where i_extra_isize covers i_crtime, its
 * nanoseconds where it covers i_crtime_extra too.  uid and gid join the
 * high 16 bits (the kernel's default, not -o nouid32).  rdev is set for a
 * character or block device only, as the kernel decodes i_block (the old
 * 8:8 form in i_block[0], else the new 12:20 one in i_block[1]), in
 * glibc's makedev encoding.  An encrypted symlink's size is the length of
 * its no-key target (fscrypt_symlink_getattr), and its stat fails where
 * that target does (e2map_readlink_ino).
 */
struct e2map_stat {
	uint64_t ino;
	uint32_t mode;		/* S_IFMT bits and permissions */
	uint32_t blksize;	/* filesystem block size */
	uint64_t size;		/* i_size */
	uint64_t blocks;	/* st_blocks, 512-byte units */
	uint64_t maxbytes;	/* largest offset lseek accepts on it */
	uint32_t flags;		/* inode flags as FS_IOC_GETFLAGS shows them */
	uint32_t nlink;
	uint32_t uid, gid;
	uint64_t rdev;
	struct e2map_timespec atime, mtime, ctime, crtime;
	uint32_t mask;		/* E2MAP_STAT_* */
};
/* stat(2) of an open file: 0, -EINVAL for a NULL handle, or an
 * encrypted symlink's error (below). */
E2MAP_API int e2map_file_stat(e2map_file_t *f, struct e2map_stat *st);
/*
 * stat(2) of PATH, without opening it: the lookup (a final symlink
 * followed, as stat(2) follows it) and the inode checks of
 * e2map_file_open, not the open's own (file type, encryption key).  Errors
 * as e2map_file_open's lookup part.
 */
E2MAP_API int e2map_stat(e2map_t *m, const char *path, struct e2map_stat *st);
/*
 * lstat(2) of PATH: as e2map_stat, but a final symlink is the answer
 * itself (a trailing slash still follows it, as in the kernel).
 */
E2MAP_API int e2map_lstat(e2map_t *m, const char *path,
			  struct e2map_stat *st);
/*
 * stat of inode INO of any type, by number (as a handle reaches it, but
 * with __ext4_iget's own errno where the kernel's handle lookup would
 * say -ESTALE): 0 or past the inode count, or an unused inode: -ESTALE;
 * corrupted -EUCLEAN, a bad checksum -EBADMSG.  Special inodes (<8>)
 * answer too.
 */
E2MAP_API int e2map_stat_ino(e2map_t *m, uint64_t ino, struct e2map_stat *st);
/*
 * ext4_lookup of the LEN-byte NAME in directory DIR (by number), as the
 * VFS reaches one component: *INO the entry's inode, its checks passed
 * (a bad inode number -EUCLEAN, inconsistent encryption -EPERM).  "." and
 * ".." are the caller's (the VFS never asks).  -ENOENT for no such name,
 * -ENOTDIR when DIR is no directory, -ENAMETOOLONG past 255 bytes,
 * -ENOKEY in an encrypted directory; else e2map_stat_ino's errors for
 * DIR, or the directory's read errors.
 */
E2MAP_API int e2map_lookup_at(e2map_t *m, uint64_t dir, const char *name,
			      size_t len, uint64_t *ino);
/*
 * readlink(2) of symlink INO (by number, as e2map_stat_ino): the target's
 * first SIZE bytes into BUF (no NUL added), returning the target's
 * length, which may exceed SIZE.  An encrypted symlink gives what the
 * kernel gives without the key: the no-key target (base64url of the
 * ciphertext, fscrypt_get_symlink), -EINVAL for a bad or unsupported
 * encryption context, -EUCLEAN for a bad stored length; -ENOKEY past 149
 * bytes of ciphertext, where the kernel encodes a SHA-256 e2map does not
 * compute.  Not a symlink: -EINVAL (readlink's answer); a slow one
 * without its block: -EUCLEAN; else e2map_stat_ino's errors.
 */
E2MAP_API int64_t e2map_readlink_ino(e2map_t *m, uint64_t ino, char *buf,
				     size_t size);
/*
 * The same target in one read: *OUT malloc'd (the caller frees it) and
 * NUL-terminated, the length returned; on error *OUT is NULL and the
 * errors are e2map_readlink_ino's (-EINVAL for a NULL OUT).
 */
E2MAP_API int64_t e2map_readlink_alloc(e2map_t *m, uint64_t ino, char **out);

/*
 * Extended attributes of inode INO (by number, as e2map_stat_ino), as
 * root sees them on the mount: listxattr(2)'s names in its order (the
 * in-inode ones, then the xattr block's), each with getxattr(2)'s answer
 * for it.  Names a default mount does not list are not there:
 * system.data (inline data), the encryption context, lustre's and
 * richacl's.  POSIX ACLs are system.posix_acl_access and
 * system.posix_acl_default with the VFS's value (version 2, 8-byte
 * entries), not ext4's on-disk form.  A value in an EA inode is read from
 * it and its hashes verified.  NAME and VALUE are borrowed for the call;
 * NAME is NUL-terminated.  ERR is 0, or getxattr(2)'s -errno for that name
 * (VALUE NULL): -EUCLEAN for a damaged EA inode, -EINVAL for a bad ACL or
 * an empty name suffix ("user."), -ENODATA for an empty ACL, and so on.
 * Returns 0, CB's non-zero return, or listxattr(2)'s error, CB never
 * called: -EUCLEAN for a corrupted xattr block, -EBADMSG for a bad
 * checksum, -EIO; also e2map_stat_ino's errors.
 */
struct e2map_xattr {
	const char *name;
	size_t name_len;
	const void *value;
	size_t value_len;
	int err;
};
typedef int (*e2map_xattr_cb)(const struct e2map_xattr *x, void *payload);
E2MAP_API int e2map_xattrs_ino(e2map_t *m, uint64_t ino, e2map_xattr_cb cb,
			       void *payload);
/*
 * The same for PATH, as llistxattr(2) reaches it: the lookup of
 * e2map_lstat (a final symlink not followed), its errors, but no stat
 * (so an encrypted symlink whose stat fails still lists).
 */
E2MAP_API int e2map_lxattrs(e2map_t *m, const char *path, e2map_xattr_cb cb,
			    void *payload);
/*
 * getxattr(2) of NAME on inode INO: with SIZE 0 the value's length, else
 * the value into BUF and its length, -ERANGE when it does not fit.
 * -ENODATA for a name the inode lacks, -EOPNOTSUPP for a name no handler
 * takes (system.data among them), -EINVAL for a prefix alone ("user."),
 * -ERANGE for an empty name or one past 255 bytes; the errors above.
 */
E2MAP_API int64_t e2map_getxattr_ino(e2map_t *m, uint64_t ino,
				     const char *name, void *buf, size_t size);
/* lgetxattr(2): the same for PATH, reached as e2map_lxattrs reaches it. */
E2MAP_API int64_t e2map_lgetxattr(e2map_t *m, const char *path,
				  const char *name, void *buf, size_t size);

/*
 * The walk cp -a and tar make over the mount from PATH (its final symlink
 * not followed) down: CB gets each entry before what is under it, a
 * directory's entries in e2map_readdir's order ("." and ".." left out).
 * PATH is the entry's path in the image, PATH as given for the first and
 * then joined with "/" and each name, LEN bytes and a NUL, borrowed for
 * the call; DEPTH is 0 for PATH itself.  VISIT says what the call is:
 *  - E2MAP_TREE_NODE, for every entry: ST its lstat, or NULL with ERR the
 *    lstat's -errno; for a directory met before (a damaged tree) or deeper
 *    than E2MAP_PATHS_MAX_DEPTH, ST set, ERR -ELOOP and nothing under it.
 *    FIRST, for a file of several links met before, is the path it was
 *    first met under (which CB accepted), else NULL.  CB's positive
 *    return skips the entry: a directory is not entered, a file of
 *    several links is not the target of its later names;
 *  - E2MAP_TREE_LIST_FAILED: directory PATH's listing failed with ERR, after
 *    its NODE call and before the entries listed before the failure;
 *  - E2MAP_TREE_DIR_DONE: directory PATH, after everything under it.
 * CB's negative return stops the walk and is returned; else 0, -EINVAL or
 * -ENOMEM.  The walk's own memory: the path, a listing per level, and the
 * first name of each file of several links.
 */
enum e2map_tree_visit {
	E2MAP_TREE_NODE,
	E2MAP_TREE_LIST_FAILED,
	E2MAP_TREE_DIR_DONE
};
struct e2map_tree_entry {
	const char *path;
	size_t len;
	unsigned depth;
	uint64_t ino;		/* 0 where PATH itself could not be reached */
	const struct e2map_stat *st;
	const char *first;
	enum e2map_tree_visit visit;
	int err;
};
typedef int (*e2map_tree_cb)(const struct e2map_tree_entry *e,
			     void *payload);
E2MAP_API int e2map_tree_walk(e2map_t *m, const char *path, e2map_tree_cb cb,
			      void *payload);

/*
 * Copy PATH (its final symlink not followed) out of the image to DEST on
 * the host, as `cp -a MNT/PATH DEST` copies it from the kernel's mount:
 * DEST names the copy, or, when it is an existing directory, takes it
 * under PATH's last name (the root's copy is DEST itself).  A regular
 * file's data regions are those SEEK_DATA/SEEK_HOLE give, read as
 * e2map_pread reads them and written at their offsets, so holes and
 * unwritten ranges stay holes (only data is written), then the size is
 * set.  A directory needs E2MAP_EXTRACT_RECURSIVE (else -EISDIR) and is
 * copied in e2map_readdir's order; a file of several links is copied at
 * its first name and linked at the others; symlinks, FIFOs and sockets
 * are made anew, device nodes only by root (else -EPERM).  What is there
 * is replaced, directories kept; nothing is followed on the host.
 * E2MAP_EXTRACT_PRESERVE also sets the xattrs (ACLs included, names the
 * host refuses as unsupported skipped), then the owner (ignored without
 * the right as cp does), the mode and the two times with nanoseconds;
 * without it, files and directories get their mode less the umask.
 * CB (may be NULL) is called once per entry done or failed, in walk
 * order, directories after their contents: ERR 0, or the -errno of the
 * step WHAT that failed ("open", "read", "readdir", "mknod", "chown"...);
 * PARTIAL when DEST holds the bytes read before a failure (and no more:
 * the size is cut there).  One entry's failure does not stop the walk;
 * CB's negative return does, and is returned.  Returns the number of
 * failed entries (0: all extracted), or -EINVAL, -ENOMEM.
 */
#define E2MAP_EXTRACT_RECURSIVE 0x1
#define E2MAP_EXTRACT_PRESERVE 0x2
struct e2map_extract_event {
	const char *path;	/* in the image */
	const char *dest;	/* on the host */
	uint32_t mode;		/* the inode's, 0 where its stat failed */
	uint64_t bytes;		/* data bytes written */
	int err;
	const char *what;
	int partial;
};
typedef int (*e2map_extract_cb)(const struct e2map_extract_event *ev,
				void *payload);
E2MAP_API int e2map_extract(e2map_t *m, const char *path, const char *dest,
			    unsigned flags, e2map_extract_cb cb,
			    void *payload);

/* What statfs(2) on the mount would tell the tools. */
struct e2map_statfs {
	uint32_t type;		/* 0xEF53 */
	uint32_t bsize;		/* block size */
	uint64_t blocks;	/* f_blocks: the block count less the overhead
				 * the kernel counts at mount (a bigalloc
				 * superblock's s_overhead_clusters if set) */
	uint64_t files;		/* f_files: the inode count */
	uint64_t ffree;		/* f_ffree: the groups' free inodes */
};
E2MAP_API int e2map_statfs(e2map_t *m, struct e2map_statfs *st);

/*
 * One mapping run as the kernel's block mapper reports it (through the
 * handle's extent-status cache, which this call warms as the kernel's
 * lookups would).  Blocks are filesystem blocks.
 */
enum e2map_run_kind {
	E2MAP_RUN_HOLE,
	E2MAP_RUN_DATA,		/* written blocks */
	E2MAP_RUN_UNWRITTEN,	/* preallocated, reads as zeroes */
	E2MAP_RUN_INLINE	/* data stored inside the inode (no comma: C89) */
};
struct e2map_run {
	uint64_t lblk;
	uint64_t nblk;
	uint64_t pblk;		/* for INLINE: byte address of the data */
	enum e2map_run_kind kind;
};
typedef int (*e2map_run_cb)(const struct e2map_run *run, void *payload);
/*
 * Visit the runs covering blocks [lblk, lblk + nblk) in order.  A non-zero
 * return from CB stops the walk and is returned; else 0 or -errno.
 */
E2MAP_API int e2map_walk(e2map_file_t *f, uint64_t lblk, uint64_t nblk,
			 e2map_run_cb cb, void *payload);

/*
 * Whole-image iteration: CB is called for every inode in use (links > 0,
 * mode set), in inode-number order, read straight from the inode tables.
 * When a group's inode table cannot be read, CB gets one record with ERR
 * set (and INO the group's first inode) and the scan goes on.  A non-zero
 * return from CB stops the scan and is returned.
 */
struct e2map_inode {
	uint64_t ino;
	uint32_t mode;
	uint64_t size;
	uint16_t links;
	int err;
	uint32_t flags;		/* i_flags as stored (EXT4_EA_INODE_FL...) */
};
typedef int (*e2map_scan_cb)(e2map_t *m, const struct e2map_inode *in,
			     void *payload);
E2MAP_API int e2map_scan(e2map_t *m, e2map_scan_cb cb, void *payload);

/*
 * One inode's record for a whole-image inventory: stat, and what its
 * mapping holds, from one cold walk of its whole logical range through
 * the mapping seek and fiemap use (e2map_walk), then one FIEMAP count
 * from the cache that walk left (the kernel's warm FIEMAP).  Bytes below
 * i_size are WRITTEN (data, inline data), UNWRITTEN (preallocated) or
 * HOLES (neither), the block holding EOF counted up to i_size; PAST_EOF
 * is what is mapped from the first block boundary at or after i_size on
 * (fallocate's KEEP_SIZE).  META_BLOCKS are the extent-tree or indirect
 * blocks under the inode and its xattr block.  EXTENTS is the count on
 * disk: leaf entries of an extent tree, runs of contiguous blocks of a
 * block map, 1 for inline data; FIEMAP_EXTENTS what a warm FIEMAP
 * returns (the extent-status cache's merged runs).  The mapping fields
 * are those of regular files and directories (E2MAP_REC_MAPPED); other
 * types have 0 but for the xattr block.
 * ERR is 0 or the kernel's errno for the inode: its iget's or its stat's
 * (then ST holds only ino, mode, size and nlink as the inode table has
 * them, and no E2MAP_REC_STAT), the open's (-ENOKEY for an encrypted
 * file; the inode is opened by number, so an open by name's check of the
 * parent's encryption policy, -EPERM, is not made), or the walk's (the
 * fields then count what was walked before it).
 */
#define E2MAP_REC_STAT 0x1	/* ST is the whole stat record */
#define E2MAP_REC_MAPPED 0x2	/* a regular file or directory, walked */
#define E2MAP_REC_INLINE 0x4	/* its data lives in the inode */
#define E2MAP_REC_EA_INODE 0x8	/* holds an xattr value, named by none */
struct e2map_record {
	uint64_t ino;
	struct e2map_stat st;
	int err;
	uint32_t flags;		/* E2MAP_REC_* */
	uint64_t written, unwritten, holes, past_eof;	/* bytes */
	uint64_t meta_blocks;
	uint64_t extents, fiemap_extents;
};
/*
 * The record of inode INO (any type; an EA inode read as its parent's
 * xattr reads it).  Returns 0 with OUT filled, the inode's own trouble in
 * OUT->err; -ESTALE for a number that names no inode in use (0, past the
 * count, or free); -EINVAL for a NULL argument; -ENOMEM.
 */
E2MAP_API int e2map_inode_record(e2map_t *m, uint64_t ino,
				 struct e2map_record *out);
/*
 * e2map_inode_record for every inode e2map_scan finds in use, in inode
 * order, streaming: memory does not grow with the inode count.  A group
 * whose inode table cannot be read is one record with ERR (INO its first
 * inode, no flags).  The records are made on THREADS workers as
 * e2map_check_all makes its checks (0: one per CPU; the same records
 * whatever the count); CB runs in the caller's thread, in inode order,
 * with DETAIL the reason for R->err ("" when there is none; borrowed for
 * the call), and may use M.  A non-zero return from CB stops the scan and
 * is returned; else 0, -EINVAL, -ENOMEM or a worker handle's open error.
 */
typedef int (*e2map_record_cb)(const struct e2map_record *r,
			       const char *detail, void *payload);
E2MAP_API int e2map_scan_records(e2map_t *m, unsigned threads,
				 e2map_record_cb cb, void *payload);

/*
 * The path table: every name of every inode (all hard links), built in one
 * breadth-first pass over the directories reachable from the root, each
 * read once as the kernel's readdir reads it: a block whose checksum fails
 * is skipped, an entry that fails the kernel's checks ends its block, a
 * directory the kernel could not open (corrupt, or encrypted: no key, and
 * no-key names are not reproduced) lists nothing, a directory met under a
 * second name is not walked again, and none deeper than
 * E2MAP_PATHS_MAX_DEPTH components is walked, so a damaged tree cannot
 * loop.  Memory: about 24 bytes per name plus the name's length (and, while
 * building, 5 bytes per directory).  The table is a snapshot of M: free it
 * with e2map_paths_free (NULL is a no-op) before closing M, or after.
 * Returns 0, -ENOMEM, or -EFBIG past 2^32 names.
 */
#define E2MAP_PATHS_MAX_DEPTH 4096
typedef struct e2map_paths e2map_paths_t;
E2MAP_API int e2map_paths_build(e2map_t *m, e2map_paths_t **out);
E2MAP_API void e2map_paths_free(e2map_paths_t *p);
/*
 * CB for each path of inode INO ("/dir/name", "/" for the root; LEN bytes,
 * NUL-terminated, any byte but NUL possible, borrowed for the call), the
 * shortest first (breadth first; at one depth, in the order found).  An inode
 * no directory names (unreachable, or a special inode such as <8>) gets
 * no call.  A non-zero return from CB stops and is returned; else 0 or
 * -ENOMEM.
 */
typedef int (*e2map_path_cb)(const char *path, size_t len, void *payload);
E2MAP_API int e2map_inode_paths(const e2map_paths_t *p, uint64_t ino,
				e2map_path_cb cb, void *payload);

/*
 * Who owns each block of the filesystem, as an interval map built in one
 * pass: the layout (each superblock copy, group descriptors, reserved GDT
 * blocks, bitmaps, inode tables, the MMP block) and every inode in use
 * through the mapping walk (its written and unwritten runs, the extent
 * tree or indirect blocks the walk read, its xattr block; the journal's
 * and the orphan file's runs named as such, a directory's as directory).
 * What no owner covers is free or, where the block bitmap says in use,
 * UNKNOWN.  Ranges are sorted by START and cover every block from
 * s_first_data_block to the block count; where a damaged image gives two
 * owners one block, both ranges are there.  INO is the owning inode (0
 * for the layout), LBLK the run's first logical block (data, unwritten,
 * directory, journal).  An inode that cannot be read or walked keeps what
 * was found before the damage.  Memory: 40 bytes a range.
 * e2map_blockmap_find: the range holding BLOCK (its index in *INDEX if
 * not NULL), or NULL past the filesystem.  Build: 0, -EINVAL, -ENOMEM.
 */
enum e2map_owner_kind {
	E2MAP_OWNER_FREE,
	E2MAP_OWNER_UNKNOWN,
	E2MAP_OWNER_SUPERBLOCK,
	E2MAP_OWNER_GDT,
	E2MAP_OWNER_RESERVED_GDT,
	E2MAP_OWNER_BLOCK_BITMAP,
	E2MAP_OWNER_INODE_BITMAP,
	E2MAP_OWNER_INODE_TABLE,
	E2MAP_OWNER_MMP,
	E2MAP_OWNER_JOURNAL,
	E2MAP_OWNER_ORPHAN_FILE,
	E2MAP_OWNER_DATA,
	E2MAP_OWNER_UNWRITTEN,
	E2MAP_OWNER_DIRECTORY,
	E2MAP_OWNER_EXTENT_TREE,
	E2MAP_OWNER_INDIRECT,
	E2MAP_OWNER_XATTR_BLOCK
};
struct e2map_owner {
	uint64_t start, count;
	enum e2map_owner_kind kind;
	uint64_t ino, lblk;
};
typedef struct e2map_blockmap e2map_blockmap_t;
E2MAP_API int e2map_blockmap_build(e2map_t *m, e2map_blockmap_t **out);
E2MAP_API size_t e2map_blockmap_count(const e2map_blockmap_t *b);
E2MAP_API const struct e2map_owner *e2map_blockmap_get(
	const e2map_blockmap_t *b, size_t i);
E2MAP_API const struct e2map_owner *e2map_blockmap_find(
	const e2map_blockmap_t *b, uint64_t block, size_t *index);
/* "free", "superblock", "extent-tree"...: the names blockmap prints. */
E2MAP_API const char *e2map_owner_kind_name(enum e2map_owner_kind k);
E2MAP_API void e2map_blockmap_free(e2map_blockmap_t *b);
/*
 * The byte of the disk where the filesystem starts: a partition's start
 * (partition=N) plus offset=, 0 for a bare image.  A carver's hit at disk
 * byte X is in filesystem block (X - this) / block size.
 */
E2MAP_API uint64_t e2map_disk_offset(const e2map_t *m);
/*
 * What a carver looks through, from blockmap B of M, in block order: free
 * blocks (FREE), blocks the bitmap has in use that no owner was found for
 * (UNOWNED), and each regular file's slack: the unused TAIL of the block
 * that holds its EOF (from EOF to the block's end), and the blocks
 * allocated PAST_EOF.  OFFSET and LENGTH are bytes in the disk (as
 * e2map_disk_offset), INO the file for slack, else 0.  CB's non-zero
 * return stops and is returned; else 0 or -EINVAL.
 */
enum e2map_unalloc_kind {
	E2MAP_UNALLOC_FREE,
	E2MAP_UNALLOC_UNOWNED,
	E2MAP_UNALLOC_PAST_EOF,
	E2MAP_UNALLOC_TAIL
};
struct e2map_unalloc {
	enum e2map_unalloc_kind kind;
	uint64_t offset, length;
	uint64_t ino;
};
typedef int (*e2map_unalloc_cb)(const struct e2map_unalloc *u, void *payload);
E2MAP_API int e2map_unallocated(e2map_t *m, const e2map_blockmap_t *b,
				e2map_unalloc_cb cb, void *payload);
/* "free", "unowned", "past-eof", "tail". */
E2MAP_API const char *e2map_unalloc_kind_name(enum e2map_unalloc_kind k);

/*
 * The entries of directory F as getdents(2) lists them on a fresh mount,
 * in the kernel's order: hash order (ext4_dx_readdir) for an htree, a
 * single-block or an inline directory on a dir_index filesystem, "." and
 * ".." first for an htree and hashed among the names otherwise; block
 * order for any other directory and for an htree the kernel finds broken
 * at its root.  TYPE is d_type (DT_UNKNOWN without the filetype feature).
 * NAME is LEN bytes, not NUL-terminated, borrowed for the call.  What the
 * kernel skips is skipped (a block failing its checksum in block order, the
 * rest of a block after a bad entry); what fails getdents fails here,
 * after the entries before it: a name getdents refuses (empty, or with a
 * "/") -EIO, an htree block failing its checksum -EBADMSG.  An encrypted directory is -ENOKEY
 * (the kernel lists no-key names; e2map does not make them), anything but
 * a directory -ENOTDIR.  A non-zero return from CB stops and is returned.
 */
struct e2map_dirent {
	uint64_t ino;
	unsigned char type;
	const char *name;
	size_t len;
};
typedef int (*e2map_dirent_cb)(const struct e2map_dirent *de, void *payload);
E2MAP_API int e2map_readdir(e2map_file_t *f, e2map_dirent_cb cb,
			    void *payload);

/*
 * du's walk from PATH (its final symlink not followed), as GNU du walks the
 * mount: each directory in getdents order (a batch of more than 10,000
 * names sorted by inode number, as gnulib's fts sorts on ext4), a file of
 * several links counted at its first name only.  CB gets, in du's order,
 * every entry counted (WHAT E2MAP_DU_SIZE; a directory after everything
 * under it, BYTES its total) and what du would complain about, ERR set:
 * a name lstat could not reach (E2MAP_DU_CANNOT_ACCESS, nothing counted), a
 * directory whose listing failed before any name (..._CANNOT_READ_DIR) or
 * after some (..._READ_ERROR; also a size that could not be taken), each
 * right before that directory's own entry.  SIZE: st_blocks * 512, st_size,
 * or the bytes of written data below i_size (regular files and
 * directories; the mapping walk's DATA runs and inline data).  PATH is
 * borrowed for the call, LEN bytes and a NUL.  Returns 0, CB's non-zero
 * return, or -ENOMEM / -EINVAL; the errors CB got are not repeated.
 */
enum e2map_du_size {
	E2MAP_DU_ALLOCATED,
	E2MAP_DU_APPARENT,
	E2MAP_DU_WRITTEN
};
enum e2map_du_what {
	E2MAP_DU_SIZE,
	E2MAP_DU_CANNOT_ACCESS,
	E2MAP_DU_CANNOT_READ_DIR,
	E2MAP_DU_READ_ERROR
};
struct e2map_du_entry {
	const char *path;
	size_t len;
	int depth;		/* 0 for PATH itself */
	int dir;
	uint64_t bytes;
	int err;
	enum e2map_du_what what;
};
typedef int (*e2map_du_cb)(const struct e2map_du_entry *e, void *payload);
E2MAP_API int e2map_du(e2map_t *m, const char *path, enum e2map_du_size size,
		       e2map_du_cb cb, void *payload);

/*
 * Run on F what `e2map check` runs per inode: the whole SEEK_DATA/SEEK_HOLE
 * walk, the whole FIEMAP listing (batches of 32, as xfs_io asks) and a
 * FIEMAP_FLAG_XATTR call.  Returns 0 or the first error; ST counts calls.
 * A FIFO has nothing to map: 0, no calls.
 */
struct e2map_check_stats {
	uint64_t seeks, fiemaps, extents;
};
E2MAP_API int e2map_file_check(e2map_file_t *f, struct e2map_check_stats *st);
/*
 * The same for inode INO, reached as the kernel reaches it: an EA inode
 * (EXT4_EA_INODE_FL, on a filesystem with ea_inode: it holds a large xattr
 * value, no name or handle opens it) as the xattr code reads it, with
 * ext4_xattr_inode_iget's checks; any other inode as e2map_file_open_ino
 * (so -ELOOP for a symlink, -ENXIO for a special file).  Returns 0, the
 * open's error or the walk's.
 */
E2MAP_API int e2map_inode_check(e2map_t *m, uint64_t ino,
				struct e2map_check_stats *st);

/*
 * e2map_inode_check for every inode e2map_scan visits, on THREADS workers
 * (0: one per online CPU; at most 16, and one per block group), each
 * through a handle of its own on M's image, opened with M's options (its
 * own caches: a few MiB each).  The answers are those of one thread: each
 * inode is checked as a file on a fresh mount.  CB runs in the caller's
 * thread, in inode-number order, with the scan's record, the check's
 * result ERR (0, or in->err for a group whose inode table failed) and its
 * DETAIL (the checking handle's e2map_errmsg, "" when ERR is 0, borrowed
 * for the call); M is free for CB to use (the workers never touch it).
 * Workers run ahead of CB by at most 4,096 groups and 16 MiB of results,
 * so memory is bounded whatever the inode count.  With one thread, the inodes
 * are checked through M itself.  A non-zero return from CB stops the
 * check and is returned; else 0, -ENOMEM, or a worker handle's open error
 * (e2map_errmsg(M) says more).
 */
typedef int (*e2map_check_cb)(e2map_t *m, const struct e2map_inode *in,
			      int err, const char *detail, void *payload);
E2MAP_API int e2map_check_all(e2map_t *m, unsigned threads,
			      e2map_check_cb cb, void *payload);

/*
 * Metadata blocks (inode tables, extent and indirect blocks) read from the
 * image through M so far: what a lookup costs, for tests and benchmarks.
 */
E2MAP_API uint64_t e2map_blocks_read(const e2map_t *m);

/* Text for a negative errno, with e2map's wording for EUCLEAN/EBADMSG. */
E2MAP_API const char *e2map_strerror(int err);
/*
 * Detail of the most recent failure on M (or of the last e2map_open that
 * failed, when M is NULL, in this thread): "inode 12: extent depth 9".
 * Empty string when there is none.
 */
E2MAP_API const char *e2map_errmsg(const e2map_t *m);

#include <e2map/disk.h>

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_H */

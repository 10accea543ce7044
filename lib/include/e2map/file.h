/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: one inode: open it by path or number, then lseek, FIEMAP,
 * read, stat, readlink, readdir, its mapping runs, and its check.
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_FILE_H
#define E2MAP_PUBLIC_FILE_H

#include <e2map/common.h>
#include <linux/fiemap.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * e2map_file_walk) -EOPNOTSUPP, as the VFS answers for any FIFO.  A socket
 * gives -ENXIO.  A character or block device gives -ENXIO too: e2map
 * never opens the host's devices, and answers as a kernel that has no
 * driver for the device's major number.
 */
E2MAP_API int e2map_file_open(e2map_t *m, const char *path, e2map_file_t **out);

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
E2MAP_API int e2map_file_open_ino(e2map_t *m, uint64_t ino, e2map_file_t **out);
/*
 * open(2) of inode INO reached by a name in directory DIR (both by number,
 * as a FUSE server knows them): the checks of an open by name, the
 * parent's encryption policy among them (a file that is not encrypted in
 * an encrypted directory: -EPERM), not those of an open by handle.
 */
E2MAP_API int e2map_file_open_child(e2map_t *m, uint64_t dir, uint64_t ino,
				    e2map_file_t **out);
/* Close a file handle; NULL is a no-op. */
E2MAP_API void e2map_file_close(e2map_file_t *f);

/*
 * lseek(2) on the handle's position: SEEK_SET/CUR/END/DATA/HOLE.  Returns
 * the new offset or -ENXIO, -EINVAL, -ENOENT, -EUCLEAN, -EBADMSG, -EIO.
 */
E2MAP_API int64_t e2map_file_lseek(e2map_file_t *f, int64_t offset, int whence);

/*
 * FS_IOC_FIEMAP.  FM is the caller's struct fiemap followed by
 * fm_extent_count struct fiemap_extent; in and out exactly as the ioctl
 * (fm_flags write-back, fm_mapped_extents, EBADR with the unsupported
 * bits left in fm_flags, count mode when fm_extent_count is 0).
 */
E2MAP_API int e2map_file_fiemap(e2map_file_t *f, struct fiemap *fm);

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
E2MAP_API int64_t e2map_file_pread(e2map_file_t *f, void *buf, size_t len,
				   int64_t off);
/*
 * read(2): e2map_file_pread at the handle's position (the one e2map_file_lseek
 * moves), which moves on by the bytes read.  A FIFO reads as empty (0),
 * as read(2) on a FIFO that has no writer.  Errors as e2map_file_pread's.
 */
E2MAP_API int64_t e2map_file_read(e2map_file_t *f, void *buf, size_t len);

/*
 * Where bytes [OFF, OFF + LEN) of F lie, for a copy that need not pass
 * through a buffer (splice(2), sendfile(2), copy_file_range(2), a FUSE
 * reply spliced from a descriptor).  *OUT gets the first span: LEN bytes
 * at most, 0 at or past EOF.  A span with FD >= 0 holds exactly the bytes
 * e2map_file_pread returns there, bytes [FD_OFF, FD_OFF + LEN) of the
 * image, descriptor FD (read-only, the handle's image's: never close it;
 * it lives until e2map_close).  A span with FD -1 is to be read with
 * e2map_file_pread, which gives its bytes and its errors: a hole or a
 * preallocated range (zeroes), inline data, an image that is no bare raw
 * file (a container, a partition of a disk image, a journal replayed
 * into memory), a mapping that fails, a page a failure may take down.
 * Errors as e2map_file_pread's checks before any mapping (-EINVAL,
 * -ESPIPE for a FIFO, -EISDIR); nothing is read.
 */
struct e2map_span {
	int fd;			/* the image, or -1: read with e2map_file_pread */
	int64_t fd_off;		/* where the span starts in FD */
	uint64_t len;		/* bytes from OFF */
};
E2MAP_API int e2map_file_span(e2map_file_t *f, int64_t off, size_t len,
			      struct e2map_span *out);

/* stat(2) of an open file: 0, -EINVAL for a NULL handle, or an
 * encrypted symlink's error (below). */
E2MAP_API int e2map_file_stat(e2map_file_t *f, struct e2map_stat *st);
/*
 * stat(2) of PATH, without opening it: the lookup (a final symlink
 * followed, as stat(2) follows it) and the inode checks of
 * e2map_file_open, not the open's own (file type, encryption key).  Errors
 * as e2map_file_open's lookup part.
 */
E2MAP_API int e2map_path_stat(e2map_t *m, const char *path,
			      struct e2map_stat *st);
/*
 * lstat(2) of PATH: as e2map_path_stat, but a final symlink is the answer
 * itself (a trailing slash still follows it, as in the kernel).
 */
E2MAP_API int e2map_path_lstat(e2map_t *m, const char *path,
			       struct e2map_stat *st);
/*
 * stat of inode INO of any type, by number (as a handle reaches it, but
 * with __ext4_iget's own errno where the kernel's handle lookup would
 * say -ESTALE): 0 or past the inode count, or an unused inode: -ESTALE;
 * corrupted -EUCLEAN, a bad checksum -EBADMSG.  Special inodes (<8>)
 * answer too.
 */
E2MAP_API int e2map_inode_stat(e2map_t *m, uint64_t ino, struct e2map_stat *st);
/*
 * ext4_lookup of the LEN-byte NAME in directory DIR (by number), as the
 * VFS reaches one component: *INO the entry's inode, its checks passed
 * (a bad inode number -EUCLEAN, inconsistent encryption -EPERM).  "." and
 * ".." are the caller's (the VFS never asks).  -ENOENT for no such name,
 * -ENOTDIR when DIR is no directory, -ENAMETOOLONG past 255 bytes,
 * -ENOKEY in an encrypted directory; else e2map_inode_stat's errors for
 * DIR, or the directory's read errors.
 */
E2MAP_API int e2map_inode_lookup(e2map_t *m, uint64_t dir, const char *name,
				 size_t len, uint64_t *ino);
/*
 * readlink(2) of symlink INO (by number, as e2map_inode_stat): the target's
 * first SIZE bytes into BUF (no NUL added), returning the target's
 * length, which may exceed SIZE.  An encrypted symlink gives what the
 * kernel gives without the key: the no-key target (base64url of the
 * ciphertext, fscrypt_get_symlink), -EINVAL for a bad or unsupported
 * encryption context, -EUCLEAN for a bad stored length (past 149 bytes
 * of ciphertext, the no-key name ends with a SHA-256 of the rest, as the
 * kernel's does).  Not a symlink: -EINVAL (readlink's answer); a slow one
 * without its block: -EUCLEAN; else e2map_inode_stat's errors.
 */
E2MAP_API int64_t e2map_inode_readlink(e2map_t *m, uint64_t ino, char *buf,
				       size_t size);
/*
 * The same target in one read: *OUT allocated (free it with e2map_free) and
 * NUL-terminated, the length returned; on error *OUT is NULL and the
 * errors are e2map_inode_readlink's (-EINVAL for a NULL OUT).
 */
E2MAP_API int64_t e2map_inode_readlink_alloc(e2map_t *m, uint64_t ino,
					     char **out);

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
E2MAP_API int e2map_file_walk(e2map_file_t *f, uint64_t lblk, uint64_t nblk,
			      e2map_run_cb cb, void *payload);

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
 * "/") -EIO, an htree block failing its checksum -EBADMSG.  An encrypted
 * directory lists the kernel's no-key names (fscrypt_fname_disk_to_usr
 * without the key: base64url of the dirhash, in an htree, and the
 * ciphertext, its tail past 149 bytes as a SHA-256), -EUCLEAN at a name
 * too short to be ciphertext; its context unreadable: that errno.
 * Anything but a directory -ENOTDIR.  A non-zero return from CB stops and is returned.
 */
struct e2map_dirent {
	uint64_t ino;
	unsigned char type;
	const char *name;
	size_t len;
};
typedef int (*e2map_dirent_cb)(const struct e2map_dirent *de, void *payload);
E2MAP_API int e2map_file_readdir(e2map_file_t *f, e2map_dirent_cb cb,
				 void *payload);
/*
 * The same listing whole, kept: every entry e2map_file_readdir gives, in
 * its order (names NUL-terminated too), and ERR its error after them (0
 * when the whole directory was read; the entries before a failure are
 * there).  One allocation, freed by e2map_dirlist_free (NULL is a no-op).
 * Returns 0 with *OUT set, else -EINVAL or -ENOMEM with *OUT NULL.
 */
struct e2map_dirlist {
	size_t count;
	const struct e2map_dirent *entries;
	int err;
};
E2MAP_API int e2map_dirlist_read(e2map_file_t *f, struct e2map_dirlist **out);
E2MAP_API void e2map_dirlist_free(struct e2map_dirlist *l);

/*
 * Run on F what `e2map check` runs per inode: the whole SEEK_DATA/SEEK_HOLE
 * walk, the whole FIEMAP listing (batches of 32, as xfs_io asks) and a
 * FIEMAP_FLAG_XATTR call.  Returns 0 or the first error; ST counts calls.
 * A FIFO has nothing to map: 0, no calls.
 */
#define E2MAP_CHECK_STATS_VERSION 1
#define E2MAP_CHECK_STATS_INIT { .version = E2MAP_CHECK_STATS_VERSION }
struct e2map_check_stats {
	unsigned version;	/* E2MAP_CHECK_STATS_VERSION */
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
 * Digests of a file's bytes as read(2) gives them on the mount (hashdeep,
 * md5sum, sha1sum, sha256sum on the mounted file): ALGS any of the
 * E2MAP_DIGEST_* bits; one read from offset 0 to EOF (through
 * e2map_file_pread, 1 MiB a call) feeds every digest asked for.  OUT is
 * the caller's, with its version set (E2MAP_DIGEST_INIT); on success
 * OUT->algs says which digests are there.  Errors: -EINVAL for a NULL F,
 * an unknown version, no bit or an unknown bit in ALGS; the read's
 * error where the kernel's read(2) fails (-EISDIR for a directory, -EIO
 * at damage, -ESPIPE for a FIFO), with no digest in OUT (algs 0); -ENOMEM.
 * The handle's position is left where it was.
 */
#define E2MAP_DIGEST_MD5 0x1u
#define E2MAP_DIGEST_SHA1 0x2u
#define E2MAP_DIGEST_SHA256 0x4u
#define E2MAP_DIGEST_VERSION 1
#define E2MAP_DIGEST_INIT { E2MAP_DIGEST_VERSION, 0, { 0 }, { 0 }, { 0 } }
struct e2map_digest {
	unsigned version;	/* E2MAP_DIGEST_VERSION */
	unsigned algs;		/* the E2MAP_DIGEST_* bits computed */
	unsigned char md5[16], sha1[20], sha256[32];
};
E2MAP_API int e2map_file_digest(e2map_file_t *f, unsigned algs,
				struct e2map_digest *out);
/*
 * ALG's digest in D (one E2MAP_DIGEST_* bit) as lowercase hex into OUT
 * (room for 65 bytes), NUL-terminated: its length, or -EINVAL where D
 * does not hold it.
 */
E2MAP_API int e2map_digest_hex(const struct e2map_digest *d, unsigned alg,
			       char *out);
/* "md5", "sha1", "sha256" for one bit; NULL for anything else. */
E2MAP_API const char *e2map_digest_name(unsigned alg);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_FILE_H */

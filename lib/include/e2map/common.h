/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: the types and rules every part of <e2map.h> shares: the
 * version, names, errors, callbacks, threads, memory, and the stat record.
 */
#ifndef E2MAP_PUBLIC_COMMON_H
#define E2MAP_PUBLIC_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define E2MAP_API __attribute__((visibility("default")))
#else
#define E2MAP_API
#endif

#define E2MAP_VERSION_MAJOR 0
#define E2MAP_VERSION_MINOR 2
#define E2MAP_VERSION_PATCH 0
#define E2MAP_VERSION "0.2.0"
/*
 * The library's own version, which may be newer than the header's a
 * program was built with: its string, and its numbers into MAJOR, MINOR
 * and PATCH where these are not NULL.  In 0.x a minor step may rename or
 * change calls (NEWS lists each); from 1.0 only a major step will.
 */
E2MAP_API const char *e2map_version(int *major, int *minor, int *patch);

/*
 * Names.  After e2map_, a call's first word says what it acts on:
 *   file_   an open inode, e2map_file_t (e2map_file_lseek, e2map_file_stat)
 *   path_   a path looked up in the image (e2map_path_stat, e2map_path_lstat)
 *   inode_  an inode number (e2map_inode_stat, e2map_inode_readlink)
 *   a module's name for its own objects and passes (e2map_paths_build,
 *   e2map_blockmap_find, e2map_tree_walk, e2map_disk_read, e2map_scan),
 *   and nothing for the image itself (e2map_open, e2map_statfs).
 *
 * Errors.  Every call returns 0 (or a value >= 0) on success and a
 * negative errno on failure.  Where the kernel fails, the errno is the
 * kernel's; corrupted metadata is -EUCLEAN, a bad metadata checksum
 * -EBADMSG.  e2map_errmsg says more.
 *
 * Callbacks.  Every call that takes a callback follows one rule: the
 * callback returns 0 to go on; any other value stops the call, which
 * returns that value unchanged, before anything else it would have done.
 * E2MAP_EUSER is never returned by the library itself: a callback that
 * stops with it (or with any value outside -4095..-1) is not mistaken
 * for an errno of the library's.  E2MAP_SKIP is the one other reserved
 * value: a tree walk's callback returns it to pass over an entry (a
 * directory is not entered); elsewhere it stops, as any other value.
 */
#define E2MAP_EUSER (-4096)
#define E2MAP_SKIP (-4097)

/*
 * Threads.  A handle (an e2map_t and the e2map_file_t opened from it)
 * belongs to one thread at a time: calls on it must not overlap, and
 * need no lock otherwise.  Different handles run in parallel freely, on
 * the same image too (each has its own caches).  A built paths table or
 * blockmap is read-only and may be read from several threads at once.
 * e2map_errmsg(NULL) is the calling thread's own.  e2map_check_all and
 * e2map_scan_records start threads of their own, on handles of their own.
 *
 * Memory.  Memory a call hands over is freed by the library: by its
 * module's free (e2map_paths_free, e2map_blockmap_free, e2map_disk_free)
 * or by e2map_free (e2map_inode_readlink_alloc's target), never by the
 * caller's free(), which may be another allocator's.
 *
 * Growth.  A struct the caller allocates and the library fills starts
 * with VERSION, which the caller sets (its E2MAP_..._INIT does, in C99
 * and C++20; before them, set it by hand): the library writes only the
 * fields of that version, and answers -EINVAL to a version it does not
 * know, writing nothing.  Structs the library hands to a
 * callback or allocates itself may grow at their end.
 */
E2MAP_API void e2map_free(void *p);

/* lseek whence values, equal to <unistd.h>'s so callers need no _GNU_SOURCE. */
#define E2MAP_SEEK_SET 0
#define E2MAP_SEEK_CUR 1
#define E2MAP_SEEK_END 2
#define E2MAP_SEEK_DATA 3
#define E2MAP_SEEK_HOLE 4

typedef struct e2map e2map_t;		/* an opened image */
typedef struct e2map_file e2map_file_t;	/* one open inode, like an fd */

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
 * that target does (e2map_inode_readlink).
 */
#define E2MAP_STAT_VERSION 1
#define E2MAP_STAT_INIT { .version = E2MAP_STAT_VERSION }
struct e2map_stat {
	unsigned version;	/* E2MAP_STAT_VERSION */
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

/* Text for a negative errno, with e2map's wording for EUCLEAN/EBADMSG. */
E2MAP_API const char *e2map_strerror(int err);
/*
 * Detail of the most recent failure on M (or of the last e2map_open that
 * failed, when M is NULL, in this thread): "inode 12: extent depth 9".
 * Empty string when there is none.
 */
E2MAP_API const char *e2map_errmsg(const e2map_t *m);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_COMMON_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: the past of an image from its journal: earlier versions of an
 * inode, the names a directory held, and recovery of deleted files.
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_HISTORY_H
#define E2MAP_PUBLIC_HISTORY_H

#include <e2map/common.h>
#include <e2map/file.h>	/* struct e2map_digest */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The journal area read once: every copy of a metadata block it still
 * holds, from each descriptor block's tags (the live log and what lies
 * before and after it; revoked copies too).  A tag over a part of the
 * log written again since, one naming a block past the device, a copy
 * whose v2/v3 checksum fails, and damaged header blocks are skipped and
 * counted (e2map_journal_info).  Returns 0, -ENOENT (no journal),
 * -EOPNOTSUPP (an external journal), -EUCLEAN or -EBADMSG (the journal
 * superblock), -EIO, -ENOMEM; e2map_errmsg(M) says more.  The handle
 * uses M, which must stay open until e2map_journal_close.
 */
typedef struct e2map_journal e2map_journal_t;
E2MAP_API int e2map_journal_open(e2map_t *m, e2map_journal_t **out);
E2MAP_API void e2map_journal_close(e2map_journal_t *j);
struct e2map_journal_info {
	uint64_t copies;	/* metadata-block copies kept */
	uint64_t past_device, bad_copies, stale_tags, bad_blocks;
	uint32_t sequence, start;	/* s_sequence, s_start (0: clean) */
};
E2MAP_API void e2map_journal_info(const e2map_journal_t *j,
				  struct e2map_journal_info *out);

/* A version's FLAGS. */
#define E2MAP_COPY_COMMITTED 0x1u	/* its transaction's commit block found */
#define E2MAP_COPY_REVOKED 0x2u		/* a revoke of that or a later one */
#define E2MAP_COPY_LIVE 0x4u		/* in the log recovery would replay */
#define E2MAP_COPY_OLD 0x8u		/* before the log's tail: checkpointed */
#define E2MAP_COPY_ESCAPED 0x10u	/* stored escaped (magic restored) */
#define E2MAP_COPY_DISK 0x20u		/* the inode as the image holds it now */
#define E2MAP_COPY_CSUM_BAD 0x40u	/* its metadata_csum fails */

/*
 * One version of an inode: TID the transaction of the first journal copy
 * holding it (LAST_TID the last of COPIES identical ones in a row), the
 * commit time (0 without a commit block), the journal block JBLOCK (0 for
 * the disk's) and the inode table BLOCK; then the inode's fields as that
 * copy holds them, times in seconds since the epoch (the extra epoch bits
 * applied) and nanoseconds, I_BLOCK its 60 bytes as stored (little
 * endian): the extent tree's root or the block pointers.  BLOCKS is
 * i_blocks as stored (512-byte units, or blocks with EXT4_HUGE_FILE_FL).
 */
struct e2map_version {
	uint32_t tid, last_tid, copies, flags;
	int64_t commit_sec;
	uint32_t commit_nsec;
	uint64_t jblock, block;
	uint32_t mode, uid, gid, links, iflags, generation, dtime;
	uint64_t size, blocks, file_acl;
	int64_t atime, ctime, mtime, crtime;
	uint32_t atime_ns, ctime_ns, mtime_ns, crtime_ns;
	unsigned char i_block[60];
};
typedef int (*e2map_version_cb)(const struct e2map_version *v, void *arg);
/*
 * CB for each version of inode INO, oldest first (by transaction, then
 * the disk's last), identical versions in a row given once.  A non-zero
 * return from CB stops and is returned; else 0, -ESTALE for a number past
 * the inode count, -EIO, -ENOMEM.
 */
E2MAP_API int e2map_inode_history(e2map_journal_t *j, uint64_t ino,
				  e2map_version_cb cb, void *arg);

/*
 * The data runs version V (of e2map_inode_history) mapped: CB with each
 * run's first logical and physical block and length in blocks, in logical
 * order, up to V's size; unwritten extents and inline data give none.  The
 * index, leaf and indirect blocks are the journal's copies no later than
 * V, else the disk's.  Returns 1 when the whole map was read, 0 when a
 * tree or indirect block was missing or damaged (its part left out), a
 * non-zero CB return, or -ENOMEM.
 */
typedef int (*e2map_vrun_cb)(uint64_t lblk, uint64_t pblk, uint64_t len,
			     void *arg);
E2MAP_API int e2map_version_map(e2map_journal_t *j,
				const struct e2map_version *v,
				e2map_vrun_cb cb, void *arg);

/*
 * The names directory INO held: each entry of each version of each of its
 * blocks (the journal's copies and the disk's, through the block maps of
 * its versions), each name and inode given once, with the first and last
 * transaction it was seen in (0 for the disk) and NOW set when the
 * directory holds it on disk now.  CB's non-zero return stops.
 */
struct e2map_dir_name {
	const char *name;	/* borrowed; LEN bytes, NUL-terminated */
	size_t len;
	uint64_t ino;
	uint32_t first_tid, last_tid;
	int now;
};
typedef int (*e2map_dir_name_cb)(const struct e2map_dir_name *d, void *arg);
E2MAP_API int e2map_dir_history(e2map_journal_t *j, uint64_t ino,
				e2map_dir_name_cb cb, void *arg);

/*
 * Recovery of a deleted inode INO: the newest version before its deletion
 * whose map still maps data (the tree's index and leaf blocks, or ext3's
 * indirect blocks, from their journal copies, else from the disk where no
 * inode owns them now), as ranges of blocks.  A range is RECOVERED when no
 * inode or layout owns any of its blocks now and no later version of any
 * inode in the journal mapped them; else OVERWRITTEN (OWNER: the inode
 * owning it now, 0 for the layout or a past owner).  STATE: COMPLETE when
 * every range is recovered and the map was read whole; PARTIAL when some
 * are; OVERWRITTEN when none; NONE when no version maps data.  An inode
 * in use now gives the newest earlier file it held (a version of another
 * generation), or -EEXIST.  Returns 0, -EEXIST, -ESTALE for a number past
 * the count, -EIO, -ENOMEM.
 */
enum e2map_recover_state {
	E2MAP_RECOVER_NONE,
	E2MAP_RECOVER_COMPLETE,
	E2MAP_RECOVER_PARTIAL,
	E2MAP_RECOVER_OVERWRITTEN
};
struct e2map_recover_range {
	uint64_t lblk, pblk, count;	/* blocks */
	int overwritten;
	uint64_t owner;
};
struct e2map_recover_plan {
	uint64_t ino, size;
	uint32_t block_size;
	enum e2map_recover_state state;
	int map_whole;		/* every index/indirect block was read */
	struct e2map_version version;	/* the one recovered */
	struct e2map_recover_range *ranges;
	size_t nranges;
	uint64_t recovered_blocks, overwritten_blocks;
	unsigned char *inline_data;	/* an inline file's bytes, else NULL */
	e2map_journal_t *journal;
};
E2MAP_API int e2map_recover_plan(e2map_journal_t *j, uint64_t ino,
				 struct e2map_recover_plan **out);
/*
 * Bytes [OFF, OFF + LEN) of the recovered file, up to its size: the
 * recovered ranges' bytes read from the image, zeroes elsewhere (holes,
 * overwritten ranges).  Returns the count (0 at or past the size) or
 * -errno.
 */
E2MAP_API int64_t e2map_recover_pread(struct e2map_recover_plan *p, void *buf,
				      uint64_t len, uint64_t off);
E2MAP_API void e2map_recover_free(struct e2map_recover_plan *p);
/*
 * ALGS' digests (E2MAP_DIGEST_* bits) of the recovered file's bytes, as
 * e2map_recover_pread gives them to its size (zeroes where nothing was
 * recovered), into OUT (E2MAP_DIGEST_INIT): what sha256sum says of the
 * file recover writes.  0, -EINVAL, -ENOMEM or a read's -errno.
 */
E2MAP_API int e2map_recover_digest(struct e2map_recover_plan *p,
				   unsigned algs, struct e2map_digest *out);
/* "none", "complete", "partial", "overwritten". */
E2MAP_API const char *e2map_recover_state_name(enum e2map_recover_state s);
/*
 * CB for every inode, in number order, that a journal version shows in use
 * by a file the image no longer holds: the inode is free now (no links,
 * or a dtime), or in use by another generation.  Recovery's candidates.
 */
typedef int (*e2map_ino_cb)(uint64_t ino, void *arg);
E2MAP_API int e2map_deleted_inodes(e2map_journal_t *j, e2map_ino_cb cb,
				   void *arg);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_HISTORY_H */

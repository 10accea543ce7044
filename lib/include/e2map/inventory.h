/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: the whole image: every inode (scan, records, checks), every name
 * (the paths table), every block (the blockmap, what is unallocated).
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_INVENTORY_H
#define E2MAP_PUBLIC_INVENTORY_H

#include <e2map/common.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * the mapping seek and fiemap use (e2map_file_walk), then one FIEMAP count
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
#define E2MAP_RECORD_VERSION 1
#define E2MAP_RECORD_INIT { .version = E2MAP_RECORD_VERSION }
struct e2map_record {
	unsigned version;	/* E2MAP_RECORD_VERSION */
	uint64_t ino;
	int err;
	uint32_t flags;		/* E2MAP_REC_* */
	uint64_t written, unwritten, holes, past_eof;	/* bytes */
	uint64_t meta_blocks;
	uint64_t extents, fiemap_extents;
	/* Last, so that a later stat version grows the record at its end;
	 * its version is E2MAP_STAT_VERSION of the record's version. */
	struct e2map_stat st;
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
 * e2map_scan_records, and, in the same inode order, one record more for
 * each inode a name in the path table *PATHS reaches that the scan does
 * not find in use: what lstat of its first name answers, as the kernel's
 * readdir and lstat would (ERR its errno: a free or damaged inode behind
 * a name; or the stat, and the map where the inode can be read by
 * number).  So every name of the path table is in some record.  *PATHS
 * NULL: the table is built on M before the first record is handed on
 * (while the workers go on), and left in *PATHS for CB and the caller,
 * who frees it, whatever the return.  PATHS NULL: e2map_scan_records.
 */
typedef struct e2map_paths e2map_paths_t;
E2MAP_API int e2map_scan_records_named(e2map_t *m, unsigned threads,
				       e2map_paths_t **paths,
				       e2map_record_cb cb, void *payload);

/*
 * The path table: every name of every inode (all hard links), built in one
 * breadth-first pass over the directories reachable from the root, each
 * read once as the kernel's getdents reads it (e2map_file_readdir: hash
 * order in an htree, no-key names in an encrypted directory, nothing
 * past a failure), a directory the kernel could not open lists nothing,
 * a directory met under a
 * second name is not walked again, and none deeper than
 * E2MAP_PATHS_MAX_DEPTH components is walked, so a damaged tree cannot
 * loop.  Memory: about 24 bytes per name plus the name's length (and, while
 * building, 5 bytes per directory).  The table is a snapshot of M: free it
 * with e2map_paths_free (NULL is a no-op) before closing M, or after.
 * Returns 0, -ENOMEM, or -EFBIG past 2^32 names.
 */
#define E2MAP_PATHS_MAX_DEPTH 4096
E2MAP_API int e2map_paths_build(e2map_t *m, e2map_paths_t **out);
E2MAP_API void e2map_paths_free(e2map_paths_t *p);
/*
 * CB for each path of inode INO ("/dir/name", "/" for the root; LEN bytes,
 * NUL-terminated, any byte but NUL possible, borrowed for the call), the
 * shortest first (breadth first; at one depth, in the order found).  An inode
 * no directory names (unreachable, or a special inode such as <8>) gets
 * no call.  A name stands for the inode lstat(2) of it reaches (where a
 * damaged directory holds a name twice, both stand for the first
 * entry's), or, where that lstat fails, the inode its entry holds.  A
 * non-zero return from CB stops and is returned; else 0, -EINVAL or
 * -ENOMEM.
 */
typedef int (*e2map_path_cb)(const char *path, size_t len, void *payload);
E2MAP_API int e2map_paths_foreach(const e2map_paths_t *p, uint64_t ino,
				  e2map_path_cb cb, void *payload);
/*
 * e2map_paths_foreach with what lstat(2) of each path answers on the
 * mount: ERR 0, or its negative errno, DETAIL the reason (borrowed; ""
 * when ERR is 0).  It fails with the inode's own trouble (__ext4_iget
 * refusing it) or on its own, where the inode answers by number: the
 * htree probe misses the name (ENOENT), it names a directory above it
 * (ELOOP), or one of another encryption policy (EPERM), or an EA inode
 * (EUCLEAN).  A directory is listed under a name whose lstat works.
 */
typedef int (*e2map_path_lstat_cb)(const char *path, size_t len, int err,
				   const char *detail, void *payload);
E2MAP_API int e2map_paths_foreach_lstat(const e2map_paths_t *p, uint64_t ino,
					e2map_path_lstat_cb cb,
					void *payload);

/*
 * Who owns each block of the filesystem, as an interval map built in one
 * pass: the layout (each superblock copy, group descriptors, reserved GDT
 * blocks, bitmaps, inode tables, the MMP block) and every inode in use
 * through the mapping walk (its written and unwritten runs, the extent
 * tree or indirect blocks the walk read, its xattr block; the journal's
 * and the orphan file's runs named as such, a directory's as directory).
 * What no owner covers is free or, where the block bitmap says in use,
 * UNKNOWN.  With 1 KiB blocks, block 0 is BOOT: the 1024 bytes before
 * the superblock, the filesystem's nothing (before s_first_data_block, or,
 * with bigalloc, in group 0's first cluster all the same); with larger
 * blocks it is the superblock's.  Ranges are sorted by START and cover
 * every block from 0 to the block count; where a damaged image gives two
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
	E2MAP_OWNER_XATTR_BLOCK,
	E2MAP_OWNER_BOOT
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
E2MAP_API int e2map_check_all(e2map_t *m, unsigned threads, e2map_check_cb cb,
			      void *payload);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_INVENTORY_H */

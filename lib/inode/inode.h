/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inode layer: an inode loaded and checked as __ext4_iget checks it
 * (inode.c, iget.c: the inode cache, iget and iput), and how its blocks
 * are found -- the extent-status cache (escache.c), the extent tree
 * (extent.c), indirect maps (blockmap.c), inline data (inline.c), the
 * mapping walk over them (map.c) -- and its xattrs, read by inode
 * (xattr_area.c parses an area, xattr.c reads a value, through an EA
 * inode where it has one).
 *
 * struct e2map_file is the kernel's in-memory inode with its extent-status
 * cache (spec §3.3) and the set of extent leaves (or indirect blocks)
 * already read (§7); the file layer's handle is one of these.
 */
#ifndef E2MAP_INODE_H
#define E2MAP_INODE_H

#include "disk.h"

/* Largest logical block count of a file, as ext4's EXT_MAX_BLOCKS. */
#define E2MAP_MAX_BLOCKS 0xffffffffULL
/* Deepest extent tree the kernel walks (EXT4_MAX_EXTENT_DEPTH). */
#define E2MAP_MAX_DEPTH 5

/* In-inode xattrs and inline data (xattr*.c, inline.c, mount/fc). */
#define E2MAP_XATTR_MAGIC 0xEA020000U
#define E2MAP_XATTR_INDEX_SYSTEM 7
#define E2MAP_MIN_INLINE_DATA_SIZE 60	/* i_block */
/* sizeof(struct ext4_inode) - 128: what __ext4_iget takes for a large
 * inode's i_extra_isize of 0 */
#define E2MAP_KERNEL_EXTRA_ISIZE 32

/* One extent-status cache entry: kind, logical range, physical start. */
struct es_entry {
	uint32_t lblk;
	uint32_t len;
	uint64_t pblk;
	enum e2map_run_kind kind;
};

struct escache {
	struct es_entry *v;
	size_t n, cap;
	size_t hint;		/* last search's answer: a guess, checked */
};

enum e2map_source { SRC_EXTENT, SRC_BLOCKMAP, SRC_INLINE };

struct e2map_file {
	e2map_t *m;
	ext2_ino_t ino;
	unsigned char *raw;		/* on-disk inode, s_inode_size bytes */
	struct ext2_inode_large *inode;	/* = raw, for field access */
	uint64_t inode_pblk;		/* block holding the inode */
	uint32_t inode_off;		/* its offset inside that block */
	uint64_t size;
	uint64_t maxbytes;
	int64_t pos;
	enum e2map_source src;
	uint32_t inline_size;		/* 60 + size of system.data */
	uint32_t inline_value;		/* system.data's offset in raw */
	bool xattr_in_inode;		/* EXT4_STATE_XATTR */
	uint64_t file_acl;
	/* Blocks [ok_lo, ok_hi) passed ext4_inode_block_valid for this
	 * inode: any range inside them passes too (the zone is fixed). */
	uint64_t ok_lo, ok_hi;
	struct escache es;
	struct blkset leaves;
	unsigned char *buf;		/* one block, for tree reads */
	/* file/read.c: what reads map lives apart from seek's and FIEMAP's */
	struct escache rd_es;
	struct blkset rd_leaves;
	unsigned char *bounce;		/* one block of file data */
	bool pass;			/* got by a pass's work (iget.c) */
};

/*
 * ext4_inode_block_valid for F's block references.  The mapping walk asks
 * it at every call, as the kernel's check_block_validity does, mostly of
 * the run it asked about last: that run is remembered.
 */
static inline bool e2map__inode_block_valid(e2map_file_t *f, uint64_t pblk,
					    uint64_t count)
{
	if (pblk >= f->ok_lo && pblk < f->ok_hi && count <= f->ok_hi - pblk)
		return true;
	if (!e2map__zone_valid(f->m, f->ino, pblk, count))
		return false;
	f->ok_lo = pblk;
	f->ok_hi = pblk + count;
	return true;
}

/* inode.c: the on-disk inode of F->ino, loaded and its fields checked */
uint64_t e2map__inode_blocks(const e2map_file_t *f);
uint64_t e2map__stat_blocks(const e2map_file_t *f);
int e2map__inode_load(e2map_file_t *f, bool by_number);
/* stat(2)'s fields from the loaded inode, as ext4_iget decodes them. */
void e2map__inode_stat(const e2map_file_t *f, struct e2map_stat *st);
size_t e2map__raw_size(const e2map_t *m);	/* bytes of an inode's raw copy */
/* INO as e2map_scan sees it in its inode table, before any check. */
int e2map__inode_peek(e2map_t *m, ext2_ino_t ino, struct e2map_inode *out);
/* An inode table entry's scan fields (mode, links, size, flags) from RAW. */
void e2map__inode_decode(const unsigned char *raw, uint64_t ino,
			 struct e2map_inode *out);
/* i_flags of INO as its inode table holds them, before any check. */
int e2map__inode_raw_flags(e2map_t *m, ext2_ino_t ino, uint32_t *flags);

/*
 * iget.c: __ext4_iget (every check, any type), through the image's
 * inode cache; e2map__iput gives it back.  How an inode is reached:
 * by a name, by handle ("<INO>"), or as the EA inode holding an xattr
 * value (ext4_xattr_inode_iget).
 */
enum e2map_iget { E2MAP_IGET_NAME, E2MAP_IGET_HANDLE, E2MAP_IGET_EA };
int e2map__iget_how(e2map_t *m, ext2_ino_t ino, enum e2map_iget how,
		    e2map_file_t **out);
int e2map__iget(e2map_t *m, ext2_ino_t ino, bool by_number,
		e2map_file_t **out);
/* iput: F and all it holds freed (NULL: nothing). */
void e2map__iput(e2map_file_t *f);
/* An inode number a handle may name: 1 to s_inodes_count, else -ESTALE
 * with the range in the detail (the VFS's answer to a stale handle). */
int e2map__ino_check(e2map_t *m, uint64_t ino);
/* A call by inode number: INO checked, then iget by handle, any type,
 * with __ext4_iget's own errno (e2map_inode_stat, the xattr calls). */
int e2map__iget_ino(e2map_t *m, uint64_t ino, e2map_file_t **out);
void e2map__icache_free(e2map_t *m);
bool e2map__fast_symlink(const e2map_file_t *f);

/*
 * xattr_area.c: an xattr area, in the inode (values from FIRST) or a block
 * (values from the block's start), checked as check_xattrs checks it;
 * an entry found by index and name as xattr_find_entry finds it.
 */
struct e2map__xarea {
	const unsigned char *vstart, *first, *end;
};
struct e2map__xentry {
	const char *name;	/* as stored, without the prefix; not NUL-ended */
	unsigned name_len, index;
	uint32_t offs, inum, size, hash;
};
int e2map__xarea_check(const e2map_t *m, const struct e2map__xarea *a);
/* SORTED (a block's area) stops past where NAME would be. */
bool e2map__xarea_find(const struct e2map__xarea *a, unsigned index,
		       const char *name, size_t len, bool sorted,
		       struct e2map__xentry *out);
/* CB for each entry in order; a non-zero CB result stops and is returned. */
typedef int (*e2map__xentry_cb)(const struct e2map__xentry *e, void *payload);
int e2map__xarea_each(const struct e2map__xarea *a, e2map__xentry_cb cb,
		      void *payload);
/*
 * xattr.c: ext4_xattr_get: the value's length (SIZE 0) or the value in
 * BUF, or -ENODATA, -ERANGE, the corruption's -errno.
 */
int64_t e2map__xattr_get(e2map_file_t *f, unsigned index, const char *name,
			 size_t len, void *buf, size_t size);
/* xattr.c: CB for the in-inode entries, then the block's (ext4_listxattr's
 * order); the block's errors stop it. */
int e2map__xattr_list(e2map_file_t *f, e2map__xentry_cb cb, void *payload);

/* inline.c: in-inode xattr area, system.data, FIEMAP_FLAG_XATTR region */
int e2map__ibody_scan(e2map_file_t *f);
uint64_t e2map__inline_addr(const e2map_file_t *f);

/* map.c: the mapping walk (e2map_file_walk's contract, the file layer's) */
int e2map__walk(e2map_file_t *f, uint64_t lblk, uint64_t nblk,
		e2map_run_cb cb, void *payload);
/* An open file without a block map (a FIFO): lseek and FIEMAP by type. */
bool e2map__unmapped(const e2map_file_t *f);

/* escache.c */
bool e2map__es_lookup(struct escache *c, uint32_t lblk,
		      struct es_entry *out);
int e2map__es_insert(struct escache *c, const struct es_entry *e);
int e2map__es_cache(struct escache *c, const struct es_entry *e);
void e2map__es_free(struct escache *c);

/*
 * Map blocks [lblk, lblk + n) as ext4_map_blocks does without create:
 * the cache first, else the on-disk tree.  *out gets the run starting at
 * lblk (kind HOLE, DATA or UNWRITTEN), never longer than n.
 */
int e2map__map_blocks(e2map_file_t *f, uint32_t lblk, uint32_t n,
		      struct es_entry *out);
/* extent.c, blockmap.c: the on-disk lookups behind a cache miss. */
int e2map__extent_map(e2map_file_t *f, uint32_t lblk, uint32_t n,
		      struct es_entry *out);
int e2map__extent_check_root(e2map_file_t *f);
int e2map__extent_precache(e2map_file_t *f, bool force_root);
int e2map__blockmap_map(e2map_file_t *f, uint32_t lblk, uint32_t n,
			struct es_entry *out);
int e2map__blockmap_check_root(e2map_file_t *f);
int e2map__warm(e2map_file_t *f);

/*
 * The iomap-level mapping of [off, off + len) (ext4_iomap_begin_report, or
 * the xattr mapper): one mapping covering off.  -ENOENT means "nothing
 * at or after off" (inline and xattr mappers).
 */
struct e2map_iomap {
	uint64_t off, len, addr;
	enum e2map_run_kind kind;
	bool merged;
};
int e2map__iomap_report(e2map_file_t *f, uint64_t off, uint64_t len,
			struct e2map_iomap *out);
int e2map__iomap_xattr(e2map_file_t *f, uint64_t off, struct e2map_iomap *out);

#endif /* E2MAP_INODE_H */

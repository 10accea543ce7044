/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private structures of libe2map, shared by lib/ only.
 * The handle layout mirrors the kernel's objects: struct e2map is a mounted
 * superblock, struct e2map_file an in-memory inode with its extent-status
 * cache (spec §3.3) and the set of extent leaves (or indirect blocks)
 * already read (§7).
 */
#ifndef E2MAP_INTERNAL_H
#define E2MAP_INTERNAL_H

#include "e2map.h"

#include <stdbool.h>
#include <ext2fs/ext2fs.h>

/* On-disk little-endian fields, read byte by byte (any alignment). */
static inline uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Largest logical block count of a file, as ext4's EXT_MAX_BLOCKS. */
#define E2MAP_MAX_BLOCKS 0xffffffffULL
/* Deepest extent tree the kernel walks (EXT4_MAX_EXTENT_DEPTH). */
#define E2MAP_MAX_DEPTH 5

/* A range of the system zone (block_validity.c). */
struct e2map_zone {
	uint64_t start, count;
};
struct e2map_zones {
	struct e2map_zone *v;
	size_t n, cap;
	size_t hint;		/* last search's answer: a guess, checked */
};

/* Sorted set of physical block numbers (extent leaves already verified). */
struct blkset {
	uint64_t *v;
	size_t n, cap;
};

struct e2map {
	ext2_filsys fs;
	char *image;			/* the path given to e2map_open */
	char *options;			/* its OPTIONS, for sibling handles */
	struct e2map_zones zone;	/* metadata: valid for no inode */
	struct e2map_zones jzone;	/* journal blocks: valid for it only */
	uint32_t bs;
	unsigned bits;
	uint32_t itb;			/* inode table blocks per group */
	uint64_t s_maxbytes;		/* extent-mapped inodes (spec §6) */
	uint64_t s_bitmap_maxbytes;	/* block-mapped inodes */
	bool warm;			/* cache=warm */
	size_t replayed;		/* blocks journal recovery laid over */
	uint64_t blocks_read;		/* metadata blocks read from the image */
	uint64_t disk_offset;		/* the filesystem's first byte in the disk */
	struct blkset dir_ok;		/* directory blocks whose checksum passed */
	dgrp_t itable_ahead;		/* inode tables prefetched below this group */
	/* What a mount keeps between calls, made on first use (each is
	 * bounded whatever the image's size): */
	struct e2map_bcache *bcache;	/* blocks (bcache.c) */
	struct e2map_icache *icache;	/* checked inodes (iget.c) */
	struct e2map_dcache *dcache;	/* large directories' names (dcache.c) */
	char errmsg[256];
};

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
	struct escache es;
	struct blkset leaves;
	unsigned char *buf;		/* one block, for tree reads */
	/* read.c: what reads map lives apart from seek's and FIEMAP's */
	struct escache rd_es;
	struct blkset rd_leaves;
	unsigned char *bounce;		/* one block of file data */
};

/* array.c: make room for NEED elements of ELEM bytes in *V; -ENOMEM */
int e2map__grow(void **v, size_t *cap, size_t need, size_t elem);
/* array.c: a path built a component at a time ("/" joins them, once) */
struct e2map_pathbuf {
	char *s;
	size_t len, cap;
};
int e2map__path_push(struct e2map_pathbuf *p, const char *name, size_t n);

/* errors.c */
int e2map__fail(e2map_t *m, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int e2map__errcode(e2map_t *m, errcode_t code, const char *what);
void e2map__set_open_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* options.c: e2map_open's OPTIONS */
struct e2map_options {
	uint64_t offset;		/* offset=BYTES */
	unsigned partition;		/* partition=N; 0: none given */
	bool warm;			/* cache=warm */
	bool replay;			/* replay: the journal recovered */
};
int e2map__parse_options(const char *options, struct e2map_options *o);

/*
 * The layers, bottom-up: under the image, invisible above it, the media
 * (a raw file or a container), its partition table and e2map's io
 * manager (io.h: io_media.c, partition.c, io_manager.c, io_select.c);
 * the image and its block cache; the system zone;
 * an inode loaded and checked (inode.c, iget.c); the mapping walk
 * (map.c over escache.c, extent.c, blockmap.c, inline.c); directories
 * (dirent.c, dcache.c) and path lookup (lookup.c, crypt.c); the file
 * handle (file.c); and what answers through it (seek.c, fiemap.c, read.c,
 * check.c, scan.c, paths.c, du.c, record.c; parscan.c, a whole-image
 * pass on several threads).
 */

/* image.c */
bool e2map__block_valid(const e2map_t *m, uint64_t pblk, uint64_t count);

/*
 * journal.c: the blocks journal recovery would write (*OUT NULL when the
 * journal needs none), or the -errno the kernel's mount fails with.
 */
/* fs/ext4/fast_commit.h: the tags (journal.c scans them, fcreplay.c
 * applies them), each after a 4-byte struct ext4_fc_tl. */
enum { E2MAP_FC_ADD_RANGE = 1, E2MAP_FC_DEL_RANGE, E2MAP_FC_CREAT,
       E2MAP_FC_LINK, E2MAP_FC_UNLINK, E2MAP_FC_INODE, E2MAP_FC_PAD,
       E2MAP_FC_TAIL, E2MAP_FC_HEAD };
#define E2MAP_FC_TL 4

/* In-inode xattrs and inline data (xattr.c, inline.c, fcreplay.c). */
#define E2MAP_XATTR_MAGIC 0xEA020000U
#define E2MAP_XATTR_INDEX_SYSTEM 7
#define E2MAP_MIN_INLINE_DATA_SIZE 60	/* i_block */

struct e2map_overlay;
/*
 * The fast commits journal recovery replays after the log's blocks:
 * NBLOCKS blocks of BS bytes from the journal's fast-commit area, of
 * which the first TAGS tags are replayed (fcreplay.c).
 */
struct e2map_fc {
	unsigned char *blocks;
	size_t nblocks, cap;
	unsigned tags;
	uint32_t bs;
};
/* The recovered blocks in *OUT (NULL: nothing to recover), the fast
 * commits in *FC (NULL: none). */
int e2map__journal_replay(e2map_t *m, struct e2map_overlay **out,
			  struct e2map_fc **fc);
void e2map__fc_free(struct e2map_fc *fc);
/* fcreplay.c: FC applied to FS (writable over its overlay), as
 * ext4_fc_replay applies it at mount. */
int e2map__fc_replay(ext2_filsys fs, const struct e2map_fc *fc);

/* bcache.c: block PBLK into BUF, through the image's block cache */
int e2map__read_block(e2map_t *m, uint64_t pblk, void *buf);
/* LEN bytes at OFF of block PBLK (OFF + LEN within the block) */
int e2map__read_part(e2map_t *m, uint64_t pblk, size_t off, size_t len,
		     void *buf);
/* Blocks [PBLK, PBLK + COUNT) are about to be read in order: a hint. */
void e2map__read_ahead(e2map_t *m, uint64_t pblk, uint64_t count);
/* Blocks [PBLK, PBLK + COUNT) will be read soon, in no set order: ask the
 * media to start reading them now (posix_fadvise on a raw image). */
void e2map__prefetch(e2map_t *m, uint64_t pblk, uint64_t count);
void e2map__bcache_free(e2map_t *m);

/* syszone.c */
int e2map__zone_setup(e2map_t *m);
/* zonesim.c: add_system_zone's tree, for overlapping ranges */
struct e2map_zsim {
	struct znode *v;
	uint32_t n, root;
};
int e2map__zsim_init(struct e2map_zsim *t, size_t adds);
/* 0, or -EUCLEAN when START lies inside a range met on the way down */
int e2map__zsim_add(struct e2map_zsim *t, uint64_t start, uint32_t count,
		    uint32_t ino);
void e2map__zsim_free(struct e2map_zsim *t);
void e2map__zone_free(e2map_t *m);
bool e2map__inode_block_valid(const e2map_file_t *f, uint64_t pblk,
			      uint64_t count);

/* limits.c */
uint64_t e2map__max_size(unsigned bits, bool huge_file);
uint64_t e2map__max_bitmap_size(unsigned bits, bool huge_file);

/* crc32c.c: ext4's crc32c update (ext2fs_crc32c_le's), in hardware where it can */
uint32_t e2map__crc32c(uint32_t crc, const void *buf, size_t len);

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
 * inode cache; release with e2map_file_close.  How an inode is reached:
 * by a name, by handle ("<INO>"), or as the EA inode holding an xattr
 * value (ext4_xattr_inode_iget).
 */
enum e2map_iget { E2MAP_IGET_NAME, E2MAP_IGET_HANDLE, E2MAP_IGET_EA };
int e2map__iget_how(e2map_t *m, ext2_ino_t ino, enum e2map_iget how,
		    e2map_file_t **out);
int e2map__iget(e2map_t *m, ext2_ino_t ino, bool by_number,
		e2map_file_t **out);
void e2map__icache_free(e2map_t *m);
bool e2map__fast_symlink(const e2map_file_t *f);

/* file.c: PATH's inode as a path call reaches it (FOLLOW: a final
 * symlink followed), loaded and checked; no open, no stat. */
int e2map__lookup_inode(e2map_t *m, const char *path, bool follow,
			e2map_file_t **out);

/* crypt.c: fscrypt without keys */
int e2map__crypt_dir_info(e2map_file_t *dir);
bool e2map__crypt_permitted(e2map_file_t *parent, e2map_file_t *child);
int e2map__crypt_open(e2map_file_t *f, e2map_file_t *parent);
int e2map__crypt_nokey_name(const char *name, unsigned len,
			    unsigned char *disk);
/* The no-key target of encrypted symlink F from its data (MAX bytes);
 * *TARGET NULL (but *LEN set) where the kernel would hash it. */
int e2map__crypt_symlink(e2map_file_t *f, const unsigned char *caddr,
			 size_t max, char **target, size_t *len);
/* An encrypted symlink's target as the kernel follows it without the
 * key (its no-key name), from DATA of MAX bytes; malloc'd. */
int e2map__crypt_symlink_target(e2map_file_t *f, const unsigned char *data,
				size_t max, char **target);

/*
 * xattr.c: an xattr area, in the inode (values from FIRST) or a block
 * (values from the block's start), checked as check_xattrs checks it;
 * an entry found by index and name as xattr_find_entry finds it; and
 * ext4_xattr_get: the value's length (SIZE 0) or the value in BUF, or
 * -ENODATA, -ERANGE, the corruption's -errno.
 */
struct e2map__xarea {
	const unsigned char *vstart, *first, *end;
};
struct e2map__xentry {
	uint32_t offs, inum, size;
};
int e2map__xarea_check(const e2map_t *m, const struct e2map__xarea *a);
bool e2map__xarea_find(const struct e2map__xarea *a, unsigned index,
		       const char *name, size_t len, struct e2map__xentry *out);
int64_t e2map__xattr_get(e2map_file_t *f, unsigned index, const char *name,
			 size_t len, void *buf, size_t size);

/* inline.c: in-inode xattr area, system.data, FIEMAP_FLAG_XATTR region */
int e2map__ibody_scan(e2map_file_t *f);
uint64_t e2map__inline_addr(const e2map_file_t *f);

/* map.c: the mapping walk */
/* An open file without a block map (a FIFO): lseek and FIEMAP by type. */
bool e2map__unmapped(const e2map_file_t *f);

/*
 * scan.c: CB for each inode of group G in use (BUF: one block), as
 * e2map_scan visits them; a non-zero CB result stops and is returned.
 */
int e2map__scan_group(e2map_t *m, dgrp_t g, unsigned char *buf,
		      e2map_scan_cb cb, void *payload);

/*
 * parscan.c: WORK on every inode e2map_scan visits, on THREADS workers
 * (0: one per CPU), each through its own handle H on M's image; HAND in
 * the caller's thread, in inode order, with the RESULT (SIZE bytes, as
 * WORK left it) and the DETAIL WORK pointed at (copied; NULL: none).  A
 * negative WORK or non-zero HAND return stops the pass and is returned.
 */
struct e2map__par {
	size_t size;
	int (*work)(e2map_t *h, const struct e2map_inode *in, void *result,
		    const char **detail);
	int (*hand)(e2map_t *m, const struct e2map_inode *in, void *result,
		    const char *detail, void *payload);
};
int e2map__par_scan(e2map_t *m, unsigned threads, const struct e2map__par *ops,
		    void *payload);

/* escache.c */
bool e2map__es_lookup(struct escache *c, uint32_t lblk,
		      struct es_entry *out);
int e2map__es_insert(struct escache *c, const struct es_entry *e);
int e2map__es_cache(struct escache *c, const struct es_entry *e);
void e2map__es_free(struct escache *c);
bool e2map__blkset_add(struct blkset *s, uint64_t pblk, int *err);
bool e2map__blkset_has(const struct blkset *s, uint64_t pblk);
void e2map__blkset_free(struct blkset *s);

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

/* A name inside a directory: not NUL-terminated. */
struct e2map_name {
	const char *s;
	unsigned len;
};
/* dirent.c: __ext4_find_entry, 0 and *INO, or -ENOENT, or the error. */
int e2map__find_entry(e2map_file_t *dir, const struct e2map_name *n,
		      uint32_t *ino);
/*
 * dirent.c, ext4_readdir's view of a directory: CB(INO, NAME) for each
 * entry in use but "." and "..", up to the first entry that fails
 * ext4_check_dir_entry (the rest of that block is skipped).  A non-zero
 * CB result stops and is returned.  The block form takes directory block
 * LBLK as read from PBLK into B, and fails with -EBADMSG (nothing listed)
 * when its checksum does not match; the inline form reads i_block and
 * system.data.
 */
typedef int (*e2map__dirent_cb)(uint32_t ino, const struct e2map_name *name,
				void *payload);
int e2map__dirblock_iterate(e2map_file_t *dir, uint32_t lblk, uint64_t pblk,
			    const unsigned char *b, e2map__dirent_cb cb,
			    void *payload);
int e2map__inline_dir_iterate(e2map_file_t *dir, e2map__dirent_cb cb,
			      void *payload);

int e2map__no_entry(e2map_file_t *dir, const struct e2map_name *n);
/* dirent.c, for dcache.c: the names a linear-only, clean directory holds,
 * in scan order; -EAGAIN for any other directory. */
int e2map__dir_list_linear(e2map_file_t *dir, e2map__dirent_cb cb,
			   void *payload);

/* lookup.c, for tree walks: NAME in the open DIR, whose ancestors from
 * the root are CHAIN[0..N), checked as lstat(2) of DIR/NAME */
int e2map__lookup_child(e2map_file_t *dir, const ext2_ino_t *chain, size_t n,
			const struct e2map_name *name, e2map_file_t **out);

/* dcache.c: 1 and *INO, 0 (no such name), or -EAGAIN: search the directory */
int e2map__dcache_find(e2map_file_t *dir, const struct e2map_name *n,
		       uint32_t *ino);
void e2map__dcache_free(e2map_t *m);

/*
 * lookup.c: "<INO>" or a path (a final symlink followed when FOLLOW) to
 * its inode; *PARENT is the directory it was found in (0: none)
 */
int e2map__lookup(e2map_t *m, const char *path, bool follow, ext2_ino_t *ino,
		  ext2_ino_t *parent);
/*
 * lookup.c: readlink(2) of symlink F, malloc'd and NUL-terminated, its
 * length in *LEN (ext4_get_link: at most a block less one byte); for an
 * encrypted one the no-key target (e2map__crypt_symlink), *TARGET NULL
 * where e2map does not make it.
 */
int e2map__read_link(e2map_file_t *f, char **target, size_t *len);

#endif /* E2MAP_INTERNAL_H */

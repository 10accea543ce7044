/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Within the directory layer: one directory as the entry checks, the
 * htree walk, lookups and readdir see it (entry.c, htree.c, namei.c,
 * iterate.c, readdir.c).  The layer's calls for the layers above are
 * dir.h's.
 */
#ifndef E2MAP_DIRENT_H
#define E2MAP_DIRENT_H

#include "dir.h"

#define FT_DIR_CSUM 0xDE
#define TAIL_SIZE 12		/* struct ext4_dir_entry_tail */
#define DX_TAIL_SIZE 8		/* struct dx_tail */
#define DX_BAD (-100000)	/* ERR_BAD_DX_DIR: fall back to linear */

/* One directory being searched or listed. */
struct dir {
	e2map_file_t *f;
	uint32_t bs;
	bool csum;		/* metadata_csum */
	bool hash_in_dirent;	/* encrypted + casefolded: 8 more bytes */
	/* casefolded (and not encrypted): the superblock's encoding */
	const struct ext2fs_nls_table *cf;
};

/* One level of the htree walk (struct dx_frame). */
struct frame {
	unsigned char *b;
	size_t entries;		/* offset of the dx_entry array */
	unsigned at, count;
};

static inline uint32_t dx_hash(const struct frame *fr, unsigned i)
{
	return le32(fr->b + fr->entries + 8 * i);
}

static inline uint32_t dx_block(const struct frame *fr, unsigned i)
{
	return le32(fr->b + fr->entries + 8 * i + 4) & 0x0fffffff;
}

/* entry.c */
struct dir e2map__dir_of(e2map_file_t *f);
/* ext4_dir_rec_len */
uint32_t e2map__dir_rec_len(unsigned name_len, bool hash);
/* __ext4_check_dir_entry, on a matching entry at OFF of a SIZE buffer. */
bool e2map__entry_ok(const struct dir *d, const unsigned char *de, size_t off,
		     size_t size);
/* Where logical block LBLK of the directory lies: 0 for a hole, and then
 * *HOLE is how many blocks the hole spans (at most N). */
int e2map__dir_map(const struct dir *d, uint32_t lblk, uint32_t n,
		   uint64_t *pblk, uint32_t *hole);
/* A leaf's (or with INDEX, an index block's) checksum, verified once. */
bool e2map__csum_once(const struct dir *d, uint64_t pblk, bool index,
		      const unsigned char *b);
enum dirblock_type { DIRENT_HTREE, INDEX };
/* ext4_read_dirblock for the htree walk: holes and checksums refused. */
int e2map__read_dirblock(const struct dir *d, uint32_t lblk,
			 enum dirblock_type type, unsigned char *b);
/* is_dx_internal_node: blocks whose checksum the linear scan skips. */
bool e2map__dx_internal(const struct dir *d, uint32_t lblk,
			const unsigned char *b);

/* htree.c: dx_probe from the root to the leaf for *HASH (N's hash, or
 * the caller's when N is NULL), FR[0..*LEVELS] filled; DX_BAD or -errno */
int e2map__dx_probe(const struct dir *d, struct frame *fr, unsigned *levels,
		    const struct e2map_name *n, uint32_t *hash);
/* ext4_htree_next_block: 1 when the next leaf may hold HASH too; *BHASH,
 * the next index entry's hash. */
int e2map__dx_next(const struct dir *d, struct frame *fr, unsigned levels,
		   uint32_t hash, uint32_t *bhash);

#endif /* E2MAP_DIRENT_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Within the fast-commit replay: the state its parts share and the calls
 * they make of each other.  The replay is split where the kernel's code
 * is: fc_replay.c is ext4_fc_replay and its tags; under it the names
 * (fc_name.c's ext4_add_entry over fc_inline.c, fc_htree.c and
 * fc_dirblock.c), the extents (fc_tree.c over fc_extent.c) and the
 * blocks and inodes (fc_alloc.c, fc_inode.c).  The sections below run
 * bottom-up: a file calls only the files declared above its own
 * section, so no two files call each other.  The mount layer's one call
 * in is mount.h's e2map__fc_replay.
 */
#ifndef E2MAP_FC_H
#define E2MAP_FC_H

#include "mount.h"

#define EXT_MAGIC 0xf30a
#define INIT_MAX 32768U
#define UNWRITTEN_MAX 32767U
#define ROOT_MAX 4U
#define I_BLOCK 40		/* offsetof(struct ext4_inode, i_block) */
#define I_GENERATION 100	/* offsetof(struct ext4_inode, i_generation) */
#define NONE SIZE_MAX
#define MAX_LBLK 0xffffffffULL	/* EXT_MAX_BLOCKS */
#define MAX_EXTENTS (1U << 20)	/* a tree bigger than this is refused */
#define DOT_LEN 12		/* ext4_dir_rec_len(1) and (2) */

struct fx {			/* one extent of the leaves */
	uint32_t lblk, len;
	uint64_t pblk;
	bool unwritten;
	unsigned leaf;		/* the leaf it lies in, counted from 0 */
};

struct tree {			/* an inode's extent tree, read whole */
	struct fx *x;
	size_t n, cap;
	blk64_t *nodes;		/* the blocks below the root */
	size_t nnodes, capnodes;
	unsigned depth, nleaves;
};

struct region {
	uint64_t pblk;
	uint32_t len;
};

struct fcr {
	ext2_filsys fs;
	struct region *rg;	/* fc_regions: never allocated from */
	size_t nrg, caprg;
	ext2_ino_t *mod;	/* fc_modified_inodes, in order */
	size_t nmod, capmod;
	struct tree t;
	unsigned char *raw;	/* one on-disk inode */
	unsigned char *blk;	/* one block */
};

/* A name of a creat, link or unlink tag. */
struct dentry {
	ext2_ino_t parent, ino;
	char name[EXT2_NAME_LEN + 1];
	int len;
};

static inline void put16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void put32(unsigned char *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static inline uint16_t raw_mode(const unsigned char *raw)
{
	return le16(raw);
}

static inline uint32_t raw_flags(const unsigned char *raw)
{
	return le32(raw + 32);
}

static inline uint64_t raw_size(const unsigned char *raw)
{
	return le32(raw + 4) | (uint64_t)le32(raw + 108) << 32;
}

static inline uint64_t xend(const struct fx *e)
{
	return (uint64_t)e->lblk + e->len;
}

static inline unsigned node_max(const struct fcr *r)
{
	return (r->fs->blocksize - 12) / 12;
}

static inline unsigned rec_len(unsigned name_len)
{
	return (8 + name_len + 3) & ~3U;
}

static inline unsigned csum_size(const struct fcr *r)
{
	return ext2fs_has_feature_metadata_csum(r->fs->super) ? 12 : 0;
}

/* A directory block's entry at OFF: inode, rec_len, name_len. */
struct de {
	uint32_t ino;
	unsigned rlen, nlen;
};

static inline struct de de_at(const unsigned char *b, size_t off)
{
	return (struct de){ le32(b + off), le16(b + off + 4), b[off + 6] };
}

/* fc_inode.c: the words of a failed replay, and the inode in r->raw */
int e2map__fc_fail(int err, const char *what, uint32_t ino);
/* What e2map does not replay (the kernel does): refused, not guessed. */
int e2map__fc_unsupported(const char *what, uint32_t ino);
int e2map__fc_code2err(errcode_t code, const char *what, uint32_t ino);
int e2map__fc_read_raw(struct fcr *r, ext2_ino_t ino);
int e2map__fc_write_raw(struct fcr *r, ext2_ino_t ino);
/* ext4_iget(EXT4_IGET_NORMAL) succeeds: the inode is read into r->raw. */
bool e2map__fc_iget_ok(struct fcr *r, ext2_ino_t ino);
/* ext4_mark_inode_used */
void e2map__fc_mark_inode_used(struct fcr *r, ext2_ino_t ino, uint16_t mode);
/* fc_modified_inodes: INO once, in the order first met */
int e2map__fc_record_modified(struct fcr *r, ext2_ino_t ino);

/* fc_alloc.c: ext4_mb_mark_bb over LEN blocks from BLK */
void e2map__fc_mark_bb(struct fcr *r, uint64_t blk, uint64_t len, bool on);
/* ext4_mb_new_blocks_simple from GOAL, into *OUT (marked in use) */
int e2map__fc_alloc(struct fcr *r, blk64_t goal, blk64_t *out);
/* ext4_inode_to_goal_block, as it runs during the replay */
blk64_t e2map__fc_goal(const struct fcr *r, ext2_ino_t ino);
/* fc_regions: blocks the allocator keeps away from */
int e2map__fc_add_region(struct fcr *r, uint64_t pblk, uint32_t len);

/* fc_extent.c: the extents of r->t as a list, edited as the kernel edits
 * the tree */
/* The last extent starting at or before LBLK, or NONE. */
size_t e2map__fc_find(const struct tree *t, uint32_t lblk);
/* ext4_map_blocks without create: *E is the mapped piece, or a hole. */
bool e2map__fc_lookup(const struct tree *t, uint32_t cur, uint32_t rem,
		      struct fx *e);
int e2map__fc_put_at(struct tree *t, size_t i, const struct fx *e);
int e2map__fc_add_node(struct tree *t, blk64_t b);
/* How many leaves of a depth-1 tree still hold extents. */
size_t e2map__fc_leaves_used(const struct tree *t);
/* ext4_ext_insert_extent of E into a hole */
int e2map__fc_insert(struct fcr *r, const struct fx *e);
/* ext4_ext_replay_update_ex: [START, START + LEN) gets PBLK and state. */
int e2map__fc_update_ex(struct tree *t, uint32_t start, uint32_t len,
			bool unwritten, uint64_t pblk);
/* ext4_ext_remove_space over [START, LAST] */
int e2map__fc_remove_space(struct tree *t, uint32_t start, uint32_t last);
/* ext4_ext_replay_shrink_inode up to block END */
void e2map__fc_shrink(struct tree *t, uint64_t end);

/* fc_tree.c: r->t read from and written to the inode in r->raw */
int e2map__fc_tree_read(struct fcr *r, ext2_ino_t ino);
int e2map__fc_tree_write(struct fcr *r, ext2_ino_t ino);
void e2map__fc_put_header(unsigned char *h, unsigned entries, unsigned max,
			  unsigned depth);
/* r->t's extents into the inode's root (depth 0) */
void e2map__fc_write_root(struct fcr *r);
/* The bitmaps' bits of r->t's blocks, data and tree, set or cleared. */
void e2map__fc_mark_tree(struct fcr *r, bool on);
/* ext4_ext_clear_bb */
int e2map__fc_clear_bb(struct fcr *r);

/* fc_dirblock.c: entries in a directory's blocks (tree in r->t) */
int e2map__fc_file_type(uint16_t mode);
void e2map__fc_de_put(struct fcr *r, unsigned char *b, size_t off,
		      const struct dentry *d, unsigned rlen, uint16_t mode);
/* The logical block LBLK of the directory whose tree is r->t. */
int e2map__fc_dir_block(struct fcr *r, ext2_ino_t dir, uint32_t lblk,
			blk64_t *pblk, unsigned char *buf);
int e2map__fc_dir_write(struct fcr *r, ext2_ino_t dir, blk64_t pblk,
			unsigned char *buf);
/* ext4_append */
int e2map__fc_dir_append(struct fcr *r, ext2_ino_t dir, uint32_t *lblk,
			 blk64_t *pblk);
/* ext4_find_dest_de and ext4_insert_dentry in [B, B + ROOM) */
bool e2map__fc_add_in(struct fcr *r, unsigned char *b, size_t room,
		      const struct dentry *d, uint16_t mode);
bool e2map__fc_add_to_block(struct fcr *r, unsigned char *b,
			    const struct dentry *d, uint16_t mode);

/* fc_htree.c: names into an htree, or a directory made one */
/* dx_probe's checks of the root: true where it finds ERR_BAD_DX_DIR. */
bool e2map__fc_dx_root_bad(const struct fcr *r, const unsigned char *root);
/* ext4_dx_add_entry where it is the kernel's exactly (*DONE) */
int e2map__fc_dx_add(struct fcr *r, const struct dentry *d, uint16_t mode,
		     unsigned char *root, blk64_t root_pblk, bool *done);
/* make_indexed_dir */
int e2map__fc_make_indexed(struct fcr *r, const struct dentry *d,
			   uint16_t mode, unsigned char *root,
			   blk64_t root_pblk);

/* fc_inline.c: ext4_try_add_inline_entry; 1: the directory became a block */
int e2map__fc_inline_add(struct fcr *r, const struct dentry *d,
			 uint16_t mode);
/* ext4_try_create_inline_dir */
int e2map__fc_inline_new_dir(struct fcr *r, const struct dentry *d);

/* fc_name.c: ext4_add_entry */
int e2map__fc_add_entry(struct fcr *r, const struct dentry *d, uint16_t mode);

#endif /* E2MAP_FC_H */

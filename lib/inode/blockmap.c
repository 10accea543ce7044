/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Block-mapped inodes (ext2, ext3, ext4 without extents): the kernel's
 * ext4_ind_map_blocks on a cache miss (spec §3.4, §8.2).  A mapped run
 * never crosses the end of the pointer array it starts in; a hole covers
 * the rest of the missing subtree (for zero pointers inside a leaf array
 * the kernel answers block by block; reporting the whole zero run at once
 * yields the same walk, since holes of block maps are never cached).
 */
#include "inode.h"

#include <errno.h>
#include <inttypes.h>

#define NDIR 12
#define IND 12
#define DIND 13
#define TIND 14

struct path {
	unsigned depth;
	uint32_t off[4];
	uint32_t boundary;	/* blocks left in the last array after ours */
};

/* ext4_block_to_path: where LBLK's pointer lives; false past the tree. */
static bool block_to_path(unsigned bits, uint64_t lblk, struct path *p)
{
	unsigned l = bits - 2;
	uint64_t ppb = 1ULL << l, mask = ppb - 1;

	if (lblk < NDIR) {
		*p = (struct path){ 1, { (uint32_t)lblk }, NDIR - 1 - (uint32_t)lblk };
		return true;
	}
	lblk -= NDIR;
	if (lblk < ppb) {
		*p = (struct path){ 2, { IND, (uint32_t)lblk }, 0 };
	} else if ((lblk -= ppb) < ppb * ppb) {
		*p = (struct path){ 3, { DIND, (uint32_t)(lblk >> l),
					 (uint32_t)(lblk & mask) }, 0 };
	} else if ((lblk -= ppb * ppb) < ppb * ppb * ppb) {
		*p = (struct path){ 4, { TIND, (uint32_t)(lblk >> 2 * l),
					 (uint32_t)((lblk >> l) & mask),
					 (uint32_t)(lblk & mask) }, 0 };
	} else {
		return false;
	}
	p->boundary = (uint32_t)(mask - p->off[p->depth - 1]);
	return true;
}

static int bad_pointer(e2map_file_t *f, uint64_t blk)
{
	return e2map__fail(f->m, -EUCLEAN, "inode %u: block pointer %" PRIu64
			   " outside the data area", f->ino, blk);
}

/* ext4_check_blockref: every pointer of an indirect block must be valid. */
static int check_array(e2map_file_t *f, const unsigned char *a, uint32_t n)
{
	uint32_t i, blk;

	for (i = 0; i < n; i++) {
		blk = le32(a + 4 * i);
		if (blk && !e2map__inode_block_valid(f, blk, 1))
			return bad_pointer(f, blk);
	}
	return 0;
}

int e2map__blockmap_check_root(e2map_file_t *f)
{
	return check_array(f, (const unsigned char *)f->inode->i_block,
			   EXT2_N_BLOCKS);
}

/*
 * ext4_get_branch checks an indirect block only when it first reads it
 * (a buffer already up to date is trusted), and fails that read with
 * -EIO; the handle's block set stands for the mount's buffer cache.
 */
static int read_indirect(e2map_file_t *f, uint32_t blk)
{
	int err = 0;
	bool first;

	if ((err = e2map__read_block(f->m, blk, f->buf)) < 0)
		return err;
	first = e2map__blkset_add(&f->leaves, blk, &err);
	if (err < 0)
		return err;
	if (first && check_array(f, f->buf, f->m->bs / 4) < 0)
		return e2map__fail(f->m, -EIO, "inode %u: indirect block %u "
				   "holds an invalid pointer", f->ino, blk);
	return 0;
}

/*
 * ext4_get_branch: follow P down.  Returns the level whose pointer is zero
 * (P->depth when the whole chain exists); *ARR is the last array reached.
 */
static int get_branch(e2map_file_t *f, const struct path *p,
		      const unsigned char **arr, unsigned *level)
{
	uint32_t blk = 0;	/* p->depth >= 1, which gcc -O1 cannot see */
	unsigned i;
	int err;

	*arr = (const unsigned char *)f->inode->i_block;
	for (i = 0; i < p->depth; i++) {
		blk = le32(*arr + 4 * p->off[i]);
		if (!blk || i + 1 == p->depth)
			break;
		if ((err = read_indirect(f, blk)) < 0)
			return err;
		*arr = f->buf;
	}
	*level = blk ? p->depth : i;
	return 0;
}

/* The missing subtree under a zero pointer at LEVEL, as the kernel counts. */
static uint64_t hole_blocks(const struct path *p, unsigned level,
			    const unsigned char *arr, uint32_t ppb)
{
	uint64_t count = 0;
	unsigned i;

	if (level + 1 == p->depth) {
		/* Zero pointers in a leaf array: the whole run of them. */
		for (count = 1; count <= p->boundary &&
		     !le32(arr + 4 * (p->off[level] + count)); count++)
			;
		return count;
	}
	for (i = level + 1; i < p->depth; i++)
		count = count * ppb + (ppb - p->off[i] - 1);
	return count + 1;
}

int e2map__blockmap_map(e2map_file_t *f, uint32_t lblk, uint32_t n,
			struct es_entry *out)
{
	const unsigned char *arr;
	uint32_t first, count;
	unsigned level = 0;	/* set by get_branch; gcc -O1 cannot see it */
	struct path p;
	int err;

	*out = (struct es_entry){ lblk, n, 0, E2MAP_RUN_HOLE };
	if (!block_to_path(f->m->bits, lblk, &p))
		return e2map__fail(f->m, -EIO, "inode %u: block %u is past "
				   "the block map", f->ino, lblk);
	if ((err = get_branch(f, &p, &arr, &level)) < 0)
		return err;
	if (level < p.depth) {
		uint64_t h = hole_blocks(&p, level, arr, f->m->bs / 4);

		if (h < out->len)
			out->len = (uint32_t)h;
		return 0;
	}
	first = le32(arr + 4 * p.off[p.depth - 1]);
	for (count = 1; count < n && count <= p.boundary &&
	     le32(arr + 4 * (p.off[p.depth - 1] + count)) == first + count;
	     count++)
		;
	*out = (struct es_entry){ lblk, count, first, E2MAP_RUN_DATA };
	return e2map__es_insert(&f->es, out);
}

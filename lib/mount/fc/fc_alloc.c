/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The replay's allocator: ext4_mb_mark_bb (bits set and cleared as the
 * replay moves blocks, the free counts with them) and
 * ext4_mb_new_blocks_simple, the allocator the kernel uses while
 * EXT4_FC_REPLAY is set.  It must skip the fc_regions (the ranges the
 * fast commits add, and the blocks replayed inodes held) or a new
 * extent or directory block would land on data a later tag places
 * there; the kernel's own choice is kept so that FIEMAP after --replay
 * shows the kernel's blocks.
 */
#include "fc.h"

#include <errno.h>

/*
 * ext4_mb_mark_bb: ceil(LEN / cluster) clusters from BLK's cluster, group
 * by group (on bigalloc an unaligned range leaves its last cluster as it
 * was: the kernel's count, kept).  Only the bits that change move the
 * counts.
 */
void e2map__fc_mark_bb(struct fcr *r, uint64_t blk, uint64_t len, bool on)
{
	ext2_filsys fs = r->fs;
	blk64_t ratio = EXT2FS_CLUSTER_RATIO(fs), end = ext2fs_blocks_count(fs->super);
	blk64_t bpg = fs->super->s_blocks_per_group, first, c, n, part;

	while (len && blk < end && blk >= fs->super->s_first_data_block) {
		first = ext2fs_group_first_block2(fs, ext2fs_group_of_blk2(fs, blk));
		c = (blk - first) / ratio;	/* the cluster in its group */
		part = bpg - c * ratio;
		part = len < part ? len : part;
		for (n = 0; n < (part + ratio - 1) / ratio; n++) {
			blk64_t b = first + (c + n) * ratio;

			if (b < end && !ext2fs_test_block_bitmap2(fs->block_map,
								  b) != !on)
				ext2fs_block_alloc_stats2(fs, b, on ? 1 : -1);
		}
		blk += part;
		len -= part;
	}
}

/* The end of the fc region holding BLK, or 0: none holds it. */
static uint64_t excluded_to(const struct fcr *r, uint64_t blk)
{
	size_t i;

	for (i = 0; i < r->nrg; i++)
		if (blk >= r->rg[i].pblk && blk - r->rg[i].pblk < r->rg[i].len)
			return r->rg[i].pblk + r->rg[i].len;
	return 0;
}

/* The first block in [FROM, TO) free and in no fc region, or TO. */
static blk64_t first_free(const struct fcr *r, blk64_t from, blk64_t to)
{
	blk64_t ratio = EXT2FS_CLUSTER_RATIO(r->fs), b = from, skip;

	while (b < to) {
		if (ext2fs_find_first_zero_block_bitmap2(r->fs->block_map, b,
							 to - 1, &b))
			return to;
		b &= ~(ratio - 1);	/* bigalloc: its cluster's first block */
		if (!(skip = excluded_to(r, b)))
			return b;
		b = (skip + ratio - 1) & ~(ratio - 1);
	}
	return to;
}

/*
 * ext4_mb_new_blocks_simple: the first free block from GOAL that no fast
 * commit adds, on to the last group, then from the first group up to
 * GOAL's (the part of GOAL's group before it is never looked at).
 */
int e2map__fc_alloc(struct fcr *r, blk64_t goal, blk64_t *out)
{
	ext2_filsys fs = r->fs;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t end = ext2fs_blocks_count(fs->super), b, stop;

	if (goal < first || goal >= end)
		goal = first;
	stop = ext2fs_group_first_block2(fs, ext2fs_group_of_blk2(fs, goal));
	if ((b = first_free(r, goal, end)) == end &&
	    (b = first_free(r, first, stop)) == stop)
		return e2map__fc_fail(-ENOSPC, "no free block for the replay",
				      0);
	e2map__fc_mark_bb(r, b, 1, true);
	*out = b;
	return 0;
}

/*
 * ext4_inode_to_goal_block, under delalloc (the default mount), as it
 * runs during the replay: ext4_fill_flex_info has not run yet, so the
 * flex group is 1 and the goal is the inode's own group.
 */
blk64_t e2map__fc_goal(const struct fcr *r, ext2_ino_t ino)
{
	return ext2fs_group_first_block2(r->fs, ext2fs_group_of_ino(r->fs, ino));
}

int e2map__fc_add_region(struct fcr *r, uint64_t pblk, uint32_t len)
{
	if (!len)
		return 0;
	if (e2map__grow((void **)&r->rg, &r->caprg, r->nrg + 1,
			sizeof(*r->rg)) < 0)
		return -ENOMEM;
	r->rg[r->nrg++] = (struct region){ pblk, len };
	return 0;
}

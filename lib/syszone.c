/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's "system zone" (fs/ext4/block_validity.c): the blocks a
 * mount with block_validity (the default) refuses to see referenced by an
 * inode -- superblock and descriptor copies, bitmaps, inode tables, and
 * the journal inode's blocks (valid for the journal inode only).
 * ext4_inode_block_valid checks every block reference against it.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>

struct zone_ctx {
	struct e2map_zones *z;
	uint64_t last;		/* last logical block of the journal */
	int err;
};

static int zone_add(struct e2map_zones *z, uint64_t start, uint64_t count)
{
	struct e2map_zone *v;

	if (!count)
		return 0;
	/* Runs arrive in order (the journal block by block): extend them. */
	if (z->n && z->v[z->n - 1].start + z->v[z->n - 1].count == start) {
		z->v[z->n - 1].count += count;
		return 0;
	}
	if (z->n == z->cap) {
		size_t cap = z->cap ? z->cap * 2 : 64;

		if (!(v = realloc(z->v, cap * sizeof(*v))))
			return -ENOMEM;
		z->v = v;
		z->cap = cap;
	}
	z->v[z->n++] = (struct e2map_zone){ start, count };
	return 0;
}

static int cmp_zone(const void *a, const void *b)
{
	const struct e2map_zone *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorted, overlaps merged (add_system_zone merges them too). */
static void zone_sort(struct e2map_zones *z)
{
	size_t i, n = 0;

	if (!z->n)
		return;
	qsort(z->v, z->n, sizeof(*z->v), cmp_zone);
	for (i = 1; i < z->n; i++) {
		struct e2map_zone *last = &z->v[n];
		uint64_t end = last->start + last->count;

		if (z->v[i].start <= end) {
			if (z->v[i].start + z->v[i].count > end)
				last->count = z->v[i].start + z->v[i].count -
					      last->start;
		} else {
			z->v[++n] = z->v[i];
		}
	}
	z->n = n + 1;
}

/* ext4_bg_num_gdb: descriptor blocks stored in group G. */
static uint64_t num_gdb(ext2_filsys fs, dgrp_t g)
{
	uint32_t per = EXT2_DESC_PER_BLOCK(fs->super);
	uint32_t meta = g / per, first = meta * per;

	if (!ext2fs_has_feature_meta_bg(fs->super) ||
	    meta < fs->super->s_first_meta_bg) {
		if (!ext2fs_bg_has_super(fs, g))
			return 0;
		return ext2fs_has_feature_meta_bg(fs->super) ?
		       fs->super->s_first_meta_bg : fs->desc_blocks;
	}
	return g == first || g == first + 1 || g == first + per - 1;
}

/*
 * ext4_num_base_meta_blocks: the blocks at the start of group G that the
 * kernel counts as metadata.  Outside meta_bg groups: for a group with a
 * superblock copy, that copy, the descriptor table and the reserved GDT
 * blocks (s_reserved_gdt_blocks, whatever the resize_inode flag says).  In
 * meta_bg groups: the superblock copy if any, and the group's descriptor
 * copy if it holds one (first, second and last of its meta group) -- with
 * no superblock the copy is the group's first block.
 */
static uint64_t base_meta(ext2_filsys fs, dgrp_t g)
{
	struct ext2_super_block *sb = fs->super;
	uint64_t n = ext2fs_bg_has_super(fs, g);

	if (!ext2fs_has_feature_meta_bg(sb) ||
	    g / EXT2_DESC_PER_BLOCK(sb) < sb->s_first_meta_bg)
		return n ? n + num_gdb(fs, g) + sb->s_reserved_gdt_blocks : 0;
	return n + num_gdb(fs, g);
}

/*
 * ext4_setup_system_zone's per-group part since kernel commit 68228da51c9a
 * (2023; Linux 6.6, stable 5.10 on): every group's base metadata, bitmaps
 * and inode table.  Earlier kernels added only the superblock and the
 * descriptor table of groups with a superblock (their "below 5 or a flex
 * multiple" test saw a flex size of 1, not yet set up).  At most four
 * ranges per group, each O(1) to find.
 */
static int add_groups(e2map_t *m)
{
	struct e2map_zones *z = &m->zone;
	ext2_filsys fs = m->fs;
	uint64_t itb;
	dgrp_t g;
	int err = 0;

	itb = fs->super->s_inodes_per_group /
	      (m->bs / EXT2_INODE_SIZE(fs->super));
	for (g = 0; g < fs->group_desc_count && !err; g++) {
		err = zone_add(z, ext2fs_group_first_block2(fs, g),
			       base_meta(fs, g));
		if (!err)
			err = zone_add(z, ext2fs_block_bitmap_loc(fs, g), 1);
		if (!err)
			err = zone_add(z, ext2fs_inode_bitmap_loc(fs, g), 1);
		if (!err)
			err = zone_add(z, ext2fs_inode_table_loc(fs, g), itb);
	}
	return err;
}

static int journal_block(ext2_filsys fs, blk64_t *pblk, e2_blkcnt_t lblk,
			 blk64_t ref_blk, int ref_off, void *priv)
{
	struct zone_ctx *c = priv;

	(void)fs, (void)ref_blk, (void)ref_off;
	if (lblk < 0 || (uint64_t)lblk > c->last)
		return 0;
	c->err = zone_add(c->z, *pblk, 1);
	return c->err ? BLOCK_ABORT : 0;
}

/* ext4_protect_reserved_inode: the journal's data blocks up to i_size. */
static int add_journal(e2map_t *m)
{
	struct ext2_super_block *sb = m->fs->super;
	struct zone_ctx c = { &m->jzone, 0, 0 };
	struct ext2_inode in;

	if (!ext2fs_has_feature_journal(sb) || !sb->s_journal_inum ||
	    sb->s_journal_inum > sb->s_inodes_count ||
	    ext2fs_read_inode(m->fs, sb->s_journal_inum, &in) ||
	    !EXT2_I_SIZE(&in))
		return 0;
	c.last = (EXT2_I_SIZE(&in) - 1) >> m->bits;
	/* A journal the kernel could not map fails the mount; ignore it. */
	ext2fs_block_iterate3(m->fs, sb->s_journal_inum, BLOCK_FLAG_READ_ONLY |
			      BLOCK_FLAG_DATA_ONLY, NULL, journal_block, &c);
	return c.err;
}

int e2map__zone_setup(e2map_t *m)
{
	int err = add_groups(m);

	if (!err)
		err = add_journal(m);
	zone_sort(&m->zone);
	zone_sort(&m->jzone);
	return err;
}

void e2map__zone_free(e2map_t *m)
{
	free(m->zone.v);
	free(m->jzone.v);
	m->zone = m->jzone = (struct e2map_zones){ 0 };
}

/* Does [pblk, pblk + count) meet a range of Z (sorted, disjoint)? */
static bool zone_hit(const struct e2map_zones *z, uint64_t pblk,
		     uint64_t count)
{
	size_t lo = 0, hi = z->n;

	while (lo < hi) {	/* first range ending after pblk */
		size_t mid = lo + (hi - lo) / 2;

		if (z->v[mid].start + z->v[mid].count <= pblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < z->n && z->v[lo].start < pblk + count;
}

/*
 * ext4_inode_block_valid: past the first data block, inside the
 * filesystem, and clear of the system zone (except the inode's own zone).
 */
bool e2map__inode_block_valid(const e2map_file_t *f, uint64_t pblk,
			      uint64_t count)
{
	const e2map_t *m = f->m;

	/*
	 * The mount never maps a special inode (below s_first_ino, the root
	 * aside) through this check: e2map maps them by number for examiners,
	 * as debugfs does, and the resize inode's blocks are reserved GDT
	 * blocks, inside the zone by design.
	 */
	if (f->ino != EXT2_ROOT_INO && f->ino < EXT2_FIRST_INO(m->fs->super))
		return e2map__block_valid(m, pblk, count);
	if (!e2map__block_valid(m, pblk, count) ||
	    zone_hit(&m->zone, pblk, count))
		return false;
	return f->ino == m->fs->super->s_journal_inum ||
	       !zone_hit(&m->jzone, pblk, count);
}

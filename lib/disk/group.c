/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The group layout as the kernel counts it (fs/ext4/balloc.c, super.c):
 * how many descriptor blocks a group keeps, which blocks at a group's
 * start are metadata, and the filesystem's overhead for statfs.  The
 * system zone (mount/syszone.c), statfs (mount/image.c) and the block
 * owners (passes/owners.c) all ask here, so they cannot disagree.
 */
#include "disk.h"

#include <errno.h>
#include <stdlib.h>

/*
 * ext4_bg_num_gdb: by meta group (not by group) against s_first_meta_bg.
 * Outside meta_bg, a group with a superblock copy keeps the whole table,
 * which on a meta_bg filesystem is s_first_meta_bg blocks long
 * (ext4_bg_num_gdb_nometa); in a meta group, the first, second and last
 * group keep one block each.
 */
uint64_t e2map__bg_num_gdb(ext2_filsys fs, dgrp_t g)
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
uint64_t e2map__group_base(ext2_filsys fs, dgrp_t g, struct e2map_group *out)
{
	struct ext2_super_block *sb = fs->super;
	struct e2map_group b = { ext2fs_bg_has_super(fs, g),
				 e2map__bg_num_gdb(fs, g), 0 };

	if ((!ext2fs_has_feature_meta_bg(sb) ||
	     g / EXT2_DESC_PER_BLOCK(sb) < sb->s_first_meta_bg) && b.super)
		b.reserved = sb->s_reserved_gdt_blocks;
	if (out)
		*out = b;
	return b.super + b.gdt + b.reserved;
}

/* Marks for bigalloc's count: clusters, numbered from the first group's. */
struct marks {
	uint64_t *v;
	size_t n, cap;
};

static int mark(struct marks *mk, uint64_t cluster)
{
	if (e2map__grow((void **)&mk->v, &mk->cap, mk->n + 1,
			sizeof(*mk->v)) < 0)
		return -ENOMEM;
	mk->v[mk->n++] = cluster;
	return 0;
}

/* Clusters [FROM, TO] of group G (numbered from its first block); a
 * cluster marked twice is counted once (bigalloc_groups). */
static int mark_range(struct marks *mk, uint64_t cpg, dgrp_t g,
		      uint64_t from, uint64_t to)
{
	for (uint64_t c = from; c <= to; c++)
		if (c < cpg && mark(mk, (uint64_t)g * cpg + c) < 0)
			return -ENOMEM;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * count_overhead's bigalloc branch, all groups at once: group GRP's
 * overhead is the clusters of GRP that hold its superblock copy (cluster
 * 0) and descriptor blocks (ext4_bg_num_gdb, from the block after the
 * copy; no reserved GDT blocks), and any group's block and inode bitmap
 * that lies in GRP, and any group's inode table that starts in GRP and
 * ends before GRP's last block (b + s_itb_per_group <= last_block, as the
 * kernel tests it: a table ending on the last block is not counted) --
 * each cluster once.  The kernel walks every group's descriptor for every
 * group; marking each block in its own group and counting the distinct
 * marks is the same sum.  Clusters; -ENOMEM.
 */
static int bigalloc_groups(ext2_filsys fs, uint64_t itb, uint64_t *out)
{
	struct ext2_super_block *sb = fs->super;
	uint64_t first = sb->s_first_data_block, bpg = sb->s_blocks_per_group;
	uint64_t cpg = EXT2_CLUSTERS_PER_GROUP(sb);
	unsigned bits = fs->cluster_ratio_bits;
	dgrp_t n = fs->group_desc_count;
	struct marks mk = { 0 };
	int err = 0;

	for (dgrp_t i = 0; i < n && !err; i++) {
		uint64_t b[3] = { ext2fs_block_bitmap_loc(fs, i),
				  ext2fs_inode_bitmap_loc(fs, i),
				  ext2fs_inode_table_loc(fs, i) };
		uint64_t s = ext2fs_bg_has_super(fs, i);
		uint64_t j = e2map__bg_num_gdb(fs, i);

		for (int k = 0; k < 3 && !err; k++) {
			uint64_t g, off;

			if (b[k] < first || (g = (b[k] - first) / bpg) >= n)
				continue;
			off = b[k] - first - g * bpg;
			if (k < 2)
				err = mark_range(&mk, cpg, g, off >> bits,
						 off >> bits);
			else if (itb && off + itb <= bpg - 1)
				err = mark_range(&mk, cpg, g, off >> bits,
						 (off + itb - 1) >> bits);
		}
		if (err)
			break;
		if (s)
			err = mark_range(&mk, cpg, i, 0, 0);
		if (s + j > bpg)	/* "Invalid number of ... blocks" */
			j = bpg - s;
		if (!err && j)
			err = mark_range(&mk, cpg, i, s >> bits,
					 (s + j - 1) >> bits);
	}
	if (!err) {
		size_t distinct = 0;

		if (mk.n)
			qsort(mk.v, mk.n, sizeof(*mk.v), cmp_u64);
		for (size_t k = 0; k < mk.n; k++)
			distinct += !k || mk.v[k] != mk.v[k - 1];
		*out = distinct;
	}
	free(mk.v);
	return err;
}

/*
 * ext4_calculate_overhead, into *BLOCKS (the kernel counts clusters;
 * this is that count in blocks): the clusters before the first group;
 * each group's count_overhead -- without bigalloc its superblock copy,
 * descriptors, reserved GDT blocks with a superblock copy (meta groups
 * included), inode table and two bitmaps; with bigalloc the clusters
 * they occupy (bigalloc_groups) -- and the journal inode's i_size in
 * blocks, rounded up to clusters, as a mount without the journal loaded
 * (noload) counts it.  0 or -ENOMEM.
 */
int e2map__overhead(ext2_filsys fs, uint64_t *blocks)
{
	struct ext2_super_block *sb = fs->super;
	unsigned bits = fs->cluster_ratio_bits;
	uint64_t itb = sb->s_inodes_per_group /
		       (fs->blocksize / EXT2_INODE_SIZE(sb));
	uint64_t total = (uint64_t)sb->s_first_data_block >> bits, groups = 0;
	struct ext2_inode j;
	int err;

	if (ext2fs_has_feature_bigalloc(sb)) {
		if ((err = bigalloc_groups(fs, itb, &groups)) < 0)
			return err;
	} else {
		for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
			bool sup = ext2fs_bg_has_super(fs, g);

			groups += sup + e2map__bg_num_gdb(fs, g) +
				  (sup ? sb->s_reserved_gdt_blocks : 0) +
				  itb + 2;
		}
	}
	total += groups;
	if (ext2fs_has_feature_journal(sb) && sb->s_journal_inum &&
	    !ext2fs_read_inode(fs, sb->s_journal_inum, &j)) {
		uint64_t jb = EXT2_I_SIZE(&j) / fs->blocksize;

		total += (jb + (1ULL << bits) - 1) >> bits;
	}
	*blocks = total << bits;
	return 0;
}

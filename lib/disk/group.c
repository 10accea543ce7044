/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The group layout as the kernel counts it (fs/ext4/balloc.c, super.c):
 * how many descriptor blocks a group keeps, which blocks at a group's
 * start are metadata, and the filesystem's overhead for statfs.  The
 * system zone (mount/syszone.c), statfs (mount/image.c) and the block
 * owners (passes/owners.c) all ask here, so they cannot disagree.
 */
#include "disk.h"

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

/*
 * ext4_calculate_overhead for filesystems whose superblock does not record
 * it: the blocks before the first group; each group's count_overhead
 * (superblock copy, descriptors, reserved GDT blocks with a superblock
 * copy, meta groups included, the inode table, two bitmaps); and the
 * journal inode's i_size in blocks, as a mount without the journal loaded
 * (noload) counts it.  For bigalloc the kernel counts clusters exactly;
 * this counts blocks.
 */
uint64_t e2map__overhead(ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	uint64_t itb = sb->s_inodes_per_group /
		       (fs->blocksize / EXT2_INODE_SIZE(sb));
	uint64_t total = sb->s_first_data_block;
	struct ext2_inode j;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		bool sup = ext2fs_bg_has_super(fs, g);

		total += sup + e2map__bg_num_gdb(fs, g) +
			 (sup ? sb->s_reserved_gdt_blocks : 0) + itb + 2;
	}
	if (ext2fs_has_feature_journal(sb) && sb->s_journal_inum &&
	    !ext2fs_read_inode(fs, sb->s_journal_inum, &j))
		total += EXT2_I_SIZE(&j) / fs->blocksize;
	return total;
}

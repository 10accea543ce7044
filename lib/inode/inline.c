/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-inode extended-attribute area: whether it exists (the kernel's
 * EXT4_STATE_XATTR), where system.data lies (inline data, spec §3.5), and
 * the FIEMAP_FLAG_XATTR mapping with the kernel's address quirk (§3.6).
 */
#include "inode.h"

#include <errno.h>
#include <string.h>

#define I_BLOCK_OFFSET 40	/* offsetof(struct ext4_inode, i_block) */

static int bad_entry(e2map_file_t *f)
{
	return e2map__fail(f->m, -EUCLEAN, "inode %u: corrupted in-inode "
			   "extended attribute", f->ino);
}

/* Check an area of SIZE bytes (after the magic) at BASE; find system.data. */
static int scan_entries(e2map_file_t *f, const unsigned char *base, size_t size)
{
	struct e2map__xarea a = { base, base, base + size };
	struct e2map__xentry e;

	if (e2map__xarea_check(f->m, &a) < 0)
		return bad_entry(f);
	if (!e2map__xarea_find(&a, E2MAP_XATTR_INDEX_SYSTEM, "data", 4, false,
			       &e))
		return 0;
	if (e.inum)
		return bad_entry(f);
	f->inline_size = E2MAP_MIN_INLINE_DATA_SIZE + e.size;
	f->inline_value = (uint32_t)(base - f->raw) + e.offs;
	return 0;
}

int e2map__ibody_scan(e2map_file_t *f)
{
	unsigned isize = EXT2_INODE_SIZE(f->m->fs->super);
	size_t start;

	f->inline_size = 0;
	f->xattr_in_inode = false;
	/* __ext4_iget looks for in-inode xattrs only past a set extra_isize. */
	if (isize <= EXT2_GOOD_OLD_INODE_SIZE || !f->inode->i_extra_isize)
		return 0;
	start = EXT2_GOOD_OLD_INODE_SIZE + f->inode->i_extra_isize;
	if (start + 4 > isize || le32(f->raw + start) != E2MAP_XATTR_MAGIC)
		return 0;
	f->xattr_in_inode = true;
	return scan_entries(f, f->raw + start + 4, isize - start - 4);
}

/* ext4_inline_data_iomap: the byte address of i_block in the image. */
uint64_t e2map__inline_addr(const e2map_file_t *f)
{
	return (f->inode_pblk << f->m->bits) + f->inode_off + I_BLOCK_OFFSET;
}

/*
 * ext4_iomap_xattr_fiemap: the in-inode area if there is one, else the
 * external block.  The in-inode address leaves out the inode's offset
 * inside its block: the kernel's quirk, reproduced (spec §3.6).
 */
int e2map__iomap_xattr(e2map_file_t *f, uint64_t off, struct e2map_iomap *out)
{
	unsigned isize = EXT2_INODE_SIZE(f->m->fs->super);
	uint64_t head = EXT2_GOOD_OLD_INODE_SIZE + f->inode->i_extra_isize;

	memset(out, 0, sizeof(*out));
	if (f->xattr_in_inode) {
		out->addr = (f->inode_pblk << f->m->bits) + head;
		out->len = isize - head;
		out->kind = E2MAP_RUN_INLINE;
	} else if (f->file_acl) {
		out->addr = f->file_acl << f->m->bits;
		out->len = f->m->bs;
		out->kind = E2MAP_RUN_DATA;
	} else {
		return -ENOENT;
	}
	return off >= out->len ? -ENOENT : 0;
}

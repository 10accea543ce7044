/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-inode extended-attribute area: whether it exists (the kernel's
 * EXT4_STATE_XATTR), where system.data lies (inline data, spec §3.5), and
 * the FIEMAP_FLAG_XATTR mapping with the kernel's address quirk (§3.6).
 */
#include "internal.h"

#include <errno.h>
#include <string.h>

#define XATTR_MAGIC 0xEA020000U
#define XATTR_INDEX_SYSTEM 7
#define MIN_INLINE_DATA_SIZE 60	/* i_block */
#define I_BLOCK_OFFSET 40	/* offsetof(struct ext4_inode, i_block) */
#define XATTR_SIZE_MAX (1U << 24)

struct ibody_entry {
	uint8_t name_len;
	uint8_t name_index;
	uint16_t value_offs;
	uint32_t value_inum;
	uint32_t value_size;
	uint32_t hash;
};

static void get_entry(const unsigned char *p, struct ibody_entry *e)
{
	e->name_len = p[0];
	e->name_index = p[1];
	e->value_offs = p[2] | p[3] << 8;
	e->value_inum = le32(p + 4);
	e->value_size = le32(p + 8);
	e->hash = le32(p + 12);
}

static int bad_entry(e2map_file_t *f)
{
	return e2map__fail(f->m, -EUCLEAN, "inode %u: corrupted in-inode "
			   "extended attribute", f->ino);
}

static bool is_system_data(const struct ibody_entry *e, const unsigned char *p)
{
	return e->name_index == XATTR_INDEX_SYSTEM && e->name_len == 4 &&
	       !memcmp(p + 16, "data", 4);
}

static size_t entry_size(const unsigned char *p)
{
	return (16 + p[0] + 3) & ~(size_t)3;
}

/*
 * The end of the entry table (offset of the 4-byte terminator), or 0 when
 * an entry runs past the area or a name holds a NUL: check_xattrs' name
 * pass.
 */
static size_t table_end(const unsigned char *base, size_t size)
{
	size_t pos = 0;

	while (pos + 4 <= size && le32(base + pos) != 0) {
		if (pos + 16 > size || pos + entry_size(base + pos) >= size ||
		    memchr(base + pos + 16, 0, base[pos]))
			return 0;
		pos += entry_size(base + pos);
	}
	return pos + 4 <= size ? pos : 0;
}

/* A value lies after the entry table and, padded, inside the area. */
static bool value_ok(const struct ibody_entry *e, size_t tend, size_t size)
{
	uint64_t padded = ((uint64_t)e->value_size + 3) & ~3ULL;

	if (!e->value_size || e->value_inum)
		return true;
	return e->value_offs >= tend + 4 && e->value_offs <= size &&
	       padded <= size - e->value_offs;
}

/* check_xattrs on an EA inode reference: feature, number, size. */
static bool ea_inode_ok(const e2map_file_t *f, const struct ibody_entry *e)
{
	struct ext2_super_block *sb = f->m->fs->super;

	if (!e->value_inum)
		return true;
	if (!ext2fs_has_feature_ea_inode(sb))
		return false;
	/* ext4_valid_inum, the root excluded */
	if (e->value_inum < EXT2_FIRST_INO(sb) ||
	    e->value_inum > sb->s_inodes_count)
		return false;
	return e->value_size != 0;
}

/* Check an area of SIZE bytes (after the magic) at BASE; find system.data. */
static int scan_entries(e2map_file_t *f, const unsigned char *base, size_t size)
{
	size_t pos, tend = table_end(base, size);
	struct ibody_entry e;

	if (!tend && (size < 4 || le32(base) != 0))
		return bad_entry(f);
	for (pos = 0; pos < tend; pos += entry_size(base + pos)) {
		get_entry(base + pos, &e);
		if (!ea_inode_ok(f, &e) || e.value_size > XATTR_SIZE_MAX ||
		    !value_ok(&e, tend, size))
			return bad_entry(f);
		if (!is_system_data(&e, base + pos))
			continue;
		if (e.value_inum)
			return bad_entry(f);
		f->inline_size = MIN_INLINE_DATA_SIZE + e.value_size;
		f->inline_value = (uint32_t)(base - f->raw) + e.value_offs;
	}
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
	if (start + 4 > isize || le32(f->raw + start) != XATTR_MAGIC)
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

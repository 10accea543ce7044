/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names added to an inline directory as fs/ext4/inline.c adds them:
 * ext4_try_add_inline_entry (i_block, then system.data, grown to the
 * inode's free xattr space by ext4_update_inline_dir),
 * ext4_convert_inline_data_nolock when neither has room, and
 * ext4_try_create_inline_dir for a new directory.  libext2fs has no
 * such growth and converts otherwise, so the replay does it here, over
 * libext2fs's inline-data calls.
 */
#include "fc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t xattr_len(unsigned name_len)	/* EXT4_XATTR_LEN */
{
	return (16 + name_len + 3) & ~(size_t)3;
}

static long xattr_size(long size)		/* EXT4_XATTR_SIZE */
{
	return (size + 3) & ~3L;
}

/*
 * get_max_inline_xattr_value_size of the inode in r->raw: the bytes
 * system.data may hold, the in-inode xattr space its neighbours leave.
 */
static long max_inline_value(const struct fcr *r)
{
	long isz = EXT2_INODE_SIZE(r->fs->super), extra, min_offs, free;
	const unsigned char *first, *e, *data = NULL, *end = r->raw + isz;

	if (isz <= EXT2_GOOD_OLD_INODE_SIZE)
		return 0;
	extra = le16(r->raw + EXT2_GOOD_OLD_INODE_SIZE);
	if (EXT2_GOOD_OLD_INODE_SIZE + extra + 8 > isz)
		return 0;
	min_offs = isz - EXT2_GOOD_OLD_INODE_SIZE - extra - 4;
	first = r->raw + EXT2_GOOD_OLD_INODE_SIZE + extra + 4;
	if (le32(first - 4) != E2MAP_XATTR_MAGIC)
		return xattr_size(min_offs - (long)xattr_len(4) - 3 - 4);
	for (e = first; e + 4 <= end && le32(e); e += xattr_len(e[0])) {
		if (e + xattr_len(e[0]) >= end)
			return 0;
		if (!le32(e + 4) && le32(e + 8) && le16(e + 2) < min_offs)
			min_offs = le16(e + 2);
		if (e[1] == E2MAP_XATTR_INDEX_SYSTEM && e[0] == 4 && !memcmp(e + 16, "data", 4))
			data = e;
	}
	free = min_offs - (long)(e - first) - 4;
	if (data)
		return free + xattr_size((long)le32(data + 8));
	free -= (long)xattr_len(4);
	return free > 3 ? xattr_size(free - 3) : 0;
}

static int inline_write(struct fcr *r, ext2_ino_t dir, unsigned char *buf,
			size_t size)
{
	if (ext2fs_inline_data_set(r->fs, dir, NULL, buf, size) ||
	    e2map__fc_read_raw(r, dir) < 0)
		return e2map__fc_fail(-EIO, "writing an inline directory", dir);
	put32(r->raw + 4, (uint32_t)size);
	put32(r->raw + 108, 0);
	return e2map__fc_write_raw(r, dir);
}

/*
 * ext4_xattr_set_entry clears the in-inode magic when the last xattr
 * goes (so FIEMAP_FLAG_XATTR finds none); libext2fs leaves it.
 */
static void no_empty_xattrs(struct fcr *r)
{
	long isz = EXT2_INODE_SIZE(r->fs->super), extra;
	unsigned char *hdr;

	if (isz <= EXT2_GOOD_OLD_INODE_SIZE)
		return;
	extra = le16(r->raw + EXT2_GOOD_OLD_INODE_SIZE);
	hdr = r->raw + EXT2_GOOD_OLD_INODE_SIZE + extra;
	if (EXT2_GOOD_OLD_INODE_SIZE + extra + 8 <= isz &&
	    le32(hdr) == E2MAP_XATTR_MAGIC && !le32(hdr + 4))
		put32(hdr, 0);
}

/* ext4_update_final_de: the last entry of [B, B + OLD) reaches B + NEW. */
static void final_de(unsigned char *b, size_t old, size_t new)
{
	size_t off = 0, prev = 0;

	while (off < old && le16(b + off + 4) >= 12) {
		prev = off;
		off += le16(b + off + 4);
	}
	put16(b + prev + 4, (unsigned)(le16(b + prev + 4) + new - old));
}

/*
 * ext4_convert_inline_data_nolock for a directory: system.data goes, the
 * entries move to a new block 0 after "." and "..", the tree is an empty
 * extent root plus that block.
 */
static int inline_to_block(struct fcr *r, ext2_ino_t dir,
			   const unsigned char *buf, size_t size)
{
	size_t bs = r->fs->blocksize, cs = csum_size(r);
	struct ext2_xattr_handle *h = NULL;
	unsigned char *blk;
	struct dentry dot = { dir, dir, ".", 1 }, dotdot = { dir, 0, "..", 2 };
	struct fx e;
	blk64_t b;
	int err;

	if (ext2fs_xattrs_open(r->fs, dir, &h) || ext2fs_xattrs_read(h) ||
	    ext2fs_xattr_remove(h, "system.data") || ext2fs_xattrs_write(h)) {
		ext2fs_xattrs_close(&h);
		return e2map__fc_fail(-EIO, "removing inline data", dir);
	}
	ext2fs_xattrs_close(&h);
	if (e2map__fc_read_raw(r, dir) < 0)
		return e2map__fc_fail(-EIO, "reading the directory", dir);
	no_empty_xattrs(r);
	put32(r->raw + 32, (raw_flags(r->raw) & ~EXT4_INLINE_DATA_FL) |
			   EXT4_EXTENTS_FL);
	memset(r->raw + I_BLOCK, 0, E2MAP_MIN_INLINE_DATA_SIZE);
	r->t.n = r->t.nnodes = r->t.nleaves = 0;
	r->t.depth = 0;
	if ((err = e2map__fc_alloc(r, e2map__fc_goal(r, dir), &b)) < 0)
		return err;
	e = (struct fx){ 0, 1, b, false, 0 };
	if ((err = e2map__fc_insert(r, &e)) < 0)
		return err;
	put32(r->raw + 4, (uint32_t)bs);
	put32(r->raw + 108, 0);
	if ((err = e2map__fc_tree_write(r, dir)) < 0 || !(blk = calloc(1, bs)))
		return err < 0 ? err : -ENOMEM;
	dotdot.ino = le32(buf);
	e2map__fc_de_put(r, blk, 0, &dot, DOT_LEN, LINUX_S_IFDIR);
	e2map__fc_de_put(r, blk, DOT_LEN, &dotdot, DOT_LEN, LINUX_S_IFDIR);
	memcpy(blk + 2 * DOT_LEN, buf + 4, size - 4);
	final_de(blk, size - 4 + 2 * DOT_LEN, bs - cs);
	err = e2map__fc_dir_write(r, dir, b, blk);
	free(blk);
	return err;
}

/*
 * ext4_try_add_inline_entry: the first entry with room in i_block, then
 * in system.data (grown to all the inode's free xattr space when it held
 * nothing, ext4_update_inline_dir); else the directory becomes a block
 * and 1 says so: the name then goes in as in any directory of blocks.
 */
int e2map__fc_inline_add(struct fcr *r, const struct dentry *d, uint16_t mode)
{
	ext2_filsys fs = r->fs;
	unsigned char *buf = NULL, *grown;
	size_t size = 0;
	long more;
	int err;

	if (ext2fs_inline_data_size(fs, d->parent, &size) ||
	    size < E2MAP_MIN_INLINE_DATA_SIZE || !(buf = malloc(size)) ||
	    ext2fs_inline_data_get(fs, d->parent, NULL, buf, &size)) {
		free(buf);
		return e2map__fc_fail(-EUCLEAN, "a bad inline directory",
				      d->parent);
	}
	if (e2map__fc_add_in(r, buf + 4, E2MAP_MIN_INLINE_DATA_SIZE - 4, d,
			     mode) ||
	    e2map__fc_add_in(r, buf + E2MAP_MIN_INLINE_DATA_SIZE,
			     size - E2MAP_MIN_INLINE_DATA_SIZE, d, mode)) {
		err = inline_write(r, d->parent, buf, size);
		goto out;
	}
	if (size == E2MAP_MIN_INLINE_DATA_SIZE &&
	    (err = e2map__fc_read_raw(r, d->parent)) == 0 &&
	    (more = max_inline_value(r)) > DOT_LEN) {
		if (!(grown = realloc(buf, E2MAP_MIN_INLINE_DATA_SIZE +
					   (size_t)more))) {
			err = -ENOMEM;
			goto out;
		}
		buf = grown;
		memset(buf + E2MAP_MIN_INLINE_DATA_SIZE, 0, (size_t)more);
		put16(buf + E2MAP_MIN_INLINE_DATA_SIZE + 4, (unsigned)more);
		size = E2MAP_MIN_INLINE_DATA_SIZE + (size_t)more;
		if (e2map__fc_add_in(r, buf + E2MAP_MIN_INLINE_DATA_SIZE,
				     (size_t)more, d, mode)) {
			err = inline_write(r, d->parent, buf, size);
			goto out;
		}
		if ((err = inline_write(r, d->parent, buf, size)) < 0)
			goto out;
	}
	err = inline_to_block(r, d->parent, buf, size);
	if (!err)
		err = 1;
out:
	free(buf);
	return err;
}

/*
 * ext4_try_create_inline_dir, for an inode the replay made inline: the
 * parent's number, then one empty entry over the rest of i_block.
 */
int e2map__fc_inline_new_dir(struct fcr *r, const struct dentry *d)
{
	unsigned char *ib = r->raw + I_BLOCK;

	if (max_inline_value(r) <= 0)
		return e2map__fc_unsupported("a new inline directory without "
					     "room", d->ino);
	put32(ib, d->parent);
	put32(ib + 4, 0);
	put16(ib + 8, E2MAP_MIN_INLINE_DATA_SIZE - 4);
	put32(r->raw + 4, E2MAP_MIN_INLINE_DATA_SIZE);
	put32(r->raw + 108, 0);
	put16(r->raw + 26, 2);
	return e2map__fc_write_raw(r, d->ino);
}

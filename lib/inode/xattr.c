/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An inode's xattrs as fs/ext4/xattr.c reads them: the in-inode area
 * first, then the xattr block (checked as ext4_xattr_check_block), and
 * values in EA inodes read and their hashes verified as
 * ext4_xattr_inode_get does.  By index and stored name: which names a
 * mount shows, and how, is the file layer's (file/getxattr.c).
 */
#include "inode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XATTR_NAME_MAX 255		/* the VFS's, and ext4_xattr_get's */
#define BLOCK_HEADER 32			/* struct ext4_xattr_header */

/* The in-inode area of F, checked when the inode was loaded. */
static bool ibody_area(const e2map_file_t *f, struct e2map__xarea *a)
{
	const unsigned char *first = f->raw + EXT2_GOOD_OLD_INODE_SIZE +
				     f->inode->i_extra_isize + 4;

	if (!f->xattr_in_inode)
		return false;
	a->first = a->vstart = first;
	a->end = f->raw + EXT2_INODE_SIZE(f->m->fs->super);
	return true;
}

/* The xattr block of F into B, checked as ext4_xattr_check_block. */
static int block_area(e2map_file_t *f, unsigned char *b,
		      struct e2map__xarea *a)
{
	e2map_t *m = f->m;
	int err = e2map__read_block(m, f->file_acl, b);

	if (err < 0)
		return err;
	if (le32(b) != E2MAP_XATTR_MAGIC || le32(b + 8) != 1)
		return e2map__fail(m, -EUCLEAN, "inode %u: bad xattr block "
				   "header in block %llu", f->ino,
				   (unsigned long long)f->file_acl);
	if (ext2fs_has_feature_metadata_csum(m->fs->super) &&
	    !ext2fs_ext_attr_block_csum_verify(m->fs, f->ino, f->file_acl,
					       (struct ext2_ext_attr_header *)b))
		return e2map__fail(m, -EBADMSG, "inode %u: xattr block %llu: "
				   "checksum does not match", f->ino,
				   (unsigned long long)f->file_acl);
	a->vstart = b;
	a->first = b + BLOCK_HEADER;
	a->end = b + m->bs;
	if (e2map__xarea_check(m, a) < 0)
		return e2map__fail(m, -EUCLEAN, "inode %u: corrupted xattr "
				   "block %llu", f->ino,
				   (unsigned long long)f->file_acl);
	return 0;
}

/* ext4_xattr_hash_entry over one value word, unsigned or signed chars. */
static uint32_t entry_hash(const struct e2map__xentry *e, uint32_t word,
			   bool sgn)
{
	const unsigned char *n = (const unsigned char *)e->name;
	uint32_t h = 0;
	unsigned i;

	for (i = 0; i < e->name_len; i++)
		h = (h << 5) ^ (h >> 27) ^
		    (sgn ? (uint32_t)(int32_t)(signed char)n[i] : n[i]);
	return (h << 16) ^ (h >> 16) ^ word;
}

/* ext4_xattr_inode_read: every block mapped, read as it lies. */
static int ea_read(e2map_file_t *ea, unsigned char *buf, size_t size)
{
	e2map_t *m = ea->m;
	uint64_t nblk = (size + m->bs - 1) >> m->bits, lblk;
	struct es_entry run;
	unsigned char *b;
	size_t at, n;
	int err = 0;

	if (!(b = malloc(m->bs)))
		return -ENOMEM;
	for (lblk = 0; lblk < nblk && !err; lblk++) {
		err = e2map__map_blocks(ea, (uint32_t)lblk, 1, &run);
		if (!err && run.kind == E2MAP_RUN_HOLE)
			err = e2map__fail(m, -EUCLEAN, "EA inode %u: hole at "
					  "block %llu", ea->ino,
					  (unsigned long long)lblk);
		if (!err && io_channel_read_blk64(m->fs->io, run.pblk, 1, b))
			err = e2map__fail(m, -EIO, "EA inode %u: cannot read "
					  "block %llu", ea->ino,
					  (unsigned long long)run.pblk);
		at = lblk << m->bits;
		n = size - at < m->bs ? size - at : m->bs;
		if (!err)
			memcpy(buf + at, b, n);
	}
	free(b);
	return err;
}

/* ext4_xattr_inode_verify_hashes; a Lustre EA inode is not verified. */
static int ea_verify(e2map_file_t *ea, e2map_file_t *parent,
		     const struct e2map__xentry *e, const unsigned char *buf)
{
	uint32_t stored = ea->inode->i_atime, crc;

	if (ea->inode->i_mtime == parent->ino &&
	    ea->inode->i_generation == parent->inode->i_generation)
		return 0;
	crc = e2map__crc32c(ea->m->fs->csum_seed, buf, e->size);
	if (crc != stored || (entry_hash(e, crc, false) != e->hash &&
			      entry_hash(e, crc, true) != e->hash))
		return e2map__fail(ea->m, -EUCLEAN, "EA inode %u: hash "
				   "validation failed", ea->ino);
	return 0;
}

/* ext4_xattr_inode_get: the value E names, from its EA inode. */
static int ea_value(e2map_file_t *parent, const struct e2map__xentry *e,
		    unsigned char *buf)
{
	e2map_t *m = parent->m;
	e2map_file_t *ea;
	int err = e2map__iget_how(m, e->inum, E2MAP_IGET_EA, &ea);

	if (err < 0)
		return err;
	if (ea->size != e->size)
		err = e2map__fail(m, -EUCLEAN, "EA inode %u: size %llu, the "
				  "entry says %u", ea->ino,
				  (unsigned long long)ea->size, e->size);
	if (!err)
		err = ea_read(ea, buf, e->size);
	if (!err)
		err = ea_verify(ea, parent, e, buf);
	e2map__iput(ea);
	return err;
}

/* The value of E into BUF (SIZE bytes; 0: the length only). */
static int64_t value_of(e2map_file_t *f, const struct e2map__xarea *a,
			const struct e2map__xentry *e, void *buf, size_t size)
{
	if (!size)
		return e->size;
	if (e->size > size)
		return -ERANGE;
	if (e->inum) {
		int err = ea_value(f, e, buf);

		return err < 0 ? (int64_t)err : (int64_t)e->size;
	}
	memcpy(buf, a->vstart + e->offs, e->size);
	return e->size;
}

int64_t e2map__xattr_get(e2map_file_t *f, unsigned index, const char *name,
			 size_t len, void *buf, size_t size)
{
	struct e2map__xarea a;
	struct e2map__xentry e;
	unsigned char *b;
	int64_t r = -ENODATA;

	if (len > XATTR_NAME_MAX)
		return -ERANGE;
	if (ibody_area(f, &a) && e2map__xarea_find(&a, index, name, len, false, &e))
		return value_of(f, &a, &e, buf, size);
	if (!f->file_acl)
		return -ENODATA;
	if (!(b = malloc(f->m->bs)))
		return -ENOMEM;
	if ((r = block_area(f, b, &a)) == 0)
		r = e2map__xarea_find(&a, index, name, len, true, &e) ?
		    value_of(f, &a, &e, buf, size) : -ENODATA;
	free(b);
	return r;
}

/* ext4_listxattr: the in-inode entries, then the block's; all or error. */
int e2map__xattr_list(e2map_file_t *f, e2map__xentry_cb cb, void *payload)
{
	struct e2map__xarea a;
	unsigned char *b;
	int err = 0;

	if (ibody_area(f, &a) && (err = e2map__xarea_each(&a, cb, payload)))
		return err;
	if (!f->file_acl)
		return 0;
	if (!(b = malloc(f->m->bs)))
		return -ENOMEM;
	if ((err = block_area(f, b, &a)) == 0)
		err = e2map__xarea_each(&a, cb, payload);
	free(b);
	return err;
}

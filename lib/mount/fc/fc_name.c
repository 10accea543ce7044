/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ext4_add_entry: which way a name goes into a directory -- inline, an
 * htree's leaf (or libext2fs's htree code where the kernel's is not
 * modelled), the first block with room, a new block at the end or
 * make_indexed_dir -- and dx_fallback when the htree index is corrupt.
 * The ways themselves are fc_inline.c, fc_htree.c and fc_dirblock.c;
 * this file is the kernel's order of trying them.
 */
#include "fc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * ext4_add_entry's linear walk: the first block with room (1), or none
 * (0): then a one-block directory becomes an htree (make_indexed_dir,
 * with dir_index), a longer one gets a new block at its end.
 */
static int linear_add(struct fcr *r, const struct dentry *d, uint16_t mode)
{
	uint64_t blocks = raw_size(r->raw) >>
			  (10 + r->fs->super->s_log_block_size), b;
	unsigned char *buf = malloc(r->fs->blocksize);
	blk64_t pblk;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (b = 0; b < blocks && !err; b++) {
		if ((err = e2map__fc_dir_block(r, d->parent, (uint32_t)b, &pblk,
					       buf)) < 0)
			break;
		if (e2map__fc_add_to_block(r, buf, d, mode))
			err = e2map__fc_dir_write(r, d->parent, pblk,
						  buf) < 0 ? -EIO : 1;
	}
	free(buf);
	return err;
}

static int casefolded(struct fcr *r, ext2_ino_t dir)
{
	return raw_flags(r->raw) & EXT4_CASEFOLD_FL ?
	       e2map__fc_unsupported("an htree of casefolded names", dir) : 0;
}

/*
 * ext4_add_entry after the linear walk found no room; FELL_BACK: the
 * htree index was dropped on the way (dx_fallback), none is made again.
 */
static int add_grown(struct fcr *r, const struct dentry *d, uint16_t mode,
		     bool fell_back)
{
	uint64_t blocks = raw_size(r->raw) >>
			  (10 + r->fs->super->s_log_block_size);
	unsigned char *buf = malloc(r->fs->blocksize);
	blk64_t pblk;
	uint32_t lblk;
	int err;

	if (!buf)
		return -ENOMEM;
	if (blocks == 1 && !fell_back &&
	    ext2fs_has_feature_dir_index(r->fs->super)) {
		if ((err = casefolded(r, d->parent)) == 0 &&
		    (err = e2map__fc_dir_block(r, d->parent, 0, &pblk,
					       buf)) == 0)
			err = e2map__fc_make_indexed(r, d, mode, buf, pblk);
	} else if ((err = e2map__fc_dir_append(r, d->parent, &lblk,
					       &pblk)) == 0) {
		memset(buf, 0, r->fs->blocksize);
		put16(buf + 4, r->fs->blocksize - csum_size(r));
		e2map__fc_add_to_block(r, buf, d, mode);
		err = e2map__fc_dir_write(r, d->parent, pblk, buf);
	}
	free(buf);
	return err;
}

/*
 * An htree's leaf (*DONE), or *FELL_BACK: dx_probe found the index
 * corrupt, and without metadata_csum ext4_add_entry drops it and goes on
 * as in a directory of blocks (with it, the mount fails).
 */
static int htree_add(struct fcr *r, const struct dentry *d, uint16_t mode,
		     bool *done, bool *fell_back)
{
	unsigned char *root = malloc(r->fs->blocksize);
	blk64_t pblk;
	int err;

	if (!root)
		return -ENOMEM;
	if ((err = casefolded(r, d->parent)) == 0 &&
	    (err = e2map__fc_dir_block(r, d->parent, 0, &pblk, root)) == 0) {
		if (!e2map__fc_dx_root_bad(r, root))
			err = e2map__fc_dx_add(r, d, mode, root, pblk, done);
		else if (csum_size(r))
			err = e2map__fc_fail(-EUCLEAN, "directory has "
					     "corrupted htree index",
					     d->parent);
		else if ((err = e2map__fc_read_raw(r, d->parent)) == 0) {
			put32(r->raw + 32, raw_flags(r->raw) & ~EXT2_INDEX_FL);
			*fell_back = true;
			err = e2map__fc_write_raw(r, d->parent);
		}
	}
	free(root);
	return err;
}

/* ext4_add_entry: inline, an htree's leaf, else the first block with room. */
int e2map__fc_add_entry(struct fcr *r, const struct dentry *d, uint16_t mode)
{
	bool done = false, fell_back = false;
	errcode_t code;
	int err;

	if (e2map__fc_read_raw(r, d->parent) < 0)
		return e2map__fc_fail(-EIO, "reading the directory", d->parent);
	if ((raw_flags(r->raw) & EXT4_INLINE_DATA_FL) &&
	    ((err = e2map__fc_inline_add(r, d, mode)) <= 0 ||
	     e2map__fc_read_raw(r, d->parent) < 0))
		return err <= 0 ? err : e2map__fc_fail(-EIO, "reading the "
						       "directory", d->parent);
	if ((err = e2map__fc_tree_read(r, d->parent)) < 0)
		return err;
	if ((raw_flags(r->raw) & EXT2_INDEX_FL) &&
	    ext2fs_has_feature_dir_index(r->fs->super)) {
		if ((err = htree_add(r, d, mode, &done, &fell_back)) < 0 ||
		    done)
			return err;
		if (!fell_back) {
			code = ext2fs_link(r->fs, d->parent, d->name, d->ino,
					   e2map__fc_file_type(mode));
			return code ? e2map__fc_code2err(code, "adding a name",
							 d->parent) : 0;
		}
	}
	if ((err = linear_add(r, d, mode)) != 0)
		return err < 0 ? err : 0;
	return add_grown(r, d, mode, fell_back);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A directory's entries in block order, for the dentry index of dcache.c,
 * which wants every name once and fast rather than getdents' order
 * (readdir.c, which the tree walks and the path table take).
 */
#include "dirent.h"

#include <errno.h>
#include <string.h>

/*
 * For the dentry index (dcache.c): CB(INO, NAME) for every entry
 * ext4_search_dir could match, in the order the linear scan meets them.
 * Only a directory the linear scan alone searches (no htree, no casefold,
 * no encryption, not inline) and only when it is clean -- every block
 * mapped, read, its checksum good, every entry a lookup could match
 * passing ext4_check_dir_entry -- for then the first entry of a name is
 * what every lookup of that name answers, and an absent name is -ENOENT.
 * Otherwise -EAGAIN: lookups must scan, and fail where the scan fails.
 */
static int list_block(const struct dir *d, const unsigned char *b,
		      e2map__dirent_cb cb, void *payload)
{
	size_t off = 0;
	uint32_t rlen;
	int err;

	while (off + 8 < d->bs) {
		const unsigned char *de = b + off;
		struct e2map_name n = { .s = (const char *)de + 8,
					.len = de[6] };

		if (off + 8 + de[6] <= d->bs && le32(de) && de[6]) {
			if (!e2map__entry_ok(d, de, off, d->bs))
				return -EAGAIN;
			if ((err = cb(le32(de), &n, payload)) != 0)
				return err;
		}
		if ((rlen = e2map__rec_len(de, d->bs)) == 0)
			return -EAGAIN;
		off += rlen;
	}
	return 0;
}

static bool linear_only(const e2map_file_t *f)
{
	uint32_t fl = f->inode->i_flags;

	if (f->src == SRC_INLINE ||
	    (fl & (EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL)))
		return false;
	return !(fl & EXT2_INDEX_FL) ||
	       !ext2fs_has_feature_dir_index(f->m->fs->super);
}

int e2map__dir_list_linear(e2map_file_t *dir, e2map__dirent_cb cb,
			   void *payload)
{
	struct dir d = e2map__dir_of(dir);
	uint64_t nblocks = dir->size / d.bs, lblk, pblk;
	uint32_t hole;
	int err = 0;

	if (!linear_only(dir) || nblocks > E2MAP_MAX_BLOCKS)
		return -EAGAIN;
	for (lblk = 0; lblk < nblocks && !err; lblk++) {
		if (e2map__dir_map(&d, (uint32_t)lblk, (uint32_t)(nblocks - lblk),
			    &pblk, &hole) < 0)
			return -EAGAIN;
		if (!pblk) {	/* the hole's end (a hole is never empty) */
			lblk += (hole ? hole : 1) - 1;
			continue;
		}
		if (e2map__read_block(dir->m, pblk, dir->buf) < 0 ||
		    !e2map__csum_once(&d, pblk, false, dir->buf))
			return -EAGAIN;
		err = list_block(&d, dir->buf, cb, payload);
	}
	return err;
}

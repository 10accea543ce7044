/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The htree walk of fs/ext4/namei.c: dx_probe from the root down to the
 * leaf whose hash range holds a hash, with every check that sends a
 * lookup back to the linear scan (ERR_BAD_DX_DIR), and
 * ext4_htree_next_block to the leaves after it.  Lookups (namei.c) and
 * readdir (readdir.c) both walk it.
 */
#include "dirent.h"

#include <errno.h>

/* dx_root_limit / dx_node_limit */
static unsigned dx_limit(const struct dir *d, size_t used)
{
	return (unsigned)((d->bs - used - (d->csum ? DX_TAIL_SIZE : 0)) / 8);
}

/* dx_probe's checks of the root; DX_BAD sends the lookup to linear. */
static int dx_root(const struct dir *d, struct frame *fr, unsigned *levels,
		   const struct e2map_name *n, uint32_t *hash)
{
	const unsigned char *info = fr->b + 24;
	unsigned version = info[4], max;
	bool large = ext2fs_has_feature_largedir(d->f->m->fs->super);
	uint32_t minor;

	if (version != EXT2_HASH_LEGACY && version != EXT2_HASH_HALF_MD4 &&
	    version != EXT2_HASH_TEA && version != EXT2_HASH_SIPHASH)
		return DX_BAD;
	if ((version == EXT2_HASH_SIPHASH) != d->hash_in_dirent)
		return DX_BAD;
	/* Hashes of encrypted + casefolded names come from the name: n/a. */
	if (d->hash_in_dirent)
		return DX_BAD;
	/* readdir probes with a hash of its own, not a name's. */
	if (n && e2map__dirhash(d->f->m->fs->super,
				e2map__hash_version(d->f->m->fs->super, version),
				d->cf, n->s, n->len, hash, &minor) < 0)
		return DX_BAD;
	max = large ? 3 : 2;
	if ((info[7] & 1) || info[6] >= max)
		return DX_BAD;
	*levels = info[6];
	fr->entries = 24 + info[5];
	if (le16(fr->b + fr->entries) != dx_limit(d, 24 + info[5]))
		return DX_BAD;
	return 0;
}

/*
 * dx_probe: from the root down to the leaf's index entry for HASH.
 * FR[0..levels] are filled; errors other than DX_BAD are final.
 */
int e2map__dx_probe(const struct dir *d, struct frame *fr, unsigned *levels,
		    const struct e2map_name *n, uint32_t *hash)
{
	uint32_t blocks[4] = { 0 };
	unsigned level = 0, i;
	int err;

	if ((err = e2map__read_dirblock(d, 0, INDEX, fr[0].b)) < 0 ||
	    (err = dx_root(d, &fr[0], levels, n, hash)) < 0)
		return err;
	for (;;) {
		struct frame *f = &fr[level];
		unsigned lo = 1, hi, limit = le16(f->b + f->entries);

		f->count = le16(f->b + f->entries + 2);
		if (!f->count || f->count > limit)
			return DX_BAD;
		hi = f->count - 1;
		while (lo <= hi && hi != ~0U) {
			unsigned mid = lo + (hi - lo) / 2;

			if (dx_hash(f, mid) > *hash)
				hi = mid - 1;
			else
				lo = mid + 1;
		}
		f->at = lo - 1;
		for (i = 0; i <= level; i++)
			if (blocks[i] == dx_block(f, f->at))
				return DX_BAD;
		if (++level > *levels)
			return 0;
		blocks[level] = dx_block(f, f->at);
		if ((err = e2map__read_dirblock(d, blocks[level], INDEX,
					 fr[level].b)) < 0)
			return err;
		fr[level].entries = 8;
		if (le16(fr[level].b + 8) != dx_limit(d, 8))
			return DX_BAD;
	}
}

/*
 * ext4_htree_next_block: 1 when the next leaf may hold HASH too (an odd
 * HASH: always, if there is one); *BHASH, the next index entry's hash.
 */
int e2map__dx_next(const struct dir *d, struct frame *fr, unsigned levels,
		   uint32_t hash, uint32_t *bhash)
{
	int p = (int)levels, err;
	unsigned up = 0;

	while (++fr[p].at >= fr[p].count) {
		if (p == 0)
			return 0;
		up++;
		p--;
	}
	*bhash = dx_hash(&fr[p], fr[p].at);
	if (!(hash & 1) && (*bhash & ~1U) != hash)
		return 0;
	while (up--) {
		if ((err = e2map__read_dirblock(d, dx_block(&fr[p], fr[p].at), INDEX,
					 fr[p + 1].b)) < 0)
			return err;
		p++;
		fr[p].entries = 8;
		fr[p].at = 0;
		fr[p].count = le16(fr[p].b + 10);
	}
	return 1;
}

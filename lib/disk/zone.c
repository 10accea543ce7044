/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's "system zone" (fs/ext4/block_validity.c), asked: is a
 * block an inode references one it may reference?  ext4_inode_block_valid
 * checks every block reference of the mapping walk against it, so the
 * search remembers its last answer.  mount/syszone.c builds the zone.
 */
#include "disk.h"

#include <stdlib.h>

bool e2map__block_valid(const e2map_t *m, uint64_t pblk, uint64_t count)
{
	uint64_t total = ext2fs_blocks_count(m->fs->super);

	return pblk > m->fs->super->s_first_data_block &&
	       pblk + count >= pblk && pblk + count <= total;
}

void e2map__zone_free(e2map_t *m)
{
	free(m->zone.v);
	free(m->jzone.v);
	m->zone = m->jzone = (struct e2map_zones){ 0 };
}

static uint64_t zone_end(const struct e2map_zone *r)
{
	return r->start + r->count;
}

/*
 * Does [pblk, pblk + count) meet a range of Z (sorted, disjoint)?  The
 * first range ending after PBLK is searched from the last answer: a
 * file's blocks tend to lie in one gap between metadata, so a mapping
 * walk asks about the same gap again and again.
 */
static bool zone_hit(struct e2map_zones *z, uint64_t pblk, uint64_t count)
{
	size_t lo = 0, hi = z->n, h = z->hint;

	if (h <= z->n && (h == 0 || zone_end(&z->v[h - 1]) <= pblk) &&
	    (h == z->n || zone_end(&z->v[h]) > pblk))
		lo = hi = h;
	while (lo < hi) {	/* first range ending after pblk */
		size_t mid = lo + (hi - lo) / 2;

		if (zone_end(&z->v[mid]) <= pblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	z->hint = lo;
	return lo < z->n && z->v[lo].start < pblk + count;
}

bool e2map__zone_valid(e2map_t *m, ext2_ino_t ino, uint64_t pblk,
		       uint64_t count)
{
	/*
	 * The mount never maps a special inode (below s_first_ino, the root
	 * aside) through this check: e2map maps them by number for examiners,
	 * as debugfs does, and the resize inode's blocks are reserved GDT
	 * blocks, inside the zone by design.
	 */
	if (ino != EXT2_ROOT_INO && ino < EXT2_FIRST_INO(m->fs->super))
		return e2map__block_valid(m, pblk, count);
	if (!e2map__block_valid(m, pblk, count) ||
	    zone_hit(&m->zone, pblk, count))
		return false;
	return ino == m->fs->super->s_journal_inum ||
	       !zone_hit(&m->jzone, pblk, count);
}

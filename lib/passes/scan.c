/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whole-image iteration: every inode in use, read straight from the inode
 * tables (not the bitmaps, which a damaged image may get wrong or fail to
 * checksum), so a scan still covers what the kernel could open by number.
 */
#include "passes.h"

#include <errno.h>
#include <stdlib.h>

uint32_t e2map__group_inodes(ext2_filsys fs, dgrp_t g)
{
	uint32_t ipg = fs->super->s_inodes_per_group;
	uint32_t unused;

	if (!ext2fs_has_group_desc_csum(fs))
		return ipg;
	if (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
		return 0;
	unused = ext2fs_bg_itable_unused(fs, g);
	return unused < ipg ? ipg - unused : 0;
}

/*
 * Cold, the inode tables are the bulk of a scan's reads: keep the media
 * reading up to ITABLE_AHEAD bytes of the tables after group G's, in
 * ascending order, while G's inodes are worked on.  Each handle keeps its
 * own mark, so a table is asked for once per handle.
 */
#define ITABLE_AHEAD (8U << 20)
#define GROUPS_AHEAD 256U	/* and no further: most may be unused */

static void prefetch_tables(e2map_t *m, dgrp_t g)
{
	ext2_filsys fs = m->fs;
	uint32_t per = m->bs / EXT2_INODE_SIZE(fs->super);
	uint64_t ahead = 0;
	dgrp_t next;

	if (m->itable_ahead <= g)
		m->itable_ahead = g + 1;
	for (next = g + 1; next < fs->group_desc_count && next - g <=
	     GROUPS_AHEAD && ahead < ITABLE_AHEAD / m->bs; next++) {
		uint64_t blocks = (e2map__group_inodes(fs, next) + per - 1) /
				  per;

		if (next >= m->itable_ahead && blocks) {
			e2map__prefetch(m, ext2fs_inode_table_loc(fs, next),
					blocks);
			m->itable_ahead = next + 1;
		}
		ahead += blocks;
	}
}

int e2map__scan_group(e2map_t *m, dgrp_t g, unsigned char *buf,
		      e2map_scan_cb cb, void *payload)
{
	ext2_filsys fs = m->fs;
	uint32_t isize = EXT2_INODE_SIZE(fs->super), per = m->bs / isize;
	uint32_t i, n = e2map__group_inodes(fs, g);
	uint64_t first = (uint64_t)g * fs->super->s_inodes_per_group + 1;
	uint64_t table = ext2fs_inode_table_loc(fs, g);
	struct e2map_inode in = { first, 0, 0, 0, 0, 0 };
	const unsigned char *b = NULL;
	int err;

	if (n && !e2map__block_valid(m, table, (n + per - 1) / per)) {
		in.err = e2map__fail(m, -EUCLEAN, "group %u: bad inode table",
				     (unsigned)g);
		return cb(m, &in, payload);
	}
	prefetch_tables(m, g);
	for (i = 0; i < n; i++) {
		if (i % per == 0)
			e2map__read_ahead(m, table + i / per,
					  (n - i + per - 1) / per);
		if (i % per == 0 &&
		    !(b = e2map__read_block_at(m, table + i / per, buf, &err))) {
			in.ino = first + i;
			in.err = err;
			return cb(m, &in, payload);
		}
		e2map__inode_decode(b + (i % per) * isize, first + i, &in);
		if (in.links && in.mode && (err = cb(m, &in, payload)) != 0)
			return err;
	}
	return 0;
}

int e2map_scan(e2map_t *m, e2map_scan_cb cb, void *payload)
{
	unsigned char *buf;
	dgrp_t g;
	int err = 0;

	if (!m || !cb)
		return -EINVAL;
	if (!(buf = malloc(m->bs)))
		return -ENOMEM;
	for (g = 0; g < m->fs->group_desc_count && !err; g++)
		err = e2map__scan_group(m, g, buf, cb, payload);
	free(buf);
	return err;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The journal inode's blocks for recovery: where each lies, as
 * ext4_journal_bmap maps them (bmap through the inode's own extents or
 * block map), and jread, which reads a journal block through that map.
 * Both the log's passes (journal.c) and the fast-commit scan
 * (fc/fc_scan.c) read this way, so it stands below both.
 */
#include "jnl.h"

#include <errno.h>
#include <stdlib.h>

/* jread: journal block OFF, through the journal's map, into BUF. */
int e2map__jnl_read(struct jnl *j, uint32_t off, unsigned char *buf)
{
	if (off >= j->total)
		return jfail(-EUCLEAN, "corrupted journal superblock: block",
			     off);
	if (!j->map[off])
		return jfail(-EIO, "journal bmap failed: block", off);
	if (io_channel_read_blk64(j->m->fs->io, j->map[off], 1, buf))
		return jfail(-EIO, "failed to read journal block", off);
	return 0;
}

/* The journal inode's blocks, as ext4_journal_bmap maps them. */
int e2map__jnl_map(struct jnl *j, uint32_t ino)
{
	e2map_file_t *f;
	struct es_entry r;
	uint32_t i = 0, k;
	int err;

	if ((err = e2map__iget_how(j->m, ino, E2MAP_IGET_NAME, &f)) < 0)
		return e2map__fail(NULL, err, "journal inode %u: %s", ino,
				   j->m->err.msg);
	err = 0;
	if (!f->inode->i_links_count)
		err = e2map__fail(NULL, -EUCLEAN, "journal inode %u is "
				  "deleted", ino);
	else if (!(j->total = (uint32_t)(f->size >> j->m->bits)) ||
		 !(j->map = calloc(j->total, sizeof(*j->map))))
		err = j->total ? -ENOMEM : e2map__fail(NULL, -EINVAL,
				"journal inode %u is empty", ino);
	while (!err && i < j->total) {
		if ((err = e2map__map_blocks(f, i, j->total - i, &r)) < 0)
			err = e2map__fail(NULL, err, "journal inode %u: %s",
					  ino, j->m->err.msg);
		else if (!r.len)
			r.len = 1;
		for (k = 0; !err && k < r.len && r.kind != E2MAP_RUN_HOLE; k++)
			j->map[i + k] = r.pblk + k;
		i += r.len;
	}
	e2map__iput(f);
	return err;
}

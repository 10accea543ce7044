/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The journal inode's blocks: the one walk of them (iget, then each run
 * ext4_map_blocks finds), which both the system zone (syszone.c,
 * ext4_protect_reserved_inode) and journal recovery take; recovery's map
 * of them (ext4_journal_bmap) and jread, which reads a journal block
 * through that map.  Both the log's passes (journal.c) and the
 * fast-commit scan (fc/fc_scan.c) read this way, so it stands below both.
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

int e2map__journal_walk(struct e2map_jwalk *w)
{
	e2map_file_t *f;
	struct es_entry r;
	uint32_t i = 0, n = 0;
	int err;

	if ((err = e2map__iget_how(w->m, w->ino, E2MAP_IGET_NAME, &f)) < 0)
		return w->fail(w, err);
	err = w->begin(w, f, &n);
	while (!err && i < n) {
		if ((err = e2map__map_blocks(f, i, n - i, &r)) < 0) {
			err = w->fail(w, err);
		} else {
			if (!r.len)	/* a hole of no length: one block on */
				r.len = 1;
			if ((err = w->run(w, i, &r)) == 0)
				i += r.len;
		}
	}
	e2map__iput(f);
	return err;
}

/* Recovery's walk of the journal inode: its map, filled run by run. */
struct jwalk {
	struct e2map_jwalk w;
	struct jnl *j;
};

static int map_fail(struct e2map_jwalk *w, int err)
{
	return e2map__fail(NULL, err, "journal inode %u: %s", w->ino,
			   w->m->err.msg);
}

/* jbd2's j_total_len: the whole blocks of i_size; none fails the mount. */
static int map_begin(struct e2map_jwalk *w, e2map_file_t *f, uint32_t *n)
{
	struct jnl *j = ((struct jwalk *)w)->j;

	if (!f->inode->i_links_count)
		return e2map__fail(NULL, -EUCLEAN, "journal inode %u is "
				   "deleted", w->ino);
	if (!(j->total = (uint32_t)(f->size >> j->m->bits)))
		return e2map__fail(NULL, -EINVAL, "journal inode %u is empty",
				   w->ino);
	if (!(j->map = calloc(j->total, sizeof(*j->map))))
		return -ENOMEM;
	*n = j->total;
	return 0;
}

static int map_run(struct e2map_jwalk *w, uint32_t lblk,
		   const struct es_entry *r)
{
	struct jnl *j = ((struct jwalk *)w)->j;
	uint32_t k;

	for (k = 0; k < r->len && r->kind != E2MAP_RUN_HOLE; k++)
		j->map[lblk + k] = r->pblk + k;
	return 0;
}

/* The journal inode's blocks, as ext4_journal_bmap maps them. */
int e2map__jnl_map(struct jnl *j, uint32_t ino)
{
	struct jwalk jw = { { j->m, ino, map_begin, map_run, map_fail }, j };

	return e2map__journal_walk(&jw.w);
}

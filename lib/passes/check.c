/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exercise one open inode the way `e2map check` does: the whole
 * SEEK_DATA/SEEK_HOLE walk, the whole FIEMAP listing in xfs_io's batches,
 * and the FIEMAP_FLAG_XATTR call.  Each loop must move forward, so a
 * damaged tree ends in an error instead of a hang.
 */
#include "passes.h"

#include <errno.h>
#include <string.h>

#define BATCH 32

static int seek_walk(e2map_file_t *f, struct e2map_check_stats *st)
{
	int64_t pos = 0, data, hole;

	for (;;) {
		st->seeks += 2;
		data = e2map_file_lseek(f, pos, E2MAP_SEEK_DATA);
		if (data == -ENXIO)
			return 0;
		if (data < 0)
			return (int)data;
		hole = e2map_file_lseek(f, data, E2MAP_SEEK_HOLE);
		if (hole < 0)
			return (int)hole;
		/* Each round must move past its data, or the walk never ends. */
		if (hole <= data)
			return e2map__fail(f->m, -EUCLEAN, "inode %u: seek "
					   "made no progress", f->ino);
		if (hole == INT64_MAX)
			return 0;
		pos = hole;
	}
}

/* One batch from START; *NEXT is where the next one starts, 0 when done. */
static int fiemap_batch(e2map_file_t *f, struct fiemap *fm, uint64_t start,
			uint64_t *next, struct e2map_check_stats *st)
{
	const struct fiemap_extent *last;
	int err;

	memset(fm, 0, sizeof(*fm));
	fm->fm_start = start;
	fm->fm_length = ~0ULL - start;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = BATCH;
	st->fiemaps++;
	if ((err = e2map_file_fiemap(f, fm)) < 0)
		return err;
	st->extents += fm->fm_mapped_extents;
	*next = 0;
	if (!fm->fm_mapped_extents)
		return 0;
	last = &fm->fm_extents[fm->fm_mapped_extents - 1];
	if (last->fe_flags & FIEMAP_EXTENT_LAST)
		return 0;
	*next = last->fe_logical + last->fe_length;
	if (*next <= start)
		return e2map__fail(f->m, -EUCLEAN, "inode %u: FIEMAP made no "
				   "progress", f->ino);
	return 0;
}

static int fiemap_walk(e2map_file_t *f, struct fiemap *fm,
		       struct e2map_check_stats *st)
{
	uint64_t start = 0, next;
	int err;

	do {
		if ((err = fiemap_batch(f, fm, start, &next, st)) < 0)
			return err;
		start = next;
	} while (next);
	memset(fm, 0, sizeof(*fm));
	fm->fm_length = ~0ULL;
	fm->fm_flags = FIEMAP_FLAG_XATTR;
	fm->fm_extent_count = BATCH;
	st->fiemaps++;
	return e2map_file_fiemap(f, fm);
}

/* A FIEMAP request with room for a batch: on the stack, as xfs_io's
 * buffer, not an allocation per inode. */
union fiemap_buf {
	struct fiemap fm;
	unsigned char room[sizeof(struct fiemap) +
			   BATCH * sizeof(struct fiemap_extent)];
};

int e2map_file_check(e2map_file_t *f, struct e2map_check_stats *st)
{
	union fiemap_buf b;
	int err;

	if (!f || !E2MAP__OUT_OK(st, E2MAP_CHECK_STATS_VERSION))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->version = E2MAP_CHECK_STATS_VERSION;
	if (e2map__unmapped(f))
		return 0;	/* nothing mapped: answered by type alone */
	/* Each batch zeroes the header; the call fills the extents. */
	err = seek_walk(f, st);
	if (!err)
		err = fiemap_walk(f, &b.fm, st);
	return err;
}

/* The inode as the kernel reaches it: an EA inode through its parent's
 * xattr (ext4_xattr_inode_iget), any other by handle. */
static int open_for_check(e2map_t *m, uint64_t ino, e2map_file_t **f)
{
	uint32_t flags = 0;
	int err;

	*f = NULL;
	if (ino >= 1 && ino <= m->fs->super->s_inodes_count &&
	    ext2fs_has_feature_ea_inode(m->fs->super)) {
		if ((err = e2map__inode_raw_flags(m, (ext2_ino_t)ino,
						  &flags)) < 0)
			return err;
		if (flags & EXT4_EA_INODE_FL) {
			m->err.msg[0] = '\0';
			return e2map__iget_how(m, (ext2_ino_t)ino,
					       E2MAP_IGET_EA, f);
		}
	}
	return e2map_file_open_ino(m, ino, f);
}

int e2map_inode_check(e2map_t *m, uint64_t ino, struct e2map_check_stats *st)
{
	e2map_file_t *f;
	int err;

	if (!m || !E2MAP__OUT_OK(st, E2MAP_CHECK_STATS_VERSION))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->version = E2MAP_CHECK_STATS_VERSION;
	if ((err = open_for_check(m, ino, &f)) < 0)
		return err;
	err = e2map_file_check(f, st);
	e2map_file_close(f);
	return err;
}

/* e2map_check_all: the whole-image pass (parscan.c) with check's work. */
static int check_work(e2map_t *h, const struct e2map_inode *in, void *result,
		      const char **detail)
{
	struct e2map_check_stats st = E2MAP_CHECK_STATS_INIT;
	int *err = result;

	*err = in->err ? in->err : e2map_inode_check(h, in->ino, &st);
	if (*err)
		*detail = e2map_errmsg(h);
	return 0;
}

struct check_hand {
	e2map_check_cb cb;
	void *payload;
};

static int check_hand(e2map_t *m, const struct e2map_inode *in, void *result,
		      const char *detail, void *payload)
{
	const struct check_hand *h = payload;
	int err = *(int *)result;

	return h->cb(m, in, err, err ? detail : "", h->payload);
}

int e2map_check_all(e2map_t *m, unsigned threads, e2map_check_cb cb,
		    void *payload)
{
	static const struct e2map__par ops = { sizeof(int), check_work,
					       check_hand };
	struct check_hand h = { cb, payload };

	if (!m || !cb)
		return -EINVAL;
	return e2map__par_scan(m, threads, &ops, &h);
}

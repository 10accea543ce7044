/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's "system zone" (fs/ext4/block_validity.c): the blocks a
 * mount with block_validity (the default) refuses to see referenced by an
 * inode -- superblock and descriptor copies, bitmaps, inode tables, and
 * the journal inode's blocks (valid for the journal inode only).
 * ext4_inode_block_valid checks every block reference against it.
 *
 * Building it can fail the mount ("failed to initialize system zone"):
 * add_system_zone refuses a range whose first block lies inside one
 * already added.  When no two ranges overlap (any sane filesystem) that
 * never happens, and one pass in block order proves it: each kind of range
 * (base metadata, block bitmaps, inode bitmaps, inode tables) comes in
 * block order group after group, so the four streams merge in O(groups)
 * and only the merged ranges are kept -- a few per flex group.  Otherwise
 * the kernel's insertions are replayed in its order (zonesim.c).
 */
#include "mount.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

/* add_system_zone's arguments, in ext4_setup_system_zone's order. */
struct zadd {
	uint64_t start;
	uint32_t count;
	uint32_t ino;		/* 0: metadata; else the journal's */
	dgrp_t g;		/* whose part (for the message) */
	int part;		/* enum zpart; Z_PARTS: a journal run */
};
struct zadds {
	struct zadd *v;
	size_t n, cap;
};

static int zadds_push(struct zadds *a, const struct zadd *r)
{
	if (e2map__grow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v)) < 0)
		return -ENOMEM;
	a->v[a->n++] = *r;
	return 0;
}

/* Appends [start, start + count) to Z (sorted), joining a touching end. */
static int zone_add(struct e2map_zones *z, uint64_t start, uint64_t count)
{
	if (!count)
		return 0;
	if (z->n && z->v[z->n - 1].start + z->v[z->n - 1].count == start) {
		z->v[z->n - 1].count += count;
		return 0;
	}
	if (e2map__grow((void **)&z->v, &z->cap, z->n + 1, sizeof(*z->v)) < 0)
		return -ENOMEM;
	z->v[z->n++] = (struct e2map_zone){ start, count };
	return 0;
}

static int cmp_zone(const void *a, const void *b)
{
	const struct e2map_zone *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorted, overlaps merged: the union of Z's ranges. */
static void zone_sort(struct e2map_zones *z)
{
	size_t i, n = 0;

	if (!z->n)
		return;
	qsort(z->v, z->n, sizeof(*z->v), cmp_zone);
	for (i = 1; i < z->n; i++) {
		struct e2map_zone *last = &z->v[n];
		uint64_t end = last->start + last->count;

		if (z->v[i].start <= end) {
			if (z->v[i].start + z->v[i].count > end)
				last->count = z->v[i].start + z->v[i].count -
					      last->start;
		} else {
			z->v[++n] = z->v[i];
		}
	}
	z->n = n + 1;
}

/* The parts of a group, in the order the kernel adds them. */
enum zpart { Z_BASE, Z_BBITMAP, Z_IBITMAP, Z_ITABLE, Z_PARTS };
static const char *const part_name[Z_PARTS] = {
	"superblock and descriptors", "block bitmap", "inode bitmap",
	"inode table"
};

/*
 * ext4_setup_system_zone's per-group part since kernel commit 68228da51c9a
 * (2023; Linux 6.6, stable 5.10 on): every group's base metadata (when it
 * has any), bitmaps and inode table.  Earlier kernels added only the
 * superblock and the descriptor table of groups with a superblock (their
 * "below 5 or a flex multiple" test saw a flex size of 1, not yet set up).
 * False when the kernel adds nothing for PART of group G.
 */
static bool part_range(const e2map_t *m, dgrp_t g, int part, struct zadd *r)
{
	ext2_filsys fs = m->fs;

	r->ino = 0;
	r->count = 1;
	r->g = g;
	r->part = part;
	switch (part) {
	case Z_BASE:
		r->start = ext2fs_group_first_block2(fs, g);
		r->count = (uint32_t)e2map__group_base(fs, g, NULL);
		return r->count != 0;
	case Z_BBITMAP:
		r->start = ext2fs_block_bitmap_loc(fs, g);
		return true;
	case Z_IBITMAP:
		r->start = ext2fs_inode_bitmap_loc(fs, g);
		return true;
	default:
		r->start = ext2fs_inode_table_loc(fs, g);
		r->count = m->itb;
		return true;
	}
}

/* The system zone's walk of the journal inode: one addition per run. */
struct zwalk {
	struct e2map_jwalk w;
	struct zadds *out;
};

static int zone_fail(struct e2map_jwalk *w, int err)
{
	return e2map__fail(NULL, err, "failed to initialize system zone "
			   "(%d): journal inode %u: %s", err, w->ino,
			   w->m->err.msg);
}

/* ceil(i_size / block size) blocks, a 32-bit count. */
static int zone_begin(struct e2map_jwalk *w, e2map_file_t *f, uint32_t *n)
{
	*n = (uint32_t)((f->size + w->m->bs - 1) >> w->m->bits);
	return 0;
}

static int zone_run(struct e2map_jwalk *w, uint32_t lblk,
		    const struct es_entry *r)
{
	(void)lblk;
	if (r->kind == E2MAP_RUN_HOLE)
		return 0;
	return zadds_push(((struct zwalk *)w)->out, &(struct zadd){
				r->pblk, r->len, w->ino, 0, Z_PARTS });
}

/*
 * ext4_protect_reserved_inode: the journal inode as ext4_iget with
 * EXT4_IGET_SPECIAL reads it (any failure fails the mount), then each run
 * ext4_map_blocks finds in its first ceil(i_size / block size) blocks (a
 * 32-bit count), one addition per run.  The zone is still empty while it
 * maps, as the kernel's (published only once complete): the journal's
 * extents are range-checked only.
 */
static int journal_runs(e2map_t *m, uint32_t ino, struct zadds *out)
{
	struct zwalk zw = { { m, ino, zone_begin, zone_run, zone_fail }, out };

	return e2map__journal_walk(&zw.w);
}

static int add_journal(e2map_t *m, struct zadds *runs)
{
	struct ext2_super_block *sb = m->fs->super;
	uint32_t ino = sb->s_journal_inum;

	if (!ext2fs_has_feature_journal(sb) || !ino)
		return 0;
	if (ino < EXT2_ROOT_INO || ino > sb->s_inodes_count)
		return e2map__fail(NULL, -EINVAL, "failed to initialize system "
				   "zone (%d): journal inode %u is out of range",
				   -EINVAL, ino);
	return journal_runs(m, ino, runs);
}

static int cmp_zadd(const void *a, const void *b)
{
	const struct zadd *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* One stream of the merge: one part of every group, in group order. */
struct cursor {
	int part;
	dgrp_t g;
	bool live;
	struct zadd r;
};

/* Steps C to its next range; false when the stream goes backwards. */
static bool cursor_next(const e2map_t *m, struct cursor *c)
{
	bool first = !c->live;
	uint64_t prev = c->r.start;

	c->live = true;
	for (c->g = first ? 0 : c->g + 1; c->g < m->fs->group_desc_count;
	     c->g++)
		if (part_range(m, c->g, c->part, &c->r))
			return first || c->r.start >= prev;
	c->live = false;
	return true;
}

/* The stream (or journal run, past the last stream) whose range is next. */
static int pick(const struct cursor *c, const struct zadds *jr, size_t j)
{
	int i, k = -1;

	for (i = 0; i < Z_PARTS; i++)
		if (c[i].live && (k < 0 || c[i].r.start < c[k].r.start))
			k = i;
	if (j < jr->n && (k < 0 || jr->v[j].start < c[k].r.start))
		k = Z_PARTS;
	return k;
}

/*
 * The fast path: every range in block order (JR: the journal's runs,
 * sorted), each starting at or past the end of the one before -- then no
 * addition can start inside another, and the zone is their union.  1: two
 * ranges overlap or a stream is out of order (take the slow path).
 */
static int merge_streams(e2map_t *m, const struct zadds *jr)
{
	struct cursor c[Z_PARTS];
	uint64_t end = 0;
	size_t j = 0;
	int k, err;

	for (k = 0; k < Z_PARTS; k++) {
		c[k] = (struct cursor){ .part = k };
		cursor_next(m, &c[k]);
	}
	while ((k = pick(c, jr, j)) >= 0) {
		const struct zadd *r = k < Z_PARTS ? &c[k].r : &jr->v[j];

		if (!r->count || r->start < end)
			return 1;
		err = zone_add(r->ino ? &m->jzone : &m->zone, r->start,
			       r->count);
		if (err < 0)
			return err;
		end = r->start + r->count;
		if (k == Z_PARTS)
			j++;
		else if (!cursor_next(m, &c[k]))
			return 1;
	}
	return 0;
}

/* Every addition of ext4_setup_system_zone, in its order. */
static int all_adds(const e2map_t *m, const struct zadds *jr, struct zadds *a)
{
	struct zadd r;
	dgrp_t g;
	size_t i;
	int part, err = 0;

	for (g = 0; g < m->fs->group_desc_count && !err; g++)
		for (part = 0; part < Z_PARTS && !err; part++)
			if (part_range(m, g, part, &r))
				err = zadds_push(a, &r);
	for (i = 0; i < jr->n && !err; i++)
		err = zadds_push(a, &jr->v[i]);
	return err;
}

/* The kernel's words for a refused addition, and what it was. */
static int refusal(const struct zadd *r)
{
	if (r->part == Z_PARTS)
		return e2map__fail(NULL, -EUCLEAN, "failed to initialize "
				   "system zone (%d): journal inode %u: blocks "
				   "%" PRIu64 "-%" PRIu64 " from inode overlap "
				   "system zone", -EUCLEAN, r->ino, r->start,
				   r->start + r->count - 1);
	return e2map__fail(NULL, -EUCLEAN, "failed to initialize system zone "
			   "(%d): the %s of group %u (blocks %" PRIu64 "-%"
			   PRIu64 ") starts inside metadata added before it; "
			   "the kernel refuses to mount", -EUCLEAN,
			   part_name[r->part], r->g, r->start,
			   r->start + r->count - 1);
}

/*
 * The slow path: ext4_setup_system_zone replayed addition by addition
 * (zonesim.c), for its verdict; then the zone is the union of the ranges.
 * (Overlapping ranges the kernel accepts make its later lookups depend on
 * the tree's shape; the union refuses whatever any of them covers.)
 */
static int replay(e2map_t *m, const struct zadds *jr)
{
	struct zadds a = { 0 };
	struct e2map_zsim t = { 0 };
	size_t i;
	int err;

	if ((err = all_adds(m, jr, &a)) == 0 &&
	    (err = e2map__zsim_init(&t, a.n)) == 0)
		for (i = 0; i < a.n && !err; i++)
			if (e2map__zsim_add(&t, a.v[i].start, a.v[i].count,
					    a.v[i].ino) < 0)
				err = refusal(&a.v[i]);
	e2map__zsim_free(&t);
	for (i = 0; i < a.n && !err; i++)
		err = zone_add(a.v[i].ino ? &m->jzone : &m->zone,
			       a.v[i].start, a.v[i].count);
	free(a.v);
	zone_sort(&m->zone);
	zone_sort(&m->jzone);
	return err;
}

/* JR: the journal's runs in the kernel's order (by logical block). */
static int fast_or_replay(e2map_t *m, const struct zadds *jr)
{
	struct zadds sorted = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < jr->n && !err; i++)
		err = zadds_push(&sorted, &jr->v[i]);
	if (!err && sorted.n)
		qsort(sorted.v, sorted.n, sizeof(*sorted.v), cmp_zadd);
	if (!err)
		err = merge_streams(m, &sorted);
	free(sorted.v);
	if (err == 1) {
		e2map__zone_free(m);
		err = replay(m, jr);
	}
	return err;
}

int e2map__zone_setup(e2map_t *m)
{
	struct zadds jr = { 0 };
	int err = add_journal(m, &jr);

	if (err == 0)
		err = fast_or_replay(m, &jr);
	free(jr.v);
	return err;
}

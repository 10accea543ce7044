/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff's logical ranges: the runs of one inode in A and in B (each from
 * the one mapping walk, e2map_file_walk), swept together and each stretch
 * named by what the block became; with BYTES, the stretches both map to
 * the same blocks are read from both images and compared block by block.
 */
#include "passes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct runs {
	struct e2map_run *v;
	size_t n, cap;
};

static int add_run(const struct e2map_run *r, void *payload)
{
	struct runs *rs = payload;

	if (r->kind == E2MAP_RUN_HOLE)
		return 0;
	if (e2map__grow((void **)&rs->v, &rs->cap, rs->n + 1,
			sizeof(*rs->v)) < 0)
		return -ENOMEM;
	rs->v[rs->n++] = *r;
	return 0;
}

int e2map__diff_range_add(struct e2map__diff_ranges *d,
			  enum e2map_diff_kind kind, uint64_t off,
			  uint64_t len)
{
	struct e2map_diff_range *last = d->n ? &d->v[d->n - 1] : NULL;

	if (last && last->kind == kind && last->offset + last->length == off) {
		last->length += len;
		return 0;
	}
	if (e2map__grow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v)) < 0)
		return -ENOMEM;
	d->v[d->n].offset = off;
	d->v[d->n].length = len;
	d->v[d->n].kind = kind;
	d->n++;
	return 0;
}

/* One side's runs, holes left out; F NULL: the side has no file. */
static int walk(e2map_file_t *f, struct runs *rs)
{
	rs->n = 0;
	if (!f)
		return 0;
	return e2map_file_walk(f, 0, E2MAP_MAX_BLOCKS, add_run, rs);
}

/* BYTES over a same-mapped stretch: the blocks whose bytes differ. */
#define CMP_CHUNK (256u << 10)

static int compare_bytes(const struct e2map__diff_side *s,
			 struct e2map__diff_ranges *d, uint64_t off,
			 uint64_t len)
{
	uint32_t bs = s->bs;
	int64_t got;
	int err;

	while (len) {
		size_t n = len < CMP_CHUNK ? (size_t)len : CMP_CHUNK;

		memset(s->buf_a, 0, n);
		memset(s->buf_b, 0, n);
		if ((got = e2map_file_pread(s->fa, s->buf_a, n, off)) < 0 ||
		    (got = e2map_file_pread(s->fb, s->buf_b, n, off)) < 0)
			return (int)got;
		for (size_t i = 0; i < n; i += bs) {
			size_t k = n - i < bs ? n - i : bs;

			if (memcmp(s->buf_a + i, s->buf_b + i, k) &&
			    (err = e2map__diff_range_add(
				     d, E2MAP_DIFF_R_SAME_CHANGED, off + i,
				     k)) < 0)
				return err;
		}
		off += n;
		len -= n;
	}
	return 0;
}

/* A directory's blocks (read(2) refuses it), from each image, as the
 * metadata they are. */
static int compare_dir_blocks(const struct e2map__diff_side *s,
			      struct e2map__diff_ranges *d, uint64_t off,
			      uint64_t pblk, uint64_t n)
{
	int err;

	for (uint64_t i = 0; i < n; i++) {
		if ((err = e2map__read_block(s->fa->m, pblk + i, s->buf_a)) < 0
		    || (err = e2map__read_block(s->fb->m, pblk + i,
						s->buf_b)) < 0)
			return err;
		if (memcmp(s->buf_a, s->buf_b, s->bs) &&
		    (err = e2map__diff_range_add(d, E2MAP_DIFF_R_SAME_CHANGED,
						 off + i * s->bs, s->bs)) < 0)
			return err;
	}
	return 0;
}

/* An inline directory's bytes: i_block, then system.data's value. */
static bool inline_dir_same(const e2map_file_t *a, const e2map_file_t *b)
{
	const size_t head = E2MAP_MIN_INLINE_DATA_SIZE;

	if (a->inline_size != b->inline_size ||
	    memcmp(a->inode->i_block, b->inode->i_block, head))
		return false;
	return a->inline_size <= head ||
	       !memcmp(a->raw + a->inline_value, b->raw + b->inline_value,
		       a->inline_size - head);
}

/* Inline data on both sides lives in the inode: compare it always (a
 * directory's from the inode, as read(2) refuses it). */
static int compare_inline(const struct e2map__diff_side *s,
			  struct e2map__diff_ranges *d)
{
	uint64_t max = s->size_a > s->size_b ? s->size_a : s->size_b;

	max = (max + s->bs - 1) / s->bs * s->bs;
	if (s->dir)
		return inline_dir_same(s->fa, s->fb) ? 0 :
			e2map__diff_range_add(d, E2MAP_DIFF_R_SAME_CHANGED, 0,
					      max);
	if (max > CMP_CHUNK)
		return -EUCLEAN;
	return compare_bytes(s, d, 0, max);
}

/* The block past both EOFs: beyond it both sides read zeroes. */
static uint64_t eof_block(const struct e2map__diff_side *s)
{
	uint64_t max = s->size_a > s->size_b ? s->size_a : s->size_b;

	return max / s->bs + (max % s->bs != 0);
}

/*
 * BYTES over the blocks FROM to END, as far as the inode's budget goes:
 * a hostile tree mapping one stretch of the device again and again may
 * not make it read more than the device.  *STOP: where it stopped.
 */
static int compare_some(struct e2map__diff_side *s,
			struct e2map__diff_ranges *d,
			const struct e2map_run *rb, uint64_t from, uint64_t end,
			uint64_t *stop)
{
	uint64_t n = end - from < s->budget ? end - from : s->budget;

	s->budget -= n;
	*stop = from + n;
	if (!n)
		return 0;
	if (s->dir)
		return compare_dir_blocks(s, d, from * s->bs,
					  rb->pblk + (from - rb->lblk), n);
	return compare_bytes(s, d, from * s->bs, n * s->bs);
}

/* Both sides map the stretch from FROM to the same blocks, alike. */
static int same_blocks(struct e2map__diff_side *s,
		       struct e2map__diff_ranges *d, const struct e2map_run *rb,
		       uint64_t from, uint64_t to)
{
	uint64_t end = to < eof_block(s) ? to : eof_block(s), stop = from;
	int err;

	if (rb->kind == E2MAP_RUN_UNWRITTEN || !s->data_may_change)
		return 0;	/* zeroes both ways; or the file's data kept */
	if (!s->bytes)
		end = to;
	else if (from >= end)
		return 0;
	else if ((err = compare_some(s, d, rb, from, end, &stop)) < 0)
		return err;
	if (stop == end)
		return 0;
	return e2map__diff_range_add(d, E2MAP_DIFF_R_SAME_UNCHECKED,
				     stop * s->bs, (end - stop) * s->bs);
}

static bool inline_run(const struct e2map_run *r)
{
	return r->kind == E2MAP_RUN_INLINE;
}

/* Mapped in A only: a hole below B's EOF, removed past it (the stretch
 * split at the block holding B's EOF). */
static int unmapped_in_b(const struct e2map__diff_side *s,
			 struct e2map__diff_ranges *d, uint64_t from,
			 uint64_t to)
{
	uint64_t eof = s->size_b / s->bs + (s->size_b % s->bs != 0);
	uint64_t mid = eof < from ? from : eof > to ? to : eof;
	int err = 0;

	if (mid > from)
		err = e2map__diff_range_add(d, E2MAP_DIFF_R_PUNCHED,
					    from * s->bs, (mid - from) * s->bs);
	if (!err && to > mid)
		err = e2map__diff_range_add(d, E2MAP_DIFF_R_REMOVED,
					    mid * s->bs, (to - mid) * s->bs);
	return err;
}

/* What the stretch mapped A's way (RA, may be NULL) and B's became. */
static int classify(struct e2map__diff_side *s,
		    struct e2map__diff_ranges *d, const struct e2map_run *ra,
		    const struct e2map_run *rb, uint64_t from, uint64_t to)
{
	uint64_t off = from * s->bs, len = (to - from) * s->bs;
	enum e2map_diff_kind k;

	if (!ra)
		k = rb->kind == E2MAP_RUN_UNWRITTEN ? E2MAP_DIFF_R_FILLED
						    : E2MAP_DIFF_R_ADDED;
	else if (!rb)
		return unmapped_in_b(s, d, from, to);
	else if (inline_run(ra) && inline_run(rb))
		return compare_inline(s, d);
	else if (inline_run(ra) || inline_run(rb) ||
		 ra->pblk + (from - ra->lblk) != rb->pblk + (from - rb->lblk))
		k = E2MAP_DIFF_R_MOVED;
	else if (ra->kind == rb->kind)
		return same_blocks(s, d, rb, from, to);
	else
		k = rb->kind == E2MAP_RUN_UNWRITTEN ? E2MAP_DIFF_R_UNWRITTEN
						    : E2MAP_DIFF_R_WRITTEN;
	return e2map__diff_range_add(d, k, off, len);
}

static uint64_t run_end(const struct e2map_run *r)
{
	return r->lblk + r->nblk;
}

/* Sweep both run lists (sorted, disjoint) over their boundaries. */
static int sweep(struct e2map__diff_side *s, const struct runs *a,
		 const struct runs *b, struct e2map__diff_ranges *d)
{
	size_t i = 0, j = 0;
	uint64_t pos = 0;
	int err;

	for (;;) {
		const struct e2map_run *ra = NULL, *rb = NULL;
		uint64_t end = UINT64_MAX;

		while (i < a->n && run_end(&a->v[i]) <= pos)
			i++;
		while (j < b->n && run_end(&b->v[j]) <= pos)
			j++;
		if (i == a->n && j == b->n)
			return 0;
		if (i < a->n && a->v[i].lblk <= pos)
			ra = &a->v[i], end = run_end(ra);
		else if (i < a->n)
			end = a->v[i].lblk;
		if (j < b->n && b->v[j].lblk <= pos) {
			rb = &b->v[j];
			end = end < run_end(rb) ? end : run_end(rb);
		} else if (j < b->n && b->v[j].lblk < end)
			end = b->v[j].lblk;
		if ((ra || rb) &&
		    (err = classify(s, d, ra, rb, pos, end)) < 0)
			return err;
		pos = end;
	}
}

int e2map__diff_map(struct e2map__diff_side *s, struct e2map__diff_ranges *d)
{
	struct runs a = { NULL, 0, 0 }, b = { NULL, 0, 0 };
	int err;

	d->n = 0;
	if (!s->buf_a && !(s->buf_a = malloc(CMP_CHUNK)))
		return -ENOMEM;
	if (!s->buf_b && !(s->buf_b = malloc(CMP_CHUNK)))
		return -ENOMEM;
	if ((err = walk(s->fa, &a)) == 0 && (err = walk(s->fb, &b)) == 0)
		err = sweep(s, &a, &b, d);
	free(a.v);
	free(b.v);
	return err;
}

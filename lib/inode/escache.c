/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The simulated extent-status cache of one inode (fs/ext4/extents_status.c,
 * spec §3.3): disjoint ranges, always maximally merged, with the kernel's
 * two insert flavours, and the set of extent leaves already read.
 * A sorted array: lookups are binary searches (after a try at the last
 * answer, for sequential walks), inserts shift the tail.
 */
#include "inode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t es_end(const struct es_entry *e)
{
	return (uint64_t)e->lblk + e->len;
}

/*
 * Index of the first entry that ends after LBLK (may be c->n).  A seek or
 * FIEMAP walk asks for the range it just found, the next one, or past the
 * last one cached: the last answer (c->hint) is tried first, and its
 * entry's end tells which way to go -- the answer itself, the entry after
 * it, or the end of the array; else it halves the binary search.  The hint
 * is only a guess, checked before use, so inserts and removes that shift
 * the array need not keep it exact.
 */
static size_t first_ending_after(struct escache *c, uint64_t lblk)
{
	size_t h = c->hint, lo = 0, hi = c->n;

	if (h >= c->n) {
		if (!c->n || es_end(&c->v[c->n - 1]) <= lblk)
			return c->hint = c->n;
	} else if (es_end(&c->v[h]) > lblk) {
		if (h == 0 || es_end(&c->v[h - 1]) <= lblk)
			return h;
		hi = h;
	} else {
		if (h + 1 == c->n || es_end(&c->v[h + 1]) > lblk)
			return c->hint = h + 1;
		lo = h + 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es_end(&c->v[mid]) <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return c->hint = lo;
}

bool e2map__es_lookup(struct escache *c, uint32_t lblk,
		      struct es_entry *out)
{
	size_t i = first_ending_after(c, lblk);

	if (i == c->n || c->v[i].lblk > lblk)
		return false;
	*out = c->v[i];
	return true;
}

static bool has_pblk(enum e2map_run_kind k)
{
	return k == E2MAP_RUN_DATA || k == E2MAP_RUN_UNWRITTEN;
}

/* ext4_es_can_be_merged: A directly followed by B, same kind, contiguous. */
static bool can_merge(const struct es_entry *a, const struct es_entry *b)
{
	if (a->kind != b->kind || es_end(a) != b->lblk ||
	    (uint64_t)a->len + b->len > E2MAP_MAX_BLOCKS)
		return false;
	return !has_pblk(a->kind) || a->pblk + a->len == b->pblk;
}

/* Most files are a few extents and holes: a first step of a few entries
 * stays in the allocator's per-thread cache, where 64 went to its bins. */
#define ES_FIRST 8

static int reserve(struct escache *c, size_t extra)
{
	if (!c->cap && extra <= ES_FIRST) {
		if (!(c->v = malloc(ES_FIRST * sizeof(*c->v))))
			return -ENOMEM;
		c->cap = ES_FIRST;
		return 0;
	}
	return e2map__grow((void **)&c->v, &c->cap, c->n + extra,
			   sizeof(*c->v));
}

static void delete_at(struct escache *c, size_t i)
{
	memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) * sizeof(c->v[0]));
	c->n--;
}

static int insert_at(struct escache *c, size_t i, const struct es_entry *e)
{
	if (reserve(c, 1) < 0)
		return -ENOMEM;
	memmove(&c->v[i + 1], &c->v[i], (c->n - i) * sizeof(c->v[0]));
	c->v[i] = *e;
	c->n++;
	return 0;
}

/* Cut the part [lo, hi) of entry E away from its front. */
static void trim_front(struct es_entry *e, uint64_t hi)
{
	uint32_t cut = (uint32_t)(hi - e->lblk);

	if (has_pblk(e->kind))
		e->pblk += cut;
	e->lblk += cut;
	e->len -= cut;
}

/* __es_remove_extent: make [lo, hi) empty, splitting what straddles it. */
static int remove_range(struct escache *c, uint64_t lo, uint64_t hi)
{
	size_t i = first_ending_after(c, lo);

	while (i < c->n && c->v[i].lblk < hi) {
		struct es_entry *e = &c->v[i];

		if (e->lblk < lo && es_end(e) > hi) {
			struct es_entry right = *e;

			trim_front(&right, hi);
			e->len = (uint32_t)(lo - e->lblk);
			return insert_at(c, i + 1, &right);
		}
		if (e->lblk < lo) {
			e->len = (uint32_t)(lo - e->lblk);
			i++;
		} else if (es_end(e) > hi) {
			trim_front(e, hi);
			return 0;
		} else {
			delete_at(c, i);
		}
	}
	return 0;
}

/* __es_insert_extent into a free range, merging with both neighbours. */
static int insert_merge(struct escache *c, const struct es_entry *e)
{
	size_t i = first_ending_after(c, e->lblk);

	if (i > 0 && can_merge(&c->v[i - 1], e)) {
		c->v[i - 1].len += e->len;
		if (i < c->n && can_merge(&c->v[i - 1], &c->v[i])) {
			c->v[i - 1].len += c->v[i].len;
			delete_at(c, i);
		}
		return 0;
	}
	if (i < c->n && can_merge(e, &c->v[i])) {
		c->v[i].lblk = e->lblk;
		c->v[i].len += e->len;
		c->v[i].pblk = e->pblk;
		return 0;
	}
	return insert_at(c, i, e);
}

/* ext4_es_insert_extent: the new range replaces whatever was there. */
int e2map__es_insert(struct escache *c, const struct es_entry *e)
{
	int err;

	if (!e->len)
		return 0;
	if ((err = remove_range(c, e->lblk, es_end(e))) < 0)
		return err;
	return insert_merge(c, e);
}

/* ext4_es_cache_extent: added only where nothing is cached yet at all. */
int e2map__es_cache(struct escache *c, const struct es_entry *e)
{
	size_t i = first_ending_after(c, e->lblk);

	if (!e->len || (i < c->n && c->v[i].lblk < es_end(e)))
		return 0;
	return insert_merge(c, e);
}

void e2map__es_free(struct escache *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

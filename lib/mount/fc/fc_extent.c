/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An inode's extents as a list in memory, edited as fs/ext4/extents.c
 * edits the tree during a replay: ext4_ext_insert_extent's merges (never
 * across two leaves) and its leaf split (ext4_ext_split, in a depth-1
 * tree), ext4_ext_replay_update_ex's splits, ext4_ext_remove_space's
 * cuts and ext4_ext_replay_shrink_inode's merges.  Where these differ
 * from libext2fs's extent code, SEEK_DATA/SEEK_HOLE and FIEMAP after
 * --replay would differ from the kernel's, so the list is edited here
 * and written back by fc_tree.c.
 */
#include "fc.h"

#include <errno.h>
#include <string.h>

/* The last extent starting at or before LBLK, or NONE. */
size_t e2map__fc_find(const struct tree *t, uint32_t lblk)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->x[mid].lblk <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : NONE;
}

/* ext4_map_blocks without create: *E is the mapped piece, or a hole. */
bool e2map__fc_lookup(const struct tree *t, uint32_t cur, uint32_t rem,
		      struct fx *e)
{
	size_t i = e2map__fc_find(t, cur), next = i == NONE ? 0 : i + 1;

	*e = (struct fx){ .lblk = cur, .len = rem };
	if (i != NONE && cur < xend(&t->x[i])) {
		if (xend(&t->x[i]) - cur < rem)
			e->len = (uint32_t)(xend(&t->x[i]) - cur);
		e->pblk = t->x[i].pblk + (cur - t->x[i].lblk);
		e->unwritten = t->x[i].unwritten;
		return true;
	}
	if (next < t->n && t->x[next].lblk - cur < rem)
		e->len = t->x[next].lblk - cur;
	return false;
}

/* ext4_can_extents_be_merged, of two extents of one leaf */
static bool can_merge(const struct fx *a, const struct fx *b)
{
	return a->leaf == b->leaf && a->unwritten == b->unwritten &&
	       xend(a) == b->lblk &&
	       a->pblk + a->len == b->pblk &&
	       (uint64_t)a->len + b->len <=
			(a->unwritten ? UNWRITTEN_MAX : INIT_MAX);
}

static void drop(struct tree *t, size_t i)
{
	memmove(t->x + i, t->x + i + 1, (t->n - i - 1) * sizeof(*t->x));
	t->n--;
}

int e2map__fc_put_at(struct tree *t, size_t i, const struct fx *e)
{
	if (e2map__grow((void **)&t->x, &t->cap, t->n + 1, sizeof(*t->x)) < 0)
		return -ENOMEM;
	memmove(t->x + i + 1, t->x + i, (t->n - i) * sizeof(*t->x));
	t->x[i] = *e;
	t->n++;
	return 0;
}

/* ext4_ext_try_to_merge_right */
static bool merge_right(struct tree *t, size_t i)
{
	bool done = false;

	while (i + 1 < t->n && can_merge(&t->x[i], &t->x[i + 1])) {
		t->x[i].len += t->x[i + 1].len;
		drop(t, i + 1);
		done = true;
	}
	return done;
}

/* ext4_ext_try_to_merge */
static void try_to_merge(struct tree *t, size_t i)
{
	if (!(i > 0 && merge_right(t, i - 1)))
		merge_right(t, i);
}

int e2map__fc_add_node(struct tree *t, blk64_t b)
{
	if (e2map__grow((void **)&t->nodes, &t->capnodes, t->nnodes + 1,
			sizeof(*t->nodes)) < 0)
		return -ENOMEM;
	t->nodes[t->nnodes++] = b;
	return 0;
}

/* How many leaves of a depth-1 tree still hold extents. */
size_t e2map__fc_leaves_used(const struct tree *t)
{
	size_t k, n = 0;

	for (k = 0; k < t->n; k++)
		if (!k || t->x[k].leaf != t->x[k - 1].leaf)
			n++;
	return n;
}

/* The extents of leaf LEAF: how many, and the first (they are consecutive). */
static size_t leaf_span(const struct tree *t, unsigned leaf, size_t *first)
{
	size_t k, n = 0;

	*first = NONE;
	for (k = 0; k < t->n; k++)
		if (t->x[k].leaf == leaf && !n++)
			*first = k;
	return n;
}

/*
 * ext4_ext_insert_extent meeting a full leaf of a depth-1 tree: an extent
 * past its last goes into the next leaf while that has room; else
 * ext4_ext_split moves the extents after the one ext4_find_extent found
 * into a new leaf (allocated near it), whose border is the first of them,
 * or the new extent.  *LEAF is where the new extent goes.  A root full of
 * leaves grows in depth: the tree is then written back whole.
 */
static int make_room(struct fcr *r, const struct fx *e, unsigned *leaf)
{
	struct tree *t = &r->t;
	size_t first, n = leaf_span(t, *leaf, &first), last, p, k, f2;
	uint32_t border;
	blk64_t goal, b;
	int err;

	if (t->depth != 1 || n < node_max(r))
		return 0;
	last = first + n - 1;
	if (e->lblk > t->x[last].lblk && last + 1 < t->n &&
	    leaf_span(t, t->x[last + 1].leaf, &f2) < node_max(r)) {
		*leaf = t->x[last + 1].leaf;
		return 0;
	}
	if (e2map__fc_leaves_used(t) >= ROOT_MAX)
		return 0;
	p = e2map__fc_find(t, e->lblk);
	p = p == NONE || p < first ? first : p > last ? last : p;
	goal = e->lblk > t->x[p].lblk ? t->x[p].pblk + (e->lblk - t->x[p].lblk)
				      : t->x[p].pblk - (t->x[p].lblk - e->lblk);
	if ((err = e2map__fc_alloc(r, goal, &b)) < 0 ||
	    (err = e2map__fc_add_node(t, b)) < 0)
		return err;
	border = p < last ? t->x[p + 1].lblk : e->lblk;
	for (k = p + 1; k <= last; k++)
		t->x[k].leaf = (unsigned)(t->nnodes - 1);
	if (e->lblk >= border)
		*leaf = (unsigned)(t->nnodes - 1);
	return 0;
}

/* ext4_ext_insert_extent of E into a hole: append, prepend, or a new one. */
int e2map__fc_insert(struct fcr *r, const struct fx *e)
{
	struct tree *t = &r->t;
	size_t i = e2map__fc_find(t, e->lblk);
	size_t ex = i != NONE ? i : t->n ? 0 : NONE;
	int err;

	if (ex != NONE && can_merge(&t->x[ex], e)) {
		t->x[ex].len += e->len;
	} else if (ex != NONE && can_merge(e, &t->x[ex])) {
		t->x[ex].lblk = e->lblk;
		t->x[ex].pblk = e->pblk;
		t->x[ex].len += e->len;
	} else {
		struct fx n = *e;

		/* ext4_find_extent's leaf: the one holding I, else the first */
		n.leaf = i != NONE ? t->x[i].leaf : t->n ? t->x[0].leaf : 0;
		ex = i == NONE ? 0 : i + 1;
		if ((err = make_room(r, e, &n.leaf)) < 0 ||
		    (err = e2map__fc_put_at(t, ex, &n)) < 0)
			return err;
	}
	try_to_merge(t, ex);
	return 0;
}

/* ext4_split_extent_at under PRE_IO: two extents, no merge. */
static int split_at(struct tree *t, size_t i, uint32_t at)
{
	struct fx tail = t->x[i];

	if (at <= t->x[i].lblk || at >= xend(&t->x[i]))
		return 0;
	tail.lblk = at;
	tail.pblk += at - t->x[i].lblk;
	tail.len -= at - t->x[i].lblk;
	t->x[i].len = at - t->x[i].lblk;
	return e2map__fc_put_at(t, i + 1, &tail);
}

/* ext4_ext_replay_update_ex: [START, START + LEN) gets PBLK and state. */
int e2map__fc_update_ex(struct tree *t, uint32_t start, uint32_t len,
			bool unwritten, uint64_t pblk)
{
	size_t i = e2map__fc_find(t, start);
	int err;

	if (i == NONE || start >= xend(&t->x[i]))
		return -EUCLEAN;
	if ((err = split_at(t, i, start)) < 0)
		return err;
	i = e2map__fc_find(t, start);
	if ((err = split_at(t, i, start + len)) < 0)
		return err;
	t->x[i].pblk = pblk;
	t->x[i].unwritten = unwritten;
	return 0;
}

/* ext4_ext_remove_space over [START, LAST]: cut, never merged. */
int e2map__fc_remove_space(struct tree *t, uint32_t start, uint32_t last)
{
	size_t i;
	int err;

	for (i = 0; i < t->n; i++) {
		struct fx *e = &t->x[i];

		if (xend(e) <= start || e->lblk > last)
			continue;
		if (e->lblk < start && xend(e) - 1 > last) {
			if ((err = split_at(t, i, last + 1)) < 0)
				return err;
			e = &t->x[i];
		}
		if (e->lblk < start) {
			e->len = start - e->lblk;
		} else if (xend(e) - 1 > last) {
			e->pblk += last + 1 - e->lblk;
			e->len -= last + 1 - e->lblk;
			e->lblk = last + 1;
		} else {
			drop(t, i--);
		}
	}
	return 0;
}

/*
 * ext4_ext_replay_shrink_inode: every extent it meets on its way from
 * block 0 to END is merged with its neighbours.  It steps a block at a
 * time through holes, meeting the same extent again: that changes
 * nothing, so the walk jumps to the next extent instead.
 */
void e2map__fc_shrink(struct tree *t, uint64_t end)
{
	uint64_t cur = 0;
	size_t i;

	while (cur < end && t->n) {
		i = e2map__fc_find(t, (uint32_t)cur);
		if (i == NONE)
			i = 0;
		try_to_merge(t, i);
		i = e2map__fc_find(t, (uint32_t)cur);
		if (i == NONE)
			i = 0;
		if (xend(&t->x[i]) > cur)
			cur = xend(&t->x[i]);
		else if (i + 1 < t->n)
			cur = t->x[i + 1].lblk;
		else
			break;
	}
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The system zone as ext4_setup_system_zone builds it, node for node
 * (fs/ext4/block_validity.c, 6.18): add_system_zone's red-black tree of
 * ranges keyed by their first block.  A new range is refused when its
 * first block lies inside a range met on the way down; otherwise it is
 * linked, and merged with an in-order neighbour it touches that has the
 * same owner.  Ranges that overlap without a refusal stay in the tree, and
 * then whether a later range is refused depends on the tree's shape --
 * so this is only used when the ranges overlap (syszone.c's slow path).
 * The balancing is lib/rbtree.c's, which is the textbook one (insert
 * fixup; erase by the right subtree's leftmost node, then the delete
 * fixup), rewritten here on an array of nodes.
 */
#include "mount.h"

#include <errno.h>
#include <stdlib.h>

#define NIL 0		/* node 0: the absent child, black */

struct znode {
	uint64_t start;
	uint32_t count;		/* unsigned int in the kernel: merges wrap */
	uint32_t ino;
	uint32_t l, r, p;
	bool red;
};

int e2map__zsim_init(struct e2map_zsim *t, size_t adds)
{
	t->root = NIL;
	t->n = 1;
	t->v = calloc(adds + 1, sizeof(*t->v));
	return t->v ? 0 : -ENOMEM;
}

void e2map__zsim_free(struct e2map_zsim *t)
{
	free(t->v);
	t->v = NULL;
}

/* In PARENT (NIL: the root), the link that pointed at OLD now points at NEW. */
static void relink(struct e2map_zsim *t, uint32_t parent, uint32_t old,
		   uint32_t new)
{
	if (parent == NIL)
		t->root = new;
	else if (t->v[parent].l == old)
		t->v[parent].l = new;
	else
		t->v[parent].r = new;
}

static void rotate_left(struct e2map_zsim *t, uint32_t x)
{
	struct znode *v = t->v;
	uint32_t y = v[x].r;

	v[x].r = v[y].l;
	if (v[y].l != NIL)
		v[v[y].l].p = x;
	v[y].p = v[x].p;
	relink(t, v[x].p, x, y);
	v[y].l = x;
	v[x].p = y;
}

static void rotate_right(struct e2map_zsim *t, uint32_t x)
{
	struct znode *v = t->v;
	uint32_t y = v[x].l;

	v[x].l = v[y].r;
	if (v[y].r != NIL)
		v[v[y].r].p = x;
	v[y].p = v[x].p;
	relink(t, v[x].p, x, y);
	v[y].r = x;
	v[x].p = y;
}

/* __rb_insert: Z is red; restore the colours up from it. */
static void insert_fixup(struct e2map_zsim *t, uint32_t z)
{
	struct znode *v = t->v;

	while (v[z].p != NIL && v[v[z].p].red) {
		uint32_t p = v[z].p, g = v[p].p;
		bool left = p == v[g].l;
		uint32_t u = left ? v[g].r : v[g].l;

		if (v[u].red) {		/* uncle red: recolour, go up */
			v[p].red = v[u].red = false;
			v[g].red = true;
			z = g;
			continue;
		}
		if (z == (left ? v[p].r : v[p].l)) {	/* inner child */
			z = p;
			(left ? rotate_left : rotate_right)(t, z);
			p = v[z].p;
		}
		v[p].red = false;
		v[g].red = true;
		(left ? rotate_right : rotate_left)(t, g);
	}
	v[t->root].red = false;
}

/*
 * ____rb_erase_color: PARENT's child on one side (NODE, NIL at first) is
 * a black node short.  Which side: NODE is not PARENT's right child.
 */
static void erase_fixup(struct e2map_zsim *t, uint32_t parent)
{
	struct znode *v = t->v;
	uint32_t node = NIL;

	while (parent != NIL) {
		bool left = node != v[parent].r;
		uint32_t s = left ? v[parent].r : v[parent].l;
		void (*rot)(struct e2map_zsim *, uint32_t) =
			left ? rotate_left : rotate_right;
		void (*back)(struct e2map_zsim *, uint32_t) =
			left ? rotate_right : rotate_left;

		if (v[s].red) {		/* red sibling: rotate it up */
			v[s].red = false;
			v[parent].red = true;
			rot(t, parent);
			s = left ? v[parent].r : v[parent].l;
		}
		if (!v[left ? v[s].r : v[s].l].red) {
			if (!v[left ? v[s].l : v[s].r].red) {
				v[s].red = true;	/* both nephews black */
				if (v[parent].red) {
					v[parent].red = false;
					return;
				}
				node = parent;
				parent = v[node].p;
				continue;
			}
			v[left ? v[s].l : v[s].r].red = false;	/* near red */
			v[s].red = true;
			back(t, s);
			s = left ? v[parent].r : v[parent].l;
		}
		v[s].red = v[parent].red;	/* far nephew red */
		v[parent].red = false;
		v[left ? v[s].r : v[s].l].red = false;
		rot(t, parent);
		return;
	}
}

/* __rb_erase_augmented for a node with two children: its successor moves up. */
static uint32_t erase_inner(struct e2map_zsim *t, uint32_t x)
{
	struct znode *v = t->v;
	uint32_t succ = v[x].r, parent = succ, child2;
	bool was_red;

	while (v[succ].l != NIL) {
		parent = succ;
		succ = v[succ].l;
	}
	child2 = v[succ].r;
	if (succ != v[x].r) {	/* from deeper down: X's right moves under it */
		v[parent].l = child2;
		v[succ].r = v[x].r;
		v[v[x].r].p = succ;
	}
	v[succ].l = v[x].l;
	v[v[x].l].p = succ;
	relink(t, v[x].p, x, succ);
	v[succ].p = v[x].p;
	was_red = v[succ].red;
	v[succ].red = v[x].red;
	if (child2 != NIL) {
		v[child2].p = parent;
		v[child2].red = false;
		return NIL;
	}
	return was_red ? NIL : parent;
}

/* rb_erase: unlink X; the node to rebalance from, if any, is fixed up. */
static void erase(struct e2map_zsim *t, uint32_t x)
{
	struct znode *v = t->v;
	uint32_t child = v[x].l == NIL ? v[x].r : v[x].l, fix = NIL;

	if (v[x].l != NIL && v[x].r != NIL) {
		fix = erase_inner(t, x);
	} else {
		relink(t, v[x].p, x, child);
		if (child != NIL) {	/* a lone child is red */
			v[child].p = v[x].p;
			v[child].red = v[x].red;
		} else if (!v[x].red) {
			fix = v[x].p;
		}
	}
	if (fix != NIL)
		erase_fixup(t, fix);
}

/* rb_prev / rb_next */
static uint32_t step(const struct e2map_zsim *t, uint32_t x, bool next)
{
	const struct znode *v = t->v;
	uint32_t c = next ? v[x].r : v[x].l, p;

	if (c != NIL) {
		while ((next ? v[c].l : v[c].r) != NIL)
			c = next ? v[c].l : v[c].r;
		return c;
	}
	while ((p = v[x].p) != NIL && x == (next ? v[p].r : v[p].l))
		x = p;
	return p;
}

static bool touches(const struct znode *a, const struct znode *b)
{
	return a->start + a->count == b->start && a->ino == b->ino;
}

/* add_system_zone's merges: with the range before, then the one after. */
static void merge(struct e2map_zsim *t, uint32_t x)
{
	struct znode *v = t->v;
	uint32_t o = step(t, x, false);

	if (o != NIL && touches(&v[o], &v[x])) {
		v[x].start = v[o].start;
		v[x].count += v[o].count;
		erase(t, o);
	}
	o = step(t, x, true);
	if (o != NIL && touches(&v[x], &v[o])) {
		v[x].count += v[o].count;
		erase(t, o);
	}
}

int e2map__zsim_add(struct e2map_zsim *t, uint64_t start, uint32_t count,
		    uint32_t ino)
{
	struct znode *v = t->v;
	uint32_t *link = &t->root, parent = NIL, x;

	while (*link != NIL) {
		parent = *link;
		if (start < v[parent].start)
			link = &v[parent].l;
		else if (start >= v[parent].start + v[parent].count)
			link = &v[parent].r;
		else
			return -EUCLEAN;	/* "Unexpected overlap" */
	}
	x = t->n++;
	v[x] = (struct znode){ start, count, ino, NIL, NIL, parent, true };
	*link = x;
	insert_fixup(t, x);
	merge(t, x);
	return 0;
}

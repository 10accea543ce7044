/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The image's dentry index: a directory that only the linear scan
 * searches (no htree) is read once, on its second lookup, and its names
 * kept in a hash table, so that a walk over many paths does not rescan
 * it per name (a block of 4 KiB holds up to 340 names) (the kernel's
 * dcache plays this part on a mount).  The first lookup is the scan's,
 * which stops at the name: one path looked up (a cat, a stat) does not
 * pay for hashing a directory of 100,000 names.  Only a
 * clean directory is indexed (e2map__dir_list_linear): there the first
 * entry of a name is what every scan answers.  Any other is marked, and
 * searched by the scan each time, failing where the kernel fails.
 */
#include "dir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (64U << 20)	/* past this, every index is dropped */

struct dent {
	uint32_t hash, ino, name;	/* name: offset in the names arena */
	uint8_t len;
};

/* One directory's names; UNUSABLE when the scan must answer instead,
 * PENDING until its second lookup. */
struct dindex {
	uint32_t dir;
	bool unusable, pending;
	struct dent *tab;		/* open addressing, CAP a power of 2 */
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

struct e2map_dcache {
	struct dindex **v;		/* open addressing by directory inode */
	size_t n, cap;
	size_t bytes;
};

/* FNV-1a: names are short; any spread will do. */
static uint32_t name_hash(const char *s, unsigned len)
{
	uint32_t h = 2166136261U;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619U;
	return h;
}

/* Where NAME sits, or the free slot it would take. */
static struct dent *slot_for(const struct dindex *x, uint32_t hash,
			     const char *s, unsigned len)
{
	size_t i = hash & (x->cap - 1);

	for (;; i = (i + 1) & (x->cap - 1)) {
		struct dent *e = &x->tab[i];

		if (!e->ino || (e->hash == hash && e->len == len &&
				!memcmp(x->names + e->name, s, len)))
			return e;
	}
}

static struct dent *free_slot(const struct dindex *x, uint32_t hash)
{
	size_t i = hash & (x->cap - 1);

	while (x->tab[i].ino)
		i = (i + 1) & (x->cap - 1);
	return &x->tab[i];
}

static int grow_tab(struct dindex *x)
{
	struct dindex old = *x;
	size_t i;

	x->cap = old.cap ? old.cap * 2 : 64;
	if (!(x->tab = calloc(x->cap, sizeof(*x->tab)))) {
		x->tab = old.tab;
		x->cap = old.cap;
		return -ENOMEM;
	}
	for (i = 0; i < old.cap; i++)
		if (old.tab[i].ino)
			*free_slot(x, old.tab[i].hash) = old.tab[i];
	free(old.tab);
	return 0;
}

static int keep_name(struct dindex *x, const struct e2map_name *n)
{
	if (e2map__grow((void **)&x->names, &x->names_cap,
			x->names_len + n->len + 1, 1) < 0)
		return -ENOMEM;
	memcpy(x->names + x->names_len, n->s, n->len);
	x->names_len += n->len;
	return 0;
}

/* The first entry of a name wins, as the scan finds it first. */
static int add_name(uint32_t ino, const struct e2map_name *n, void *payload)
{
	struct dindex *x = payload;
	uint32_t hash = name_hash(n->s, n->len);
	struct dent *e;
	int err;

	if ((x->n + 1) * 4 > x->cap * 3 && (err = grow_tab(x)) < 0)
		return err;
	if (x->names_len + n->len > MAX_BYTES)
		return -EFBIG;
	e = slot_for(x, hash, n->s, n->len);
	if (e->ino)
		return 0;
	if ((err = keep_name(x, n)) < 0)
		return err;
	*e = (struct dent){ hash, ino, (uint32_t)(x->names_len - n->len),
			    (uint8_t)n->len };
	x->n++;
	return 0;
}

static size_t index_bytes(const struct dindex *x)
{
	return sizeof(*x) + x->cap * sizeof(*x->tab) + x->names_cap;
}

static void index_free(struct dindex *x)
{
	if (!x)
		return;
	free(x->tab);
	free(x->names);
	free(x);
}

void e2map__dcache_free(e2map_t *m)
{
	struct e2map_dcache *c = m->dcache;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->cap; i++)
		index_free(c->v[i]);
	free(c->v);
	free(c);
	m->dcache = NULL;
}

/* The index of directory DIR, or the free slot it would take. */
static struct dindex **dir_slot(const struct e2map_dcache *c, uint32_t dir)
{
	size_t i = (dir * 2654435761U) & (c->cap - 1);

	while (c->v[i] && c->v[i]->dir != dir)
		i = (i + 1) & (c->cap - 1);
	return &c->v[i];
}

static int grow_dirs(struct e2map_dcache *c)
{
	struct e2map_dcache old = *c;
	size_t i;

	c->cap = old.cap ? old.cap * 2 : 64;
	if (!(c->v = calloc(c->cap, sizeof(*c->v)))) {
		*c = old;
		return -ENOMEM;
	}
	for (i = 0; i < old.cap; i++)
		if (old.v[i])
			*dir_slot(c, old.v[i]->dir) = old.v[i];
	free(old.v);
	return 0;
}

/* Read DIR once into X (marked unusable when not clean). */
static void index_build(struct dindex *x, e2map_file_t *dir)
{
	*x = (struct dindex){ .dir = dir->ino };
	if (e2map__dir_list_linear(dir, add_name, x)) {
		free(x->tab);
		free(x->names);
		*x = (struct dindex){ .dir = dir->ino, .unusable = true };
	}
}

static struct dindex *index_of(e2map_file_t *dir)
{
	e2map_t *m = dir->m;
	struct e2map_dcache *c = m->dcache;
	struct dindex **slot, *x;

	if (!c && !(c = m->dcache = calloc(1, sizeof(*c))))
		return NULL;
	if (c->cap && (x = *(slot = dir_slot(c, dir->ino)))) {
		if (x->pending) {
			index_build(x, dir);
			c->bytes += index_bytes(x) - sizeof(*x);
		}
		return x;
	}
	if (c->bytes > MAX_BYTES) {
		e2map__dcache_free(m);
		return index_of(dir);
	}
	if ((c->n + 1) * 2 > c->cap && grow_dirs(c) < 0)
		return NULL;
	if (!(x = calloc(1, sizeof(*x))))
		return NULL;
	*x = (struct dindex){ .dir = dir->ino, .pending = true };
	*dir_slot(c, dir->ino) = x;
	c->n++;
	c->bytes += sizeof(*x);
	return x;
}

int e2map__dcache_find(e2map_file_t *dir, const struct e2map_name *n,
		       uint32_t *ino)
{
	struct dindex *x;
	struct dent *e;

	if (!(x = index_of(dir)) || x->unusable || x->pending)
		return -EAGAIN;
	if (!x->n)
		return 0;
	e = slot_for(x, name_hash(n->s, n->len), n->s, n->len);
	if (!e->ino)
		return 0;
	*ino = e->ino;
	return 1;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one growable-array step: capacities double, so a table of N
 * entries costs O(N) copies in all, and a size that would overflow fails
 * as -ENOMEM instead of wrapping into a short buffer.
 */
#include "base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int e2map__grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *nv;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n > SIZE_MAX / elem || !(nv = realloc(*v, n * elem)))
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

int e2map__path_push(struct e2map_pathbuf *p, const char *name, size_t n)
{
	bool slash = p->len && p->s[p->len - 1] != '/';

	if (e2map__grow((void **)&p->s, &p->cap, p->len + slash + n + 1, 1) < 0)
		return -ENOMEM;
	if (slash)
		p->s[p->len++] = '/';
	memcpy(p->s + p->len, name, n);
	p->len += n;
	p->s[p->len] = '\0';
	return 0;
}

/* Index of the first member not below PBLK. */
static size_t blkset_find(const struct blkset *s, uint64_t pblk)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid] < pblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool e2map__blkset_has(const struct blkset *s, uint64_t pblk)
{
	size_t i = blkset_find(s, pblk);

	return i < s->n && s->v[i] == pblk;
}

bool e2map__blkset_add(struct blkset *s, uint64_t pblk, int *err)
{
	size_t lo = blkset_find(s, pblk);

	if (lo < s->n && s->v[lo] == pblk)
		return false;
	if (e2map__grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0) {
		*err = -ENOMEM;
		return false;
	}
	memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof(*s->v));
	s->v[lo] = pblk;
	s->n++;
	return true;
}

void e2map__blkset_free(struct blkset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one growable-array step: capacities double, so a table of N
 * entries costs O(N) copies in all, and a size that would overflow fails
 * as -ENOMEM instead of wrapping into a short buffer.
 */
#include "internal.h"

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

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A directory's whole listing in one piece of memory: what a caller needs
 * that answers later from it (the FUSE mount's opendir, whose readdir
 * calls come back at offsets) or walks under it while it lasts (the tree
 * walk).  Read through e2map_file_readdir, so in getdents' order with its
 * skips and errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"

/* Listing is the directory layer's; a handle is how callers reach it. */
int e2map_file_readdir(e2map_file_t *f, e2map_dirent_cb cb, void *payload)
{
	return e2map__readdir(f, cb, payload);
}

struct building {
	struct e2map_dirent *v;
	char *names;		/* each NUL-terminated */
	size_t n, cap, nlen, ncap;
};

static int add(const struct e2map_dirent *de, void *payload)
{
	struct building *b = payload;

	if (e2map__grow((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v)) < 0 ||
	    e2map__grow((void **)&b->names, &b->ncap, b->nlen + de->len + 1,
			1) < 0)
		return -ENOMEM;
	b->v[b->n] = *de;
	b->v[b->n++].name = (const char *)(uintptr_t)b->nlen;	/* for now */
	memcpy(b->names + b->nlen, de->name, de->len);
	b->names[b->nlen + de->len] = '\0';
	b->nlen += de->len + 1;
	return 0;
}

/* The list, its entries and its names as one allocation, so that the
 * caller frees it in one call and the names never move. */
static struct e2map_dirlist *pack(const struct building *b, int err)
{
	size_t head = sizeof(struct e2map_dirlist);
	size_t ents = b->n * sizeof(struct e2map_dirent);
	struct e2map_dirlist *l = malloc(head + ents + b->nlen);
	struct e2map_dirent *v;
	char *names;

	if (!l)
		return NULL;
	v = (struct e2map_dirent *)(l + 1);
	names = (char *)v + ents;
	if (b->nlen)
		memcpy(names, b->names, b->nlen);
	for (size_t i = 0; i < b->n; i++) {
		v[i] = b->v[i];
		v[i].name = names + (uintptr_t)b->v[i].name;
	}
	l->count = b->n;
	l->entries = v;
	l->err = err;
	return l;
}

int e2map_dirlist_read(e2map_file_t *f, struct e2map_dirlist **out)
{
	struct building b = { 0 };
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!f)
		return -EINVAL;
	err = e2map_file_readdir(f, add, &b);
	if (err != -ENOMEM && !(*out = pack(&b, err)))
		err = -ENOMEM;
	free(b.v);
	free(b.names);
	return err == -ENOMEM ? err : 0;
}

void e2map_dirlist_free(struct e2map_dirlist *l)
{
	free(l);
}

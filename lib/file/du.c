/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * du's walk, as GNU du walks the mount (gnulib fts, FTS_PHYSICAL): every
 * directory read whole in getdents order (e2map_file_readdir), a batch of more
 * than 10,000 names sorted by inode number first as fts does on ext4,
 * each name lstat'ed through ext4_lookup, a file of several links counted
 * at its first name only, and a directory reported after everything
 * under it with the sum.  du's own arithmetic and wording stay with the
 * caller; this reports sizes in bytes and what went wrong where.
 */
#include "file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SORT_PAST 10000		/* FTS_INODE_SORT_DIR_ENTRIES_THRESHOLD */
#define BATCH 100000		/* FTS_MAX_READDIR_ENTRIES */

struct du_name {
	uint32_t ino, off;
	uint8_t len;
};

/* A directory being walked: fts's level. */
struct du_dir {
	e2map_file_t *f;
	struct du_name *v;
	size_t n, at, cap;
	char *names;
	size_t used, room;
	size_t pathlen;
	uint64_t total;		/* its own size and all counted below it */
	int err;		/* readdir's error, reported after its names */
};

struct du {
	e2map_t *m;
	enum e2map_du_size size;
	e2map_du_cb cb;
	void *payload;
	char *path;
	size_t pathcap;
	struct du_dir *dirs;
	ext2_ino_t *chain;	/* the directories' inodes, root first */
	size_t depth, cap;
	uint32_t *seen;		/* files of several links met so far */
	size_t nseen, seencap;
};

/* 1 when INO is new to the set, 0 when met before, or -ENOMEM. */
static int seen_add(struct du *d, uint32_t ino)
{
	size_t i, mask;

	if (2 * (d->nseen + 1) > d->seencap) {
		size_t cap = d->seencap ? 2 * d->seencap : 1024;
		uint32_t *v = calloc(cap, sizeof(*v)), *old = d->seen;

		if (!v)
			return -ENOMEM;
		for (i = 0; i < d->seencap; i++)
			if (old[i]) {
				size_t j = old[i] * 2654435761u & (cap - 1);

				while (v[j])
					j = (j + 1) & (cap - 1);
				v[j] = old[i];
			}
		free(old);
		d->seen = v;
		d->seencap = cap;
	}
	mask = d->seencap - 1;
	for (i = ino * 2654435761u & mask; d->seen[i]; i = (i + 1) & mask)
		if (d->seen[i] == ino)
			return 0;
	d->seen[i] = ino;
	d->nseen++;
	return 1;
}

struct written {
	uint64_t size, bs, bytes;
};

static int add_written(const struct e2map_run *r, void *payload)
{
	struct written *w = payload;
	uint64_t from = r->lblk * w->bs, to = (r->lblk + r->nblk) * w->bs;

	if (r->kind == E2MAP_RUN_INLINE)
		w->bytes += w->size;
	else if (r->kind == E2MAP_RUN_DATA && from < w->size)
		w->bytes += (to < w->size ? to : w->size) - from;
	return 0;
}

/* What du adds for F: st_blocks * 512, st_size, or the bytes written. */
static int entry_size(struct du *d, e2map_file_t *f,
		      const struct e2map_stat *st, uint64_t *bytes)
{
	uint16_t mode = f->inode->i_mode;
	struct written w = { f->size, d->m->bs, 0 };
	int err;

	if (d->size == E2MAP_DU_ALLOCATED)
		*bytes = st->blocks * 512;
	else if (d->size == E2MAP_DU_APPARENT)
		*bytes = st->size;
	else if (!LINUX_S_ISREG(mode) && !LINUX_S_ISDIR(mode))
		*bytes = 0;
	else if ((err = e2map_file_walk(f, 0, (f->size + w.bs - 1) / w.bs,
					add_written, &w)) < 0)
		return err;
	else
		*bytes = w.bytes;
	return 0;
}

static int report(struct du *d, size_t len, int depth, bool dir,
		  uint64_t bytes, int err, enum e2map_du_what what)
{
	struct e2map_du_entry e = { d->path, len, depth, dir, bytes, err,
				    what };

	return d->cb(&e, d->payload);
}

/* The path buffer holds S at AT on: *LEN is the new path's length. */
static int path_put(struct du *d, size_t at, const char *s, size_t n)
{
	if (e2map__grow((void **)&d->path, &d->pathcap, at + n + 2, 1) < 0)
		return -ENOMEM;
	memcpy(d->path + at, s, n);
	d->path[at + n] = '\0';
	return 0;
}

/* fts_build's list: every name but "." and "..", in getdents order. */
static int dir_add(const struct e2map_dirent *de, void *payload)
{
	struct du_dir *dd = payload;

	if (e2map__is_dot(de->name, de->len))
		return 0;
	if (e2map__grow((void **)&dd->v, &dd->cap, dd->n + 1,
			sizeof(*dd->v)) < 0 ||
	    e2map__grow((void **)&dd->names, &dd->room, dd->used + de->len + 1,
			1) < 0)
		return -ENOMEM;
	memcpy(dd->names + dd->used, de->name, de->len);
	dd->v[dd->n++] = (struct du_name){ (uint32_t)de->ino,
					   (uint32_t)dd->used,
					   (uint8_t)de->len };
	dd->used += de->len;
	return 0;
}

/* fts_compare_ino, made stable: names of one inode keep their order. */
static int by_ino(const void *a, const void *b)
{
	const struct du_name *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void sort_batches(struct du_dir *dd)
{
	for (size_t at = 0; at < dd->n; at += BATCH) {
		size_t n = dd->n - at < BATCH ? dd->n - at : BATCH;

		if (n > SORT_PAST)
			qsort(dd->v + at, n, sizeof(*dd->v), by_ino);
	}
}

/* Directory F becomes the walk's current level, its names read. */
static int push_dir(struct du *d, e2map_file_t *f, size_t pathlen,
		    uint64_t size)
{
	struct du_dir *dd;
	int err;

	if (d->depth == d->cap) {
		/* Two arrays of one capacity: each grows from the same size. */
		size_t dcap = d->cap, ccap = d->cap;

		if (e2map__grow((void **)&d->dirs, &dcap, d->depth + 1,
				sizeof(*d->dirs)) < 0 ||
		    e2map__grow((void **)&d->chain, &ccap, d->depth + 1,
				sizeof(*d->chain)) < 0)
			return e2map_file_close(f), -ENOMEM;
		d->cap = ccap;
	}
	dd = &d->dirs[d->depth];
	memset(dd, 0, sizeof(*dd));
	dd->f = f;
	dd->pathlen = pathlen;
	dd->total = size;
	d->chain[d->depth++] = f->ino;
	err = e2map_file_readdir(f, dir_add, dd);
	if (err == -ENOMEM)
		return err;
	dd->err = err < 0 ? err : 0;
	sort_batches(dd);
	return 0;
}

/* The entry at d->path[0..LEN), F open on it, at DEPTH below the start. */
static int visit(struct du *d, e2map_file_t *f, size_t len, int depth)
{
	bool dir = LINUX_S_ISDIR(f->inode->i_mode);
	struct e2map_stat st = E2MAP_STAT_INIT;
	uint64_t bytes = 0;
	int err;

	/* fts's lstat is the lookup and the getattr, which an encrypted
	 * symlink's target can fail (corpus f_badsymlinks2). */
	if ((err = e2map_file_stat(f, &st)) < 0) {
		e2map_file_close(f);
		return err == -ENOMEM ? err : report(d, len, depth, false, 0,
						     err, E2MAP_DU_CANNOT_ACCESS);
	}
	/* A file met again through another link adds nothing, shows not. */
	if (!dir && f->inode->i_links_count > 1 &&
	    (err = seen_add(d, f->ino)) <= 0)
		return e2map_file_close(f), err;
	if ((err = entry_size(d, f, &st, &bytes)) < 0 &&
	    (err = report(d, len, depth, dir, 0, err, E2MAP_DU_READ_ERROR)))
		return e2map_file_close(f), err;
	if (dir)
		return push_dir(d, f, len, bytes);
	e2map_file_close(f);
	if (d->depth)
		d->dirs[d->depth - 1].total += bytes;
	return report(d, len, depth, false, bytes, 0, E2MAP_DU_SIZE);
}

/* The current directory is done: what went wrong, then its total. */
static int pop_dir(struct du *d)
{
	struct du_dir *dd = &d->dirs[--d->depth];
	int depth = (int)d->depth, err = 0;

	d->path[dd->pathlen] = '\0';
	if (dd->err)
		err = report(d, dd->pathlen, depth, true, 0, dd->err,
			     dd->n ? E2MAP_DU_READ_ERROR :
				     E2MAP_DU_CANNOT_READ_DIR);
	if (!err)
		err = report(d, dd->pathlen, depth, true, dd->total, 0,
			     E2MAP_DU_SIZE);
	if (d->depth)
		d->dirs[d->depth - 1].total += dd->total;
	e2map_file_close(dd->f);
	free(dd->v);
	free(dd->names);
	return err;
}

/* One fts_read: the next name of the current directory, or its end. */
static int step(struct du *d)
{
	struct du_dir *dd = &d->dirs[d->depth - 1];
	const struct du_name *nm;
	struct e2map_name name;
	e2map_file_t *f;
	size_t at = dd->pathlen;
	int err;

	if (dd->at == dd->n)
		return pop_dir(d);
	nm = &dd->v[dd->at++];
	name = (struct e2map_name){ .s = dd->names + nm->off, .len = nm->len };
	/* fts joins with one "/", none added after a trailing one. */
	if (!at || d->path[at - 1] != '/')
		d->path[at++] = '/';
	if ((err = path_put(d, at, name.s, name.len)) < 0)
		return err;
	err = e2map__lookup_child(dd->f, d->chain, d->depth, &name, &f);
	if (err == -ENOMEM)
		return err;
	if (err < 0)
		return report(d, at + name.len, (int)d->depth, false, 0, err,
			      E2MAP_DU_CANNOT_ACCESS);
	return visit(d, f, at + name.len, (int)d->depth);
}

static void du_free(struct du *d)
{
	while (d->depth) {
		struct du_dir *dd = &d->dirs[--d->depth];

		e2map_file_close(dd->f);
		free(dd->v);
		free(dd->names);
	}
	free(d->dirs);
	free(d->chain);
	free(d->seen);
	free(d->path);
}

/* PATH itself, lstat'ed: a final symlink is not followed (du -P). */
static int du_start(struct du *d, const char *path)
{
	size_t len = strlen(path);
	ext2_ino_t ino, parent;
	e2map_file_t *f;
	int err;

	if ((err = path_put(d, 0, path, len)) < 0)
		return err;
	d->m->err.msg[0] = '\0';
	err = *path ? e2map__lookup(d->m, path, false, &ino, &parent)
		    : e2map__fail(d->m, -ENOENT, "empty path");
	if (!err)
		err = e2map__iget(d->m, ino, false, &f);
	if (err == -ENOMEM)
		return err;
	if (err < 0)
		return report(d, len, 0, false, 0, err, E2MAP_DU_CANNOT_ACCESS);
	return visit(d, f, len, 0);
}

int e2map_du(e2map_t *m, const char *path, enum e2map_du_size size,
	     e2map_du_cb cb, void *payload)
{
	struct du d = { m, size, cb, payload, NULL, 0, NULL, NULL, 0, 0,
			NULL, 0, 0 };
	int err;

	if (!m || !path || !cb || (unsigned)size > E2MAP_DU_WRITTEN)
		return -EINVAL;
	if ((err = du_start(&d, path)) < 0) {
		du_free(&d);
		return err;
	}
	while (!err && d.depth)
		err = step(&d);
	du_free(&d);
	return err;
}

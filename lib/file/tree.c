/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * e2map_tree_walk: the walk cp -a and tar make over the mount, from a path
 * down: lstat of each name (ext4_lookup in its directory, its ancestors
 * known, as du's walk), a directory's entries in getdents order (read
 * whole before any is visited, as the copy may take its time), a file of
 * several links reported with the name it was first met under.  One walk
 * for every command that copies a tree out (extract, tar); du keeps its
 * own, which follows fts's sorting rules.
 */
#include "file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Inodes met before, by number: open addressing, a power-of-two table.
 * For files of several links the value is the first name; directories
 * are kept with an empty one, to count the walks a damaged tree's
 * hard-linked directories take again.
 */
struct seen {
	uint64_t *ino;
	char **name;
	size_t n, cap;
};

static size_t seen_slot(const struct seen *s, uint64_t ino)
{
	size_t i = (size_t)(ino * 0x9e3779b97f4a7c15ULL) & (s->cap - 1);

	while (s->ino[i] && s->ino[i] != ino)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static const char *seen_find(const struct seen *s, uint64_t ino)
{
	return s->cap ? s->name[seen_slot(s, ino)] : NULL;
}

static int seen_grow(struct seen *s)
{
	struct seen t = { .n = s->n, .cap = s->cap ? 2 * s->cap : 64 };
	size_t i, j;

	t.ino = calloc(t.cap, sizeof(*t.ino));
	t.name = calloc(t.cap, sizeof(*t.name));
	if (!t.ino || !t.name) {
		free(t.ino);
		free(t.name);
		return -ENOMEM;
	}
	for (i = 0; i < s->cap; i++) {
		if (!s->ino[i])
			continue;
		j = seen_slot(&t, s->ino[i]);
		t.ino[j] = s->ino[i];
		t.name[j] = s->name[i];
	}
	free(s->ino);
	free(s->name);
	*s = t;
	return 0;
}

static int seen_add(struct seen *s, uint64_t ino, const char *name)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap && seen_grow(s) < 0)
		return -ENOMEM;
	i = seen_slot(s, ino);
	if (s->ino[i])
		return 0;
	if (!(s->name[i] = strdup(name)))
		return -ENOMEM;
	s->ino[i] = ino;
	s->n++;
	return 0;
}

static void seen_free(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		free(s->name[i]);
	free(s->ino);
	free(s->name);
}

/*
 * A directory met again under another name is walked again, as cp and
 * tar walk it (the kernel's lookup refuses only an ancestor: ELOOP); past
 * this many such walks in all, a damaged tree is taken to be built to
 * blow the walk up, and a directory met again is not entered.
 */
#define REWALKS_MAX 4096

struct walk {
	e2map_t *m;
	e2map_tree_cb cb;
	void *payload;
	struct e2map_pathbuf path;
	struct seen links, dirs;
	ext2_ino_t *chain;		/* the directories down to here */
	size_t n, cap;
	unsigned rewalks;
};

static int visit(struct walk *w, enum e2map_tree_visit v, uint64_t ino,
		 unsigned depth, const struct e2map_stat *st,
		 const char *first, int err)
{
	struct e2map_tree_entry e = {
		.path = w->path.s, .len = w->path.len, .depth = depth,
		.ino = ino, .st = st, .first = first, .visit = v, .err = err,
		.parent = w->n && depth ? w->chain[w->n - 1] : 0,
	};

	return w->cb(&e, w->payload);
}

/* The callback's answer as the walk takes it: E2MAP_SKIP has passed over
 * what the entry leads to (a directory's contents, a later name's link)
 * and the walk goes on; any other non-zero stops it. */
static int go_on(int r)
{
	return r == E2MAP_SKIP ? 0 : r;
}

static int walk_node(struct walk *w, const struct e2map_stat *st,
		     unsigned depth);

/* lstat of DE in directory D: ext4_lookup with D's ancestors (ELOOP for
 * one of them, EPERM across encryption policies, the entry a twin name's
 * search finds), then the child's stat; the entry's node. */
static int walk_entry(struct walk *w, e2map_file_t *d,
		      const struct e2map_dirent *de, unsigned depth)
{
	struct e2map_name name = { .s = de->name, .len = (unsigned)de->len };
	struct e2map_stat st = E2MAP_STAT_INIT;
	e2map_file_t *child;
	int r;

	if ((r = e2map__lookup_child(d, w->chain, w->n, &name, &child)) == 0) {
		r = e2map_file_stat(child, &st);
		e2map_file_close(child);
	}
	if (r < 0)
		return r == -ENOMEM ? r : go_on(visit(w, E2MAP_TREE_NODE, de->ino,
						      depth, NULL, NULL, r));
	return walk_node(w, &st, depth);
}

/* Directory INO's entries, read whole before any is visited; where its
 * listing failed, that alone. */
static int walk_children(struct walk *w, uint64_t ino, unsigned depth)
{
	struct e2map_dirlist *l = NULL;
	size_t i, len = w->path.len;
	e2map_file_t *d;
	int err;

	if ((err = e2map_file_open_ino(w->m, ino, &d)) < 0) {
		return err == -ENOMEM ? err : go_on(visit(w,
			E2MAP_TREE_LIST_FAILED, ino, depth, NULL, NULL, err));
	}
	/* cp -a and tar read a directory whole (savedir) and copy nothing
	 * of one whose listing fails, not even the names before the error. */
	if ((err = e2map_dirlist_read(d, &l)) == 0 && l->err) {
		err = l->err == -ENOMEM ? l->err : go_on(visit(w,
			E2MAP_TREE_LIST_FAILED, ino, depth, NULL, NULL, l->err));
		l->count = 0;
	}
	for (i = 0; l && i < l->count && !err; i++) {
		const struct e2map_dirent *de = &l->entries[i];

		if (e2map__is_dot(de->name, de->len))
			continue;
		if ((err = e2map__path_push(&w->path, de->name, de->len)) < 0)
			break;
		err = walk_entry(w, d, de, depth + 1);
		w->path.s[w->path.len = len] = '\0';
	}
	e2map_dirlist_free(l);
	e2map_file_close(d);
	return err;
}

/* Whether directory INO may be walked (again): depth, and the re-walks. */
static int may_walk(struct walk *w, uint64_t ino, unsigned depth)
{
	if (depth > E2MAP_PATHS_MAX_DEPTH)
		return -ELOOP;
	if (seen_find(&w->dirs, ino))
		return ++w->rewalks > REWALKS_MAX ? -ELOOP : 0;
	return seen_add(&w->dirs, ino, "");
}

static int walk_dir(struct walk *w, const struct e2map_stat *st,
		    unsigned depth)
{
	int r;

	if ((r = may_walk(w, st->ino, depth)) < 0)
		return r == -ENOMEM ? r : go_on(visit(w, E2MAP_TREE_NODE,
						      st->ino, depth, st, NULL,
						      r));
	if ((r = visit(w, E2MAP_TREE_NODE, st->ino, depth, st, NULL, 0)))
		return go_on(r);
	if ((r = e2map__grow((void **)&w->chain, &w->cap, w->n + 1,
			     sizeof(*w->chain))) < 0)
		return r;
	w->chain[w->n++] = (ext2_ino_t)st->ino;
	r = walk_children(w, st->ino, depth);
	w->n--;
	if (r)
		return r;
	return go_on(visit(w, E2MAP_TREE_DIR_DONE, st->ino, depth, st, NULL,
			   0));
}

static int walk_node(struct walk *w, const struct e2map_stat *st,
		     unsigned depth)
{
	const char *first = NULL;
	int r;

	if (S_ISDIR(st->mode))
		return walk_dir(w, st, depth);
	if (st->nlink > 1)
		first = seen_find(&w->links, st->ino);
	if ((r = visit(w, E2MAP_TREE_NODE, st->ino, depth, st, first, 0)))
		return go_on(r);
	if (!first && st->nlink > 1)
		r = seen_add(&w->links, st->ino, w->path.s);
	return r;
}

int e2map_tree_walk(e2map_t *m, const char *path, e2map_tree_cb cb,
		    void *payload)
{
	struct walk w = { .m = m, .cb = cb, .payload = payload };
	struct e2map_stat st = E2MAP_STAT_INIT;
	int r;

	if (!m || !path || !cb)
		return -EINVAL;
	if ((r = e2map__path_push(&w.path, path, strlen(path))) < 0)
		return r;
	/* The chain starts at PATH: a name leading back above it is not
	 * seen as a loop, but the re-walks still end the walk. */
	if ((r = e2map_path_lstat(m, path, &st)) == 0)
		r = walk_node(&w, &st, 0);
	else if (r != -ENOMEM)
		r = go_on(visit(&w, E2MAP_TREE_NODE, 0, 0, NULL, NULL, r));
	free(w.path.s);
	seen_free(&w.links);
	seen_free(&w.dirs);
	free(w.chain);
	return r;
}

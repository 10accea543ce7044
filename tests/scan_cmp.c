/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kernel recording (NAME.scan) against e2map's records of the same
 * image, for the Criterion tests and for probe --scan (make
 * check-kernel): every difference is a line on the sink.
 */
#include "scan_cmp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void diff(struct scan_diffs *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void diff(struct scan_diffs *d, const char *fmt, ...)
{
	va_list ap;

	if (d->n++ >= d->max)
		return;
	fprintf(d->out, "%s: ", d->name);
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
	fputc('\n', d->out);
}

static bool same_time(const struct e2map_timespec *t, const char *want)
{
	char got[48];

	snprintf(got, sizeof(got), "%" PRId64 ".%09u", t->sec, t->nsec);
	return !strcmp(got, want);
}

static void check_times(struct scan_diffs *d, const struct e2map_record *r,
			const struct scan_kstat *k)
{
	const struct e2map_stat *st = &r->st;

	if (!same_time(&st->atime, k->atime) ||
	    !same_time(&st->mtime, k->mtime) ||
	    !same_time(&st->ctime, k->ctime))
		diff(d, "<%" PRIu64 ">: times %" PRId64 ".%09u %" PRId64 ".%09u %"
		     PRId64 ".%09u, not %s %s %s", r->ino, st->atime.sec,
		     st->atime.nsec, st->mtime.sec, st->mtime.nsec,
		     st->ctime.sec, st->ctime.nsec, k->atime, k->mtime,
		     k->ctime);
	if (!strcmp(k->btime, "-") ? (st->mask & E2MAP_STAT_CRTIME) != 0 :
	    !(st->mask & E2MAP_STAT_CRTIME) || !same_time(&st->crtime, k->btime))
		diff(d, "<%" PRIu64 ">: crtime %s%" PRId64 ".%09u, not %s",
		     r->ino, st->mask & E2MAP_STAT_CRTIME ? "" : "(none) ",
		     st->crtime.sec, st->crtime.nsec, k->btime);
}

static void check_stat(struct scan_diffs *d, const struct e2map_record *r,
		       const struct scan_kstat *k)
{
	const struct e2map_stat *st = &r->st;

	if (!(r->flags & E2MAP_REC_STAT)) {
		diff(d, "<%" PRIu64 ">: no stat: %s", r->ino,
		     e2map_strerror(r->err));
		return;
	}
	if (st->mode != k->mode || st->nlink != k->nlink ||
	    st->uid != k->uid || st->gid != k->gid || st->size != k->size ||
	    st->blocks != k->blocks || st->rdev != k->rdev)
		diff(d, "<%" PRIu64 ">: mode %o nlink %u uid %u gid %u size %"
		     PRIu64 " blocks %" PRIu64 " rdev %" PRIu64 ", not %o %u %u "
		     "%u %" PRIu64 " %" PRIu64 " %" PRIu64, r->ino, st->mode,
		     st->nlink, st->uid, st->gid, st->size, st->blocks,
		     st->rdev, k->mode, k->nlink, k->uid, k->gid, k->size,
		     k->blocks, k->rdev);
	check_times(d, r, k);
}

/*
 * The bytes and the warm count from the kernel's FIEMAP; the tree blocks
 * from st_blocks less what FIEMAP maps (st_blocks also holds clusters'
 * slack and the values of EA inodes: META says whether it holds only
 * the data, the tree and the xattr block); the extents on disk from
 * debugfs.  A walk that met damage still counts what lies before it.
 */
static void check_map(struct scan_diffs *d, const struct e2map_record *r,
		      const struct scan_kinode *k, uint32_t bs, bool meta)
{
	const struct scan_kmap *m = &k->map;
	uint64_t tree;

	/* An indirect block failing its first read is EIO (README). */
	if (r->err && r->err != -EUCLEAN && r->err != -EBADMSG &&
	    r->err != -EIO)
		diff(d, "<%" PRIu64 ">: %s, the kernel mapped it", r->ino,
		     e2map_strerror(r->err));
	if (r->written != m->written || r->unwritten != m->unwritten ||
	    r->holes != m->holes || r->past_eof != m->past_eof)
		diff(d, "<%" PRIu64 ">: bytes %" PRIu64 "/%" PRIu64 "/%" PRIu64
		     "/%" PRIu64 ", not %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%"
		     PRIu64, r->ino, r->written, r->unwritten, r->holes,
		     r->past_eof, m->written, m->unwritten, m->holes,
		     m->past_eof);
	if (r->fiemap_extents != m->warm)
		diff(d, "<%" PRIu64 ">: warm FIEMAP %" PRIu64 " extents, not %"
		     PRIu64, r->ino, r->fiemap_extents, m->warm);
	tree = r->st.blocks * 512 / bs - m->mapped / bs;
	if (meta && !r->err && !(r->flags & E2MAP_REC_INLINE) &&
	    r->st.blocks * 512 >= m->mapped && r->meta_blocks != tree)
		diff(d, "<%" PRIu64 ">: %" PRIu64 " metadata blocks, st_blocks "
		     "says %" PRIu64, r->ino, r->meta_blocks, tree);
	if (k->has_disk && !r->err && r->extents != k->disk_extents)
		diff(d, "<%" PRIu64 ">: %" PRIu64 " extents on disk, debugfs %"
		     PRIu64, r->ino, r->extents, k->disk_extents);
}

struct path_list {
	char **v;
	size_t n, cap;
};

static int add_path(const char *path, size_t len, void *payload)
{
	struct path_list *l = payload;

	if (l->n == l->cap) {
		char **v = realloc(l->v, (l->cap ? 2 * l->cap : 8) *
				   sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = l->cap ? 2 * l->cap : 8;
	}
	if (!(l->v[l->n] = strndup(path, len)))
		return -ENOMEM;
	l->n++;
	return 0;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of L both sides show (scan_kernel_lists), in place. */
static size_t shown(const struct scan_kernel *k, char **v, size_t n,
		    bool owned)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (scan_kernel_lists(k, v[i], strlen(v[i])))
			v[o++] = v[i];
		else if (owned)
			free(v[i]);
	}
	return o;
}

static void check_paths(struct scan_diffs *d, const struct scan_kernel *ks,
			const e2map_paths_t *p, const struct scan_kinode *k)
{
	struct path_list got = { 0 };
	char **want = malloc((k->npaths + 1) * sizeof(*want));
	size_t i, nwant;

	if (!want || e2map_paths_foreach(p, k->ino, add_path, &got) < 0)
		diff(d, "<%" PRIu64 ">: no memory for its paths", k->ino);
	if (want)
		memcpy(want, k->paths, k->npaths * sizeof(*want));
	nwant = want ? shown(ks, want, k->npaths, false) : 0;
	got.n = shown(ks, got.v, got.n, true);
	if (got.n)
		qsort(got.v, got.n, sizeof(*got.v), by_str);
	for (i = 0; i < got.n || i < nwant; i++)
		if (i >= got.n || i >= nwant || strcmp(got.v[i], want[i])) {
			diff(d, "<%" PRIu64 ">: path %s, the mount's %s", k->ino,
			     i < got.n ? got.v[i] : "(none)",
			     i < nwant ? want[i] : "(none)");
			break;
		}
	for (i = 0; i < got.n; i++)
		free(got.v[i]);
	free(got.v);
	free(want);
}

/* readlink(2) on the mount against e2map_inode_readlink (-ENOKEY where
 * the kernel would hash a long encrypted target). */
static void check_link(struct scan_diffs *d, e2map_t *m,
		       const struct scan_kinode *k)
{
	char buf[4096];
	int64_t n;

	if (!k->link)
		return;
	n = e2map_inode_readlink(m, k->ino, buf, sizeof(buf));
	if (n == -ENOKEY && strlen(k->link) == 252)
		return;
	if (n < 0 || (size_t)n != strlen(k->link) ||
	    memcmp(buf, k->link, (size_t)n))
		diff(d, "<%" PRIu64 ">: readlink %s, the mount's %s", k->ino,
		     n < 0 ? e2map_strerror((int)n) : "differs", k->link);
}

bool scan_kernel_lists(const struct scan_kernel *k, const char *path,
		       size_t len)
{
	size_t i, n;

	for (i = 0; i < k->nfail; i++) {
		n = strlen(k->fail[i].path);
		if (n <= len && !strncmp(path, k->fail[i].path, n) &&
		    (k->fail[i].dir ? len > n && path[n] == '/' : len == n))
			return false;
	}
	return true;
}

struct named {
	const struct scan_kernel *k;
	const e2map_paths_t *p;
	struct scan_diffs *d;
	size_t n;
};

/* A name the mount shows too: one lstat reaches, in a directory that
 * getdents listed whole. */
static int count_listed(const char *path, size_t len, void *payload)
{
	struct named *nm = payload;

	if (scan_kernel_lists(nm->k, path, len))
		nm->n++;
	return 0;
}

/* Every inode e2map names, and can read, the kernel listed too. */
static int check_named(const struct e2map_record *r, const char *detail,
		       void *payload)
{
	struct named *nm = payload;

	(void)detail;
	nm->n = 0;
	e2map_paths_foreach(nm->p, r->ino, count_listed, nm);
	if (nm->n && !r->err && !scan_kernel_find(nm->k, r->ino))
		diff(nm->d, "<%" PRIu64 "> has a path the mount does not list",
		     r->ino);
	return 0;
}

static void check_inode(struct scan_diffs *d, e2map_t *m,
			const struct scan_kernel *k, const e2map_paths_t *paths,
			const struct scan_kinode *ki, uint32_t bs, bool meta)
{
	struct e2map_record r = E2MAP_RECORD_INIT;
	int err;

	if ((err = e2map_inode_record(m, ki->ino, &r)) < 0) {
		diff(d, "<%" PRIu64 ">: no record: %s", ki->ino,
		     e2map_strerror(err));
		return;
	}
	check_paths(d, k, paths, ki);
	check_stat(d, &r, &ki->st);
	check_link(d, m, ki);
	if (ki->has_map)
		check_map(d, &r, ki, bs, meta);
	else if (ki->err && r.err != -ki->err)
		diff(d, "<%" PRIu64 ">: %s, the kernel's %s", ki->ino,
		     e2map_strerror(r.err), e2map_strerror(-ki->err));
}

size_t scan_compare(e2map_t *m, const struct scan_kernel *k, bool meta,
		    struct scan_diffs *d)
{
	e2map_paths_t *paths;
	struct e2map_statfs sf = E2MAP_STATFS_INIT;
	struct e2map_stat st = E2MAP_STAT_INIT;
	struct named nm = { k, NULL, d, 0 };
	size_t i, before = d->n;
	int err;

	if ((err = e2map_paths_build(m, &paths)) < 0 ||
	    (err = e2map_statfs(m, &sf)) < 0) {
		diff(d, "no path table: %s", e2map_strerror(err));
		return d->n - before;
	}
	for (i = 0; i < k->n; i++)
		check_inode(d, m, k, paths, &k->v[i], sf.bsize, meta);
	for (i = 0; i < k->nfail; i++)
		if (!k->fail[i].dir &&
		    (err = e2map_path_lstat(m, k->fail[i].path, &st)) !=
		    -k->fail[i].err)
			diff(d, "lstat %s: %s, the kernel's %s", k->fail[i].path,
			     e2map_strerror(err), e2map_strerror(-k->fail[i].err));
	nm.p = paths;
	if ((err = e2map_scan_records(m, 0, check_named, &nm)) < 0)
		diff(d, "scan: %s", e2map_strerror(err));
	e2map_paths_free(paths);
	return d->n - before;
}

void scan_lines_add(struct scan_lines *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	l->v[l->n++] = s;
}

void scan_lines_sort(struct scan_lines *l)
{
	qsort(l->v, l->n, sizeof(*l->v), by_str);
}

void scan_lines_free(struct scan_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The public header's promises to a library user (e2map/common.h): the
 * version, one callback rule for every call that takes a callback, the
 * version field of every struct the caller allocates, e2map_free.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <e2map.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

Test(api, version)
{
	int major = -1, minor = -1, patch = -1;
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", E2MAP_VERSION_MAJOR,
		 E2MAP_VERSION_MINOR, E2MAP_VERSION_PATCH);
	cr_assert_str_eq(E2MAP_VERSION, want);
	cr_assert_str_eq(e2map_version(&major, &minor, &patch), E2MAP_VERSION);
	cr_assert(major == E2MAP_VERSION_MAJOR && minor == E2MAP_VERSION_MINOR &&
		  patch == E2MAP_VERSION_PATCH);
	cr_assert_str_eq(e2map_version(NULL, NULL, NULL), E2MAP_VERSION);
}

/* Each callback stops at its first call with STOP, counting the calls. */
static int stop, calls;

static int cb_xattr(const struct e2map_xattr *x, void *p)
{
	(void)x, (void)p;
	return calls++, stop;
}

static int cb_run(const struct e2map_run *r, void *p)
{
	(void)r, (void)p;
	return calls++, stop;
}

static int cb_scan(e2map_t *m, const struct e2map_inode *in, void *p)
{
	(void)m, (void)in, (void)p;
	return calls++, stop;
}

static int cb_record(const struct e2map_record *r, const char *d, void *p)
{
	(void)r, (void)d, (void)p;
	return calls++, stop;
}

static int cb_path(const char *path, size_t len, void *p)
{
	(void)path, (void)len, (void)p;
	return calls++, stop;
}

static int cb_unalloc(const struct e2map_unalloc *u, void *p)
{
	(void)u, (void)p;
	return calls++, stop;
}

static int cb_dirent(const struct e2map_dirent *de, void *p)
{
	(void)de, (void)p;
	return calls++, stop;
}

static int cb_du(const struct e2map_du_entry *e, void *p)
{
	(void)e, (void)p;
	return calls++, stop;
}

static int cb_check(e2map_t *m, const struct e2map_inode *in, int err,
		    const char *d, void *p)
{
	(void)m, (void)in, (void)err, (void)d, (void)p;
	return calls++, stop;
}

static int cb_tree(const struct e2map_tree_entry *e, void *p)
{
	(void)e, (void)p;
	return calls++, stop;
}

static int cb_extract(const struct e2map_extract_event *ev, void *p)
{
	(void)ev, (void)p;
	return calls++, stop;
}

static e2map_t *open_image(const char *name, char **img)
{
	e2map_t *m = NULL;

	cr_assert((*img = fixture_image(name)), "no testdata/%s.img.gz", name);
	cr_assert_eq(e2map_open(*img, NULL, &m), 0, "%s: %s", name,
		     e2map_errmsg(NULL));
	return m;
}

/* One call of every kind that takes a callback, on images where each
 * calls it more than once when let go on. */
static int call(int which, e2map_t *sample, e2map_t *xattr, const char *dest)
{
	e2map_paths_t *paths = NULL;
	e2map_blockmap_t *bm = NULL;
	e2map_file_t *f = NULL;
	struct e2map_stat st = E2MAP_STAT_INIT;
	int r = -EINVAL;

	switch (which) {
	case 0: return e2map_path_lxattrs(xattr, "/kinds", cb_xattr, NULL);
	case 13:
		cr_assert_eq(e2map_path_lstat(xattr, "/kinds", &st), 0);
		return e2map_inode_xattrs(xattr, st.ino, cb_xattr, NULL);
	case 1:
		cr_assert_eq(e2map_file_open(sample, "/sparse.bin", &f), 0);
		r = e2map_file_walk(f, 0, 1024, cb_run, NULL);
		e2map_file_close(f);
		return r;
	case 2: return e2map_scan(sample, cb_scan, NULL);
	case 3: return e2map_scan_records(sample, 1, cb_record, NULL);
	case 4: return e2map_scan_records(sample, 2, cb_record, NULL);
	case 5:
		cr_assert_eq(e2map_paths_build(sample, &paths), 0);
		r = 0;	/* every inode's names, till the first stop */
		for (uint64_t ino = 1; ino < 64 && !r; ino++)
			r = e2map_paths_foreach(paths, ino, cb_path, NULL);
		e2map_paths_free(paths);
		return r;
	case 6:
		cr_assert_eq(e2map_blockmap_build(sample, &bm), 0);
		r = e2map_unallocated(sample, bm, cb_unalloc, NULL);
		e2map_blockmap_free(bm);
		return r;
	case 7:
		cr_assert_eq(e2map_file_open(sample, "/", &f), 0);
		r = e2map_file_readdir(f, cb_dirent, NULL);
		e2map_file_close(f);
		return r;
	case 8: return e2map_du(sample, "/", E2MAP_DU_ALLOCATED, cb_du, NULL);
	case 9: return e2map_check_all(sample, 1, cb_check, NULL);
	case 10: return e2map_check_all(sample, 2, cb_check, NULL);
	case 11: return e2map_tree_walk(sample, "/", cb_tree, NULL);
	case 12: return e2map_extract(sample, "/", dest,
				      E2MAP_EXTRACT_RECURSIVE, cb_extract,
				      NULL);
	}
	return r;
}

#define CALLS 14
static const char *const names[CALLS] = {
	"xattrs", "file_walk", "scan", "scan_records/1", "scan_records/2",
	"paths_foreach", "unallocated", "file_readdir", "du", "check_all/1",
	"check_all/2", "tree_walk", "extract", "inode_xattrs",
};

/* Whatever the callback stops with comes back unchanged, after one call:
 * a positive value, an errno, the reserved E2MAP_EUSER, and E2MAP_SKIP
 * where the call is no tree walk. */
Test(api, callbacks_stop_and_hand_back, .timeout = 120)
{
	static const int stops[] = { 7, -ENOENT, E2MAP_EUSER, E2MAP_SKIP };
	char *simg, *ximg, dest[] = "/tmp/e2map-api-XXXXXX", sub[64];
	e2map_t *sample = open_image("sample", &simg);
	e2map_t *xattr = open_image("xattr-4k", &ximg);

	cr_assert(mkdtemp(dest));
	for (int w = 0; w < CALLS; w++)
		for (size_t s = 0; s < sizeof(stops) / sizeof(stops[0]); s++) {
			if (w == 11 && stops[s] == E2MAP_SKIP)
				continue;	/* below */
			snprintf(sub, sizeof(sub), "%s/%d-%zu", dest, w, s);
			calls = 0;
			stop = stops[s];
			cr_expect_eq(call(w, sample, xattr, sub), stops[s],
				     "%s: stopped with %d, returned another",
				     names[w], stops[s]);
			cr_expect_eq(calls, 1, "%s: %d calls after a stop",
				     names[w], calls);
		}
	/* Let go on, each calls more than once. */
	for (int w = 0; w < CALLS; w++) {
		snprintf(sub, sizeof(sub), "%s/go-%d", dest, w);
		stop = 0;
		calls = 0;
		cr_expect_geq(call(w, sample, xattr, sub), 0, "%s", names[w]);
		cr_expect_gt(calls, 1, "%s: %d calls", names[w], calls);
	}
	snprintf(sub, sizeof(sub), "rm -rf %s", dest);
	cr_expect_eq(system(sub), 0);
	e2map_close(sample);
	e2map_close(xattr);
	fixture_remove(simg);
	fixture_remove(ximg);
}

/* A tree walk's E2MAP_SKIP at the root passes over all under it. */
Test(api, tree_skip)
{
	char *img;
	e2map_t *m = open_image("sample", &img);

	stop = E2MAP_SKIP;
	calls = 0;
	cr_assert_eq(e2map_tree_walk(m, "/", cb_tree, NULL), 0);
	cr_assert_eq(calls, 1);
	e2map_close(m);
	fixture_remove(img);
}

/* A struct of an unknown version is refused and left as it was. */
Test(api, struct_versions)
{
	char *img;
	e2map_t *m = open_image("sample", &img);
	e2map_file_t *f = NULL;
	struct e2map_stat st, before;
	struct e2map_statfs sfs = E2MAP_STATFS_INIT;
	struct e2map_check_stats cs = E2MAP_CHECK_STATS_INIT;
	struct e2map_record rec = E2MAP_RECORD_INIT;
	unsigned bad[] = { 0, E2MAP_STAT_VERSION + 1 };

	cr_assert_eq(e2map_file_open(m, "/sparse.bin", &f), 0);
	for (size_t i = 0; i < 2; i++) {
		memset(&st, 0xa5, sizeof(st));
		st.version = bad[i];
		before = st;
		cr_expect_eq(e2map_path_stat(m, "/sparse.bin", &st), -EINVAL);
		cr_expect_eq(e2map_path_lstat(m, "/sparse.bin", &st), -EINVAL);
		cr_expect_eq(e2map_inode_stat(m, 2, &st), -EINVAL);
		cr_expect_eq(e2map_file_stat(f, &st), -EINVAL);
		cr_expect(!memcmp(&st, &before, sizeof(st)), "written to");
		sfs.version = cs.version = rec.version = bad[i];
		cr_expect_eq(e2map_statfs(m, &sfs), -EINVAL);
		cr_expect_eq(e2map_file_check(f, &cs), -EINVAL);
		cr_expect_eq(e2map_inode_check(m, 2, &cs), -EINVAL);
		cr_expect_eq(e2map_inode_record(m, 2, &rec), -EINVAL);
	}
	st.version = E2MAP_STAT_VERSION;
	cr_expect_eq(e2map_file_stat(f, &st), 0);
	cr_expect(st.version == E2MAP_STAT_VERSION && st.size > 0);
	sfs.version = E2MAP_STATFS_VERSION;
	cs.version = E2MAP_CHECK_STATS_VERSION;
	rec.version = E2MAP_RECORD_VERSION;
	cr_expect_eq(e2map_statfs(m, &sfs), 0);
	cr_expect_eq(sfs.type, 0xEF53);
	cr_expect_eq(e2map_file_check(f, &cs), 0);
	cr_expect_gt(cs.seeks, 0);
	cr_expect_eq(e2map_inode_record(m, 2, &rec), 0);
	cr_expect(rec.version == E2MAP_RECORD_VERSION &&
		  rec.st.version == E2MAP_STAT_VERSION && rec.st.ino == 2);
	e2map_file_close(f);
	e2map_close(m);
	fixture_remove(img);
}

/* What a call allocates, e2map_free frees (the sanitizer build sees it). */
Test(api, free)
{
	char *img, *target = NULL;
	e2map_t *m = open_image("ext4-links", &img);
	struct e2map_stat st = E2MAP_STAT_INIT;

	cr_assert_eq(e2map_inode_readlink_alloc(m, 2, &target), -EINVAL);
	cr_assert_null(target);
	/* The image's first symlink, by inode number. */
	for (uint64_t ino = 11; ino < 64 && !target; ino++)
		if (e2map_inode_stat(m, ino, &st) == 0 &&
		    (st.mode & 0170000) == 0120000)
			cr_assert_eq(e2map_inode_readlink_alloc(m, ino, &target),
				     (int64_t)st.size);
	cr_assert(target, "no symlink in ext4-links");
	cr_assert_eq(strlen(target), st.size);
	e2map_free(target);
	e2map_free(NULL);
	e2map_close(m);
	fixture_remove(img);
}

/* A dirlist holds what e2map_file_readdir gives, in its order. */
struct seen_list {
	const struct e2map_dirlist *l;
	size_t at;
};

static int same_entry(const struct e2map_dirent *de, void *p)
{
	struct seen_list *s = p;
	const struct e2map_dirent *k;

	cr_assert_lt(s->at, s->l->count, "more entries than the list");
	k = &s->l->entries[s->at++];
	cr_expect(k->ino == de->ino && k->type == de->type &&
		  k->len == de->len && !memcmp(k->name, de->name, de->len) &&
		  k->name[k->len] == '\0', "entry %zu differs", s->at - 1);
	return 0;
}

Test(api, dirlist)
{
	char *img;
	e2map_t *m = open_image("ext4-links", &img);
	struct e2map_dirlist *l = (struct e2map_dirlist *)1;
	e2map_file_t *f = NULL;
	struct seen_list s = { 0 };

	cr_assert_eq(e2map_dirlist_read(NULL, &l), -EINVAL);
	cr_assert_null(l);
	cr_assert_eq(e2map_file_open(m, "/", &f), 0);
	cr_assert_eq(e2map_dirlist_read(f, &l), 0);
	cr_assert(l && l->err == 0 && l->count > 4);
	s.l = l;
	cr_assert_eq(e2map_file_readdir(f, same_entry, &s), 0);
	cr_expect_eq(s.at, l->count);
	e2map_dirlist_free(l);
	e2map_dirlist_free(NULL);
	e2map_file_close(f);
	cr_assert_eq(e2map_file_open(m, "/small", &f), 0);
	cr_assert_eq(e2map_dirlist_read(f, &l), 0);
	cr_expect(l->count == 0 && l->err == -ENOTDIR);
	e2map_dirlist_free(l);
	e2map_file_close(f);
	e2map_close(m);
	fixture_remove(img);
}

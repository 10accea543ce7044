/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode numbers and names against the kernel's mount, as recorded by
 * scripts/record/paths.sh: NAME.handles (open_by_handle_at on every file
 * and directory in use, which e2map_file_open_ino mirrors) and NAME.paths
 * (every name `find` shows, which the path table must list).
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "fixture.h"
#include "scan_rec.h"

static char *img;
static e2map_t *m;

static void open_image(const char *name)
{
	img = fixture_image(name);
	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", e2map_errmsg(NULL));
}

static void cleanup(void)
{
	e2map_close(m);
	m = NULL;
	fixture_remove(img);
	img = NULL;
}

/* testdata/NAME.EXT(.gz), whole; LEN its length. */
static char *recording(const char *name, const char *ext, size_t *len)
{
	char path[4096];
	char *text;

	snprintf(path, sizeof(path), "%s/%s.%s", fixture_testdata(), name, ext);
	text = calls_read_file(path, len);
	cr_assert(text, "no recording %s(.gz)", path);
	return text;
}

/* "ENAME" for -errno, "0" for 0. */
static const char *result_name(int err)
{
	return err ? calls_errname(-err) : "0";
}

/*
 * Every "INO RESULT" line against e2map_file_open_ino: success where the
 * kernel opened the handle, failure where it did not.  exportfs_decode_fh
 * folds every iget error into ESTALE, so the errno must match only with
 * EXACT; e2map reports the iget's own (EUCLEAN, EBADMSG...).  Inodes below
 * s_first_ino but the root are left out: the kernel's handles refuse them,
 * e2map keeps debugfs's meaning (<8> is the journal).
 */
static bool same(const char *want, int err, bool exact)
{
	if (exact || !strcmp(want, "0") || !err)
		return !strcmp(want, result_name(err));
	return true;
}

static void compare_handles(const char *name, bool exact)
{
	size_t len;
	char *text = recording(name, "handles", &len), *line, *save = NULL;
	int n = 0, bad = 0;

	open_image(name);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long ino;
		char want[32];
		e2map_file_t *f;
		int err;

		cr_assert_eq(sscanf(line, "%llu %31s", &ino, want), 2, "%s", line);
		if (ino != 2 && ino < 11)
			continue;
		err = e2map_file_open_ino(m, ino, &f);
		e2map_file_close(f);
		n++;
		if (!same(want, err, exact)) {
			cr_log_error("%s: <%llu>: kernel %s, e2map %s (%s)", name,
				     ino, want, result_name(err), e2map_errmsg(m));
			bad++;
		}
	}
	free(text);
	cr_expect_gt(n, 0, "%s: no handles recorded", name);
	cr_expect_eq(bad, 0, "%s: %d of %d handle opens differ", name, bad, n);
}

TestSuite(handles, .timeout = 60, .fini = cleanup);

/* An EA inode holds a parent's xattr value: a handle to it is stale. */
Test(handles, ea_inode_is_stale_by_number)
{
	compare_handles("ext4-ea_inode", true);
}

Test(handles, names_image)
{
	compare_handles("ext4-names", false);
}

Test(handles, ext4_4k)
{
	compare_handles("ext4-4k", false);
}

Test(handles, ext3_1k)
{
	compare_handles("ext3-1k", false);
}

Test(handles, corrupt_4k)
{
	compare_handles("corrupt-4k", false);
}

/* ---- the path table against `find` on the mount ---- */

struct strs {
	char **v;
	size_t n, cap;
};

static void strs_add(struct strs *s, char *str)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		cr_assert(s->v);
	}
	s->v[s->n++] = str;
}

static void strs_free(struct strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct one_ino {
	struct strs *out;
	uint64_t ino;
};

static int add_path(const char *path, size_t len, void *payload)
{
	struct one_ino *o = payload;
	char *s;

	cr_assert_eq(strlen(path), len);
	cr_assert(asprintf(&s, "%llu %s", (unsigned long long)o->ino, path) > 0);
	strs_add(o->out, s);
	return 0;
}

static int add_inode(e2map_t *mm, const struct e2map_inode *in, void *payload)
{
	(void)mm;
	if (!in->err)
		strs_add(payload, (char *)(uintptr_t)in->ino);
	return 0;
}

/* "INO /PATH" for every path of every inode in use, sorted. */
static void table_paths(e2map_paths_t *p, struct strs *out)
{
	struct strs inos = { 0 };

	cr_assert_eq(e2map_scan(m, add_inode, &inos), 0);
	for (size_t i = 0; i < inos.n; i++) {
		struct one_ino o = { out, (uint64_t)(uintptr_t)inos.v[i] };

		cr_assert_eq(e2map_paths_foreach(p, o.ino, add_path, &o), 0);
	}
	free(inos.v);
	qsort(out->v, out->n, sizeof(*out->v), cmp_str);
}

static void compare_paths(const char *name)
{
	struct strs want = { 0 }, got = { 0 };
	e2map_paths_t *p;
	size_t len, i, j, bad = 0;
	char *text = recording(name, "paths", &len);

	for (i = 0; i < len; i += strlen(text + i) + 1)
		strs_add(&want, strdup(text + i));
	free(text);
	open_image(name);
	cr_assert_eq(e2map_paths_build(m, &p), 0, "%s", e2map_errmsg(m));
	table_paths(p, &got);
	e2map_paths_free(p);
	for (i = j = 0; i < want.n || j < got.n; ) {
		int c = i == want.n ? 1 : j == got.n ? -1 :
			strcmp(want.v[i], got.v[j]);

		if (c && bad++ < 5)
			cr_log_error("%s: %s only by %s", name,
				     c < 0 ? want.v[i] : got.v[j],
				     c < 0 ? "the kernel" : "e2map");
		i += c <= 0;
		j += c >= 0;
	}
	cr_expect_gt(want.n, 1, "%s: nothing recorded", name);
	cr_expect_eq(bad, 0, "%s: %zu names differ (kernel %zu, e2map %zu)",
		     name, bad, want.n, got.n);
	strs_free(&want);
	strs_free(&got);
}

TestSuite(paths, .timeout = 60, .fini = cleanup);

/* Names that are not UTF-8, hard links in three directories, htree. */
Test(paths, names_image)
{
	compare_paths("ext4-names");
}

Test(paths, ea_inodes_have_no_name)
{
	compare_paths("ext4-ea_inode");
}

Test(paths, ext4_4k) { compare_paths("ext4-4k"); }
Test(paths, ext4_1k) { compare_paths("ext4-1k"); }
Test(paths, ext4_inline_dirs) { compare_paths("ext4-inline"); }
Test(paths, ext4_no64bit_nocsum) { compare_paths("ext4-no64bit-nocsum"); }
Test(paths, ext3_1k) { compare_paths("ext3-1k"); }
Test(paths, ext2_1k) { compare_paths("ext2-1k"); }
Test(paths, corrupt_4k) { compare_paths("corrupt-4k"); }

/* ---- damaged trees: the walk ends, each directory is read once ---- */

static void debugfs_w(const char *request)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "debugfs -w -R '%s' '%s' >/dev/null 2>&1",
		 request, img);
	cr_assert_eq(system(cmd), 0, "debugfs -w -R '%s' failed", request);
}

static uint64_t ino_of(const char *path)
{
	struct e2map_stat st = E2MAP_STAT_INIT;
	e2map_file_t *f;

	cr_assert_eq(e2map_file_open(m, path, &f), 0, "%s: %s", path,
		     e2map_errmsg(m));
	cr_assert_eq(e2map_file_stat(f, &st), 0);
	e2map_file_close(f);
	return st.ino;
}

static size_t components(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/*
 * The paths of PATH's inode are WANT, in any order, with ALT standing in
 * for the last of WANT when given (either is right).  Shortest first.
 */
static void expect_paths(e2map_paths_t *p, const char *path,
			 const char *const *want, const char *alt)
{
	struct strs got = { 0 };
	struct one_ino o = { &got, ino_of(path) };
	size_t n = 0;

	cr_assert_eq(e2map_paths_foreach(p, o.ino, add_path, &o), 0);
	for (size_t i = 1; i < got.n; i++)
		cr_expect_leq(components(got.v[0]), components(got.v[i]),
			      "%s: %s before %s", path, got.v[0], got.v[i]);
	for (; want[n]; n++) {
		bool found = false;

		for (size_t i = 0; i < got.n; i++) {
			const char *g = strchr(got.v[i], '/');

			found |= !strcmp(g, want[n]) ||
				 (!want[n + 1] && alt && !strcmp(g, alt));
		}
		cr_expect(found, "%s: no path %s", path, want[n]);
	}
	cr_expect_eq(got.n, n, "%s: %zu paths, want %zu", path, got.n, n);
	strs_free(&got);
}

/*
 * debugfs links a directory under its own subtree (a loop) and a second
 * name to another directory: the table ends, lists both names of each,
 * and walks each directory once (the names under /links/sub are not
 * repeated under /utf8/sub_again).  Shortest path first.
 */
Test(paths, loops_and_directories_named_twice)
{
	e2map_paths_t *p;

	if (system("command -v debugfs >/dev/null 2>&1") != 0)
		cr_skip_test("debugfs is not installed");
	img = fixture_image("ext4-names");
	cr_assert(img);
	debugfs_w("link /deep /deep/d0/d1/up");
	debugfs_w("link /links/sub /utf8/sub_again");
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert_eq(e2map_paths_build(m, &p), 0, "%s", e2map_errmsg(m));
	expect_paths(p, "/", (const char *const[]){ "/", NULL }, NULL);
	expect_paths(p, "/deep", (const char *const[]){ "/deep",
		     "/deep/d0/d1/up", NULL }, NULL);
	expect_paths(p, "/links/sub", (const char *const[]){ "/links/sub",
		     "/utf8/sub_again", NULL }, NULL);
	/* again: under whichever name of sub came first, not both. */
	expect_paths(p, "/links/file", (const char *const[]){ "/links/file",
		     "/utf8/link_é", "/links/sub/again", NULL },
		     "/utf8/sub_again/again");
	e2map_paths_free(p);
}

/*
 * A directory block overwritten with garbage (its checksum fails): its
 * names are skipped as ext4_readdir skips the block, the rest is listed.
 */
Test(paths, damaged_directory_block_is_skipped)
{
	e2map_paths_t *p;

	if (system("command -v debugfs >/dev/null 2>&1") != 0)
		cr_skip_test("debugfs is not installed");
	img = fixture_image("ext4-names");
	cr_assert(img);
	debugfs_w("zap_block -f /links -p 0x41 -o 24 -l 64 0");
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert_eq(e2map_paths_build(m, &p), 0, "%s", e2map_errmsg(m));
	expect_paths(p, "/utf8/link_é", (const char *const[]){
		     "/utf8/link_é", NULL }, NULL);
	expect_paths(p, "/links", (const char *const[]){ "/links", NULL },
		     NULL);
	e2map_paths_free(p);
}

/* ---- lstat of every name, against the mount's (the corpus) ---- */

struct named_path {
	char *path;
	int err;		/* positive errno, 0: lstat works */
};

struct named_paths {
	struct named_path *v;
	size_t n, cap;
};

static int keep_named(const char *path, size_t len, int err,
		      const char *detail, void *payload)
{
	struct named_paths *np = payload;

	cr_assert(!err == !*detail, "%s: errno %d, reason '%s'", path, err,
		  detail);
	if (np->n == np->cap)
		cr_assert((np->v = realloc(np->v, (np->cap = np->cap * 2 + 64) *
					   sizeof(*np->v))));
	np->v[np->n++] = (struct named_path){ strndup(path, len), -err };
	return 0;
}

static int by_named_path(const void *a, const void *b)
{
	return strcmp(((const struct named_path *)a)->path,
		      ((const struct named_path *)b)->path);
}

static const struct named_path *named_find(const struct named_paths *np,
					   const char *path)
{
	struct named_path key = { (char *)path, 0 };

	return bsearch(&key, np->v, np->n, sizeof(*np->v), by_named_path);
}

/* Every name in IMG's table, with its lstat answer, sorted by path. */
static void all_named(const e2map_paths_t *p, struct named_paths *np)
{
	struct e2map_statfs sf = E2MAP_STATFS_INIT;

	cr_assert_eq(e2map_statfs(m, &sf), 0);
	for (uint64_t ino = 1; ino <= sf.files; ino++)
		cr_assert_eq(e2map_paths_foreach_lstat(p, ino, keep_named,
						       np), 0);
	if (np->n)
		qsort(np->v, np->n, sizeof(*np->v), by_named_path);
}

/* The names of image NAME (its .scan recording, under DIR of testdata):
 * each name lstat reached on the mount works, each that failed fails
 * with its errno. */
static int compare_lstat(const char *dir, const char *name, const char *src)
{
	struct named_paths np = { 0 };
	struct scan_kernel k;
	e2map_paths_t *p;
	char file[4096];
	int bad = 0;

	snprintf(file, sizeof(file), "%s%s/%s.scan", fixture_testdata(), dir,
		 name);
	if (scan_kernel_load(file, &k) < 0)
		return 0;	/* the kernel did not mount it */
	img = fixture_decompress(src);
	cr_assert(img && e2map_open(img, NULL, &m) == 0, "%s", name);
	cr_assert_eq(e2map_paths_build(m, &p), 0, "%s", e2map_errmsg(m));
	all_named(p, &np);
	for (size_t i = 0; i < k.np + k.nfail; i++) {
		bool fail = i >= k.np;
		const char *path = fail ? k.fail[i - k.np].path : k.p[i].path;
		int want = fail ? k.fail[i - k.np].err : 0;
		const struct named_path *got = named_find(&np, path);

		if (fail && k.fail[i - k.np].dir)
			continue;	/* getdents failed, not lstat */
		if (!got || got->err != want)
			cr_log_error("%s: %s: %s, the mount's %s", name, path,
				     got ? result_name(-got->err) : "no name",
				     result_name(-want)), bad++;
	}
	for (size_t i = 0; i < np.n; i++)
		free(np.v[i].path);
	free(np.v);
	e2map_paths_free(p);
	scan_kernel_free(&k);
	cleanup();
	return bad;
}

/*
 * The lookup of each name as lstat(2) on the mount answers it, on every
 * corpus image the kernel mounted: a damaged htree that misses a name
 * (f_h_badroot: ENOENT), a directory named below itself (f_baddir:
 * ELOOP), encryption policies that differ (f_bad_encryption: EPERM),
 * inodes that fail (f_bad_inode_csum: EBADMSG).
 */
Test(paths, every_name_answers_lstat_as_the_mount, .timeout = 900)
{
	char **srcs;
	int n = fixture_corpus_list(&srcs), bad = 0;

	cr_assert_geq(n, 113, "only %d corpus images found", n);
	for (int i = 0; i < n; i++) {
		const char *base = strrchr(srcs[i], '/') + 1;
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."),
			 base);
		bad += compare_lstat("/corpus", name, srcs[i]);
	}
	fixture_corpus_free(srcs, n);
	cr_expect_eq(bad, 0, "%d names answer otherwise than on the mount",
		     bad);
}

/* The same on every testdata image with a scan recording. */
Test(paths, every_name_answers_lstat_as_the_mount_testdata, .timeout = 900)
{
	char pattern[4096], src[4096];
	glob_t g;
	int bad = 0;

	snprintf(pattern, sizeof(pattern), "%s/*.scan.gz", fixture_testdata());
	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no %s", pattern);
	cr_assert_geq(g.gl_pathc, 40);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		char name[256];

		snprintf(name, sizeof(name), "%.*s",
			 (int)(strlen(base) - strlen(".scan.gz")), base);
		snprintf(src, sizeof(src), "%s/%s.img.gz", fixture_testdata(),
			 name);
		bad += compare_lstat("", name, src);
	}
	globfree(&g);
	cr_expect_eq(bad, 0, "%d names answer otherwise than on the mount",
		     bad);
}

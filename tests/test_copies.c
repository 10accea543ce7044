/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The e2fsprogs corpus against cp -a of the kernel's mount
 * (testdata/corpus/NAME.cp, scripts/record/copies.sh): `e2map extract -r -p`
 * of each image the kernel mounts, and cp -a of its `e2map mount`, make the
 * tree cp made from the kernel's mount; `e2map tar`, extracted by GNU tar,
 * makes the tree GNU tar's own archive of the mount makes
 * (testdata/corpus/NAME.tar, TOOL=tar scripts/record/copies.sh); all listed by
 * scripts/check/tree-list.py --no-regions (every entry's path, type and
 * mode, owner, size, times, link target or device, bytes' sha256, xattrs,
 * hard-link group); the paths cp failed on are the paths extract reports,
 * their times left out (both leave a failed copy with the time it was
 * made), and the exit status is cp's.  Owners are compared as root only
 * (neither can give a copy away otherwise).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calls.h"
#include "cli_run.h"
#include "fixture.h"

struct lines {
	char **v;
	size_t n, cap;
};

static void lines_add(struct lines *l, const char *s, size_t len)
{
	/* doubling: under ASan each realloc copies the whole array */
	if (l->n == l->cap)
		cr_assert((l->v = realloc(l->v, (l->cap = l->cap * 2 + 64) *
					  sizeof(*l->v))));
	cr_assert((l->v[l->n++] = strndup(s, len)));
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool has(const struct lines *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* Field I (from 0) of tab-separated LINE blanked: "~". */
static void blank(char *line, int i)
{
	char *f = line, *end;

	while (i-- > 0 && f)
		if ((f = strchr(f, '\t')))
			f++;
	if (!f)
		return;
	end = strchrnul(f, '\t');
	memmove(f + 1, end, strlen(end) + 1);
	*f = '~';
}

enum how { BY_EXTRACT, BY_FUSE_CP, BY_GNU_TAR };

/* A listing line as compared: a failed path's times, and its owner
 * unless root, blanked (the path of "/x" in FAILED is "x" here); after
 * GNU tar every atime too (tar -x restores none). */
static void normalize(char *line, const struct lines *failed, enum how how)
{
	char path[4096];

	snprintf(path, sizeof(path), "/%.*s", (int)strcspn(line, "\t"), line);
	if (!strcmp(path, "//"))
		strcpy(path, "/");
	if (has(failed, path)) {
		blank(line, 5);
		blank(line, 4);
	} else if (how == BY_GNU_TAR) {
		blank(line, 5);
	}
	if (geteuid() != 0)
		blank(line, 2);
}

/* The recording: cp's status, the paths it failed on, its listing. */
static int load_cp(const char *file, struct lines *failed,
		   struct lines *list)
{
	size_t len;
	char *text = calls_read_file(file, &len), *at, *nl;
	int status = -1;

	if (!text)
		return -1;
	for (at = text; (nl = strchr(at, '\n')); at = nl + 1) {
		if (sscanf(at, "# cp-exit %d", &status) == 1 ||
		    sscanf(at, "# tar-exit %d", &status) == 1)
			continue;
		if (!strncmp(at, "F\t", 2))
			lines_add(failed, at + 2, (size_t)(nl - at - 2));
		else
			lines_add(list, at, (size_t)(nl - at));
	}
	free(text);
	return status;
}

/* The paths e2map's stderr names: "e2map: extract: IMG:/PATH: ...", but
 * a socket tar leaves out and tar's warnings (xattrs it could not read),
 * which GNU tar does not count failures. */
static void e2map_failures(const char *err, const char *img,
			   struct lines *out)
{
	size_t ilen = strlen(img);
	const char *at, *p, *nl;

	char path[4096];

	for (at = err; (at = strstr(at, img)); at += ilen) {
		p = at + ilen;
		nl = strchrnul(p, '\n');
		if (*p++ != ':' || *p != '/' ||
		    memmem(p, (size_t)(nl - p), ": socket ignored", 16) ||
		    memmem(p, (size_t)(nl - p), ": warning: ", 11))
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)strcspn(p, ":"), p);
		if (!has(out, path))
			lines_add(out, path, strlen(path));
	}
}

/* tree-list.py --no-regions of DIR. */
static void list_copy(const char *dir, struct lines *out)
{
	char cmd[8192], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "python3 %s/../scripts/check/tree-list.py "
		 "--no-regions '%s'", fixture_testdata(), dir);
	cr_assert((f = popen(cmd, "r")));
	while ((n = getline(&line, &cap, f)) > 0)
		lines_add(out, line, (size_t)n - (line[n - 1] == '\n'));
	free(line);
	cr_assert_eq(pclose(f), 0, "tree-list.py failed on %s", dir);
}

static int sort_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* `e2map tar` of IMG extracted by GNU tar into DEST: e2map's exit status,
 * its failures in OURS. */
static int gnu_tar(const char *img, const char *dir, const char *dest,
		   struct lines *ours)
{
	char archive[128], cmd[512];
	const char *args[] = { "tar", "-q", "-f", archive, img, NULL };
	struct cli_out r;
	int status;

	snprintf(archive, sizeof(archive), "%s/a.tar", dir);
	cr_assert_eq(cli_run(args, &r), 0, "E2MAP is not set");
	e2map_failures(r.err, img, ours);
	status = r.status;
	cli_out_free(&r);
	snprintf(cmd, sizeof(cmd), "mkdir %s && tar -xpf %s -C %s --acls "
		 "--xattrs --xattrs-include='*'", dest, archive, dest);
	cr_expect_eq(system(cmd), 0, "%s: GNU tar failed: %s", img, cmd);
	return status;
}

/* The paths cp's stderr names under ROOT, as copies.sh reads them: the
 * last "ROOT/./PATH" of a line, up to its closing quote ("ROOT/." is /). */
static void cp_failures(const char *err, const char *root, struct lines *out)
{
	char key[4200], path[4096];
	const char *line, *nl, *at, *last, *p;
	size_t klen = (size_t)snprintf(key, sizeof(key), "%s/.", root), n;

	for (line = err; *line; line = *nl ? nl + 1 : nl) {
		nl = strchrnul(line, '\n');
		for (last = NULL, at = line; (at = strstr(at, key)) && at < nl;
		     at += klen)
			last = at;
		if (!last)
			continue;
		p = last + klen;
		for (n = 0; p + n < nl && p[n] != '\'' &&
		     strncmp(p + n, "\xe2\x80\x99", 3); n++)
			;
		if (p + n == nl || (n && *p != '/'))
			continue;
		snprintf(path, sizeof(path), "%.*s", n ? (int)n : 1, n ? p : "/");
		if (!has(out, path))
			lines_add(out, path, strlen(path));
	}
}

/* cp -a of IMG's `e2map mount` into DEST (DIR/m the mount): cp's exit
 * status, its failures in OURS; -1 where FUSE cannot be had, WHY said. */
static int fuse_cp(const char *img, const char *dir, const char *dest,
		   struct lines *ours, const char **why)
{
	char mnt[128], cmd[512], *err;
	size_t len;
	pid_t pid;
	int st;

	snprintf(mnt, sizeof(mnt), "%s/m", dir);
	cr_assert_eq(mkdir(mnt, 0755), 0);
	if ((*why = fixture_fuse_mount(img, mnt, NULL, &pid)))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -a %s/. %s/ 2> %s/err", mnt, dest,
		 dir);
	st = system(cmd);
	cr_expect_eq(fixture_fuse_unmount(mnt, pid), 0, "%s: unmount", img);
	snprintf(cmd, sizeof(cmd), "%s/err", dir);
	err = calls_read_file(cmd, &len);
	cp_failures(err ? err : "", mnt, ours);
	free(err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * Where e2map tar parts from GNU tar's archive of the mount, for the
 * reason e2map(1) gives: a file whose SEEK_DATA fails (a damaged extent
 * tree or indirect block; read(2) fails too) GNU tar archives as a sparse
 * member of holes alone, says nothing and exits 0, and it extracts empty;
 * e2map tar archives what read(2) gives, zeroes after it, names the
 * failure and exits 1, as GNU tar does for any other failing read.
 */
static const char *const tar_known[] = {
	"f_extent_bad_node", "f_extent_int_bad_csum",
	"f_extent_int_bad_extent", "f_extent_int_bad_magic",
	"f_extent_leaf_bad_magic", "f_extent_too_deep", "f_lotsbad",
};

static bool known(enum how how, const char *name)
{
	for (size_t i = 0; how == BY_GNU_TAR &&
	     i < sizeof(tar_known) / sizeof(*tar_known); i++)
		if (!strcmp(tar_known[i], name))
			return true;
	return false;
}

/* A difference, said: as an error, or as information where it is known
 * (an error-level line makes the runner's exit status 1). */
#define SAY(k, ...)							\
	do {								\
		if (k)							\
			cr_log_info(__VA_ARGS__);			\
		else							\
			cr_log_error(__VA_ARGS__);			\
	} while (0)

/* NAME copied out HOW against its recording: the number of differences,
 * or -1 where FUSE cannot be had here (*WHY). */
static int compare_image(const char *name, const char *src, const char *rec,
			 enum how how, const char **why)
{
	struct lines failed = { 0 }, want = { 0 }, got = { 0 }, ours = { 0 };
	char dir[] = "/tmp/e2map-copies-XXXXXX", dest[64], cmd[128];
	char *img = fixture_decompress(src);
	const char *args[] = { "extract", "-r", "-p", "-q", img, "/", dest,
			       NULL };
	int status = load_cp(rec, &failed, &want), bad = 0;
	bool k = known(how, name);
	struct cli_out r = { 0 };
	size_t i;

	cr_assert(img && status >= 0, "%s: no image or recording", name);
	cr_assert(mkdtemp(dir));
	snprintf(dest, sizeof(dest), "%s/x", dir);
	if (how == BY_EXTRACT) {
		cr_assert_eq(cli_run(args, &r), 0, "E2MAP is not set");
		e2map_failures(r.err, img, &ours);
	} else if (how == BY_GNU_TAR) {
		r.status = gnu_tar(img, dir, dest, &ours);
	} else {
		cr_assert_eq(mkdir(dest, 0755), 0);
		if ((r.status = fuse_cp(img, dir, dest, &ours, why)) < 0)
			bad = -1;
	}
	if (bad == 0)
		list_copy(dest, &got);
	for (i = 0; i < want.n; i++)
		normalize(want.v[i], &failed, how);
	for (i = 0; i < got.n; i++)
		normalize(got.v[i], &failed, how);
	if (failed.n)	/* qsort of a NULL array is undefined, even empty */
		qsort(failed.v, failed.n, sizeof(char *), sort_str);
	if (ours.n)
		qsort(ours.v, ours.n, sizeof(char *), sort_str);
	if (bad == 0 && (status != 0) != (r.status != 0) && ++bad)
		SAY(k, "%s: %s exits %d, the mount's %d: %s", name,
		    how == BY_EXTRACT ? "extract" : how == BY_GNU_TAR ? "tar" :
		    "cp of the FUSE mount", r.status, status,
		    r.err ? r.err : "");
	for (i = 0; bad >= 0 && (i < failed.n || i < ours.n); i++)
		if ((i >= failed.n || i >= ours.n ||
		     strcmp(failed.v[i], ours.v[i])) && ++bad) {
			SAY(k, "%s: cp failed on %s, extract on %s", name,
			    i < failed.n ? failed.v[i] : "nothing more",
			    i < ours.n ? ours.v[i] : "nothing more");
			break;
		}
	for (i = 0; bad >= 0 && (i < want.n || i < got.n); i++)
		if ((i >= want.n || i >= got.n || strcmp(want.v[i], got.v[i])) &&
		    ++bad) {
			SAY(k, "%s: cp's\n  %s\nours\n  %s", name,
			    i < want.n ? want.v[i] : "(end)",
			    i < got.n ? got.v[i] : "(end)");
			break;
		}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
	cli_out_free(&r);
	fixture_remove(img);
	lines_free(&failed);
	lines_free(&want);
	lines_free(&got);
	lines_free(&ours);
	return bad;
}

static void corpus(enum how how)
{
	char **paths, rec[4096];
	int n = fixture_corpus_list(&paths), done = 0, bad = 0, d;
	const char *why = NULL;
	FILE *f;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	if (system("python3 -c '' 2>/dev/null") != 0)
		cr_skip_test("python3 is not installed (tree-list.py)");
	cr_assert_geq(n, 113);
	for (int i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/') + 1;
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."),
			 base);
		snprintf(rec, sizeof(rec), "%s/corpus/%s.%s.gz",
			 fixture_testdata(), name, how == BY_GNU_TAR ? "tar" :
			 "cp");
		if (!(f = fopen(rec, "r")))
			continue;	/* the kernel did not mount it */
		fclose(f);
		rec[strlen(rec) - 3] = '\0';	/* calls_read_file adds .gz */
		if ((d = compare_image(name, paths[i], rec, how, &why)) < 0)
			break;
		if ((d != 0) != known(how, name) && ++bad && !d)
			cr_log_error("%s: a known difference is gone", name);
		done++;
	}
	fixture_corpus_free(paths, n);
	if (why)
		cr_skip_test("%s", why);
	cr_expect_geq(done, 98, "only %d recordings", done);
	cr_expect_eq(bad, 0, "%d of %d images differ from the mount's copy", bad,
		     done);
}

Test(copies, corpus_extract_is_cp_a_of_the_mount, .timeout = 1800)
{
	corpus(BY_EXTRACT);
}

/* e2map tar held to GNU tar's archive of the mount, both extracted by it. */
Test(copies, corpus_tar_is_gnu_tar_of_the_mount, .timeout = 1800)
{
	corpus(BY_GNU_TAR);
}

/* The FUSE mount held to the kernel's by what cp -a copies from each. */
Test(copies, corpus_cp_a_of_the_fuse_mount_is_the_kernels, .timeout = 1800)
{
	corpus(BY_FUSE_CP);
}

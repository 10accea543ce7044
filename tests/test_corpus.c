/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every image of the e2fsprogs corpus (testdata/corpus/e2fsprogs, mostly
 * corrupted on purpose, plus any $E2MAP_CORPUS or ../shared adds: see
 * fixture_corpus_dirs) goes through `e2map check`: it must either open
 * and exit 0 (1 when an inode has an error) or refuse with one line and
 * exit 1, within 10 s, with no
 * sanitizer report (the sanitizer build runs this same test), and leave
 * the image's bytes unchanged, read from a file with no write permission.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

/* Decompress SRC into a scratch file without write permission. */
static char *unpack(const char *src)
{
	char *dst = fixture_decompress(src);

	if (dst && chmod(dst, 0444) != 0) {
		fixture_remove(dst);
		return NULL;
	}
	return dst;
}

/* Runs check on IMG; returns the exit status, stderr into ERR. */
static int run_check(const char *e2map, const char *img, char *err, size_t n)
{
	char cmd[8192];
	FILE *p;
	size_t got;
	int st;

	snprintf(cmd, sizeof(cmd), "timeout 10 '%s' check -q '%s' 2>&1 "
		 ">/dev/null", e2map, img);
	if (!(p = popen(cmd, "r")))
		return -1;
	got = fread(err, 1, n - 1, p);
	err[got] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Drop "e2map: warning: ..." lines (a journal that needs recovery). */
static void drop_warnings(char *s)
{
	char *p = s, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		if (!strncmp(p, "e2map: warning: ", 16) && nl)
			memmove(p, nl + 1, strlen(nl + 1) + 1);
		else
			p = nl ? nl + 1 : p + strlen(p);
	}
}

static bool one_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return !strncmp(s, "e2map: ", 7) && nl && nl[1] == '\0';
}

static void check_image(const char *e2map, const char *path, int *bad)
{
	char before[65], after[65], err[4096];
	char *img = unpack(path);
	int rc;

	cr_assert(img, "cannot unpack %s", path);
	cr_assert_eq(fixture_sha256(img, before), 0);
	rc = run_check(e2map, img, err, sizeof(err));
	drop_warnings(err);
	/* Exit 1 with nothing on stderr: inodes with errors (the summary). */
	if (!((rc == 0 && !*err) || (rc == 1 && (!*err || one_line(err))))) {
		cr_log_error("%s: exit %d: %s", path, rc, err);
		(*bad)++;
	}
	cr_expect_eq(fixture_sha256(img, after), 0);
	cr_expect_str_eq(before, after, "%s changed", path);
	fixture_remove(img);
}

Test(corpus, every_image_checks_cleanly, .timeout = 1800)
{
	const char *e2map = getenv("E2MAP");
	const char *dirs[16], *missing;
	char **paths;
	int n, i, bad = 0;

	cr_assert(e2map, "E2MAP is not set (run through make check)");
	fixture_corpus_dirs(dirs, 16, &missing);
	cr_assert(!missing, "no corpus directory %s (see E2MAP_CORPUS in "
		  "testdata/corpus/e2fsprogs/README.md)", missing ? missing : "");
	n = fixture_corpus_list(&paths);
	for (i = 0; i < n; i++)
		check_image(e2map, paths[i], &bad);
	fixture_corpus_free(paths, n);
	cr_expect_geq(n, 113, "only %d corpus images found", n);
	cr_expect_eq(bad, 0, "%d of %d images failed", bad, n);
}

/* Makes DIR/NAME as a copy of SRC. */
static void copy_into(const char *dir, const char *name, const char *src)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%s'", src, dir, name);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
}

/*
 * $E2MAP_CORPUS adds images to the shipped ones: a new name is listed, a
 * name the tree already ships is still taken from testdata, and a named
 * directory that does not exist is reported rather than ignored.
 */
Test(corpus, extra_directories_add_images_without_duplicates)
{
	char tmpl[] = "/tmp/e2map-corpus-XXXXXX", path[4096];
	const char *dirs[16], *missing;
	char **paths;
	int n, shipped, i, extra = 0;

	cr_assert(mkdtemp(tmpl));
	setenv("E2MAP_CORPUS", "none", 1);
	shipped = fixture_corpus_list(&paths);
	fixture_corpus_free(paths, shipped);
	cr_assert_geq(shipped, 113);
	snprintf(path, sizeof(path), "%s/sample.img.gz", fixture_testdata());
	copy_into(tmpl, "zz_added.img.gz", path);
	copy_into(tmpl, "f_extents.img.gz", path);
	setenv("E2MAP_CORPUS", tmpl, 1);
	n = fixture_corpus_list(&paths);
	for (i = 0; i < n; i++)
		extra += !strncmp(paths[i], tmpl, strlen(tmpl));
	fixture_corpus_free(paths, n);
	cr_expect_eq(n, shipped + 1);
	cr_expect_eq(extra, 1, "%d images taken from %s", extra, tmpl);
	cr_expect_eq(fixture_corpus_find("f_extents", path, sizeof(path)), 0);
	cr_expect(!strncmp(path, fixture_testdata(), strlen(fixture_testdata())),
		  "f_extents taken from %s", path);
	snprintf(path, sizeof(path), "%s/zz_added.img.gz", tmpl);
	unlink(path);
	snprintf(path, sizeof(path), "%s/f_extents.img.gz", tmpl);
	unlink(path);
	rmdir(tmpl);
	setenv("E2MAP_CORPUS", "/nonexistent/e2map-corpus", 1);
	fixture_corpus_dirs(dirs, 16, &missing);
	cr_expect(missing && !strcmp(missing, "/nonexistent/e2map-corpus"));
	cr_expect_eq(fixture_corpus_list(&paths), -1);
}

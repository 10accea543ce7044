/*
 * Every image of the e2fsprogs corpus (../shared/corpus/e2fsprogs, mostly
 * corrupted on purpose) goes through `e2map check`: it must either open
 * and exit 0 (1 when an inode has an error) or refuse with one line and
 * exit 1, within 10 s, with no
 * sanitizer report (the sanitizer build runs this same test), and leave
 * the image's bytes unchanged, read from a file with no write permission.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fixture.h"

static const char *corpus_dir(void)
{
	const char *d = getenv("E2MAP_CORPUS");

	return d && *d ? d : "../shared/corpus/e2fsprogs";
}

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
	char path[4096];
	struct dirent *de;
	int seen = 0, bad = 0;
	DIR *d;

	cr_assert(e2map, "E2MAP is not set (run through make check)");
	if (!strcmp(corpus_dir(), "none"))
		cr_skip_test("E2MAP_CORPUS=none");
	d = opendir(corpus_dir());
	cr_assert(d, "no corpus at %s (set E2MAP_CORPUS)", corpus_dir());
	while ((de = readdir(d)) != NULL) {
		if (!strstr(de->d_name, ".img."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus_dir(), de->d_name);
		check_image(e2map, path, &bad);
		seen++;
	}
	closedir(d);
	cr_expect_gt(seen, 100, "only %d corpus images found", seen);
	cr_expect_eq(bad, 0, "%d of %d images failed", bad, seen);
}

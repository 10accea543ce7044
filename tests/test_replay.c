/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replay every kernel recording in testdata/ (E2MAP_TESTDATA overrides):
 * NAME.calls through libe2map, line by line, and NAME.golden through the
 * CLI ($E2MAP), byte by byte, on a scratch copy of NAME.img.gz whose sha256
 * must not change.  The expectations are the kernel's (scripts/record/record.sh).
 * A .calls file may carry "# e2map-options: OPTS" for e2map_open.
 *
 * testdata/corpus/NAME.calls are kernel recordings of the e2fsprogs test
 * images; the image itself, NAME.img.gz or NAME.img.bz2, comes from
 * testdata/corpus/e2fsprogs (shipped), or from a directory $E2MAP_CORPUS
 * or ../shared adds (fixture_corpus_dirs), and must have the sha256 the
 * recording names.  A missing image fails.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calls.h"
#include "fixture.h"

struct replay_image {
	char name[256];		/* NAME of NAME.calls; "" = none found */
	char dir[1024];
};

static const char *testdata_dir(void)
{
	const char *d = getenv("E2MAP_TESTDATA");

	return d && *d ? d : "testdata";
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_images(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

/*
 * One parameter per DIR/NAME.calls (or .calls.gz), sorted by name.  No recordings at all
 * is a failure, not a pass: then one empty entry, which the test refuses.
 */
static struct criterion_test_params recordings(const char *dir)
{
	struct replay_image *imgs;
	char **names = NULL;
	size_t n = 0, i;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)) != NULL) {
		char *dot = strstr(de->d_name, ".calls");

		if (!dot || (strcmp(dot, ".calls") && strcmp(dot, ".calls.gz")) ||
		    (size_t)(dot - de->d_name) >= sizeof(imgs->name))
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strndup(de->d_name, dot - de->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	imgs = cr_calloc(n ? n : 1, sizeof(*imgs));
	for (i = 0; i < n; i++) {
		snprintf(imgs[i].name, sizeof(imgs[i].name), "%s", names[i]);
		free(names[i]);
	}
	free(names);
	for (i = 0; i < (n ? n : 1); i++)
		snprintf(imgs[i].dir, sizeof(imgs[i].dir), "%s", dir);
	return cr_make_param_array(struct replay_image, imgs, n ? n : 1,
				   free_images);
}

ParameterizedTestParameters(replay, image)
{
	return recordings(testdata_dir());
}

/* "# e2map-options: OPTS" from the recording, or NULL. */
static char *recorded_options(const char *text)
{
	const char *key = "# e2map-options:", *p = strstr(text, key);
	size_t n;

	if (!p || (p != text && p[-1] != '\n'))
		return NULL;
	p += strlen(key);
	while (*p == ' ')
		p++;
	n = strcspn(p, "\r\n");
	return n ? strndup(p, n) : NULL;
}

static void replay_calls(const struct replay_image *ri, const char *img)
{
	struct calls_backend *b = NULL;
	struct calls_buf rep = { 0 };
	char path[2048], *text, *opts;
	int err, r;

	snprintf(path, sizeof(path), "%s/%s.calls", ri->dir, ri->name);
	text = calls_read_file(path, NULL);
	cr_assert(text, "%s: %s", path, strerror(errno));
	opts = recorded_options(text);
	err = calls_e2map_new(img, opts, &b);
	cr_assert(err == 0, "%s: e2map_open(%s) failed: %s", path,
		  opts ? opts : "NULL", calls_errname(err));
	r = calls_replay(b, path, text, &rep, 5);
	cr_expect(r == 0, "%s differs from the kernel:\n%s", path,
		  rep.s ? rep.s : "");
	calls_backend_free(b);
	calls_buf_free(&rep);
	free(opts);
	free(text);
}

static void replay_golden(const struct replay_image *ri, const char *img)
{
	struct calls_buf rep = { 0 };
	const char *e2map = getenv("E2MAP");
	char path[2048], *text;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s.golden", ri->dir, ri->name);
	text = calls_read_file(path, &len);
	if (!text)
		return;		/* goldens are optional per image */
	cr_assert(e2map && *e2map, "E2MAP (path of the CLI) is not set");
	r = calls_golden_replay(e2map, img, path, text, len, &rep, 5);
	cr_expect(r == 0, "%s differs from the kernel tools:\n%s", path,
		  rep.s ? rep.s : "");
	calls_buf_free(&rep);
	free(text);
}

static char *img;

static void remove_scratch(void)
{
	fixture_remove(img);
	img = NULL;
}

ParameterizedTest(struct replay_image *ri, replay, image, .timeout = 600,
		  .fini = remove_scratch)
{
	char src[2048], before[65], after[65];

	cr_assert(ri->name[0], "no recordings: %s/*.calls not found "
		  "(set E2MAP_TESTDATA or record with scripts/record/record.sh)",
		  ri->dir);
	cr_log_info("replay: %s/%s", ri->dir, ri->name);
	snprintf(src, sizeof(src), "%s/%s.img.gz", ri->dir, ri->name);
	img = fixture_decompress(src);
	cr_assert(img, "%s: no image %s to go with the .calls", ri->name, src);
	cr_assert(fixture_sha256(img, before) == 0, "sha256sum %s failed", img);
	replay_calls(ri, img);
	replay_golden(ri, img);
	cr_expect(fixture_sha256(img, after) == 0 && strcmp(before, after) == 0,
		  "%s: the image changed during the replay", ri->name);
}

/* ---- the e2fsprogs corpus (testdata/corpus) ---- */

ParameterizedTestParameters(replay, corpus)
{
	static char dir[1024];

	snprintf(dir, sizeof(dir), "%s/corpus", testdata_dir());
	return recordings(dir);
}

/* The "# image: NAME.img sha256 HEX" line of a recording, or NULL. */
static char *recorded_sha(const char *text)
{
	const char *p = strstr(text, "# image: ");
	const char *q;

	if (!p || !(q = strstr(p, " sha256 ")) || memchr(p, '\n', q - p))
		return NULL;
	q += 8;
	return strspn(q, "0123456789abcdef") == 64 ? strndup(q, 64) : NULL;
}

static char *corpus_img;

static void remove_corpus_scratch(void)
{
	fixture_remove(corpus_img);
	corpus_img = NULL;
}

ParameterizedTest(struct replay_image *ri, replay, corpus, .timeout = 600,
		  .fini = remove_corpus_scratch)
{
	char src[2048], path[2048], before[65], after[65];
	char *text, *want;

	cr_assert(ri->name[0], "no recordings: %s/*.calls not found", ri->dir);
	cr_assert(fixture_corpus_find(ri->name, src, sizeof(src)) == 0,
		  "%s: no image %s.img.gz or .img.bz2 in %s/e2fsprogs or the "
		  "directories E2MAP_CORPUS adds", ri->name, ri->name, ri->dir);
	cr_log_info("replay: %s against %s", ri->name, src);
	corpus_img = fixture_decompress(src);
	cr_assert(corpus_img, "cannot decompress %s", src);
	snprintf(path, sizeof(path), "%s/%s.calls", ri->dir, ri->name);
	text = calls_read_file(path, NULL);
	cr_assert(text, "%s: %s", path, strerror(errno));
	want = recorded_sha(text);
	free(text);
	cr_assert(fixture_sha256(corpus_img, before) == 0, "sha256sum failed");
	cr_assert(want && !strcmp(want, before), "%s: the corpus image is "
		  "not the one recorded (sha256 %s, recorded %s)", ri->name,
		  before, want ? want : "none");
	free(want);
	replay_calls(ri, corpus_img);
	cr_expect(fixture_sha256(corpus_img, after) == 0 &&
		  !strcmp(before, after), "%s: the image changed during the "
		  "replay", ri->name);
}

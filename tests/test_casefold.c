/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lookups in casefolded directories: every testdata/NAME.lookups[.gz] (by
 * scripts/gen/mkcasefold.sh, from the kernel where it has CONFIG_UNICODE, else
 * from debugfs listings and the kernel's casefold rule, never from e2map)
 * is replayed on testdata/NAME.img.gz: each "PATH = INODE" must open that
 * inode, each "PATH = -ERRNO" must fail with that errno, and the image's
 * bytes must not change.  PATH is escaped as in .calls files (\xNN).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <e2map.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "fixture.h"

struct lookups {
	char name[256];		/* NAME of NAME.lookups; "" = none found */
};

static void free_params(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

ParameterizedTestParameters(casefold, lookups)
{
	struct lookups *v = NULL;
	size_t n = 0, i;
	DIR *d = opendir(fixture_testdata());
	struct dirent *de;
	char names[64][256];

	while (d && (de = readdir(d)) != NULL && n < 64) {
		char *dot = strstr(de->d_name, ".lookups");

		if (dot && (!strcmp(dot, ".lookups") ||
			    !strcmp(dot, ".lookups.gz")) &&
		    (size_t)(dot - de->d_name) < sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%.*s",
				 (int)(dot - de->d_name), de->d_name);
	}
	if (d)
		closedir(d);
	v = cr_calloc(n ? n : 1, sizeof(*v));
	for (i = 0; i < n; i++)
		memcpy(v[i].name, names[i], sizeof(v[i].name));
	return cr_make_param_array(struct lookups, v, n ? n : 1, free_params);
}

/* What e2map answers for PATH, in the file's notation: "INO" or "-ENAME". */
static void answer(e2map_t *m, const char *path, char *out, size_t len)
{
	e2map_file_t *f = NULL;
	struct e2map_stat st = E2MAP_STAT_INIT;
	int err = e2map_file_open(m, path, &f);

	if (err == 0 && (err = e2map_file_stat(f, &st)) == 0)
		snprintf(out, len, "%llu", (unsigned long long)st.ino);
	else
		snprintf(out, len, "-%s", calls_errname(err));
	e2map_file_close(f);
}

/* One line: 1 and a difference in REP, 0 when equal, -1 if malformed. */
static int check_line(e2map_t *m, const char *line, struct calls_buf *rep)
{
	const char *eq = strstr(line, " = ");
	char buf[CALLS_PATH_MAX + 16], err[128], got[64];
	struct calls_call c;

	if (!eq || strlen(line) >= CALLS_PATH_MAX)
		return -1;
	snprintf(buf, sizeof(buf), "open %.*s", (int)(eq - line), line);
	if (calls_parse(buf, &c, err, sizeof(err)) != 1)
		return -1;
	answer(m, c.path, got, sizeof(got));
	if (!strcmp(got, eq + 3))
		return 0;
	calls_buf_add(rep, "  %s: expected %s, got %s\n", line, eq + 3, got);
	return 1;
}

static int check_all(e2map_t *m, char *text, struct calls_buf *rep)
{
	char *save = NULL, *line;
	int bad = 0, r;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !line[0])
			continue;
		r = check_line(m, line, rep);
		cr_assert(r >= 0, "malformed line: %s", line);
		bad += r;
	}
	return bad;
}

static char *img;

static void remove_scratch(void)
{
	fixture_remove(img);
	img = NULL;
}

ParameterizedTest(struct lookups *l, casefold, lookups, .timeout = 300,
		  .fini = remove_scratch)
{
	struct calls_buf rep = { 0 };
	char path[2048], *text, before[65], after[65];
	e2map_t *m = NULL;
	int bad;

	cr_assert(l->name[0], "no %s/*.lookups (scripts/gen/mkcasefold.sh)",
		  fixture_testdata());
	img = fixture_image(l->name);
	cr_assert(img, "%s: no image %s.img.gz", l->name, l->name);
	snprintf(path, sizeof(path), "%s/%s.lookups", fixture_testdata(),
		 l->name);
	cr_assert((text = calls_read_file(path, NULL)), "cannot read %s", path);
	cr_assert(fixture_sha256(img, before) == 0, "sha256sum %s failed", img);
	cr_assert(e2map_open(img, NULL, &m) == 0, "e2map_open %s: %s", l->name,
		  e2map_errmsg(NULL));
	bad = check_all(m, text, &rep);
	cr_expect(bad == 0, "%s: %d lookups differ:\n%.4000s", l->name, bad,
		  rep.s ? rep.s : "");
	e2map_close(m);
	cr_expect(fixture_sha256(img, after) == 0 && !strcmp(before, after),
		  "%s: the image changed", l->name);
	calls_buf_free(&rep);
	free(text);
}

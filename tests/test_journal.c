/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_open(..., "replay") on the e2fsprogs corpus's dirty journals
 * against the kernel (scripts/record/replay.sh): testdata/journal/
 * NAME.calls.gz are the answers after a read-write mount of a copy, and
 * NAME.refused the errno of a mount the kernel refuses, which e2map must
 * return too.  The same for testdata/NAME.refused beside NAME.img.gz (the
 * dirty images of scripts/gen/mkdirty.sh whose replay the kernel refuses).
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "fixture.h"
#include "e2map.h"

static void replay_one(const char *name)
{
	char src[2048], path[2048], *img, *text;
	struct calls_backend *b = NULL;
	struct calls_buf rep = { 0 };
	char before[65], after[65];
	int r;

	cr_assert(fixture_corpus_find(name, src, sizeof(src)) == 0, "%s", name);
	img = fixture_decompress(src);
	cr_assert(img);
	cr_assert(fixture_sha256(img, before) == 0);
	snprintf(path, sizeof(path), "%s/journal/%s.calls", fixture_testdata(),
		 name);
	text = calls_read_file(path, NULL);
	cr_assert(text, "%s", path);
	cr_assert(strstr(text, before), "%s: not the image recorded", name);
	cr_assert(calls_e2map_new(img, "replay", &b) == 0, "%s: %s", name,
		  e2map_errmsg(NULL));
	r = calls_replay(b, path, text, &rep, 5);
	cr_expect(r == 0, "%s differs from the kernel:\n%s", name,
		  rep.s ? rep.s : "");
	calls_backend_free(b);
	calls_buf_free(&rep);
	free(text);
	cr_expect(fixture_sha256(img, after) == 0 && !strcmp(before, after));
	fixture_remove(img);
}

static void refused(const char *name, int want)
{
	char src[2048], *img;
	e2map_t *m = NULL;
	int err;

	cr_assert(fixture_corpus_find(name, src, sizeof(src)) == 0, "%s", name);
	img = fixture_decompress(src);
	cr_assert(img);
	err = e2map_open(img, "replay", &m);
	cr_expect(err == want, "%s: e2map_open = %d, the kernel's mount %d (%s)",
		  name, err, want, e2map_errmsg(NULL));
	e2map_close(m);
	fixture_remove(img);
}

Test(journal, descr_tid_ends_the_log_as_the_kernel)
{
	replay_one("j_corrupt_descr_tid");
}

Test(journal, bad_revoke_csum_is_stale_as_the_kernel)
{
	replay_one("j_corrupt_revoke_csum");
}

Test(journal, jnl_32bit_and_64bit_replay_as_the_kernel)
{
	replay_one("f_jnl_32bit");
	replay_one("f_jnl_64bit");
}

Test(journal, orphan_file_image_as_the_kernel)
{
	replay_one("f_clear_orphan_file");
}

Test(journal, bad_commit_csum_fails_as_the_mount)
{
	refused("j_corrupt_commit_csum", -EUCLEAN);
}

Test(journal, bad_revoke_count_fails_as_the_mount)
{
	refused("j_corrupt_revoke_block", -EINVAL);
}

Test(journal, unallocated_journal_inode_fails_as_the_mount)
{
	refused("f_journal", -EUCLEAN);
}

Test(journal, fast_commits_replay_as_the_kernel)
{
	replay_one("j_recover_fast_commit");
}

static int errno_named(const char *name)
{
	static const struct { const char *name; int err; } names[] = {
		{ "EBADMSG", EBADMSG }, { "EUCLEAN", EUCLEAN },
		{ "EINVAL", EINVAL }, { "EIO", EIO },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name))
			return -names[i].err;
	return 0;
}

/* testdata/NAME.refused: e2map_open(NAME.img.gz, "replay") fails so. */
static void refused_testdata(const char *dir, const char *name)
{
	char path[2048], want[32] = "", *img;
	e2map_t *m = NULL;
	FILE *f;
	int err, expect;

	snprintf(path, sizeof(path), "%s/%s.refused", dir, name);
	f = fopen(path, "r");
	cr_assert(f, "%s", path);
	cr_assert(fscanf(f, "%31s", want) == 1, "%s: empty", path);
	fclose(f);
	expect = errno_named(want);
	cr_assert(expect, "%s: unknown errno %s", path, want);
	snprintf(path, sizeof(path), "%s/%s.img.gz", dir, name);
	img = fixture_decompress(path);
	cr_assert(img, "%s", path);
	err = e2map_open(img, "replay", &m);
	cr_expect(err == expect, "%s: e2map_open = %d, the kernel's mount %s "
		  "(%s)", name, err, want, e2map_errmsg(NULL));
	e2map_close(m);
	fixture_remove(img);
}

Test(journal, testdata_refusals_as_the_kernel)
{
	const char *dir = fixture_testdata();
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	cr_assert(d, "%s", dir);
	while ((e = readdir(d))) {
		char name[256];
		size_t len = strlen(e->d_name);

		if (len <= 8 || len - 8 >= sizeof(name) ||
		    strcmp(e->d_name + len - 8, ".refused"))
			continue;
		memcpy(name, e->d_name, len - 8);
		name[len - 8] = 0;
		refused_testdata(dir, name);
		n++;
	}
	closedir(d);
	cr_expect(n > 0, "no NAME.refused in %s", dir);
}

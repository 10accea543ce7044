/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_check_all and e2map_scan_records on several threads answer
 * exactly what one thread answers: the same inodes, in the same order,
 * with the same errno, detail and record, on the kernel-made testdata
 * images with faults and on every image of the e2fsprogs corpus; a
 * callback's stop is returned.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <e2map.h>

#include "fixture.h"

/* One line per inode: "INO ERR DETAIL". */
struct transcript {
	char *text;
	size_t len, cap;
	size_t calls;
	size_t stop_at;		/* 0: never stop */
};

static void say(struct transcript *t, const char *line)
{
	size_t n = strlen(line);

	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		cr_assert(t->text = realloc(t->text, t->cap));
	}
	memcpy(t->text + t->len, line, n + 1);
	t->len += n;
}

static int note(e2map_t *m, const struct e2map_inode *in, int err,
		const char *detail, void *payload)
{
	struct transcript *t = payload;
	char line[512];

	(void)m;
	snprintf(line, sizeof(line), "%llu %d %s\n",
		 (unsigned long long)in->ino, err, detail);
	say(t, line);
	if (t->stop_at && ++t->calls == t->stop_at)
		return 42;
	return 0;
}

/* What one thread answers, the plain way: e2map_scan + e2map_inode_check. */
static int note_serial(e2map_t *m, const struct e2map_inode *in, void *payload)
{
	struct e2map_check_stats st = E2MAP_CHECK_STATS_INIT;
	int err = in->err ? in->err : e2map_inode_check(m, in->ino, &st);

	return note(m, in, err, err ? e2map_errmsg(m) : "", payload);
}

/* Every field of a scan record, and its detail. */
static int note_record(const struct e2map_record *r, const char *detail,
		       void *payload)
{
	const struct e2map_stat *st = &r->st;
	char line[768];

	snprintf(line, sizeof(line), "%llu %d %x %o %u %u %u %llu %llu %llu "
		 "%lld.%u %lld.%u %lld.%u %lld.%u %x | %llu %llu %llu %llu "
		 "%llu %llu %llu %s\n", (unsigned long long)r->ino, r->err,
		 r->flags, st->mode, st->nlink, st->uid, st->gid,
		 (unsigned long long)st->size, (unsigned long long)st->blocks,
		 (unsigned long long)st->rdev, (long long)st->atime.sec,
		 st->atime.nsec, (long long)st->mtime.sec, st->mtime.nsec,
		 (long long)st->ctime.sec, st->ctime.nsec,
		 (long long)st->crtime.sec, st->crtime.nsec, st->mask,
		 (unsigned long long)r->written,
		 (unsigned long long)r->unwritten,
		 (unsigned long long)r->holes, (unsigned long long)r->past_eof,
		 (unsigned long long)r->meta_blocks,
		 (unsigned long long)r->extents,
		 (unsigned long long)r->fiemap_extents, detail);
	say(payload, line);
	return 0;
}

/* MODE 'c': check; 'r': scan records.  THREADS < 0: the plain way. */
static char *transcript_of(const char *img, char mode, int threads,
			   int *status)
{
	struct transcript t = { 0 };
	e2map_t *m;

	say(&t, "");
	*status = e2map_open(img, NULL, &m);
	if (*status < 0)
		return t.text;
	if (mode == 'r')
		*status = e2map_scan_records(m, threads < 0 ? 1 :
					     (unsigned)threads, note_record, &t);
	else
		*status = threads < 0 ? e2map_scan(m, note_serial, &t)
				      : e2map_check_all(m, (unsigned)threads,
							note, &t);
	e2map_close(m);
	return t.text;
}

static void same_answers(const char *img, const char *name)
{
	for (const char *mode = "cr"; *mode; mode++) {
		int s0, s;
		char *want = transcript_of(img, *mode, -1, &s0);

		for (int threads = 1; threads <= 5; threads += 2) {
			char *got = transcript_of(img, *mode, threads, &s);

			cr_expect_eq(s, s0, "%s, %c, %d threads: status %d, "
				     "not %d", name, *mode, threads, s, s0);
			cr_expect_str_eq(got, want, "%s, %c, %d threads differ",
					 name, *mode, threads);
			free(got);
		}
		free(want);
	}
}

Test(checkall, threads_answer_as_one_on_faulty_testdata)
{
	const char *names[] = { "corrupt-4k", "crafted-4k", "ext4-ea_inode",
				"zone-meta", "zone-1k-flex", "ext4-bigalloc",
				"linear-1k", "special-1k" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		char *img = fixture_image(names[i]);

		cr_assert(img, "cannot unpack testdata/%s.img.gz", names[i]);
		same_answers(img, names[i]);
		fixture_remove(img);
	}
}

Test(checkall, threads_answer_as_one_on_the_corpus, .timeout = 300)
{
	char **paths;
	int n = fixture_corpus_list(&paths);

	cr_assert_geq(n, 113);
	for (int i = 0; i < n; i++) {
		char *img = fixture_decompress(paths[i]);

		cr_assert(img, "cannot unpack %s", paths[i]);
		same_answers(img, paths[i]);
		fixture_remove(img);
	}
	fixture_corpus_free(paths, n);
}

/* A callback's non-zero return ends the check, workers and all. */
Test(checkall, a_callbacks_stop_is_returned)
{
	char *img = fixture_image("ext4-4k");
	struct transcript t = { .stop_at = 17 };
	e2map_t *m;

	cr_assert(img);
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	say(&t, "");
	cr_expect_eq(e2map_check_all(m, 2, note, &t), 42);
	cr_expect_eq(t.calls, 17);
	cr_expect_eq(e2map_check_all(NULL, 2, note, &t), -EINVAL);
	cr_expect_eq(e2map_check_all(m, 2, NULL, NULL), -EINVAL);
	e2map_close(m);
	free(t.text);
	fixture_remove(img);
}

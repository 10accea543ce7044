/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_read and `e2map cat` against read(2) on the kernel's mount, as
 * recorded by scripts/record-read.sh: for every path of every testdata
 * image and every mounted corpus image, the same open error, or the same
 * bytes (sha256) up to the same end, and the same errno where the read
 * failed; read in calls of 4 KiB and of 128 KiB (cat's), each size on a
 * fresh handle as the recorder used a fresh mount.  Where the kernel's
 * readahead put a failing block inside a large folio, the kernel stops
 * at that folio and e2map at the block's page: the only difference
 * allowed, and only for 128 KiB calls (see e2map.h).
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../cmd/cmd.h"
#include "calls.h"
#include "cli_run.h"
#include "fixture.h"
#include "sha256.h"

#define FOLIO_MAX (128U << 10)	/* the largest folio readahead made here */
#define ARGS_MAX 400		/* paths per `e2map cat` run */

/* One "run SIZE START BYTES ERRNO SHA256" record. */
struct run {
	size_t size;
	long long start, bytes;
	char err[32], sha[65];
};

/* One path's records: an open error, or its runs. */
struct rec {
	const char *path;
	char open_err[32];
	struct run runs[4];
	int nruns;
};

struct recording {
	char *text;
	size_t len, at;
};

static int errno_of(const char *name)
{
	int e;

	for (e = 1; e < 200; e++)
		if (!strcmp(calls_errname(e), name))
			return e;
	cr_assert_fail("unknown errno name %s", name);
	return 0;
}

static const char *next_field(struct recording *r)
{
	const char *s = r->text + r->at;

	if (r->at >= r->len)
		return NULL;
	r->at += strlen(s) + 1;
	return s;
}

/* The next path's records into REC; false at the end. */
static bool next_rec(struct recording *r, struct rec *rec)
{
	const char *s;

	memset(rec, 0, sizeof(*rec));
	if (!(rec->path = next_field(r)))
		return false;
	cr_assert(rec->path[0] == '/', "bad record %s", rec->path);
	while (r->at < r->len && r->text[r->at] != '/') {
		struct run *u = &rec->runs[rec->nruns];

		s = next_field(r);
		if (sscanf(s, "open %31s", rec->open_err) == 1)
			continue;
		cr_assert(rec->nruns < 4 && sscanf(s, "run %zu %lld %lld %31s "
			  "%64s", &u->size, &u->start, &u->bytes, u->err,
			  u->sha) == 5, "bad record %s", s);
		rec->nruns++;
	}
	return true;
}

static void open_recording(struct recording *r, const char *dir,
			   const char *name)
{
	char path[4096];
	const char *head;

	snprintf(path, sizeof(path), "%s/%s.read", dir, name);
	cr_assert((r->text = calls_read_file(path, &r->len)), "no %s(.gz)",
		  path);
	r->at = 0;
	head = next_field(r);
	cr_assert(!strncmp(head, "e2map-read 2 ", 13), "%s: bad header", path);
}

/* Read F as the recorder read it: calls of U->SIZE from U->START. */
static void read_run(e2map_file_t *f, const struct run *u, struct run *got)
{
	unsigned char *buf = malloc(u->size);
	bool cut = !strcmp(u->err, "CUT");
	struct sha256 h;
	int64_t n = 0;

	cr_assert(buf);
	*got = *u;
	got->bytes = 0;
	sha256_init(&h);
	if (u->start)
		cr_assert_eq(e2map_lseek(f, u->start, E2MAP_SEEK_SET), u->start);
	for (;;) {
		size_t want = u->size;

		if (cut && got->bytes >= u->bytes)
			break;
		if (cut && (long long)want > u->bytes - got->bytes)
			want = (size_t)(u->bytes - got->bytes);
		if ((n = e2map_read(f, buf, want)) <= 0)
			break;
		sha256_update(&h, buf, (size_t)n);
		got->bytes += n;
	}
	snprintf(got->err, sizeof(got->err), "%s", n < 0 ?
		 calls_errname((int)-n) : cut && n > 0 ? "CUT" : "0");
	sha256_final(&h, got->sha);
	free(buf);
}

static bool same_run(const struct run *a, const struct run *b)
{
	return a->bytes == b->bytes && !strcmp(a->err, b->err) &&
	       !strcmp(a->sha, b->sha);
}

/* The kernel stopped at the start of a large folio, e2map at its page. */
static bool folio_early(const struct run *want, const struct run *got)
{
	return want->size > 32768 && !strcmp(want->err, got->err) &&
	       strcmp(want->err, "0") && strcmp(want->err, "CUT") &&
	       got->bytes > want->bytes &&
	       got->bytes - want->bytes < (long long)FOLIO_MAX;
}

struct tally {
	int paths, runs, bad, folio, devices;
	struct calls_buf report;
};

/*
 * A device node the host has a driver for (a corpus image's /dev/null):
 * the kernel opens the host's device, e2map never does (ENXIO).
 */
static bool host_device(e2map_t *m, const char *path)
{
	struct e2map_stat st;

	return e2map_stat(m, path, &st) == 0 &&
	       (S_ISCHR(st.mode) || S_ISBLK(st.mode));
}

static void check_rec(e2map_t *m, const struct rec *rec, struct tally *t)
{
	e2map_file_t *f = NULL;
	struct run got;
	int i, err;

	t->paths++;
	if (rec->open_err[0]) {
		err = e2map_file_open(m, rec->path, &f);
		e2map_file_close(f);
		if (err != -errno_of(rec->open_err) && t->bad++ < 10)
			calls_buf_add(&t->report, "%s: open %d, kernel -%s\n",
				      rec->path, err, rec->open_err);
		return;
	}
	for (i = 0; i < rec->nruns; i++) {
		const struct run *u = &rec->runs[i];

		if (u->start == 0) {
			e2map_file_close(f);
			if ((err = e2map_file_open(m, rec->path, &f)) < 0) {
				if (host_device(m, rec->path)) {
					t->devices++;
					return;
				}
				if (t->bad++ < 10)
					calls_buf_add(&t->report, "%s: open "
						      "%d, kernel 0\n",
						      rec->path, err);
				return;
			}
		}
		read_run(f, u, &got);
		t->runs++;
		if (same_run(u, &got))
			continue;
		if (folio_early(u, &got)) {
			t->folio++;
			continue;
		}
		if (t->bad++ < 10)
			calls_buf_add(&t->report, "%s: read(%zu) from %lld: "
				      "%lld bytes %s, kernel %lld bytes %s%s\n",
				      rec->path, u->size, u->start, got.bytes,
				      got.err, u->bytes, u->err,
				      strcmp(got.sha, u->sha) ? " (bytes differ)" : "");
	}
	e2map_file_close(f);
}

static void replay_lib(const char *img, const char *dir, const char *name)
{
	struct tally t = { 0 };
	struct recording r;
	struct rec rec;
	e2map_t *m;

	open_recording(&r, dir, name);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", e2map_errmsg(NULL));
	while (next_rec(&r, &rec))
		check_rec(m, &rec, &t);
	e2map_close(m);
	cr_assert_gt(t.paths, 0);
	cr_expect_eq(t.bad, 0, "%s: %d of %d reads differ:\n%s", name, t.bad,
		     t.runs, t.report.s ? t.report.s : "");
	if (t.folio || t.devices)
		cr_log_info("%s: %d reads stopped a folio earlier on the "
			    "kernel; %d host devices not opened", name, t.folio,
			    t.devices);
	calls_buf_free(&t.report);
	free(r.text);
}

/* --- `e2map cat` over all paths at once ----------------------------- */

/* cat's message for PATH failing with errno NAME. */
static void cat_message(struct calls_buf *b, const char *path,
			const char *name)
{
	char *s = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&s, &n);

	cr_assert(mem);
	fputs("cat: ", mem);
	cmd_put_quoted(mem, path, strlen(path), false, true);
	fprintf(mem, ": %s\n", strerror(errno_of(name)));
	fclose(mem);
	calls_buf_addn(b, s, n);
	free(s);
}

/* The run cat's output is held to: cat's own size unless it stopped a
 * folio early (then the page-granular 4 KiB one). */
static const struct run *cat_run(const struct rec *rec)
{
	const struct run *small = NULL, *big = NULL;
	int i;

	for (i = 0; i < rec->nruns; i++) {
		if (rec->runs[i].start)
			return NULL;	/* cut: too big to print */
		if (rec->runs[i].size == 4096)
			small = &rec->runs[i];
		else
			big = &rec->runs[i];
	}
	if (big && !strcmp(big->err, "0"))
		return big;
	return small;
}

struct batch {
	const char *argv[ARGS_MAX + 4];
	const struct run *runs[ARGS_MAX];
	int n;
	struct calls_buf err;
	bool failed;
};

/* The chunk of stdout each path's bytes must fill, in order. */
static int check_out(const struct batch *b, const struct cli_out *r)
{
	size_t pos = 0;
	int i, bad = 0;

	for (i = 0; i < b->n; i++) {
		const struct run *u = b->runs[i];
		struct sha256 h;
		char hex[65];

		if (!u)
			continue;
		if (pos + (size_t)u->bytes > r->out_len)
			return bad + 1;
		sha256_init(&h);
		sha256_update(&h, r->out + pos, (size_t)u->bytes);
		sha256_final(&h, hex);
		if (strcmp(hex, u->sha)) {
			cr_log_error("cat: %s: bytes differ", b->argv[i + 2]);
			bad++;
		}
		pos += (size_t)u->bytes;
	}
	return bad + (pos != r->out_len);
}

/* cat's messages: after e2map's own warning (a journal to recover). */
static const char *messages(const struct cli_out *r, size_t *len)
{
	const char *s = r->err, *nl;

	*len = r->err_len;
	if (!strncmp(s, "e2map: warning: ", 16) && (nl = strchr(s, '\n'))) {
		*len -= (size_t)(nl + 1 - s);
		s = nl + 1;
	}
	return s;
}

static void run_batch(struct batch *b, const char *img)
{
	const char *err;
	struct cli_out r;
	size_t len;

	if (!b->n)
		return;
	b->argv[0] = "cat";
	b->argv[1] = img;
	b->argv[b->n + 2] = NULL;
	cr_assert_eq(cli_run(b->argv, &r), 0, "cannot run $E2MAP");
	cr_expect_eq(check_out(b, &r), 0, "cat: %zu bytes out", r.out_len);
	err = messages(&r, &len);
	cr_expect(len == b->err.len && !memcmp(err, b->err.s ? b->err.s : "",
					       len),
		  "cat's messages differ:\n%s\nkernel:\n%s", err,
		  b->err.s ? b->err.s : "");
	cr_expect_eq(r.status, b->failed ? 1 : 0);
	cli_out_free(&r);
	calls_buf_free(&b->err);
	memset(b, 0, sizeof(*b));
}

static void add_to_batch(struct batch *b, e2map_t *m, const struct rec *rec)
{
	const struct run *u = rec->open_err[0] ? NULL : cat_run(rec);

	if ((!rec->open_err[0] && !u) || host_device(m, rec->path))
		return;
	b->argv[b->n + 2] = rec->path;
	b->runs[b->n++] = u;
	if (rec->open_err[0] || strcmp(u->err, "0")) {
		cat_message(&b->err, rec->path, rec->open_err[0] ?
			    rec->open_err : u->err);
		b->failed = true;
	}
}

static void replay_cli(const char *img, const char *dir, const char *name)
{
	struct batch *b = calloc(1, sizeof(*b));
	struct recording r;
	struct rec *recs = NULL;
	size_t n = 0, i;
	e2map_t *m;

	cr_assert(b);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", e2map_errmsg(NULL));
	open_recording(&r, dir, name);
	for (;;) {
		recs = realloc(recs, (n + 1) * sizeof(*recs));
		cr_assert(recs);
		if (!next_rec(&r, &recs[n]))
			break;
		n++;
	}
	for (i = 0; i < n; i++) {
		if (b->n == ARGS_MAX)
			run_batch(b, img);
		add_to_batch(b, m, &recs[i]);
	}
	run_batch(b, img);
	e2map_close(m);
	free(recs);
	free(r.text);
	free(b);
}

static void testdata(const char *name, bool cli)
{
	char *img = fixture_image(name);

	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
	replay_lib(img, fixture_testdata(), name);
	if (cli)
		replay_cli(img, fixture_testdata(), name);
	fixture_remove(img);
}

TestSuite(read, .timeout = 300);

#define IMAGE(test, name) \
	Test(read, test) { testdata(name, true); }
IMAGE(corrupt_4k, "corrupt-4k")
IMAGE(crafted_4k, "crafted-4k")
IMAGE(ext2_1k, "ext2-1k")
IMAGE(ext2_4k, "ext2-4k")
IMAGE(ext3_1k, "ext3-1k")
IMAGE(ext3_2k, "ext3-2k")
IMAGE(ext4_1k, "ext4-1k")
IMAGE(ext4_2k, "ext4-2k")
IMAGE(ext4_4k, "ext4-4k")
IMAGE(ext4_bigalloc, "ext4-bigalloc")
IMAGE(ext4_deep, "ext4-deep")
IMAGE(ext4_ea_inode, "ext4-ea_inode")
IMAGE(ext4_inline, "ext4-inline")
IMAGE(ext4_links, "ext4-links")
IMAGE(ext4_mixed, "ext4-mixed")
IMAGE(ext4_names, "ext4-names")
IMAGE(ext4_no64bit_nocsum, "ext4-no64bit-nocsum")
IMAGE(ext4_noextents, "ext4-noextents")
IMAGE(ext4_nohuge, "ext4-nohuge")
IMAGE(ext4_nohuge_1k, "ext4-nohuge-1k")
IMAGE(hash_neither_1k, "hash-neither-1k")
IMAGE(hash_signed_1k, "hash-signed-1k")
IMAGE(linear_1k, "linear-1k")
IMAGE(linear_nocsum_1k, "linear-nocsum-1k")
IMAGE(mount_bbitmap_in_itable, "mount-bbitmap-in-itable")
IMAGE(mount_itable_moved, "mount-itable-moved")
IMAGE(readdir_1k, "readdir-1k")
IMAGE(readdir_nocsum_1k, "readdir-nocsum-1k")
IMAGE(sample, "sample")
IMAGE(special_1k, "special-1k")
IMAGE(zone_1k_flex, "zone-1k-flex")
IMAGE(zone_4k, "zone-4k")
IMAGE(zone_bigalloc, "zone-bigalloc")
IMAGE(zone_ext3, "zone-ext3")
IMAGE(zone_meta, "zone-meta")
IMAGE(zone_meta_first, "zone-meta-first")
IMAGE(zone_noflex, "zone-noflex")
IMAGE(zone_sparse2, "zone-sparse2")

/* Every corpus image the kernel mounted and read.sh recorded. */
Test(read, corpus)
{
	char dir[4096], src[8192], line[512], name[256];
	FILE *v;
	int images = 0;

	snprintf(dir, sizeof(dir), "%s/corpus", fixture_testdata());
	snprintf(src, sizeof(src), "%s/verdicts", dir);
	cr_assert((v = fopen(src, "r")));
	while (fgets(line, sizeof(line), v)) {
		char rec[8192], *img;
		FILE *probe;

		if (sscanf(line, "%255[^\t]\tmounted", name) != 1 ||
		    !strstr(line, "\tmounted\t"))
			continue;
		snprintf(rec, sizeof(rec), "%s/%s.read.gz", dir, name);
		if (!(probe = fopen(rec, "r")))
			continue;
		fclose(probe);
		cr_assert_eq(fixture_corpus_find(name, src, sizeof(src)), 0);
		cr_assert((img = fixture_decompress(src)));
		replay_lib(img, dir, name);
		replay_cli(img, dir, name);
		fixture_remove(img);
		images++;
	}
	fclose(v);
	cr_assert_gt(images, 0);
}

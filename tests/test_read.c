/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_file_read and `e2map cat` against read(2) on the kernel's mount, as
 * recorded by scripts/record/read.sh: for every path of every testdata
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
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cmd/cmd.h"
#include "calls.h"
#include "cli_run.h"
#include "fixture.h"
#include "sha256.h"

#define FOLIO_MAX (128U << 10)	/* the largest folio readahead made here */
#define CAT_CALL (128U << 10)	/* GNU cat's read(2) size */
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
		cr_assert_eq(e2map_file_lseek(f, u->start, E2MAP_SEEK_SET), u->start);
	for (;;) {
		size_t want = u->size;

		if (cut && got->bytes >= u->bytes)
			break;
		if (cut && (long long)want > u->bytes - got->bytes)
			want = (size_t)(u->bytes - got->bytes);
		if ((n = e2map_file_read(f, buf, want)) <= 0)
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

/*
 * F read whole through its spans (e2map_file_span): each span of the
 * image read from its descriptor, each other one by e2map_file_pread, in
 * calls of SIZE at most.  A copy made so (cat, extract, the FUSE mount)
 * must give what e2map_file_pread gives, the failure at the same byte.
 */
static void span_run(e2map_file_t *f, size_t size, struct run *got)
{
	unsigned char *buf = malloc(size);
	struct e2map_span s;
	struct sha256 h;
	int64_t n = 0;

	cr_assert(buf);
	memset(got, 0, sizeof(*got));
	sha256_init(&h);
	for (;;) {
		if ((n = e2map_file_span(f, got->bytes, size, &s)) < 0 ||
		    !s.len)
			break;
		n = (int64_t)(s.len < size ? s.len : size);
		if (s.fd >= 0)
			cr_assert_eq(pread(s.fd, buf, (size_t)n, s.fd_off), n);
		else if ((n = e2map_file_pread(f, buf, (size_t)n,
					       got->bytes)) <= 0)
			break;
		sha256_update(&h, buf, (size_t)n);
		got->bytes += n;
	}
	snprintf(got->err, sizeof(got->err), "%s",
		 n < 0 ? calls_errname((int)-n) : "0");
	sha256_final(&h, got->sha);
	free(buf);
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
	int paths, runs, bad, folio, devices, spans;
	struct calls_buf report;
};

/*
 * A device node the host has a driver for (a corpus image's /dev/null):
 * the kernel opens the host's device, e2map never does (ENXIO).
 */
static bool host_device(e2map_t *m, const char *path)
{
	struct e2map_stat st = E2MAP_STAT_INIT;

	return e2map_path_stat(m, path, &st) == 0 &&
	       (S_ISCHR(st.mode) || S_ISBLK(st.mode));
}

/* The spans' bytes and failure are the reads' (GOT, read in U's calls). */
static void check_spans(e2map_file_t *f, const char *path,
			const struct run *u, const struct run *got,
			struct tally *t)
{
	struct run sp;

	span_run(f, u->size, &sp);
	if (!strcmp(sp.err, "ESPIPE") && !strcmp(got->err, "0"))
		return;		/* a FIFO: read(2) of no writer, no spans */
	t->spans++;
	if ((sp.bytes == got->bytes && !strcmp(sp.err, got->err) &&
	     !strcmp(sp.sha, got->sha)) || t->bad++ >= 10)
		return;
	calls_buf_add(&t->report, "%s: spans give %lld bytes %s, the reads "
		      "%lld bytes %s%s\n", path, sp.bytes, sp.err, got->bytes,
		      got->err, strcmp(sp.sha, got->sha) ? " (bytes differ)" :
		      "");
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
		if (u->start == 0 && strcmp(u->err, "CUT"))
			check_spans(f, rec->path, u, &got, t);
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
	cr_assert_gt(t.spans, 0);
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
	size_t n = 0, cap = 0, i;
	e2map_t *m;

	cr_assert(b);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", e2map_errmsg(NULL));
	open_recording(&r, dir, name);
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			recs = realloc(recs, cap * sizeof(*recs));
			cr_assert(recs);
		}
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
IMAGE(iflags_4k, "iflags-4k")
IMAGE(crypt_4k, "crypt-4k")
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

/*
 * Every corpus image the kernel mounted and record/read.sh recorded, in
 * four parts (the Nth of each four), so that they run side by side.
 */
static void corpus(int part)
{
	char dir[4096], src[8192], line[512], name[256];
	FILE *v;
	int images = 0, i = 0;

	snprintf(dir, sizeof(dir), "%s/corpus", fixture_testdata());
	snprintf(src, sizeof(src), "%s/verdicts", dir);
	cr_assert((v = fopen(src, "r")));
	while (fgets(line, sizeof(line), v)) {
		char rec[8192], *img;
		FILE *probe;

		if (sscanf(line, "%255[^\t]\tmounted", name) != 1 ||
		    !strstr(line, "\tmounted\t") || i++ % 4 != part)
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

Test(read, corpus_0, .timeout = 900) { corpus(0); }
Test(read, corpus_1, .timeout = 900) { corpus(1); }
Test(read, corpus_2, .timeout = 900) { corpus(2); }
Test(read, corpus_3, .timeout = 900) { corpus(3); }

/* --- the calls themselves --------------------------------------------- */

static e2map_t *open_testdata(const char *name, char **img)
{
	e2map_t *m;

	cr_assert((*img = fixture_image(name)), "cannot unpack %s", name);
	cr_assert_eq(e2map_open(*img, NULL, &m), 0, "%s", e2map_errmsg(NULL));
	return m;
}

/* Measured on the kernel (os.pread on a fresh mount of corrupt-4k): the
 * second of /leaf_magic's three leaves, blocks 680 to 1359, fails its
 * magic; what lies before and after it reads. */
Test(read, pread_around_a_bad_leaf)
{
	static const long long call[][3] = {
		{ 2781184, 8192, 4096 },	/* short: up to the bad page */
		{ 2785280, 4096, -EIO },
		{ 2785380, 10, -EIO },
		{ 4000000, 4096, -EIO },
		{ 5730294, 100, 10 },		/* the third leaf, to EOF */
		{ 8355840, 4096, 0 },		/* past EOF */
		{ 0, 4096, 4096 },
	};
	static unsigned char buf[8192];
	e2map_file_t *f;
	char *img;
	e2map_t *m = open_testdata("corrupt-4k", &img);
	size_t i;

	cr_assert_eq(e2map_file_open(m, "/leaf_magic", &f), 0);
	for (i = 0; i < sizeof(call) / sizeof(call[0]); i++)
		cr_expect_eq(e2map_file_pread(f, buf, (size_t)call[i][1],
					      call[i][0]), call[i][2],
			     "pread(%lld, %lld)", call[i][1], call[i][0]);
	cr_expect_str_eq(e2map_errmsg(m), "");
	cr_expect_eq(e2map_file_pread(f, buf, 1, 2785280), -EIO);
	cr_expect(strstr(e2map_errmsg(m), "bad magic"), "%s", e2map_errmsg(m));
	e2map_file_close(f);
	e2map_close(m);
	fixture_remove(img);
}

Test(read, what_read_refuses)
{
	unsigned char buf[16];
	e2map_file_t *f;
	char *img;
	e2map_t *m = open_testdata("ext4-4k", &img);

	cr_assert_eq(e2map_file_open(m, "/dir", &f), 0);
	cr_expect_eq(e2map_file_pread(f, buf, sizeof(buf), 0), -EISDIR);
	cr_expect_eq(e2map_file_read(f, buf, sizeof(buf)), -EISDIR);
	cr_expect_eq(e2map_file_pread(f, buf, sizeof(buf), -1), -EINVAL);
	e2map_file_close(f);
	cr_assert_eq(e2map_file_open(m, "/fifo", &f), 0);
	cr_expect_eq(e2map_file_pread(f, buf, sizeof(buf), 0), -ESPIPE);
	cr_expect_eq(e2map_file_pread(f, buf, sizeof(buf), -1), -EINVAL);
	cr_expect_eq(e2map_file_read(f, buf, sizeof(buf)), 0);
	e2map_file_close(f);
	cr_assert_eq(e2map_file_open(m, "/tiny", &f), 0);
	cr_expect_eq(e2map_file_pread(f, buf, sizeof(buf), -1), -EINVAL);
	cr_expect_eq(e2map_file_pread(f, NULL, 1, 0), -EINVAL);
	cr_expect_eq(e2map_file_pread(NULL, buf, 1, 0), -EINVAL);
	cr_expect_eq(e2map_file_read(NULL, buf, 1), -EINVAL);
	cr_expect_eq(e2map_file_pread(f, NULL, 0, 0), 0);
	cr_expect_eq(e2map_file_pread(f, buf, sizeof(buf), 13), 0);
	/* rw_verify_area: OFF + LEN must not pass INT64_MAX (kernel-checked) */
	cr_expect_eq(e2map_file_pread(f, buf, 16, INT64_MAX - 15), -EINVAL);
	cr_expect_eq(e2map_file_pread(f, buf, 16, INT64_MAX - 16), 0);
	cr_expect_eq(e2map_file_pread(f, buf, sizeof(buf), 10), 3);
	/* read(2) moves the position, as lseek sees it */
	cr_expect_eq(e2map_file_read(f, buf, 5), 5);
	cr_expect_eq(e2map_file_read(f, buf, sizeof(buf)), 8);
	cr_expect_eq(e2map_file_read(f, buf, sizeof(buf)), 0);
	cr_expect_eq(e2map_file_lseek(f, 0, E2MAP_SEEK_CUR), 13);
	e2map_file_close(f);
	e2map_close(m);
	fixture_remove(img);
}

/* The kernel's bytes (its 4 KiB-call recording) whatever the call size. */
static void sizes(const char *name, const char *path, const size_t *len,
		  size_t n)
{
	char *img, hex[65];
	e2map_t *m = open_testdata(name, &img);
	unsigned char *buf = malloc((2U << 20) + 1);
	struct recording r;
	struct rec rec;
	bool found = false;
	size_t i;

	cr_assert(buf);
	open_recording(&r, fixture_testdata(), name);
	while (!found && next_rec(&r, &rec))
		found = !strcmp(rec.path, path);
	cr_assert(found && rec.nruns && !strcmp(rec.runs[0].err, "0"),
		  "%s %s: no clean read recorded", name, path);
	for (i = 0; i < n; i++) {
		struct sha256 h;
		int64_t got, off = 0;
		e2map_file_t *f;

		cr_assert_eq(e2map_file_open(m, path, &f), 0);
		sha256_init(&h);
		while ((got = e2map_file_pread(f, buf, len[i], off)) > 0) {
			sha256_update(&h, buf, (size_t)got);
			off += got;
		}
		sha256_final(&h, hex);
		cr_expect(got == 0 && off == rec.runs[0].bytes &&
			  !strcmp(hex, rec.runs[0].sha), "%s %s in calls of "
			  "%zu: %lld bytes", name, path, len[i],
			  (long long)off);
		e2map_file_close(f);
	}
	free(buf);
	free(r.text);
	e2map_close(m);
	fixture_remove(img);
}

static const size_t odd[] = { 1000, 4097, 65539, (1U << 20) + 1, 2U << 20 };
#define NODD (sizeof(odd) / sizeof(odd[0]))

Test(read, extents_in_calls_of_any_size)
{
	sizes("ext4-4k", "/random", odd, NODD);
	sizes("ext4-4k", "/alternating", odd, NODD);
	sizes("ext4-1k", "/ext_500", odd, NODD);
	sizes("ext4-deep", "/deep3", odd, NODD);
}

Test(read, block_maps_bigalloc_inline_in_calls_of_any_size)
{
	static const size_t small[] = { 1, 3, 61, 4097 };

	sizes("ext2-1k", "/dense", odd, NODD);
	sizes("ext3-1k", "/dind_dense", odd, NODD);
	sizes("ext3-1k", "/every_other", odd, NODD);
	sizes("ext4-bigalloc", "/sparse", odd, NODD);
	sizes("ext4-bigalloc", "/punched_in_cluster", odd, NODD);
	sizes("ext4-4k", "/small5000", small, 4);
	sizes("ext4-inline", "/inl60", small, 4);
	sizes("ext4-inline", "/inl129", small, 4);
}

/* The seek walk of F, alternating SEEK_HOLE and SEEK_DATA, as text. */
static void seek_answers(e2map_file_t *f, struct calls_buf *b)
{
	int whence = E2MAP_SEEK_HOLE;
	int64_t pos = 0, r;

	while ((r = e2map_file_lseek(f, pos, whence)) >= 0 && r >= pos) {
		calls_buf_add(b, "%d %lld %lld\n", whence, (long long)pos,
			      (long long)r);
		if (r == pos && whence == E2MAP_SEEK_DATA)
			break;
		pos = r;
		whence ^= E2MAP_SEEK_DATA ^ E2MAP_SEEK_HOLE;
	}
	calls_buf_add(b, "end %lld\n", (long long)r);
}

/* The whole seek walk and FIEMAP listing of F (batches of 32), as text. */
static void answers(e2map_file_t *f, struct calls_buf *b)
{
	struct fiemap *fm = calloc(1, sizeof(*fm) +
				   32 * sizeof(struct fiemap_extent));
	struct fiemap_extent *e = fm ? fm->fm_extents : NULL;
	uint64_t pos = 0;
	uint32_t i;

	cr_assert(fm);
	seek_answers(f, b);
	for (;;) {
		memset(fm, 0, sizeof(*fm) + 32 * sizeof(*e));
		fm->fm_start = pos;
		fm->fm_length = ~0ULL - pos;
		fm->fm_extent_count = 32;
		cr_assert_eq(e2map_file_fiemap(f, fm), 0);
		for (i = 0; i < fm->fm_mapped_extents; i++)
			calls_buf_add(b, "%llu %llu %llu %x\n",
				      (unsigned long long)e[i].fe_logical,
				      (unsigned long long)e[i].fe_physical,
				      (unsigned long long)e[i].fe_length,
				      e[i].fe_flags);
		if (!i || e[i - 1].fe_flags & FIEMAP_EXTENT_LAST)
			break;
		pos = e[i - 1].fe_logical + e[i - 1].fe_length;
	}
	free(fm);
}

/* e2map's documented choice: a read leaves seek and FIEMAP cold. */
static void stays_cold(const char *name, const char *path)
{
	struct calls_buf cold = { 0 }, after = { 0 };
	unsigned char *buf = malloc(CAT_CALL);
	e2map_file_t *f;
	char *img;
	e2map_t *m = open_testdata(name, &img);

	cr_assert(buf);
	cr_assert_eq(e2map_file_open(m, path, &f), 0);
	answers(f, &cold);
	e2map_file_close(f);
	cr_assert_eq(e2map_file_open(m, path, &f), 0);
	while (e2map_file_read(f, buf, CAT_CALL) > 0)
		;
	cr_assert_eq(e2map_file_lseek(f, 0, E2MAP_SEEK_SET), 0);
	answers(f, &after);
	cr_expect_str_eq(after.s, cold.s, "%s %s", name, path);
	e2map_file_close(f);
	calls_buf_free(&cold);
	calls_buf_free(&after);
	free(buf);
	e2map_close(m);
	fixture_remove(img);
}

Test(read, a_read_leaves_seek_and_fiemap_cold)
{
	stays_cold("ext4-4k", "/prealloc_partial");
	stays_cold("ext4-4k", "/alternating");
	stays_cold("ext4-deep", "/deep3");
	stays_cold("ext4-deep", "/deep_alternating");
	stays_cold("ext3-1k", "/dind_dense");
}

/*
 * A file of 256 MiB with every other 4 KiB block written (32,768 extents),
 * made by mke2fs -d (no root): read whole in 1 MiB calls, the right bytes,
 * holes costing no per-block work and the tree's blocks read once each.
 */
#define BIG_BLOCKS 65536U

static unsigned char block_byte(uint32_t blk)
{
	return blk & 1 ? 0 : (unsigned char)(blk / 2 % 251 + 1);
}

static char *make_sparse(char *dir)
{
	char path[300], cmd[1024];
	unsigned char blk[4096];
	uint32_t i;
	int fd;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/src", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/src/f", dir);
	cr_assert((fd = open(path, O_WRONLY | O_CREAT, 0644)) >= 0);
	for (i = 0; i < BIG_BLOCKS; i += 2) {
		memset(blk, block_byte(i), sizeof(blk));
		cr_assert_eq(pwrite(fd, blk, sizeof(blk), (off_t)i * 4096), 4096);
	}
	cr_assert_eq(ftruncate(fd, (off_t)BIG_BLOCKS * 4096), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -b 4096 -d %s/src "
		 "%s/x.img 400M >/dev/null 2>&1 && rm -rf %s/src", dir, dir,
		 dir);
	if (system(cmd) != 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/x.img", dir);
	return strdup(path);
}

static void check_sparse(const unsigned char *buf, uint64_t off, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 4096)
		cr_assert_eq(buf[i], block_byte((uint32_t)((off + i) / 4096)));
}

Test(read, a_sparse_file_of_every_other_block, .timeout = 120)
{
	char dir[] = "/tmp/e2map-read-XXXXXX", *img, cmd[300];
	unsigned char *buf = malloc(1U << 20);
	uint64_t off = 0, meta;
	e2map_file_t *f;
	int64_t n;
	e2map_t *m;

	cr_assert(buf);
	if (system("command -v mkfs.ext4 >/dev/null 2>&1") != 0 ||
	    !(img = make_sparse(dir)))
		cr_skip_test("mkfs.ext4 -d is not available");
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert_eq(e2map_file_open(m, "/f", &f), 0);
	meta = e2map_blocks_read(m);
	while ((n = e2map_file_pread(f, buf, 1U << 20, (int64_t)off)) > 0) {
		check_sparse(buf, off, (size_t)n);
		off += (uint64_t)n;
	}
	cr_expect_eq(n, 0);
	cr_expect_eq(off, (uint64_t)BIG_BLOCKS * 4096);
	/* 32,768 extents: about 100 leaves and their index, read once. */
	cr_expect_lt(e2map_blocks_read(m) - meta, 200);
	e2map_file_close(f);
	e2map_close(m);
	free(img);
	free(buf);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* offset=: the data runs are read from the filesystem's place in the file. */
Test(read, an_image_at_an_offset)
{
	char *img = fixture_image("ext4-4k"), *shifted, hex[65];
	unsigned char *buf = malloc(CAT_CALL);
	struct sha256 h;
	e2map_file_t *f;
	e2map_t *m;
	int64_t n;

	cr_assert(img && buf);
	cr_assert((shifted = fixture_slice(img, 0, 1LL << 40, 1 << 20)));
	cr_assert_eq(e2map_open(shifted, "offset=1048576", &m), 0);
	cr_assert_eq(e2map_file_open(m, "/random", &f), 0);
	sha256_init(&h);
	while ((n = e2map_file_read(f, buf, CAT_CALL)) > 0)
		sha256_update(&h, buf, (size_t)n);
	sha256_final(&h, hex);
	/* testdata/ext4-4k.read: /random read(2) on the kernel's mount */
	cr_expect_str_eq(hex, "fd472e82249fd275b190767ba1bf33582af670f51d"
			 "365a539712975421cc8e13");
	e2map_file_close(f);
	e2map_close(m);
	fixture_remove(shifted);
	fixture_remove(img);
	free(buf);
}

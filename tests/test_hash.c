/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_file_digest and scan --hash against the kernel: every regular
 * file's MD5, SHA-1 and SHA-256 as md5sum and the like read them from the
 * read-only mount, or the errno its open or read failed with, as
 * scripts/record/hashes.sh recorded them (testdata/NAME.hashes.gz); and
 * every scan format carrying the digests.
 */
#include <criterion/criterion.h>

#include <jansson.h>

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "fixture.h"

#include "e2map.h"

/* One recorded file: its path, and "MD5 SHA1 SHA256" or "error ENAME". */
struct rec {
	const char *path, *what;
};

struct recording {
	char *text;
	size_t len;
	char max[32];		/* the recorder's MAXSIZE, for --hash-max */
	struct rec *v;
	size_t n;
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1)) &&
	    fread(s, 1, (size_t)n, f) == (size_t)n) {
		s[n] = '\0';
		*len = (size_t)n;
	} else {
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

/* NAME's recording in testdata, or in testdata/corpus for CORPUS. */
static void load_in(const char *name, bool corpus, struct recording *r)
{
	char src[4096], *tmp, *p, *end;

	snprintf(src, sizeof(src), "%s%s/%s.hashes.gz", fixture_testdata(),
		 corpus ? "/corpus" : "", name);
	cr_assert(tmp = fixture_decompress(src), "cannot unpack %s", src);
	cr_assert(r->text = slurp(tmp, &r->len), "cannot read %s", src);
	fixture_remove(tmp);
	cr_assert_eq(sscanf(r->text, "e2map-hashes 1 %31s", r->max), 1,
		     "%s: not a hashes recording", src);
	r->v = NULL;
	r->n = 0;
	end = r->text + r->len;
	for (p = r->text + strlen(r->text) + 1; p < end;) {
		const char *path = p;

		p += strlen(p) + 1;
		cr_assert(p < end, "%s: a path without its digests", src);
		cr_assert(r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v)));
		r->v[r->n++] = (struct rec){ path, p };
		p += strlen(p) + 1;
	}
}

static void unload(struct recording *r)
{
	free(r->text);
	free(r->v);
}

/* A path of scan's jsonl with its record: "path", or "path_hex" where
 * the name is not UTF-8. */
struct named {
	char *path;
	json_t *rec;
};

static char *path_of(json_t *p)
{
	const char *hex = json_string_value(json_object_get(p, "path_hex"));
	char *out;
	size_t n;

	if (!hex)
		return strdup(json_string_value(json_object_get(p, "path")));
	n = strlen(hex) / 2;
	cr_assert(out = malloc(n + 1));
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (char)v;
	}
	out[n] = '\0';
	return out;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->path,
		      ((const struct named *)b)->path);
}

/* scan --hash's records by path, sorted. */
static struct named *scan_paths(char *out, size_t *count)
{
	struct named *v = NULL;
	size_t n = 0, i;
	char *line, *save;

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *rec = json_loads(line, 0, NULL), *paths, *p;

		cr_assert(rec, "not JSON: %.200s", line);
		paths = json_object_get(rec, "paths");
		json_array_foreach(paths, i, p) {
			cr_assert(v = realloc(v, (n + 1) * sizeof(*v)));
			v[n++] = (struct named){ path_of(p), json_incref(rec) };
		}
		json_decref(rec);
	}
	if (n)
		qsort(v, n, sizeof(*v), by_path);
	*count = n;
	return v;
}

static const char *digest_of(json_t *rec, const char *alg)
{
	const char *s = json_string_value(json_object_get(rec, alg));

	return s ? s : "-";
}

/* The record's answer in the recording's words. */
static void answer(json_t *rec, char *out, size_t size)
{
	json_t *err = json_object_get(rec, "hash_error");

	if (err)
		snprintf(out, size, "error %s", json_string_value(
				 json_object_get(err, "name")));
	else
		snprintf(out, size, "%s %s %s", digest_of(rec, "md5"),
			 digest_of(rec, "sha1"), digest_of(rec, "sha256"));
}

/* Every recorded file of NAME: 0, or how many differ. */
static void load(const char *name, struct recording *r)
{
	load_in(name, false, r);
}

/* NAME unpacked: testdata's, or the shipped corpus's for CORPUS. */
static char *unpack(const char *name, bool corpus)
{
	char src[4096];

	if (!corpus)
		return fixture_image(name);
	snprintf(src, sizeof(src), "%s/corpus/e2fsprogs/%s.img.gz",
		 fixture_testdata(), name);
	return fixture_decompress(src);
}

static int compare_image(const char *name, bool corpus)
{
	struct recording r;
	struct cli_out o;
	struct named *v, key;
	size_t n, i;
	char *img, got[256];
	int bad = 0;

	load_in(name, corpus, &r);
	cr_assert(img = unpack(name, corpus), "cannot unpack %s", name);
	const char *args[] = { "scan", "-q", "--format", "jsonl", "--hash",
			       "md5,sha1,sha256", "--hash-max", r.max, img,
			       NULL };
	cr_assert_eq(cli_run(args, &o), 0);
	cr_assert(o.status == 0 || o.status == 1, "%s: exit %d: %s", name,
		  o.status, o.err);
	v = scan_paths(o.out, &n);
	for (i = 0; i < r.n; i++) {
		struct named *hit;

		key.path = (char *)r.v[i].path;
		hit = n ? bsearch(&key, v, n, sizeof(*v), by_path) : NULL;
		if (!hit) {
			cr_log_error("%s: %s: no record", name, r.v[i].path);
			bad++;
			continue;
		}
		answer(hit->rec, got, sizeof(got));
		if (strcmp(got, r.v[i].what)) {
			cr_log_error("%s: %s: %s, the kernel's %s", name,
				     r.v[i].path, got, r.v[i].what);
			bad++;
		}
	}
	/* testdata's images all hold files; some corpus images hold none. */
	cr_expect(corpus || r.n > 0, "%s: nothing recorded", name);
	for (i = 0; i < n; i++) {
		free(v[i].path);
		json_decref(v[i].rec);
	}
	free(v);
	cli_out_free(&o);
	fixture_remove(img);
	unload(&r);
	return bad;
}

/* Every image with a recording in testdata (CORPUS: testdata/corpus, the
 * e2fsprogs images the kernel mounts): the count of files that differ. */
static int compare_all(bool corpus, size_t least)
{
	char pattern[4096];
	glob_t g;
	int bad = 0;

	snprintf(pattern, sizeof(pattern), "%s%s/*.hashes.gz",
		 fixture_testdata(), corpus ? "/corpus" : "");
	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no %s", pattern);
	cr_assert_geq(g.gl_pathc, least);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		char name[256];

		snprintf(name, sizeof(name), "%.*s",
			 (int)(strlen(base) - strlen(".hashes.gz")), base);
		bad += compare_image(name, corpus);
	}
	globfree(&g);
	return bad;
}

Test(hash, scan_hash_is_the_kernels_on_every_recorded_image, .timeout = 600)
{
	int bad = compare_all(false, 40);

	cr_expect_eq(bad, 0, "%d files hash otherwise than on the mount", bad);
}

/* The e2fsprogs images: damaged files hash as the kernel reads them, or
 * fail with the errno its read(2) gave. */
Test(hash, scan_hash_is_the_kernels_on_every_corpus_image, .timeout = 600)
{
	int bad = compare_all(true, 90);

	cr_expect_eq(bad, 0, "%d files hash otherwise than on the mount", bad);
}

/* The recorded answer for PATH of NAME, copied. */
static char *recorded(const char *name, const char *path)
{
	struct recording r;
	char *out = NULL;

	load(name, &r);
	for (size_t i = 0; i < r.n && !out; i++)
		if (!strcmp(r.v[i].path, path))
			out = strdup(r.v[i].what);
	unload(&r);
	cr_assert(out, "%s: %s not recorded", name, path);
	return out;
}

Test(hash, file_digest_api)
{
	char *img = fixture_image("ext4-4k"), *want = recorded("ext4-4k",
							      "/random");
	struct e2map_digest d = E2MAP_DIGEST_INIT, old = { 0 };
	char hex[3][65], got[256];
	e2map_file_t *f;
	e2map_t *m;

	cr_assert(img);
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert_eq(e2map_file_open(m, "/random", &f), 0);
	cr_assert_eq(e2map_file_digest(f, E2MAP_DIGEST_MD5 |
				       E2MAP_DIGEST_SHA1 |
				       E2MAP_DIGEST_SHA256, &d), 0);
	cr_assert_eq(e2map_digest_hex(&d, E2MAP_DIGEST_MD5, hex[0]), 32);
	cr_assert_eq(e2map_digest_hex(&d, E2MAP_DIGEST_SHA1, hex[1]), 40);
	cr_assert_eq(e2map_digest_hex(&d, E2MAP_DIGEST_SHA256, hex[2]), 64);
	snprintf(got, sizeof(got), "%s %s %s", hex[0], hex[1], hex[2]);
	cr_expect_str_eq(got, want);
	/* One digest alone is the same digest; the position is kept. */
	cr_assert_eq(e2map_file_lseek(f, 100, E2MAP_SEEK_SET), 100);
	d = (struct e2map_digest)E2MAP_DIGEST_INIT;
	cr_assert_eq(e2map_file_digest(f, E2MAP_DIGEST_SHA1, &d), 0);
	cr_expect_eq(d.algs, E2MAP_DIGEST_SHA1);
	cr_expect_eq(e2map_digest_hex(&d, E2MAP_DIGEST_MD5, hex[0]), -EINVAL);
	cr_assert_eq(e2map_digest_hex(&d, E2MAP_DIGEST_SHA1, hex[0]), 40);
	cr_expect_str_eq(hex[0], hex[1]);
	cr_expect_eq(e2map_file_lseek(f, 0, E2MAP_SEEK_CUR), 100);
	/* Refused: no or unknown bits, an unknown version, no handle. */
	cr_expect_eq(e2map_file_digest(f, 0, &d), -EINVAL);
	cr_expect_eq(e2map_file_digest(f, 8, &d), -EINVAL);
	cr_expect_eq(e2map_file_digest(f, E2MAP_DIGEST_MD5, &old), -EINVAL);
	cr_expect_eq(e2map_file_digest(NULL, E2MAP_DIGEST_MD5, &d), -EINVAL);
	cr_expect_null(e2map_digest_name(3));
	cr_expect_str_eq(e2map_digest_name(E2MAP_DIGEST_SHA256), "sha256");
	e2map_file_close(f);
	/* A directory: read(2)'s EISDIR, no digest. */
	cr_assert_eq(e2map_file_open(m, "/dir", &f), 0);
	d = (struct e2map_digest)E2MAP_DIGEST_INIT;
	cr_expect_eq(e2map_file_digest(f, E2MAP_DIGEST_MD5, &d), -EISDIR);
	cr_expect_eq(d.algs, 0);
	e2map_file_close(f);
	e2map_close(m);
	free(want);
	fixture_remove(img);
}

/* scan --hash's output in FORMAT on ext4-4k, and /random's recording. */
static void scan_format(const char *format, const char *algs,
			struct cli_out *o, char want[3][65])
{
	char *img = fixture_image("ext4-4k"), *rec = recorded("ext4-4k",
							     "/random");
	const char *args[] = { "scan", "-q", "--format", format, "--hash",
			       algs, "--hash-max", "64M", img, NULL };

	cr_assert(img);
	cr_assert_eq(sscanf(rec, "%64s %64s %64s", want[0], want[1], want[2]),
		     3);
	cr_assert_eq(cli_run(args, o), 0);
	cr_assert_eq(o->status, 0, "%s: exit %d: %s", format, o->status,
		     o->err);
	free(rec);
	fixture_remove(img);
}

Test(hash, every_scan_format_carries_the_digests)
{
	static const struct {
		const char *format, *algs, *needle;
		int which;	/* 0 md5, 1 sha1, 2 sha256 */
	} cases[] = {
		{ "table", "sha256", "sha256 ", 2 },
		{ "jsonl", "sha1", "\"sha1\":\"", 1 },
		{ "csv", "md5,sha256", ",", 2 },
		{ "body", "md5", "", 0 },
		{ "timesketch", "sha256", "\"sha256_hash\":\"", 2 },
		{ "dfxml", "md5,sha1", "<hashdigest type='sha1'>", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cli_out o;
		char want[3][65], needle[128];

		scan_format(cases[i].format, cases[i].algs, &o, want);
		snprintf(needle, sizeof(needle), "%s%s", cases[i].needle,
			 want[cases[i].which]);
		cr_expect(strstr(o.out, needle), "%s: no %s", cases[i].format,
			  needle);
		cli_out_free(&o);
	}
}

Test(hash, csv_head_and_errors)
{
	struct cli_out o;
	char want[3][65];

	scan_format("csv", "sha256,md5", &o, want);
	cr_expect(strstr(o.out, ",paths,md5,sha256,hash_errno\r\n") ==
		  strchr(o.out, '\r') - strlen(",paths,md5,sha256,hash_errno"),
		  "head: %.300s", o.out);
	/* 16 TiB of holes past --hash-max: no digest, EFBIG. */
	cr_expect(strstr(o.out, "/maxbytes\",,,EFBIG\r\n"), "no EFBIG row");
	cli_out_free(&o);
}

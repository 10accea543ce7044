/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every command in every output format on every image: the testdata
 * images and the e2fsprogs corpus, the damaged ones above all.  No answer
 * is checked here (the kernel's recordings do that elsewhere); what is
 * held is what every user can count on whatever the image: the command
 * ends by itself with 0 or 1 (filefrag: an errno), no sanitizer speaks, and what it printed
 * parses back in its format (a JSON document, JSON lines, CSV records
 * ending CRLF, TSK body lines of 11 fields).  cat is not among them: an
 * image's file may be terabytes of holes, which cat prints as zeroes.  Run under ASan+UBSan by CI,
 * this is what would have caught `unallocated --format jsonl` reading an
 * unset buffer.  An image the kernel refuses to mount runs them all again
 * with --unmountable, past the refusal, where nothing checked it before.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_run.h"
#include "e2map.h"
#include "fixture.h"

enum format { TEXT, JSON, JSONL, CSV, BODY };

/* One run: argv after "e2map", IMAGE where "@" stands, DIR where "%";
 * ALL: on the corpus images too (the JSON ones; the rest on testdata's
 * images only, for CI's time). */
struct run {
	enum format format;
	const char *argv[10];
	bool all;
};

static const struct run runs[] = {
	{ TEXT, { "scan", "-q", "@" }, false },
	{ JSONL, { "scan", "-q", "--format", "jsonl", "@" }, true },
	{ CSV, { "scan", "-q", "--format", "csv", "@" }, false },
	{ BODY, { "scan", "-q", "--format", "body", "@" }, false },
	{ TEXT, { "blockmap", "@" }, false },
	{ CSV, { "blockmap", "--format", "csv", "@" }, false },
	{ JSONL, { "blockmap", "--format", "jsonl", "@" }, true },
	{ TEXT, { "unallocated", "@" }, false },
	{ CSV, { "unallocated", "--format", "csv", "@" }, false },
	{ JSONL, { "unallocated", "--format", "jsonl", "@" }, true },
	{ TEXT, { "check", "-q", "@" }, false },
	{ JSON, { "check", "-q", "--json", "@" }, true },
	{ TEXT, { "partitions", "@" }, false },
	{ JSON, { "partitions", "--json", "@" }, true },
	{ TEXT, { "du", "-a", "@" }, false },
	{ TEXT, { "du", "-s", "--written", "@" }, false },
	{ TEXT, { "owner", "@", "0", "1", "2", "100", "1000" }, false },
	{ TEXT, { "owner", "--byte", "@", "0", "1024", "4096", "1048576" }, false },
	{ TEXT, { "seek", "-a", "-r", "@", "/", "0" }, false },
	{ JSON, { "seek", "-a", "-r", "--json", "@", "/", "0" }, true },
	{ TEXT, { "fiemap", "-v", "@", "/" }, false },
	{ JSON, { "fiemap", "--json", "@", "/" }, true },
	{ TEXT, { "filefrag", "-v", "@", "/", "<11>", "<12>" }, false },
	{ JSON, { "filefrag", "--json", "@", "/", "<11>", "<12>" }, true },
	{ TEXT, { "tar", "-q", "-f", "/dev/null", "@" }, false },
	{ TEXT, { "extract", "-r", "-p", "-q", "@", "/", "%" }, false },
};
#define NRUNS (sizeof(runs) / sizeof(runs[0]))

struct image {
	char path[1024];
	bool corpus;
};

static void free_params(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

/* Every testdata NAME.img.gz, then the corpus's images (the shipped e2fsprogs
 * ones, and $E2MAP_CORPUS's). */
ParameterizedTestParameters(matrix, image)
{
	struct image *v = NULL;
	size_t n = 0, cap = 0;
	char **corpus = NULL;
	int nc = fixture_corpus_list(&corpus);
	DIR *d = opendir(fixture_testdata());
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 8 || strcmp(de->d_name + len - 7, ".img.gz"))
			continue;
		if (n == cap && !(v = realloc(v, (cap = cap * 2 + 64) *
						 sizeof(*v))))
			break;
		v[n].corpus = false;
		snprintf(v[n++].path, sizeof(v->path), "%s/%s",
			 fixture_testdata(), de->d_name);
	}
	if (d)
		closedir(d);
	for (int i = 0; v && i < nc; i++) {
		if (n == cap && !(v = realloc(v, (cap = cap * 2 + 64) *
						 sizeof(*v))))
			break;
		v[n].corpus = true;
		snprintf(v[n++].path, sizeof(v->path), "%s", corpus[i]);
	}
	if (nc > 0)
		fixture_corpus_free(corpus, nc);
	struct image *params = cr_calloc(n ? n : 1, sizeof(*params));

	if (n)
		memcpy(params, v, n * sizeof(*v));
	free(v);
	return cr_make_param_array(struct image, params, n ? n : 1,
				   free_params);
}

static const char *const sanitizer_words[] = {
	"AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
	"runtime error:", "ThreadSanitizer",
};

static void parse_json(const char *what, const char *s, size_t len)
{
	json_error_t err;
	json_t *doc = json_loadb(s, len, 0, &err);

	cr_expect(doc && json_is_object(doc), "%s: not a JSON object (%s at "
		  "%d): %.200s", what, err.text, err.position, s);
	json_decref(doc);
}

/* RFC 4180: records end CRLF; a quoted field may hold CR, LF and "". */
static void parse_csv(const char *what, const char *s, size_t len)
{
	size_t records = 0;
	bool quoted = false;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			quoted = !quoted;	/* "" toggles twice */
		else if (!quoted && s[i] == '\n') {
			cr_expect(i && s[i - 1] == '\r', "%s: CSV record %zu "
				  "does not end CRLF", what, records);
			records++;
		}
	}
	cr_expect(!quoted && (!len || s[len - 1] == '\n'), "%s: CSV ends "
		  "inside a field or record", what);
}

/* What R printed, read back in its format. */
static void parse_back(const char *what, enum format f,
		       const struct cli_out *r)
{
	const char *at = r->out, *end = r->out + r->out_len, *nl;
	size_t line = 0;

	if (f == TEXT)
		return;
	if (f == JSON) {
		cr_expect(r->out_len && end[-1] == '\n' &&
			  !memchr(at, '\n', r->out_len - 1),
			  "%s: not one line", what);
		parse_json(what, at, r->out_len);
		return;
	}
	if (f == CSV) {
		parse_csv(what, at, r->out_len);
		return;
	}
	cr_expect(!r->out_len || end[-1] == '\n', "%s: a last line without "
		  "its newline", what);
	for (; at < end && (nl = memchr(at, '\n', end - at)); at = nl + 1,
	     line++) {
		size_t len = (size_t)(nl - at), bars = 0;

		if (f == JSONL) {
			parse_json(what, at, len);
			continue;
		}
		for (size_t i = 0; i < len; i++)
			bars += at[i] == '|';
		cr_expect(bars >= 10, "%s: body line %zu has %zu fields: %.*s",
			  what, line, bars + 1, (int)len, at);
	}
}

/* PAST: with --unmountable after the command's name. */
static void run_one(const struct run *run, const char *img, const char *dir,
		    bool past)
{
	const char *argv[13];
	char what[256];
	struct cli_out r;
	size_t i, j = 0, at = 0;

	for (i = 0; i < 10 && run->argv[i]; i++) {
		argv[j++] = !strcmp(run->argv[i], "@") ? img :
			    !strcmp(run->argv[i], "%") ? dir : run->argv[i];
		if (i == 0 && past)
			argv[j++] = "--unmountable";
	}
	argv[j] = NULL;
	for (i = 0; argv[i]; i++)
		at += (size_t)snprintf(what + at, at < sizeof(what) ?
				       sizeof(what) - at : 0, "%s%s",
				       i ? " " : "", argv[i] == img ? "IMG" :
				       argv[i] == dir ? "DIR" : argv[i]);
	cr_assert_eq(cli_run(argv, &r), 0, "%s: cannot run", what);
	/* filefrag exits with the errno of its last failure, as filefrag. */
	cr_expect(r.status == 0 || r.status == 1 ||
		  (!strcmp(argv[0], "filefrag") && r.status < 134),
		  "%s: exit %d: %.300s", what, r.status, r.err);
	for (i = 0; i < sizeof(sanitizer_words) / sizeof(*sanitizer_words); i++)
		cr_expect(!strstr(r.err, sanitizer_words[i]), "%s: %s:\n%.2000s",
			  what, sanitizer_words[i], r.err);
	if (r.status == 0 || r.out_len)	/* a refused image: stderr only */
		parse_back(what, run->format, &r);
	cli_out_free(&r);
}

/* IMG is one the kernel refuses to mount, by e2map_open's verdict (held
 * to the kernel's by test_mount.c). */
static bool refused(const char *img)
{
	e2map_t *m = NULL;
	int err = e2map_open(img, NULL, &m);

	e2map_close(m);
	return err < 0;
}

ParameterizedTest(struct image *im, matrix, image, .timeout = 600)
{
	char dir[] = "/tmp/e2map-matrix-XXXXXX", cmd[64];
	char *img;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	cr_assert(im->path[0], "no images");
	cr_assert((img = fixture_decompress(im->path)), "cannot unpack %s",
		  im->path);
	cr_assert(mkdtemp(dir));
	for (size_t i = 0; i < NRUNS; i++)
		if (runs[i].all || !im->corpus)
			run_one(&runs[i], img, dir, false);
	/* What the kernel refuses, read past the refusal: every run, as
	 * few images are refused. */
	for (size_t i = 0; refused(img) && i < NRUNS; i++)
		if (strcmp(runs[i].argv[0], "partitions"))
			run_one(&runs[i], img, dir, true);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
	fixture_remove(img);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --json, parsed back with jansson and held to the schemas of e2map(1),
 * JSON OUTPUT: one line, valid UTF-8, known keys of the documented types,
 * integers above 2^53-1 as decimal strings (and only those), names that are
 * not UTF-8 with U+FFFD per invalid byte and the exact bytes in KEY_hex.
 * The values are the kernel's: each `seek -a -r`, `fiemap -v` and
 * `filefrag -v` entry of testdata/NAME.golden (what xfs_io and filefrag
 * printed on the mount) is run again with --json and compared, and check's
 * paths are testdata/NAME.paths (find on the mount); scan's records are
 * testdata/NAME.scan (lstat and FIEMAP on the mount).
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <linux/fiemap.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "cli_run.h"
#include "fixture.h"
#include "scan_rec.h"

#define MAX_SAFE 9007199254740991ULL	/* 2^53 - 1 */

enum kind { K_UINT, K_UINT_OR_NULL, K_STRING, K_NAME, K_BOOL, K_OBJECT,
	    K_ARRAY, K_INT, K_OBJECT_OR_NULL };

/* One member of an object: for K_ARRAY, SUB describes object elements,
 * else the elements are strings; for K_OBJECT, SUB is its members. */
struct field {
	const char *key;
	enum kind kind;
	bool optional;
	const struct field *sub;
};

static const struct field error_schema[] = {
	{ "errno", K_UINT, false, NULL },
	{ "name", K_STRING, false, NULL },
	{ "message", K_STRING, false, NULL },
	{ "detail", K_NAME, true, NULL },
	{ NULL, 0, false, NULL },
};

static const struct field seek_result[] = {
	{ "whence", K_STRING, false, NULL },
	{ "start", K_UINT, false, NULL },
	{ "offset", K_UINT_OR_NULL, false, NULL },
	{ NULL, 0, false, NULL },
};

static const struct field seek_schema[] = {
	{ "file", K_NAME, false, NULL },
	{ "results", K_ARRAY, false, seek_result },
	{ NULL, 0, false, NULL },
};

#define EXTENT_FIELDS \
	{ "logical", K_UINT, false, NULL }, \
	{ "physical", K_UINT, false, NULL }, \
	{ "length", K_UINT, false, NULL }, \
	{ "flags", K_UINT, false, NULL }, \
	{ "flag_names", K_ARRAY, false, NULL }

static const struct field fiemap_extent[] = {
	EXTENT_FIELDS,
	{ NULL, 0, false, NULL },
};

static const struct field fiemap_schema[] = {
	{ "file", K_NAME, false, NULL },
	{ "size", K_UINT, false, NULL },
	{ "block_size", K_UINT, false, NULL },
	{ "extents", K_ARRAY, false, fiemap_extent },
	{ NULL, 0, false, NULL },
};

static const struct field filefrag_extent[] = {
	EXTENT_FIELDS,
	{ "logical_block", K_UINT, false, NULL },
	{ "physical_block", K_UINT, false, NULL },
	{ "blocks", K_UINT, false, NULL },
	{ NULL, 0, false, NULL },
};

/* Either "error", or all of size..extents. */
static const struct field filefrag_file[] = {
	{ "file", K_NAME, false, NULL },
	{ "size", K_UINT, true, NULL },
	{ "block_size", K_UINT, true, NULL },
	{ "unit", K_UINT, true, NULL },
	{ "extents_found", K_UINT, true, NULL },
	{ "extents", K_ARRAY, true, filefrag_extent },
	{ "error", K_OBJECT, true, error_schema },
	{ NULL, 0, false, NULL },
};

static const struct field filefrag_schema[] = {
	{ "files", K_ARRAY, false, filefrag_file },
	{ NULL, 0, false, NULL },
};

static const struct field check_path[] = {
	{ "path", K_NAME, false, NULL },
	{ NULL, 0, false, NULL },
};

static const struct field check_inode[] = {
	{ "ino", K_UINT, false, NULL },
	{ "kind", K_STRING, false, NULL },
	{ "paths", K_ARRAY, false, check_path },
	{ "ok", K_BOOL, false, NULL },
	{ "error", K_OBJECT, true, error_schema },
	{ NULL, 0, false, NULL },
};

static const struct field check_schema[] = {
	{ "image", K_NAME, false, NULL },
	{ "inodes", K_ARRAY, false, check_inode },
	{ "inodes_checked", K_UINT, false, NULL },
	{ "errors", K_UINT, false, NULL },
	{ "scan_error", K_OBJECT, true, error_schema },
	{ NULL, 0, false, NULL },
};

static const struct field scan_time[] = {
	{ "sec", K_INT, false, NULL },
	{ "nsec", K_UINT, false, NULL },
	{ NULL, 0, false, NULL },
};

static const struct field scan_record[] = {
	{ "ino", K_UINT, false, NULL },
	{ "paths", K_ARRAY, false, check_path },
	{ "type", K_STRING, false, NULL },
	{ "mode", K_UINT, false, NULL },
	{ "nlink", K_UINT, false, NULL },
	{ "uid", K_UINT, false, NULL },
	{ "gid", K_UINT, false, NULL },
	{ "rdev", K_UINT, false, NULL },
	{ "size", K_UINT, false, NULL },
	{ "blocks", K_UINT, false, NULL },
	{ "atime", K_OBJECT_OR_NULL, false, scan_time },
	{ "mtime", K_OBJECT_OR_NULL, false, scan_time },
	{ "ctime", K_OBJECT_OR_NULL, false, scan_time },
	{ "crtime", K_OBJECT_OR_NULL, false, scan_time },
	{ "written", K_UINT, false, NULL },
	{ "unwritten", K_UINT, false, NULL },
	{ "holes", K_UINT, false, NULL },
	{ "past_eof", K_UINT, false, NULL },
	{ "meta_blocks", K_UINT, false, NULL },
	{ "extents", K_UINT, false, NULL },
	{ "fiemap_extents", K_UINT, false, NULL },
	{ "inline", K_BOOL, false, NULL },
	{ "ea_inode", K_BOOL, false, NULL },
	{ "error", K_OBJECT_OR_NULL, false, error_schema },
	{ NULL, 0, false, NULL },
};

static const struct field scan_fragmented[] = {
	{ "ino", K_UINT, false, NULL },
	{ "path", K_NAME, true, NULL },
	{ "fiemap_extents", K_UINT, false, NULL },
	{ "extents", K_UINT, false, NULL },
	{ NULL, 0, false, NULL },
};

static const struct field scan_totals[] = {
	{ "inodes", K_UINT, false, NULL },
	{ "errors", K_UINT, false, NULL },
	{ "regular_files", K_UINT, false, NULL },
	{ "apparent_bytes", K_UINT, false, NULL },
	{ "written_bytes", K_UINT, false, NULL },
	{ "unwritten_bytes", K_UINT, false, NULL },
	{ "hole_bytes", K_UINT, false, NULL },
	{ "past_eof_bytes", K_UINT, false, NULL },
	{ "allocated_bytes", K_UINT, false, NULL },
	{ "naive_copy_bytes", K_UINT, false, NULL },
	{ "sparse_copy_bytes", K_UINT, false, NULL },
	{ "most_fragmented", K_ARRAY, false, scan_fragmented },
	{ NULL, 0, false, NULL },
};

static const struct field scan_summary[] = {
	{ "summary", K_OBJECT, false, scan_totals },
	{ NULL, 0, false, NULL },
};

/* ---- the two rules ---- */

/* The documented integer rule: a number up to 2^53-1, a string above. */
static uint64_t uint_value(const json_t *v, const char *key)
{
	unsigned long long u;
	char *end;

	if (json_is_integer(v)) {
		cr_assert_geq(json_integer_value(v), 0, "%s negative", key);
		cr_assert_leq((uint64_t)json_integer_value(v), MAX_SAFE,
			      "%s: %lld above 2^53-1 as a number", key,
			      json_integer_value(v));
		return (uint64_t)json_integer_value(v);
	}
	cr_assert(json_is_string(v), "%s: not an integer or a string", key);
	u = strtoull(json_string_value(v), &end, 10);
	cr_assert(!*end && json_string_value(v)[0] != '0', "%s: \"%s\"", key,
		  json_string_value(v));
	cr_assert_gt(u, MAX_SAFE, "%s: %llu as a string", key, u);
	return u;
}

/* Bytes of lowercase hex HEX; NULL when it is not such hex. */
static unsigned char *unhex(const char *hex, size_t *len)
{
	size_t n = strlen(hex);
	unsigned char *b = malloc(n / 2 + 1);

	cr_assert(b && n % 2 == 0, "odd hex %s", hex);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned hi, lo;

		cr_assert(sscanf(hex + 2 * i, "%1x%1x", &hi, &lo) == 2 &&
			  !strchr("ABCDEF", hex[2 * i]) &&
			  !strchr("ABCDEF", hex[2 * i + 1]), "bad hex %s", hex);
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	*len = n / 2;
	return b;
}

/* How many bytes the lead byte C promises (0: none could start here). */
static size_t lead_len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xc0 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 :
	       c < 0xf8 ? 4 : 0;
}

/*
 * The name rule, with jansson's own UTF-8 check as the judge of each
 * sequence: BYTES with every byte that starts no valid sequence as U+FFFD.
 */
static char *replaced(const unsigned char *b, size_t n, bool *valid)
{
	char *out = malloc(3 * n + 1), *p = out;
	size_t i = 0, len;

	*valid = true;
	while (i < n) {
		json_t *ok = NULL;

		len = lead_len(b[i]);
		if (len && i + len <= n)
			ok = json_stringn((const char *)b + i, len);
		if (!ok) {
			memcpy(p, "\xef\xbf\xbd", 3);
			p += 3;
			i++;
			*valid = false;
			continue;
		}
		json_decref(ok);
		memcpy(p, b + i, len);
		p += len;
		i += len;
	}
	*p = '\0';
	return out;
}

/* The bytes OBJ[KEY] stands for (malloc'd, NUL-terminated), rule checked. */
static char *name_value(const json_t *obj, const char *key, size_t *len)
{
	char hexkey[64];
	const json_t *hex;
	const char *text = json_string_value(json_object_get(obj, key));
	unsigned char *bytes;
	char *want;
	bool valid;

	snprintf(hexkey, sizeof(hexkey), "%s_hex", key);
	hex = json_object_get(obj, hexkey);
	cr_assert(text, "%s is not a string", key);
	if (!hex) {
		*len = json_string_length(json_object_get(obj, key));
		return strndup(text, *len);
	}
	cr_assert(json_is_string(hex), "%s is not a string", hexkey);
	bytes = unhex(json_string_value(hex), len);
	want = replaced(bytes, *len, &valid);
	cr_expect(!valid, "%s present for a UTF-8 name", hexkey);
	cr_expect_str_eq(text, want, "%s does not follow the U+FFFD rule", key);
	free(want);
	bytes[*len] = '\0';
	return (char *)bytes;
}

/* ---- the schema walk ---- */

static void validate(const json_t *v, const struct field *schema,
		     const char *where);

static bool known_key(const struct field *schema, const char *key)
{
	size_t n = strlen(key);

	for (const struct field *f = schema; f->key; f++)
		if (!strcmp(f->key, key) ||
		    (f->kind == K_NAME && n == strlen(f->key) + 4 &&
		     !strncmp(key, f->key, n - 4) && !strcmp(key + n - 4, "_hex")))
			return true;
	return false;
}

static void validate_member(const json_t *obj, const struct field *f,
			    const char *where)
{
	const json_t *v = json_object_get(obj, f->key);
	size_t i, len;
	json_t *e;

	if (!v) {
		cr_assert(f->optional, "%s: no \"%s\"", where, f->key);
		return;
	}
	switch (f->kind) {
	case K_UINT_OR_NULL:
		if (json_is_null(v))
			break;
		/* fall through */
	case K_UINT: uint_value(v, f->key); break;
	case K_STRING: cr_assert(json_is_string(v), "%s.%s", where, f->key); break;
	case K_NAME: free(name_value(obj, f->key, &len)); break;
	case K_BOOL: cr_assert(json_is_boolean(v), "%s.%s", where, f->key); break;
	case K_INT: cr_assert(json_is_integer(v), "%s.%s", where, f->key); break;
	case K_OBJECT_OR_NULL:
		if (json_is_null(v))
			break;
		/* fall through */
	case K_OBJECT: validate(v, f->sub, f->key); break;
	case K_ARRAY:
		cr_assert(json_is_array(v), "%s.%s not an array", where, f->key);
		json_array_foreach(v, i, e) {
			if (f->sub)
				validate(e, f->sub, f->key);
			else
				cr_assert(json_is_string(e), "%s.%s[%zu]",
					  where, f->key, i);
		}
		break;
	}
}

static void validate(const json_t *v, const struct field *schema,
		     const char *where)
{
	const char *key;
	json_t *val;

	cr_assert(json_is_object(v), "%s: not an object", where);
	json_object_foreach((json_t *)v, key, val)
		cr_assert(known_key(schema, key), "%s: unknown key \"%s\"",
			  where, key);
	for (const struct field *f = schema; f->key; f++)
		validate_member(v, f, where);
}

/* OUT is one line of valid UTF-8 JSON (jansson refuses anything else). */
static json_t *parse(const struct cli_out *r, const struct field *schema)
{
	json_error_t jerr;
	json_t *doc;

	cr_assert(r->out_len > 0 && r->out[r->out_len - 1] == '\n' &&
		  !memchr(r->out, '\n', r->out_len - 1), "not one line: %s",
		  r->out);
	doc = json_loadb(r->out, r->out_len, 0, &jerr);
	cr_assert(doc, "invalid JSON (%s at %d): %s", jerr.text, jerr.position,
		  r->out);
	validate(doc, schema, "document");
	return doc;
}

/* ---- the kernel's answers: golden entries ---- */

static char *img;

static void cleanup(void)
{
	fixture_remove(img);
	img = NULL;
}

static uint64_t get_u(const json_t *o, const char *key)
{
	return uint_value(json_object_get(o, key), key);
}

/* The JSON "file" is PATH as typed, byte for byte. */
static void expect_file(const json_t *o, const char *path)
{
	size_t len;
	char *name = name_value(o, "file", &len);

	cr_expect(len == strlen(path) && !memcmp(name, path, len),
		  "file %s is not %s", name, path);
	free(name);
}

/* xfs_io's "DATA\t0" / "HOLE\tEOF" lines against "results". */
static void compare_seek(const char *path, const char *golden)
{
	const char *args[] = { "seek", "-a", "-r", "--json", img, path, "0",
			       NULL };
	const char *l = strchr(golden, '\n') + 1;
	struct cli_out r;
	json_t *doc, *res;
	size_t i = 0;

	cr_assert_eq(cli_run(args, &r), 0);
	cr_assert_eq(r.status, 0, "%s: %s", path, r.err);
	doc = parse(&r, seek_schema);
	expect_file(doc, path);
	res = json_object_get(doc, "results");
	for (; *l; l = strchr(l, '\n') + 1, i++) {
		const json_t *e = json_array_get(res, i), *off;
		char whence[8], val[32];

		cr_assert_eq(sscanf(l, "%7s %31s", whence, val), 2, "%s", l);
		cr_assert(e, "%s: result %zu missing", path, i);
		cr_expect_str_eq(json_string_value(json_object_get(e, "whence")),
				 whence, "%s", path);
		off = json_object_get(e, "offset");
		if (!strcmp(val, "EOF"))
			cr_expect(json_is_null(off), "%s: EOF not null", path);
		else
			cr_expect_eq(get_u(e, "offset"),
				     strtoull(val, NULL, 10), "%s", path);
	}
	cr_expect_eq(json_array_size(res), i, "%s: extra results", path);
	json_decref(doc);
	cli_out_free(&r);
}

/* xfs_io -v's extent lines (512-byte units) against "extents". */
static void compare_fiemap(const char *path, const char *golden)
{
	const char *args[] = { "fiemap", "--json", img, path, NULL };
	struct cli_out r;
	json_t *doc, *ext;
	size_t i = 0;

	cr_assert_eq(cli_run(args, &r), 0);
	cr_assert_eq(r.status, 0, "%s: %s", path, r.err);
	doc = parse(&r, fiemap_schema);
	expect_file(doc, path);
	ext = json_object_get(doc, "extents");
	for (const char *l = golden; (l = strchr(l, '\n')) && *++l; ) {
		unsigned long long lo, hi, plo, phi, total;
		unsigned flags;
		const json_t *e;

		if (sscanf(l, "%*d: [%llu..%llu]: %llu..%llu %llu %x", &lo, &hi,
			   &plo, &phi, &total, &flags) != 6)
			continue;	/* the header, a hole */
		cr_assert(e = json_array_get(ext, i++), "%s: too few", path);
		/* xfs_io rounds down to 512 bytes (inline data is not
		 * aligned); anything else must be whole sectors. */
		if (!(flags & FIEMAP_EXTENT_NOT_ALIGNED))
			cr_expect_eq((get_u(e, "logical") | get_u(e, "physical") |
				      get_u(e, "length")) % 512, 0, "%s", path);
		cr_expect_eq(get_u(e, "logical") / 512, lo, "%s", path);
		cr_expect_eq(get_u(e, "physical") / 512, plo, "%s", path);
		cr_expect_eq(get_u(e, "length") / 512, total, "%s", path);
		cr_expect_eq(get_u(e, "flags"), flags, "%s", path);
	}
	cr_expect_eq(json_array_size(ext), i, "%s: extra extents", path);
	json_decref(doc);
	cli_out_free(&r);
}

/* The next line of *TEXT into BUF (without the newline); false at the end. */
static bool next_line(const char **text, char *buf, size_t size)
{
	const char *nl = strchr(*text, '\n');
	size_t n = nl ? (size_t)(nl - *text) : strlen(*text);

	if (!**text)
		return false;
	snprintf(buf, size, "%.*s", (int)n, *text);
	*text += n + (nl != NULL);
	return true;
}

/* One extent line of filefrag -v against extent I (bytes when inline). */
static bool compare_ff_extent(const char *path, const json_t *ext, size_t i,
			    const char *line)
{
	unsigned long long lo, plo, len;
	const json_t *e;

	if (sscanf(line, "%*d: %llu.. %*u: %llu.. %*u: %llu:", &lo, &plo,
		   &len) != 3)
		return false;
	cr_assert(e = json_array_get(ext, i), "%s: too few extents", path);
	if (get_u(e, "flags") & FIEMAP_EXTENT_DATA_INLINE)
		return true;	/* filefrag prints those in bytes */
	cr_expect_eq(get_u(e, "logical_block"), lo, "%s: %s", path, line);
	cr_expect_eq(get_u(e, "physical_block"), plo, "%s: %s", path, line);
	cr_expect_eq(get_u(e, "blocks"), len, "%s: %s", path, line);
	return true;
}

/* filefrag -v's table, size and count against the file's object. */
static void compare_filefrag(const char *path, const char *golden)
{
	const char *args[] = { "filefrag", "--json", img, path, NULL };
	size_t plen = strlen(path), i = 0;
	unsigned long long size = ~0ULL;
	char line[8192];
	struct cli_out r;
	json_t *doc, *file, *ext;
	int found = -1;

	cr_assert_eq(cli_run(args, &r), 0);
	cr_assert_eq(r.status, 0, "%s: %s", path, r.err);
	doc = parse(&r, filefrag_schema);
	file = json_array_get(json_object_get(doc, "files"), 0);
	expect_file(file, path);
	ext = json_object_get(file, "extents");
	while (next_line(&golden, line, sizeof(line))) {
		if (!strncmp(line, "File size of ", 13) &&
		    !strncmp(line + 13 + plen, " is ", 4))
			size = strtoull(line + 13 + plen + 4, NULL, 10);
		else if (!strncmp(line, path, plen) && line[plen] == ':')
			found = atoi(line + plen + 1);
		else if (compare_ff_extent(path, ext, i, line))
			i++;
	}
	cr_expect_eq(json_array_size(ext), i, "%s: extra extents", path);
	cr_expect_eq(get_u(file, "size"), size, "%s", path);
	cr_expect_eq((int)get_u(file, "extents_found"), found, "%s", path);
	json_decref(doc);
	cli_out_free(&r);
}

/*
 * "$ CMD IMAGE PATH[ 0]\tBYTES\tEXIT" entries with PATH free of spaces, at
 * most MAX of each command (the runs cost a process each).
 */
/*
 * One golden entry CMD with its output GOLD ("\n" + the bytes): compared
 * when it is one of the three kinds and RUNS[kind] is below MAX.  1 when
 * compared.
 */
static int replay_entry(char *cmd, const char *gold, size_t max,
			size_t runs[3])
{
	char *path = strstr(cmd, " IMAGE ");
	size_t plen;

	if (!path || strchr(path += 7, '\t'))
		return 0;
	plen = strlen(path);
	if (!strncmp(cmd, "seek -a -r ", 11) && plen > 2 &&
	    !strcmp(path + plen - 2, " 0") && !memchr(path, ' ', plen - 2) &&
	    runs[0]++ < max) {
		path[plen - 2] = '\0';
		compare_seek(path, gold + 1);
	} else if (!strncmp(cmd, "fiemap -v IMAGE ", 16) &&
		   !strchr(path, ' ') && runs[1]++ < max) {
		compare_fiemap(path, gold);
	} else if (!strncmp(cmd, "filefrag -v IMAGE ", 18) &&
		   !strchr(path, ' ') && runs[2]++ < max) {
		compare_filefrag(path, gold);
	} else {
		return 0;
	}
	return 1;
}

static void replay_golden(const char *name, size_t max)
{
	char file[4096];
	size_t len, seen = 0, runs[3] = { 0 };
	char *text, *p;

	img = fixture_image(name);
	cr_assert(img, "cannot unpack %s", name);
	snprintf(file, sizeof(file), "%s/%s.golden", fixture_testdata(), name);
	cr_assert(text = calls_read_file(file, &len), "no %s(.gz)", file);
	for (p = text; p && p < text + len; ) {
		char cmd[4096], *tab = strchr(p, '\t'), *body, *gold;
		unsigned long n;
		int exit_status;

		cr_assert(!strncmp(p, "$ ", 2) && tab, "bad golden entry");
		snprintf(cmd, sizeof(cmd), "%.*s", (int)(tab - p - 2), p + 2);
		cr_assert_eq(sscanf(tab, "\t%lu\t%d", &n, &exit_status), 2);
		body = strchr(tab, '\n') + 1;
		if (exit_status == 0) {
			gold = strndup(body - 1, n + 1);
			seen += replay_entry(cmd, gold, max, runs);
			free(gold);
		}
		p = body + n;
	}
	free(text);
	cr_expect_gt(seen, 30, "%s: only %zu entries compared", name, seen);
}

TestSuite(json, .timeout = 120, .fini = cleanup);

/* Names that are not UTF-8; an htree directory's hole at 2^63-1. */
Test(json, names_image_matches_the_kernel_tools)
{
	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	replay_golden("ext4-names", 1000);
}

Test(json, ext4_4k_matches_the_kernel_tools)
{
	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	replay_golden("ext4-4k", 25);
}

/* Inline data: extents in bytes, DATA_INLINE. */
Test(json, ext4_inline_matches_the_kernel_tools)
{
	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	replay_golden("ext4-inline", 25);
}

/* Block-mapped files (merged extents), 1 KiB blocks. */
Test(json, ext3_1k_matches_the_kernel_tools)
{
	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	replay_golden("ext3-1k", 25);
}

/* ---- check --json: every path against find on the mount ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "INO /PATH" of every path in the document, sorted; *N of them. */
static char **document_paths(const json_t *doc, size_t *n)
{
	const json_t *in, *path;
	size_t i, j, cap = 0, len;
	char **v = NULL;

	*n = 0;
	json_array_foreach(json_object_get(doc, "inodes"), i, in) {
		json_array_foreach(json_object_get(in, "paths"), j, path) {
			char *name = name_value(path, "path", &len);

			if (*n == cap)
				v = realloc(v, (cap = cap ? 2 * cap : 256) *
					       sizeof(*v));
			cr_assert(asprintf(&v[(*n)++], "%llu %s",
					   (unsigned long long)get_u(in, "ino"),
					   name) > 0);
			free(name);
		}
	}
	qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/* The document's paths are the kernel's, NAME.paths, byte for byte. */
static void compare_document_paths(const char *name, const json_t *doc)
{
	char file[4096], *text, **got;
	size_t len, n, i, k = 0;

	got = document_paths(doc, &n);
	snprintf(file, sizeof(file), "%s/%s.paths", fixture_testdata(), name);
	cr_assert(text = calls_read_file(file, &len), "no %s(.gz)", file);
	for (i = 0; i < len; i += strlen(text + i) + 1, k++)
		if (k >= n || strcmp(text + i, got[k])) {
			cr_expect_fail("%s: the kernel has %s, check %s", name,
				       text + i, k < n ? got[k] : "nothing");
			break;
		}
	cr_expect_eq(k, n, "%s: %zu paths, the kernel %zu", name, n, k);
	for (i = 0; i < n; i++)
		free(got[i]);
	free(got);
	free(text);
}

static void check_json(const char *name, int want_status)
{
	const char *args[] = { "check", "--json", NULL, NULL };
	size_t i, failed = 0;
	struct cli_out r;
	const json_t *in;
	json_t *doc;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	img = fixture_image(name);
	cr_assert(img);
	args[2] = img;
	cr_assert_eq(cli_run(args, &r), 0);
	cr_expect_eq(r.status, want_status, "%s: %s", name, r.err);
	doc = parse(&r, check_schema);
	json_array_foreach(json_object_get(doc, "inodes"), i, in)
		failed += !json_is_true(json_object_get(in, "ok"));
	cr_expect_eq(get_u(doc, "inodes_checked"),
		     json_array_size(json_object_get(doc, "inodes")));
	cr_expect_eq(get_u(doc, "errors"), failed);
	compare_document_paths(name, doc);
	json_decref(doc);
	cli_out_free(&r);
}

/* Every name of the mount, non-UTF-8 ones through name + name_hex. */
Test(json, check_names_image_lists_the_kernels_paths)
{
	check_json("ext4-names", 0);
}

Test(json, check_corrupt_image)
{
	check_json("corrupt-4k", 1);
}

Test(json, check_ea_inode_image)
{
	check_json("ext4-ea_inode", 0);
}

/* ---- scan --format jsonl: a document a line, against the mount ---- */

static json_t *parse_line(const char *s, size_t len,
			  const struct field *schema)
{
	json_error_t jerr;
	json_t *doc = json_loadb(s, len, 0, &jerr);

	cr_assert(doc, "invalid JSON (%s at %d): %.*s", jerr.text,
		  jerr.position, (int)len, s);
	validate(doc, schema, "line");
	return doc;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One record against the kernel's lstat and FIEMAP of its inode. */
static void compare_scan_record(const char *name, const json_t *o,
				const struct scan_kinode *k)
{
	const json_t *paths = json_object_get(o, "paths"), *p;
	char **got = calloc(json_array_size(paths) + 1, sizeof(char *));
	size_t i, len;

	cr_expect_eq(get_u(o, "size"), k->st.size, "%s: <%llu>", name,
		     (unsigned long long)k->ino);
	cr_expect_eq(get_u(o, "mode"), k->st.mode);
	if (k->has_map) {
		cr_expect_eq(get_u(o, "written"), k->map.written);
		cr_expect_eq(get_u(o, "unwritten"), k->map.unwritten);
		cr_expect_eq(get_u(o, "past_eof"), k->map.past_eof);
		cr_expect_eq(get_u(o, "fiemap_extents"), k->map.warm);
	}
	json_array_foreach(paths, i, p)
		got[i] = name_value(p, "path", &len);
	qsort(got, json_array_size(paths), sizeof(*got), cmp_cstr);
	cr_expect_eq(json_array_size(paths), k->npaths, "%s: <%llu> paths",
		     name, (unsigned long long)k->ino);
	for (i = 0; i < json_array_size(paths) && i < k->npaths; i++)
		cr_expect_str_eq(got[i], k->paths[i]);
	for (i = 0; i < json_array_size(paths); i++)
		free(got[i]);
	free(got);
}

static void scan_jsonl(const char *name, int want_status)
{
	const char *args[] = { "scan", "--format", "jsonl", "-q", NULL, NULL };
	size_t records = 0, errors = 0, compared = 0;
	struct scan_kernel k;
	struct cli_out r;
	char file[4096];
	const char *at, *nl;
	json_t *doc;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	snprintf(file, sizeof(file), "%s/%s.scan", fixture_testdata(), name);
	cr_assert_eq(scan_kernel_load(file, &k), 0, "no %s(.gz)", file);
	img = fixture_image(name);
	cr_assert(img);
	args[4] = img;
	cr_assert_eq(cli_run(args, &r), 0);
	cr_expect_eq(r.status, want_status, "%s: %s", name, r.err);
	for (at = r.out; (nl = memchr(at, '\n', r.out + r.out_len - at));
	     at = nl + 1) {
		const struct scan_kinode *ki;

		if (nl + 1 == r.out + r.out_len)
			break;		/* the summary */
		doc = parse_line(at, (size_t)(nl - at), scan_record);
		records++;
		errors += !json_is_null(json_object_get(doc, "error"));
		if ((ki = scan_kernel_find(&k, get_u(doc, "ino"))) &&
		    json_is_null(json_object_get(doc, "error"))) {
			compare_scan_record(name, doc, ki);
			compared++;
		}
		json_decref(doc);
	}
	doc = parse_line(at, (size_t)(r.out + r.out_len - at), scan_summary);
	cr_expect_eq(get_u(json_object_get(doc, "summary"), "inodes"), records);
	cr_expect_eq(get_u(json_object_get(doc, "summary"), "errors"), errors);
	cr_expect_gt(compared, 0);
	json_decref(doc);
	cli_out_free(&r);
	scan_kernel_free(&k);
}

/* Names that are not UTF-8, hard links: through path and path_hex. */
Test(json, scan_names_image_matches_the_mount)
{
	scan_jsonl("ext4-names", 0);
}

Test(json, scan_corrupt_image)
{
	scan_jsonl("corrupt-4k", 1);
}

Test(json, scan_inline_image)
{
	scan_jsonl("ext4-inline", 0);
}

/* ---- blockmap --format jsonl: a range a line, the table's ranges ---- */

static const struct field blockmap_range[] = {
	{ "start", K_UINT, false, NULL },
	{ "count", K_UINT, false, NULL },
	{ "kind", K_STRING, false, NULL },
	{ "ino", K_UINT, false, NULL },
	{ "lblk", K_UINT, false, NULL },
	{ NULL, 0, false, NULL },
};

Test(json, blockmap_jsonl_is_the_csv)
{
	const char *args[] = { "blockmap", "--format", "jsonl", NULL, NULL };
	const char *csv_args[] = { "blockmap", "--format", "csv", NULL, NULL };
	struct cli_out r, c;
	const char *at, *nl, *row;
	char *img;
	size_t lines = 0;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	cr_assert((img = fixture_image("ext4-4k")));
	args[3] = csv_args[3] = img;
	cr_assert_eq(cli_run(args, &r), 0);
	cr_assert_eq(cli_run(csv_args, &c), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	row = strstr(c.out, "\r\n");
	cr_assert(row && !strncmp(c.out, "start,end,count,kind,ino,lblk", 29));
	for (at = r.out; (nl = memchr(at, '\n', r.out + r.out_len - at));
	     at = nl + 1) {
		json_t *doc = parse_line(at, (size_t)(nl - at), blockmap_range);
		char want[256];
		uint64_t start = get_u(doc, "start"), count = get_u(doc, "count");

		snprintf(want, sizeof(want), "\r\n%llu,%llu,%llu,%s,%llu,%llu\r\n",
			 (unsigned long long)start,
			 (unsigned long long)(start + count - 1),
			 (unsigned long long)count,
			 json_string_value(json_object_get(doc, "kind")),
			 (unsigned long long)get_u(doc, "ino"),
			 (unsigned long long)get_u(doc, "lblk"));
		cr_assert(!strncmp(row, want, strlen(want)), "line %zu: %s",
			  lines, want + 2);
		row = strstr(row + 2, "\r\n");
		json_decref(doc);
		lines++;
	}
	cr_expect_gt(lines, 10);
	cr_expect_str_eq(row, "\r\n", "the CSV has more rows");
	cli_out_free(&r);
	cli_out_free(&c);
	fixture_remove(img);
}

/* A file that cannot be opened is still one document, with its error. */
static const struct field open_error_schema[] = {
	{ "file", K_NAME, false, NULL },
	{ "error", K_OBJECT, false, error_schema },
	{ NULL, 0, false, NULL },
};

Test(json, open_error_is_one_document)
{
	const char *seek[] = { "seek", "-a", "--json", NULL, "/nothere", "0",
			       NULL };
	const char *fiemap[] = { "fiemap", "--json", NULL, "/hello.txt/x",
				 NULL };
	const char *const *runs[] = { seek, fiemap };
	const char *paths[] = { "/nothere", "/hello.txt/x" };
	const json_int_t want[] = { 2, 20 };	/* ENOENT, ENOTDIR */
	struct cli_out r;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	cr_assert((img = fixture_image("sample")));
	seek[3] = fiemap[2] = img;
	for (int i = 0; i < 2; i++) {
		json_t *doc;

		cr_assert_eq(cli_run(runs[i], &r), 0);
		cr_expect_eq(r.status, 1, "%s: exit %d", runs[i][0], r.status);
		doc = parse(&r, open_error_schema);
		expect_file(doc, paths[i]);
		cr_expect_eq(json_integer_value(json_object_get(json_object_get(
			doc, "error"), "errno")), want[i], "%s", runs[i][0]);
		json_decref(doc);
		cli_out_free(&r);
	}
}

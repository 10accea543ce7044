/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --json through jansson: the library does the syntax and the escaping;
 * this file adds the two rules e2map(1) documents under JSON OUTPUT.
 * Names that are not valid UTF-8 (paths as typed, names from the image)
 * carry each invalid byte as U+FFFD, plus a sibling KEY_hex with the exact
 * bytes; integers above 2^53-1 are decimal strings, so that a parser
 * holding numbers as doubles still reads them exactly.
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


/* Set when a value could not be built: the document is then not printed. */
static bool json_failed;

json_t *cmd_json_u64(uint64_t v)
{
	char buf[24];

	if (v <= JSON_MAX_SAFE)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return json_string(buf);
}

void cmd_json_set(json_t *obj, const char *key, json_t *value)
{
	/* json_object_set_new releases VALUE itself when it fails. */
	if (!obj || !value || json_object_set_new(obj, key, value) < 0) {
		if (!obj)
			json_decref(value);
		json_failed = true;
	}
}

void cmd_json_append(json_t *array, json_t *value)
{
	if (!array || !value || json_array_append_new(array, value) < 0) {
		if (!array)
			json_decref(value);
		json_failed = true;
	}
}

/*
 * Length of the well-formed UTF-8 sequence at S (N bytes left), or 0
 * (Unicode table 3-7: no overlong forms, no surrogates, nothing above
 * U+10FFFF).
 */
size_t cmd_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* NAME with each byte that starts no valid sequence as U+FFFD; malloc'd. */
static char *replace_invalid(const unsigned char *name, size_t len,
			     size_t *outlen, bool *valid)
{
	char *out = malloc(3 * len + 1), *p = out;
	size_t i = 0, n;

	*valid = true;
	if (!out)
		return NULL;
	while (i < len) {
		if ((n = cmd_utf8_len(name + i, len - i)) == 0) {
			memcpy(p, "\xef\xbf\xbd", 3);	/* U+FFFD */
			p += 3;
			i++;
			*valid = false;
			continue;
		}
		memcpy(p, name + i, n);
		p += n;
		i += n;
	}
	*p = '\0';
	*outlen = (size_t)(p - out);
	return out;
}

static json_t *hex_string(const unsigned char *s, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *hex = malloc(2 * len + 1);
	json_t *v;

	if (!hex)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[s[i] >> 4];
		hex[2 * i + 1] = digits[s[i] & 15];
	}
	hex[2 * len] = '\0';
	v = json_string(hex);
	free(hex);
	return v;
}

void cmd_json_set_name(json_t *obj, const char *key, const char *name,
		       size_t len)
{
	const unsigned char *s = (const unsigned char *)name;
	char hexkey[64];
	size_t n = 0;
	bool valid;
	char *text = replace_invalid(s, len, &n, &valid);

	cmd_json_set(obj, key, text ? json_stringn(text, n) : NULL);
	free(text);
	if (valid)
		return;
	snprintf(hexkey, sizeof(hexkey), "%s_hex", key);
	cmd_json_set(obj, hexkey, hex_string(s, len));
}

json_t *cmd_json_error(int err, const char *detail)
{
	json_t *e = json_object();
	const char *name = strerrorname_np(-err);

	cmd_json_set(e, "errno", json_integer(-err));
	cmd_json_set(e, "name", json_string(name ? name : "unknown"));
	cmd_json_set(e, "message", json_string(e2map_strerror(err)));
	if (detail && *detail)
		cmd_json_set_name(e, "detail", detail, strlen(detail));
	return e;
}

/* A document's text, gathered before one write: json_dumpf writes each
 * token with its own (locked) fwrite, which was most of a scan's jsonl. */
static int gather(const char *text, size_t n, void *payload)
{
	struct outbuf *b = payload;

	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * (b->len + n + 1);
		char *s = realloc(b->s, cap);

		if (!s)
			return -1;
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, text, n);
	b->len += n;
	return 0;
}

/*
 * JSON Lines written straight, for streams of a record per inode: the
 * line is built in one buffer and written once.  What jansson would write
 * the same way is written here (members in order, integers, constants,
 * names of printable ASCII); anything else -- a name with a quote, a
 * control byte or a byte past ASCII, a sub-document -- is written by
 * jansson itself, so the escaping rules stay jansson's and json.c's.
 */
/* Room for N more bytes (and the newline _end adds); NULL on failure. */
static char *jl_room(struct cmd_jline *l, size_t n)
{
	if (l->b.len + n + 1 > l->b.cap) {
		size_t cap = 2 * (l->b.len + n + 1);
		char *s = realloc(l->b.s, cap);

		if (!s) {
			l->failed = true;
			return NULL;
		}
		l->b.s = s;
		l->b.cap = cap;
	}
	return l->b.s + l->b.len;
}

#define JL_KEY_ROOM 40	/* a comma, quotes, colon and a key of 36 bytes */

static void jl_put(struct cmd_jline *l, const char *text, size_t n)
{
	char *p = jl_room(l, n);

	if (p) {
		memcpy(p, text, n);
		l->b.len += n;
	}
}

static void jl_puts(struct cmd_jline *l, const char *text)
{
	jl_put(l, text, strlen(text));
}

/* The comma before a member or element, and "KEY": when KEY is set: a
 * line has some thirty of them, so they are written byte by byte, the
 * key copied as it is measured (keys are short literals). */
static void jl_key(struct cmd_jline *l, const char *key)
{
	char *p = jl_room(l, JL_KEY_ROOM), *start = p;
	size_t i;

	if (!p)
		return;
	if (l->count[l->depth]++)
		*p++ = ',';
	if (key) {
		*p++ = '"';
		for (i = 0; key[i] && i < JL_KEY_ROOM - 4; i++)
			*p++ = key[i];
		if (key[i]) {	/* longer than any key written today */
			l->b.len += (size_t)(p - start);
			jl_puts(l, key + i);
			jl_put(l, "\":", 2);
			return;
		}
		*p++ = '"';
		*p++ = ':';
	}
	l->b.len += (size_t)(p - start);
}

void cmd_jl_begin(struct cmd_jline *l)
{
	l->b.len = 0;
	l->depth = 0;
	l->count[0] = 0;
	l->failed = false;
	jl_put(l, "{", 1);
}

void cmd_jl_open(struct cmd_jline *l, const char *key, char bracket)
{
	jl_key(l, key);
	jl_put(l, &bracket, 1);
	if (l->depth + 1 < CMD_JL_DEPTH)
		l->count[++l->depth] = 0;
	else
		l->failed = true;
}

void cmd_jl_close(struct cmd_jline *l, char bracket)
{
	jl_put(l, &bracket, 1);
	if (l->depth)
		l->depth--;
}

void cmd_jl_i64(struct cmd_jline *l, const char *key, int64_t v)
{
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char num[24], *end = num + sizeof(num), *s = end;

	do {
		*--s = (char)('0' + u % 10);
	} while (u /= 10);
	if (v < 0)
		*--s = '-';
	jl_key(l, key);
	jl_put(l, s, (size_t)(end - s));
}

void cmd_jl_u64(struct cmd_jline *l, const char *key, uint64_t v)
{
	char num[24];

	if (v <= JSON_MAX_SAFE) {
		cmd_jl_i64(l, key, (int64_t)v);
		return;
	}
	/* cmd_json_u64's rule: past 2^53-1, a decimal string. */
	snprintf(num, sizeof(num), "\"%" PRIu64 "\"", v);
	jl_key(l, key);
	jl_puts(l, num);
}

void cmd_jl_const(struct cmd_jline *l, const char *key, const char *literal)
{
	jl_key(l, key);
	jl_puts(l, literal);
}

void cmd_jl_string(struct cmd_jline *l, const char *key, const char *text)
{
	jl_key(l, key);
	jl_put(l, "\"", 1);
	jl_puts(l, text);
	jl_put(l, "\"", 1);
}

int cmd_json_dump_to(struct outbuf *b, json_t *v)
{
	int err = 0;

	if (!v || json_failed ||
	    json_dump_callback(v, gather, b, JSON_COMPACT | JSON_ENCODE_ANY) < 0)
		err = -ENOMEM;
	json_failed = false;
	json_decref(v);
	return err;
}

void cmd_jl_json(struct cmd_jline *l, const char *key, json_t *v)
{
	jl_key(l, key);
	if (cmd_json_dump_to(&l->b, v) < 0)
		l->failed = true;
}

int cmd_jl_end(struct cmd_jline *l)
{
	jl_put(l, "}", 1);
	if (l->failed)
		return -ENOMEM;
	l->b.s[l->b.len++] = '\n';	/* gather left room for it */
	return fwrite_unlocked(l->b.s, 1, l->b.len, stdout) == l->b.len ?
	       0 : -EIO;
}

void cmd_jl_free(struct cmd_jline *l)
{
	free(l->b.s);
	l->b = (struct outbuf){ 0 };
}

int cmd_json_print(json_t *doc)
{
	static struct outbuf b;
	int err = 0;

	b.len = 0;
	if (!doc || json_failed)
		err = -ENOMEM;
	else if (json_dump_callback(doc, gather, &b, JSON_COMPACT) < 0)
		err = -ENOMEM;
	else {
		b.s[b.len++] = '\n';	/* gather left room for it */
		if (fwrite_unlocked(b.s, 1, b.len, stdout) != b.len)
			err = -EIO;
	}
	json_decref(doc);
	json_failed = false;
	return err;
}

/* DOC compact, as a malloc'd string (released DOC); NULL on failure. */
static char *dump(json_t *doc)
{
	char *s = doc && !json_failed ? json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY) :
		  NULL;

	json_decref(doc);
	json_failed = false;
	return s;
}

/*
 * A document with one long array, streamed: HEAD's members, then KEY's
 * array element by element, then TAIL's members.  Each piece is jansson's
 * text; only the brackets and commas between pieces are written here.
 */
int cmd_json_stream_begin(json_t *head, const char *key)
{
	char *s = dump(head), *k = dump(json_string(key));
	size_t len = s ? strlen(s) : 0;
	int err = 0;

	if (!s || !k || len < 2)
		err = -ENOMEM;
	else if (printf("%.*s%s%s:[", (int)(len - 1), s, len > 2 ? "," : "",
			k) < 0)
		err = -EIO;
	free(s);
	free(k);
	return err;
}

int cmd_json_stream_item(json_t *item, bool first)
{
	char *s = dump(item);
	int err = 0;

	if (!s)
		err = -ENOMEM;
	else if (printf("%s%s", first ? "" : ",", s) < 0)
		err = -EIO;
	free(s);
	return err;
}

int cmd_json_stream_end(json_t *tail)
{
	char *s = dump(tail);
	size_t len = s ? strlen(s) : 0;
	int err = 0;

	if (!s || len < 2)
		err = -ENOMEM;
	else if (printf("]%s%s\n", len > 2 ? "," : "", s + 1) < 0)
		err = -EIO;
	free(s);
	return err;
}

/* FIEMAP_EXTENT_* names without the prefix, lowest bit first. */
static const struct {
	uint32_t flag;
	const char *name;
} extent_flags[] = {
	{ FIEMAP_EXTENT_LAST, "LAST" },
	{ FIEMAP_EXTENT_UNKNOWN, "UNKNOWN" },
	{ FIEMAP_EXTENT_DELALLOC, "DELALLOC" },
	{ FIEMAP_EXTENT_ENCODED, "ENCODED" },
	{ FIEMAP_EXTENT_DATA_ENCRYPTED, "DATA_ENCRYPTED" },
	{ FIEMAP_EXTENT_NOT_ALIGNED, "NOT_ALIGNED" },
	{ FIEMAP_EXTENT_DATA_INLINE, "DATA_INLINE" },
	{ FIEMAP_EXTENT_DATA_TAIL, "DATA_TAIL" },
	{ FIEMAP_EXTENT_UNWRITTEN, "UNWRITTEN" },
	{ FIEMAP_EXTENT_MERGED, "MERGED" },
	{ FIEMAP_EXTENT_SHARED, "SHARED" },
};

json_t *cmd_json_extent(const struct fiemap_extent *e)
{
	json_t *o = json_object(), *names = json_array();

	cmd_json_set(o, "logical", cmd_json_u64(e->fe_logical));
	cmd_json_set(o, "physical", cmd_json_u64(e->fe_physical));
	cmd_json_set(o, "length", cmd_json_u64(e->fe_length));
	cmd_json_set(o, "flags", cmd_json_u64(e->fe_flags));
	for (size_t i = 0; i < sizeof(extent_flags) / sizeof(extent_flags[0]);
	     i++)
		if (e->fe_flags & extent_flags[i].flag)
			cmd_json_append(names,
					json_string(extent_flags[i].name));
	cmd_json_set(o, "flag_names", names);
	return o;
}

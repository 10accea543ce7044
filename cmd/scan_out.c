/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map scan's record formats: a table for people, JSON Lines through
 * jansson (cmd/json.c's rules for names and large integers), CSV as RFC
 * 4180 (names escaped \xHH where not UTF-8 text), and The Sleuth Kit's
 * body format (MD5|name|inode|mode_as_string|UID|GID|size|atime|mtime|
 * ctime|crtime, md5 0), which `mactime -b` turns into a timeline, and
 * Timesketch's JSONL, which its importer takes as it is.
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char *scan_type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "regular";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFCHR: return "chardev";
	case S_IFBLK: return "blockdev";
	default: return "unknown";
	}
}

static const char *error_name(int err)
{
	const char *name = err ? strerrorname_np(-err) : "";

	return name ? name : "unknown";
}

/* ---- table ---- */

#define TABLE_HEAD "     INO TYPE      MODE  LINKS    UID    GID          SIZE" \
	"       WRITTEN     UNWRITTEN         HOLES      PAST_EOF   META" \
	"  EXTENTS   FIEMAP FL PATH"

/* Control bytes, DEL and \ as \xHH: one path a line, whatever it holds. */
static void put_c_escaped(const char *s, size_t len)
{
	size_t i, from = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != 0x7f && c != '\\')
			continue;
		fwrite(s + from, 1, i - from, stdout);
		printf("\\x%02x", c);
		from = i + 1;
	}
	fwrite(s + from, 1, len - from, stdout);
}

/* --hash: a line per digest (or the read's error) under the record. */
static void table_digests(const struct scan_extra *x)
{
	char hex[65];

	if (!x)
		return;
	for (unsigned bit = 1; bit <= E2MAP_DIGEST_SHA256; bit <<= 1)
		if (x->hashed && e2map_digest_hex(&x->d, bit, hex) > 0)
			printf("%*s%-6s %s\n", (int)sizeof(TABLE_HEAD) - 5, "",
			       e2map_digest_name(bit), hex);
	if (x->hash_err)
		printf("%*sread error: %s\n", (int)sizeof(TABLE_HEAD) - 5, "",
		       e2map_strerror(x->hash_err));
}

static void table_item(const struct scan_item *it)
{
	const struct e2map_record *r = it->r;
	const struct e2map_stat *st = &r->st;
	size_t i;

	printf("%8" PRIu64 " %-9s %04o %6" PRIu32 " %6" PRIu32 " %6" PRIu32
	       " %13" PRIu64 " %13" PRIu64 " %13" PRIu64 " %13" PRIu64 " %13"
	       PRIu64 " %6" PRIu64 " %8" PRIu64 " %8" PRIu64 " %c%c ", r->ino,
	       scan_type_name(st->mode), st->mode & 07777, st->nlink, st->uid,
	       st->gid, st->size, r->written, r->unwritten, r->holes,
	       r->past_eof, r->meta_blocks, r->extents, r->fiemap_extents,
	       r->flags & E2MAP_REC_INLINE ? 'i' : '-',
	       r->flags & E2MAP_REC_EA_INODE ? 'e' : '-');
	if (it->n)
		put_c_escaped(it->path[0], it->len[0]);
	else
		printf("<%" PRIu64 ">", r->ino);
	if (r->err) {
		printf("  error: %s", e2map_strerror(r->err));
		if (it->detail && *it->detail)
			printf(" (%s)", cmd_esc(it->detail));
	}
	putchar('\n');
	table_digests(it->x);
	/* Further names of the inode, under the first. */
	for (i = 1; i < it->n; i++) {
		printf("%*s", (int)sizeof(TABLE_HEAD) - 5, "");
		put_c_escaped(it->path[i], it->len[i]);
		putchar('\n');
	}
}

/* ---- jsonl ---- */

/*
 * A record a line, written straight into one buffer with the members'
 * keys as constants: the printing thread is a scan's critical path, and
 * a call per member (cmd_jl_*) was most of its line.  The text is what
 * the jansson documents gave (json.c's rules); jansson still writes each
 * name that is not printable ASCII and each error object.
 */
static struct outbuf jbuf;

/* Room for N more bytes at the end of B: where they go, or NULL. */
static char *jb_room(struct outbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * (b->len + n + 1);
		char *s = realloc(b->s, cap);

		if (!s)
			return NULL;
		b->s = s;
		b->cap = cap;
	}
	return b->s + b->len;
}

/* V in decimal at P, two digits a step; the end. */
static char *put_dec(char *p, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718"
		"19202122232425262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374757677787980"
		"81828384858687888990919293949596979899";
	unsigned n = 1;
	char *e;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	e = p + n;
	while (v >= 100) {
		e -= 2;
		memcpy(e, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(e - 2, pairs + 2 * v, 2);
	else
		e[-1] = (char)('0' + v);
	return p + n;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_dec(p, -(uint64_t)v);
	}
	return put_dec(p, (uint64_t)v);
}

#define JSON_MAX_SAFE 9007199254740991ULL	/* cmd_json_u64's 2^53 - 1 */

/* cmd_json_u64's rule: past 2^53-1, a decimal string. */
static char *put_u64(char *p, uint64_t v)
{
	if (v <= JSON_MAX_SAFE)
		return put_dec(p, v);
	*p++ = '"';
	p = put_dec(p, v);
	*p++ = '"';
	return p;
}

/* KEY, a string literal: its bytes without the terminating NUL. */
#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static char *put_time(char *p, bool has, const struct e2map_timespec *t)
{
	if (!has)
		return PUT(p, "null");
	p = PUT(p, "{\"sec\":");
	p = put_i64(p, t->sec);
	p = PUT(p, ",\"nsec\":");
	p = put_dec(p, t->nsec);
	*p++ = '}';
	return p;
}

/* The members after "paths": at most JL_FIXED bytes. */
#define JL_FIXED 1024

static char *put_stat(char *p, const struct e2map_record *r)
{
	const struct e2map_stat *st = &r->st;
	bool full = r->flags & E2MAP_REC_STAT;
	const char *type = scan_type_name(st->mode);
	size_t tlen = strlen(type);

	p = PUT(p, ",\"type\":\"");
	memcpy(p, type, tlen);
	p += tlen;
	p = PUT(p, "\",\"mode\":");
	p = put_dec(p, st->mode);
	p = PUT(p, ",\"nlink\":");
	p = put_dec(p, st->nlink);
	p = PUT(p, ",\"uid\":");
	p = put_dec(p, st->uid);
	p = PUT(p, ",\"gid\":");
	p = put_dec(p, st->gid);
	p = PUT(p, ",\"rdev\":");
	p = put_u64(p, st->rdev);
	p = PUT(p, ",\"size\":");
	p = put_u64(p, st->size);
	p = PUT(p, ",\"blocks\":");
	p = put_u64(p, st->blocks);
	p = PUT(p, ",\"atime\":");
	p = put_time(p, full, &st->atime);
	p = PUT(p, ",\"mtime\":");
	p = put_time(p, full, &st->mtime);
	p = PUT(p, ",\"ctime\":");
	p = put_time(p, full, &st->ctime);
	p = PUT(p, ",\"crtime\":");
	return put_time(p, full && (st->mask & E2MAP_STAT_CRTIME),
			&st->crtime);
}

static char *put_map(char *p, const struct e2map_record *r)
{
	p = PUT(p, ",\"written\":");
	p = put_u64(p, r->written);
	p = PUT(p, ",\"unwritten\":");
	p = put_u64(p, r->unwritten);
	p = PUT(p, ",\"holes\":");
	p = put_u64(p, r->holes);
	p = PUT(p, ",\"past_eof\":");
	p = put_u64(p, r->past_eof);
	p = PUT(p, ",\"meta_blocks\":");
	p = put_u64(p, r->meta_blocks);
	p = PUT(p, ",\"extents\":");
	p = put_u64(p, r->extents);
	p = PUT(p, ",\"fiemap_extents\":");
	p = put_u64(p, r->fiemap_extents);
	p = r->flags & E2MAP_REC_INLINE ? PUT(p, ",\"inline\":true") :
	    PUT(p, ",\"inline\":false");
	return r->flags & E2MAP_REC_EA_INODE ? PUT(p, ",\"ea_inode\":true") :
	       PUT(p, ",\"ea_inode\":false");
}

/* A name jansson would write as it is: printable ASCII, no " or \. */
static bool plain_name(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ||
		    s[i] == '"' || s[i] == '\\')
			return false;
	return true;
}

/* {"path":NAME}, with path_hex as cmd_json_set_name writes it. */
static int jl_path(struct outbuf *b, const char *name, size_t len)
{
	json_t *o;
	char *p;

	if (plain_name(name, len)) {
		if (!(p = jb_room(b, len + 12)))
			return -ENOMEM;
		p = PUT(p, "{\"path\":\"");
		memcpy(p, name, len);
		p = PUT(p + len, "\"}");
		b->len = (size_t)(p - b->s);
		return 0;
	}
	o = json_object();
	cmd_json_set_name(o, "path", name, len);
	return cmd_json_dump_to(b, o);
}

static int jl_paths(struct outbuf *b, const struct scan_item *it)
{
	char *p;
	int err;

	for (size_t i = 0; i < it->n; i++) {
		if (i) {
			if (!(p = jb_room(b, 1)))
				return -ENOMEM;
			b->s[b->len++] = ',';
		}
		if ((err = jl_path(b, it->path[i], it->len[i])) < 0)
			return err;
	}
	return 0;
}

/* ,"KEY":V with V jansson's text. */
static int jl_json(struct outbuf *b, const char *key, json_t *v)
{
	size_t klen = strlen(key);
	char *p = jb_room(b, klen + 4);

	if (!p) {
		json_decref(v);
		return -ENOMEM;
	}
	*p++ = ',';
	*p++ = '"';
	memcpy(p, key, klen);
	p += klen;
	*p++ = '"';
	*p++ = ':';
	b->len = (size_t)(p - b->s);
	return cmd_json_dump_to(b, v);
}

/* --hash: "md5":"hex"..., or "hash_error" where the read failed; only
 * for what was hashed (regular files). */
static int jl_digests(struct outbuf *b, const struct scan_extra *x)
{
	char hex[65], *p;
	const char *name;

	if (!x)
		return 0;
	for (unsigned bit = 1; bit <= E2MAP_DIGEST_SHA256; bit <<= 1) {
		if (!x->hashed || e2map_digest_hex(&x->d, bit, hex) <= 0)
			continue;
		name = e2map_digest_name(bit);
		if (!(p = jb_room(b, strlen(name) + strlen(hex) + 8)))
			return -ENOMEM;
		b->len += (size_t)sprintf(p, ",\"%s\":\"%s\"", name, hex);
	}
	if (x->hash_err)
		return jl_json(b, "hash_error", cmd_json_error(x->hash_err,
							       x->hash_why));
	return 0;
}

static int jsonl_item(const struct scan_item *it)
{
	const struct e2map_record *r = it->r;
	struct outbuf *b = &jbuf;
	char *p;
	int err;

	b->len = 0;
	if (!(p = jb_room(b, 40)))
		return -ENOMEM;
	p = PUT(p, "{\"ino\":");
	p = put_u64(p, r->ino);
	p = PUT(p, ",\"paths\":[");
	b->len = (size_t)(p - b->s);
	if ((err = jl_paths(b, it)) < 0)
		return err;
	if (!(p = jb_room(b, JL_FIXED)))
		return -ENOMEM;
	*p++ = ']';
	p = put_stat(p, r);
	p = put_map(p, r);
	b->len = (size_t)(p - b->s);
	if ((err = jl_digests(b, it->x)) < 0)
		return err;
	if (r->err)
		err = jl_json(b, "error", cmd_json_error(r->err, it->detail));
	else if ((p = jb_room(b, 16)))
		b->len = (size_t)(PUT(p, ",\"error\":null") - b->s);
	else
		err = -ENOMEM;
	if (err < 0 || !(p = jb_room(b, 2)))
		return err < 0 ? err : -ENOMEM;
	b->s[b->len++] = '}';
	b->s[b->len++] = '\n';
	return fwrite_unlocked(b->s, 1, b->len, stdout) == b->len ? 0 : -EIO;
}

/* ---- csv ---- */

#define CSV_HEAD "ino,type,mode,nlink,uid,gid,rdev,size,blocks,atime," \
	"mtime,ctime,crtime,written,unwritten,holes,past_eof,meta_blocks," \
	"extents,fiemap_extents,inline,ea_inode,errno,error,paths"

/*
 * A name as CSV text: UTF-8 passes, but for control bytes and DEL; those,
 * bytes that are not UTF-8, and the backslash are \xHH, so that the
 * newline between two paths of one field is never a name's.
 */
static void csv_name(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = cmd_utf8_len(u + i, len - i);
		if (n == 1 && (u[i] < 0x20 || u[i] == 0x7f || u[i] == '\\'))
			n = 0;
		if (!n) {
			printf("\\x%02x", u[i++]);
			continue;
		}
		for (; n; n--, i++) {
			if (u[i] == '"')
				putchar('"');	/* RFC 4180: "" inside quotes */
			putchar(u[i]);
		}
	}
}

static void csv_time(const struct e2map_timespec *t, bool have)
{
	if (have)
		printf("%" PRId64 ".%09" PRIu32, t->sec, t->nsec);
	putchar(',');
}

/* --hash: the columns asked for after paths, then hash_errno. */
static void csv_digests(const struct scan_extra *x)
{
	char hex[65];

	if (!x || !x->algs)
		return;
	for (unsigned bit = 1; bit <= E2MAP_DIGEST_SHA256; bit <<= 1) {
		if (!(x->algs & bit))
			continue;
		putchar(',');
		if (x->hashed && e2map_digest_hex(&x->d, bit, hex) > 0)
			fputs(hex, stdout);
	}
	printf(",%s", x->hash_err ? error_name(x->hash_err) : "");
}

static void csv_head_digests(unsigned algs)
{
	for (unsigned bit = 1; bit <= E2MAP_DIGEST_SHA256; bit <<= 1)
		if (algs & bit)
			printf(",%s", e2map_digest_name(bit));
	if (algs)
		fputs(",hash_errno", stdout);
}

static void csv_item(const struct scan_item *it)
{
	const struct e2map_record *r = it->r;
	const struct e2map_stat *st = &r->st;
	bool full = r->flags & E2MAP_REC_STAT;
	size_t i;

	printf("%" PRIu64 ",%s,0%o,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%"
	       PRIu64 ",%" PRIu64 ",%" PRIu64 ",", r->ino,
	       scan_type_name(st->mode), st->mode, st->nlink, st->uid,
	       st->gid, st->rdev, st->size, st->blocks);
	csv_time(&st->atime, full);
	csv_time(&st->mtime, full);
	csv_time(&st->ctime, full);
	csv_time(&st->crtime, full && (st->mask & E2MAP_STAT_CRTIME));
	printf("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%" PRIu64 ",%" PRIu64 ",%d,%d,%s,", r->written, r->unwritten,
	       r->holes, r->past_eof, r->meta_blocks, r->extents,
	       r->fiemap_extents, !!(r->flags & E2MAP_REC_INLINE),
	       !!(r->flags & E2MAP_REC_EA_INODE), error_name(r->err));
	if (r->err)
		cmd_csv_text(e2map_strerror(r->err));
	fputs(",\"", stdout);
	for (i = 0; i < it->n; i++) {
		if (i)
			putchar('\n');
		csv_name(it->path[i], it->len[i]);
	}
	putchar('"');
	csv_digests(it->x);
	fputs("\r\n", stdout);
}

/* ---- body ---- */

/* TSK's "r/rrw-r--r--": the name's type, /, the inode's type and ls's
 * permissions (s S t T for the set-id and sticky bits); a socket is
 * "s/h" as fls writes it. */
void scan_body_mode(uint32_t mode, char out[13])
{
	static const char rwx[] = "rwxrwxrwx";
	char t;
	int i;

	switch (mode & S_IFMT) {
	case S_IFREG: t = 'r'; break;
	case S_IFDIR: t = 'd'; break;
	case S_IFLNK: t = 'l'; break;
	case S_IFIFO: t = 'p'; break;
	case S_IFCHR: t = 'c'; break;
	case S_IFBLK: t = 'b'; break;
	case S_IFSOCK: t = 'h'; break;
	default: t = '-'; break;
	}
	/* The name's letter for a socket is TSK's TSK_FS_NAME_TYPE_SOCK,
	 * "s"; the inode's, TSK_FS_META_TYPE_SOCK, "h". */
	out[0] = t == 'h' ? 's' : t;
	out[2] = t;
	out[1] = '/';
	for (i = 0; i < 9; i++)
		out[3 + i] = (mode & (0400u >> i)) ? rwx[i] : '-';
	if (mode & S_ISUID)
		out[5] = (mode & S_IXUSR) ? 's' : 'S';
	if (mode & S_ISGID)
		out[8] = (mode & S_IXGRP) ? 's' : 'S';
	if (mode & S_ISVTX)
		out[11] = (mode & S_IXOTH) ? 't' : 'T';
	out[12] = '\0';
}

/* As TSK's tsk_print_sanitized, control bytes (and DEL) as ^, and the
 * field separator | too, so that a name cannot split its line. */
void scan_body_name(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		putchar(c < 0x20 || c == 0x7f || c == '|' ? '^' : c);
	}
}

static void body_line(const struct scan_item *it, const char *name,
		      size_t len, const char *target, size_t tlen)
{
	const struct e2map_record *r = it->r;
	const struct e2map_stat *st = &r->st;
	bool full = r->flags & E2MAP_REC_STAT;
	char mode[13], num[32], md5[65];

	if (it->x && it->x->hashed &&
	    e2map_digest_hex(&it->x->d, E2MAP_DIGEST_MD5, md5) > 0)
		printf("%s|", md5);
	else
		fputs("0|", stdout);
	scan_body_name(name, len);
	if (target) {
		fputs(" -> ", stdout);
		scan_body_name(target, tlen);
	}
	scan_body_mode(st->mode, mode);
	printf("|%" PRIu64 "|%s|%" PRIu32 "|%" PRIu32 "|%" PRIu64 "|", r->ino,
	       mode, st->uid, st->gid, st->size);
	if (!full) {
		fputs("0|0|0|0\n", stdout);
		return;
	}
	snprintf(num, sizeof(num), "%" PRId64, st->mask & E2MAP_STAT_CRTIME ?
		 st->crtime.sec : 0);
	printf("%" PRId64 "|%" PRId64 "|%" PRId64 "|%s\n", st->atime.sec,
	       st->mtime.sec, st->ctime.sec, num);
}

static void body_item(e2map_t *m, const struct scan_item *it)
{
	char target[4096], name[32];
	int64_t tlen = -1;
	size_t i;

	if ((it->r->flags & E2MAP_REC_STAT) && S_ISLNK(it->r->st.mode))
		tlen = e2map_inode_readlink(m, it->r->ino, target,
					    sizeof(target));
	if (tlen > (int64_t)sizeof(target))
		tlen = sizeof(target);
	for (i = 0; i < it->n; i++)
		/* fls lists what is in the root, never the root itself. */
		if (it->len[i] != 1 || it->path[i][0] != '/')
			body_line(it, it->path[i], it->len[i],
				  tlen >= 0 ? target : NULL,
				  tlen >= 0 ? (size_t)tlen : 0);
	if (!it->n) {
		snprintf(name, sizeof(name), "<%" PRIu64 ">", it->r->ino);
		body_line(it, name, strlen(name), NULL, 0);
	}
}

/* ---- timesketch ---- */

/* plaso's filestat descriptions: one event per name and per time. */
static const char *const ts_desc[] = { "Content Modification Time",
				       "Last Access Time",
				       "Metadata Modification Time",
				       "Creation Time" };

static const char *ts_word(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "link";
	case S_IFIFO: return "pipe";
	case S_IFSOCK: return "socket";
	case S_IFCHR: case S_IFBLK: return "device";
	default: return "unknown";
	}
}

/* ISO 8601 in UTC with microseconds, as Timesketch and plaso write it. */
static void ts_datetime(const struct e2map_timespec *t, char out[64])
{
	time_t sec = (time_t)t->sec;
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%06u+00:00",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned)(t->nsec / 1000 % 1000000));
}

static int ts_event(const struct scan_item *it, json_t *names,
		    const char *text, const char *desc,
		    const struct e2map_timespec *t)
{
	const struct e2map_record *r = it->r;
	const struct e2map_stat *st = &r->st;
	json_t *ev = json_object(), *v;
	const char *key;
	char when[64], *msg, hex[65];

	ts_datetime(t, when);
	if (asprintf(&msg, "%s Type: %s", text, ts_word(st->mode)) < 0)
		msg = NULL;
	cmd_json_set(ev, "message", msg ? json_string(msg) : NULL);
	free(msg);
	cmd_json_set(ev, "datetime", json_string(when));
	cmd_json_set(ev, "timestamp", json_integer(t->sec * 1000000 +
						   t->nsec / 1000));
	cmd_json_set(ev, "timestamp_desc", json_string(desc));
	/* The second's nanoseconds: in one count they pass int64_t
	 * after 2262. */
	cmd_json_set(ev, "nanoseconds", json_integer(t->nsec));
	cmd_json_set(ev, "data_type", json_string("fs:stat"));
	cmd_json_set(ev, "parser", json_string("e2map"));
	cmd_json_set(ev, "display_name", json_string(text));
	json_object_foreach(names, key, v)
		cmd_json_set(ev, key, json_incref(v));
	cmd_json_set(ev, "inode", cmd_json_u64(r->ino));
	cmd_json_set(ev, "file_entry_type", json_string(ts_word(st->mode)));
	cmd_json_set(ev, "file_size", cmd_json_u64(st->size));
	cmd_json_set(ev, "mode", json_integer(st->mode));
	cmd_json_set(ev, "uid", json_integer(st->uid));
	cmd_json_set(ev, "gid", json_integer(st->gid));
	if (it->x && it->x->hashed &&
	    e2map_digest_hex(&it->x->d, E2MAP_DIGEST_SHA256, hex) > 0)
		cmd_json_set(ev, "sha256_hash", json_string(hex));
	return cmd_json_print(ev);
}

/*
 * Timesketch's JSONL (message, datetime, timestamp_desc), one event per
 * name and per time the inode keeps, as plaso's fs:stat events: names
 * as text (U+FFFD for each byte that is not UTF-8, and filename_hex).
 */
static int timesketch_item(const struct scan_item *it)
{
	const struct e2map_stat *st = &it->r->st;
	const struct e2map_timespec *t[] = { &st->mtime, &st->atime,
					     &st->ctime, &st->crtime };
	size_t n = (st->mask & E2MAP_STAT_CRTIME) ? 4 : 3;
	int err = 0;

	if (!(it->r->flags & E2MAP_REC_STAT))
		return 0;
	for (size_t i = 0; i < it->n && !err; i++) {
		json_t *names = json_object();

		cmd_json_set_name(names, "filename", it->path[i], it->len[i]);
		for (size_t k = 0; k < n && !err; k++)
			err = ts_event(it, names, json_string_value(
				json_object_get(names, "filename")),
				ts_desc[k], t[k]);
		json_decref(names);
	}
	return err;
}

void scan_print_head(enum scan_format fmt, unsigned algs)
{
	if (fmt == SCAN_TABLE) {
		puts(TABLE_HEAD);
	} else if (fmt == SCAN_CSV) {
		fputs(CSV_HEAD, stdout);
		csv_head_digests(algs);
		fputs("\r\n", stdout);
	}
}

int scan_print_item(enum scan_format fmt, e2map_t *m,
		    const struct scan_item *it)
{
	switch (fmt) {
	case SCAN_TABLE:
		table_item(it);
		return 0;
	case SCAN_JSONL:
		return jsonl_item(it);
	case SCAN_CSV:
		csv_item(it);
		return 0;
	case SCAN_BODY:
		body_item(m, it);
		return 0;
	case SCAN_TIMESKETCH:
		return timesketch_item(it);
	case SCAN_DFXML:
		return scan_dfxml_item(it);
	}
	return -EINVAL;
}

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
#include "scan_line.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *error_name(int err)
{
	const char *name = err ? strerrorname_np(-err) : "";

	return name ? name : "unknown";
}

static struct outbuf jbuf;

/* ---- table ---- */

#define TABLE_HEAD "     INO TYPE      MODE  LINKS    UID    GID          SIZE" \
	"       WRITTEN     UNWRITTEN         HOLES      PAST_EOF   META" \
	"  EXTENTS   FIEMAP FL PATH"

/* Control bytes, DEL and \ as \xHH: one path a line, whatever it holds
 * (4 * LEN bytes at most). */
static char *put_c_escaped(char *p, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != 0x7f && c != '\\')
			*p++ = (char)c;
		else
			p = put_hex2(p, c);
	}
	return p;
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

#define TABLE_INDENT ((unsigned)sizeof(TABLE_HEAD) - 5)

/* The fixed columns, up to the path: at most 256 bytes. */
static char *table_columns(char *p, const struct e2map_record *r)
{
	const struct e2map_stat *st = &r->st;
	const char *type = scan_type_name(st->mode);
	unsigned mode = st->mode & 07777, i;

	p = put_w(p, r->ino, 8);
	*p++ = ' ';
	p = put_str(p, type);
	for (i = (unsigned)strlen(type); i < 9; i++)
		*p++ = ' ';
	*p++ = ' ';
	for (i = 4; i-- > 0;)	/* %04o: MODE has at most 4 octal digits */
		*p++ = (char)('0' + ((mode >> (3 * i)) & 7));
	*p++ = ' ';
	p = put_w(p, st->nlink, 6);
	*p++ = ' ';
	p = put_w(p, st->uid, 6);
	*p++ = ' ';
	p = put_w(p, st->gid, 6);
	*p++ = ' ';
	p = put_w(p, st->size, 13);
	*p++ = ' ';
	p = put_w(p, r->written, 13);
	*p++ = ' ';
	p = put_w(p, r->unwritten, 13);
	*p++ = ' ';
	p = put_w(p, r->holes, 13);
	*p++ = ' ';
	p = put_w(p, r->past_eof, 13);
	*p++ = ' ';
	p = put_w(p, r->meta_blocks, 6);
	*p++ = ' ';
	p = put_w(p, r->extents, 8);
	*p++ = ' ';
	p = put_w(p, r->fiemap_extents, 8);
	*p++ = ' ';
	*p++ = r->flags & E2MAP_REC_INLINE ? 'i' : '-';
	*p++ = r->flags & E2MAP_REC_EA_INODE ? 'e' : '-';
	*p++ = ' ';
	return p;
}

static int table_item(const struct scan_item *it)
{
	const struct e2map_record *r = it->r;
	struct outbuf *b = &jbuf;
	char *p = NULL;
	int err;

	b->len = 0;
	/* The columns (at most 240 bytes), then the path (4 a byte escaped)
	 * or <INO>, and the newline. */
	if ((err = line_room(b, &p, 256 + 24 +
			     4 * (it->n ? it->len[0] : 0))) < 0)
		return err;
	p = table_columns(p, r);
	if (it->n) {
		p = put_c_escaped(p, it->path[0], it->len[0]);
	} else {
		*p++ = '<';
		p = put_dec(p, r->ino);
		*p++ = '>';
	}
	if (r->err) {
		const char *msg = e2map_strerror(r->err);
		const char *detail = it->detail && *it->detail ?
				     cmd_esc(it->detail) : NULL;

		if ((err = line_room(b, &p, strlen(msg) + 16 +
				     (detail ? strlen(detail) : 0))) < 0)
			return err;
		p = put_str(PUT(p, "  error: "), msg);
		if (detail) {
			p = put_str(PUT(p, " ("), detail);
			*p++ = ')';
		}
	}
	*p++ = '\n';
	b->len = (size_t)(p - b->s);
	if (it->x) {
		if ((err = line_write(b)) < 0)
			return err;
		table_digests(it->x);
	}
	/* Further names of the inode, under the first. */
	for (size_t i = 1; i < it->n; i++) {
		p = NULL;
		if ((err = line_room(b, &p, TABLE_INDENT + 4 * it->len[i] +
				     1)) < 0)
			return err;
		memset(p, ' ', TABLE_INDENT);
		p = put_c_escaped(p + TABLE_INDENT, it->path[i], it->len[i]);
		*p++ = '\n';
		b->len = (size_t)(p - b->s);
	}
	return line_write(b);
}

/* ---- csv ---- */

#define CSV_HEAD "ino,type,mode,nlink,uid,gid,rdev,size,blocks,atime," \
	"mtime,ctime,crtime,written,unwritten,holes,past_eof,meta_blocks," \
	"extents,fiemap_extents,inline,ea_inode,errno,error,paths"

/*
 * A name as CSV text: UTF-8 passes, but for control bytes and DEL; those,
 * bytes that are not UTF-8, and the backslash are \xHH, so that the
 * newline between two paths of one field is never a name's (4 * LEN
 * bytes at most).
 */
static char *csv_name(char *p, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '\\') {
			if (u[i] == '"')
				*p++ = '"';	/* RFC 4180: "" inside quotes */
			*p++ = (char)u[i++];
			continue;
		}
		n = cmd_utf8_len(u + i, len - i);
		if (n == 1 || !n) {
			p = put_hex2(p, u[i++]);
			continue;
		}
		memcpy(p, u + i, n);
		p += n;
		i += n;
	}
	return p;
}

static char *csv_time(char *p, const struct e2map_timespec *t, bool have)
{
	char nsec[12], *e;

	if (have) {
		p = put_i64(p, t->sec);
		*p++ = '.';
		e = put_dec(nsec, t->nsec);
		for (ptrdiff_t k = e - nsec; k < 9; k++)
			*p++ = '0';	/* %09 */
		memcpy(p, nsec, (size_t)(e - nsec));
		p += e - nsec;
	}
	*p++ = ',';
	return p;
}

/* cmd_csv_text's field: quoted where it holds , " CR or LF (2 * its
 * length + 2 bytes at most). */
static char *csv_text(char *p, const char *s)
{
	if (!strpbrk(s, ",\"\r\n"))
		return put_str(p, s);
	*p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	*p++ = '"';
	return p;
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

/* Up to the paths' field: at most 512 bytes but the error's text. */
static char *csv_columns(char *p, const struct e2map_record *r)
{
	const struct e2map_stat *st = &r->st;
	bool full = r->flags & E2MAP_REC_STAT;
	const uint64_t v[] = { r->written, r->unwritten, r->holes, r->past_eof,
			       r->meta_blocks, r->extents, r->fiemap_extents };
	char oct[12], *o = oct + sizeof(oct);
	uint32_t mode = st->mode;

	p = put_dec(p, r->ino);
	*p++ = ',';
	p = put_str(p, scan_type_name(st->mode));
	*p++ = ',';
	*p++ = '0';
	do {
		*--o = (char)('0' + (mode & 7));
	} while (mode >>= 3);
	memcpy(p, o, (size_t)(oct + sizeof(oct) - o));
	p += oct + sizeof(oct) - o;
	*p++ = ',';
	p = put_dec(p, st->nlink);
	*p++ = ',';
	p = put_dec(p, st->uid);
	*p++ = ',';
	p = put_dec(p, st->gid);
	*p++ = ',';
	p = put_dec(p, st->rdev);
	*p++ = ',';
	p = put_dec(p, st->size);
	*p++ = ',';
	p = put_dec(p, st->blocks);
	*p++ = ',';
	p = csv_time(p, &st->atime, full);
	p = csv_time(p, &st->mtime, full);
	p = csv_time(p, &st->ctime, full);
	p = csv_time(p, &st->crtime, full && (st->mask & E2MAP_STAT_CRTIME));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		p = put_dec(p, v[i]);
		*p++ = ',';
	}
	*p++ = r->flags & E2MAP_REC_INLINE ? '1' : '0';
	*p++ = ',';
	*p++ = r->flags & E2MAP_REC_EA_INODE ? '1' : '0';
	*p++ = ',';
	p = put_str(p, error_name(r->err));
	*p++ = ',';
	return p;
}

static int csv_item(const struct scan_item *it)
{
	const struct e2map_record *r = it->r;
	const char *msg = r->err ? e2map_strerror(r->err) : "";
	struct outbuf *b = &jbuf;
	size_t room = 512 + 2 * strlen(msg), i;
	char *p = NULL;
	int err;

	for (i = 0; i < it->n; i++)
		room += 4 * it->len[i] + 1;
	b->len = 0;
	if ((err = line_room(b, &p, room)) < 0)
		return err;
	p = csv_columns(p, r);
	if (r->err)
		p = csv_text(p, msg);
	p = PUT(p, ",\"");
	for (i = 0; i < it->n; i++) {
		if (i)
			*p++ = '\n';
		p = csv_name(p, it->path[i], it->len[i]);
	}
	*p++ = '"';
	b->len = (size_t)(p - b->s);
	if (it->x && it->x->algs) {
		if ((err = line_write(b)) < 0)
			return err;
		csv_digests(it->x);
		p = b->s;
	}
	if ((err = line_room(b, &p, 2)) < 0)
		return err;
	p = PUT(p, "\r\n");
	b->len = (size_t)(p - b->s);
	return line_write(b);
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

/* scan_body_name into the line (LEN bytes). */
static char *body_name(char *p, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		*p++ = c < 0x20 || c == 0x7f || c == '|' ? '^' : (char)c;
	}
	return p;
}

/* One line of NAME (LEN bytes), at most 256 bytes more than its names. */
static char *body_line(char *p, const struct scan_item *it, const char *name,
		       size_t len, const char *target, size_t tlen)
{
	const struct e2map_record *r = it->r;
	const struct e2map_stat *st = &r->st;
	char mode[13];

	if (it->x && it->x->hashed &&
	    e2map_digest_hex(&it->x->d, E2MAP_DIGEST_MD5, p) > 0)
		p += strlen(p);
	else
		*p++ = '0';
	*p++ = '|';
	p = body_name(p, name, len);
	if (target)
		p = body_name(PUT(p, " -> "), target, tlen);
	scan_body_mode(st->mode, mode);
	*p++ = '|';
	p = put_dec(p, r->ino);
	*p++ = '|';
	p = put_str(p, mode);
	*p++ = '|';
	p = put_dec(p, st->uid);
	*p++ = '|';
	p = put_dec(p, st->gid);
	*p++ = '|';
	p = put_dec(p, st->size);
	*p++ = '|';
	if (!(r->flags & E2MAP_REC_STAT))
		return PUT(p, "0|0|0|0\n");
	p = put_i64(p, st->atime.sec);
	*p++ = '|';
	p = put_i64(p, st->mtime.sec);
	*p++ = '|';
	p = put_i64(p, st->ctime.sec);
	*p++ = '|';
	p = put_i64(p, st->mask & E2MAP_STAT_CRTIME ? st->crtime.sec : 0);
	*p++ = '\n';
	return p;
}

static int body_item(e2map_t *m, const struct scan_item *it)
{
	char target[4096], name[32];
	struct outbuf *b = &jbuf;
	int64_t tlen = -1;
	const char *t;
	size_t i, room = 0, tl;
	char *p = NULL;
	int err;

	if ((it->r->flags & E2MAP_REC_STAT) && S_ISLNK(it->r->st.mode))
		tlen = e2map_inode_readlink(m, it->r->ino, target,
					    sizeof(target));
	if (tlen > (int64_t)sizeof(target))
		tlen = sizeof(target);
	t = tlen >= 0 ? target : NULL;
	tl = tlen >= 0 ? (size_t)tlen : 0;
	for (i = 0; i < it->n; i++)
		room += it->len[i] + tl + 256;
	b->len = 0;
	if ((err = line_room(b, &p, room + 256)) < 0)
		return err;
	for (i = 0; i < it->n; i++)
		/* fls lists what is in the root, never the root itself. */
		if (it->len[i] != 1 || it->path[i][0] != '/')
			p = body_line(p, it, it->path[i], it->len[i], t, tl);
	if (!it->n) {
		snprintf(name, sizeof(name), "<%" PRIu64 ">", it->r->ino);
		p = body_line(p, it, name, strlen(name), NULL, 0);
	}
	b->len = (size_t)(p - b->s);
	return line_write(b);
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
		return table_item(it);
	case SCAN_JSONL:
		return scan_jsonl_item(it);
	case SCAN_CSV:
		return csv_item(it);
	case SCAN_BODY:
		return body_item(m, it);
	case SCAN_TIMESKETCH:
		return timesketch_item(it);
	case SCAN_DFXML:
		return scan_dfxml_item(it);
	}
	return -EINVAL;
}

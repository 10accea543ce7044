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

/* A record a line, written straight (cmd_jl_*, json.c): with jansson
 * documents, building and freeing them was three quarters of a scan. */
static struct cmd_jline jline;

static void jl_time(struct cmd_jline *l, const char *key, bool has,
		    const struct e2map_timespec *t)
{
	if (!has) {
		cmd_jl_const(l, key, "null");
		return;
	}
	cmd_jl_open(l, key, '{');
	cmd_jl_i64(l, "sec", t->sec);
	cmd_jl_i64(l, "nsec", t->nsec);
	cmd_jl_close(l, '}');
}

static void jl_stat(struct cmd_jline *l, const struct e2map_record *r)
{
	const struct e2map_stat *st = &r->st;
	bool full = r->flags & E2MAP_REC_STAT;

	cmd_jl_string(l, "type", scan_type_name(st->mode));
	cmd_jl_i64(l, "mode", st->mode);
	cmd_jl_i64(l, "nlink", st->nlink);
	cmd_jl_i64(l, "uid", st->uid);
	cmd_jl_i64(l, "gid", st->gid);
	cmd_jl_u64(l, "rdev", st->rdev);
	cmd_jl_u64(l, "size", st->size);
	cmd_jl_u64(l, "blocks", st->blocks);
	jl_time(l, "atime", full, &st->atime);
	jl_time(l, "mtime", full, &st->mtime);
	jl_time(l, "ctime", full, &st->ctime);
	jl_time(l, "crtime", full && (st->mask & E2MAP_STAT_CRTIME),
		&st->crtime);
}

static void jl_map(struct cmd_jline *l, const struct e2map_record *r)
{
	cmd_jl_u64(l, "written", r->written);
	cmd_jl_u64(l, "unwritten", r->unwritten);
	cmd_jl_u64(l, "holes", r->holes);
	cmd_jl_u64(l, "past_eof", r->past_eof);
	cmd_jl_u64(l, "meta_blocks", r->meta_blocks);
	cmd_jl_u64(l, "extents", r->extents);
	cmd_jl_u64(l, "fiemap_extents", r->fiemap_extents);
	cmd_jl_const(l, "inline", r->flags & E2MAP_REC_INLINE ? "true" :
		     "false");
	cmd_jl_const(l, "ea_inode", r->flags & E2MAP_REC_EA_INODE ? "true" :
		     "false");
}

/* --hash: "md5":"hex"..., or "hash_error" where the read failed; only
 * for what was hashed (regular files). */
static void jl_digests(struct cmd_jline *l, const struct scan_extra *x)
{
	char hex[65];

	if (!x)
		return;
	for (unsigned bit = 1; bit <= E2MAP_DIGEST_SHA256; bit <<= 1)
		if (x->hashed && e2map_digest_hex(&x->d, bit, hex) > 0)
			cmd_jl_string(l, e2map_digest_name(bit), hex);
	if (x->hash_err)
		cmd_jl_json(l, "hash_error", cmd_json_error(x->hash_err,
							    x->hash_why));
}

static int jsonl_item(const struct scan_item *it)
{
	struct cmd_jline *l = &jline;
	size_t i;

	cmd_jl_begin(l);
	cmd_jl_u64(l, "ino", it->r->ino);
	cmd_jl_open(l, "paths", '[');
	for (i = 0; i < it->n; i++)
		cmd_jl_name_object(l, "path", it->path[i], it->len[i]);
	cmd_jl_close(l, ']');
	jl_stat(l, it->r);
	jl_map(l, it->r);
	jl_digests(l, it->x);
	if (it->r->err)
		cmd_jl_json(l, "error", cmd_json_error(it->r->err, it->detail));
	else
		cmd_jl_const(l, "error", "null");
	return cmd_jl_end(l);
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

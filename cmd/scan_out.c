/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map scan's record formats: a table for people, JSON Lines through
 * jansson (cmd/json.c's rules for names and large integers), CSV as RFC
 * 4180 (names escaped \xHH where not UTF-8 text), and The Sleuth Kit's
 * body format (MD5|name|inode|mode_as_string|UID|GID|size|atime|mtime|
 * ctime|crtime, md5 0), which `mactime -b` turns into a timeline.
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

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
	/* Further names of the inode, under the first. */
	for (i = 1; i < it->n; i++) {
		printf("%*s", (int)sizeof(TABLE_HEAD) - 5, "");
		put_c_escaped(it->path[i], it->len[i]);
		putchar('\n');
	}
}

/* ---- jsonl ---- */

static json_t *json_time(const struct e2map_timespec *t)
{
	json_t *o = json_object();

	cmd_json_set(o, "sec", json_integer((json_int_t)t->sec));
	cmd_json_set(o, "nsec", json_integer(t->nsec));
	return o;
}

static void json_stat(json_t *o, const struct e2map_record *r)
{
	const struct e2map_stat *st = &r->st;
	bool full = r->flags & E2MAP_REC_STAT;

	cmd_json_set(o, "type", json_string(scan_type_name(st->mode)));
	cmd_json_set(o, "mode", json_integer(st->mode));
	cmd_json_set(o, "nlink", json_integer(st->nlink));
	cmd_json_set(o, "uid", json_integer(st->uid));
	cmd_json_set(o, "gid", json_integer(st->gid));
	cmd_json_set(o, "rdev", cmd_json_u64(st->rdev));
	cmd_json_set(o, "size", cmd_json_u64(st->size));
	cmd_json_set(o, "blocks", cmd_json_u64(st->blocks));
	cmd_json_set(o, "atime", full ? json_time(&st->atime) : json_null());
	cmd_json_set(o, "mtime", full ? json_time(&st->mtime) : json_null());
	cmd_json_set(o, "ctime", full ? json_time(&st->ctime) : json_null());
	cmd_json_set(o, "crtime", full && (st->mask & E2MAP_STAT_CRTIME) ?
		     json_time(&st->crtime) : json_null());
}

static void json_map(json_t *o, const struct e2map_record *r)
{
	cmd_json_set(o, "written", cmd_json_u64(r->written));
	cmd_json_set(o, "unwritten", cmd_json_u64(r->unwritten));
	cmd_json_set(o, "holes", cmd_json_u64(r->holes));
	cmd_json_set(o, "past_eof", cmd_json_u64(r->past_eof));
	cmd_json_set(o, "meta_blocks", cmd_json_u64(r->meta_blocks));
	cmd_json_set(o, "extents", cmd_json_u64(r->extents));
	cmd_json_set(o, "fiemap_extents", cmd_json_u64(r->fiemap_extents));
	cmd_json_set(o, "inline", json_boolean(r->flags & E2MAP_REC_INLINE));
	cmd_json_set(o, "ea_inode",
		     json_boolean(r->flags & E2MAP_REC_EA_INODE));
}

static int jsonl_item(const struct scan_item *it)
{
	json_t *o = json_object(), *paths = json_array();
	size_t i;

	cmd_json_set(o, "ino", cmd_json_u64(it->r->ino));
	for (i = 0; i < it->n; i++) {
		json_t *p = json_object();

		cmd_json_set_name(p, "path", it->path[i], it->len[i]);
		cmd_json_append(paths, p);
	}
	cmd_json_set(o, "paths", paths);
	json_stat(o, it->r);
	json_map(o, it->r);
	cmd_json_set(o, "error", it->r->err ?
		     cmd_json_error(it->r->err, it->detail) : json_null());
	return cmd_json_print(o);
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

/* A text field, quoted as RFC 4180 asks when it holds , " CR or LF. */
static void csv_text(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
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
		csv_text(e2map_strerror(r->err));
	fputs(",\"", stdout);
	for (i = 0; i < it->n; i++) {
		if (i)
			putchar('\n');
		csv_name(it->path[i], it->len[i]);
	}
	fputs("\"\r\n", stdout);
}

/* ---- body ---- */

/* TSK's "r/rrw-r--r--": the name's type, /, the inode's type and ls's
 * permissions (s S t T for the set-id and sticky bits). */
static void body_mode(uint32_t mode, char out[13])
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
	out[0] = out[2] = t;
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
static void body_name(const char *s, size_t len)
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
	char mode[13], num[32];

	fputs("0|", stdout);
	body_name(name, len);
	if (target) {
		fputs(" -> ", stdout);
		body_name(target, tlen);
	}
	body_mode(st->mode, mode);
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
		tlen = e2map_readlink_ino(m, it->r->ino, target,
					  sizeof(target));
	if (tlen > (int64_t)sizeof(target))
		tlen = sizeof(target);
	for (i = 0; i < it->n; i++)
		body_line(it, it->path[i], it->len[i],
			  tlen >= 0 ? target : NULL, tlen >= 0 ? (size_t)tlen : 0);
	if (!it->n) {
		snprintf(name, sizeof(name), "<%" PRIu64 ">", it->r->ino);
		body_line(it, name, strlen(name), NULL, 0);
	}
}

void scan_print_head(enum scan_format fmt)
{
	if (fmt == SCAN_TABLE)
		puts(TABLE_HEAD);
	else if (fmt == SCAN_CSV)
		fputs(CSV_HEAD "\r\n", stdout);
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
	}
	return -EINVAL;
}

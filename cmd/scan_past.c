/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map scan -d: the records of the past, after the live ones, in scan's
 * formats: each deleted name (e2map_deleted_names) with its inode now,
 * then each free inode that holds metadata and each orphan
 * (e2map_free_inodes).  The body format is fls -m -r -d's: "(deleted)"
 * after a name whose inode is free, "(deleted-realloc)" where it is in
 * use, the times and mode the inode holds now, and the free inodes no
 * deleted name reaches as "/$OrphanFiles/OrphanFile-N (deleted)".
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct past_run {
	enum scan_format fmt;
	e2map_t *m;
	const char *under;
	size_t under_len;
	struct scan_past_count *count;
	uint64_t *named;	/* inodes deleted names reach, sorted */
	size_t nnamed, cap;
	char *path;		/* the current record's path */
	size_t path_len, path_cap;
	bool head;
};

/* The entry's type byte (EXT4_FT_*) as TSK's name-type letter. */
static char ft_letter(unsigned ft)
{
	static const char letters[] = "-rdcbpsl";

	return ft < 8 ? letters[ft] : '-';
}

/* The entry's type byte named as a live record's type is. */
static const char *ft_name(unsigned ft)
{
	static const uint32_t modes[] = { 0, S_IFREG, S_IFDIR, S_IFCHR,
		S_IFBLK, S_IFIFO, S_IFSOCK, S_IFLNK };

	return scan_type_name(ft < 8 ? modes[ft] : 0);
}

/* "DIR/NAME" into run->path: "<D>/NAME" for a directory no name reaches. */
static int make_path(struct past_run *run, const struct e2map_deleted_name *d)
{
	char num[32];
	const char *dir = d->dir_path;
	size_t dlen = d->dir_path_len, need;

	if (!dir) {
		snprintf(num, sizeof(num), "<%" PRIu64 ">", d->dir);
		dir = num;
		dlen = strlen(num);
	}
	if (dlen == 1 && dir[0] == '/')
		dlen = 0;
	need = dlen + 1 + d->name_len + sizeof(" (deleted-realloc)");
	if (need > run->path_cap) {
		char *p = realloc(run->path, need);

		if (!p)
			return -ENOMEM;
		run->path = p;
		run->path_cap = need;
	}
	memcpy(run->path, dir, dlen);
	run->path[dlen] = '/';
	memcpy(run->path + dlen + 1, d->name, d->name_len);
	run->path_len = dlen + 1 + d->name_len;
	run->path[run->path_len] = '\0';
	return 0;
}

static bool under_ok(const struct past_run *run,
		     const struct e2map_deleted_name *d)
{
	size_t n = run->under_len;

	if (!run->under)
		return true;
	if (!n)
		return false;	/* PATH is not a directory */
	if (!d->dir_path || d->dir_path_len < n ||
	    memcmp(d->dir_path, run->under, n))
		return false;
	return d->dir_path_len == n || n == 1 || d->dir_path[n] == '/';
}

/* ---- the record, as a live one is, for table, csv and timesketch ---- */

static void past_record(const struct e2map_past_inode *in, uint64_t ino,
			struct e2map_record *r)
{
	struct e2map_stat *st = &r->st;

	memset(r, 0, sizeof(*r));
	r->version = E2MAP_RECORD_VERSION;
	r->ino = ino;
	r->flags = ino ? E2MAP_REC_STAT : 0;
	st->version = E2MAP_STAT_VERSION;
	st->ino = ino;
	st->mode = in->mode;
	st->nlink = in->links;
	st->uid = in->uid;
	st->gid = in->gid;
	st->size = in->size;
	st->atime = in->atime;
	st->mtime = in->mtime;
	st->ctime = in->ctime;
	st->crtime = in->crtime;
	st->mask = in->has_crtime ? E2MAP_STAT_CRTIME : 0;
}

static void table_head(struct past_run *run)
{
	if (run->head)
		return;
	run->head = true;
	printf("\nDELETED      INO TYPE      MODE  LINKS    UID    GID"
	       "          SIZE      DTIME STATE       PATH\n");
}

static void table_line(struct past_run *run, const char *what, uint64_t ino,
		       const struct e2map_past_inode *in, const char *state,
		       const char *path, size_t len)
{
	table_head(run);
	printf("%-8s %8" PRIu64 " %-9s %04o %6u %6" PRIu32 " %6" PRIu32 " %13"
	       PRIu64 " %10" PRId64 " %-11s ", what, ino,
	       scan_type_name(in->mode), in->mode & 07777, in->links, in->uid,
	       in->gid, in->size, in->dtime, state);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\n');
}

/* csv and timesketch: a live record's columns, the path marked as
 * fls marks it (make_path left room for the longest mark). */
static int csv_line(struct past_run *run, const struct e2map_past_inode *in,
		    uint64_t ino, char *path, size_t len, const char *mark)
{
	struct e2map_record r;
	const char *p = path;

	strcpy(path + len, mark);
	len += strlen(mark);
	past_record(in, ino, &r);
	return scan_print_item(run->fmt, run->m, &(struct scan_item){
		.r = &r, .path = &p, .len = &len, .n = 1, .detail = "" });
}

/* ---- jsonl ---- */

static json_t *json_time(const struct e2map_timespec *t, bool has)
{
	json_t *o;

	if (!has)
		return json_null();
	o = json_object();
	cmd_json_set(o, "sec", json_integer(t->sec));
	cmd_json_set(o, "nsec", json_integer(t->nsec));
	return o;
}

static void json_inode(json_t *o, const struct e2map_past_inode *in, bool has)
{
	cmd_json_set(o, "type", json_string(scan_type_name(in->mode)));
	cmd_json_set(o, "mode", json_integer(in->mode));
	cmd_json_set(o, "nlink", json_integer(in->links));
	cmd_json_set(o, "uid", json_integer(in->uid));
	cmd_json_set(o, "gid", json_integer(in->gid));
	cmd_json_set(o, "size", cmd_json_u64(in->size));
	cmd_json_set(o, "atime", json_time(&in->atime, has));
	cmd_json_set(o, "mtime", json_time(&in->mtime, has));
	cmd_json_set(o, "ctime", json_time(&in->ctime, has));
	cmd_json_set(o, "crtime", json_time(&in->crtime,
					    has && in->has_crtime));
	cmd_json_set(o, "dtime", has ? json_integer(in->dtime) : json_null());
}

static int json_name(struct past_run *run, const struct e2map_deleted_name *d)
{
	json_t *o = json_object(), *paths = json_array(), *p = json_object();

	cmd_json_set(o, "deleted", json_string("name"));
	cmd_json_set(o, "ino", cmd_json_u64(d->ino));
	cmd_json_set_name(p, "path", run->path, run->path_len);
	cmd_json_append(paths, p);
	cmd_json_set(o, "paths", paths);
	cmd_json_set(o, "inode_state",
		     json_string(e2map_inode_state_name(d->state)));
	cmd_json_set(o, "dir", cmd_json_u64(d->dir));
	cmd_json_set_name(o, "name", d->name, d->name_len);
	cmd_json_set(o, "file_type", json_string(ft_name(d->file_type)));
	cmd_json_set(o, "live_copy", json_boolean(d->live_copy));
	cmd_json_set(o, "block", cmd_json_u64(d->block));
	cmd_json_set(o, "offset", json_integer(d->offset));
	json_inode(o, &d->inode, d->ino != 0);
	return cmd_json_print(o);
}

static int json_free(const struct e2map_free_inode *f)
{
	json_t *o = json_object();

	cmd_json_set(o, "deleted", json_string(e2map_free_kind_name(f->kind)));
	cmd_json_set(o, "ino", cmd_json_u64(f->ino));
	cmd_json_set(o, "paths", json_array());
	json_inode(o, &f->inode, true);
	return cmd_json_print(o);
}

/* ---- body: fls -m -r -d ---- */

static void body_line(const char *path, size_t len, const char *suffix,
		      uint64_t ino, char name_letter,
		      const struct e2map_past_inode *in)
{
	char mode[13];

	scan_body_mode(in->mode, mode);
	mode[0] = name_letter;
	if (!in->mode)
		mode[2] = '-';
	fputs("0|", stdout);
	scan_body_name(path, len);
	printf("%s|%" PRIu64 "|%s|%" PRIu32 "|%" PRIu32 "|%" PRIu64 "|%" PRId64
	       "|%" PRId64 "|%" PRId64 "|%" PRId64 "\n", suffix, ino, mode,
	       in->uid, in->gid, in->size, in->atime.sec, in->mtime.sec,
	       in->ctime.sec, in->has_crtime ? in->crtime.sec : 0);
}

static int keep_named(struct past_run *run, uint64_t ino)
{
	if (run->nnamed == run->cap) {
		size_t cap = run->cap ? 2 * run->cap : 64;
		uint64_t *v = realloc(run->named, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		run->named = v;
		run->cap = cap;
	}
	run->named[run->nnamed++] = ino;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool named(const struct past_run *run, uint64_t ino)
{
	return run->nnamed && bsearch(&ino, run->named, run->nnamed,
				      sizeof(ino), cmp_u64);
}

/* ---- the two walks' callbacks ---- */

static int on_name(const struct e2map_deleted_name *d, void *payload)
{
	struct past_run *run = payload;
	const char *state = e2map_inode_state_name(d->state);
	bool realloc_ = d->state != E2MAP_INODE_UNALLOCATED;
	const char *mark = realloc_ ? " (deleted-realloc)" : " (deleted)";
	int err;

	if (!under_ok(run, d))
		return 0;
	if ((err = make_path(run, d)) < 0 ||
	    (d->ino && (err = keep_named(run, d->ino)) < 0))
		return err;
	run->count->names++;
	switch (run->fmt) {
	case SCAN_TABLE:
		table_line(run, d->live_copy ? "copy" : "name", d->ino, &d->inode, state, run->path,
			   run->path_len);
		return 0;
	case SCAN_JSONL:
		return json_name(run, d);
	case SCAN_BODY:
		if (d->live_copy)
			return 0;	/* as fls: the live name is listed */
		body_line(run->path, run->path_len, mark, d->ino,
			  ft_letter(d->file_type), &d->inode);
		return 0;
	case SCAN_DFXML:
		if (d->live_copy)
			return 0;	/* fiwalk, as fls, lists the live name */
		return scan_dfxml_past(run->path, run->path_len, d->ino,
				       ft_letter(d->file_type), &d->inode);
	case SCAN_TIMESKETCH:
		if (d->live_copy)
			return 0;	/* a timeline has the live name */
		/* fall through */
	case SCAN_CSV:
		return csv_line(run, &d->inode, d->ino, run->path,
				run->path_len, d->live_copy ? " (live copy)" :
				mark);
	}
	return 0;
}

static int on_free(const struct e2map_free_inode *f, void *payload)
{
	struct past_run *run = payload;
	bool orphan = f->kind == E2MAP_FREE_ORPHAN;
	const char *kind = e2map_free_kind_name(f->kind);
	char path[80];
	int len;

	len = snprintf(path, sizeof(path), "/$OrphanFiles/OrphanFile-%" PRIu64,
		       f->ino);
	if (orphan)
		run->count->orphans++;
	else
		run->count->inodes++;
	switch (run->fmt) {
	case SCAN_TABLE:
		snprintf(path, sizeof(path), "<%" PRIu64 ">", f->ino);
		table_line(run, kind, f->ino, &f->inode, orphan ? "in-use" :
			   "unallocated", path, strlen(path));
		return 0;
	case SCAN_JSONL:
		return json_free(f);
	case SCAN_BODY:
		if (!named(run, f->ino))
			body_line(path, (size_t)len, orphan ? "" : " (deleted)",
				  f->ino, '-', &f->inode);
		return 0;
	case SCAN_DFXML:
		return named(run, f->ino) ? 0 :
			scan_dfxml_past(path, (size_t)len, f->ino, '-',
					&f->inode);
	case SCAN_CSV:
	case SCAN_TIMESKETCH:
		return csv_line(run, &f->inode, f->ino, path, (size_t)len,
				orphan ? " (orphan)" : " (deleted)");
	}
	return 0;
}

int scan_past_print(enum scan_format fmt, e2map_t *m,
		    const e2map_paths_t *paths, const char *under,
		    struct scan_past_count *count)
{
	struct past_run run = { .fmt = fmt, .m = m, .under = under,
				.under_len = under ? strlen(under) : 0,
				.count = count };
	int err;

	err = e2map_deleted_names(m, paths, on_name, &run);
	if (run.nnamed)
		qsort(run.named, run.nnamed, sizeof(*run.named), cmp_u64);
	if (!err && !under)
		err = e2map_free_inodes(m, on_free, &run);
	free(run.named);
	free(run.path);
	return err;
}

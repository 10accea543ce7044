/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map recover`: deleted files written back from the journal's older
 * copies of their inodes (e2map_recover_plan), holes kept, with a report
 * line per file: complete, partial, overwritten or none.  A file's old
 * path is given where a directory's history still names its inode.
 */
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { REC_TABLE, REC_JSONL };
static const char *const recover_formats[] = { "table", "jsonl", NULL };

struct recover_opts {
	bool all;
	unsigned hash;		/* --hash: E2MAP_DIGEST_* bits */
};

static const struct cmd_option recover_options[] = {
	CMD_OPT_FORMAT(recover_formats, "table (default) or jsonl (a JSON "
		       "object a file)"),
	{ .long_name = "all", .action = CMD_OPT_TRUE,
	  .field = offsetof(struct recover_opts, all),
	  .help = "every deleted inode the journal holds a version of" },
	{ .long_name = "hash", .arg = "ALGS", .action = CMD_OPT_PARSE,
	  .parse = scan_parse_digests, .what = "digest list",
	  .field = offsetof(struct recover_opts, hash),
	  .help = "each recovered file's digests, of the bytes written: "
		  "md5, sha1, sha256, comma-separated" },
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

/* One file to recover: its inode and the old path found for it. */
struct target {
	uint64_t ino;
	char *path;
};

struct recover_run {
	struct cmd_ctx *ctx;
	e2map_journal_t *j;
	struct target *v;
	size_t n, cap;
	const char *dest;
	e2map_paths_t *paths;
	uint64_t dir;		/* the directory whose names are read */
	char *dirpath;
	unsigned char *buf;
	int failed;
};

static int check_operands(struct cmd_ctx *ctx)
{
	const struct recover_opts *o = ctx->opts;
	int i;

	if (o->all && ctx->ops.n != 2)
		return cmd_usage_error("recover", "--all takes IMAGE DEST only");
	if (!o->all && ctx->ops.n < 3)
		return cmd_usage_error("recover", "which inodes? <INO>... or "
				       "--all");
	for (i = 1; i + 1 < ctx->ops.n; i++)
		if (!cmd_ino_operand(ctx->ops.v[i]))
			return cmd_usage_error("recover", "invalid inode '%s' "
					       "(<INO>, as debugfs)",
					       cmd_esc(ctx->ops.v[i]));
	return CMD_PARSED;
}

const struct cmd_spec recover_spec = {
	.options = recover_options,
	.operands = "IMAGE [<INO>...] DEST",
	.min_operands = 2,
	.max_operands = -1,
	.about =
"Writes deleted files back from the journal into the directory DEST, one\n"
"file named by its inode number each, holes kept: the newest version of\n"
"the inode before its deletion that still maps data gives the blocks, and\n"
"each range is read only where no file owns its blocks now and no later\n"
"version of another inode in the journal mapped them.  A line per file\n"
"says complete (every range read, the map whole), partial, overwritten\n"
"(its blocks all belong to others now) or none (no usable version), the\n"
"blocks recovered and overwritten, and the old path where a directory's\n"
"history still names the inode.  A file is never called complete when\n"
"any of its blocks is owned by another inode now.\n"
"\n"
"Examples:\n"
"  e2map recover disk.img '<14>' '<15>' out/\n"
"  e2map recover --all --format jsonl disk.img out/\n",
	.opts_size = sizeof(struct recover_opts),
	.check = check_operands,
};

static int add_target(uint64_t ino, void *arg)
{
	struct recover_run *r = arg;

	if (cmd_grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0)
		return -ENOMEM;
	r->v[r->n++] = (struct target){ ino, NULL };
	return 0;
}

static struct target *find_target(struct recover_run *r, uint64_t ino)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].ino == ino)
			return &r->v[i];
	return NULL;
}

static int first_path(const char *path, size_t len, void *arg)
{
	char **out = arg;

	(void)len;
	*out = strdup(path);
	return 1;
}

static int on_name(const struct e2map_dir_name *d, void *arg)
{
	struct recover_run *r = arg;
	struct target *t = find_target(r, d->ino);
	size_t n;

	if (!t || t->path || !r->dirpath)
		return 0;
	n = strlen(r->dirpath) + d->len + 2;
	if (!(t->path = malloc(n)))
		return -ENOMEM;
	snprintf(t->path, n, "%s/%s", strcmp(r->dirpath, "/") ?
		 r->dirpath : "", d->name);
	return 0;
}

/* Each directory in use: the names its history holds for the targets. */
static int dir_names(e2map_t *m, const struct e2map_inode *in, void *arg)
{
	struct recover_run *r = arg;
	int err;

	(void)m;
	if ((in->mode & 0170000) != 0040000)
		return 0;
	r->dirpath = NULL;
	e2map_paths_foreach(r->paths, in->ino, first_path, &r->dirpath);
	err = e2map_dir_history(r->j, in->ino, on_name, r);
	free(r->dirpath);
	r->dirpath = NULL;
	return err == -ENOMEM ? err : 0;
}

/* The recovered ranges into DEST/INO, then its size: holes stay holes. */
static int write_file(struct recover_run *r, struct e2map_recover_plan *p,
		      const char *name)
{
	size_t i, chunk = 1 << 20;
	uint64_t bs, at, end;
	int64_t got;
	int fd, err = 0;

	if ((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return -errno;
	bs = p->block_size;
	for (i = 0; i < p->nranges && !err; i++) {
		if (p->ranges[i].overwritten)
			continue;
		at = p->ranges[i].lblk * bs;
		end = at + p->ranges[i].count * bs;
		for (; at < end && at < p->size && !err; at += chunk) {
			uint64_t len = end - at < chunk ? end - at : chunk;

			if ((got = e2map_recover_pread(p, r->buf, len, at)) < 0)
				err = (int)got;
			else if (pwrite(fd, r->buf, (size_t)got, (off_t)at) != got)
				err = -errno;
		}
	}
	if (!err && !p->nranges && p->size &&
	    (got = e2map_recover_pread(p, r->buf, chunk, 0)) > 0 &&
	    pwrite(fd, r->buf, (size_t)got, 0) != got)
		err = -errno;
	if (!err && ftruncate(fd, (off_t)p->size) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/* --hash's digests of what was written: "" each where none was asked
 * for, or a reason where the bytes could not be read again. */
struct digests {
	struct e2map_digest d;
	int err;
};

static const unsigned digest_algs[] = { E2MAP_DIGEST_MD5, E2MAP_DIGEST_SHA1,
					E2MAP_DIGEST_SHA256 };

static void json_digests(json_t *o, const struct digests *h)
{
	char hex[65];

	if (h->err) {
		cmd_json_set(o, "hash_error", json_string(strerror(-h->err)));
		return;
	}
	for (size_t i = 0; i < sizeof(digest_algs) / sizeof(*digest_algs); i++)
		if (e2map_digest_hex(&h->d, digest_algs[i], hex) > 0)
			cmd_json_set(o, e2map_digest_name(digest_algs[i]),
				     json_string(hex));
}

static void table_digests(const struct digests *h)
{
	char hex[65];

	if (h->err) {
		printf("  hash: %s\n", strerror(-h->err));
		return;
	}
	for (size_t i = 0; i < sizeof(digest_algs) / sizeof(*digest_algs); i++)
		if (e2map_digest_hex(&h->d, digest_algs[i], hex) > 0)
			printf("  %-6s %s\n", e2map_digest_name(digest_algs[i]),
			       hex);
}

static void report_json(const struct target *t,
			const struct e2map_recover_plan *p, const char *file,
			const struct digests *h)
{
	json_t *o = json_object(), *ranges = json_array();
	size_t i;

	cmd_json_set(o, "ino", cmd_json_u64(t->ino));
	cmd_json_set(o, "size", cmd_json_u64(p->size));
	cmd_json_set(o, "state", json_string(e2map_recover_state_name(p->state)));
	cmd_json_set(o, "generation", cmd_json_u64(p->version.generation));
	cmd_json_set(o, "tid", cmd_json_u64(p->version.tid));
	cmd_json_set(o, "commit_sec", json_integer(p->version.commit_sec));
	cmd_json_set(o, "mode", cmd_json_u64(p->version.mode));
	cmd_json_set(o, "mtime", json_integer(p->version.mtime));
	cmd_json_set(o, "recovered_blocks", cmd_json_u64(p->recovered_blocks));
	cmd_json_set(o, "overwritten_blocks",
		     cmd_json_u64(p->overwritten_blocks));
	for (i = 0; i < p->nranges; i++) {
		json_t *r = json_object();

		cmd_json_set(r, "logical", cmd_json_u64(p->ranges[i].lblk));
		cmd_json_set(r, "physical", cmd_json_u64(p->ranges[i].pblk));
		cmd_json_set(r, "count", cmd_json_u64(p->ranges[i].count));
		cmd_json_set(r, "overwritten",
			     json_boolean(p->ranges[i].overwritten));
		cmd_json_set(r, "owner", cmd_json_u64(p->ranges[i].owner));
		cmd_json_append(ranges, r);
	}
	cmd_json_set(o, "ranges", ranges);
	/* Names are bytes: not UTF-8, they come as names do ("_hex" too). */
	if (t->path)
		cmd_json_set_name(o, "path", t->path, strlen(t->path));
	else
		cmd_json_set(o, "path", json_null());
	if (file)
		cmd_json_set_name(o, "file", file, strlen(file));
	else
		cmd_json_set(o, "file", json_null());
	if (file)
		json_digests(o, h);
	cmd_json_print(o);
}

static void report_table(const struct target *t,
			 const struct e2map_recover_plan *p, const char *file,
			 const struct digests *h)
{
	printf("%-10" PRIu64 " %12" PRIu64 " %-12s %10" PRIu64 " %10" PRIu64
	       " %-20s %s\n", t->ino, p->size,
	       e2map_recover_state_name(p->state), p->recovered_blocks,
	       p->overwritten_blocks, file ? file : "-",
	       t->path ? cmd_esc(t->path) : "-");
	if (file)
		table_digests(h);
}

static void recover_one(struct recover_run *r, const struct target *t)
{
	const struct recover_opts *o = r->ctx->opts;
	struct e2map_recover_plan *p;
	struct digests h = { .d = E2MAP_DIGEST_INIT };
	char name[64], file[4096];
	bool written;
	int err;

	err = e2map_recover_plan(r->j, t->ino, &p);
	if (err == -EEXIST && o->all)
		return;		/* an inode in use now: not deleted after all */
	if (err < 0) {
		snprintf(name, sizeof(name), "recover: <%" PRIu64 ">", t->ino);
		cmd_fail(name, err, e2map_errmsg(r->ctx->m));
		r->failed = 1;
		return;
	}
	/* An overwritten file has no byte left to write: a file of holes
	 * in DEST would only pass for one. */
	written = p->state == E2MAP_RECOVER_COMPLETE ||
		  p->state == E2MAP_RECOVER_PARTIAL;
	if (written) {
		snprintf(file, sizeof(file), "%s/%" PRIu64, r->dest, t->ino);
		if ((err = write_file(r, p, file)) < 0) {
			cmd_fail(file, err, NULL);
			r->failed = 1;
		}
		if (o->hash)
			h.err = e2map_recover_digest(p, o->hash, &h.d);
	}
	if (r->ctx->co.format == REC_JSONL)
		report_json(t, p, written ? file : NULL,
			    &h);
	else
		report_table(t, p, written ? file : NULL,
			     &h);
	e2map_recover_free(p);
}

static int collect(struct recover_run *r)
{
	const struct recover_opts *o = r->ctx->opts;
	int i, err = 0;

	if (o->all)
		err = e2map_deleted_inodes(r->j, add_target, r);
	for (i = 1; !o->all && i + 1 < r->ctx->ops.n && !err; i++)
		err = add_target(cmd_ino_operand(r->ctx->ops.v[i]), r);
	if (!err && r->n && (err = e2map_paths_build(r->ctx->m, &r->paths)) == 0)
		err = e2map_scan(r->ctx->m, dir_names, r);
	return err;
}

static int run(struct recover_run *r)
{
	size_t i;
	int err;

	if (mkdir(r->dest, 0700) < 0 && errno != EEXIST)
		return cmd_fail(r->dest, -errno, NULL);
	if ((err = e2map_journal_open(r->ctx->m, &r->j)) < 0)
		return cmd_fail("recover", err, e2map_errmsg(r->ctx->m));
	if ((err = collect(r)) < 0)
		return cmd_fail("recover", err, e2map_errmsg(r->ctx->m));
	if (r->ctx->co.format == REC_TABLE)
		printf("%-10s %12s %-12s %10s %10s %-20s %s\n", "INODE",
		       "SIZE", "STATE", "RECOVERED", "OVERWRITTEN", "FILE",
		       "PATH");
	for (i = 0; i < r->n; i++)
		recover_one(r, &r->v[i]);
	fflush(stdout);
	return r->failed ? CMD_EXIT_FAIL : 0;
}

int cmd_recover(struct cmd_ctx *ctx)
{
	struct recover_run r = { .ctx = ctx,
				 .dest = ctx->ops.v[ctx->ops.n - 1] };
	size_t i;
	int status;

	if (!(r.buf = malloc(1 << 20)))
		return cmd_fail("recover", -ENOMEM, NULL);
	status = run(&r);
	for (i = 0; i < r.n; i++)
		free(r.v[i].path);
	free(r.v);
	free(r.buf);
	e2map_paths_free(r.paths);
	e2map_journal_close(r.j);
	return status;
}

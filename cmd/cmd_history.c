/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map history`: the earlier versions of an inode from every copy of
 * its inode-table block the journal still holds (e2map_inode_history),
 * each with its transaction and commit time, and for a directory every
 * name any version of its blocks held (e2map_dir_history).
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { HIST_TABLE, HIST_JSONL };
static const char *const history_formats[] = { "table", "jsonl", NULL };

static const struct cmd_option history_options[] = {
	CMD_OPT_FORMAT(history_formats, "table (default) or jsonl (a JSON "
		       "object a version, then one a\nname)"),
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec history_spec = {
	.options = history_options,
	.operands = "IMAGE PATH|<INO>",
	.min_operands = 2,
	.max_operands = 2,
	.about =
"Lists the earlier versions of an inode that the journal still holds: each\n"
"copy of its inode-table block (in the live log or before its tail,\n"
"revoked or not) gives the inode as it was in that transaction; identical\n"
"versions in a row are shown once, the image's own inode last.  Each\n"
"version has its transaction, the commit time, the mode, owner, size,\n"
"links, times and its block map then.  For a directory, every name any\n"
"copy of its blocks held follows, \"removed\" when it is gone now.\n"
"\n"
"Examples:\n"
"  e2map history disk.img /home/user/notes.txt\n"
"  e2map history --format jsonl disk.img '<14>'\n",
	.notes =
"<INO> names an inode by number (debugfs's notation), deleted ones too.\n",
};

/* PATH or <INO> to an inode number; 0 after the error line. */
static uint64_t find_ino(struct cmd_ctx *ctx, const char *cmd, const char *arg)
{
	struct e2map_stat st = { .version = E2MAP_STAT_VERSION };
	uint64_t ino = cmd_ino_operand(arg);
	int err;

	if (ino || arg[0] == '<') {
		if (!ino)
			cmd_errorf("%s: invalid inode '%s'", cmd, cmd_esc(arg));
		return ino;
	}
	if ((err = e2map_path_lstat(ctx->m, arg, &st)) < 0) {
		cmd_fail_file(cmd, ctx->image, arg, err, ctx->m);
		return 0;
	}
	return st.ino;
}

static void flag_names(uint32_t f, char *out, size_t size)
{
	static const char *const names[] = { "committed", "revoked", "live",
		"old", "escaped", "disk", "csum-bad" };
	size_t i, at = 0;

	out[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((f & (1u << i)) && i != 4 && at < size)
			at += (size_t)snprintf(out + at, size - at, "%s%s",
					       at ? "," : "", names[i]);
	if (!at)
		snprintf(out, size, "-");
}

static void utc(int64_t sec, char *out, size_t size)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (!sec || !gmtime_r(&t, &tm))
		snprintf(out, size, "-");
	else
		strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

struct hist_run {
	struct cmd_ctx *ctx;
	e2map_journal_t *j;
	uint64_t ino;
	bool dir;
	struct cmd_jline l;
	char runs[512];
	size_t at;
};

static int table_run(uint64_t lblk, uint64_t pblk, uint64_t len, void *arg)
{
	struct hist_run *h = arg;

	if (h->at < sizeof(h->runs) - 40)
		h->at += (size_t)snprintf(h->runs + h->at,
					  sizeof(h->runs) - h->at,
					  " %" PRIu64 "+%" PRIu64 "@%" PRIu64,
					  lblk, len, pblk);
	else if (h->at < sizeof(h->runs) - 4)
		h->at += (size_t)snprintf(h->runs + h->at,
					  sizeof(h->runs) - h->at, " ...");
	return 0;
}

static int json_run(uint64_t lblk, uint64_t pblk, uint64_t len, void *arg)
{
	struct hist_run *h = arg;

	cmd_jl_open(&h->l, NULL, '[');
	cmd_jl_u64(&h->l, NULL, lblk);
	cmd_jl_u64(&h->l, NULL, pblk);
	cmd_jl_u64(&h->l, NULL, len);
	cmd_jl_close(&h->l, ']');
	return 0;
}

static void print_version_table(struct hist_run *h,
				const struct e2map_version *v, int whole)
{
	char fl[96], ct[32], mt[32], dt[32], tid[16];

	/* the image's own inode, no journal copy of it: no transaction */
	snprintf(tid, sizeof(tid), v->jblock ? "%" PRIu32 : "-", v->tid);
	flag_names(v->flags, fl, sizeof(fl));
	utc(v->commit_sec, ct, sizeof(ct));
	utc(v->mtime, mt, sizeof(mt));
	utc(v->dtime, dt, sizeof(dt));
	printf("%-10s %-20s %-22s %06o %5" PRIu32 " %5" PRIu32
	       " %10" PRIu64 " %5" PRIu32 " %-20s %-20s%s%s\n",
	       tid, ct, fl, v->mode, v->uid, v->gid, v->size, v->links, mt,
	       dt, h->at ? h->runs : " -", whole ? "" : " (map incomplete)");
}

static void print_version_json(struct hist_run *h,
			       const struct e2map_version *v, char *fl)
{
	static const char hex[] = "0123456789abcdef";
	char ib[121];
	size_t i;

	for (i = 0; i < 60; i++) {
		ib[2 * i] = hex[v->i_block[i] >> 4];
		ib[2 * i + 1] = hex[v->i_block[i] & 15];
	}
	ib[120] = 0;
	cmd_jl_string(&h->l, "flags", fl);
	cmd_jl_u64(&h->l, "mode", v->mode);
	cmd_jl_u64(&h->l, "uid", v->uid);
	cmd_jl_u64(&h->l, "gid", v->gid);
	cmd_jl_u64(&h->l, "size", v->size);
	cmd_jl_u64(&h->l, "links", v->links);
	cmd_jl_i64(&h->l, "atime", v->atime);
	cmd_jl_i64(&h->l, "ctime", v->ctime);
	cmd_jl_i64(&h->l, "mtime", v->mtime);
	cmd_jl_u64(&h->l, "mtime_ns", v->mtime_ns);
	cmd_jl_i64(&h->l, "crtime", v->crtime);
	cmd_jl_u64(&h->l, "dtime", v->dtime);
	cmd_jl_u64(&h->l, "iflags", v->iflags);
	cmd_jl_u64(&h->l, "generation", v->generation);
	cmd_jl_u64(&h->l, "blocks", v->blocks);
	cmd_jl_string(&h->l, "i_block", ib);
}

static int on_version(const struct e2map_version *v, void *arg)
{
	struct hist_run *h = arg;
	char fl[96];
	int whole;

	h->dir |= (v->mode & 0170000) == 0040000;
	h->at = 0;
	if (h->ctx->co.format == HIST_TABLE) {
		whole = e2map_version_map(h->j, v, table_run, h);
		if (whole < 0)
			return whole;
		print_version_table(h, v, whole);
		return 0;
	}
	flag_names(v->flags, fl, sizeof(fl));
	cmd_jl_begin(&h->l);
	cmd_jl_string(&h->l, "kind", "version");
	cmd_jl_u64(&h->l, "ino", h->ino);
	cmd_jl_u64(&h->l, "tid", v->tid);
	cmd_jl_u64(&h->l, "last_tid", v->last_tid);
	cmd_jl_u64(&h->l, "copies", v->copies);
	cmd_jl_i64(&h->l, "commit_sec", v->commit_sec);
	cmd_jl_u64(&h->l, "commit_nsec", v->commit_nsec);
	cmd_jl_u64(&h->l, "jblock", v->jblock);
	cmd_jl_u64(&h->l, "block", v->block);
	print_version_json(h, v, fl);
	cmd_jl_open(&h->l, "map", '[');
	whole = e2map_version_map(h->j, v, json_run, h);
	cmd_jl_close(&h->l, ']');
	cmd_jl_const(&h->l, "map_whole", whole > 0 ? "true" : "false");
	return whole < 0 ? whole : cmd_jl_end(&h->l);
}

static int on_name(const struct e2map_dir_name *d, void *arg)
{
	struct hist_run *h = arg;

	if (h->ctx->co.format == HIST_TABLE) {
		printf("%-10" PRIu64 " %-10" PRIu32 " %-10" PRIu32 " %-8s %s\n",
		       d->ino, d->first_tid, d->last_tid,
		       d->now ? "now" : "removed", cmd_esc(d->name));
		return 0;
	}
	json_t *o = json_object();

	cmd_json_set(o, "kind", json_string("name"));
	cmd_json_set(o, "dir", cmd_json_u64(h->ino));
	cmd_json_set_name(o, "name", d->name, d->len);
	cmd_json_set(o, "ino", cmd_json_u64(d->ino));
	cmd_json_set(o, "first_tid", cmd_json_u64(d->first_tid));
	cmd_json_set(o, "last_tid", cmd_json_u64(d->last_tid));
	cmd_json_set(o, "now", json_boolean(d->now));
	return cmd_json_print(o);
}

static void print_header(struct hist_run *h)
{
	struct e2map_journal_info in;

	e2map_journal_info(h->j, &in);
	printf("inode %" PRIu64 ": journal copies %" PRIu64 ", sequence %"
	       PRIu32 ", start %" PRIu32, h->ino, in.copies, in.sequence,
	       in.start);
	if (in.past_device || in.bad_copies || in.stale_tags || in.bad_blocks)
		printf(" (skipped: %" PRIu64 " tags past the device, %" PRIu64
		       " bad checksums, %" PRIu64 " over rewritten log, %"
		       PRIu64 " bad blocks)", in.past_device, in.bad_copies,
		       in.stale_tags, in.bad_blocks);
	printf("\n%-10s %-20s %-22s %-6s %5s %5s %10s %5s %-20s %-20s %s\n",
	       "TID", "COMMIT", "FLAGS", "MODE", "UID", "GID", "SIZE",
	       "LINKS", "MTIME", "DTIME", "MAP");
}

int cmd_history(struct cmd_ctx *ctx)
{
	struct hist_run h = { .ctx = ctx };
	int err;

	if (!(h.ino = find_ino(ctx, "history", ctx->ops.v[1])))
		return CMD_EXIT_FAIL;
	if ((err = e2map_journal_open(ctx->m, &h.j)) < 0)
		return cmd_fail("history", err, e2map_errmsg(ctx->m));
	if (ctx->co.format == HIST_TABLE)
		print_header(&h);
	err = e2map_inode_history(h.j, h.ino, on_version, &h);
	if (!err && h.dir && ctx->co.format == HIST_TABLE)
		printf("\nnames held:\n%-10s %-10s %-10s %-8s %s\n", "INO",
		       "FIRST_TID", "LAST_TID", "STATE", "NAME");
	if (!err && h.dir)
		err = e2map_dir_history(h.j, h.ino, on_name, &h);
	cmd_jl_free(&h.l);
	e2map_journal_close(h.j);
	if (err < 0)
		return cmd_fail("history", err, e2map_errmsg(ctx->m));
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map du: GNU du's output from the image, as `du` prints it on the
 * kernel's mount: "SIZE<TAB>PATH" per directory (and per file with -a)
 * after what is under it, sizes in KiB rounded up (-h: du's human form,
 * -b: bytes of apparent size), du's complaints on stderr and exit 1.
 * --written sums the bytes of written data instead: what a sparse-aware
 * copy reads.
 */
#include "cmd.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

enum du_unit { UNIT_KIB, UNIT_HUMAN, UNIT_BYTES };

struct du_opts {
	bool all, summarize;
	int max_depth;			/* -1: no limit */
	int unit;			/* enum du_unit */
	int size;			/* enum e2map_du_size */
};

struct du_run {
	const struct du_opts *o;
	bool failed;
	struct cmd_progress progress;
};

/* du -h: gnulib's human_readable, base 1024, autoscaled, rounded up. */
static void human(char *buf, size_t size, uint64_t v)
{
	static const char units[] = "KMGTPEZY";
	uint64_t div = 1, amt, rem, x;
	unsigned __int128 r10;
	int e = 0;

	if (v < 1024) {
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return;
	}
	while (v / div >= 1024) {
		div *= 1024;
		e++;
	}
	amt = v / div;
	rem = v % div;
	if (amt < 10) {
		r10 = (unsigned __int128)rem * 10;
		x = amt * 10 + (uint64_t)(r10 / div) + (r10 % div != 0);
		if (x < 100) {
			snprintf(buf, size, "%llu.%llu%c",
				 (unsigned long long)(x / 10),
				 (unsigned long long)(x % 10), units[e - 1]);
			return;
		}
		amt = 10;
		rem = 0;
	}
	amt += rem != 0;
	if (amt == 1024 && e < 8)	/* rounded up into the next unit */
		snprintf(buf, size, "1.0%c", units[e]);
	else
		snprintf(buf, size, "%llu%c", (unsigned long long)amt,
			 units[e - 1]);
}

static void print_size(const struct du_run *run, uint64_t v)
{
	char buf[32];

	if (run->o->unit == UNIT_HUMAN)
		human(buf, sizeof(buf), v);
	else if (run->o->unit == UNIT_BYTES)
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	else
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)(v / 1024 + (v % 1024 != 0)));
	fputs(buf, stdout);
}

/* du's words for what went wrong (du.c's process_file). */
static void complain(const struct e2map_du_entry *e)
{
	fflush(stdout);		/* du writes both unbuffered in order */
	fputs("du: ", stderr);
	if (e->what == E2MAP_DU_CANNOT_ACCESS)
		fputs("cannot access ", stderr);
	else if (e->what == E2MAP_DU_CANNOT_READ_DIR)
		fputs("cannot read directory ", stderr);
	cmd_put_quoted(stderr, e->path, e->len,
		       e->what != E2MAP_DU_READ_ERROR, false);
	fprintf(stderr, ": %s\n", cmd_tool_strerror(e->err));
}

static int on_entry(const struct e2map_du_entry *e, void *payload)
{
	struct du_run *run = payload;

	if (e->err) {
		cmd_progress_end(&run->progress);
		complain(e);
		run->failed = true;
		return 0;
	}
	cmd_progress_add(&run->progress, 1, 0);
	if (e->depth > 0 && (run->o->max_depth >= 0 &&
			     e->depth > run->o->max_depth))
		return 0;
	if (e->depth > 0 && !e->dir && !run->o->all)
		return 0;
	cmd_progress_end(&run->progress);
	print_size(run, e->bytes);
	putchar('\t');
	fwrite(e->path, 1, e->len, stdout);
	putchar('\n');
	return 0;
}

#define FIELD(member) offsetof(struct du_opts, member)

static const struct cmd_option du_options[] = {
	{ .short_name = 'a', .action = CMD_OPT_TRUE, .field = FIELD(all),
	  .group = 1, .help = "every file too, not only directories" },
	{ .short_name = 's', .action = CMD_OPT_TRUE, .field = FIELD(summarize),
	  .group = 1, .help = "only the total for PATH" },
	{ .short_name = 'd', .long_name = "max-depth", .arg = "N",
	  .action = CMD_OPT_PARSE, .parse = cmd_parse_count,
	  .what = "maximum depth", .field = FIELD(max_depth),
	  .help = "print nothing deeper than N below PATH" },
	{ .short_name = 'h', .action = CMD_OPT_SET, .field = FIELD(unit),
	  .value = UNIT_HUMAN, .group = 2,
	  .help = "du's human-readable sizes (4.0K, 12M), rounded up" },
	{ .short_name = 'b', .action = CMD_OPT_SET, .field = FIELD(unit),
	  .value = UNIT_BYTES, .group = 2,
	  .help = "apparent sizes, in bytes" },
	{ .long_name = "apparent-size", .action = CMD_OPT_SET,
	  .field = FIELD(size), .value = E2MAP_DU_APPARENT, .group = 3,
	  .help = "sum st_size, not the blocks allocated" },
	{ .long_name = "written", .action = CMD_OPT_SET, .field = FIELD(size),
	  .value = E2MAP_DU_WRITTEN, .group = 3,
	  .help = "sum written data only: what a sparse copy reads" },
	CMD_OPT_QUIET,
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

/* -a with -s, and what -s and -b stand for, before the image is opened. */
static int check_units(struct cmd_ctx *ctx)
{
	struct du_opts *o = ctx->opts;

	if (o->all && o->summarize)
		return cmd_usage_error("du", "cannot both summarize and show "
				       "all entries");
	if (o->summarize)
		o->max_depth = 0;
	if (o->unit == UNIT_BYTES && o->size == E2MAP_DU_ALLOCATED)
		o->size = E2MAP_DU_APPARENT;	/* -b is --apparent-size too */
	return CMD_PARSED;
}

const struct cmd_spec du_spec = {
	.options = du_options,
	.operands = "IMAGE [PATH]",
	.min_operands = 1,
	.max_operands = 2,
	.about =
"Prints what GNU du prints on the mounted image, from the image: for PATH\n"
"(default /) and every directory under it, after its contents, the space\n"
"it and everything under it take, in KiB rounded up, and the path.  Files\n"
"of several links count once.  du's messages for what cannot be read go\n"
"to stderr and the exit status is 1.\n"
"\n"
"Examples:\n"
"  e2map du -sh evidence.img\n"
"  e2map du -a --written evidence.img /home\n",
	.opts_size = sizeof(struct du_opts),
	.defaults = &(const struct du_opts){ .max_depth = -1 },
	.check = check_units,
};

int cmd_du(struct cmd_ctx *ctx)
{
	const struct du_opts *o = ctx->opts;
	struct du_run run = { .o = o };
	int err;

	/* inodes seen of those in use */
	cmd_progress_inodes(&run.progress, ctx->m, "du", "inodes",
			    ctx->ops.n > 1 ? ctx->ops.v[1] : NULL, ctx->co.quiet,
			    o->all || !o->summarize);
	err = e2map_du(ctx->m, ctx->ops.n > 1 ? ctx->ops.v[1] : "/",
		       (enum e2map_du_size)o->size, on_entry, &run);
	cmd_progress_end(&run.progress);
	if (err < 0)
		return cmd_fail("du", err, e2map_errmsg(ctx->m));
	return run.failed ? CMD_EXIT_FAIL : 0;
}

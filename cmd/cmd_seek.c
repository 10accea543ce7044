/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map seek`: what `xfs_io -r -c "seek -a|-d|-h [-r] [-s] OFF" FILE`
 * prints, byte for byte (xfsprogs io/seek.c): the first hole and/or data at
 * or after OFF, alternating SEEK_HOLE / SEEK_DATA from each answer when -r
 * asks for all of them.  The answers are collected first and printed after,
 * so --json and the text table come from the same sequence of calls.
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { DATA, HOLE };			/* index into whence_names */
#define WANT(kind) (1u << (kind))	/* -d → WANT(DATA), -h → WANT(HOLE) */

static const char *const whence_names[] = { "DATA", "HOLE" };
static const int whence_of[] = { E2MAP_SEEK_DATA, E2MAP_SEEK_HOLE };

struct seek_opts {
	unsigned want;		/* WANT() bits still to print */
	bool repeat;		/* -r */
	bool show_start;	/* -s */
	int64_t start;		/* OFFSET */
};

/* One printed line: lseek(start, kind) gave result (< 0: -errno). */
struct seek_line {
	int kind;
	int64_t start;
	int64_t result;
};

struct seek_run {
	struct seek_line *v;
	size_t n, cap;
	bool header;		/* the "Whence..." line is due */
	bool bad;		/* a result that did not move forward */
	struct seek_line bad_call;
};

static int record(struct seek_run *run, int kind, int64_t start,
		  int64_t result)
{
	if (run->n == run->cap) {
		size_t cap = run->cap ? run->cap * 2 : 16;
		struct seek_line *v = realloc(run->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		run->v = v;
		run->cap = cap;
	}
	run->v[run->n++] = (struct seek_line){ kind, start, result };
	return 0;
}

static int64_t do_seek(e2map_file_t *f, int64_t start, int kind)
{
	return e2map_file_lseek(f, start, whence_of[kind]);
}

/* The first answer: is OFF in a hole (when holes are wanted), else data. */
static int first_answer(e2map_file_t *f, const struct seek_opts *o,
			int64_t start, int64_t *res)
{
	if (o->want & WANT(HOLE)) {
		*res = do_seek(f, start, HOLE);
		if (*res == start || !(o->want & WANT(DATA)))
			return HOLE;
	}
	*res = do_seek(f, start, DATA);
	return DATA;
}

static void mark_bad(struct seek_run *run, int kind, int64_t start,
		     int64_t res)
{
	run->bad = true;
	run->bad_call = (struct seek_line){ kind, start, res };
}

/*
 * io/seek.c's loop: print the current answer when its kind is wanted, stop
 * at the first error or EOF (printing it only when it is the very first
 * answer, or a real error), then search the other kind from the answer.
 */
static int run_seek(e2map_file_t *f, struct seek_opts *o, int64_t start,
		    struct seek_run *run)
{
	unsigned want = o->want;
	int64_t res;
	int kind = first_answer(f, o, start, &res), err;

	if (res >= 0 && res < start)
		return mark_bad(run, kind, start, res), 0;
	run->header = true;
	for (int i = 0; want; i++) {
		if (res < 0) {
			if (res != -ENXIO || i == 0)
				return record(run, kind, start, res);
			return 0;
		}
		if ((want & WANT(kind)) &&
		    (err = record(run, kind, start, res)) < 0)
			return err;
		if (!o->repeat)
			want &= ~WANT(kind);
		kind ^= 1;
		start = res;
		res = do_seek(f, start, kind);
		if (res >= 0 && res <= start)
			return mark_bad(run, kind, start, res), 0;
	}
	return 0;
}

static void print_line(const struct seek_opts *o, const struct seek_line *l)
{
	const char *name = whence_names[l->kind];

	if (l->result == -ENXIO && o->show_start)
		printf("%s\t%lld\tEOF\n", name, (long long)l->start);
	else if (l->result == -ENXIO)
		printf("%s\tEOF\n", name);
	else if (l->result < 0)	/* xfs_io: this, then perror("") */
		printf("ERR\t%lld\t", (long long)l->start);
	else if (o->show_start)
		printf("%s\t%lld\t%lld\n", name, (long long)l->start,
		       (long long)l->result);
	else
		printf("%s\t%lld\n", name, (long long)l->result);
}

static void print_text(const struct seek_opts *o, const struct seek_run *run)
{
	if (run->header)
		printf(o->show_start ? "Whence\tStart\tResult\n"
				     : "Whence\tResult\n");
	for (size_t i = 0; i < run->n; i++)
		print_line(o, &run->v[i]);
}

static json_t *json_line(const struct seek_line *l)
{
	json_t *o = json_object();

	cmd_json_set(o, "whence", json_string(whence_names[l->kind]));
	cmd_json_set(o, "start", cmd_json_u64((uint64_t)l->start));
	/* EOF (lseek said ENXIO) is null. */
	cmd_json_set(o, "offset", l->result < 0 ? json_null() :
			 cmd_json_u64((uint64_t)l->result));
	return o;
}

static int print_json(const char *path, const struct seek_run *run)
{
	json_t *doc = json_object(), *results = json_array();

	cmd_json_set_name(doc, "file", path, strlen(path));
	for (size_t i = 0; i < run->n; i++)
		cmd_json_append(results, json_line(&run->v[i]));
	cmd_json_set(doc, "results", results);
	return cmd_json_print(doc);
}

/*
 * xfs_io's stderr and status after the table: a failed lseek printed
 * "ERR\tSTART\t" on stdout, then perror("") prints the bare reason; a
 * result that did not move forward is reported by seek_f itself.  Both
 * exit 0, as xfs_io does.
 */
static void report_text_errors(const struct cmd_ctx *ctx,
			       const struct seek_run *run)
{
	const struct seek_line *last = run->n ? &run->v[run->n - 1] : NULL;

	fflush(stdout);
	if (last && last->result < 0 && last->result != -ENXIO) {
		fprintf(stderr, "%s\n", cmd_tool_strerror((int)last->result));
		cmd_why(&ctx->co, "seek", ctx->image, ctx->path,
			(int)last->result, ctx->m);
	}
	if (run->bad)
		fprintf(stderr, "Invalid seek result: lseek(<fd>, %lld, "
			"SEEK_%s) = %lld\n", (long long)run->bad_call.start,
			whence_names[run->bad_call.kind],
			(long long)run->bad_call.result);
}

/* Print the run; returns the exit status. */
static int report(const struct cmd_ctx *ctx, const struct seek_run *run)
{
	const struct seek_opts *o = ctx->opts;
	const char *image = ctx->image, *path = ctx->path;
	const struct seek_line *last = run->n ? &run->v[run->n - 1] : NULL;
	bool failed = last && last->result < 0 && last->result != -ENXIO;
	int err;

	if (!ctx->co.json) {
		print_text(o, run);
		report_text_errors(ctx, run);
		return 0;
	}
	if (!failed && !run->bad && (err = print_json(path, run)) < 0)
		return cmd_fail("seek", err, NULL);
	if (failed)
		return cmd_fail_file("seek", image, path, (int)last->result,
				     ctx->m);
	if (run->bad) {
		cmd_errorf("seek: %s:%s: invalid seek result: lseek(<fd>, "
			   "%lld, SEEK_%s) = %lld", cmd_esc(image),
			   cmd_esc(path), (long long)run->bad_call.start,
			   whence_names[run->bad_call.kind],
			   (long long)run->bad_call.result);
		return CMD_EXIT_FAIL;
	}
	return 0;
}

/* OFFSET's syntax, before the image is opened. */
static int check_offset(struct cmd_ctx *ctx)
{
	struct seek_opts *o = ctx->opts;

	if (e2map_parse_bytes(ctx->ops.v[2], &o->start) < 0)
		return cmd_usage_error("seek", "invalid offset '%s'",
				       cmd_esc(ctx->ops.v[2]));
	return CMD_PARSED;
}

#define FIELD(member) offsetof(struct seek_opts, member)
static const struct cmd_option seek_options[] = {
	/* One of -a, -d, -h at least: "-a|-d|-h" in the usage line. */
	{ .short_name = 'a', .action = CMD_OPT_BITS, .field = FIELD(want),
	  .value = WANT(DATA) | WANT(HOLE), .group = 1, .required = true,
	  .help = "the next data and the next hole" },
	{ .short_name = 'd', .action = CMD_OPT_BITS, .field = FIELD(want),
	  .value = WANT(DATA), .group = 1, .required = true,
	  .help = "the next data" },
	{ .short_name = 'h', .action = CMD_OPT_BITS, .field = FIELD(want),
	  .value = WANT(HOLE), .group = 1, .required = true,
	  .help = "the next hole (a lone -h, or --help, shows this help)" },
	{ .short_name = 'r', .action = CMD_OPT_TRUE, .field = FIELD(repeat),
	  .help = "all remaining entries of the chosen type(s)" },
	{ .short_name = 's', .action = CMD_OPT_TRUE,
	  .field = FIELD(show_start),
	  .help = "also print the offset each search started from" },
	CMD_OPT_JSON("{\"file\":..,\"results\":[{\"whence\":..,\"start\":..,"
		     "\"offset\":N|null}]}"),
	CMD_OPT_WHY("xfs_io"),
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_NOFOLLOW,
	CMD_OPT_END,
};

const struct cmd_spec seek_spec = {
	.options = seek_options,
	.operands = "IMAGE PATH OFFSET",
	.min_operands = 3,
	.max_operands = 3,
	.about =
"Prints the next data and/or hole offset at or after OFFSET in PATH, as\n"
"xfs_io -r -c \"seek ...\" does on the mounted image.  There is an implied\n"
"hole at end of file; past end of file, or with no data after OFFSET,\n"
"the result is EOF.\n"
"\n"
"Examples:\n"
"  e2map seek -d disk.img /f 512     offset of data at or after 512\n"
"  e2map seek -a -r disk.img /f 0    all data and hole offsets of /f\n",
	.notes =
"OFFSET takes xfs_io's units: 0x.. hex, 0.. octal, suffix b (4096), s (512),\n"
"k, m, g, t, p, e.\n",
	.opts_size = sizeof(struct seek_opts),
	.check = check_offset,
};

int cmd_seek(struct cmd_ctx *ctx)
{
	struct seek_opts *o = ctx->opts;
	struct seek_run run = { 0 };
	int err = run_seek(ctx->f, o, o->start, &run), status;

	status = err < 0 ? cmd_fail_file("seek", ctx->image, ctx->path, err,
					 ctx->m)
			 : report(ctx, &run);
	free(run.v);
	return status;
}

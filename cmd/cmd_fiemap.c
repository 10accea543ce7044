/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map fiemap`: what `xfs_io -r -c "fiemap [-a] [-l] [-v] [-n N] [off
 * [len]]" FILE` prints, byte for byte (xfsprogs io/fiemap.c).  Like xfs_io
 * it asks in batches of 32 extents with FIEMAP_FLAG_SYNC, resuming at the
 * end of the last extent until one has FIEMAP_EXTENT_LAST (spec §10), all
 * through one handle so later batches see the cache earlier ones left.
 * Holes are not reported by FIEMAP: the lines for them come from the gaps,
 * and the last one from min(range end, st_size).  Units are 512 bytes.
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EXTENT_BATCH 32			/* io/fiemap.c EXTENT_BATCH */
#define NO_RANGE_END UINT64_MAX		/* no LENGTH: map to the end */
#define BB(bytes) ((uint64_t)(bytes) >> 9)	/* xfs_io's BTOBBT */

struct fiemap_opts {
	bool xattr;		/* -a: FIEMAP_FLAG_XATTR */
	bool plain_len;		/* -l */
	bool verbose;		/* -v */
	int max;		/* -n: lines to print, -1 = all */
	uint64_t start;
	uint64_t range_end;	/* start + LENGTH, or NO_RANGE_END */
};

/* Column widths of the -v table, fixed from the first batch. */
struct widths {
	int foff, boff, tot, flg;
};

/* Where the walk is: what has been printed and where the next batch starts. */
struct fiemap_walk {
	struct widths w;
	int cur;		/* lines printed so far (holes count) */
	uint64_t last;		/* end of the last extent, bytes */
	bool done;
	json_t *json;		/* non-NULL: collect for --json instead */
};

/* Digits of V in BASE (at least one), as xfsprogs' numlen. */
static int numlen(uint64_t v, unsigned base)
{
	int len = 1;

	while (v >= base) {
		v /= base;
		len++;
	}
	return len;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/* io/fiemap.c calc_print_format: widths from the batch up to LAST. */
static void calc_widths(const struct fiemap *fm, struct widths *w)
{
	char buf[64];

	for (uint32_t i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];
		uint64_t l = BB(e->fe_logical), p = BB(e->fe_physical);
		uint64_t n = BB(e->fe_length);

		w->foff = imax(w->foff, snprintf(buf, sizeof(buf),
			       "[%llu..%llu]", (unsigned long long)l,
			       (unsigned long long)(l + n - 1)));
		w->boff = imax(w->boff, snprintf(buf, sizeof(buf),
			       "%llu..%llu", (unsigned long long)p,
			       (unsigned long long)(p + n - 1)));
		w->tot = imax(w->tot, numlen(n, 10));
		w->flg = imax(w->flg, numlen(e->fe_flags, 16));
		if (e->fe_flags & FIEMAP_EXTENT_LAST)
			break;
	}
}

static void print_hole(const struct fiemap_opts *o, const struct widths *w,
		       int cur, uint64_t from, uint64_t to)
{
	char lbuf[64];

	if (!o->verbose) {
		printf("\t%d: [%llu..%llu]: hole", cur,
		       (unsigned long long)from, (unsigned long long)(to - 1));
		if (o->plain_len)
			printf(" %llu blocks\n",
			       (unsigned long long)(to - from));
		else
			printf("\n");
		return;
	}
	snprintf(lbuf, sizeof(lbuf), "[%llu..%llu]:", (unsigned long long)from,
		 (unsigned long long)(to - 1));
	printf("%4d: %-*s %-*s %*llu\n", cur, w->foff, lbuf, w->boff, "hole",
	       w->tot, (unsigned long long)(to - from));
}

static void print_extent(const struct fiemap_opts *o, const struct widths *w,
			 int cur, const struct fiemap_extent *e)
{
	uint64_t l = BB(e->fe_logical), p = BB(e->fe_physical);
	uint64_t n = BB(e->fe_length);
	char lbuf[64], bbuf[64], fbuf[16];

	if (!o->verbose) {
		printf("\t%d: [%llu..%llu]: %llu..%llu", cur,
		       (unsigned long long)l, (unsigned long long)(l + n - 1),
		       (unsigned long long)p, (unsigned long long)(p + n - 1));
		if (o->plain_len)
			printf(" %llu blocks\n", (unsigned long long)n);
		else
			printf("\n");
		return;
	}
	snprintf(lbuf, sizeof(lbuf), "[%llu..%llu]:", (unsigned long long)l,
		 (unsigned long long)(l + n - 1));
	snprintf(bbuf, sizeof(bbuf), "%llu..%llu", (unsigned long long)p,
		 (unsigned long long)(p + n - 1));
	snprintf(fbuf, sizeof(fbuf), "0x%x", e->fe_flags);
	printf("%4d: %-*s %-*s %*llu %*s\n", cur, w->foff, lbuf, w->boff, bbuf,
	       w->tot, (unsigned long long)n, w->flg, fbuf);
}

/*
 * io/fiemap.c print_verbose/print_plain: the hole before E (if any), then
 * E unless the line limit was reached.  Returns the lines printed.
 */
static int print_entry(const struct fiemap_opts *o, struct fiemap_walk *wk,
		       const struct fiemap_extent *e)
{
	int cur = wk->cur, printed = 0;

	if (o->verbose && cur == 0)
		printf("%4s: %-*s %-*s %*s %*s\n", "EXT", wk->w.foff,
		       "FILE-OFFSET", wk->w.boff, "BLOCK-RANGE", wk->w.tot,
		       "TOTAL", wk->w.flg, "FLAGS");
	if (BB(e->fe_logical) > BB(wk->last)) {
		print_hole(o, &wk->w, cur++, BB(wk->last), BB(e->fe_logical));
		printed++;
	}
	if (cur == o->max)
		return printed;
	print_extent(o, &wk->w, cur, e);
	return printed + 1;
}

/* Handle one returned extent: print or collect it, then decide on more. */
static void take_extent(const struct fiemap_opts *o, struct fiemap_walk *wk,
			const struct fiemap_extent *e)
{
	if (wk->json) {
		/* --json lists extents only, so -n counts extents. */
		if (wk->cur == o->max) {
			wk->done = true;
			return;
		}
		cmd_json_append(wk->json, cmd_json_extent(e));
		wk->cur++;
	} else {
		wk->cur += print_entry(o, wk, e);
	}
	wk->last = e->fe_logical + e->fe_length;
	if ((e->fe_flags & FIEMAP_EXTENT_LAST) || wk->last >= o->range_end ||
	    wk->cur == o->max)
		wk->done = true;
}

/* One FS_IOC_FIEMAP of the walk; 0 when it mapped nothing, <0 on error. */
static int one_batch(e2map_file_t *f, const struct fiemap_opts *o,
		     struct fiemap_walk *wk, struct fiemap *fm)
{
	int err;

	memset(fm, 0, sizeof(*fm) + EXTENT_BATCH * sizeof(fm->fm_extents[0]));
	fm->fm_flags = FIEMAP_FLAG_SYNC | (o->xattr ? FIEMAP_FLAG_XATTR : 0);
	fm->fm_start = wk->last;
	fm->fm_length = o->range_end - wk->last;
	fm->fm_extent_count = EXTENT_BATCH;
	err = e2map_file_fiemap(f, fm);
	if (err < 0)
		return err;
	for (uint32_t i = 0; i < fm->fm_mapped_extents && !wk->done; i++) {
		if (o->verbose && wk->cur == 0 && i == 0)
			calc_widths(fm, &wk->w);
		take_extent(o, wk, &fm->fm_extents[i]);
	}
	return (int)fm->fm_mapped_extents;
}

static int walk(e2map_file_t *f, const struct fiemap_opts *o,
		struct fiemap_walk *wk)
{
	struct fiemap *fm = malloc(sizeof(*fm) +
				   EXTENT_BATCH * sizeof(fm->fm_extents[0]));
	int n = 0;

	if (!fm)
		return -ENOMEM;
	while (!wk->done && (n = one_batch(f, o, wk, fm)) > 0)
		;
	free(fm);
	return n < 0 ? n : 0;
}

/* The trailing hole up to min(range end, st_size), as xfs_io after fstat. */
static void finish_text(const struct fiemap_opts *o, struct fiemap_walk *wk,
			uint64_t size)
{
	uint64_t end = o->range_end < size ? o->range_end : size;

	if (wk->cur == o->max)
		return;
	if (wk->cur && wk->last < end)
		print_hole(o, &wk->w, wk->cur, BB(wk->last), BB(end));
}

static int run_text(e2map_file_t *f, const struct fiemap_opts *o,
		    const char *path, struct e2map_stat *st)
{
	struct fiemap_walk wk = { .w = { 16, 16, 5, 5 }, .last = o->start };
	int err;

	printf("%s:\n", path);
	if ((err = walk(f, o, &wk)) < 0) {
		/* io/fiemap.c: progname, the ioctl, the file as typed. */
		fflush(stdout);
		fprintf(stderr, "xfs_io: ioctl(FS_IOC_FIEMAP) [\"%s\"]: %s\n",
			path, cmd_tool_strerror(err));
		return err;
	}
	if (wk.cur == o->max)
		return 0;	/* xfs_io does not even fstat then */
	if ((err = e2map_file_stat(f, st)) < 0)
		return err;
	finish_text(o, &wk, st->size);
	return 0;
}

/*
 * --json: the same calls, but the document is built in memory first so
 * that a failure leaves stdout empty rather than half a document.
 */
static int run_json(e2map_file_t *f, const struct fiemap_opts *o,
		    const char *path, struct e2map_stat *st)
{
	json_t *doc, *extents = json_array();
	struct fiemap_walk wk = { .last = o->start, .json = extents };
	int err;

	if (!extents)
		return -ENOMEM;
	if ((err = walk(f, o, &wk)) < 0 ||
	    (err = e2map_file_stat(f, st)) < 0) {
		json_decref(extents);
		return err;
	}
	doc = json_object();
	cmd_json_set_name(doc, "file", path, strlen(path));
	cmd_json_set(doc, "size", cmd_json_u64(st->size));
	cmd_json_set(doc, "block_size", cmd_json_u64(st->blksize));
	cmd_json_set(doc, "extents", extents);
	return cmd_json_print(doc);
}

/* OFFSET and LENGTH after IMAGE PATH, before the image is opened. */
static int check_range(struct cmd_ctx *ctx)
{
	struct fiemap_opts *o = ctx->opts;
	char **arg = ctx->ops.v + 2;
	int64_t v;

	if (ctx->ops.n > 2) {
		if (e2map_parse_bytes(arg[0], &v) < 0)
			return cmd_usage_error("fiemap", "invalid offset '%s'",
					       cmd_esc(arg[0]));
		o->start = (uint64_t)v;
	}
	if (ctx->ops.n > 3) {
		if (e2map_parse_bytes(arg[1], &v) < 0)
			return cmd_usage_error("fiemap", "invalid length '%s'",
					       cmd_esc(arg[1]));
		o->range_end = o->start + (uint64_t)v;
	}
	return CMD_PARSED;
}

#define FIELD(member) offsetof(struct fiemap_opts, member)
static const struct cmd_option fiemap_options[] = {
	{ .short_name = 'a', .action = CMD_OPT_TRUE, .field = FIELD(xattr),
	  .help = "map the extended-attribute block instead of the data" },
	{ .short_name = 'l', .action = CMD_OPT_TRUE, .field = FIELD(plain_len),
	  .help = "also print each extent's length in 512-byte blocks" },
	{ .short_name = 'v', .action = CMD_OPT_TRUE, .field = FIELD(verbose),
	  .help = "the verbose table with flags" },
	{ .short_name = 'n', .arg = "COUNT", .action = CMD_OPT_PARSE,
	  .field = FIELD(max), .parse = cmd_parse_count, .what = "count",
	  .help = "print at most COUNT lines (extents and holes)" },
	CMD_OPT_JSON("{\"file\",\"size\",\"block_size\",\"extents\":[{\"logical\","
		     "\n\"physical\",\"length\",\"flags\",\"flag_names\"}]}, "
		     "bytes"),
	CMD_OPT_WHY("xfs_io"),
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_NOFOLLOW,
	CMD_OPT_END,
};

const struct cmd_spec fiemap_spec = {
	.options = fiemap_options,
	.operands = "IMAGE PATH [OFFSET [LENGTH]]",
	.min_operands = 2,
	.max_operands = 4,
	.about =
"Prints the block mapping of PATH as xfs_io -r -c \"fiemap ...\" does on\n"
"the mounted image: each extent, and the holes between them.  Offsets and\n"
"blocks are in 512-byte units.  By default a line reads\n"
"  extent: [startoffset..endoffset]: startblock..endblock\n"
"with 'hole' in place of the blocks for holes.\n"
"\n"
"Examples:\n"
"  e2map fiemap -v disk.img /f          the verbose table\n"
"  e2map fiemap disk.img /f 1m 64k      the map of [1 MiB, 1 MiB + 64 KiB)\n",
	.notes =
"OFFSET and LENGTH take xfs_io's units (b = 4096, s = 512, k, m, g, ...).\n",
	.opts_size = sizeof(struct fiemap_opts),
	.defaults = &(const struct fiemap_opts){ .max = -1,
						 .range_end = NO_RANGE_END },
	.check = check_range,
};

int cmd_fiemap(struct cmd_ctx *ctx)
{
	const struct fiemap_opts *o = ctx->opts;
	struct e2map_stat st = E2MAP_STAT_INIT;
	int err;

	if (ctx->co.json) {
		if ((err = run_json(ctx->f, o, ctx->path, &st)) < 0)
			return cmd_fail_file("fiemap", ctx->image, ctx->path,
					     err, ctx->m);
	} else if ((err = run_text(ctx->f, o, ctx->path, &st)) < 0) {
		cmd_why(&ctx->co, "fiemap", ctx->image, ctx->path, err,
			ctx->m);
		return CMD_EXIT_FAIL;
	}
	return 0;
}

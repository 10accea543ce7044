/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map filefrag`: what e2fsprogs 1.47 `filefrag [-v] [-e] [-k] [-b SIZE]
 * [-s] [-x] FILE...` prints, byte for byte (misc/filefrag.c).  Per file it
 * does what filefrag does: stat, FIGETBSZ (the block size), statfs on the
 * first file ("Filesystem type is: ef53", the cylinder-group estimate for
 * block-mapped files), then FIEMAP in batches of 292 extents from 0 with
 * fm_length ~0, resuming at the end of the last extent until LAST; all
 * through one handle per file.
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* filefrag's 16 KiB buffer holds this many extents after the header. */
#define FF_BATCH ((16384 - sizeof(struct fiemap)) / \
		  sizeof(struct fiemap_extent))
#define EXT2_SUPER_MAGIC 0xef53		/* statfs f_type of ext2/3/4 */
#define EXT4_FIEMAP_EXTENT_HOLE 0x08000000	/* only from the es cache */

struct ff_opts {
	bool verbose;		/* -v, -e */
	bool sync;		/* -s */
	bool xattr;		/* -x */
	unsigned long blocksize;	/* -b SIZE / -k; 0: the fs block */
};

/* What filefrag keeps across files: widths only grow, statfs once. */
struct ff_state {
	int logical_width;
	int physical_width;
	bool first;		/* no file reported yet (same device) */
	uint64_t f_blocks;	/* statfs f_blocks; 0 if unknown */
};

static int ulong_log2(unsigned long v)
{
	int l = 0;

	while (v >>= 1)
		l++;
	return l;
}

static int ulong_log10(unsigned long long v)
{
	int l = 0;

	while ((v /= 10))
		l++;
	return l;
}

/*
 * filefrag tells block-mapped files by a missing EXT4_EXTENTS_FL, when
 * FS_IOC_GETFLAGS answers at all: on a FIFO it fails (ENOTTY, measured),
 * and filefrag then takes the file as extent-mapped.
 */
static bool block_mapped(const struct e2map_stat *st)
{
	bool getflags = S_ISREG(st->mode) || S_ISDIR(st->mode);

	return getflags && !(st->flags & 0x00080000);	/* EXT4_EXTENTS_FL */
}

static const struct {
	uint32_t flag;
	const char *name;
} flag_names[] = {	/* filefrag's order */
	{ FIEMAP_EXTENT_LAST, "last," },
	{ FIEMAP_EXTENT_UNKNOWN, "unknown_loc," },
	{ FIEMAP_EXTENT_DELALLOC, "delalloc," },
	{ FIEMAP_EXTENT_ENCODED, "encoded," },
	{ FIEMAP_EXTENT_DATA_ENCRYPTED, "encrypted," },
	{ FIEMAP_EXTENT_NOT_ALIGNED, "not_aligned," },
	{ FIEMAP_EXTENT_DATA_INLINE, "inline," },
	{ FIEMAP_EXTENT_DATA_TAIL, "tail_packed," },
	{ FIEMAP_EXTENT_UNWRITTEN, "unwritten," },
	{ FIEMAP_EXTENT_MERGED, "merged," },
	{ FIEMAP_EXTENT_SHARED, "shared," },
	{ EXT4_FIEMAP_EXTENT_HOLE, "hole," },
};

/*
 * An extent line is built by hand: filefrag -v over many files prints
 * millions of them, and printf's parsing was half of e2map's time.
 * The buffer holds the widest line (five 20-digit numbers, every flag).
 */
struct line {
	char buf[640];
	size_t len;
};

static void put_str(struct line *l, const char *s)
{
	size_t n = strlen(s);

	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

/* "%*llu": V right-aligned in WIDTH columns (never cut). */
static void put_num(struct line *l, unsigned long long v, int width)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (; width > n; width--)
		l->buf[l->len++] = ' ';
	while (n)
		l->buf[l->len++] = digits[--n];
}

/* The "expected: flags" tail of an extent line. */
static void put_flags(struct line *l, const struct ff_state *s,
		      const struct fiemap_extent *e, uint64_t expected,
		      int shift, bool no_phys, uint64_t file_size)
{
	uint32_t left = e->fe_flags;

	if (expected && !no_phys) {
		put_num(l, expected >> shift, s->physical_width);
		put_str(l, ": ");
	} else {
		for (int w = s->physical_width; w > 0; w--)	/* "%*s" */
			l->buf[l->len++] = ' ';
		put_str(l, "  ");
	}
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
		if (!(left & flag_names[i].flag))
			continue;
		put_str(l, flag_names[i].name);
		left &= ~flag_names[i].flag;
	}
	for (uint32_t mask = 1; left && mask; mask <<= 1) {
		if (left & mask)	/* unnamed bits, in hex */
			l->len += (size_t)sprintf(l->buf + l->len, "%#04x,", mask);
		left &= ~mask;
	}
	/*
	 * 1.47.0 drops the last character (the comma after the last flag,
	 * or the blank after the expected column when there is none) and
	 * then appends ",eof": "  8713: last,eof", "   ,eof", "  8713:".
	 */
	l->len--;
	if (e->fe_logical + e->fe_length >= file_size)
		put_str(l, ",eof");
}

/* One "%4d: lo..hi: plo..phi: len: flags" line (print_extent_info). */
static void print_extent_info(const struct ff_state *s,
			      const struct fiemap_extent *e, int n,
			      uint64_t expected, int shift, uint64_t size)
{
	bool no_phys = e->fe_flags &
		       (FIEMAP_EXTENT_UNKNOWN | EXT4_FIEMAP_EXTENT_HOLE);
	unsigned long long len, blks, lblk, pblk;
	struct line l = { .len = 0 };

	if (e->fe_flags & FIEMAP_EXTENT_DATA_INLINE)
		shift = 0;	/* inline data is reported in bytes */
	len = no_phys ? 0 : e->fe_length >> shift;
	blks = (e->fe_length - 1) >> shift;
	lblk = e->fe_logical >> shift;
	pblk = (e->fe_flags & FIEMAP_EXTENT_UNKNOWN) ? 0
						    : e->fe_physical >> shift;
	put_num(&l, (unsigned)n, 4);
	put_str(&l, ": ");
	put_num(&l, lblk, s->logical_width);
	put_str(&l, "..");
	put_num(&l, lblk + blks, s->logical_width);
	put_str(&l, ": ");
	put_num(&l, pblk, s->physical_width);
	put_str(&l, "..");
	put_num(&l, pblk + (no_phys ? 0 : blks), s->physical_width);
	put_str(&l, ": ");
	put_num(&l, len, 6);
	put_str(&l, ": ");
	put_flags(&l, s, e, expected, shift, no_phys, size);
	l.buf[l.len++] = '\n';
	fwrite(l.buf, 1, l.len, stdout);
}

/* --json: an extent in bytes, and in filefrag's units (1 << SHIFT). */
static json_t *json_extent(const struct fiemap_extent *e, int shift)
{
	json_t *o = cmd_json_extent(e);

	cmd_json_set(o, "logical_block", cmd_json_u64(e->fe_logical >> shift));
	cmd_json_set(o, "physical_block",
		     cmd_json_u64(e->fe_physical >> shift));
	cmd_json_set(o, "blocks", cmd_json_u64(e->fe_length >> shift));
	return o;
}

/* Counting state of filefrag_fiemap across batches. */
struct ff_count {
	struct fiemap_extent prev;	/* the previous extent, zeroed first */
	int total;			/* extents that count as fragments */
	int n;				/* extents seen */
	bool header;
	bool last;
	json_t *json;			/* --json: the extents, else NULL */
};

static void count_extent(const struct ff_opts *o, const struct ff_state *s,
			 struct ff_count *c, const struct fiemap_extent *e,
			 int shift, uint64_t size)
{
	uint64_t dense = c->prev.fe_physical + c->prev.fe_length;
	uint64_t expected = c->prev.fe_physical + e->fe_logical -
			    c->prev.fe_logical;

	/* Contiguous on disk with the previous one, counting a skipped
	 * gap as if it were allocated: not a new fragment. */
	if (e->fe_logical != 0 && e->fe_physical != expected &&
	    e->fe_physical != dense) {
		c->total++;
	} else {
		expected = 0;
		if (!c->total)
			c->total = 1;
	}
	if (c->json)
		cmd_json_append(c->json, json_extent(e, shift));
	else if (o->verbose)
		print_extent_info(s, e, c->n, expected, shift, size);
	if (e->fe_flags & FIEMAP_EXTENT_LAST)
		c->last = true;
	c->prev = *e;
	c->n++;
}

static void print_header(const struct ff_state *s)
{
	printf(" ext: %*s %*s length: %*s flags:\n", s->logical_width * 2 + 3,
	       "logical_offset:", s->physical_width * 2 + 3,
	       "physical_offset:", s->physical_width + 1, "expected:");
}

/*
 * filefrag_fiemap: the batches; the fragment count, or -errno.  With
 * EXTENTS (--json) each extent goes there instead of being printed.
 */
static int count_fiemap(e2map_file_t *f, const struct ff_opts *o,
			const struct ff_state *s, int shift, uint64_t size,
			json_t *extents)
{
	/* Only the header needs zeroes: the call fills the extents it maps. */
	struct fiemap *fm = malloc(sizeof(*fm) +
				   FF_BATCH * sizeof(fm->fm_extents[0]));
	struct ff_count c = { .json = extents };
	int err = 0;

	if (!fm)
		return -ENOMEM;
	memset(fm, 0, sizeof(*fm));
	do {
		fm->fm_length = ~0ULL;
		fm->fm_flags = (o->sync ? FIEMAP_FLAG_SYNC : 0) |
			       (o->xattr ? FIEMAP_FLAG_XATTR : 0);
		fm->fm_extent_count = FF_BATCH;
		if ((err = e2map_file_fiemap(f, fm)) < 0 || !fm->fm_mapped_extents)
			break;
		if (o->verbose && !c.header && !extents)
			print_header(s);
		c.header = true;
		for (uint32_t i = 0; i < fm->fm_mapped_extents; i++)
			count_extent(o, s, &c, &fm->fm_extents[i], shift, size);
		fm->fm_start = c.prev.fe_logical + c.prev.fe_length;
	} while (!c.last);
	free(fm);
	return err < 0 ? err : c.total;
}

/* The lines before the table: fs type, cylinder groups, file size. */
static void print_preamble(const struct ff_opts *o, struct ff_state *s,
			   const char *path, const struct e2map_stat *st,
			   int shift)
{
	unsigned long long nblocks = (st->size + st->blksize - 1) / st->blksize;
	unsigned long bits8 = st->blksize * 8UL;

	if (o->verbose && s->first)
		printf("Filesystem type is: %lx\n",
		       (unsigned long)EXT2_SUPER_MAGIC);
	if (o->verbose && s->first && block_mapped(st))
		printf("Filesystem cylinder groups approximately %ld\n",
		       (long)(s->f_blocks ? (s->f_blocks - 1) / bits8 + 1
					  : 0));
	s->first = false;
	if (ulong_log10(s->f_blocks) > s->physical_width)
		s->physical_width = ulong_log10(s->f_blocks);
	if (ulong_log10(nblocks) > s->logical_width)
		s->logical_width = ulong_log10(nblocks);
	if (o->verbose)
		printf("File size of %s is %llu (%llu block%s of %d bytes)\n",
		       path, (unsigned long long)st->size,
		       nblocks * st->blksize >> shift, nblocks == 1 ? "" : "s",
		       1 << shift);
}

static void print_summary(const char *path, int n)
{
	if (n == 1)
		printf("%s: 1 extent found\n", path);
	else
		printf("%s: %d extents found\n", path, n);
}

/*
 * A failed FIEMAP: with -x filefrag gives up on the file, "PATH:
 * FS_IOC_FIEMAP: REASON" (1.47.0 writes a blank after the newline) and its
 * errno as the exit status; without, it falls back to FIBMAP.  Returns
 * the fragment count, or the exit status negated.
 */
static int fiemap_failed(const struct cmd_ctx *ctx, const char *path, int err)
{
	const struct ff_opts *o = ctx->opts;

	cmd_why(&ctx->co, "filefrag", ctx->image, path, err, ctx->m);
	if (o->xattr) {
		fflush(stdout);
		fprintf(stderr, "%s: FS_IOC_FIEMAP: %s\n ", path,
			cmd_tool_strerror(err));
		return err;
	}
	/*
	 * FIBMAP maps each block through ext4_bmap, which answers 0 for a
	 * block it cannot map: "0 extents found" when nothing maps.
	 */
	return 0;
}

/*
 * frag_report for one PATH; returns 0 or filefrag's exit status for it
 * (the errno of what failed, as filefrag 1.47 exits).
 */
static int frag_report(const struct cmd_ctx *ctx, struct ff_state *s,
		       const char *path)
{
	const struct ff_opts *o = ctx->opts;
	e2map_file_t *f = NULL;
	struct e2map_stat st = E2MAP_STAT_INIT;
	int shift, n;

	if ((n = cmd_tool_open("filefrag", &ctx->co, ctx->m, ctx->image, path,
			       &f)))
		return n;
	if ((n = e2map_file_stat(f, &st)) < 0) {
		e2map_file_close(f);
		return cmd_fail_file("filefrag", ctx->image, path, n, ctx->m);
	}
	shift = ulong_log2(o->blocksize ? o->blocksize : st.blksize);
	print_preamble(o, s, path, &st, shift);
	n = count_fiemap(f, o, s, shift, st.size, NULL);
	if (n < 0)
		n = fiemap_failed(ctx, path, n);
	if (n >= 0)
		print_summary(path, n);
	e2map_file_close(f);
	return n < 0 ? -n : 0;
}

/* --json: one file's object (0), or its error in the object (-errno). */
static int json_file(const struct cmd_ctx *ctx, const char *path,
		     json_t *file)
{
	const struct ff_opts *o = ctx->opts;
	e2map_t *m = ctx->m;
	json_t *extents = json_array();
	e2map_file_t *f = NULL;
	struct e2map_stat st = E2MAP_STAT_INIT;
	int shift = 0, n;

	if ((n = e2map_file_open_flags(m, path, ctx->co.nofollow ?
					  E2MAP_O_NOFOLLOW : 0, &f)) == 0 &&
	    (n = e2map_file_stat(f, &st)) == 0) {
		shift = ulong_log2(o->blocksize ? o->blocksize : st.blksize);
		cmd_json_set(file, "size", cmd_json_u64(st.size));
		cmd_json_set(file, "block_size", cmd_json_u64(st.blksize));
		cmd_json_set(file, "unit", cmd_json_u64(1ULL << shift));
		n = count_fiemap(f, o, NULL, shift, st.size, extents);
	}
	if (n >= 0) {
		cmd_json_set(file, "extents_found", json_integer(n));
		cmd_json_set(file, "extents", extents);
	} else {
		json_decref(extents);
		cmd_json_set(file, "error", cmd_json_error(n, e2map_errmsg(m)));
	}
	e2map_file_close(f);
	return n < 0 ? n : 0;
}

/* --json: {"files":[...]} for every PATH; 1 when one of them failed. */
static int json_report(const struct cmd_ctx *ctx)
{
	json_t *doc = json_object(), *files = json_array();
	char **path = ctx->ops.v;
	int rc = 0, err;

	for (int i = 1; i < ctx->ops.n; i++) {
		json_t *file = json_object();

		cmd_json_set_name(file, "file", path[i], strlen(path[i]));
		if (json_file(ctx, path[i], file) < 0)
			rc = CMD_EXIT_FAIL;
		cmd_json_append(files, file);
	}
	cmd_json_set(doc, "files", files);
	if ((err = cmd_json_print(doc)) < 0)
		return cmd_fail("filefrag: --json", err, NULL);
	return rc;
}

/* -b SIZE: strtoul base 0 and one optional k/m/g, at most 1 GiB. */
static int parse_blocksize(const char *arg, void *field)
{
	char *end;
	unsigned long v;

	if (!arg[0] || arg[0] == '-')
		return -EINVAL;
	v = strtoul(arg, &end, 0);
	switch (*end) {
	case 'g': case 'G': v *= 1024; /* fall through */
	case 'm': case 'M': v *= 1024; /* fall through */
	case 'k': case 'K': v *= 1024; end++; break;
	}
	if (*end || end == arg || v > 1024 * 1024 * 1024)
		return -EINVAL;
	*(unsigned long *)field = v;
	return 0;
}

/* -k: -b 1024, and the later of the two wins, as in filefrag. */
static int kib_units(const char *arg, void *field)
{
	(void)arg;
	*(unsigned long *)field = 1024;
	return 0;
}

#define FIELD(member) offsetof(struct ff_opts, member)
static const struct cmd_option ff_options[] = {
	{ .short_name = 'v', .action = CMD_OPT_TRUE, .field = FIELD(verbose),
	  .help = "the extent table" },
	{ .short_name = 'x', .action = CMD_OPT_TRUE, .field = FIELD(xattr),
	  .help = "map the extended-attribute block instead of the data" },
	{ .short_name = 's', .action = CMD_OPT_TRUE, .field = FIELD(sync),
	  .help = "ask with FIEMAP_FLAG_SYNC (no effect on an image)" },
	{ .short_name = 'e', .action = CMD_OPT_TRUE, .field = FIELD(verbose),
	  .help = "the extent table (same as -v here)" },
	{ .short_name = 'k', .action = CMD_OPT_PARSE, .field = FIELD(blocksize),
	  .parse = kib_units, .help = "report in 1024-byte units" },
	{ .short_name = 'b', .arg = "SIZE", .action = CMD_OPT_PARSE,
	  .field = FIELD(blocksize), .parse = parse_blocksize,
	  .what = "block size",
	  .help = "report in units of SIZE bytes (suffix k, m, g)" },
	CMD_OPT_JSON("{\"files\":[{\"file\",\"size\",\"block_size\",\"unit\",\n"
		     "\"extents_found\",\"extents\":[...]} or {\"file\",\"error\"}]}"),
	CMD_OPT_WHY("filefrag"),
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_NOFOLLOW,
	CMD_OPT_END,
};

const struct cmd_spec filefrag_spec = {
	.options = ff_options,
	.operands = "IMAGE PATH...",
	.min_operands = 2,
	.max_operands = -1,
	.about =
"Reports how many extents each PATH has, as e2fsprogs filefrag does on\n"
"the mounted image; with -v, every extent with its logical and physical\n"
"blocks, the physical block the extent was expected at, and its flags.\n"
"\n"
"Examples:\n"
"  e2map filefrag disk.img /a /b      one summary line per file\n"
"  e2map filefrag -v -k disk.img /a   the extent table in 1 KiB units\n",
	.notes =
"A file filefrag cannot open exits with its errno (the first one), as\n"
"filefrag does; e2map's own errors exit 1, usage errors 2.\n",
	.opts_size = sizeof(struct ff_opts),
};

int cmd_filefrag(struct cmd_ctx *ctx)
{
	struct ff_state s = { .logical_width = 8, .physical_width = 10,
			      .first = true };
	struct e2map_statfs sfs = E2MAP_STATFS_INIT;
	int status, rc = 0;

	if (ctx->co.json)
		return json_report(ctx);
	s.f_blocks = e2map_statfs(ctx->m, &sfs) == 0 ? sfs.blocks : 0;
	/* Like filefrag: report every file, exit with the first failure. */
	for (int i = 1; i < ctx->ops.n; i++)
		if ((status = frag_report(ctx, &s, ctx->ops.v[i])) && !rc)
			rc = status;
	return rc;
}

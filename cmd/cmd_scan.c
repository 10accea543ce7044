/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map scan: one record per inode in use (or under PATH) and per inode
 * only a name reaches, from the library's e2map_scan_records_named, with
 * every name from the path table, in
 * one of four formats (scan_out.c), then a summary: what the regular
 * files hold, what a sparse-aware backup copies against a naive one, and
 * the most fragmented files.  Exit 1 when any record failed.
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const formats[] = { "table", "jsonl", "csv", "body",
				       "timesketch", "dfxml", NULL };

struct scan_opts {
	int top;
	int threads;		/* -j N; 0: one per online CPU */
	bool deleted;		/* -d: the past's records too */
	unsigned hash;		/* --hash: E2MAP_DIGEST_* bits */
	uint64_t hash_max;	/* --hash-max BYTES; 0: no limit */
	struct frag *slots;	/* --top's, made before the image is opened */
};

/* A name whose lstat fails otherwise than its inode's record: offsets
 * of its path and reason in the names' pool, and its errno. */
struct stray {
	size_t off, len, why;
	int err;
};

/* The current inode's names, copied from the path table into one pool. */
struct names {
	char *pool;
	size_t used, cap;
	const char **path;	/* PCAP of them */
	size_t *off, *len;
	size_t n, ncap, pcap;
	int rec_err;		/* the record's: names answering otherwise */
	struct stray *stray;	/* are records of their own */
	size_t nstray, scap;
};

struct frag {
	uint64_t ino, fiemap_extents, extents;
	char *path;		/* its first name, or NULL */
	size_t len;
};

struct totals {
	uint64_t inodes, errors, files;
	uint64_t apparent, written, unwritten, holes, past_eof, allocated;
};

struct scan_run {
	const struct scan_opts *o;
	enum scan_format fmt;
	bool quiet;
	const char *image;
	e2map_t *m;
	e2map_paths_t *paths;
	uint64_t under_ino;	/* PATH's inode, 0: the whole image */
	char *under;		/* PATH's first name, a directory's prefix */
	size_t under_len;
	bool under_dir;
	struct names names;
	struct totals t;
	struct frag *top;
	int ntop;
	int out_err;
	struct cmd_progress progress;
	struct scan_past_count past;
	struct scan_extra x;	/* --hash, dfxml: used when x.algs or runs */
};

/* LEN + 1 bytes more in the pool: the offset where they go, or -1. */
static long pool_take(struct names *nm, size_t len)
{
	size_t at = nm->used;

	if (nm->used + len + 1 > nm->cap) {
		size_t cap = 2 * (nm->used + len + 1);
		char *p = realloc(nm->pool, cap);

		if (!p)
			return -1;
		nm->pool = p;
		nm->cap = cap;
	}
	nm->used += len + 1;
	return (long)at;
}

/* Room for one more name in OFF and LEN, which share NCAP. */
static int names_room(struct names *nm)
{
	size_t cap = nm->ncap ? 2 * nm->ncap : 8, *p;

	if (nm->n < nm->ncap)
		return 0;
	if (!(p = realloc(nm->off, cap * sizeof(*p))))
		return -ENOMEM;
	nm->off = p;
	if (!(p = realloc(nm->len, cap * sizeof(*p))))
		return -ENOMEM;
	nm->len = p;
	nm->ncap = cap;
	return 0;
}

static int add_stray(struct names *nm, size_t at, size_t len, int err,
		     const char *why)
{
	size_t wlen = strlen(why);
	long wat;

	if (nm->nstray == nm->scap) {
		size_t cap = nm->scap ? 2 * nm->scap : 4;
		struct stray *v = realloc(nm->stray, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		nm->stray = v;
		nm->scap = cap;
	}
	if ((wat = pool_take(nm, wlen)) < 0)
		return -ENOMEM;
	memcpy(nm->pool + wat, why, wlen + 1);
	nm->stray[nm->nstray++] = (struct stray){ at, len, (size_t)wat, err };
	return 0;
}

static int add_name(const char *path, size_t len, int err, const char *why,
		    void *payload)
{
	struct names *nm = payload;
	long at;

	if ((at = pool_take(nm, len)) < 0)
		return -ENOMEM;
	memcpy(nm->pool + at, path, len + 1);
	if (err && err != nm->rec_err)
		return add_stray(nm, (size_t)at, len, err, why);
	if (names_room(nm) < 0)
		return -ENOMEM;
	nm->off[nm->n] = (size_t)at;
	nm->len[nm->n++] = len;
	return 0;
}

/* The pool may have moved while it filled: pointers only once it is full. */
static int collect_names(struct scan_run *run, uint64_t ino, int rec_err)
{
	struct names *nm = &run->names;
	const char **p;
	int err;

	nm->used = nm->n = nm->nstray = 0;
	nm->rec_err = rec_err;
	if ((err = e2map_paths_foreach_lstat(run->paths, ino, add_name,
					     nm)) < 0)
		return err;
	if (!nm->n)
		return 0;
	if (nm->n > nm->pcap) {
		if (!(p = realloc(nm->path, nm->ncap * sizeof(*p))))
			return -ENOMEM;
		nm->path = p;
		nm->pcap = nm->ncap;
	}
	for (size_t i = 0; i < nm->n; i++)
		nm->path[i] = nm->pool + nm->off[i];
	return 0;
}

/* A name under PATH, a directory. */
static bool below(const struct scan_run *run, const char *path, size_t len)
{
	size_t n = run->under_len;

	return run->under_dir && len > n && !memcmp(path, run->under, n) &&
	       (n == 1 || path[n] == '/');
}

/* PATH itself, or, for a directory, a name below it. */
static bool selected(const struct scan_run *run, const struct e2map_record *r)
{
	const struct names *nm = &run->names;

	if (!run->under_ino || r->ino == run->under_ino)
		return true;
	for (size_t i = 0; i < nm->n; i++)
		if (below(run, nm->path[i], nm->len[i]))
			return true;
	return false;
}

/* The N most fragmented regular files: by warm FIEMAP extents, then disk. */
static bool more_fragmented(const struct frag *a, const struct frag *b)
{
	if (a->fiemap_extents != b->fiemap_extents)
		return a->fiemap_extents > b->fiemap_extents;
	if (a->extents != b->extents)
		return a->extents > b->extents;
	return a->ino < b->ino;
}

static int keep_top(struct scan_run *run, const struct e2map_record *r)
{
	struct frag f = { r->ino, r->fiemap_extents, r->extents, NULL, 0 };
	int i;

	if (!run->o->top || !S_ISREG(r->st.mode) || r->fiemap_extents < 2 ||
	    !run->names.n)
		return 0;
	if (run->ntop == run->o->top &&
	    !more_fragmented(&f, &run->top[run->ntop - 1]))
		return 0;
	if (run->names.n && !(f.path = strndup(run->names.path[0],
						 run->names.len[0])))
		return -ENOMEM;
	f.len = run->names.n ? run->names.len[0] : 0;
	if (run->ntop == run->o->top)
		free(run->top[--run->ntop].path);
	for (i = run->ntop++; i > 0 && more_fragmented(&f, &run->top[i - 1]);
	     i--)
		run->top[i] = run->top[i - 1];
	run->top[i] = f;
	return 0;
}

/* The files a copy of the mount would read: regular files with a name
 * (not the journal, the resize inode or an EA inode's value). */
static void add_totals(struct totals *t, const struct e2map_record *r,
		       size_t names)
{
	t->inodes++;
	t->errors += r->err != 0;
	t->allocated += r->st.blocks * 512;
	if (!S_ISREG(r->st.mode) || !names)
		return;
	t->files++;
	t->apparent += r->st.size;
	t->written += r->written;
	t->unwritten += r->unwritten;
	t->holes += r->holes;
	t->past_eof += r->past_eof;
}

/* 0, or -EIO where stdout failed (jsonl): the scan stops there. */
static int print_item(struct scan_run *run, const struct scan_item *it)
{
	int err = scan_print_item(run->fmt, run->m, it);

	if (err < 0)
		run->out_err = err;
	return err == -EIO ? err : 0;
}

/*
 * A name of INO whose lstat fails on its own (the htree probe misses it,
 * a directory above it, another encryption policy, an EA inode) or
 * otherwise than INO's record: a failed record of its own, as the
 * mount's readdir lists the name and its lstat fails.
 */
static int print_strays(struct scan_run *run, uint64_t ino)
{
	const struct names *nm = &run->names;
	int err = 0;

	for (size_t i = 0; i < nm->nstray && !err; i++) {
		const struct stray *s = &nm->stray[i];
		const char *path = nm->pool + s->off;
		struct e2map_record r = E2MAP_RECORD_INIT;

		if (run->under_ino && !below(run, path, s->len))
			continue;
		r.ino = ino;
		r.err = s->err;
		r.st.version = E2MAP_STAT_VERSION;
		run->t.errors++;	/* a name, not an inode */
		err = print_item(run, &(struct scan_item){ &r, &path, &s->len,
				 1, nm->pool + s->why, NULL });
	}
	return err;
}

static bool use_extra(const struct scan_run *run)
{
	return run->x.algs || run->x.want_runs;
}

static int on_record(const struct e2map_record *r, const char *why,
		     void *payload)
{
	struct scan_run *run = payload;
	struct scan_item it;
	char detail[256];
	int err;

	/* The detail first: readlink (body) reads through M. */
	detail[0] = '\0';
	if (*why)
		snprintf(detail, sizeof(detail), "%s", why);
	cmd_progress_add(&run->progress, 1, 0);
	if ((err = collect_names(run, r->ino, r->err)) < 0)
		return err;
	if (selected(run, r)) {
		add_totals(&run->t, r, run->names.n);
		if ((err = keep_top(run, r)) < 0)
			return err;
		if (use_extra(run) &&
		    (err = scan_extra_fill(run->m, r, run->names.n ?
					       run->names.path[0] : NULL,
					       run->names.n ? run->names.len[0]
					       : 0, &run->x)) < 0)
			return err;
		it = (struct scan_item){ r, run->names.path, run->names.len,
					 run->names.n, detail,
					 use_extra(run) ? &run->x : NULL };
		if ((err = print_item(run, &it)) < 0)
			return err;
	}
	return print_strays(run, r->ino);
}

/*
 * The --top slots, as the first thing after the parse: without memory
 * for them, that is the one error, whatever IMAGE is.
 */
static int make_slots(struct cmd_ctx *ctx)
{
	struct scan_opts *o = ctx->opts;

	if (!(o->slots = calloc(o->top ? (size_t)o->top : 1,
				sizeof(*o->slots))))
		return cmd_fail("scan", -ENOMEM, NULL);
	return CMD_PARSED;
}

static void free_slots(void *opts)
{
	free(((struct scan_opts *)opts)->slots);
}

#define FIELD(member) offsetof(struct scan_opts, member)

static const struct cmd_option scan_options[] = {
	CMD_OPT_FORMAT(formats, "table (default), jsonl, csv, body "
		       "(The Sleuth Kit's, for mactime -b), timesketch "
		       "(JSONL events for Timesketch), or dfxml (fiwalk's "
		       "DFXML, byte runs in the disk)"),
	{ .long_name = "hash", .arg = "ALGS", .action = CMD_OPT_PARSE,
	  .parse = scan_parse_digests, .what = "digest list",
	  .field = FIELD(hash),
	  .help = "each regular file's digests over its bytes as read(2) "
		  "gives them: md5, sha1, sha256, comma-separated" },
	{ .long_name = "hash-max", .arg = "BYTES", .action = CMD_OPT_PARSE,
	  .parse = scan_parse_size, .what = "size", .field = FIELD(hash_max),
	  .help = "--hash: leave files larger than BYTES unread (a hash "
		  "error, EFBIG; default: no limit)" },
	{ .long_name = "top", .arg = "N", .action = CMD_OPT_PARSE,
	  .parse = cmd_parse_count, .what = "count", .field = FIELD(top),
	  .help = "the summary's N most fragmented files (10; 0: none)" },
	{ .short_name = 'j', .long_name = "threads", .arg = "N",
	  .action = CMD_OPT_PARSE, .field = FIELD(threads),
	  .parse = cmd_parse_count, .what = "thread count",
	  .help = "make the records on N threads (default: one per CPU); "
		  "the output is the same" },
	{ .short_name = 'd', .long_name = "deleted", .action = CMD_OPT_TRUE,
	  .field = FIELD(deleted), .help = "after the live records, the "
	  "deleted names left in directories\n(with their inode's state now), "
	  "the free inodes that hold\nmetadata, and orphans" },
	{ .short_name = 'q', .long_name = "quiet", .action = CMD_OPT_TRUE,
	  CMD_COMMON(quiet), .help = "no progress line; csv and body: no "
	  "summary on stderr" },
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec scan_spec = {
	.options = scan_options,
	.operands = "IMAGE [PATH]",
	.min_operands = 1,
	.max_operands = 2,
	.about =
"Lists every inode in use, or PATH and every inode named under it, with\n"
"all its names (hard links too), type, mode, owner, the four times to the\n"
"nanosecond, size, the bytes written, preallocated (unwritten), left as\n"
"holes and allocated past EOF, its metadata blocks (extent tree or\n"
"indirect blocks, xattr block), its extents as on disk and as the\n"
"kernel's warm FIEMAP merges them, and the kernel's error where it is\n"
"damaged; then a summary: the regular files' apparent, written and\n"
"allocated bytes, what a sparse-aware backup copies against a naive one,\n"
"and the most fragmented files.  With -d, then every name deleted from a\n"
"directory that its slack still holds (as fls -d finds them, and in htree\n"
"and inline directories too), with its inode's state (unallocated,\n"
"linked, reallocated), and every inode the bitmap calls free that still\n"
"holds metadata (as ils), and orphans.  Exit 1 when any inode failed.\n"
"\n"
"Examples:\n"
"  e2map scan evidence.img /home\n"
"  e2map scan --format body evidence.img > body && mactime -b body -z UTC\n"
"  e2map scan -d --format body evidence.img | mactime -b - -z UTC\n"
"  e2map scan --format jsonl -q evidence.img | jq -c 'select(.error)'\n",
	.opts_size = sizeof(struct scan_opts),
	.defaults = &(const struct scan_opts){ .top = 10 },
	.check = make_slots,
	.free_opts = free_slots,
};

/* PATH's inode and, for a directory, the prefix of the names under it. */
static int resolve_under(struct scan_run *run, const char *image,
			 const char *path)
{
	struct e2map_stat st = E2MAP_STAT_INIT;
	int err;

	if ((err = e2map_path_lstat(run->m, path, &st)) < 0)
		return cmd_fail_file("scan", image, path, err, run->m);
	run->under_ino = st.ino;
	run->under_dir = S_ISDIR(st.mode);
	if ((err = collect_names(run, st.ino, 0)) < 0)
		return cmd_fail("scan", err, NULL);
	if (run->under_dir && run->names.n &&
	    !(run->under = strndup(run->names.path[0], run->names.len[0])))
		return cmd_fail("scan", -ENOMEM, NULL);
	run->under_len = run->under ? strlen(run->under) : 0;
	if (run->under_dir && !run->under)
		run->under_dir = false;	/* no name: only itself */
	return 0;
}

static void human(char *buf, size_t size, uint64_t v)
{
	static const char units[] = "KMGTPE";
	double x = (double)v;
	int u = -1;

	while (x >= 1024 && u < 5) {
		x /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%" PRIu64 " B", v);
	else
		snprintf(buf, size, "%.1f %ciB", x, units[u]);
}

static void print_bytes(FILE *out, const char *what, uint64_t v)
{
	char h[32];

	human(h, sizeof(h), v);
	fprintf(out, "  %-36s %20" PRIu64 "  (%s)\n", what, v, h);
}

static void print_summary(FILE *out, const struct scan_run *run)
{
	const struct totals *t = &run->t;

	fprintf(out, "%s%" PRIu64 " inodes, %" PRIu64 " errors, %" PRIu64
		" regular files\n", out == stdout ? "\n" : "", t->inodes,
		t->errors, t->files);
	if (run->o->deleted)
		fprintf(out, "%" PRIu64 " deleted names, %" PRIu64 " free inodes"
			" with metadata, %" PRIu64 " orphans\n", run->past.names,
			run->past.inodes, run->past.orphans);
	print_bytes(out, "apparent size (named regular files)", t->apparent);
	print_bytes(out, "written", t->written);
	print_bytes(out, "unwritten (preallocated)", t->unwritten);
	print_bytes(out, "holes", t->holes);
	print_bytes(out, "allocated past EOF", t->past_eof);
	print_bytes(out, "allocated (st_blocks, all inodes)", t->allocated);
	print_bytes(out, "naive backup copies", t->apparent);
	print_bytes(out, "sparse-aware backup copies", t->written);
	if (!run->ntop)
		return;
	fprintf(out, "most fragmented (FIEMAP extents, on disk):\n");
	for (int i = 0; i < run->ntop; i++) {
		const struct frag *f = &run->top[i];

		fprintf(out, "  %8" PRIu64 " %8" PRIu64 "  <%" PRIu64 "> %s\n",
			f->fiemap_extents, f->extents, f->ino,
			f->path ? cmd_esc(f->path) : "");
	}
}

static json_t *json_summary(const struct scan_run *run)
{
	const struct totals *t = &run->t;
	json_t *s = json_object(), *top = json_array(), *doc = json_object();

	cmd_json_set(s, "inodes", cmd_json_u64(t->inodes));
	cmd_json_set(s, "errors", cmd_json_u64(t->errors));
	cmd_json_set(s, "regular_files", cmd_json_u64(t->files));
	if (run->o->deleted) {
		cmd_json_set(s, "deleted_names", cmd_json_u64(run->past.names));
		cmd_json_set(s, "free_inodes", cmd_json_u64(run->past.inodes));
		cmd_json_set(s, "orphans", cmd_json_u64(run->past.orphans));
	}
	cmd_json_set(s, "apparent_bytes", cmd_json_u64(t->apparent));
	cmd_json_set(s, "written_bytes", cmd_json_u64(t->written));
	cmd_json_set(s, "unwritten_bytes", cmd_json_u64(t->unwritten));
	cmd_json_set(s, "hole_bytes", cmd_json_u64(t->holes));
	cmd_json_set(s, "past_eof_bytes", cmd_json_u64(t->past_eof));
	cmd_json_set(s, "allocated_bytes", cmd_json_u64(t->allocated));
	cmd_json_set(s, "naive_copy_bytes", cmd_json_u64(t->apparent));
	cmd_json_set(s, "sparse_copy_bytes", cmd_json_u64(t->written));
	for (int i = 0; i < run->ntop; i++) {
		json_t *f = json_object();

		cmd_json_set(f, "ino", cmd_json_u64(run->top[i].ino));
		if (run->top[i].path)
			cmd_json_set_name(f, "path", run->top[i].path,
					  run->top[i].len);
		cmd_json_set(f, "fiemap_extents",
			     cmd_json_u64(run->top[i].fiemap_extents));
		cmd_json_set(f, "extents", cmd_json_u64(run->top[i].extents));
		cmd_json_append(top, f);
	}
	cmd_json_set(s, "most_fragmented", top);
	cmd_json_set(doc, "summary", s);
	return doc;
}

/* The summary where the format leaves room for it: stdout for table and
 * jsonl (its last line), stderr for csv, body, timesketch and dfxml,
 * which must stay pure. */
static int finish(struct scan_run *run)
{
	if (run->fmt == SCAN_JSONL)
		return cmd_json_print(json_summary(run));
	if (run->fmt == SCAN_DFXML)
		scan_dfxml_tail();
	if (run->fmt == SCAN_TABLE)
		print_summary(stdout, run);
	else if (!run->quiet)
		print_summary(stderr, run);
	return 0;
}

static int scan_image(struct scan_run *run)
{
	int err;

	cmd_progress_inodes(&run->progress, run->m, "scan", "inodes",
			    NULL, run->quiet, true);
	scan_print_head(run->fmt, run->x.algs);
	if (run->fmt == SCAN_DFXML)
		scan_dfxml_head(run->m, run->image);
	err = e2map_scan_records_named(run->m, (unsigned)run->o->threads,
				       &run->paths, on_record, run);
	cmd_progress_end(&run->progress);
	if (!err && !run->out_err && run->o->deleted)
		err = scan_past_print(run->fmt, run->m, run->paths,
				      run->under_ino ? (run->under ? run->under
				      : "") : NULL, &run->past);
	if (err < 0 || run->out_err)
		return cmd_fail("scan", err < 0 ? err : run->out_err,
				err < 0 ? e2map_errmsg(run->m) : NULL);
	if ((err = finish(run)) < 0)
		return cmd_fail("scan", err, NULL);
	return run->t.errors ? CMD_EXIT_FAIL : 0;
}

static void run_free(struct scan_run *run)
{
	for (int i = 0; i < run->ntop; i++)
		free(run->top[i].path);
	free(run->top);
	free(run->under);
	free(run->names.pool);
	free(run->names.path);
	free(run->names.off);
	free(run->names.len);
	free(run->names.stray);
	e2map_paths_free(run->paths);
	scan_extra_free(&run->x);
}

/*
 * Records into a file or a pipe leave in large writes: stdio's block of
 * st_blksize bytes was a write(2) every ten records.  A terminal keeps
 * its line buffering.
 */
static void big_stdout(void)
{
	static char buf[1U << 20];

	if (!isatty(STDOUT_FILENO) && fflush(stdout) == 0)
		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
}

int cmd_scan(struct cmd_ctx *ctx)
{
	struct scan_opts *o = ctx->opts;
	struct scan_run run = { .o = o, .m = ctx->m, .top = o->slots,
				.fmt = (enum scan_format)ctx->co.format,
				.quiet = ctx->co.quiet, .image = ctx->image };
	struct cmd_operands *ops = &ctx->ops;
	struct e2map_statfs sfs = E2MAP_STATFS_INIT;
	int status, err;

	o->slots = NULL;	/* run_free frees them now */
	big_stdout();
	run.x.algs = o->hash;
	run.x.hash_max = o->hash_max;
	run.x.want_runs = run.fmt == SCAN_DFXML;
	run.x.bsize = e2map_statfs(run.m, &sfs) == 0 ? sfs.bsize : 4096;
	run.x.disk_off = e2map_disk_offset(run.m);
	/* PATH's names are needed first; else the library builds the table
	 * at the first record, while the workers go on making records. */
	if (ops->n > 1 && (err = e2map_paths_build(run.m, &run.paths)) < 0)
		status = cmd_fail("scan: paths", err, e2map_errmsg(run.m));
	else if (ops->n < 2 ||
		 !(status = resolve_under(&run, ctx->image, ops->v[1])))
		status = scan_image(&run);
	run_free(&run);
	return status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map diff`: what changed from IMAGE_A to IMAGE_B, inode by inode and
 * range by range (e2map_diff), then a summary for planning a copy.  The
 * two images are opened here, each with its own --offset-a/-b and
 * --partition-a/-b, --replay and --unmountable applying to both.
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { DIFF_TABLE, DIFF_JSONL, DIFF_CSV };
static const char *const diff_formats[] = { "table", "jsonl", "csv", NULL };

struct diff_opts {
	bool bytes, force, atime;
	const char *offset_a, *offset_b, *partition_a, *partition_b;
};

/* One change letter a kind, in E2MAP_DIFF_* bit order. */
static const char diff_letters[] = "+-RLTmotxsdE";

#define FIELD(member) offsetof(struct diff_opts, member)
static const struct cmd_option diff_options[] = {
	CMD_OPT_FORMAT(diff_formats, "table (default), jsonl (an object a "
		       "changed inode, then\n{\"summary\":{...}}) or csv "
		       "(RFC 4180, a row a range)"),
	{ .long_name = "bytes", .action = CMD_OPT_TRUE, .field = FIELD(bytes),
	  .help = "read the blocks both images map alike in changed files\n"
		  "and report those whose bytes differ" },
	{ .long_name = "force", .action = CMD_OPT_TRUE, .field = FIELD(force),
	  .help = "compare filesystems of different UUIDs" },
	{ .long_name = "atime", .action = CMD_OPT_TRUE, .field = FIELD(atime),
	  .help = "an access time change is a change" },
	{ .long_name = "offset-a", .arg = "BYTES", .action = CMD_OPT_STRING,
	  .field = FIELD(offset_a),
	  .help = "IMAGE_A's filesystem starts at BYTES" },
	{ .long_name = "offset-b", .arg = "BYTES", .action = CMD_OPT_STRING,
	  .field = FIELD(offset_b),
	  .help = "IMAGE_B's filesystem starts at BYTES" },
	{ .long_name = "partition-a", .arg = "N", .action = CMD_OPT_STRING,
	  .field = FIELD(partition_a),
	  .help = "IMAGE_A's filesystem is its partition N" },
	{ .long_name = "partition-b", .arg = "N", .action = CMD_OPT_STRING,
	  .field = FIELD(partition_b),
	  .help = "IMAGE_B's filesystem is its partition N" },
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec diff_spec = {
	.options = diff_options,
	.operands = "IMAGE_A IMAGE_B [PATH]",
	.min_operands = 2,
	.max_operands = 3,
	.about =
"Lists what changed from IMAGE_A to IMAGE_B, two images of one filesystem,\n"
"one line per changed inode: its kinds of change (+ added, - deleted,\n"
"R renamed, L links, T type, m mode, o owner, t times, x xattrs, s size,\n"
"d data, E error), its path, and its changed logical ranges: added,\n"
"removed, punched, moved, filled, written, unwritten, and, where both\n"
"images map a range to the same blocks, same_mapping_unchecked (or, with\n"
"--bytes, same_mapping_changed where the bytes differ).  A summary ends\n"
"the list: files touched, bytes an incremental copy moves, each image's\n"
"size and bytes in use.  Only the inode tables, directories and the\n"
"mappings of changed inodes are read.  PATH limits it to one subtree.\n"
"\n"
"Examples:\n"
"  e2map diff monday.img tuesday.img\n"
"  e2map diff --bytes --format jsonl a.img b.img /home\n",
	.notes =
"Images of different UUIDs are refused unless --force; different block\n"
"sizes always.  Exit status 0 whether or not anything changed.\n",
	.opts_size = sizeof(struct diff_opts),
};

struct diff_out {
	int format;
	bool head;		/* printed: after the pair was accepted */
};

static void print_head(struct diff_out *out)
{
	if (out->head)
		return;
	out->head = true;
	if (out->format == DIFF_TABLE)
		printf("%10s %-12s %6s %12s %s\n", "INODE", "CHANGE", "RANGES",
		       "BYTES", "PATH");
	if (out->format == DIFF_CSV)
		printf("ino,change,path,path_a,kind,offset,length\n");
}

static void letters(uint32_t change, char *out)
{
	size_t n = 0;

	for (unsigned i = 0; diff_letters[i]; i++)
		out[n++] = change & (1u << i) ? diff_letters[i] : '.';
	out[n] = 0;
}

static const char *entry_path(const struct e2map_diff_entry *e)
{
	return e->path_b ? e->path_b : e->path_a ? e->path_a : "-";
}

static uint64_t range_bytes(const struct e2map_diff_entry *e)
{
	uint64_t n = 0;

	for (size_t i = 0; i < e->nranges; i++)
		n += e->ranges[i].length;
	return n;
}

static void print_table(const struct e2map_diff_entry *e)
{
	char l[16];

	letters(e->change, l);
	printf("%10" PRIu64 " %s %6zu %12" PRIu64 " ", e->ino, l, e->nranges,
	       range_bytes(e));
	cmd_put_quoted(stdout, entry_path(e), strlen(entry_path(e)), false,
		       false);
	if (e->path_a && e->path_b && strcmp(e->path_a, e->path_b)) {
		fputs(" <- ", stdout);
		cmd_put_quoted(stdout, e->path_a, strlen(e->path_a), false,
			       false);
	}
	if (e->err)
		printf(" (%s: %s)", e2map_strerror(e->err), e->detail);
	putchar('\n');
}

static json_t *json_changes(uint32_t change)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < 32; i++)
		if ((change & (1u << i)) && e2map_diff_change_name(1u << i))
			cmd_json_append(a, json_string(
				e2map_diff_change_name(1u << i)));
	return a;
}

static void json_path(json_t *o, const char *key, const char *p)
{
	if (p)
		cmd_json_set_name(o, key, p, strlen(p));
	else
		cmd_json_set(o, key, json_null());
}

static int print_jsonl(const struct e2map_diff_entry *e)
{
	json_t *o = json_object(), *r = json_array();

	cmd_json_set(o, "ino", cmd_json_u64(e->ino));
	cmd_json_set(o, "change", json_changes(e->change));
	json_path(o, "path", e->path_b ? e->path_b : e->path_a);
	json_path(o, "path_a", e->path_a && e->path_b &&
		  strcmp(e->path_a, e->path_b) ? e->path_a : NULL);
	cmd_json_set(o, "size_a", cmd_json_u64(e->st_a.size));
	cmd_json_set(o, "size_b", cmd_json_u64(e->st_b.size));
	cmd_json_set(o, "mode_a", json_integer(e->st_a.mode));
	cmd_json_set(o, "mode_b", json_integer(e->st_b.mode));
	for (size_t i = 0; i < e->nranges; i++) {
		json_t *x = json_object();

		cmd_json_set(x, "offset", cmd_json_u64(e->ranges[i].offset));
		cmd_json_set(x, "length", cmd_json_u64(e->ranges[i].length));
		cmd_json_set(x, "kind", json_string(
			e2map_diff_kind_name(e->ranges[i].kind)));
		cmd_json_append(r, x);
	}
	cmd_json_set(o, "ranges", r);
	if (e->err)
		cmd_json_set(o, "error", cmd_json_error(e->err, e->detail));
	return cmd_json_print(o);
}

static void csv_row(const struct e2map_diff_entry *e, const char *kind,
		    uint64_t off, uint64_t len)
{
	char l[16];

	letters(e->change, l);
	printf("%" PRIu64 ",%s,", e->ino, l);
	cmd_csv_text(entry_path(e));
	putchar(',');
	cmd_csv_text(e->path_a && e->path_b && strcmp(e->path_a, e->path_b) ?
		  e->path_a : "");
	printf(",%s,%" PRIu64 ",%" PRIu64 "\n", kind, off, len);
}

static void print_csv(const struct e2map_diff_entry *e)
{
	if (!e->nranges)
		csv_row(e, "", 0, 0);
	for (size_t i = 0; i < e->nranges; i++)
		csv_row(e, e2map_diff_kind_name(e->ranges[i].kind),
			e->ranges[i].offset, e->ranges[i].length);
}

static int print_entry(const struct e2map_diff_entry *e, void *payload)
{
	struct diff_out *out = payload;

	print_head(out);
	if (out->format == DIFF_JSONL)
		return print_jsonl(e) < 0 ? -EIO : 0;
	if (out->format == DIFF_CSV)
		print_csv(e);
	else
		print_table(e);
	return 0;
}

static int print_summary(int format, const struct e2map_diff_summary *s)
{
	json_t *o, *doc;

	if (format == DIFF_CSV)
		return 0;
	if (format == DIFF_TABLE) {
		printf("%" PRIu64 " files touched, %" PRIu64 " bytes to copy "
		       "(%" PRIu64 " unchecked); A: %" PRIu64 " bytes, %" PRIu64
		       " in use; B: %" PRIu64 " bytes, %" PRIu64 " in use\n",
		       s->files, s->copy_bytes, s->unchecked_bytes,
		       s->apparent_a, s->allocated_a, s->apparent_b,
		       s->allocated_b);
		return 0;
	}
	o = json_object();
	cmd_json_set(o, "files", cmd_json_u64(s->files));
	cmd_json_set(o, "copy_bytes", cmd_json_u64(s->copy_bytes));
	cmd_json_set(o, "unchecked_bytes", cmd_json_u64(s->unchecked_bytes));
	cmd_json_set(o, "apparent_a", cmd_json_u64(s->apparent_a));
	cmd_json_set(o, "allocated_a", cmd_json_u64(s->allocated_a));
	cmd_json_set(o, "apparent_b", cmd_json_u64(s->apparent_b));
	cmd_json_set(o, "allocated_b", cmd_json_u64(s->allocated_b));
	cmd_json_set(o, "inodes_differing",
		     cmd_json_u64(s->inodes_differing));
	cmd_json_set(o, "inodes_walked", cmd_json_u64(s->inodes_walked));
	doc = json_object();
	cmd_json_set(doc, "summary", o);
	return cmd_json_print(doc);
}

/* Open one side with its own offset and partition. */
static int open_side(const struct cmd_ctx *ctx, const char *image,
		     const char *offset, const char *partition, e2map_t **m)
{
	struct cmd_common co = ctx->co;

	co.offset = offset;
	co.partition = partition;
	return cmd_open_image("diff", &co, image, m);
}

static int run_diff(struct cmd_ctx *ctx, e2map_t *a, e2map_t *b)
{
	const struct diff_opts *o = ctx->opts;
	struct e2map_diff_opts dopt = { E2MAP_DIFF_OPTS_VERSION, 0, NULL };
	struct e2map_diff_summary sum = { E2MAP_DIFF_SUMMARY_VERSION, 0, 0,
					  0, 0, 0, 0, 0, 0, 0 };
	struct diff_out out = { ctx->co.format, false };
	int err;

	dopt.flags = (o->bytes ? E2MAP_DIFF_BYTES : 0) |
		     (o->force ? E2MAP_DIFF_FORCE : 0) |
		     (o->atime ? E2MAP_DIFF_ATIME : 0);
	dopt.path = ctx->ops.n > 2 ? ctx->ops.v[2] : NULL;
	err = e2map_diff(a, b, &dopt, print_entry, &out, &sum);
	if (err < 0) {
		fflush(stdout);
		return cmd_fail("diff", err, e2map_errmsg(a));
	}
	print_head(&out);
	if (print_summary(out.format, &sum) < 0)
		return cmd_fail("diff", -EIO, NULL);
	return 0;
}

int cmd_diff(struct cmd_ctx *ctx)
{
	const struct diff_opts *o = ctx->opts;
	e2map_t *a = NULL, *b = NULL;
	int rc;

	rc = open_side(ctx, ctx->ops.v[0], o->offset_a, o->partition_a, &a);
	if (!rc)
		rc = open_side(ctx, ctx->ops.v[1], o->offset_b,
			       o->partition_b, &b);
	if (!rc)
		rc = run_diff(ctx, a, b);
	e2map_close(b);
	e2map_close(a);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CLI's one option parser (cmd/parse.c), run on tables of its own:
 * the shapes the coming commands need (scan's --format, du's -s -a,
 * --apparent-size|--written, -h taken by an option, a required group),
 * combined and repeated short flags, and the usage line and help text
 * built from the same table.  The expected texts are written out here:
 * they are e2map's own messages, which no kernel tool prints.
 */
#include <criterion/criterion.h>

#include "../cmd/cmd.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

struct demo {
	bool summarize, all;
	int size_mode;		/* 0, 1 apparent, 2 written */
	int verbose;
	int max;
};

#define FIELD(member) offsetof(struct demo, member)
static const char *const formats[] = { "table", "jsonl", "csv", "body",
				       NULL };
static const struct cmd_option demo_options[] = {
	{ .short_name = 's', .action = CMD_OPT_TRUE, .field = FIELD(summarize),
	  .help = "only a total" },
	{ .short_name = 'a', .action = CMD_OPT_TRUE, .field = FIELD(all),
	  .help = "every file" },
	{ .long_name = "apparent-size", .action = CMD_OPT_SET,
	  .field = FIELD(size_mode), .value = 1, .group = 1,
	  .help = "sizes as stat says" },
	{ .long_name = "written", .action = CMD_OPT_SET,
	  .field = FIELD(size_mode), .value = 2, .group = 1,
	  .help = "written bytes only" },
	{ .short_name = 'v', .action = CMD_OPT_COUNT, .field = FIELD(verbose),
	  .help = "more detail;\nagain for more" },
	{ .short_name = 'n', .arg = "COUNT", .action = CMD_OPT_PARSE,
	  .field = FIELD(max), .parse = cmd_parse_count, .what = "count",
	  .help = "at most COUNT" },
	CMD_OPT_QUIET,
	CMD_OPT_FORMAT(formats, "the output format"),
	CMD_OPT_JSON("one document"),
	CMD_OPT_END,
};

static const struct cmd_spec demo_spec = {
	.options = demo_options,
	.operands = "IMAGE [PATH]",
	.min_operands = 1,
	.max_operands = 2,
	.about = "Demo.\n",
	.notes = "The end.\n",
};

/* -h taken, one of -x and -h required. */
static const struct cmd_option pick_options[] = {
	{ .short_name = 'x', .action = CMD_OPT_SET, .field = FIELD(size_mode),
	  .value = 1, .group = 3, .required = true, .help = "x" },
	{ .short_name = 'h', .action = CMD_OPT_SET, .field = FIELD(size_mode),
	  .value = 2, .group = 3, .required = true, .help = "h" },
	CMD_OPT_END,
};

static const struct cmd_spec pick_spec = {
	.options = pick_options,
	.operands = "IMAGE",
	.min_operands = 1,
	.max_operands = 1,
	.about = "Pick.\n",
};

static const struct e2map_cmd rows[] = {
	{ "demo", NULL, "a demo", &demo_spec, 0 },
	{ "pick", NULL, "a pick", &pick_spec, 0 },
};

/* The row named NAME, which the dispatcher would hand the parser. */
static const struct e2map_cmd *row(const char *name)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	cr_assert_fail("no row %s", name);
	return NULL;
}

struct result {
	int status;
	struct demo d;
	struct cmd_common co;
	struct cmd_operands ops;
	char out[4096], err[4096];
};

/* Redirect FD to a temp file; returns the saved descriptor. */
static int redirect(int fd, int *tmp)
{
	char name[] = "/tmp/e2map-parse-XXXXXX";
	int saved = dup(fd);

	*tmp = mkstemp(name);
	cr_assert(saved >= 0 && *tmp >= 0);
	unlink(name);
	dup2(*tmp, fd);
	return saved;
}

static void restore(int fd, int saved, int tmp, char *buf, size_t size)
{
	ssize_t n;

	dup2(saved, fd);
	close(saved);
	lseek(tmp, 0, SEEK_SET);
	n = read(tmp, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(tmp);
}

/* cmd_parse on ARGS (NULL-terminated, args[0] the command's name). */
static void parse(struct result *r, const char *const *args)
{
	const struct e2map_cmd *c = row(args[0]);
	char *argv[32];
	int argc = 0, out_tmp, err_tmp, out_saved, err_saved;

	memset(r, 0, sizeof(*r));
	while (args[argc] && argc < 31) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	out_saved = redirect(1, &out_tmp);
	err_saved = redirect(2, &err_tmp);
	r->status = cmd_parse(c, argc, argv, &r->d, &r->co, &r->ops);
	fflush(stdout);
	fflush(stderr);
	restore(1, out_saved, out_tmp, r->out, sizeof(r->out));
	restore(2, err_saved, err_tmp, r->err, sizeof(r->err));
}

#define DEMO_USAGE "usage: e2map demo [-s] [-a] [--apparent-size|--written] " \
	"[-v] [-n COUNT] [-q] [--format table|jsonl|csv|body] [--json] " \
	"IMAGE [PATH]\n"

TestSuite(cli_parse, .timeout = 10);

Test(cli_parse, combined_and_repeated_short_flags)
{
	struct result r;

	parse(&r, (const char *[]){ "demo", "-sav", "-vv", "img", "-v", NULL });
	cr_assert_eq(r.status, CMD_PARSED, "%s", r.err);
	cr_assert(r.d.summarize && r.d.all);
	cr_assert_eq(r.d.verbose, 4);
	cr_assert_eq(r.ops.n, 1);
	cr_assert_str_eq(r.ops.v[0], "img");
	cr_assert_str_empty(r.err);
}

Test(cli_parse, options_after_operands_and_common_ones)
{
	struct result r;

	parse(&r, (const char *[]){ "demo", "img", "/p", "--quiet", "-n5",
				    "--json", NULL });
	cr_assert_eq(r.status, CMD_PARSED, "%s", r.err);
	cr_assert(r.co.quiet && r.co.json);
	cr_assert_eq(r.d.max, 5);
	cr_assert_eq(r.ops.n, 2);
	cr_assert_str_eq(r.ops.v[1], "/p");
	parse(&r, (const char *[]){ "demo", "-q", "--", "-img", NULL });
	cr_assert_eq(r.status, CMD_PARSED, "%s", r.err);
	cr_assert_str_eq(r.ops.v[0], "-img");
}

Test(cli_parse, format_takes_one_of_its_choices)
{
	struct result r;

	parse(&r, (const char *[]){ "demo", "--format", "csv", "img", NULL });
	cr_assert_eq(r.status, CMD_PARSED, "%s", r.err);
	cr_assert_eq(r.co.format, 2);
	parse(&r, (const char *[]){ "demo", "--format=body", "img", NULL });
	cr_assert_eq(r.co.format, 3);
	/* A unique prefix of the option's name, never of its value. */
	parse(&r, (const char *[]){ "demo", "--form", "jsonl", "img", NULL });
	cr_assert_eq(r.co.format, 1);
	parse(&r, (const char *[]){ "demo", "--format", "json", "img", NULL });
	cr_assert_eq(r.status, CMD_EXIT_USAGE);
	cr_assert_str_eq(r.err, "e2map: demo: invalid --format 'json': not one "
			 "of table, jsonl, csv, body\n");
	cr_assert_str_empty(r.out);
}

Test(cli_parse, the_last_of_a_group_wins)
{
	struct result r;

	parse(&r, (const char *[]){ "demo", "--written", "--apparent-size",
				    "img", NULL });
	cr_assert_eq(r.status, CMD_PARSED, "%s", r.err);
	cr_assert_eq(r.d.size_mode, 1);
	parse(&r, (const char *[]){ "demo", "--app", "--wr", "img", NULL });
	cr_assert_eq(r.d.size_mode, 2);
}

Test(cli_parse, operand_count_outside_the_spec_is_the_usage_line)
{
	struct result r;

	parse(&r, (const char *[]){ "demo", NULL });
	cr_assert_eq(r.status, CMD_EXIT_USAGE);
	cr_assert_str_eq(r.err, DEMO_USAGE);
	parse(&r, (const char *[]){ "demo", "a", "b", "c", NULL });
	cr_assert_eq(r.status, CMD_EXIT_USAGE);
	cr_assert_str_eq(r.err, DEMO_USAGE);
	cr_assert_str_empty(r.out);
}

Test(cli_parse, bad_options_are_one_line_and_the_usage)
{
	struct result r;

	parse(&r, (const char *[]){ "demo", "-sZ", "img", NULL });
	cr_assert_eq(r.status, CMD_EXIT_USAGE);
	cr_assert_str_eq(r.err, "e2map: demo: invalid option or missing "
			 "argument: '-Z'\n" DEMO_USAGE);
	parse(&r, (const char *[]){ "demo", "img", "--format", NULL });
	cr_assert_str_eq(r.err, "e2map: demo: invalid option or missing "
			 "argument: '--format'\n" DEMO_USAGE);
	parse(&r, (const char *[]){ "demo", "--json=1", "img", NULL });
	cr_assert_str_eq(r.err, "e2map: demo: invalid option or missing "
			 "argument: '--json=1'\n" DEMO_USAGE);
	/* The first error stops the parse: -n's, not the later -Z. */
	parse(&r, (const char *[]){ "demo", "-n", "x\n", "-Z", "img", NULL });
	cr_assert_eq(r.status, CMD_EXIT_USAGE);
	cr_assert_str_eq(r.err, "e2map: demo: invalid count 'x\\n'\n");
}

Test(cli_parse, help_is_built_from_the_table)
{
	struct result r;

	parse(&r, (const char *[]){ "demo", "img", "--help", "-Z", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert_str_empty(r.err);
	cr_assert_str_eq(r.out, DEMO_USAGE "\nDemo.\n\n"
		"  -s               only a total\n"
		"  -a               every file\n"
		"  --apparent-size  sizes as stat says\n"
		"  --written        written bytes only\n"
		"  -v               more detail;\n"
		"                   again for more\n"
		"  -n COUNT         at most COUNT\n"
		"  -q, --quiet      no progress bar\n"
		"  --format table|jsonl|csv|body\n"
		"                   the output format\n"
		"  --json           one document\n"
		"  -h, --help       this help\n"
		"The end.\n");
	parse(&r, (const char *[]){ "demo", "-h", "img", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(!strncmp(r.out, DEMO_USAGE, strlen(DEMO_USAGE)));
}

Test(cli_parse, a_required_group_and_a_taken_h)
{
	struct result r;

	parse(&r, (const char *[]){ "pick", "img", NULL });
	cr_assert_eq(r.status, CMD_EXIT_USAGE);
	cr_assert_str_eq(r.err, "usage: e2map pick -x|-h IMAGE\n");
	parse(&r, (const char *[]){ "pick", "-h", "img", NULL });
	cr_assert_eq(r.status, CMD_PARSED, "%s", r.err);
	cr_assert_eq(r.d.size_mode, 2);
	/* A lone -h is help all the same; --help is listed without -h. */
	parse(&r, (const char *[]){ "pick", "-h", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "\n  --help           this help\n"), "%s",
		  r.out);
}

/* NAME quoted as coreutils quotes it in messages (QUOTEF: cat's quotef). */
static void quoted(const char *name, bool always, bool quotef, char *out,
		   size_t size)
{
	FILE *f = fmemopen(out, size, "w");

	cr_assert(f);
	cmd_put_quoted(f, name, strlen(name), always, quotef);
	fclose(f);
}

/* What GNU cat 9.1 and du 9.1 printed for these names ("cat: %s: ..."). */
Test(cli_parse, names_are_quoted_as_coreutils_quotes_them)
{
	static const char *const cat[][2] = {
		{ "plain", "plain" },
		{ "a b", "'a b'" },
		{ "a:b", "'a:b'" },
		{ "it's", "\"it's\"" },
		{ "x\ny", "'x'$'\\n''y'" },
		{ "it's$x", "'it'\\''s$x'" },
		{ "a'b!", "'a'\\''b!'" },
		{ "a\177", "'a'$'\\177'" },
		{ "\a\b\f\r\v", "''$'\\a\\b\\f\\r\\v'" },
		{ "'\001", "''\\'''$'\\001'" },
		{ "a\"b", "'a\"b'" },
		{ "a'\n", "'''a'\\'''$'\\n'" },
		{ "'a\n", "''\\''a'$'\\n'" },
		{ "ab'c\001", "'''ab'\\''c'$'\\001'" },
		{ "\001'a", "''$'\\001'\\''a'" },
		{ "\001a'", "''$'\\001''a'\\'''" },
		{ "\033[1m", "''$'\\033''[1m'" },
	};
	char out[256];
	size_t i;

	for (i = 0; i < sizeof(cat) / sizeof(cat[0]); i++) {
		quoted(cat[i][0], false, true, out, sizeof(out));
		cr_expect_str_eq(out, cat[i][1], "name %zu", i);
	}
	/* du's "cannot access %s" always quotes; a colon alone does not. */
	quoted("a:b", true, false, out, sizeof(out));
	cr_expect_str_eq(out, "'a:b'");
	quoted("x\ty\001\200", true, false, out, sizeof(out));
	cr_expect_str_eq(out, "'x'$'\\t''y'$'\\001\\200'");
	quoted("a:b", false, false, out, sizeof(out));
	cr_expect_str_eq(out, "a:b");
}

/* The progress line: a whole image has a total, an ETA and a percentage;
 * a subtree (no total) only its count, never "100%" from the start. */
Test(cli_parse, progress_line_of_a_whole_image_and_of_a_subtree)
{
	struct cmd_progress p = { .cmd = "extract", .unit = "files" };
	char line[160];

	p.total = 400;
	p.done = 100;
	p.bytes = 3 * 1024 * 1024;
	cmd_progress_format(line, sizeof(line), &p, 2000000000LL);
	cr_assert_str_eq(line, "e2map extract: 100/400 files (25%), 3.0 MiB, "
			 "50/s, ETA 0:06");
	p.total = 0;
	cmd_progress_format(line, sizeof(line), &p, 2000000000LL);
	cr_assert_str_eq(line, "e2map extract: 100 files, 3.0 MiB, 50/s");
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map: the command table, the dispatcher, `e2map help`, `--version`,
 * and the check that everything written to stdout really got there
 * (git's run_builtin: a full disk or a closed pipe must not exit 0).
 *
 * The dispatcher does what every command would repeat (git's RUN_SETUP,
 * xfs_io's command flags): it makes the options struct, parses with the
 * row's spec, runs the spec's check, opens what the row's flags name,
 * calls the command with a struct cmd_ctx, and closes it all after,
 * whatever the command returned.  Usage errors come before any open.
 *
 * Adding a command is a row below and a function:
 *  1. cmd/cmd_<name>.c: a struct of its options (the common ones are in
 *     ctx->co); a table of them, struct cmd_option rows (its own, then
 *     CMD_OPT_JSON, CMD_OPT_OFFSET, ... for the common ones), in the order
 *     the usage line and the help show them; a const struct cmd_spec
 *     <name>_spec with the table, the operands ("IMAGE [PATH]", their
 *     least and most count), the help text (what it does, examples), the
 *     options struct's size and defaults, and a check for what the table
 *     cannot say (an operand's syntax); and int cmd_<name>(ctx), which
 *     finds its options in ctx->opts, IMAGE open in ctx->m and PATH in
 *     ctx->f, and closes neither.  The parser prints the usage line, the
 *     help (--help, -h) and every usage error.
 *  2. cmd_<name>() and <name>_spec in cmd.h; the row here (sorted), with
 *     CMD_NEEDS_IMAGE (operand 0 is IMAGE) or CMD_NEEDS_FILE (and operand
 *     1 is the one PATH); a command of several PATHs opens them itself
 *     (cmd_tool_open, open.c).
 *  3. Its synopsis and section in cmd/e2map.1 and its line in README.md
 *     (tests/test_cli_help.c holds both to `e2map help <name>`), a case in
 *     tests/test_cli_usage.c.
 * cmd_seek.c is the model: seek_options[], seek_spec, check_offset(),
 * cmd_seek().
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_help(struct cmd_ctx *ctx);

static const struct cmd_option help_options[] = { CMD_OPT_END };

static const struct cmd_spec help_spec = {
	.options = help_options,
	.operands = "[COMMAND]",
	.min_operands = 0,
	.max_operands = 1,
	.about =
"Without COMMAND, lists the commands; with one, shows its usage line, what\n"
"it does, examples and its options.  'e2map COMMAND --help' does the same.\n"
"\n"
"Examples:\n"
"  e2map help          the list of commands\n"
"  e2map help seek     how to use seek\n",
};

static const struct e2map_cmd commands[] = {	/* sorted by name */
	{ "blockmap", cmd_blockmap, "every range of blocks with its owner",
	  &blockmap_spec, CMD_NEEDS_IMAGE },
	{ "cat", cmd_cat, "print files' bytes as cat prints them on the mount",
	  &cat_spec, CMD_NEEDS_IMAGE },
	{ "check", cmd_check, "run every inode through the whole mapping walk",
	  &check_spec, CMD_NEEDS_IMAGE },
	/* diff opens its two images itself, each with its own offset. */
	{ "diff", cmd_diff, "what changed between two images of one "
	  "filesystem, by file and range", &diff_spec, 0 },
	{ "du", cmd_du, "disk usage as GNU du prints it on the mount",
	  &du_spec, CMD_NEEDS_IMAGE },
	{ "extract", cmd_extract, "copy files out of the image, holes kept "
	  "(as cp -a)", &extract_spec, CMD_NEEDS_IMAGE },
	{ "fiemap", cmd_fiemap,
	  "print the FIEMAP extent map as xfs_io -c fiemap", &fiemap_spec,
	  CMD_NEEDS_FILE },
	{ "filefrag", cmd_filefrag, "report extents as e2fsprogs filefrag",
	  &filefrag_spec, CMD_NEEDS_IMAGE },
	{ "help", run_help, "list the commands, or explain one",
	  &help_spec, 0 },
	{ "history", cmd_history, "earlier versions of an inode or a "
	  "directory from the journal", &history_spec, CMD_NEEDS_IMAGE },
	{ "mount", cmd_mount, "mount the image read-only through FUSE",
	  &mount_spec, CMD_NEEDS_IMAGE | CMD_LONG_LIVED },
	/* owner opens IMAGE itself: with --byte, a disk's bytes may lie in
	 * several of its filesystems. */
	{ "owner", cmd_owner, "who owns each block: metadata, an inode, free",
	  &owner_spec, 0 },
	{ "partitions", cmd_partitions,
	  "list a disk image's partitions (MBR, GPT; E01, VMDK...)",
	  &partitions_spec, 0 },
	{ "recover", cmd_recover, "write deleted files back from the "
	  "journal's old inodes", &recover_spec, CMD_NEEDS_IMAGE },
	{ "scan", cmd_scan, "one record per inode: stat, bytes, extents, "
	  "errors", &scan_spec, CMD_NEEDS_IMAGE },
	{ "seek", cmd_seek,
	  "locate the next data and/or hole as xfs_io -c seek", &seek_spec,
	  CMD_NEEDS_FILE },
	{ "tar", cmd_tar, "a pax archive of a tree, holes kept (tar --sparse)",
	  &tar_spec, CMD_NEEDS_IMAGE },
	{ "unallocated", cmd_unallocated, "free space and file slack, for "
	  "carvers", &unallocated_spec, CMD_NEEDS_IMAGE },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct e2map_cmd *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void print_overview(FILE *out)
{
	fprintf(out, "usage: e2map COMMAND [ARGS]\n"
		"       e2map --version\n"
		"       e2map help [COMMAND]\n\n"
		"Answers lseek(SEEK_DATA/SEEK_HOLE), FIEMAP and read(2) for a "
		"file in an\nunmounted ext2/3/4 image as the kernel would on a "
		"fresh read-only mount.\n\nCommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-11s %s\n", commands[i].name,
			commands[i].oneline);
	fprintf(out, "\nPATH is \"/dir/file\" (symlinks followed, as open(2) "
		"does, absolute ones\nfrom the image's root) or \"<INO>\".  "
		"See 'e2map help COMMAND' or e2map(1).\n");
}

/* `e2map help [COMMAND]`: the overview, or one command's help. */
static int run_help(struct cmd_ctx *ctx)
{
	const struct e2map_cmd *c;

	if (ctx->ops.n == 0) {
		print_overview(stdout);
		return 0;
	}
	c = find(ctx->ops.v[0]);
	if (!c)
		return cmd_usage_error("help", "unknown command '%s'",
				       cmd_esc(ctx->ops.v[0]));
	cmd_help(c);
	return 0;
}

/* Flush stdout and fail when any earlier write was lost. */
static int finish_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int err = errno ? errno : EIO;

		if (err != EPIPE)
			cmd_fail("write error on stdout", -err, NULL);
		return status ? status : CMD_EXIT_FAIL;
	}
	return status;
}

/* The options struct of C's spec, as it is before the parse. */
static int make_opts(const struct e2map_cmd *c, struct cmd_ctx *ctx)
{
	const struct cmd_spec *sp = c->spec;

	if (!sp->opts_size)
		return 0;
	if (!(ctx->opts = calloc(1, sp->opts_size)))
		return cmd_fail(c->name, -ENOMEM, NULL);
	if (sp->defaults)
		memcpy(ctx->opts, sp->defaults, sp->opts_size);
	return 0;
}

/* Usage errors first, then the opens: CMD_PARSED to run, else the status. */
static int set_up(const struct e2map_cmd *c, int argc, char **argv,
		  struct cmd_ctx *ctx)
{
	int status = make_opts(c, ctx);

	if (status)
		return status;
	status = cmd_parse(c, argc, argv, ctx->opts, &ctx->co, &ctx->ops);
	if (status == CMD_PARSED && c->spec->check)
		status = c->spec->check(ctx);
	if (status != CMD_PARSED)
		return status;
	if (c->flags & CMD_NEEDS_IMAGE) {
		ctx->image = ctx->ops.v[0];
		ctx->co.nomap = (c->flags & CMD_LONG_LIVED) != 0;
		if ((status = cmd_open_image(c->name, &ctx->co, ctx->image,
					     &ctx->m)))
			return status;
	}
	if ((c->flags & CMD_NEEDS_FILE) == CMD_NEEDS_FILE) {
		ctx->path = ctx->ops.v[1];
		if ((status = cmd_tool_open(c->name, &ctx->co, ctx->m,
					    ctx->image, ctx->path, &ctx->f)))
			return status;
	}
	return CMD_PARSED;
}

/* Row C on ARGV (ARGV[0] its name): set up, run, and close on every path. */
static int run(const struct e2map_cmd *c, int argc, char **argv)
{
	struct cmd_ctx ctx = { 0 };
	int status = set_up(c, argc, argv, &ctx);

	if (status == CMD_PARSED)
		status = c->fn(&ctx);
	e2map_file_close(ctx.f);
	e2map_close(ctx.m);
	if (ctx.opts && c->spec->free_opts)
		c->spec->free_opts(ctx.opts);
	free(ctx.opts);
	return status;
}

static int dispatch(int argc, char **argv)
{
	const struct e2map_cmd *c;

	if (argc < 2) {
		print_overview(stderr);
		return CMD_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("e2map %s\n", e2map_version(NULL, NULL, NULL));
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_overview(stdout);
		return 0;
	}
	c = find(argv[1]);
	if (!c) {
		cmd_errorf("unknown command '%s'", cmd_esc(argv[1]));
		print_overview(stderr);
		return CMD_EXIT_USAGE;
	}
	return run(c, argc - 1, argv + 1);
}

int cmd_main(int argc, char **argv)
{
	return finish_stdout(dispatch(argc, argv));
}

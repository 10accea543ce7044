/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map: the command table, dispatch, `e2map help`, `--version`, and the
 * check that everything written to stdout really got there (git's
 * run_builtin: a full disk or a closed pipe must not exit 0).
 *
 * Adding a command is a row below and a function:
 *  1. cmd/cmd_<name>.c: a struct of its options; a table of them, struct
 *     cmd_option rows (its own, then CMD_OPT_JSON, CMD_OPT_OFFSET, ... for
 *     the common ones), in the order the usage line and the help show
 *     them; a const struct cmd_spec <name>_spec with the table, the
 *     operands ("IMAGE [PATH]", their least and most count) and the help
 *     text (what it does, examples); and int cmd_<name>(argc, argv),
 *     which calls cmd_parse(argc, argv, &opts, &co, &operands) first and
 *     returns its status unless it is CMD_PARSED.  The parser prints the
 *     usage line, the help (--help, -h) and every usage error.
 *  2. cmd_<name>() and <name>_spec in cmd.h; the row here (sorted).
 *  3. Its synopsis and section in cmd/e2map.1 and its line in README.md
 *     (tests/test_cli_help.c holds both to `e2map help <name>`), a case in
 *     tests/test_cli_usage.c.
 * cmd_seek.c is the model: seek_options[], seek_spec, cmd_seek().
 */
#include "cmd.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static int run_help(int argc, char **argv);

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
	  &blockmap_spec },
	{ "cat", cmd_cat, "print files' bytes as cat prints them on the mount",
	  &cat_spec },
	{ "check", cmd_check, "run every inode through the whole mapping walk",
	  &check_spec },
	{ "du", cmd_du, "disk usage as GNU du prints it on the mount",
	  &du_spec },
	{ "extract", cmd_extract, "copy files out of the image, holes kept "
	  "(as cp -a)", &extract_spec },
	{ "fiemap", cmd_fiemap,
	  "print the FIEMAP extent map as xfs_io -c fiemap", &fiemap_spec },
	{ "filefrag", cmd_filefrag, "report extents as e2fsprogs filefrag",
	  &filefrag_spec },
	{ "help", run_help, "list the commands, or explain one",
	  &help_spec },
	{ "mount", cmd_mount, "mount the image read-only through FUSE",
	  &mount_spec },
	{ "owner", cmd_owner, "who owns each block: metadata, an inode, free",
	  &owner_spec },
	{ "partitions", cmd_partitions,
	  "list a disk image's partitions (MBR, GPT; E01, VMDK...)",
	  &partitions_spec },
	{ "scan", cmd_scan, "one record per inode: stat, bytes, extents, "
	  "errors", &scan_spec },
	{ "seek", cmd_seek,
	  "locate the next data and/or hole as xfs_io -c seek", &seek_spec },
	{ "tar", cmd_tar, "a pax archive of a tree, holes kept (tar --sparse)",
	  &tar_spec },
	{ "unallocated", cmd_unallocated, "free space and file slack, for "
	  "carvers", &unallocated_spec },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct e2map_cmd *cmd_find(const char *name)
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
static int run_help(int argc, char **argv)
{
	struct cmd_common co = { 0 };
	struct cmd_operands ops;
	const struct e2map_cmd *c;
	int status = cmd_parse(argc, argv, NULL, &co, &ops);

	if (status != CMD_PARSED)
		return status;
	if (ops.n == 0) {
		print_overview(stdout);
		return 0;
	}
	c = cmd_find(ops.v[0]);
	if (!c)
		return cmd_usage_error("help", "unknown command '%s'",
				       cmd_esc(ops.v[0]));
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

static int dispatch(int argc, char **argv)
{
	const struct e2map_cmd *c;

	if (argc < 2) {
		print_overview(stderr);
		return CMD_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("e2map %s\n", E2MAP_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_overview(stdout);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		cmd_errorf("unknown command '%s'", cmd_esc(argv[1]));
		print_overview(stderr);
		return CMD_EXIT_USAGE;
	}
	return c->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	return finish_stdout(dispatch(argc, argv));
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map: the command table, dispatch, `e2map help`, `--version`, and the
 * check that everything written to stdout really got there (git's
 * run_builtin: a full disk or a closed pipe must not exit 0).
 *
 * Adding a command: cmd/cmd_<name>.c with cmd_<name>() and <name>_help(),
 * their prototypes in cmd.h, a row below (sorted), a case in
 * tests/test_cli_usage.c, a section in cmd/e2map.1.
 */
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

static void help_help(void)
{
	printf("\n"
"Without COMMAND, lists the commands; with one, shows its usage line, what\n"
"it does, examples and its options.  'e2map COMMAND --help' does the same.\n"
"\n"
"Examples:\n"
"  e2map help          the list of commands\n"
"  e2map help seek     how to use seek\n");
}

static const struct e2map_cmd commands[] = {	/* sorted by name */
	{ "check", cmd_check, "[-q] [--json] [--offset BYTES] IMAGE",
	  "run every inode through the whole mapping walk", check_help },
	{ "du", cmd_du,
	  "[-a|-s] [-d N] [-h|-b] [--apparent-size|--written] [-q] "
	  "[--offset BYTES] IMAGE [PATH]",
	  "disk usage as GNU du prints it on the mount", du_help },
	{ "fiemap", cmd_fiemap,
	  "[-a] [-l] [-v] [-n COUNT] [--json] [--offset BYTES] "
	  "[--no-follow] IMAGE PATH [OFFSET [LENGTH]]",
	  "print the FIEMAP extent map as xfs_io -c fiemap", fiemap_help },
	{ "filefrag", cmd_filefrag,
	  "[-v] [-x] [-s] [-e] [-k] [-b SIZE] [--json] [--offset BYTES] "
	  "[--no-follow] IMAGE PATH...",
	  "report extents as e2fsprogs filefrag", filefrag_help },
	{ "help", NULL, "[COMMAND]", "list the commands, or explain one",
	  help_help },
	{ "seek", cmd_seek,
	  "-a|-d|-h [-r] [-s] [--json] [--offset BYTES] [--no-follow] "
	  "IMAGE PATH OFFSET",
	  "locate the next data and/or hole as xfs_io -c seek", seek_help },
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
		"Answers lseek(SEEK_DATA/SEEK_HOLE) and FIEMAP for a file in an "
		"unmounted\next2/3/4 image as the kernel would on a fresh "
		"read-only mount.\n\nCommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i].name,
			commands[i].oneline);
	fprintf(out, "\nPATH is \"/dir/file\" (symlinks followed, as open(2) "
		"does, absolute ones\nfrom the image's root) or \"<INO>\".  "
		"See 'e2map help COMMAND' or e2map(1).\n");
}

/* `e2map help [COMMAND]`: the overview, or one command's usage and help. */
static int run_help(int argc, char **argv)
{
	const struct e2map_cmd *c;

	if (argc < 2) {
		print_overview(stdout);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (!c || !c->help)
		return cmd_usage_error("help", "unknown command '%s'",
				       cmd_esc(argv[1]));
	printf("usage: e2map %s %s\n", c->name, c->args);
	c->help();
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
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return run_help(1, argv);
	c = cmd_find(argv[1]);
	if (!c) {
		cmd_errorf("unknown command '%s'", cmd_esc(argv[1]));
		print_overview(stderr);
		return CMD_EXIT_USAGE;
	}
	if (!c->fn)
		return run_help(argc - 1, argv + 1);
	return c->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	/* Each command says what was wrong in its own one line. */
	opterr = 0;
	return finish_stdout(dispatch(argc, argv));
}

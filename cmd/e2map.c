/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main() alone, so that the test runner can link every other object of
 * the CLI and run a command in a forked child, without the exec and the
 * dynamic loading that cost a sanitized binary 0.1 s a run
 * (tests/cli_run.c; tests/golden.c alone replays 17,900 recorded lines).
 */
#include "cmd.h"

int main(int argc, char **argv)
{
	return cmd_main(argc, argv);
}

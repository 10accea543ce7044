/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running the e2map binary from a test: argv in, exit status, stdout and
 * stderr out (whole, any size), with testdata images decompressed once.
 */
#ifndef E2MAP_TESTS_CLI_RUN_H
#define E2MAP_TESTS_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

struct cli_out {
	int status;		/* exit status, or -1 when killed */
	char *out, *err;	/* NUL-terminated, malloc'd */
	size_t out_len, err_len;
};

/*
 * Run $E2MAP with ARGS (NULL-terminated, without argv[0]); 0, or -1 when
 * E2MAP is not set or the run failed.  The first of every 16 runs of a
 * test execs the binary; the others run the CLI linked into the test
 * program (cmd_main) in a forked child: the same code without the exec,
 * the dynamic loader and, sanitized, their 0.1 s start-up a run.
 */
int cli_run(const char *const *args, struct cli_out *r);
void cli_out_free(struct cli_out *r);

/*
 * Whether run N (from 0) execs $E2MAP: the first of every EVERY, or every
 * run when E2MAP_EXEC=1 (a $E2MAP built from another tree).
 */
bool cli_exec_due(unsigned n, unsigned every);

/*
 * In a forked child: stdin from /dev/null, stdout to OUT, stderr to ERR,
 * then ARGV: exec'd when EXEC, else the linked CLI, as main() runs it.
 */
_Noreturn void cli_child(char *const argv[], int out, int err, bool exec);

/*
 * Run $E2MAP as ARGV (with argv[0]) with stderr on a pseudo-terminal and
 * stdout on a pipe: what it drew on the terminal, malloc'd and
 * NUL-terminated, its length in *LEN, the exit status in *STATUS.  NULL
 * with errno set when no pty can be opened (a chroot without /dev/pts):
 * the caller skips.
 */
char *cli_run_pty(const char *const *argv, size_t *len, int *status);

#ifdef cr_skip_test
#include <errno.h>
#include <string.h>
/* cli_run_pty in a Criterion test: skipped without a pty, exit 0 asserted. */
static inline char *cli_run_pty_or_skip(const char *const *argv, size_t *len)
{
	int status;
	char *s = cli_run_pty(argv, len, &status);

	if (!s)
		cr_skip_test("no pty (%s): the progress line needs a terminal",
			     strerror(errno));
	cr_assert_eq(status, 0, "exit %d: %s", status, s);
	return s;
}
#endif

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running the e2map binary from a test: argv in, exit status, stdout and
 * stderr out (whole, any size), with testdata images decompressed once.
 */
#ifndef E2MAP_TESTS_CLI_RUN_H
#define E2MAP_TESTS_CLI_RUN_H

#include <stddef.h>

struct cli_out {
	int status;		/* exit status, or -1 when killed */
	char *out, *err;	/* NUL-terminated, malloc'd */
	size_t out_len, err_len;
};

/*
 * Run $E2MAP with ARGS (NULL-terminated, without argv[0]); 0, or -1 when
 * E2MAP is not set or the run failed.
 */
int cli_run(const char *const *args, struct cli_out *r);
void cli_out_free(struct cli_out *r);

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

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

#endif

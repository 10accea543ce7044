/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running the e2map binary from a test: see cli_run.h. */
#include "cli_run.h"
#include "../cmd/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* stdout and stderr go to temporary files: no pipe can fill up. */
static FILE *scratch(void)
{
	return tmpfile();
}

bool cli_exec_due(unsigned n, unsigned every)
{
	const char *all = getenv("E2MAP_EXEC");

	return (all && *all == '1') || n % every == 0;
}

void cli_child(char *const argv[], int out, int err, bool exec)
{
	int nul = open("/dev/null", O_RDONLY), argc = 0, st;

	if (nul >= 0)
		dup2(nul, 0);
	dup2(out, 1);
	dup2(err, 2);
	if (exec) {
		execv(argv[0], argv);
		_exit(127);
	}
	while (argv[argc])
		argc++;
	st = cmd_main(argc, (char **)argv);
	fflush(NULL);
	_exit(st);
}

/* Of one test's runs, the first of every so many execs the binary. */
#define CLI_EXEC_EVERY 16

/* ARGV with stdout on OUT, stderr on ERR, stdin empty; exit status. */
static int spawn(char **argv, int out, int err)
{
	static unsigned runs;
	bool exec = cli_exec_due(runs++, CLI_EXEC_EVERY);
	pid_t pid;
	int st;

	fflush(NULL);	/* else the child writes our buffered output again */
	if ((pid = fork()) < 0)
		return -2;
	if (pid == 0)
		cli_child(argv, out, err, exec);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(FILE *f, size_t *len)
{
	long n;
	char *s;

	if (fseek(f, 0, SEEK_END) < 0)
		return NULL;
	n = ftell(f);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		return NULL;
	rewind(f);
	*len = fread(s, 1, (size_t)n, f);
	s[*len] = '\0';
	return s;
}

int cli_run(const char *const *args, struct cli_out *r)
{
	const char *bin = getenv("E2MAP");
	FILE *out = scratch(), *err = scratch();
	size_t n = 0;
	char **argv;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	while (args[n])
		n++;
	argv = calloc(n + 2, sizeof(*argv));
	if (bin && out && err && argv) {
		argv[0] = (char *)bin;
		memcpy(argv + 1, args, n * sizeof(*argv));
		r->status = spawn(argv, fileno(out), fileno(err));
		r->out = slurp(out, &r->out_len);
		r->err = slurp(err, &r->err_len);
		rc = r->out && r->err && r->status != -2 ? 0 : -1;
	}
	free(argv);
	if (out)
		fclose(out);
	if (err)
		fclose(err);
	return rc;
}

void cli_out_free(struct cli_out *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

char *cli_run_pty(const char *const *argv, size_t *len, int *status)
{
	int master, out[2], st;
	char *buf = malloc(65536);
	ssize_t n;
	pid_t pid;

	if (!buf || pipe(out) != 0) {
		free(buf);
		return NULL;
	}
	pid = forkpty(&master, NULL, NULL, NULL);
	if (pid < 0) {
		int e = errno;

		close(out[0]);
		close(out[1]);
		free(buf);
		errno = e;
		return NULL;
	}
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		execv(getenv("E2MAP"), (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	*len = 0;
	/* EIO from the master once the child has gone: the end. */
	while ((n = read(master, buf + *len, 65535 - *len)) > 0)
		*len += (size_t)n;
	buf[*len] = '\0';
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	close(master);
	close(out[0]);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

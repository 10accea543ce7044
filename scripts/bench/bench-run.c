/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-run ERRFILE PROG [ARG...]: run PROG once, stdin and stdout on
 * /dev/null, stderr into ERRFILE; print "NANOSECONDS MAXRSS_KIB STATUS".
 *
 * scripts/bench/bench-time.py runs every timed command through this: its wall
 * time is taken here, around fork + exec + wait4, so the driver's own
 * start-up is outside it; and the peak RSS is wait4's ru_maxrss, which on
 * Linux is never below the RSS of the process that forked the command (the
 * exec'ing process's old memory counts): a small parent keeps that floor
 * at a megabyte or two, as /usr/bin/time's, where a Python parent would put
 * it at its own 10+ MiB.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* In the child: the standard streams, then PROG. */
static void child(const char *err, char **argv)
{
	int in = open("/dev/null", O_RDONLY);
	int out = open("/dev/null", O_WRONLY);
	int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (in < 0 || out < 0 || fd < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(fd, 2) < 0)
		_exit(126);
	execvp(argv[0], argv);
	dprintf(2, "bench-run: cannot run %s\n", argv[0]);
	_exit(127);
}

int main(int argc, char **argv)
{
	struct rusage ru;
	long long t0, t1;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bench-run ERRFILE PROG [ARG...]\n");
		return 2;
	}
	fflush(stdout);
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("bench-run: fork");
		return 1;
	}
	if (pid == 0)
		child(argv[1], argv + 2);
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("bench-run: wait4");
		return 1;
	}
	t1 = now_ns();
	printf("%lld %ld %d\n", t1 - t0, ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

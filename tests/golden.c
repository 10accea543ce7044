/*
 * .golden replay: run the e2map CLI with each recorded argument line and
 * compare its stdout (and, in e2map's terms, its exit status) with what
 * xfs_io or filefrag printed on the mount.
 */
#include "calls.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/mount.h>
#include <linux/fs.h>
#include <linux/fiemap.h>
#include <linux/loop.h>

#include "e2map.h"

/* ---- golden replay ---- */

/* Run ARGV, stdout into OUT, stderr into ERRB; returns the exit status. */
static int run_capture(char *const argv[], struct calls_buf *out,
		       struct calls_buf *errb)
{
	int po[2], pe[2], st;
	pid_t pid;

	if (pipe(po) < 0 || pipe(pe) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* Drain both pipes together, so that neither can fill up. */
	int fds[2] = { po[0], pe[0] };
	struct calls_buf *dst[2] = { out, errb };

	while (fds[0] >= 0 || fds[1] >= 0) {
		struct pollfd pfd[2] = { { fds[0], POLLIN, 0 },
					 { fds[1], POLLIN, 0 } };

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < 2; k++) {
			char tmp[8192];
			ssize_t n;

			if (fds[k] < 0 || !pfd[k].revents)
				continue;
			n = read(fds[k], tmp, sizeof(tmp));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				fds[k] = -1;	/* poll ignores it from now on */
			else if (k == 0 || errb->len < 4096)
				calls_buf_addn(dst[k], tmp, (size_t)n);
		}
	}
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Length of the line at P, at most N bytes. */
static int line_len(const char *p, size_t n)
{
	const char *nl = memchr(p, '\n', n);

	return (int)(nl ? (size_t)(nl - p) : n);
}

/* Where two byte strings first differ, as a line number and both lines. */
static void report_bytes(struct calls_buf *r, const char *exp, size_t le,
			 const char *got, size_t lg)
{
	size_t i = 0, ls = 0;
	int line = 1;

	while (i < le && i < lg && exp[i] == got[i]) {
		if (exp[i] == '\n') {
			line++;
			ls = i + 1;
		}
		i++;
	}
	calls_buf_add(r, "    output line %d: expected: %.*s\n", line,
		      line_len(exp + ls, le - ls), exp + ls);
	calls_buf_add(r, "    output line %d:      got: %.*s\n", line,
		      line_len(got + ls, lg - ls), got + ls);
}

#define GOLDEN_MAXARGS 32

/*
 * e2map's exit status is its own: 1 with one "e2map: " line on stderr for
 * any error, where xfs_io exits 0 after printing ERR and filefrag exits
 * with the errno.  So a tool's failure must be e2map's 1, and a tool's 0
 * is e2map's 0 or, when e2map reported the error it printed, 1.
 */
static bool exit_matches(int tool, int ours, const struct calls_buf *err)
{
	const char *nl = err->s ? strchr(err->s, '\n') : NULL;
	bool one_error = err->len && !strncmp(err->s, "e2map: ", 7) &&
			 nl && nl[1] == '\0';

	if (tool != 0)
		return ours == 1 && one_error;
	return ours == 0 || (ours == 1 && one_error);
}

static int golden_entry(const char *e2map, const char *image, const char *name,
			int lineno, char *argline, const char *exp, size_t nexp,
			int exit_exp, struct calls_buf *report, bool describe)
{
	char *argv[GOLDEN_MAXARGS + 2], *tok;
	struct calls_buf out = { 0 }, errb = { 0 };
	int argc = 0, st, bad = 0;
	char *save = NULL;

	argv[argc++] = (char *)e2map;
	for (tok = strtok_r(argline, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (argc > GOLDEN_MAXARGS)
			return -1;
		argv[argc++] = strcmp(tok, "IMAGE") == 0 ? (char *)image : tok;
	}
	argv[argc] = NULL;
	calls_buf_add(&out, "%s", "");
	calls_buf_add(&errb, "%s", "");
	st = run_capture(argv, &out, &errb);
	if (!exit_matches(exit_exp, st, &errb) || out.len != nexp ||
	    memcmp(out.s, exp, nexp)) {
		bad = 1;
		if (describe) {
			calls_buf_add(report, "%s:%d: $ e2map", name, lineno);
			for (int i = 1; i < argc; i++)
				calls_buf_add(report, " %s",
					      argv[i] == image ? "IMAGE"
							       : argv[i]);
			calls_buf_add(report, "\n    exit: expected %d, got %d"
				      "; %zu bytes expected, %zu got\n",
				      exit_exp, st, nexp, out.len);
			if (out.len != nexp || memcmp(out.s, exp, nexp))
				report_bytes(report, exp, nexp, out.s, out.len);
			if (errb.len)
				calls_buf_add(report, "    stderr: %.*s\n",
					      (int)strcspn(errb.s, "\n"),
					      errb.s);
		}
	}
	calls_buf_free(&out);
	calls_buf_free(&errb);
	return bad;
}

int calls_golden_replay(const char *e2map, const char *image, const char *name,
			const char *text, size_t len, struct calls_buf *report,
			int max_report)
{
	size_t pos = 0;
	int lineno = 1, diffs = 0, entries = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		char hdr[CALLS_PATH_MAX + 256], *t1, *t2, *end;
		unsigned long long nbytes;
		long exit_exp;
		size_t hl;
		int r;

		if (!nl || text[pos] != '$' || text[pos + 1] != ' ')
			goto bad;
		hl = (size_t)(nl - text - pos);
		if (hl >= sizeof(hdr))
			goto bad;
		memcpy(hdr, text + pos + 2, hl - 2);
		hdr[hl - 2] = '\0';
		t1 = strchr(hdr, '\t');
		if (!t1)
			goto bad;
		*t1++ = '\0';
		t2 = strchr(t1, '\t');
		if (!t2)
			goto bad;
		*t2++ = '\0';
		nbytes = strtoull(t1, &end, 10);
		if (*end || !*t1)
			goto bad;
		exit_exp = strtol(t2, &end, 10);
		if (*end || !*t2)
			goto bad;
		pos += hl + 1;
		if (nbytes > len - pos)
			goto bad;
		r = golden_entry(e2map, image, name, lineno, hdr, text + pos,
				 (size_t)nbytes, (int)exit_exp, report,
				 diffs < max_report);
		if (r < 0)
			goto bad;
		diffs += r;
		entries++;
		for (size_t i = 0; i < nbytes; i++)
			if (text[pos + i] == '\n')
				lineno++;
		lineno++;
		pos += (size_t)nbytes;
	}
	if (diffs)
		calls_buf_add(report, "%s: %d of %d entries differ\n", name,
			      diffs, entries);
	return diffs;
bad:
	calls_buf_add(report, "%s:%d: malformed golden entry header\n", name,
		      lineno);
	return -1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * .golden replay: run the e2map CLI with each recorded argument line and
 * compare its stdout, exit status and (where recorded) stderr with what
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
#include "cli_run.h"

/* ---- golden replay ---- */

/*
 * Run ARGV, stdout into OUT, stderr into ERRB; returns the exit status.
 * EXEC: the binary itself, else the linked CLI in a forked child.
 */
static int run_capture(char *const argv[], struct calls_buf *out,
		       struct calls_buf *errb, bool exec)
{
	int po[2], pe[2], st;
	pid_t pid;

	if (pipe(po) < 0 || pipe(pe) < 0)
		return -1;
	fflush(NULL);	/* else the child writes our buffered output again */
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(po[0]);
		close(pe[0]);
		cli_child(argv, po[1], pe[1], exec);
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
			else if (k == 0 || errb->len < 65536)
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
 * The first of every so many entries execs $E2MAP itself, so that the
 * binary is held to the recordings too (and, sanitized, LeakSanitizer
 * checks it at exit); the others run the linked CLI (cli_child).
 */
#define GOLDEN_EXEC_EVERY 64

/* What a golden entry expects: the tool's stdout, status and stderr. */
struct golden_expect {
	const char *out;
	size_t nout;
	int status;
	const char *err;	/* NULL: not recorded (old 3-field header) */
	size_t nerr;
};

static bool bytes_differ(const char *exp, size_t le, const struct calls_buf *b)
{
	return b->len != le || memcmp(b->s, exp, le);
}

static void describe_entry(struct calls_buf *report, const char *name,
			   int lineno, char **argv, int argc,
			   const char *image, const struct golden_expect *e,
			   int st, const struct calls_buf *out,
			   const struct calls_buf *errb)
{
	calls_buf_add(report, "%s:%d: $ e2map", name, lineno);
	for (int i = 1; i < argc; i++)
		calls_buf_add(report, " %s", argv[i] == image ? "IMAGE" : argv[i]);
	calls_buf_add(report, "\n    exit: expected %d, got %d; %zu bytes "
		      "expected, %zu got\n", e->status, st, e->nout, out->len);
	if (bytes_differ(e->out, e->nout, out))
		report_bytes(report, e->out, e->nout, out->s, out->len);
	if (e->err && bytes_differ(e->err, e->nerr, errb)) {
		calls_buf_add(report, "    stderr differs:\n");
		report_bytes(report, e->err, e->nerr, errb->s, errb->len);
	} else if (!e->err && errb->len) {
		calls_buf_add(report, "    stderr: %.*s\n",
			      (int)strcspn(errb->s, "\n"), errb->s);
	}
}

/*
 * An old recording (no stderr) only says the tool failed: e2map then had
 * to fail with one "e2map: " line on stderr, or print what the tool
 * printed and exit 0.  With stderr recorded, the status must be the tool's.
 */
static bool exit_matches(const struct golden_expect *e, int ours,
			 const struct calls_buf *err)
{
	const char *nl = err->s ? strchr(err->s, '\n') : NULL;
	bool one_error = err->len && !strncmp(err->s, "e2map: ", 7) &&
			 nl && nl[1] == '\0';

	if (e->err)
		return ours == e->status;
	if (e->status != 0)
		return ours == 1 && one_error;
	return ours == 0 || (ours == 1 && one_error);
}

/*
 * Run one entry: stdout and the exit status must be the tool's, and
 * stderr too when the recording has it (4-field headers).
 */
static int golden_entry(const char *e2map, const char *image, const char *name,
			int lineno, char *argline, const struct golden_expect *e,
			struct calls_buf *report, bool describe, bool exec)
{
	char *argv[GOLDEN_MAXARGS + 2], *tok;
	struct calls_buf out = { 0 }, errb = { 0 };
	int argc = 0, st, bad;
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
	st = run_capture(argv, &out, &errb, exec);
	bad = !exit_matches(e, st, &errb) ||
	      bytes_differ(e->out, e->nout, &out) ||
	      (e->err && bytes_differ(e->err, e->nerr, &errb));
	if (bad && describe)
		describe_entry(report, name, lineno, argv, argc, image, e, st,
			       &out, &errb);
	calls_buf_free(&out);
	calls_buf_free(&errb);
	return bad;
}

/* A number field of a header; -1 when it is not one. */
static long long header_num(const char *s)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	v = strtoll(s, &end, 10);
	return *end || v < 0 ? -1 : v;
}

/*
 * "$ ARGV\tNBYTES\tSTATUS[\tERRBYTES]": fills ARGV (in HDR) and E's
 * sizes and status; 0, or -1 when malformed.
 */
static int parse_header(char *hdr, struct golden_expect *e, long long *nerr)
{
	char *f[4] = { hdr, NULL, NULL, NULL };
	long long nout;

	for (int i = 1; i < 4; i++) {
		if (!(f[i] = strchr(f[i - 1], '\t')))
			break;
		*f[i]++ = '\0';
	}
	if (!f[2] || (nout = header_num(f[1])) < 0 ||
	    (e->status = (int)header_num(f[2])) < 0)
		return -1;
	e->nout = (size_t)nout;
	*nerr = f[3] ? header_num(f[3]) : -2;	/* -2: none recorded */
	return *nerr == -1 ? -1 : 0;
}

int calls_golden_replay(const char *e2map, const char *image, const char *name,
			const char *text, size_t len, struct calls_buf *report,
			int max_report)
{
	size_t pos = 0;
	int lineno = 1, diffs = 0, entries = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		char hdr[CALLS_PATH_MAX + 256];
		struct golden_expect e = { 0 };
		long long nerr;
		size_t hl;
		int r;

		if (!nl || text[pos] != '$' || text[pos + 1] != ' ')
			goto bad;
		hl = (size_t)(nl - text - pos);
		if (hl >= sizeof(hdr))
			goto bad;
		memcpy(hdr, text + pos + 2, hl - 2);
		hdr[hl - 2] = '\0';
		if (parse_header(hdr, &e, &nerr) < 0)
			goto bad;
		pos += hl + 1;
		if (e.nout > len - pos ||
		    (nerr >= 0 && (size_t)nerr > len - pos - e.nout))
			goto bad;
		e.out = text + pos;
		if (nerr >= 0) {
			e.err = text + pos + e.nout;
			e.nerr = (size_t)nerr;
		}
		r = golden_entry(e2map, image, name, lineno, hdr, &e, report,
				 diffs < max_report,
				 cli_exec_due((unsigned)entries, GOLDEN_EXEC_EVERY));
		if (r < 0)
			goto bad;
		diffs += r;
		entries++;
		for (size_t i = 0; i < e.nout + e.nerr; i++)
			if (text[pos + i] == '\n')
				lineno++;
		lineno++;
		pos += e.nout + e.nerr;
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

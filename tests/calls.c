/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The .calls text: a growable buffer, errno names, parsing and formatting
 * of calls and results, and the line-by-line replay of a recording.  The
 * format is described in calls.h; both backends print through the same
 * formatting, so a difference in output is a difference in answers.
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

/* ---- text buffer ---- */

static void buf_reserve(struct calls_buf *b, size_t more)
{
	size_t need = b->len + more + 1;
	char *s;

	if (need <= b->cap)
		return;
	if (need < 2 * b->cap)
		need = 2 * b->cap;
	if (need < 256)
		need = 256;
	s = realloc(b->s, need);
	if (!s)
		abort();
	b->s = s;
	b->cap = need;
}

void calls_buf_addn(struct calls_buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void calls_buf_add(struct calls_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void calls_buf_free(struct calls_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* PATH itself, or PATH.gz through gzip: recordings are kept compressed. */
static FILE *open_text(const char *path, bool *piped)
{
	char gz[4096], cmd[8300];
	FILE *fp = fopen(path, "rb");

	*piped = false;
	if (fp || snprintf(gz, sizeof(gz), "%s.gz", path) >= (int)sizeof(gz) ||
	    access(gz, R_OK) != 0)
		return fp;
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", gz);
	*piped = true;
	return popen(cmd, "r");
}

char *calls_read_file(const char *path, size_t *len)
{
	struct calls_buf b = { 0 };
	char tmp[65536];
	bool piped, bad;
	FILE *fp = open_text(path, &piped);
	size_t n;

	if (!fp)
		return NULL;
	buf_reserve(&b, 0);
	b.s[0] = '\0';		/* an empty file is "" too */
	while ((n = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		calls_buf_addn(&b, tmp, n);
	bad = ferror(fp);
	bad |= piped ? pclose(fp) != 0 : fclose(fp) != 0;
	if (bad) {
		calls_buf_free(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.s;
}

/* ---- errno names ---- */

#define E(x) { x, #x }
static const struct {
	int num;
	const char *name;
} errnames[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
	E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK),
	E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ENODATA),
	E(ETIME), E(ENOLINK), E(EPROTO), E(EBADMSG), E(EOVERFLOW), E(EILSEQ),
	E(EBADR), E(EBADE), E(EBADRQC), E(EBADSLT), E(EUCLEAN), E(EOPNOTSUPP),
	E(ENOTSUP), E(ENOKEY), E(EKEYREJECTED), E(ESTALE), E(EREMOTEIO),
	E(ECANCELED), E(ENOMEDIUM), E(EMEDIUMTYPE), E(EDQUOT),
};
#undef E

const char *calls_errname(int err)
{
	static __thread char other[24];
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].num == err)
			return errnames[i].name;
	snprintf(other, sizeof(other), "E%d", err);
	return other;
}

/* ---- parsing ---- */

static const char *const whence_names[] = { "SET", "CUR", "END", "DATA",
					    "HOLE" };

static void path_encode(struct calls_buf *b, const char *p)
{
	for (; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch < 0x20 || ch == 0x7f || ch == '\\' || ch == '#' ||
		    ch == '=')
			calls_buf_add(b, "\\x%02x", ch);
		else
			calls_buf_addn(b, p, 1);
	}
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = tolower(ch);
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static int path_decode(const char *s, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int ch = (unsigned char)s[i];

		if (ch == '\\') {
			int hi, lo;

			if (i + 3 >= n)
				return -1;
			if (s[i + 1] != 'x' || (hi = hexval(s[i + 2])) < 0 ||
			    (lo = hexval(s[i + 3])) < 0)
				return -1;
			ch = hi * 16 + lo;
			i += 3;
		}
		if (o + 1 >= outlen)
			return -1;
		out[o++] = (char)ch;
	}
	out[o] = '\0';
	return 0;
}

static int parse_u64(const char *tok, uint64_t *v, bool allow_max)
{
	char *end;

	if (allow_max && strcmp(tok, "max") == 0) {
		*v = ~0ULL;
		return 0;
	}
	if (!*tok || *tok == '-')
		return -1;
	errno = 0;
	*v = strtoull(tok, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static int parse_i64(const char *tok, int64_t *v)
{
	char *end;

	if (!*tok)
		return -1;
	errno = 0;
	*v = strtoll(tok, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static int parse_whence(const char *tok, int *w)
{
	int64_t v;
	size_t i;

	for (i = 0; i < 5; i++)
		if (strcmp(tok, whence_names[i]) == 0) {
			*w = (int)i;
			return 0;
		}
	if (parse_i64(tok, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*w = (int)v;
	return 0;
}

/* Split S (modified in place) on blanks into at most MAX tokens. */
static int split(char *s, char **tok, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* The path after "open" or "open-nofollow" (S: from the blank on). */
static int parse_open(char *s, struct calls_call *c, char *err, size_t errlen)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s || path_decode(s, (size_t)(e - s), c->path,
				  sizeof(c->path)) < 0) {
		snprintf(err, errlen, "bad open path");
		return -1;
	}
	c->op = CALLS_OPEN;
	return 1;
}

int calls_parse(const char *line, struct calls_call *c, char *err,
		size_t errlen)
{
	char work[CALLS_PATH_MAX + 256], *eq, *hash, *tok[8], *p;
	size_t n = strcspn(line, "\r\n");
	int nt;

	memset(c, 0, sizeof(*c));
	if (n >= sizeof(work)) {
		snprintf(err, errlen, "line too long");
		return -1;
	}
	memcpy(work, line, n);
	work[n] = '\0';
	p = work;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	if ((hash = strstr(p, " #")) != NULL)
		*hash = '\0';
	if ((eq = strchr(p, '=')) != NULL)
		*eq = '\0';
	if (strncmp(p, "open-nofollow", 13) == 0 &&
	    (p[13] == ' ' || p[13] == '\t')) {
		c->nofollow = 1;
		return parse_open(p + 13, c, err, errlen);
	}
	if (strncmp(p, "open", 4) == 0 && (p[4] == ' ' || p[4] == '\t'))
		return parse_open(p + 4, c, err, errlen);
	nt = split(p, tok, 8);
	if (nt >= 1 && strcmp(tok[0], "ext") == 0)
		return 0;
	if (nt == 3 && strcmp(tok[0], "lseek") == 0) {
		if (parse_i64(tok[1], &c->offset) < 0 ||
		    parse_whence(tok[2], &c->whence) < 0) {
			snprintf(err, errlen, "bad lseek arguments");
			return -1;
		}
		c->op = CALLS_LSEEK;
		return 1;
	}
	if (nt == 5 && strcmp(tok[0], "fiemap") == 0) {
		uint64_t fl, cnt;

		if (parse_u64(tok[1], &c->start, false) < 0 ||
		    parse_u64(tok[2], &c->length, true) < 0 ||
		    parse_u64(tok[3], &fl, false) < 0 || fl > UINT32_MAX ||
		    parse_u64(tok[4], &cnt, false) < 0 || cnt > UINT32_MAX) {
			snprintf(err, errlen, "bad fiemap arguments");
			return -1;
		}
		c->flags = (uint32_t)fl;
		c->count = (uint32_t)cnt;
		c->op = CALLS_FIEMAP;
		return 1;
	}
	snprintf(err, errlen, "unknown call");
	return -1;
}

/* The call part of a line, canonical: "lseek 0 DATA". */
void calls_format_call(struct calls_buf *b, const struct calls_call *c)
{
	switch (c->op) {
	case CALLS_OPEN:
		calls_buf_add(b, c->nofollow ? "open-nofollow " : "open ");
		path_encode(b, c->path);
		break;
	case CALLS_LSEEK:
		calls_buf_add(b, "lseek %" PRId64 " ", c->offset);
		if (c->whence >= 0 && c->whence < 5)
			calls_buf_add(b, "%s", whence_names[c->whence]);
		else
			calls_buf_add(b, "%d", c->whence);
		break;
	case CALLS_FIEMAP:
		calls_buf_add(b, "fiemap %" PRIu64 " ", c->start);
		if (c->length == ~0ULL)
			calls_buf_add(b, "max");
		else
			calls_buf_add(b, "%" PRIu64, c->length);
		calls_buf_add(b, " 0x%x %u", c->flags, c->count);
		break;
	}
}

void calls_format_ret(struct calls_buf *b, int64_t ret)
{
	if (ret < 0)
		calls_buf_add(b, "-%s", calls_errname((int)-ret));
	else
		calls_buf_add(b, "%" PRId64, ret);
}

/* ---- replay ---- */

/* Next line of TEXT from *POS: start and length without the newline. */
static bool next_line(const char *text, size_t *pos, const char **line,
		      size_t *len)
{
	const char *s = text + *pos, *nl;

	if (!*s)
		return false;
	nl = strchr(s, '\n');
	*line = s;
	*len = nl ? (size_t)(nl - s) : strlen(s);
	*pos += *len + (nl ? 1 : 0);
	return true;
}

/* Append LINE trimmed of blanks at both ends (and a " #" comment). */
static void add_trimmed(struct calls_buf *b, const char *line, size_t len)
{
	const char *e;
	size_t i;

	for (i = 0; i + 1 < len; i++)
		if (line[i] == ' ' && line[i + 1] == '#') {
			len = i;
			break;
		}
	while (len && isspace((unsigned char)*line)) {
		line++;
		len--;
	}
	e = line + len;
	while (e > line && isspace((unsigned char)e[-1]))
		e--;
	calls_buf_addn(b, line, (size_t)(e - line));
}

static bool is_ext_line(const char *line, size_t len)
{
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	return len >= 4 && strncmp(line, "ext ", 4) == 0;
}

/* Expected text of one call: canonical call, recorded result, ext lines. */
static void expected_text(const struct calls_call *c, const char *line,
			  size_t len, struct calls_buf *exp)
{
	const char *eq = memchr(line, '=', len);

	calls_format_call(exp, c);
	calls_buf_add(exp, " = ");
	if (eq)
		add_trimmed(exp, eq + 1, len - (size_t)(eq + 1 - line));
	else
		calls_buf_add(exp, "(no recorded result)");
	calls_buf_add(exp, "\n");
}

/* First differing line of two texts, for the report. */
static void report_diff(struct calls_buf *r, const char *name, int lineno,
			const char *exp, const char *got)
{
	int k = 0;

	while (*exp || *got) {
		size_t le = strcspn(exp, "\n"), lg = strcspn(got, "\n");

		if (le != lg || memcmp(exp, got, le) != 0) {
			calls_buf_add(r, "%s:%d: expected: %.*s\n"
				      "%s:%d:      got: %.*s\n",
				      name, lineno + k, (int)le, exp, name,
				      lineno + k, (int)lg, got);
			return;
		}
		exp += le + (exp[le] ? 1 : 0);
		got += lg + (got[lg] ? 1 : 0);
		k++;
	}
}

/* Does TEXT carry CALLS_FORMAT_LINE as a line of its own? */
static bool has_format_line(const char *text)
{
	size_t n = strlen(CALLS_FORMAT_LINE);
	const char *p;

	for (p = text; (p = strstr(p, CALLS_FORMAT_LINE)) != NULL; p += n)
		if ((p == text || p[-1] == '\n') &&
		    (p[n] == '\n' || p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

int calls_replay(struct calls_backend *b, const char *name, const char *text,
		 struct calls_buf *report, int max_report)
{
	struct calls_buf exp = { 0 }, got = { 0 };
	struct calls_call c;
	size_t pos = 0, len;
	const char *line;
	int lineno = 0, diffs = 0, calls = 0, call_line = 0, r;
	bool pending = false, legacy = !has_format_line(text);
	char err[128];

	for (;;) {
		bool more = next_line(text, &pos, &line, &len);

		if (more)
			lineno++;
		if (more && pending && is_ext_line(line, len)) {
			add_trimmed(&exp, line, len);
			calls_buf_add(&exp, "\n");
			continue;
		}
		if (pending) {
			pending = false;
			if (strcmp(exp.s, got.s) != 0) {
				if (++diffs <= max_report)
					report_diff(report, name, call_line,
						    exp.s, got.s);
			}
		}
		if (!more)
			break;
		r = calls_parse(line, &c, err, sizeof(err));
		if (r < 0) {
			calls_buf_add(report, "%s:%d: %s: %.*s\n", name,
				      lineno, err, (int)len, line);
			diffs = -1;
			break;
		}
		if (r == 0)
			continue;
		if (legacy && c.op == CALLS_OPEN)
			c.nofollow = 1;	/* recorded with O_NOFOLLOW */
		exp.len = got.len = 0;
		calls_buf_add(&exp, "%s", "");
		calls_buf_add(&got, "%s", "");
		expected_text(&c, line, len, &exp);
		calls_exec(b, &c, &got);
		pending = true;
		call_line = lineno;
		calls++;
	}
	if (diffs > 0)
		calls_buf_add(report, "%s: %d of %d calls differ\n", name, diffs,
			      calls);
	if (diffs == 0 && calls == 0) {
		calls_buf_add(report, "%s: no calls\n", name);
		diffs = -1;
	}
	calls_buf_free(&exp);
	calls_buf_free(&got);
	return diffs;
}

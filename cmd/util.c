/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers every command shares, and the parser: the one-line error
 * printer for e2map's own errors ("e2map: WHAT: REASON (detail)", style
 * guide §4, control bytes escaped), the tools' quoting and words for an
 * errno, a growing array.  They call nothing of the CLI's: the parser's
 * test links this file and parse.c alone.  Options are parse.c's; the
 * opens, open.c's.
 */
#include "cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cmd_usage_error(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "e2map: %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CMD_EXIT_USAGE;
}

void cmd_errorf(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);		/* keep stdout's lines before the error */
	fputs("e2map: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* C-style: \t \n \r \\, other control bytes and DEL as \xNN. */
static void escape_into(char *out, size_t size, const char *s)
{
	static const char named[] = "\tt\nn\rr\\\\";
	size_t o = 0;

	for (; *s && o + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;
		const char *n = strchr(named, c);

		if (n && c && (n - named) % 2 == 0)
			o += (size_t)snprintf(out + o, size - o, "\\%c", n[1]);
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

const char *cmd_esc(const char *s)
{
	static char ring[4][4 * 4096 + 8];
	static unsigned next;
	char *out = ring[next++ % 4];

	escape_into(out, sizeof(ring[0]), s ? s : "");
	return out;
}

int cmd_fail(const char *what, int err, const char *detail)
{
	if (detail && *detail)
		cmd_errorf("%s: %s (%s)", what, e2map_strerror(err), detail);
	else
		cmd_errorf("%s: %s", what, e2map_strerror(err));
	return CMD_EXIT_FAIL;
}

int cmd_fail_file(const char *cmd, const char *image, const char *path,
		  int err, const e2map_t *m)
{
	char what[9 * 4096];

	snprintf(what, sizeof(what), "%s: %s:%s", cmd, cmd_esc(image),
		 cmd_esc(path));
	return cmd_fail(what, err, m ? e2map_errmsg(m) : NULL);
}

void cmd_why(const struct cmd_common *co, const char *cmd, const char *image,
	     const char *path, int err, const e2map_t *m)
{
	if (co->why)
		cmd_fail_file(cmd, image, path, err, m);
}

/* strerror, as the tools print it (not e2map's words for EUCLEAN). */
const char *cmd_tool_strerror(int err)
{
	return strerror(err < 0 ? -err : err);
}

static bool shell_safe(unsigned char c, bool colon)
{
	if (c == ':' && colon)
		return false;
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("%+,-./:=@_", c));
}

/* A byte the shell-escape style writes as $'\ooo' (C locale). */
static bool shell_odd(unsigned char c)
{
	return c < 0x20 || c >= 0x7f;
}

/* quotearg's escapes inside $'...': C letters where C has them. */
static void put_escape(FILE *out, unsigned char c)
{
	static const char from[] = "\a\b\f\n\r\t\v", to[] = "abfnrtv";
	const char *p = c ? strchr(from, c) : NULL;

	if (p)
		fprintf(out, "\\%c", to[p - from]);
	else
		fprintf(out, "\\%03o", c);
}

/*
 * quotearg, shell-escape-always style: '...' with '\'' for a ', and runs
 * of bytes that are not printable as $'...' between the quoted parts.  A
 * ' met before any such byte, but not first, makes quotearg start over
 * once it finds one, leaving a stray '' in front: kept, as printed.
 */
static void put_single(FILE *out, const char *s, size_t len)
{
	const char *q = memchr(s, '\'', len);
	bool esc = false;
	size_t i, odd = len;

	for (i = 0; i < len && odd == len; i++)
		if (shell_odd((unsigned char)s[i]))
			odd = i;
	if (q && q > s && (size_t)(q - s) < odd && odd < len)
		fputs("''", out);
	fputc('\'', out);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\'') {
			fputs("'\\''", out);
			esc = false;
		} else if (shell_odd(c)) {
			if (!esc)
				fputs("'$'", out);
			esc = true;
			put_escape(out, c);
		} else {
			if (esc)
				fputs("''", out);
			esc = false;
			fputc(c, out);
		}
	}
	fputc('\'', out);
}

void cmd_put_quoted(FILE *out, const char *s, size_t len, bool always,
		    bool colon)
{
	bool safe = true, odd = false, dq_bad = false;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		safe &= shell_safe(c, colon);
		odd |= shell_odd(c);
		dq_bad |= c && strchr("\"$`\\!", c) != NULL;
	}
	if (safe && (!always || len)) {
		fprintf(out, always ? "'%.*s'" : "%.*s", (int)len, s);
		return;
	}
	if (!odd && !dq_bad && memchr(s, '\'', len)) {
		fprintf(out, "\"%.*s\"", (int)len, s);
		return;
	}
	put_single(out, s, len);
}

const char *const cmd_range_formats[] = { "table", "csv", "jsonl", NULL };

int cmd_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *nv;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n > SIZE_MAX / elem || !(nv = realloc(*v, n * elem)))
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

/* "<N>" as debugfs spells an inode: N, or 0. */
uint64_t cmd_ino_operand(const char *s)
{
	char *end;
	unsigned long long n;

	if (s[0] != '<' || s[1] < '0' || s[1] > '9')
		return 0;
	errno = 0;
	n = strtoull(s + 1, &end, 10);
	return errno || strcmp(end, ">") ? 0 : (uint64_t)n;
}

void cmd_csv_text(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

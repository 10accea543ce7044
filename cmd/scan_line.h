/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map scan's lines, for scan_out.c and scan_jsonl.c: a record's text
 * made in one buffer and written once.
 */
#ifndef E2MAP_SCAN_LINE_H
#define E2MAP_SCAN_LINE_H

#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Each record's text is made in one buffer and written once, numbers and
 * constants put straight: the printing thread is a scan's critical path,
 * where printf's parsing and a locked putchar a byte were most of a
 * line.  The text is byte for byte what the printf calls gave.
 */

/* Room for N more bytes at the end of B: where they go, or NULL. */
static inline char *jb_room(struct outbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * (b->len + n + 1);
		char *s = realloc(b->s, cap);

		if (!s)
			return NULL;
		b->s = s;
		b->cap = cap;
	}
	return b->s + b->len;
}

/* V in decimal at P, two digits a step; the end. */
static inline char *put_dec(char *p, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718"
		"19202122232425262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374757677787980"
		"81828384858687888990919293949596979899";
	unsigned n = 1;
	char *e;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	e = p + n;
	while (v >= 100) {
		e -= 2;
		memcpy(e, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(e - 2, pairs + 2 * v, 2);
	else
		e[-1] = (char)('0' + v);
	return p + n;
}

static inline char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_dec(p, -(uint64_t)v);
	}
	return put_dec(p, (uint64_t)v);
}

/* cmd_json_u64's rule: past 2^53-1, a decimal string. */
static inline char *put_u64(char *p, uint64_t v)
{
	if (v <= JSON_MAX_SAFE)
		return put_dec(p, v);
	*p++ = '"';
	p = put_dec(p, v);
	*p++ = '"';
	return p;
}

/* KEY, a string literal: its bytes without the terminating NUL. */
#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* V right-aligned in WIDTH columns, as printf's %WIDTHu. */
static inline char *put_w(char *p, uint64_t v, unsigned width)
{
	unsigned n = 1;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	for (; n < width; n++)
		*p++ = ' ';
	return put_dec(p, v);
}

static inline char *put_str(char *p, const char *s)
{
	size_t len = strlen(s);

	memcpy(p, s, len);
	return p + len;
}

static inline char *put_hex2(char *p, unsigned char c)
{
	static const char digits[] = "0123456789abcdef";

	*p++ = '\\';
	*p++ = 'x';
	*p++ = digits[c >> 4];
	*p++ = digits[c & 15];
	return p;
}

/* The line so far on stdout, for what is still printed by stdio. */
static inline int line_write(struct outbuf *b)
{
	size_t n = b->len;

	b->len = 0;
	return fwrite_unlocked(b->s, 1, n, stdout) == n ? 0 : -EIO;
}

/* Room for N more bytes: B's end, *P set to it; -ENOMEM. */
static inline int line_room(struct outbuf *b, char **p, size_t n)
{
	if (*p)
		b->len = (size_t)(*p - b->s);
	return (*p = jb_room(b, n)) ? 0 : -ENOMEM;
}

#endif

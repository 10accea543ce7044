/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libarchive's pax writer, mended on its way out where it cannot be told
 * what GNU tar writes, so that GNU tar and bsdtar extract what the mount
 * holds:
 *  - an xattr's name in SCHILY.xattr.NAME: libarchive URL-encodes each
 *    byte outside '!'..'~', '%' and '='; GNU tar escapes only '%' and '='
 *    (%25, %3D) and decodes nothing else, so "user.été" came back from it
 *    as "user.%C3%A9t%C3%A9".  bsdtar decodes both forms.
 *  - hdrcharset=BINARY, written with a name that is not UTF-8: GNU tar
 *    warns at each ("unknown extended header keyword") and writes such a
 *    name's bytes as they are, with no such record.
 *  - the ustar mode: given an ACL, libarchive takes the group bits from
 *    the ACL's group entry; stat's are the mask's, which GNU tar writes.
 *  - the time records: stat's time as GNU tar writes the decimal, also
 *    between -1 and 0 s, where libarchive's "SEC.NSEC" loses the sign.
 * The writer is unbuffered (0 bytes per block), so the headers of the
 * member tar_pax_next named reach the stream inside archive_write_header.
 * The stream keeps 64 KiB, and at the end-of-archive blocks pads the
 * archive to 10240 bytes, as the writer would have, and writes it all
 * out: still inside a write, whose failure libarchive reports (it drops
 * the close callback's).
 */
#include "dl.h"
#include "tar_pax.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 512
#define RECORD 10240
#define OUT_CAP (64U << 10)

enum state { HEADER, XDATA, DATA };

struct text {
	char *s;
	size_t len, cap;
};

struct tar_pax {
	int fd;
	enum state state;
	unsigned char hdr[BLOCK];
	size_t hlen;
	uint64_t left;		/* XDATA, DATA: bytes to come, padding too */
	struct text x;		/* an 'x' header's records, as they come */
	uint64_t xsize;
	int64_t next_size;	/* a "size" record's, for the next member */
	struct e2map_stat st;
	bool have_st;
	unsigned char *out;
	size_t on;
	uint64_t total;
	unsigned zeros;		/* end-of-archive blocks seen */
};

void tar_pax_next(struct tar_pax *p, const struct e2map_stat *st)
{
	p->st = *st;
	p->have_st = true;
}

/* ---- output ---- */

static int write_all(int fd, const unsigned char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int flush(struct tar_pax *p)
{
	int err = write_all(p->fd, p->out, p->on);

	p->on = 0;
	return err;
}

static int emit(struct tar_pax *p, const void *buf, size_t n)
{
	const unsigned char *b = buf;
	int err;

	p->total += n;
	if (!p->on && n >= OUT_CAP)	/* file data: no copy */
		return write_all(p->fd, b, n);
	while (n) {
		size_t k = OUT_CAP - p->on < n ? OUT_CAP - p->on : n;

		memcpy(p->out + p->on, b, k);
		p->on += k;
		b += k;
		n -= k;
		if (p->on == OUT_CAP && (err = flush(p)) < 0)
			return err;
	}
	return 0;
}

static int emit_zeros(struct tar_pax *p, size_t n)
{
	static const unsigned char zero[BLOCK];
	int err = 0;

	while (n && err == 0) {
		size_t k = n < BLOCK ? n : BLOCK;

		err = emit(p, zero, k);
		n -= k;
	}
	return err;
}

/* ---- ustar header fields ---- */

/* A numeric field: octal digits, or base-256 where the top bit is set. */
static uint64_t field_num(const unsigned char *f, size_t len)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		for (v = f[0] & 0x7f, i = 1; i < len; i++)
			v = v << 8 | f[i];
		return v;
	}
	while (i < len && f[i] == ' ')
		i++;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(f[i] - '0');
	return v;
}

/* LEN - 1 octal digits and a NUL, as GNU tar writes mode and size. */
static void set_octal(unsigned char *f, size_t len, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%0*" PRIo64, (int)(len - 1), v);
	memcpy(f, buf, len - 1);
	f[len - 1] = '\0';
}

static void set_checksum(unsigned char *h)
{
	unsigned sum = 0;
	char buf[8];

	memset(h + 148, ' ', 8);
	for (size_t i = 0; i < BLOCK; i++)
		sum += h[i];
	snprintf(buf, sizeof(buf), "%06o", sum & 0777777);
	memcpy(h + 148, buf, 7);	/* six digits, a NUL, the space */
}

static uint64_t padded(uint64_t n)
{
	return (n + BLOCK - 1) / BLOCK * BLOCK;
}

/* ---- pax records ---- */

static int text_add(struct text *t, const void *s, size_t n)
{
	if (t->len + n > t->cap) {
		size_t cap = 2 * (t->len + n) + 256;
		char *v = realloc(t->s, cap);

		if (!v)
			return -ENOMEM;
		t->s = v;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	return 0;
}

/* "LEN KEY=VALUE\n", LEN counting its own digits. */
static int put_record(struct text *t, const char *key, size_t klen,
		      const char *val, size_t vlen)
{
	size_t body = klen + vlen + 3, len = body + 1, d;
	char num[24];
	int err;

	while ((d = (size_t)snprintf(num, sizeof(num), "%zu", len)) + body !=
	       len)
		len = d + body;
	if ((err = text_add(t, num, d)) < 0 || (err = text_add(t, " ", 1)) < 0 ||
	    (err = text_add(t, key, klen)) < 0 ||
	    (err = text_add(t, "=", 1)) < 0 ||
	    (err = text_add(t, val, vlen)) < 0)
		return err;
	return text_add(t, "\n", 1);
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ?
	       c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* libarchive's URL-encoded NAME, as GNU tar encodes it: '%', '=' only. */
static int gnu_key(struct text *k, const char *name, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && err == 0; i++) {
		char c = name[i];

		if (c == '%' && i + 2 < n && hex(name[i + 1]) >= 0 &&
		    hex(name[i + 2]) >= 0) {
			c = (char)(hex(name[i + 1]) << 4 | hex(name[i + 2]));
			i += 2;
		}
		err = c == '%' ? text_add(k, "%25", 3) :
		      c == '=' ? text_add(k, "%3D", 3) : text_add(k, &c, 1);
	}
	return err;
}

/* T as GNU tar writes a pax time: "-0.25" is a quarter second before. */
static size_t time_text(const struct e2map_timespec *t, char *s, size_t n)
{
	int64_t sec = t->sec;
	uint32_t ns = t->nsec;
	bool neg = sec < 0 && ns;
	int k;

	if (neg) {
		sec += 1;
		ns = 1000000000U - ns;
	}
	k = snprintf(s, n, "%s%" PRId64, neg && !sec ? "-" : "", sec);
	if (ns) {
		k += snprintf(s + k, n - (size_t)k, ".%09" PRIu32, ns);
		while (s[k - 1] == '0')
			k--;
	}
	return (size_t)k;
}

/* The stat time a time record KEY stands for, or NULL. */
static const struct e2map_timespec *stat_time(const struct tar_pax *p,
					      const char *key, size_t klen)
{
	if (!p->have_st || klen != 5)
		return NULL;
	return !memcmp(key, "mtime", 5) ? &p->st.mtime :
	       !memcmp(key, "atime", 5) ? &p->st.atime :
	       !memcmp(key, "ctime", 5) ? &p->st.ctime : NULL;
}

static int64_t decimal(const char *s, size_t n)
{
	int64_t v = 0;

	for (size_t i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* One record of KEY = VAL (libarchive's) as GNU tar would have it. */
static int mend_record(struct tar_pax *p, struct text *o, const char *key,
		       size_t klen, const char *val, size_t vlen)
{
	static const char xattr[] = "SCHILY.xattr.";
	const size_t xl = sizeof(xattr) - 1;
	const struct e2map_timespec *t = stat_time(p, key, klen);
	struct text k = { 0 };
	char when[40];
	int err;

	if (klen == 10 && !memcmp(key, "hdrcharset", 10))
		return 0;
	if (klen == 4 && !memcmp(key, "size", 4))
		p->next_size = decimal(val, vlen);
	if (t)
		return put_record(o, key, klen, when,
				  time_text(t, when, sizeof(when)));
	if (klen <= xl || memcmp(key, xattr, xl))
		return put_record(o, key, klen, val, vlen);
	if ((err = text_add(&k, xattr, xl)) == 0 &&
	    (err = gnu_key(&k, key + xl, klen - xl)) == 0)
		err = put_record(o, k.s, k.len, val, vlen);
	free(k.s);
	return err;
}

/* The 'x' header's records, mended into O; the unparsable rest as is. */
static int mend_records(struct tar_pax *p, struct text *o)
{
	const char *s = p->x.s, *end = p->x.s + p->xsize;
	int err = 0;

	while (s < end && err == 0) {
		const char *q = s, *key, *eq = NULL, *rend;
		size_t len = 0;

		while (q < end && *q >= '0' && *q <= '9' && len < SIZE_MAX / 10)
			len = len * 10 + (size_t)(*q++ - '0');
		rend = s + len;
		key = q + 1;
		if (q > s && q < end && *q == ' ' && len <= (size_t)(end - s) &&
		    rend > key && rend[-1] == '\n')
			eq = memchr(key, '=', (size_t)(rend - key));
		if (!eq)
			return text_add(o, s, (size_t)(end - s));
		err = mend_record(p, o, key, (size_t)(eq - key), eq + 1,
				  (size_t)(rend - 1 - (eq + 1)));
		s = rend;
	}
	return err;
}

/* The 'x' header in p->hdr and its records, mended, out. */
static int emit_x(struct tar_pax *p)
{
	struct text o = { 0 };
	int err;

	if ((err = mend_records(p, &o)) == 0) {
		set_octal(p->hdr + 124, 12, o.len);
		set_checksum(p->hdr);
		if ((err = emit(p, p->hdr, BLOCK)) == 0 &&
		    (err = emit(p, o.s, o.len)) == 0)
			err = emit_zeros(p, (size_t)(padded(o.len) - o.len));
	}
	free(o.s);
	return err;
}

/* ---- the stream ---- */

static bool zero_block(const unsigned char *h)
{
	for (size_t i = 0; i < BLOCK; i++)
		if (h[i])
			return false;
	return true;
}

/* A whole header in p->hdr: where the bytes after it go. */
static int take_header(struct tar_pax *p)
{
	uint64_t size = field_num(p->hdr + 124, 12);
	char type = (char)p->hdr[156];
	int err;

	p->hlen = 0;
	if (zero_block(p->hdr)) {
		if ((err = emit(p, p->hdr, BLOCK)) < 0 || ++p->zeros < 2)
			return err;
		if ((err = emit_zeros(p, (size_t)((RECORD - p->total % RECORD) %
						  RECORD))) < 0)
			return err;
		return flush(p);
	}
	if (type == 'x') {
		p->xsize = size;
		p->x.len = 0;
		p->left = padded(size);
		p->state = XDATA;
		return p->left ? 0 : emit_x(p);
	}
	if (type != 'g') {
		if (p->have_st) {
			set_octal(p->hdr + 100, 8, p->st.mode & 07777);
			set_checksum(p->hdr);
		}
		p->have_st = false;
		if (p->next_size >= 0)
			size = (uint64_t)p->next_size;
		p->next_size = -1;
	}
	p->left = padded(size);
	p->state = p->left ? DATA : HEADER;
	return emit(p, p->hdr, BLOCK);
}

/* Bytes of an 'x' header's records (and padding) into p->x. */
static int take_x(struct tar_pax *p, const unsigned char *b, size_t n)
{
	int err;

	if ((err = text_add(&p->x, b, n)) < 0)
		return err;
	p->left -= n;
	if (p->left)
		return 0;
	p->state = HEADER;
	return emit_x(p);
}

static la_ssize_t on_write(struct archive *a, void *data, const void *buf,
			   size_t len)
{
	struct tar_pax *p = data;
	const unsigned char *b = buf;
	size_t n = len, k;
	int err = 0;

	while (n && err == 0) {
		if (p->state == HEADER) {
			k = BLOCK - p->hlen < n ? BLOCK - p->hlen : n;
			memcpy(p->hdr + p->hlen, b, k);
			if ((p->hlen += k) == BLOCK)
				err = take_header(p);
		} else {
			k = p->left < n ? (size_t)p->left : n;
			if (p->state == XDATA) {
				err = take_x(p, b, k);
			} else if ((err = emit(p, b, k)) == 0 &&
				   !(p->left -= k)) {
				p->state = HEADER;
			}
		}
		b += k;
		n -= k;
	}
	if (err < 0) {
		ar.archive_set_error(a, -err, "write error");
		return -1;
	}
	return (la_ssize_t)len;
}

/* Anything still held (an archive cut short); all is out otherwise. */
static int on_close(struct archive *a, void *data)
{
	(void)a;
	return flush(data) < 0 ? ARCHIVE_FATAL : ARCHIVE_OK;
}

static int on_free(struct archive *a, void *data)
{
	struct tar_pax *p = data;

	(void)a;
	free(p->x.s);
	free(p->out);
	free(p);
	return ARCHIVE_OK;
}

int tar_pax_open(struct archive *a, int fd, struct tar_pax **out)
{
	struct tar_pax *p;

	if (ar.archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK)
		return -1;
	if (!(p = calloc(1, sizeof(*p))) || !(p->out = malloc(OUT_CAP))) {
		free(p);
		ar.archive_set_error(a, ENOMEM, "%s", strerror(ENOMEM));
		return -1;
	}
	p->fd = fd;
	p->next_size = -1;
	*out = p;
	/* From here A frees P (on_free), whatever the open answers. */
	return ar.archive_write_open2(a, p, NULL, on_write, on_close, on_free) ==
	       ARCHIVE_OK ? 0 : -1;
}

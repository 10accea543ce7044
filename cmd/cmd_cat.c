/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map cat`: what `cat MNT/PATH...` (GNU coreutils) prints on the
 * kernel's mount, from the image: each file's bytes in turn, as read(2)
 * gives them (e2map_file_pread's answers), and for a file that cannot be
 * opened or read, cat's "cat: PATH: REASON" on stderr after the bytes
 * that came before it; the other files are still printed, and the exit
 * status is 1 at the end.  Written data on a bare raw image goes from the
 * image to stdout by sendfile(2) (e2map_file_span), never through a
 * buffer: a pipe gets the page cache's own pages.
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

/* coreutils' io_blksize: 128 KiB, larger than any ext4 st_blksize. */
#define CAT_BUF (128U << 10)
/* What one span or one sendfile may cover: large, a pipe still blocks. */
#define CAT_SPAN (1U << 30)

/* The bytes go out on fd 1, not through stdio. */
struct cat_out {
	unsigned char *buf;		/* CAT_BUF bytes */
	int64_t pos;			/* in the file being copied */
	bool sendfile;			/* stdout takes sendfile(2) */
	bool write_failed;		/* reported: nothing more is written */
};

/* cat's error(0, errno, "%s", quotef(name)). */
static void cat_error(const struct cmd_ctx *ctx, const char *path, int err)
{
	fflush(stdout);
	fputs("cat: ", stderr);
	cmd_put_quoted(stderr, path, strlen(path), false, true);
	fprintf(stderr, ": %s\n", cmd_tool_strerror(err));
	cmd_why(&ctx->co, "cat", ctx->image, path, err, ctx->m);
}

/* As main's check of stdout says it: a reader gone (EPIPE) silently. */
static void write_failed(struct cat_out *o)
{
	int err = errno ? errno : EIO;

	o->write_failed = true;
	if (err != EPIPE)
		cmd_fail("write error on stdout", -err, NULL);
}

/* N bytes of o->buf to stdout; false after a write error. */
static bool put(struct cat_out *o, size_t n)
{
	const unsigned char *p = o->buf;
	ssize_t w;

	while (n) {
		if ((w = write(STDOUT_FILENO, p, n)) < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			write_failed(o);
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/*
 * Span S to stdout with sendfile(2), o->pos moved on by what went.  What
 * is left of S (stdout takes no sendfile: a terminal, O_APPEND; or the
 * image gave less) goes through the read, which says why.
 */
static void send_span(struct cat_out *o, struct e2map_span *s)
{
	off_t at = (off_t)s->fd_off;
	ssize_t n;

	while (o->sendfile && s->len) {
		n = sendfile(STDOUT_FILENO, s->fd, &at, (size_t)s->len);
		if (n > 0) {
			s->len -= (uint64_t)n;
			o->pos += n;
		} else if (n < 0 && (errno == EINVAL || errno == ENOSYS)) {
			o->sendfile = false;
		} else if (n == 0 || errno != EINTR) {
			if (n < 0 && errno != EIO)
				write_failed(o);
			return;
		}
	}
}

/* Up to LEN bytes at o->pos, read into o->buf and written: the bytes
 * read, 0 after a write error, or the read's -errno. */
static int64_t read_span(struct cat_out *o, e2map_file_t *f, uint64_t len)
{
	int64_t n = e2map_file_pread(f, o->buf, len < CAT_BUF ? (size_t)len :
				     CAT_BUF, o->pos);

	if (n > 0 && put(o, (size_t)n))
		o->pos += n;
	return o->write_failed ? 0 : n;
}

/* A FIFO or a directory: read(2)'s answers, as the spans have none. */
static int copy_read(struct cat_out *o, e2map_file_t *f)
{
	int64_t n;

	while ((n = e2map_file_read(f, o->buf, CAT_BUF)) > 0)
		if (!put(o, (size_t)n))
			return 0;
	return (int)n;
}

/* The bytes of F to stdout; 0 or the read's -errno. */
static int copy_out(struct cat_out *o, e2map_file_t *f)
{
	struct e2map_span s;
	int64_t n;

	for (o->pos = 0; !o->write_failed; ) {
		if (e2map_file_span(f, o->pos, CAT_SPAN, &s) < 0)
			return copy_read(o, f);
		if (s.len == 0)
			return 0;
		if (s.fd >= 0)
			send_span(o, &s);
		/* The rest of the span through the buffer, without asking
		 * the map again for each buffer's worth. */
		while (s.len && !o->write_failed) {
			if ((n = read_span(o, f, s.len)) <= 0) {
				if (n < 0)
					return (int)n;
				break;
			}
			s.len -= (uint64_t)n;
		}
	}
	return 0;
}

/* One operand: 0, or CMD_EXIT_FAIL after cat's message. */
static int cat_one(const struct cmd_ctx *ctx, const char *path,
		   struct cat_out *o)
{
	int flags = ctx->co.nofollow ? E2MAP_O_NOFOLLOW : 0;
	e2map_file_t *f;
	int err = e2map_file_open_flags(ctx->m, path, flags, &f);

	if (err == 0) {
		err = copy_out(o, f);
		if (err < 0)
			cat_error(ctx, path, err);
		e2map_file_close(f);
		return err < 0 || o->write_failed ? CMD_EXIT_FAIL : 0;
	}
	cat_error(ctx, path, err);
	return CMD_EXIT_FAIL;
}

static const struct cmd_option cat_options[] = {
	CMD_OPT_WHY("cat"),
	CMD_OPT_NOFOLLOW,
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec cat_spec = {
	.options = cat_options,
	.operands = "IMAGE PATH...",
	.min_operands = 2,
	.max_operands = -1,
	.about =
"Prints each file's bytes as cat prints them on the mounted image, from the\n"
"image: written data, zeroes for holes and preallocated ranges, inline\n"
"data.  A file that cannot be opened or read gets cat's message on stderr\n"
"(after the bytes read before the damage), the other files are still\n"
"printed, and the exit status is 1.\n"
"\n"
"Examples:\n"
"  e2map cat evidence.img /etc/passwd\n"
"  e2map cat evidence.img '<12>' > inode12.bin\n",
};

int cmd_cat(struct cmd_ctx *ctx)
{
	struct cat_out o = { .buf = malloc(CAT_BUF), .sendfile = true };
	int status = 0, i;

	if (!o.buf)
		return cmd_fail("cat", -ENOMEM, NULL);
	fflush(stdout);
	for (i = 1; i < ctx->ops.n && !o.write_failed; i++)
		status |= cat_one(ctx, ctx->ops.v[i], &o);
	free(o.buf);
	return status;
}

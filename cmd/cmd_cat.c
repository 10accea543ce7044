/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map cat`: what `cat MNT/PATH...` (GNU coreutils) prints on the
 * kernel's mount, from the image: each file's bytes in turn, read as cat
 * reads them (read(2) in 128 KiB calls, the kernel's answers through
 * e2map_file_read), and for a file that cannot be opened or read, cat's
 * "cat: PATH: REASON" on stderr after the bytes that came before it; the
 * other files are still printed, and the exit status is 1 at the end.
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* coreutils' io_blksize: 128 KiB, larger than any ext4 st_blksize. */
#define CAT_BUF (128U << 10)

/* cat's error(0, errno, "%s", quotef(name)). */
static void cat_error(const struct cmd_ctx *ctx, const char *path, int err)
{
	fflush(stdout);
	fputs("cat: ", stderr);
	cmd_put_quoted(stderr, path, strlen(path), false, true);
	fprintf(stderr, ": %s\n", cmd_tool_strerror(err));
	cmd_why(&ctx->co, "cat", ctx->image, path, err, ctx->m);
}

/* The bytes of F to stdout; 0 or the read's -errno. */
static int copy_out(e2map_file_t *f, unsigned char *buf)
{
	int64_t n;

	while ((n = e2map_file_read(f, buf, CAT_BUF)) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return 0;	/* main's stdout check reports it */
	return (int)n;
}

/* One operand: 0, or CMD_EXIT_FAIL after cat's message. */
static int cat_one(const struct cmd_ctx *ctx, const char *path,
		   unsigned char *buf)
{
	int flags = ctx->co.nofollow ? E2MAP_O_NOFOLLOW : 0;
	e2map_file_t *f;
	int err = e2map_file_open_flags(ctx->m, path, flags, &f);

	if (err == 0) {
		err = copy_out(f, buf);
		if (err < 0)
			cat_error(ctx, path, err);
		e2map_file_close(f);
		return err < 0 ? CMD_EXIT_FAIL : 0;
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
	unsigned char *buf = malloc(CAT_BUF);
	int status = 0, i;

	if (!buf)
		return cmd_fail("cat", -ENOMEM, NULL);
	for (i = 1; i < ctx->ops.n; i++)
		status |= cat_one(ctx, ctx->ops.v[i], buf);
	free(buf);
	return status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map unallocated`: free space and file slack, in bytes of the disk,
 * for carvers (e2map_unallocated over the one block map).
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>

static const struct cmd_option unalloc_options[] = {
	CMD_OPT_RANGE_FORMAT,
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec unallocated_spec = {
	.options = unalloc_options,
	.operands = "IMAGE",
	.min_operands = 1,
	.max_operands = 1,
	.about =
"Lists what a carver looks through, in block order, as byte ranges of the\n"
"disk (the image file, or a container's media: a partition's start is\n"
"added): free blocks per the block bitmaps, blocks in use that no owner\n"
"was found for (unowned), and each regular file's slack: the unused tail\n"
"of the block that holds its end (tail) and blocks allocated past its end\n"
"(past-eof).  INO is the file for slack.\n"
"\n"
"Examples:\n"
"  e2map unallocated evidence.img\n"
"  e2map unallocated --format csv --partition 2 disk.E01 > free.csv\n",
};

static int print_range(const struct e2map_unalloc *u, void *payload)
{
	const enum cmd_range_format *fmt = payload;
	struct cmd_jline l = { 0 };
	int err;

	if (*fmt == CMD_RANGES_TABLE) {
		printf("%-9s %16" PRIu64 " %14" PRIu64 " %8" PRIu64 "\n",
		       e2map_unalloc_kind_name(u->kind), u->offset, u->length,
		       u->ino);
		return ferror(stdout) ? -EIO : 0;
	}
	if (*fmt == CMD_RANGES_CSV) {
		printf("%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\r\n",
		       e2map_unalloc_kind_name(u->kind), u->offset, u->length,
		       u->ino);
		return ferror(stdout) ? -EIO : 0;
	}
	cmd_jl_begin(&l);
	cmd_jl_string(&l, "kind", e2map_unalloc_kind_name(u->kind));
	cmd_jl_u64(&l, "offset", u->offset);
	cmd_jl_u64(&l, "length", u->length);
	cmd_jl_u64(&l, "ino", u->ino);
	err = cmd_jl_end(&l);
	cmd_jl_free(&l);
	return err;
}

int cmd_unallocated(struct cmd_ctx *ctx)
{
	enum cmd_range_format fmt = (enum cmd_range_format)ctx->co.format;
	e2map_blockmap_t *b = NULL;
	int status = 0, err;

	if ((err = e2map_blockmap_build(ctx->m, &b)) < 0)
		return cmd_fail("unallocated", err, e2map_errmsg(ctx->m));
	if (fmt == CMD_RANGES_TABLE)
		printf("%-9s %16s %14s %8s\n", "KIND", "OFFSET", "LENGTH",
		       "INO");
	else if (fmt == CMD_RANGES_CSV)
		printf("kind,offset,length,ino\r\n");
	if ((err = e2map_unallocated(ctx->m, b, print_range, &fmt)) < 0)
		status = cmd_fail("write error on stdout", err, NULL);
	e2map_blockmap_free(b);
	return status;
}

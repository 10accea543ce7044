/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map blockmap`: every range of the filesystem with its owner, from
 * the one interval map e2map_blockmap_build makes (e2map owner looks
 * blocks up in the same map).
 */
#include "cmd.h"

#include <inttypes.h>

static const struct cmd_option blockmap_options[] = {
	CMD_OPT_RANGE_FORMAT,
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec blockmap_spec = {
	.options = blockmap_options,
	.operands = "IMAGE",
	.min_operands = 1,
	.max_operands = 1,
	.about =
"Lists every range of the filesystem's blocks with its owner: a superblock\n"
"copy, group descriptors, reserved GDT blocks, a bitmap, an inode table,\n"
"the MMP block, or an inode (its data, unwritten, directory, journal or\n"
"orphan-file runs with their first logical block, its extent-tree or\n"
"indirect blocks, its xattr block); what no one owns is free, or unknown\n"
"where the block bitmap says in use.  START and END are filesystem\n"
"blocks, END inclusive.\n"
"\n"
"Examples:\n"
"  e2map blockmap evidence.img\n"
"  e2map blockmap --format csv evidence.img > blocks.csv\n",
};

static int print_range(enum cmd_range_format fmt,
		       const struct e2map_owner *o)
{
	struct cmd_jline l = { 0 };
	int err;

	if (fmt == CMD_RANGES_TABLE) {
		printf("%12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %-12s %8"
		       PRIu64 " %10" PRIu64 "\n", o->start,
		       o->start + o->count - 1, o->count,
		       e2map_owner_kind_name(o->kind), o->ino, o->lblk);
		return 0;
	}
	if (fmt == CMD_RANGES_CSV) {
		printf("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%"
		       PRIu64 "\r\n", o->start, o->start + o->count - 1,
		       o->count, e2map_owner_kind_name(o->kind), o->ino,
		       o->lblk);
		return 0;
	}
	cmd_jl_begin(&l);
	cmd_jl_u64(&l, "start", o->start);
	cmd_jl_u64(&l, "count", o->count);
	cmd_jl_string(&l, "kind", e2map_owner_kind_name(o->kind));
	cmd_jl_u64(&l, "ino", o->ino);
	cmd_jl_u64(&l, "lblk", o->lblk);
	err = cmd_jl_end(&l);
	cmd_jl_free(&l);
	return err;
}

int cmd_blockmap(struct cmd_ctx *ctx)
{
	enum cmd_range_format fmt = (enum cmd_range_format)ctx->co.format;
	e2map_blockmap_t *b = NULL;
	size_t i;
	int status = 0, err;

	if ((err = e2map_blockmap_build(ctx->m, &b)) < 0) {
		status = cmd_fail("blockmap", err, e2map_errmsg(ctx->m));
	} else {
		if (fmt == CMD_RANGES_TABLE)
			printf("%12s %12s %10s %-12s %8s %10s\n", "START", "END",
			       "COUNT", "KIND", "INO", "LBLK");
		else if (fmt == CMD_RANGES_CSV)
			printf("start,end,count,kind,ino,lblk\r\n");
		for (i = 0; i < e2map_blockmap_count(b) && !err; i++)
			err = print_range(fmt, e2map_blockmap_get(b, i));
		if (err < 0)
			status = cmd_fail("write error on stdout", err, NULL);
	}
	e2map_blockmap_free(b);
	return status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map owner`: who owns each block asked about (or the block holding
 * each byte of the disk, with --byte), one line each, looked up in the
 * interval map e2map_blockmap_build makes once: a batch of a million
 * costs one scan and a binary search each.  An inode's owner is named by
 * its paths from the path table.
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

struct owner_opts {
	bool bytes;
};

static const struct cmd_option owner_options[] = {
	{ .long_name = "byte", .action = CMD_OPT_TRUE,
	  .field = offsetof(struct owner_opts, bytes),
	  .help = "the numbers are byte offsets in the disk (the image\n"
	  "file, or a container's media), as a carver finds them" },
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec owner_spec = {
	.options = owner_options,
	.operands = "IMAGE NUMBER...",
	.min_operands = 2,
	.max_operands = -1,
	.about =
"Names the owner of each filesystem block NUMBER (xfs_io's number syntax)\n"
"or, with --byte, of the block holding each byte NUMBER of the disk: a\n"
"part of the layout (superblock, gdt, reserved-gdt, block-bitmap,\n"
"inode-bitmap, inode-table, mmp), free, unknown (in use by the bitmap,\n"
"no owner found), or an inode: what the block is to it (data, unwritten,\n"
"directory, journal, orphan-file, with the offset in the file of the\n"
"block, or of the byte; extent-tree, indirect, xattr-block) and its\n"
"paths.  A number outside the filesystem is an error line; the others\n"
"are still answered, and the exit status is 1.\n"
"\n"
"Examples:\n"
"  e2map owner evidence.img 1234 0x4d2 1m\n"
"  e2map owner --byte --partition 2 disk.E01 1073745920\n",
	.opts_size = sizeof(struct owner_opts),
};

static int print_path(const char *path, size_t len, void *payload)
{
	(void)len, (void)payload;
	printf(" %s", cmd_esc(path));
	return 0;
}

static bool has_offset(enum e2map_owner_kind k)
{
	return k == E2MAP_OWNER_DATA || k == E2MAP_OWNER_UNWRITTEN ||
	       k == E2MAP_OWNER_DIRECTORY || k == E2MAP_OWNER_JOURNAL ||
	       k == E2MAP_OWNER_ORPHAN_FILE;
}

/* "BLOCK: KIND [inode INO [offset N] PATH...]"; IN: the byte's place in
 * the block (--byte), after "+". */
static void print_owner(const e2map_paths_t *p, uint32_t bs, uint64_t block,
			int64_t in, const struct e2map_owner *o)
{
	printf("%" PRIu64, block);
	if (in >= 0)
		printf("+%" PRId64, in);
	printf(": %s", e2map_owner_kind_name(o->kind));
	if (o->ino) {
		printf(" inode %" PRIu64, o->ino);
		if (has_offset(o->kind))
			printf(" offset %" PRIu64, (o->lblk + block - o->start) *
			       bs + (uint64_t)(in > 0 ? in : 0));
		e2map_paths_foreach(p, o->ino, print_path, NULL);
	}
	putchar('\n');
}

/* One NUMBER: its block (and place in it), then the owner; -EINVAL for
 * no number, -ENXIO for one past the filesystem. */
static int answer(e2map_t *m, const e2map_blockmap_t *b,
		  const e2map_paths_t *p, bool bytes, uint32_t bs,
		  const char *arg)
{
	uint64_t start = e2map_disk_offset(m), block;
	const struct e2map_owner *o;
	int64_t v;

	if (e2map_parse_bytes(arg, &v) < 0)
		return -EINVAL;
	if (bytes && (uint64_t)v < start)
		return -ENXIO;
	block = bytes ? ((uint64_t)v - start) / bs : (uint64_t)v;
	if (!(o = e2map_blockmap_find(b, block, NULL)))
		return -ENXIO;
	print_owner(p, bs, block, bytes ? (int64_t)(((uint64_t)v - start) %
						     bs) : -1, o);
	return 0;
}

int cmd_owner(struct cmd_ctx *ctx)
{
	const struct owner_opts *o = ctx->opts;
	struct e2map_statfs sf = E2MAP_STATFS_INIT;
	e2map_blockmap_t *b = NULL;
	e2map_paths_t *p = NULL;
	e2map_t *m = ctx->m;
	int status = 0, err, i;

	if ((err = e2map_statfs(m, &sf)) < 0 ||
	    (err = e2map_blockmap_build(m, &b)) < 0 ||
	    (err = e2map_paths_build(m, &p)) < 0) {
		status = cmd_fail("owner", err, e2map_errmsg(m));
		goto out;
	}
	for (i = 1; i < ctx->ops.n; i++) {
		err = answer(m, b, p, o->bytes, sf.bsize, ctx->ops.v[i]);
		if (err == -EINVAL)
			cmd_errorf("owner: %s: invalid number",
				   cmd_esc(ctx->ops.v[i]));
		else if (err)
			cmd_errorf("owner: %s: no such %s in the filesystem",
				   cmd_esc(ctx->ops.v[i]),
				   o->bytes ? "byte" : "block");
		status = err ? CMD_EXIT_FAIL : status;
	}
out:
	e2map_paths_free(p);
	e2map_blockmap_free(b);
	return status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map owner`: who owns each block asked about, one line each, looked
 * up in the interval map e2map_blockmap_build makes once (a batch of a
 * million blocks costs one scan and a binary search each); an inode's
 * owner is named by its paths from the path table.
 */
#include "cmd.h"

#include <inttypes.h>
#include <stdlib.h>

struct owner_opts {
	struct cmd_common co;
};

static const struct cmd_option owner_options[] = {
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_END,
};

const struct cmd_spec owner_spec = {
	.options = owner_options,
	.operands = "IMAGE BLOCK...",
	.min_operands = 2,
	.max_operands = -1,
	.about =
"Names the owner of each filesystem BLOCK (xfs_io's number syntax): a\n"
"part of the layout (superblock, gdt, reserved-gdt, block-bitmap,\n"
"inode-bitmap, inode-table, mmp), free, unknown (in use by the bitmap,\n"
"no owner found), or an inode: what the block is to it (data, unwritten,\n"
"directory, journal, orphan-file with the byte offset in the file;\n"
"extent-tree, indirect, xattr-block) and its paths.  A block past the\n"
"filesystem is an error line; the others are still answered, exit 1.\n"
"\n"
"Examples:\n"
"  e2map owner evidence.img 1234 0x4d2 1m\n",
};

static int print_path(const char *path, size_t len, void *payload)
{
	(void)len, (void)payload;
	printf(" %s", cmd_esc(path));
	return 0;
}

static void print_owner(e2map_t *m, const e2map_paths_t *p, uint64_t block,
			const struct e2map_owner *o)
{
	struct e2map_statfs sf;
	uint64_t off = 0;

	printf("%" PRIu64 ": %s", block, e2map_owner_kind_name(o->kind));
	if (!o->ino) {
		putchar('\n');
		return;
	}
	printf(" inode %" PRIu64, o->ino);
	if (o->kind == E2MAP_OWNER_DATA || o->kind == E2MAP_OWNER_UNWRITTEN ||
	    o->kind == E2MAP_OWNER_DIRECTORY || o->kind == E2MAP_OWNER_JOURNAL ||
	    o->kind == E2MAP_OWNER_ORPHAN_FILE) {
		if (e2map_statfs(m, &sf) == 0)
			off = (o->lblk + block - o->start) * sf.bsize;
		printf(" offset %" PRIu64, off);
	}
	e2map_inode_paths(p, o->ino, print_path, NULL);
	putchar('\n');
}

int cmd_owner(int argc, char **argv)
{
	struct owner_opts o = { 0 };
	struct cmd_operands ops;
	e2map_blockmap_t *b = NULL;
	e2map_paths_t *p = NULL;
	e2map_t *m;
	int status = cmd_parse(argc, argv, &o, &o.co, &ops), err, i;

	if (status != CMD_PARSED)
		return status;
	if ((status = cmd_open_image("owner", &o.co, ops.v[0], &m)))
		return status;
	if ((err = e2map_blockmap_build(m, &b)) < 0 ||
	    (err = e2map_paths_build(m, &p)) < 0) {
		status = cmd_fail("owner", err, e2map_errmsg(m));
		goto out;
	}
	for (i = 1; i < ops.n; i++) {
		const struct e2map_owner *w;
		int64_t v;

		if (e2map_parse_bytes(ops.v[i], &v) < 0 || v < 0 ||
		    !(w = e2map_blockmap_find(b, (uint64_t)v, NULL))) {
			cmd_errorf("owner: %s: no such block in the filesystem",
				   cmd_esc(ops.v[i]));
			status = CMD_EXIT_FAIL;
			continue;
		}
		print_owner(m, p, (uint64_t)v, w);
	}
out:
	e2map_paths_free(p);
	e2map_blockmap_free(b);
	e2map_close(m);
	return status;
}

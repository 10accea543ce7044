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
#include <string.h>

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
"block, or of the byte; extent-tree, indirect, xattr-block), or boot\n"
"(block 0 of a 1 KiB filesystem, before the superblock).  Each line\n"
"starts with NUMBER as typed; with --byte the block follows the owner\n"
"(\"block N\"), and on a disk of several filesystems each byte is\n"
"answered in the partition that holds it, without --partition.  Each of\n"
"the inode's paths follows a tab (names are\n"
"escaped C-style, so a tab is never in one).  A number outside the\n"
"filesystem is an error line; the others are still answered, and the\n"
"exit status is 1.\n"
"\n"
"Examples:\n"
"  e2map owner evidence.img 1234 0x4d2 1m\n"
"  e2map owner --byte disk.E01 1073745920\n",
	.opts_size = sizeof(struct owner_opts),
};

static int print_path(const char *path, size_t len, void *payload)
{
	(void)len, (void)payload;
	printf("\t%s", cmd_esc(path));
	return 0;
}

static bool has_offset(enum e2map_owner_kind k)
{
	return k == E2MAP_OWNER_DATA || k == E2MAP_OWNER_UNWRITTEN ||
	       k == E2MAP_OWNER_DIRECTORY || k == E2MAP_OWNER_JOURNAL ||
	       k == E2MAP_OWNER_ORPHAN_FILE;
}

/* "ARG: KIND [inode INO [offset N]] [block B]" then TAB PATH for each
 * path; IN: the byte's place in the block (--byte), else -1. */
static void print_owner(const e2map_paths_t *p, uint32_t bs, const char *arg,
			uint64_t block, int64_t in,
			const struct e2map_owner *o)
{
	printf("%s: %s", cmd_esc(arg), e2map_owner_kind_name(o->kind));
	if (o->ino) {
		printf(" inode %" PRIu64, o->ino);
		if (has_offset(o->kind))
			printf(" offset %" PRIu64, (o->lblk + block - o->start) *
			       bs + (uint64_t)(in > 0 ? in : 0));
	}
	if (in >= 0)
		printf(" block %" PRIu64, block);
	if (o->ino)
		e2map_paths_foreach(p, o->ino, print_path, NULL);
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
	print_owner(p, bs, arg, block, bytes ? (int64_t)(((uint64_t)v - start)
							  % bs) : -1, o);
	return 0;
}

/* What one filesystem answers with: its map and its paths, built once. */
struct owner_fs {
	e2map_t *m;
	e2map_blockmap_t *b;
	e2map_paths_t *p;
	uint32_t bs;
};

static int owner_fs_build(struct owner_fs *fs)
{
	struct e2map_statfs sf = E2MAP_STATFS_INIT;
	int err;

	if ((err = e2map_statfs(fs->m, &sf)) < 0 ||
	    (err = e2map_blockmap_build(fs->m, &fs->b)) < 0 ||
	    (err = e2map_paths_build(fs->m, &fs->p)) < 0)
		return cmd_fail("owner", err, e2map_errmsg(fs->m));
	fs->bs = (uint32_t)sf.bsize;
	return 0;
}

static void owner_fs_free(struct owner_fs *fs)
{
	e2map_paths_free(fs->p);
	e2map_blockmap_free(fs->b);
}

/* ARG's line, or its error line: 1 for an error, 0 for an answer. */
static int answer_line(const struct owner_fs *fs, bool bytes, const char *arg)
{
	int err = answer(fs->m, fs->b, fs->p, bytes, fs->bs, arg);

	if (err == -EINVAL)
		cmd_errorf("owner: %s: invalid number", cmd_esc(arg));
	else if (err)
		cmd_errorf("owner: %s: no such %s in the filesystem",
			   cmd_esc(arg), bytes ? "byte" : "block");
	return err ? 1 : 0;
}

/*
 * ARG, a byte of disk D, answered in the partition holding it, which is
 * opened (and mapped, into FS) the first time one of its bytes is asked:
 * 0 answered, 1 an error line, -1 the partition cannot be read (said).
 */
static int disk_answer(struct cmd_ctx *ctx, const struct e2map_disk *d,
		       struct owner_fs *fs, const char *arg)
{
	const struct e2map_partition *part;
	struct cmd_common co = ctx->co;
	char num[16];
	int64_t v;
	size_t k;

	if (e2map_parse_bytes(arg, &v) < 0) {
		cmd_errorf("owner: %s: invalid number", cmd_esc(arg));
		return 1;
	}
	if (!(part = e2map_disk_partition_at(d, (uint64_t)v))) {
		cmd_errorf("owner: %s: no ext2/3/4 partition holds that byte",
			   cmd_esc(arg));
		return 1;
	}
	k = (size_t)(part - d->partitions);
	if (!fs[k].m) {
		snprintf(num, sizeof(num), "%u", part->number);
		co.partition = num;
		if (cmd_open_image("owner", &co, ctx->image, &fs[k].m) ||
		    owner_fs_build(&fs[k]))
			return -1;
	}
	return answer_line(&fs[k], true, arg);
}

/* --byte on a disk of several filesystems: each byte names its own. */
static int owner_disk(struct cmd_ctx *ctx, const struct e2map_disk *d)
{
	struct owner_fs *fs = calloc(d->count, sizeof(*fs));
	int status = 0, r, i;

	if (!fs)
		return cmd_fail("owner", -ENOMEM, NULL);
	for (i = 1; i < ctx->ops.n; i++) {
		if ((r = disk_answer(ctx, d, fs, ctx->ops.v[i])))
			status = CMD_EXIT_FAIL;
		if (r < 0)
			break;
	}
	for (size_t k = 0; k < d->count; k++) {
		owner_fs_free(&fs[k]);
		e2map_close(fs[k].m);
	}
	free(fs);
	return status;
}

/* The disk IMAGE, when it holds more than one ext2/3/4 filesystem. */
static struct e2map_disk *several(const char *image)
{
	struct e2map_disk *d = NULL;
	size_t n = 0;

	if (e2map_disk_read(image, &d) < 0)
		return NULL;
	for (size_t i = 0; i < d->count; i++)
		n += e2map_partition_is_ext(&d->partitions[i]) != 0;
	if (n > 1)
		return d;
	e2map_disk_free(d);
	return NULL;
}

int cmd_owner(struct cmd_ctx *ctx)
{
	const struct owner_opts *o = ctx->opts;
	struct owner_fs fs = { 0 };
	struct e2map_disk *d;
	int status, i;

	ctx->image = ctx->ops.v[0];
	if (o->bytes && !ctx->co.partition && !ctx->co.offset &&
	    (d = several(ctx->image))) {
		status = owner_disk(ctx, d);
		e2map_disk_free(d);
		return status;
	}
	if ((status = cmd_open_image("owner", &ctx->co, ctx->image, &ctx->m)))
		return status;
	fs.m = ctx->m;
	if ((status = owner_fs_build(&fs)) == 0)
		for (i = 1; i < ctx->ops.n; i++)
			if (answer_line(&fs, o->bytes, ctx->ops.v[i]))
				status = CMD_EXIT_FAIL;
	owner_fs_free(&fs);
	return status;
}

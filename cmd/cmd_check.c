/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map check: every inode in use through the whole mapping walk (seek
 * walk, FIEMAP listing, FIEMAP_FLAG_XATTR), one line per inode with its
 * first path (from the library's path table) and a summary, or one JSON
 * document.  Exit 1 when any inode failed, as when the image did not open.
 */
#include "cmd.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

struct check_opts {
	bool quiet;
	int threads;		/* -j N; 0: one per online CPU */
};

struct check_run {
	bool quiet;
	bool json;
	e2map_paths_t *paths;
	uint64_t inodes, errors;
	uint64_t printed;	/* --json: elements of "inodes" so far */
};

/* An inode holding a large xattr value for its parent (ea_inode). */
#define EA_INODE_FL 0x00200000

static const char *kind_name(const struct e2map_inode *in)
{
	if (in->err)
		return "group";	/* its inode table could not be read */
	if (in->flags & EA_INODE_FL)
		return "ea_inode";
	switch (in->mode & S_IFMT) {
	case S_IFREG: return "regular";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	default: return "special";
	}
}

/* Symlinks and special files cannot be mapped: opening them says so. */
static bool expected_refusal(uint32_t mode, int err)
{
	return (S_ISLNK(mode) && err == -ELOOP) ||
	       (!S_ISLNK(mode) && !S_ISREG(mode) && !S_ISDIR(mode) &&
		err == -ENXIO);
}

/* The first path only: a line per inode. */
static int print_first(const char *path, size_t len, void *payload)
{
	size_t i, from = 0;

	(void)payload;
	putchar_unlocked(' ');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (c >= 0x20 && c != 0x7f && c != '\\')
			continue;
		fwrite_unlocked(path + from, 1, i - from, stdout);
		printf("\\x%02x", c);
		from = i + 1;
	}
	fwrite_unlocked(path + from, 1, len - from, stdout);
	return 1;
}

static void print_line(const struct check_run *run,
		       const struct e2map_inode *in, int err,
		       const char *detail)
{
	char num[24], *p = num + sizeof(num);
	uint64_t ino = in->ino;

	/* A line per inode: printf's parsing was most of the printing, and
	 * with check's threads started every locked stdio call locks. */
	*--p = '\0';
	do {
		*--p = (char)('0' + ino % 10);
	} while (ino /= 10);
	putchar_unlocked('<');
	fputs_unlocked(p, stdout);
	fputs_unlocked("> ", stdout);
	fputs_unlocked(kind_name(in), stdout);
	if (!in->err)
		e2map_paths_foreach(run->paths, in->ino, print_first, NULL);
	if (err)
		printf(": %s (%s)\n", e2map_strerror(err), detail);
	else
		fputs_unlocked(": ok\n", stdout);
}

static int add_path(const char *path, size_t len, void *payload)
{
	json_t *o = json_object();

	cmd_json_set_name(o, "path", path, len);
	cmd_json_append(payload, o);
	return 0;
}

/* One element of "inodes": streamed, so memory does not grow with them. */
static int print_json_inode(struct check_run *run,
			    const struct e2map_inode *in, int err,
			    const char *detail)
{
	json_t *o = json_object(), *paths = json_array();

	cmd_json_set(o, "ino", cmd_json_u64(in->ino));
	cmd_json_set(o, "kind", json_string(kind_name(in)));
	if (!in->err)
		e2map_paths_foreach(run->paths, in->ino, add_path, paths);
	cmd_json_set(o, "paths", paths);
	cmd_json_set(o, "ok", json_boolean(!err));
	if (err)
		cmd_json_set(o, "error", cmd_json_error(err, detail));
	return cmd_json_stream_item(o, run->printed++ == 0);
}

/*
 * The path table is built when the first line needs it: with -q, a clean
 * image costs no directory walk.  Building reads through M, so the
 * failing inode's detail is copied out first.
 */
static int visit(e2map_t *m, const struct e2map_inode *in, int err,
		 const char *why, void *payload)
{
	struct check_run *run = payload;
	char detail[256];
	int e;

	if (!in->err && expected_refusal(in->mode, err))
		err = 0;
	run->inodes++;
	if (err)
		run->errors++;
	if (run->quiet && !err)
		return 0;
	snprintf(detail, sizeof(detail), "%s", err ? why : "");
	if (!run->paths && (e = e2map_paths_build(m, &run->paths)) < 0)
		return e;
	if (run->json)
		return print_json_inode(run, in, err, detail);
	print_line(run, in, err, detail);
	return 0;
}

static const struct cmd_option check_options[] = {
	{ .short_name = 'q', .action = CMD_OPT_TRUE,
	  .field = offsetof(struct check_opts, quiet),
	  .help = "print only the inodes that failed, and the summary" },
	{ .short_name = 'j', .long_name = "threads", .arg = "N",
	  .action = CMD_OPT_PARSE, .field = offsetof(struct check_opts, threads),
	  .parse = cmd_parse_count, .what = "thread count",
	  .help = "check on N threads (default: one per CPU); the output is "
		  "the same" },
	CMD_OPT_JSON("{\"image\",\"inodes\":[{\"ino\",\"kind\",\"paths\":"
		     "[{\"path\"}],\n\"ok\",\"error\"}],\"inodes_checked\","
		     "\"errors\"}"),
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec check_spec = {
	.options = check_options,
	.operands = "IMAGE",
	.min_operands = 1,
	.max_operands = 1,
	.about =
"Opens IMAGE and runs, for every inode in use, the whole SEEK_DATA/\n"
"SEEK_HOLE walk, the whole FIEMAP listing and a FIEMAP_FLAG_XATTR call,\n"
"printing `<INO> KIND PATH: ok` or the error the kernel would give, then\n"
"`N inodes, M errors`.  PATH is the inode's first (shortest) name, control\n"
"bytes and \\ as \\xHH; an inode no directory names has none (`<7>\n"
"regular: ok`).  Exit 0 when every inode is ok, 1 when one failed or the\n"
"image did not open.\n"
"\n"
"Examples:\n"
"  e2map check evidence.img\n"
"  e2map check -q evidence.img | grep -v ': ok$'\n",
	.opts_size = sizeof(struct check_opts),
};

/* The summary; a scan that stopped early is an error of its own. */
static int finish(struct check_run *run, e2map_t *m, int scan_err)
{
	json_t *tail;

	if (!run->json) {
		printf("%llu inodes, %llu errors\n",
		       (unsigned long long)run->inodes,
		       (unsigned long long)run->errors);
		return scan_err ? cmd_fail("check: scan", scan_err,
					   e2map_errmsg(m)) : 0;
	}
	tail = json_object();
	cmd_json_set(tail, "inodes_checked", cmd_json_u64(run->inodes));
	cmd_json_set(tail, "errors", cmd_json_u64(run->errors));
	if (scan_err)
		cmd_json_set(tail, "scan_error",
			     cmd_json_error(scan_err, e2map_errmsg(m)));
	return cmd_json_stream_end(tail) < 0 || scan_err ? CMD_EXIT_FAIL : 0;
}

/* Every inode; 0, or the exit status after the error was printed. */
static int check_image(struct check_run *run, e2map_t *m, const char *image,
		       int threads)
{
	json_t *head;
	int err;

	if (run->json) {
		head = json_object();
		cmd_json_set_name(head, "image", image, strlen(image));
		if ((err = cmd_json_stream_begin(head, "inodes")) < 0)
			return cmd_fail("check: --json", err, NULL);
	}
	err = e2map_check_all(m, (unsigned)threads, visit, run);
	if (finish(run, m, err))
		return CMD_EXIT_FAIL;
	return run->errors ? CMD_EXIT_FAIL : 0;
}

int cmd_check(struct cmd_ctx *ctx)
{
	const struct check_opts *o = ctx->opts;
	struct check_run run = { .quiet = o->quiet, .json = ctx->co.json };
	int status = check_image(&run, ctx->m, ctx->image, o->threads);

	e2map_paths_free(run.paths);
	return status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map extract`: a file or a tree out of the image, as `cp -a` copies
 * it from the kernel's mount, holes kept (e2map_extract does the work).
 * Each entry that fails gets one line on stderr naming it, and where a
 * partial file is left, how much of it is there; the walk goes on and
 * the exit status is 1 at the end.
 */
#include "cmd.h"

#include <errno.h>
#include <string.h>

struct extract_opts {
	bool recursive, preserve;
};

struct extract_run {
	e2map_t *m;
	const char *image;
	struct cmd_progress progress;
};

/* The steps that happen on the host, not in the image. */
static bool host_step(const char *what)
{
	static const char *const host[] = {
		"create", "write", "truncate", "mkdir", "symlink", "mknod",
		"link", "setxattr", "chown", "chmod", "utimensat", NULL
	};
	const char *const *h;

	for (h = host; *h; h++)
		if (!strcmp(*h, what))
			return true;
	return false;
}

static void report_failure(struct extract_run *run,
			   const struct e2map_extract_event *ev)
{
	const char *detail = host_step(ev->what) ? "" : e2map_errmsg(run->m);

	cmd_progress_end(&run->progress);
	if (host_step(ev->what))
		cmd_errorf("extract: %s: %s: %s", cmd_esc(ev->dest), ev->what,
			   e2map_strerror(ev->err));
	else
		cmd_errorf("extract: %s:%s: %s: %s%s%s%s", cmd_esc(run->image),
			   cmd_esc(ev->path), ev->what,
			   e2map_strerror(ev->err), *detail ? " (" : "",
			   detail, *detail ? ")" : "");
	if (ev->partial)
		cmd_errorf("extract: %s: partial: the %llu bytes before the "
			   "failure, no more", cmd_esc(ev->dest),
			   (unsigned long long)ev->bytes);
}

/* An xattr left behind: cp -a says nothing of it, e2map says so once. */
static void report_warning(struct extract_run *run,
			   const struct e2map_extract_event *ev)
{
	cmd_progress_end(&run->progress);
	cmd_errorf("extract: warning: %s: %s: %s (an xattr not copied; cp -a "
		   "passes over it too)", cmd_esc(ev->dest), ev->what,
		   e2map_strerror(ev->err));
}

static int on_event(const struct e2map_extract_event *ev, void *payload)
{
	struct extract_run *run = payload;

	if (ev->warning) {
		report_warning(run, ev);
		return 0;
	}
	if (ev->err)
		report_failure(run, ev);
	cmd_progress_add(&run->progress, 1, ev->bytes);
	return 0;
}

static const struct cmd_option extract_options[] = {
	{ .short_name = 'r', .long_name = "recursive", .action = CMD_OPT_TRUE,
	  .field = offsetof(struct extract_opts, recursive),
	  .help = "copy directories and what is under them" },
	{ .short_name = 'p', .long_name = "preserve", .action = CMD_OPT_TRUE,
	  .field = offsetof(struct extract_opts, preserve),
	  .help = "keep modes, owners, times and xattrs (ACLs included)" },
	CMD_OPT_QUIET,
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec extract_spec = {
	.options = extract_options,
	.operands = "IMAGE PATH DEST",
	.min_operands = 3,
	.max_operands = 3,
	.about =
"Copies PATH out of the image to DEST as cp -a copies it from the mounted\n"
"image: a file's holes and preallocated ranges stay holes in DEST (only\n"
"data is written), hard links stay links, symlinks, FIFOs, sockets and\n"
"(as root) device nodes are made anew.  DEST names the copy; an existing\n"
"directory takes it under PATH's last name (for /, DEST is the root's\n"
"copy).  A symlink as PATH is copied, not followed.  An entry that fails\n"
"is named on stderr (a partial file with the bytes it holds), the walk\n"
"goes on, and the exit status is 1.  The image is never written.\n"
"\n"
"Examples:\n"
"  e2map extract evidence.img /var/log/syslog syslog\n"
"  e2map extract -r -p evidence.img / /cases/42/tree\n",
	.opts_size = sizeof(struct extract_opts),
};

int cmd_extract(struct cmd_ctx *ctx)
{
	const struct extract_opts *o = ctx->opts;
	struct extract_run run = { .m = ctx->m, .image = ctx->image };
	unsigned flags = (o->recursive ? E2MAP_EXTRACT_RECURSIVE : 0) |
			 (o->preserve ? E2MAP_EXTRACT_PRESERVE : 0);
	int r;

	cmd_progress_inodes(&run.progress, run.m, "extract", "files",
			    ctx->ops.v[1], ctx->co.quiet, false);
	r = e2map_extract(run.m, ctx->ops.v[1], ctx->ops.v[2], flags, on_event,
			  &run);
	cmd_progress_end(&run.progress);
	if (r < 0)
		return cmd_fail("extract", r, NULL);
	return r ? CMD_EXIT_FAIL : 0;
}

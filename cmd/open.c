/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening an image (with its warnings) and a file in it (with the
 * messages of the mirrored tool), for the dispatcher (main.c) and for
 * the commands that open their files themselves (filefrag).  Not in
 * util.c: an open parses --partition with parse.c, which calls util.c,
 * and calls go one way only.
 */
#include "cmd.h"

#include <errno.h>
#include <string.h>

/* One warning line each for what e2map_image_state reports. */
static void warn_state(e2map_t *m, const char *image)
{
	int state = e2map_image_state(m);
	const char *why;
	int err;

	if (state < 0)
		return;		/* no mount table: nothing to warn of */
	if (state & E2MAP_IMAGE_MOUNTED)
		cmd_errorf("warning: %s is mounted; answers may be stale",
			   cmd_esc(image));
	if (state & E2MAP_IMAGE_NEEDS_RECOVERY)
		cmd_errorf("warning: %s: the journal needs recovery; answers "
			   "are those of the image as it lies (the kernel's "
			   "ro,noload view), not after recovery",
			   cmd_esc(image));
	if (state & E2MAP_IMAGE_UNMOUNTABLE) {
		err = e2map_image_refusal(m, &why);
		cmd_errorf("warning: %s: opened past the kernel's refusal to "
			   "mount it (%s: %s); every answer is e2map's reading, "
			   "beyond the kernel", cmd_esc(image),
			   e2map_strerror(err), why);
	}
}

int cmd_open_image(const char *cmd, const struct cmd_common *co,
		   const char *image, e2map_t **out)
{
	char opts[64] = "";
	const char *why;
	int64_t off;
	int err, part;

	if (co->offset && co->partition)	/* the byte is the partition's */
		return cmd_usage_error(cmd, "--offset and --partition "
				       "together: give one");
	if (co->offset) {
		if (e2map_parse_bytes(co->offset, &off) < 0)
			return cmd_usage_error(cmd, "invalid --offset '%s'",
					       cmd_esc(co->offset));
		snprintf(opts, sizeof(opts), "offset=%lld", (long long)off);
	}
	if (co->partition) {
		if (cmd_parse_count(co->partition, &part) < 0 || part < 1)
			return cmd_usage_error(cmd, "invalid --partition '%s'",
					       cmd_esc(co->partition));
		snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts),
			 "%spartition=%d", opts[0] ? "," : "", part);
	}
	if (co->replay)
		snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts),
			 "%sreplay", opts[0] ? "," : "");
	if (co->unmountable)
		snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts),
			 "%sunmountable", opts[0] ? "," : "");
	if (co->nomap)
		snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts),
			 "%snomap", opts[0] ? "," : "");
	err = e2map_open(image, opts[0] ? opts : NULL, out);
	if (err < 0) {
		/* The library's words say more than the errno, once. */
		why = e2map_errmsg(NULL);
		cmd_errorf("%s: %s: %s", cmd, cmd_esc(image),
			   *why ? why : e2map_strerror(err));
		return CMD_EXIT_FAIL;
	}
	warn_state(*out, image);
	return 0;
}

/*
 * xfs_io's openfile: stat(2) first, any failure but ENOENT is "stat:
 * REASON"; then open(2), whose failure is "PATH: REASON".  filefrag
 * opens first: "open: REASON".  The path is printed as typed.
 */
static void tool_open_error(bool filefrag, const char *path, int err,
			    bool at_stat)
{
	fflush(stdout);
	if (filefrag)
		fprintf(stderr, "open: %s\n", cmd_tool_strerror(err));
	else if (at_stat)
		fprintf(stderr, "stat: %s\n", cmd_tool_strerror(err));
	else
		fprintf(stderr, "%s: %s\n", path, cmd_tool_strerror(err));
}

/* --json promises one document: the file's error in it, as filefrag's. */
static int json_open_error(const char *path, int err, const e2map_t *m)
{
	json_t *doc = json_object();

	cmd_json_set_name(doc, "file", path, strlen(path));
	cmd_json_set(doc, "error", cmd_json_error(err, e2map_errmsg(m)));
	cmd_json_print(doc);
	return CMD_EXIT_FAIL;
}

int cmd_tool_open(const char *cmd, const struct cmd_common *co,
		  e2map_t *m, const char *image, const char *path,
		  e2map_file_t **out)
{
	bool filefrag = !strcmp(cmd, "filefrag");
	int flags = co->nofollow ? E2MAP_O_NOFOLLOW : 0;
	struct e2map_stat st = E2MAP_STAT_INIT;
	int err = 0;

	*out = NULL;
	if (co->json && !filefrag) {
		err = e2map_file_open_flags(m, path, flags, out);
		return err < 0 ? json_open_error(path, err, m) : 0;
	}
	/* The tools cannot name an inode by number: no message to mirror. */
	if (path[0] == '<') {
		err = e2map_file_open_flags(m, path, flags, out);
		return err < 0 ? cmd_fail_file(cmd, image, path, err, m) : 0;
	}
	if (!filefrag && (err = e2map_path_stat(m, path, &st)) < 0 &&
	    err != -ENOENT) {
		tool_open_error(filefrag, path, err, true);
		cmd_why(co, cmd, image, path, err, m);
		return CMD_EXIT_FAIL;
	}
	if (!err && (err = e2map_file_open_flags(m, path, flags, out)) == 0)
		return 0;
	tool_open_error(filefrag, path, err, false);
	cmd_why(co, cmd, image, path, err, m);
	/* xfs_io exits 1 when it cannot open its file; filefrag, the errno. */
	return filefrag ? -err : CMD_EXIT_FAIL;
}

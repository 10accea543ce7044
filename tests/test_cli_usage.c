/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CLI's argument handling, without kernel data: exit statuses (2 for
 * usage, 1 for e2map's own failures), one-line "e2map: ..." errors with
 * control bytes escaped, the tools' messages where a file fails, the
 * mounted-image and journal warnings, --version, help.
 * The binary comes from $E2MAP (set by `make check`); a small image for
 * the cases that need one is made with mkfs.ext4 -d (no root needed).
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

extern char **environ;

struct run {
	int status;		/* exit status, or -1 if it did not exit */
	char out[8192];
	char err[8192];
};

static char tmpdir[] = "/tmp/e2map-cli-XXXXXX";
static bool made;		/* tmpdir exists */
static char image[256];

/* Read what a child wrote into FD (a temp file) into BUF. */
static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

static int temp_fd(void)
{
	char name[] = "/tmp/e2map-cli-out-XXXXXX";
	int fd = mkstemp(name);

	cr_assert(fd >= 0);
	unlink(name);
	return fd;
}

/* Run $E2MAP with ARGV (NULL-terminated, without argv[0]). */
static void run(struct run *r, const char *const *args)
{
	const char *bin = getenv("E2MAP");
	char *argv[32];
	int out = temp_fd(), err = temp_fd(), i, ws;
	posix_spawn_file_actions_t fa;
	pid_t pid;

	if (!bin)
		cr_skip_test("E2MAP is not set (run through make check)");
	argv[0] = (char *)bin;
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	cr_assert_eq(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
}

/* Exactly one line, starting "e2map: ". */
static void assert_one_error_line(const struct run *r)
{
	const char *nl = strchr(r->err, '\n');

	cr_assert(strncmp(r->err, "e2map: ", 7) == 0, "stderr: %s", r->err);
	cr_assert(nl && nl[1] == '\0', "not one line: %s", r->err);
}

static void make_image(void)
{
	char cmd[1024], file[300];
	int fd;

	if (system("command -v mkfs.ext4 >/dev/null 2>&1") != 0)
		return;
	cr_assert(mkdtemp(tmpdir));
	made = true;
	snprintf(file, sizeof(file), "%s/src", tmpdir);
	mkdir(file, 0755);
	snprintf(file, sizeof(file), "%s/src/f", tmpdir);
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "hello\n", 6), 6);
	close(fd);
	snprintf(file, sizeof(file), "%s/src/link", tmpdir);
	cr_assert_eq(symlink("f", file), 0);
	snprintf(image, sizeof(image), "%s/x.img", tmpdir);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -d %s/src %s 4M "
		 ">/dev/null 2>&1", tmpdir, image);
	if (system(cmd) != 0)
		image[0] = '\0';
}

static void remove_image(void)
{
	char cmd[300];

	if (!made)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

static void need_image(void)
{
	if (!image[0])
		cr_skip_test("mkfs.ext4 -d is not available");
}

TestSuite(cli, .timeout = 20);

Test(cli, no_arguments_is_usage)
{
	struct run r;

	run(&r, (const char *[]){ NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage:"));
}

Test(cli, unknown_command_exits_2_with_usage)
{
	struct run r;

	run(&r, (const char *[]){ "frobnicate", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "e2map: unknown command 'frobnicate'"));
	cr_assert(strstr(r.err, "usage:"));
	cr_assert_str_empty(r.out);
}

Test(cli, version_prints_the_version)
{
	struct run r;

	run(&r, (const char *[]){ "--version", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(r.out, "e2map " E2MAP_VERSION "\n");
}

Test(cli, help_lists_every_command)
{
	struct run r;

	run(&r, (const char *[]){ "help", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "  seek "));
	cr_assert(strstr(r.out, "  fiemap "));
	cr_assert(strstr(r.out, "  filefrag "));
}

Test(cli, help_on_a_command_shows_its_usage)
{
	struct run r;

	run(&r, (const char *[]){ "help", "fiemap", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "usage: e2map fiemap "));
	run(&r, (const char *[]){ "fiemap", "-h", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "-v"));
	run(&r, (const char *[]){ "seek", "--help", NULL });
	cr_assert_eq(r.status, 0);
	run(&r, (const char *[]){ "help", "nosuch", NULL });
	cr_assert_eq(r.status, 2);
}

Test(cli, missing_arguments_exit_2)
{
	struct run r;

	run(&r, (const char *[]){ "seek", "-a", "x.img", "/f", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map seek"));
	run(&r, (const char *[]){ "fiemap", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "filefrag", "-v", "x.img", NULL });
	cr_assert_eq(r.status, 2);
}

Test(cli, seek_needs_a_direction)
{
	struct run r;

	run(&r, (const char *[]){ "seek", "-r", "x.img", "/f", "0", NULL });
	cr_assert_eq(r.status, 2);
}

Test(cli, unknown_flag_exits_2)
{
	struct run r;

	run(&r, (const char *[]){ "seek", "-a", "-q", "x.img", "/f", "0",
				  NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "e2map: seek: invalid option"));
	run(&r, (const char *[]){ "fiemap", "--bogus", "x.img", "/f", NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "filefrag", "-Z", "x.img", "/f", NULL });
	cr_assert_eq(r.status, 2);
}

Test(cli, bad_offset_is_one_line)
{
	struct run r;

	run(&r, (const char *[]){ "seek", "-a", "x.img", "/f", "abc", NULL });
	cr_assert_eq(r.status, 2);
	assert_one_error_line(&r);
	cr_assert(strstr(r.err, "'abc'"));
	run(&r, (const char *[]){ "seek", "-d", "x.img", "/f", "1q", NULL });
	cr_assert_eq(r.status, 2);
	assert_one_error_line(&r);
	run(&r, (const char *[]){ "fiemap", "x.img", "/f", "0", "zz", NULL });
	cr_assert_eq(r.status, 2);
	assert_one_error_line(&r);
	run(&r, (const char *[]){ "fiemap", "-n", "-3", "x.img", "/f", NULL });
	cr_assert_eq(r.status, 2);
	assert_one_error_line(&r);
	run(&r, (const char *[]){ "filefrag", "-b", "2x", "x.img", "/f",
				  NULL });
	cr_assert_eq(r.status, 2);
	assert_one_error_line(&r);
}

Test(cli, negative_offset_is_rejected)
{
	struct run r;

	/* As in xfs_io, "-5" reads as an option; "--" makes it an operand. */
	run(&r, (const char *[]){ "seek", "-a", "--", "x.img", "/f", "-5",
				  NULL });
	cr_assert_eq(r.status, 2);
	assert_one_error_line(&r);
}

Test(cli, nonexistent_image_exits_1)
{
	struct run r;

	run(&r, (const char *[]){ "seek", "-a", "/nonexistent/e2map.img",
				  "/f", "0", NULL });
	cr_assert_eq(r.status, 1);
	/* The reason once: no "(... No such file or directory)" after it. */
	cr_assert_str_eq(r.err, "e2map: seek: /nonexistent/e2map.img: "
			 "No such file or directory\n");
	cr_assert_str_empty(r.out);
}

Test(cli, control_bytes_in_paths_are_escaped)
{
	struct run r;

	run(&r, (const char *[]){ "fiemap", "/nonexistent/a\nb\x1b\\.img",
				  "/f", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.err, "e2map: fiemap: /nonexistent/a\\nb\\x1b"
			 "\\\\.img: No such file or directory\n");
	run(&r, (const char *[]){ "seek", "-a", "x.img", "/f", "1\tq",
				  NULL });
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.err, "e2map: seek: invalid offset '1\\tq'\n");
}

Test(cli, getopt_says_nothing_itself)
{
	struct run r;

	/* Every command, check too: e2map's line and the usage, no more. */
	run(&r, (const char *[]){ "check", "-Z", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.err, "e2map: check: invalid option or missing "
			 "argument: '-Z'\nusage: e2map check [-q] [-j N] [--json] [--offset "
			 "BYTES] [--partition N] [--replay] [--unmountable] IMAGE\n");
}

Test(cli, help_explains_help)
{
	struct run r;

	run(&r, (const char *[]){ "help", "help", NULL });
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "usage: e2map help [COMMAND]\n"), "%s", r.out);
	cr_assert_str_empty(r.err);
}

Test(cli, a_pipe_is_no_image, .init = make_image, .fini = remove_image)
{
	struct run r;
	char fifo[300], want[512];

	need_image();
	snprintf(fifo, sizeof(fifo), "%s/pipe", tmpdir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	run(&r, (const char *[]){ "seek", "-a", fifo, "/f", "0", NULL });
	cr_assert_eq(r.status, 1);
	snprintf(want, sizeof(want), "e2map: seek: %s: the image must be a "
		 "seekable file\n", fifo);
	cr_assert_str_eq(r.err, want);
}

Test(cli, not_ext_is_said_so, .init = make_image, .fini = remove_image)
{
	struct run r;
	char junk[300], want[512];
	int fd;

	need_image();
	snprintf(junk, sizeof(junk), "%s/junk", tmpdir);
	fd = open(junk, O_WRONLY | O_CREAT, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, 1 << 20), 0);
	close(fd);
	run(&r, (const char *[]){ "fiemap", junk, "/f", NULL });
	cr_assert_eq(r.status, 1);
	snprintf(want, sizeof(want), "e2map: fiemap: %s: not an ext2/3/4 "
		 "filesystem\n", junk);
	cr_assert_str_eq(r.err, want);
}

Test(cli, offset_past_the_end, .init = make_image, .fini = remove_image)
{
	struct run r;
	char want[512];

	need_image();
	run(&r, (const char *[]){ "fiemap", "--offset", "1g", image, "/f",
				  NULL });
	cr_assert_eq(r.status, 1);
	snprintf(want, sizeof(want), "e2map: fiemap: %s: offset past the "
		 "end of the image (4194304 bytes)\n", image);
	cr_assert_str_eq(r.err, want);
}

Test(cli, journal_needing_recovery_is_warned_of, .init = make_image,
     .fini = remove_image)
{
	struct run r;
	char cmd[600], want[512];

	need_image();
	snprintf(cmd, sizeof(cmd), "debugfs -w -R 'feature needs_recovery' "
		 "%s >/dev/null 2>&1", image);
	if (system(cmd) != 0)
		cr_skip_test("debugfs cannot set needs_recovery");
	run(&r, (const char *[]){ "seek", "-a", image, "/f", "0", NULL });
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_assert_str_eq(r.out, "Whence\tResult\nDATA\t0\nHOLE\t6\n");
	snprintf(want, sizeof(want), "e2map: warning: %s: the journal needs "
		 "recovery; answers are those of the image as it lies (the "
		 "kernel's ro,noload view), not after recovery\n", image);
	cr_assert_str_eq(r.err, want);
}

/* Mount IMAGE read-only on DIR; false when not allowed (not root). */
static bool mount_image(const char *dir)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "mkdir -p %s && mount -o loop,ro,noload "
		 "%s %s >/dev/null 2>&1", dir, image, dir);
	return system(cmd) == 0;
}

Test(cli, mounted_image_is_warned_of, .init = make_image,
     .fini = remove_image)
{
	struct run r;
	char dir[300], cmd[400], want[600];

	need_image();
	snprintf(dir, sizeof(dir), "%s/mnt", tmpdir);
	if (!mount_image(dir))
		cr_skip_test("cannot loop-mount %s (not root?)", image);
	run(&r, (const char *[]){ "filefrag", image, "/f", NULL });
	snprintf(cmd, sizeof(cmd), "umount %s", dir);
	cr_expect_eq(system(cmd), 0, "could not unmount %s", dir);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_assert_str_eq(r.out, "/f: 1 extent found\n");
	snprintf(want, sizeof(want), "e2map: warning: %s is mounted; answers "
		 "may be stale\n", image);
	cr_assert_str_eq(r.err, want);
}

Test(cli, bad_image_offset_is_usage, .init = make_image, .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "fiemap", "--offset", "x1", image, "/f",
				  NULL });
	cr_assert_eq(r.status, 2);
	assert_one_error_line(&r);
}

Test(cli, missing_file_is_xfs_io_s_error, .init = make_image,
     .fini = remove_image)
{
	struct run r;

	need_image();
	/* xfs_io: stat fails with ENOENT, then open: "PATH: REASON", 1. */
	run(&r, (const char *[]){ "fiemap", image, "/nosuch", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.err, "/nosuch: No such file or directory\n");
	cr_assert_str_empty(r.out);
	/* Any other stat error: "stat: REASON". */
	run(&r, (const char *[]){ "seek", "-a", image, "/f/x", "0", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.err, "stat: Not a directory\n");
}

Test(cli, why_adds_e2map_s_line, .init = make_image, .fini = remove_image)
{
	struct run r;
	char want[512];

	need_image();
	run(&r, (const char *[]){ "fiemap", "--why", image, "/nosuch",
				  NULL });
	cr_assert_eq(r.status, 1);
	/* The tool's line, then e2map's: reason and the library's detail. */
	snprintf(want, sizeof(want), "/nosuch: No such file or directory\n"
		 "e2map: fiemap: %s:/nosuch: No such file or directory",
		 image);
	cr_assert(!strncmp(r.err, want, strlen(want)), "%s", r.err);
	cr_assert(strchr(r.err + strlen(want), '\n') ==
		  r.err + strlen(r.err) - 1, "not two lines: %s", r.err);
}

Test(cli, seek_answers_on_a_real_image, .init = make_image,
     .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "seek", "-a", image, "/f", "0", NULL });
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_assert_str_eq(r.out, "Whence\tResult\nDATA\t0\nHOLE\t6\n");
	run(&r, (const char *[]){ "seek", "-d", image, "/f", "6", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(r.out, "Whence\tResult\nDATA\tEOF\n");
}

Test(cli, json_is_one_document, .init = make_image, .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "seek", "-a", "--json", image, "/f", "0",
				  NULL });
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_assert_str_eq(r.out, "{\"file\":\"/f\",\"results\":["
			 "{\"whence\":\"DATA\",\"start\":0,\"offset\":0},"
			 "{\"whence\":\"HOLE\",\"start\":0,\"offset\":6}]}\n");
	run(&r, (const char *[]){ "fiemap", "--json", image, "/f", NULL });
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_assert(strncmp(r.out, "{\"file\":\"/f\",\"size\":6,", 22) == 0,
		  "%s", r.out);
	cr_assert(strstr(r.out, "\"flag_names\":[\"LAST\""), "%s", r.out);
}

Test(cli, filefrag_reports_each_path, .init = make_image,
     .fini = remove_image)
{
	struct run r;

	need_image();
	/* filefrag 1.47: "open: REASON", the first failure's errno. */
	run(&r, (const char *[]){ "filefrag", image, "/f", "/nosuch", "/",
				  "/f/x", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.out, "/f: 1 extent found\n/: 1 extent found\n");
	cr_assert_str_eq(r.err, "open: No such file or directory\n"
			 "open: Not a directory\n");
}

/* As xfs_io and filefrag open(2) it, a final symlink is followed. */
Test(cli, final_symlink_is_followed, .init = make_image, .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "seek", "-a", "-r", image, "/link", "0",
				  NULL });
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_assert_str_eq(r.out, "Whence\tResult\nDATA\t0\nHOLE\t6\n");
	run(&r, (const char *[]){ "filefrag", image, "/link", NULL });
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_assert_str_eq(r.out, "/link: 1 extent found\n");
}

/* --no-follow is open(O_NOFOLLOW): ELOOP on a symlink, on every command. */
Test(cli, no_follow_refuses_a_final_symlink, .init = make_image,
     .fini = remove_image)
{
	static const char *const cmds[][8] = {
		{ "seek", "-a", "--no-follow", "IMG", "/link", "0", NULL },
		{ "fiemap", "-v", "--no-follow", "IMG", "/link", NULL },
		{ "filefrag", "--no-follow", "IMG", "/link", NULL },
	};
	const char *args[8];
	struct run r;

	need_image();
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		for (size_t i = 0; i < 8; i++)
			args[i] = cmds[c][i] && !strcmp(cmds[c][i], "IMG") ?
				  image : cmds[c][i];
		run(&r, args);
		/* The tools' open failure: xfs_io "PATH: REASON", exit 1;
		 * filefrag "open: REASON", exit with the errno. */
		cr_assert_eq(r.status, c == 2 ? ELOOP : 1, "%s: %s",
			     cmds[c][0], r.err);
		cr_assert_str_eq(r.err, c == 2 ? "open: Too many levels of "
				 "symbolic links\n" : "/link: Too many levels "
				 "of symbolic links\n");
	}
	run(&r, (const char *[]){ "seek", "-a", "--no-follow", image, "/f",
				  "0", NULL });
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	run(&r, (const char *[]){ "help", "seek", NULL });
	cr_assert(strstr(r.out, "--no-follow"), "%s", r.out);
}

/*
 * <INO> that names no inode: one line, ESTALE (the kernel's answer to a
 * file handle for inode 0 or past s_inodes_count), with the valid range;
 * <...> that is no number: one line, EINVAL.
 */
Test(cli, inode_number_outside_the_table_is_one_line, .init = make_image,
     .fini = remove_image)
{
	static const char *const stale[] = { "<0>", "<-1>", "<99999999>",
		"<99999999999999999999>" };
	static const char *const bad[] = { "<>", "<12x>" };
	struct run r;

	need_image();
	for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++) {
		run(&r, (const char *[]){ "seek", "-a", image, stale[i], "0",
					  NULL });
		cr_assert_eq(r.status, 1, "%s: %s", stale[i], r.err);
		assert_one_error_line(&r);
		cr_assert(strstr(r.err, stale[i]), "%s", r.err);
		cr_assert(strstr(r.err, "Stale file handle"), "%s", r.err);
		cr_assert(strstr(r.err, "inode numbers run from 1 to "), "%s",
			  r.err);
		cr_assert_str_empty(r.out);
	}
	run(&r, (const char *[]){ "fiemap", image, "<0>", NULL });
	cr_assert_eq(r.status, 1);
	assert_one_error_line(&r);
	cr_assert(strstr(r.err, "no inode 0: inode numbers run from 1 to "),
		  "%s", r.err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&r, (const char *[]){ "filefrag", image, bad[i], NULL });
		cr_assert_eq(r.status, 1, "%s: %s", bad[i], r.err);
		assert_one_error_line(&r);
		cr_assert(strstr(r.err, "Invalid argument (not an inode "
				 "number"), "%s", r.err);
	}
}

Test(cli, du_usage_errors)
{
	struct run r;

	run(&r, (const char *[]){ "du", "-Z", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "e2map: du: invalid option or missing "
			 "argument: '-Z'\nusage: e2map du "), "%s", r.err);
	run(&r, (const char *[]){ "du", "-as", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.err, "e2map: du: cannot both summarize and show "
			 "all entries\n");
	run(&r, (const char *[]){ "du", "-d", "x", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.err, "e2map: du: invalid maximum depth 'x'\n");
	run(&r, (const char *[]){ "du", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map du "));
	run(&r, (const char *[]){ "du", "/nonexistent.img", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: du: /nonexistent.img: "), "%s", r.err);
	cr_assert_str_empty(r.out);
	run(&r, (const char *[]){ "help", "du", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "--written"));
}

Test(cli, scan_usage_errors)
{
	struct run r;

	run(&r, (const char *[]){ "scan", "-Z", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "e2map: scan: invalid option or missing "
			 "argument: '-Z'\nusage: e2map scan "), "%s", r.err);
	run(&r, (const char *[]){ "scan", "--format", "xml", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "e2map: scan: invalid --format 'xml': not one "
			 "of table, jsonl, csv, body"), "%s", r.err);
	run(&r, (const char *[]){ "scan", "-d", "--deleted=x", "x.img",
				  NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map scan "), "%s", r.err);
	run(&r, (const char *[]){ "scan", "-d", "/nonexistent.img", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: scan: /nonexistent.img: "), "%s",
		  r.err);
	run(&r, (const char *[]){ "scan", "--top", "x", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.err, "e2map: scan: invalid count 'x'\n");
	run(&r, (const char *[]){ "scan", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map scan "));
	run(&r, (const char *[]){ "scan", "a.img", "/", "extra", NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "scan", "/nonexistent.img", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: scan: /nonexistent.img: "), "%s",
		  r.err);
	cr_assert_str_empty(r.out);
	run(&r, (const char *[]){ "help", "scan", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "--format") && strstr(r.out, "mactime"));
}

Test(cli, scan_hash_usage_errors)
{
	static const char *const bad[] = { "", "md4", "md5,", ",md5",
					   "md5,,sha1", "MD5", "sha256x" };
	struct run r;
	char want[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&r, (const char *[]){ "scan", "--hash", bad[i], "x.img",
					  NULL });
		snprintf(want, sizeof(want),
			 "e2map: scan: invalid digest list '%s'\n", bad[i]);
		cr_expect_eq(r.status, 2, "--hash '%s'", bad[i]);
		cr_expect_str_eq(r.err, want);
	}
	run(&r, (const char *[]){ "scan", "--hash-max", "lots", "x.img",
				  NULL });
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.err, "e2map: scan: invalid size 'lots'\n");
	run(&r, (const char *[]){ "scan", "--hash", NULL });
	cr_assert_eq(r.status, 2);
	/* Parsed before the image is opened: the image's error now. */
	run(&r, (const char *[]){ "scan", "--hash", "sha256,md5,sha1",
				  "--hash-max", "1G", "--format", "dfxml",
				  "/nonexistent.img", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: scan: /nonexistent.img: "), "%s",
		  r.err);
	run(&r, (const char *[]){ "help", "scan", NULL });
	cr_assert(strstr(r.out, "--hash ALGS") && strstr(r.out, "dfxml"));
}

Test(cli, cat_needs_a_path)
{
	struct run r;

	run(&r, (const char *[]){ "cat", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map cat "), "%s", r.err);
	run(&r, (const char *[]){ "cat", "--help", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "usage: e2map cat "));
	run(&r, (const char *[]){ "cat", "-z", "x.img", "/f", NULL });
	cr_assert_eq(r.status, 2);
}

Test(cli, cat_of_a_missing_image_is_one_line)
{
	struct run r;

	run(&r, (const char *[]){ "cat", "/nonexistent/x.img", "/f", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.out, "");
	cr_assert(!strncmp(r.err, "e2map: cat: /nonexistent/x.img: ", 32) &&
		  !strchr(r.err, '\n')[1], "%s", r.err);
}

/* cat's words, as GNU cat prints them, and the other files still printed. */
Test(cli, cat_goes_on_after_a_failure, .init = make_image,
     .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "cat", image, "/f", "/nope", "/", "/link",
				  "/a b:c", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.out, "hello\nhello\n");
	cr_assert_str_eq(r.err, "cat: /nope: No such file or directory\n"
			 "cat: /: Is a directory\n"
			 "cat: '/a b:c': No such file or directory\n");
	run(&r, (const char *[]){ "cat", "--no-follow", image, "/link", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.err, "cat: /link: Too many levels of symbolic "
			 "links\n");
	run(&r, (const char *[]){ "cat", "--why", image, "/nope", NULL });
	cr_assert(strstr(r.err, "cat: /nope: No such file or directory\n"
			 "e2map: cat: "), "%s", r.err);
}

Test(cli, extract_usage_errors)
{
	struct run r;

	run(&r, (const char *[]){ "extract", "x.img", "/f", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map extract [-r] [-p] "), "%s", r.err);
	run(&r, (const char *[]){ "extract", "-z", "x.img", "/f", "d", NULL });
	cr_assert_eq(r.status, 2);
}

Test(cli, history_and_recover_usage_errors)
{
	struct run r;

	run(&r, (const char *[]){ "history", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map history [--format table|jsonl] "),
		  "%s", r.err);
	run(&r, (const char *[]){ "history", "--format", "csv", "x.img", "/f",
				  NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "recover", "x.img", "d", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "which inodes?"), "%s", r.err);
	run(&r, (const char *[]){ "recover", "--all", "x.img", "<12>", "d",
				  NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "recover", "x.img", "12", "d", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "invalid inode '12'"), "%s", r.err);
}

/* history of a live file is its inode now; recover refuses a live one. */
Test(cli, history_and_recover_on_an_image, .init = make_image,
     .fini = remove_image)
{
	char dest[400];
	struct run r;

	need_image();
	snprintf(dest, sizeof(dest), "%s/rec", tmpdir);
	run(&r, (const char *[]){ "history", "--format", "jsonl", image, "/f",
				  NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "\"kind\":\"version\"") &&
		  strstr(r.out, "\"size\":6,"), "%s", r.out);
	run(&r, (const char *[]){ "history", image, "/nope", NULL });
	cr_assert_eq(r.status, 1);
	run(&r, (const char *[]){ "history", image, "<x>", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "invalid inode '<x>'"), "%s", r.err);
	run(&r, (const char *[]){ "recover", image, "<2>", dest, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: recover: <2>: "), "%s", r.err);
	run(&r, (const char *[]){ "recover", "--all", image, dest, NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(!strncmp(r.out, "INODE ", 6), "%s", r.out);
}

/* A failure names the entry and the step; the walk goes on; exit 1. */
Test(cli, extract_names_what_failed, .init = make_image,
     .fini = remove_image)
{
	char dest[400], file[420], got[8] = { 0 };
	struct run r;
	int fd;

	need_image();
	snprintf(dest, sizeof(dest), "%s/out", tmpdir);
	run(&r, (const char *[]){ "extract", image, "/", dest, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, ":/: not recursive: Is a directory\n"),
		  "%s", r.err);
	run(&r, (const char *[]){ "extract", "-q", image, "/nope", dest, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: extract: ") &&
		  strstr(r.err, ":/nope: lstat: No such file or directory"),
		  "%s", r.err);
	run(&r, (const char *[]){ "extract", "-r", "-p", image, "/", dest,
				  NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_empty(r.err);
	snprintf(file, sizeof(file), "%s/f", dest);
	cr_assert((fd = open(file, O_RDONLY)) >= 0);
	cr_assert_eq(read(fd, got, sizeof(got)), 6);
	close(fd);
	cr_assert_str_eq(got, "hello\n");
	snprintf(file, sizeof(file), "%s/link", dest);
	cr_assert_eq(readlink(file, got, sizeof(got)), 1);
}

Test(cli, tar_usage_errors)
{
	struct run r;

	run(&r, (const char *[]){ "tar", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map tar [-f ARCHIVE] "), "%s", r.err);
	run(&r, (const char *[]){ "tar", "-z", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "tar", "x.img", "/a", "/b", NULL });
	cr_assert_eq(r.status, 2);
}

/* The archive of a subtree: members named by the path, a failure named,
 * and an archive that cannot be written is one line and exit 1. */
Test(cli, tar_names_members_and_failures, .init = make_image,
     .fini = remove_image)
{
	char archive[400], cmd[900];
	struct run r;

	need_image();
	snprintf(archive, sizeof(archive), "%s/a.tar", tmpdir);
	run(&r, (const char *[]){ "tar", "-f", archive, image, "/nope", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, ":/nope: lstat: No such file or directory"),
		  "%s", r.err);
	run(&r, (const char *[]){ "tar", "-f", archive, image, NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_empty(r.err);
	snprintf(cmd, sizeof(cmd), "tar -xOf %s ./f | grep -qx hello && "
		 "tar -tf %s | grep -qx ./link", archive, archive);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	/* -f - is stdout, as GNU tar and bsdtar take it: no file named "-"
	 * (stdout's archive is padded to a 10 KiB record: the listings). */
	snprintf(cmd, sizeof(cmd), "cd %s && \"$E2MAP\" tar -f - %s > b.tar && "
		 "! test -e - && tar -tvf a.tar > a.lst && tar -tvf b.tar > "
		 "b.lst && test -s a.lst && cmp -s a.lst b.lst", tmpdir, image);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	run(&r, (const char *[]){ "tar", "-f", "/dev/full", image, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: tar: /dev/full: ") &&
		  strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		  "%s", r.err);
}

Test(cli, mount_usage_errors)
{
	struct run r;

	run(&r, (const char *[]){ "mount", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map mount [-f] [-o OPTIONS] "), "%s",
		  r.err);
	run(&r, (const char *[]){ "mount", "/nonexistent.img", "/tmp", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: mount: /nonexistent.img: "), "%s",
		  r.err);
}

/* A directory as IMAGE is named as one, by the commands that read a
 * filesystem and by partitions. */
Test(cli, image_errors, .init = make_image, .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "seek", "-d", tmpdir, "/f", "0", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, ": Is a directory\n"), "%s", r.err);
	run(&r, (const char *[]){ "partitions", tmpdir, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, ": Is a directory\n"), "%s", r.err);
}

/* mount(8) refuses a mount point that is no directory, and so does e2map
 * mount, before FUSE is asked (it mounted and left a broken mount). */
Test(cli, mount_refuses_a_file, .init = make_image, .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "mount", image, image, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, ": Not a directory\n"), "%s", r.err);
}

static bool fuse_here(void)
{
	return !access("/dev/fuse", R_OK | W_OK) &&
	       !system("command -v fusermount3 >/dev/null 2>&1");
}

/* `e2map mount -f IMAGE DIR` (no auto_unmount: a killed one stays dead). */
static pid_t mount_foreground(const char *dir)
{
	pid_t pid;

	cr_assert_null(fixture_fuse_mount(image, dir, NULL, &pid),
		       "the FUSE mount did not come up");
	return pid;
}

/* Mounted in the background at a relative DIR, a SIGTERM unmounts it and
 * the daemon ends; killed outright, it leaves a dead mount, which a
 * second mount refuses to hide; a foreground mount's Ctrl-C exits 0. */
Test(cli, mount_ends_cleanly, .init = make_image, .fini = remove_image,
     .timeout = 60)
{
	char cmd[1400], dir[400];
	struct stat top, in;
	struct run r;
	int status;
	pid_t pid;

	need_image();
	if (!fuse_here() || !getenv("E2MAP"))
		cr_skip_test("no /dev/fuse, fusermount3 or $E2MAP");
	snprintf(dir, sizeof(dir), "%s/d", tmpdir);
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_eq(stat(dir, &top), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && \"$E2MAP\" mount %s d", tmpdir,
		 image);
	if (system(cmd) != 0)
		cr_skip_test("e2map mount failed here (FUSE refused?)");
	cr_assert(stat(dir, &in) == 0 && in.st_dev != top.st_dev);
	snprintf(cmd, sizeof(cmd), "pkill -TERM -xf '\"?%s\"? mount %s d'; "
		 "for i in $(seq 100); do mountpoint -q %s || exit 0; "
		 "sleep 0.05; done; fusermount3 -uz %s; exit 1",
		 getenv("E2MAP"), image, dir, dir);
	cr_expect_eq(system(cmd), 0, "a SIGTERM left %s mounted", dir);

	pid = mount_foreground(dir);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	run(&r, (const char *[]){ "mount", image, dir, NULL });
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.err, "Transport endpoint is not connected"), "%s",
		  r.err);
	snprintf(cmd, sizeof(cmd), "fusermount3 -uz %s", dir);
	cr_assert_eq(system(cmd), 0);

	pid = mount_foreground(dir);
	kill(pid, SIGINT);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "Ctrl-C: status %#x", status);
	cr_expect(stat(dir, &in) == 0 && in.st_dev == top.st_dev,
		  "still mounted after Ctrl-C");
}

/* owner: each block's line, in the order asked; a bad one said, exit 1. */
Test(cli, owner_names_each_block, .init = make_image, .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "owner", NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "owner", image, "2", "1", "1t", "x", "0x",
				  NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(!strncmp(r.out, "2: ", 3) && strstr(r.out, "\n1: "),
		  "%s", r.out);
	cr_assert(strstr(r.err, "owner: 1t: no such block") &&
		  strstr(r.err, "owner: x: invalid number\n") &&
		  strstr(r.err, "owner: 0x: invalid number\n"), "%s", r.err);
	run(&r, (const char *[]){ "blockmap", "--format", "xml", image,
				  NULL });
	cr_assert_eq(r.status, 2);
}

/*
 * owner echoes each NUMBER as typed; --byte adds the block; each path
 * follows a tab; block 0 of a 1 KiB filesystem is "boot", bigalloc or not.
 */
Test(cli, owner_lines_say_what_was_asked)
{
	static const char *const names[] = { "ext4-1k", "metabg-0-bigalloc" };
	char *img = fixture_image("ext4-links"), want[256];
	struct run r;

	cr_assert(img);
	run(&r, (const char *[]){ "owner", img, "0x50a", NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_eq(r.out, "0x50a: data inode 13 offset 0\t/big\n");
	run(&r, (const char *[]){ "owner", "--byte", img, "0x50a003", NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_eq(r.out, "0x50a003: data inode 13 offset 3 block 1290"
			 "\t/big\n");
	fixture_remove(img);
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		cr_assert((img = fixture_image(names[i])));
		run(&r, (const char *[]){ "owner", img, "0", NULL });
		snprintf(want, sizeof(want), "0: boot\n");
		cr_expect_str_eq(r.out, want, "%s", names[i]);
		fixture_remove(img);
	}
}

/*
 * An image the kernel refuses to mount: refused with the kernel's reason;
 * --unmountable answers past it, with one warning naming the refusal.
 */
Test(cli, unmountable_reads_past_the_refusal)
{
	char *img = fixture_image("mount-root-file");
	struct run r;

	cr_assert(img);
	run(&r, (const char *[]){ "du", "-s", img, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "corrupt root inode, run e2fsck"), "%s", r.err);
	cr_assert_str_empty(r.out);
	run(&r, (const char *[]){ "du", "-s", "--unmountable", img, NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "warning: ") && strstr(r.err, "opened past the "
		  "kernel's refusal to mount it (Filesystem metadata is "
		  "corrupted: corrupt root inode, run e2fsck") &&
		  strstr(r.err, "beyond the kernel\n"), "%s", r.err);
	cr_assert_str_eq(r.out, "1\t/\n");
	fixture_remove(img);
}

Test(cli, partitions_usage_errors)
{
	struct run r;

	run(&r, (const char *[]){ "partitions", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.err, "usage: e2map partitions [--json] IMAGE\n");
	run(&r, (const char *[]){ "partitions", "a.img", "b.img", NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "partitions", "--offset", "1", "a.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "invalid option or missing argument: "
			 "'--offset'"), "%s", r.err);
	run(&r, (const char *[]){ "partitions", "/nonexistent.img", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.err, "e2map: partitions: /nonexistent.img: No such "
			 "file or directory\n");
	cr_assert_str_empty(r.out);
	run(&r, (const char *[]){ "help", "partitions", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "libblkid"), "%s", r.out);
}

Test(cli, bad_partition_number_is_usage)
{
	static const char *const bad[] = { "0", "-1", "x", "1x", "", NULL };
	struct run r;
	char want[128];

	for (int i = 0; bad[i]; i++) {
		run(&r, (const char *[]){ "check", "--partition", bad[i],
					  "x.img", NULL });
		cr_assert_eq(r.status, 2, "--partition '%s'", bad[i]);
		snprintf(want, sizeof(want), "e2map: check: invalid --partition "
			 "'%s'\n", bad[i]);
		cr_assert_str_eq(r.err, want);
	}
}

Test(cli, partitions_of_a_bare_image, .init = make_image,
     .fini = remove_image)
{
	struct run r;
	char want[512];

	need_image();
	run(&r, (const char *[]){ "partitions", image, NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof(want), "%s: raw, 4194304 bytes, 8192 sectors, no "
		 "partition table\n", image);
	cr_assert_str_eq(r.out, want);
	run(&r, (const char *[]){ "partitions", "--json", image, NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "\"table\":null,\"table_id\":\"\","
			 "\"partitions\":[]}"), "%s", r.out);
	run(&r, (const char *[]){ "seek", "-d", "--partition", "1", image,
				  "/f", "0", NULL });
	cr_assert_eq(r.status, 1);
	assert_one_error_line(&r);
	cr_assert(strstr(r.err, "no partition 1 on this unpartitioned disk"),
		  "%s", r.err);
	run(&r, (const char *[]){ "seek", "-d", "--partition", "1", "--offset",
				  "1k", image, "/f", "0", NULL });
	cr_assert_eq(r.status, 2);	/* a usage error */
	cr_assert(strstr(r.err, "--offset and --partition together"), "%s",
		  r.err);
}

/* diff: usage errors, then pairs that are not one filesystem, refused. */
Test(cli, diff_usage_and_refusals)
{
	char *a4 = fixture_image("diff-4k-a"), *a1 = fixture_image("diff-1k-a");
	char *in = fixture_image("diff-inline-a");
	struct run r;

	cr_assert(a4 && a1 && in);
	run(&r, (const char *[]){ "diff", "x.img", NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: e2map diff [--format table|jsonl|csv] "
			 "[--bytes]"), "%s", r.err);
	run(&r, (const char *[]){ "diff", "--format", "json", a4, a4, NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "diff", "--offset-a", "x", a4, a4, NULL });
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "invalid --offset 'x'"), "%s", r.err);
	run(&r, (const char *[]){ "diff", "--partition-b", "0", a4, a4,
				  NULL });
	cr_assert_eq(r.status, 2);
	run(&r, (const char *[]){ "diff", a4, in, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: diff: Invalid argument (UUIDs "
			 "differ"), "%s", r.err);
	cr_assert_eq(r.out[0], 0, "%s", r.out);
	run(&r, (const char *[]){ "diff", "--force", a4, a1, NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "block sizes differ (4096 and 1024)"), "%s",
		  r.err);
	run(&r, (const char *[]){ "diff", a4, "/nonexistent.img", NULL });
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "e2map: diff: /nonexistent.img: "), "%s",
		  r.err);
	fixture_remove(a4);
	fixture_remove(a1);
	fixture_remove(in);
}

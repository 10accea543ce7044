/*
 * The CLI's argument handling, without kernel data: exit statuses (2 for
 * usage, 1 for failures), one-line "e2map: ..." errors, --version, help.
 * The binary comes from $E2MAP (set by `make check`); a small image for
 * the cases that need one is made with mkfs.ext4 -d (no root needed).
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <fcntl.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
	assert_one_error_line(&r);
	cr_assert(strstr(r.err, "e2map: seek: /nonexistent/e2map.img: "));
	cr_assert_str_empty(r.out);
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

Test(cli, missing_file_exits_1, .init = make_image, .fini = remove_image)
{
	struct run r;

	need_image();
	run(&r, (const char *[]){ "fiemap", image, "/nosuch", NULL });
	cr_assert_eq(r.status, 1);
	assert_one_error_line(&r);
	cr_assert(strstr(r.err, ":/nosuch: "));
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
	run(&r, (const char *[]){ "filefrag", image, "/f", "/nosuch", "/",
				  NULL });
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.out, "/f: 1 extent found\n/: 1 extent found\n");
	assert_one_error_line(&r);
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
		cr_assert_eq(r.status, 1, "%s: %s", cmds[c][0], r.err);
		assert_one_error_line(&r);
		cr_assert(strstr(r.err, ":/link: Too many levels of symbolic "
				 "links"), "%s", r.err);
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

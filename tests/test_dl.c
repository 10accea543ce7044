/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Libraries loaded on demand (lib/base/dl.c, cmd/dl.c): the binary needs
 * none of the container, digest, tar and FUSE libraries, a command on a
 * raw image loads none of them, each is loaded by what asks for it, and a
 * library that cannot be loaded is one clear line, not a crash.  Watched
 * through the dynamic loader's own log (LD_DEBUG=files) of the real binary:
 * the test program itself links libcrypto through Criterion.
 */
#include <criterion/criterion.h>

#include "base.h"
#include "cli_run.h"
#include "fixture.h"
#include "../cmd/cmd.h"
#include "../cmd/dl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every library e2map loads on demand, by the soname it asks for. */
static const char *const optional[] = {
	E2MAP_SO_LIBEWF, E2MAP_SO_LIBVMDK, E2MAP_SO_LIBBFIO, E2MAP_SO_LIBVHDI,
	E2MAP_SO_LIBQCOW, E2MAP_SO_LIBCRYPTO, E2MAP_SO_LIBARCHIVE,
	E2MAP_SO_FUSE3,
};
#define NOPT (sizeof(optional) / sizeof(optional[0]))

static const char *e2map_bin(void)
{
	const char *e = getenv("E2MAP");

	if (!e)
		cr_skip_test("E2MAP is not set (run through make check)");
	return e;
}

/* The output of the shell command CMD, whole (malloc'd). */
static char *slurp_cmd(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 1 << 16, n = 0, got;
	char *s = malloc(cap);

	cr_assert(p && s, "%s", cmd);
	while ((got = fread(s + n, 1, cap - 1 - n, p)) > 0)
		if ((n += got) == cap - 1 && !(s = realloc(s, cap *= 2)))
			cr_assert_fail("out of memory");
	s[n] = '\0';
	pclose(p);
	return s;
}

/* What the dynamic loader loaded for `e2map ARGS` (its LD_DEBUG log). */
static char *loaded_by(const char *args)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "LD_DEBUG=files '%s' %s 2>&1 >/dev/null",
		 e2map_bin(), args);
	return slurp_cmd(cmd);
}

static bool has_file(const char *log, const char *soname)
{
	char pat[128];

	snprintf(pat, sizeof(pat), "file=%s ", soname);
	return strstr(log, pat) != NULL;
}

Test(dl, binary_needs_none_of_them)
{
	char cmd[4200];
	char *s;

	snprintf(cmd, sizeof(cmd), "objdump -p '%s'", e2map_bin());
	s = slurp_cmd(cmd);
	if (!strstr(s, "NEEDED"))
		cr_skip_test("objdump printed no NEEDED entry");
	cr_assert(strstr(s, "libext2fs.so"), "%s", s);
	for (size_t i = 0; i < NOPT; i++)
		cr_expect(!strstr(s, optional[i]), "e2map needs %s", optional[i]);
	free(s);
}

Test(dl, raw_image_loads_none)
{
	char *img = fixture_image("sample"), args[4200];
	char *s;

	cr_assert(img);
	snprintf(args, sizeof(args), "seek -d '%s' /hello.txt 0", img);
	s = loaded_by(args);
	cr_assert(has_file(s, "libext2fs.so.2"), "no loader log: %s", s);
	for (size_t i = 0; i < NOPT; i++)
		cr_expect(!has_file(s, optional[i]), "seek loaded %s",
			  optional[i]);
	free(s);
	fixture_remove(img);
}

/* Each is loaded by the command (or the image) that asks for it. */
static void expect_loads(const char *args, const char *soname)
{
	char *s = loaded_by(args);

	cr_expect(has_file(s, soname), "%s did not load %s", args, soname);
	for (size_t i = 0; i < NOPT; i++)
		if (strcmp(optional[i], soname) &&
		    strcmp(optional[i], E2MAP_SO_LIBBFIO))
			cr_expect(!has_file(s, optional[i]), "%s loaded %s too",
				  args, optional[i]);
	free(s);
}

Test(dl, each_by_what_asks)
{
	char *img = fixture_image("sample"), args[4200];
	char dir[] = "/tmp/e2map-dl.XXXXXX";

	cr_assert(img && mkdtemp(dir));
	snprintf(args, sizeof(args), "scan -q --hash sha256 '%s'", img);
	expect_loads(args, E2MAP_SO_LIBCRYPTO);
	snprintf(args, sizeof(args), "tar -f %s/a.tar '%s' /", dir, img);
	expect_loads(args, E2MAP_SO_LIBARCHIVE);
	/* No mount point: mount fails after loading libfuse3. */
	snprintf(args, sizeof(args), "mount '%s' %s/none", img, dir);
	expect_loads(args, E2MAP_SO_FUSE3);
	snprintf(args, sizeof(args), "rm -rf '%s'", dir);
	cr_assert_eq(system(args), 0);
	fixture_remove(img);
}

Test(dl, container_loads_its_library)
{
	const char *dir = getenv("E2MAP_DISKS");
	char args[4200], path[4096];

	if (!dir)
		cr_skip_test("E2MAP_DISKS is not set (run through make check)");
	snprintf(path, sizeof(path), "%s/gpt.E01", dir);
	if (access(path, R_OK) < 0)
		cr_skip_test("%s was not made (ewfacquire missing?)", path);
	snprintf(args, sizeof(args), "partitions '%s'", path);
	expect_loads(args, E2MAP_SO_LIBEWF);
	snprintf(path, sizeof(path), "%s/gpt.qcow2", dir);
	if (access(path, R_OK) < 0)
		cr_skip_test("%s was not made (qemu-img missing?)", path);
	snprintf(args, sizeof(args), "partitions '%s'", path);
	expect_loads(args, E2MAP_SO_LIBQCOW);
}

Test(dl, missing_library_is_one_reason)
{
	static int (*fn)(void);
	static const struct e2map_dlsym syms[] = { { "nothing", 0 } };
	struct e2map_dlib lib = {
		.what = "a test", .soname = "libe2map-absent.so.9",
		.package = "nopkg", .syms = syms, .count = 1, .table = &fn,
	};

	for (int i = 0; i < 2; i++) {
		cr_assert_eq(e2map__dlib_load(&lib), -ENOTSUP);
		cr_expect(strstr(e2map_errmsg(NULL), "a test needs "
				 "libe2map-absent.so.9 (Debian package nopkg)"),
			  "%s", e2map_errmsg(NULL));
	}
	cr_expect_null(fn);
}

Test(dl, cli_missing_library_is_one_line)
{
	static const struct cmd_dlsym syms[] = { { "nothing", 0 } };
	static int (*fn)(void);
	struct cmd_dlib lib = { "libe2map-absent.so.9", "nopkg", syms, 1, &fn,
				false };
	char tmpl[] = "/tmp/e2map-dl-err.XXXXXX", line[512];
	int fd = mkstemp(tmpl), saved = dup(2);
	FILE *f;

	cr_assert(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	cr_expect_eq(cmd_dl_load(&lib, "tar"), CMD_EXIT_FAIL);
	dup2(saved, 2);
	f = fdopen(fd, "r");
	rewind(f);
	cr_assert(fgets(line, sizeof(line), f));
	cr_expect(!strncmp(line, "e2map: tar: needs libe2map-absent.so.9 "
			   "(Debian package nopkg): ", 55), "%s", line);
	cr_expect(!fgets(line, sizeof(line), f), "a second line: %s", line);
	fclose(f);
	unlink(tmpl);
	cr_expect(!lib.loaded);
}

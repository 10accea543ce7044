/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map check` on kernel-made images: what it counts as an error (the
 * expected answers: `e2fsck -fn` is clean on the image, or the kernel
 * recorded the faults) and its exit status.
 */
#include <criterion/criterion.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "cli_run.h"
#include "fixture.h"

static char *img;

static void unpack(const char *name)
{
	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	img = fixture_image(name);
	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
}

static void cleanup(void)
{
	fixture_remove(img);
	img = NULL;
}

/* Every line of OUT but the summary ends in ": ok" or " ok". */
static int error_lines(const char *out)
{
	int n = 0;

	for (const char *l = out; *l; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len < 3 || memcmp(l + len - 3, " ok", 3))
			n++;
		l += len + (nl != NULL);
	}
	return n;
}

TestSuite(check, .timeout = 60, .fini = cleanup);

/*
 * mkfs.ext4 -O ea_inode, xattr values of 8000 and 20000 bytes set on the
 * mount (scripts/gen/mknames.sh): e2fsck -fn is clean, so check must be too;
 * the EA inodes are walked as their parents' xattr values.
 */
Test(check, ea_inodes_are_valid_metadata)
{
	struct cli_out r;

	unpack("ext4-ea_inode");
	cr_assert_eq(cli_run((const char *[]){ "check", img, NULL }, &r), 0);
	cr_expect_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect_str_empty(r.err);
	cr_expect(strstr(r.out, "16 inodes, 0 errors\n"), "%s", r.out);
	/* The summary is the one line not ending in "ok". */
	cr_expect_eq(error_lines(r.out), 1, "%s", r.out);
	cr_expect(strstr(r.out, "<14> ea_inode"), "%s", r.out);
	cli_out_free(&r);
}

/* ---- the inodes that fail, against the kernel's recorded answers ---- */

struct pathset {
	char *v[256];
	size_t n;
};

static void pathset_add(struct pathset *s, const char *p, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && !memcmp(s->v[i], p, len))
			return;
	cr_assert_lt(s->n, 256);
	s->v[s->n++] = strndup(p, len);
}

static bool pathset_has(const struct pathset *s, const char *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], p))
			return true;
	return false;
}

static void pathset_free(struct pathset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

/*
 * Paths where the kernel answered a call (or the open) with corruption:
 * EUCLEAN, EBADMSG or EIO in testdata/NAME.calls.
 */
static void kernel_failures(const char *name, struct pathset *out)
{
	char file[4096], *text, *line, *save = NULL, path[4096] = "";
	size_t len;

	snprintf(file, sizeof(file), "%s/%s.calls", fixture_testdata(), name);
	cr_assert(text = calls_read_file(file, &len), "no %s(.gz)", file);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *eq = strstr(line, " = ");

		if (!strncmp(line, "open ", 5) && eq)
			snprintf(path, sizeof(path), "%.*s",
				 (int)(eq - line - 5), line + 5);
		if (eq && (!strncmp(eq, " = -EUCLEAN", 11) ||
			   !strncmp(eq, " = -EBADMSG", 11) ||
			   !strncmp(eq, " = -EIO", 7)))
			pathset_add(out, path, strlen(path));
	}
	free(text);
}

/* The PATH of each "<INO> KIND PATH: REASON" line of check -q. */
static void check_failures(const char *out, struct pathset *set)
{
	for (const char *l = out; *l && *l == '<'; ) {
		const char *kind_end = strchr(strchr(l, ' ') + 1, ' ');
		const char *colon = strstr(l, ": "), *nl = strchr(l, '\n');

		cr_assert(colon && nl, "bad line: %s", l);
		if (kind_end && kind_end < colon)
			pathset_add(set, kind_end + 1,
				    (size_t)(colon - kind_end - 1));
		l = nl + 1;
	}
}

static void compare_failures(const char *name, int want_status)
{
	struct pathset kernel = { 0 }, e2map = { 0 };
	struct cli_out r;

	kernel_failures(name, &kernel);
	unpack(name);
	cr_assert_eq(cli_run((const char *[]){ "check", "-q", img, NULL }, &r),
		     0);
	cr_expect_eq(r.status, want_status, "%s: exit %d: %s", name, r.status,
		     r.out);
	check_failures(r.out, &e2map);
	for (size_t i = 0; i < kernel.n; i++)
		cr_expect(pathset_has(&e2map, kernel.v[i]), "%s: the kernel "
			  "fails on %s, check does not", name, kernel.v[i]);
	for (size_t i = 0; i < e2map.n; i++)
		cr_expect(pathset_has(&kernel, e2map.v[i]), "%s: check fails on "
			  "%s, the kernel does not", name, e2map.v[i]);
	cr_expect_eq(kernel.n == 0, want_status == 0);
	pathset_free(&kernel);
	pathset_free(&e2map);
	cli_out_free(&r);
}

/* One fault per file (scripts/gen/mkcorrupt.sh): exit 1, each named. */
Test(check, corrupt_image_exits_1_naming_the_kernels_failures)
{
	compare_failures("corrupt-4k", 1);
}

Test(check, clean_image_exits_0)
{
	compare_failures("ext4-4k", 0);
}

Test(check, clean_names_image_exits_0)
{
	compare_failures("ext4-names", 0);
}

/* Each line names the inode's first path; unnamed inodes have none. */
Test(check, lines_carry_the_first_path)
{
	struct cli_out r;

	unpack("ext4-names");
	cr_assert_eq(cli_run((const char *[]){ "check", img, NULL }, &r), 0);
	cr_expect(strstr(r.out, "<2> directory /: ok\n"), "%s", r.out);
	cr_expect(strstr(r.out, "<8> regular: ok\n"), "%s", r.out);
	cr_expect(strstr(r.out, " /utf8/tab\\x09here: ok\n"), "%s", r.out);
	cr_expect(strstr(r.out, " /bad/\xff: ok\n"), "%s", r.out);
	cli_out_free(&r);
}

/*
 * `e2map check` on kernel-made images: what it counts as an error (the
 * expected answers: `e2fsck -fn` is clean on the image, or the kernel
 * recorded the faults) and its exit status.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

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
 * mount (scripts/mknames.sh): e2fsck -fn is clean, so check must be too;
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

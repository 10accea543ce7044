/*
 * Inode numbers and names against the kernel's mount, as recorded by
 * scripts/record-paths.sh: NAME.handles (open_by_handle_at on every file
 * and directory in use, which e2map_file_open_ino mirrors) and NAME.paths
 * (every name `find` shows, which the path table must list).
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "fixture.h"

static char *img;
static e2map_t *m;

static void open_image(const char *name)
{
	img = fixture_image(name);
	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", e2map_errmsg(NULL));
}

static void cleanup(void)
{
	e2map_close(m);
	m = NULL;
	fixture_remove(img);
	img = NULL;
}

/* testdata/NAME.EXT(.gz), whole; LEN its length. */
static char *recording(const char *name, const char *ext, size_t *len)
{
	char path[4096];
	char *text;

	snprintf(path, sizeof(path), "%s/%s.%s", fixture_testdata(), name, ext);
	text = calls_read_file(path, len);
	cr_assert(text, "no recording %s(.gz)", path);
	return text;
}

/* "ENAME" for -errno, "0" for 0. */
static const char *result_name(int err)
{
	return err ? calls_errname(-err) : "0";
}

/*
 * Every "INO RESULT" line against e2map_file_open_ino: success where the
 * kernel opened the handle, failure where it did not.  exportfs_decode_fh
 * folds every iget error into ESTALE, so the errno must match only with
 * EXACT; e2map reports the iget's own (EUCLEAN, EBADMSG...).  Inodes below
 * s_first_ino but the root are left out: the kernel's handles refuse them,
 * e2map keeps debugfs's meaning (<8> is the journal).
 */
static bool same(const char *want, int err, bool exact)
{
	if (exact || !strcmp(want, "0") || !err)
		return !strcmp(want, result_name(err));
	return true;
}

static void compare_handles(const char *name, bool exact)
{
	size_t len;
	char *text = recording(name, "handles", &len), *line, *save = NULL;
	int n = 0, bad = 0;

	open_image(name);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long ino;
		char want[32];
		e2map_file_t *f;
		int err;

		cr_assert_eq(sscanf(line, "%llu %31s", &ino, want), 2, "%s", line);
		if (ino != 2 && ino < 11)
			continue;
		err = e2map_file_open_ino(m, ino, &f);
		e2map_file_close(f);
		n++;
		if (!same(want, err, exact)) {
			cr_log_error("%s: <%llu>: kernel %s, e2map %s (%s)", name,
				     ino, want, result_name(err), e2map_errmsg(m));
			bad++;
		}
	}
	free(text);
	cr_expect_gt(n, 0, "%s: no handles recorded", name);
	cr_expect_eq(bad, 0, "%s: %d of %d handle opens differ", name, bad, n);
}

TestSuite(handles, .timeout = 60, .fini = cleanup);

/* An EA inode holds a parent's xattr value: a handle to it is stale. */
Test(handles, ea_inode_is_stale_by_number)
{
	compare_handles("ext4-ea_inode", true);
}

Test(handles, names_image)
{
	compare_handles("ext4-names", false);
}

Test(handles, ext4_4k)
{
	compare_handles("ext4-4k", false);
}

Test(handles, ext3_1k)
{
	compare_handles("ext3-1k", false);
}

Test(handles, corrupt_4k)
{
	compare_handles("corrupt-4k", false);
}

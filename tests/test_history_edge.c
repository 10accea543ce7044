/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal's past on images the generator does not make: made here
 * with mkfs.ext4 (and debugfs where a file must change), no mount needed.
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tmpimg {
	char dir[64];
	char img[96];
};

/* A fresh image of mkfs.ext4 OPTS and SIZE; skipped where mkfs fails. */
static void make_image(struct tmpimg *t, const char *opts, const char *size)
{
	char cmd[512];

	snprintf(t->dir, sizeof(t->dir), "/tmp/e2map-hedge-XXXXXX");
	cr_assert(mkdtemp(t->dir));
	snprintf(t->img, sizeof(t->img), "%s/i.img", t->dir);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s %s %s >/dev/null 2>&1",
		 opts, t->img, size);
	if (system(cmd) != 0)
		cr_skip_test("mkfs.ext4 %s failed here", opts);
}

static void remove_image(struct tmpimg *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	cr_assert_eq(system(cmd), 0);
}

static int no_bad_csum(const struct e2map_version *v, void *arg)
{
	(*(unsigned *)arg)++;
	cr_expect_not(v->flags & E2MAP_COPY_CSUM_BAD,
		      "tid %u: a good inode called csum-bad", v->tid);
	return 0;
}

/*
 * Inodes of 2048 bytes (mkfs -I takes up to the block size): the checksum
 * covers all of them, more than a version keeps of its raw inode.  The
 * root mkfs wrote is good.
 */
Test(history_edge, large_inodes_checksum)
{
	struct tmpimg t;
	e2map_journal_t *j;
	unsigned n = 0;
	e2map_t *m;

	make_image(&t, "-b 4096 -I 2048 -O metadata_csum -J size=4", "16M");
	cr_assert_eq(e2map_open(t.img, NULL, &m), 0);
	cr_assert_eq(e2map_journal_open(m, &j), 0);
	cr_assert_eq(e2map_inode_history(j, 2, no_bad_csum, &n), 0);
	cr_expect_eq(n, 1);
	e2map_journal_close(j);
	e2map_close(m);
	remove_image(&t);
}

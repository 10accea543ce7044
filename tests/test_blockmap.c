/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_blockmap_build against debugfs on testdata images (e2fsprogs'
 * own reading of the same bytes, as issue 10 asks):
 *  - the map covers every block from s_first_data_block to the end, in
 *    order, without gaps;
 *  - `testb` of every block: free ranges are exactly the blocks the
 *    bitmap marks free;
 *  - `icheck` of every block an inode owns: debugfs names one of the
 *    inodes the map gives that block, and finds no owner for none of them.
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

struct map {
	e2map_t *m;
	e2map_blockmap_t *b;
	char *img;
	uint64_t first, total;
};

static void load(struct map *mp, const char *name)
{
	struct e2map_statfs sf;
	const struct e2map_owner *o;

	mp->img = fixture_image(name);
	cr_assert(mp->img, "cannot unpack testdata/%s.img.gz", name);
	cr_assert_eq(e2map_open(mp->img, NULL, &mp->m), 0);
	cr_assert_eq(e2map_blockmap_build(mp->m, &mp->b), 0, "%s",
		     e2map_errmsg(mp->m));
	cr_assert_eq(e2map_statfs(mp->m, &sf), 0);
	cr_assert_gt(e2map_blockmap_count(mp->b), 0);
	o = e2map_blockmap_get(mp->b, 0);
	mp->first = o->start;
	o = e2map_blockmap_get(mp->b, e2map_blockmap_count(mp->b) - 1);
	mp->total = o->start + o->count;
}

static void unload(struct map *mp)
{
	e2map_blockmap_free(mp->b);
	e2map_close(mp->m);
	fixture_remove(mp->img);
}

/* Ranges in order, each block covered, the lookup finding each. */
static void check_cover(struct map *mp)
{
	uint64_t at = mp->first, blk;
	size_t i, n = e2map_blockmap_count(mp->b), idx;

	cr_expect_leq(mp->first, 1);
	for (i = 0; i < n; i++) {
		const struct e2map_owner *o = e2map_blockmap_get(mp->b, i);

		cr_assert_leq(o->start, at, "gap before %" PRIu64, o->start);
		cr_assert_gt(o->count, 0);
		if (o->start + o->count > at)
			at = o->start + o->count;
	}
	for (blk = mp->first; blk < mp->total; blk += 7) {
		const struct e2map_owner *o = e2map_blockmap_find(mp->b, blk,
								  &idx);

		cr_assert(o && blk - o->start < o->count, "block %" PRIu64,
			  blk);
		cr_assert_eq(o, e2map_blockmap_get(mp->b, idx));
	}
	cr_expect_null(e2map_blockmap_find(mp->b, mp->total, NULL));
}

static FILE *debugfs(const char *img, const char *cmdfile)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "debugfs -f %s %s 2>/dev/null", cmdfile,
		 img);
	return popen(cmd, "r");
}

/* testb of every block: "Block N marked in use" / "Block N not in use". */
static void check_free(struct map *mp)
{
	char cmdfile[] = "/tmp/e2map-bm-XXXXXX", line[256];
	int fd = mkstemp(cmdfile), seen = 0;
	unsigned long long blk;
	FILE *f;

	uint64_t from = mp->first ? mp->first : 1;	/* debugfs refuses 0 */

	cr_assert_geq(fd, 0);
	dprintf(fd, "testb %" PRIu64 " %" PRIu64 "\n", from, mp->total - from);
	close(fd);
	cr_assert((f = debugfs(mp->img, cmdfile)));
	while (fgets(line, sizeof(line), f)) {
		const struct e2map_owner *o;

		if (sscanf(line, "Block %llu", &blk) != 1)
			continue;
		o = e2map_blockmap_find(mp->b, blk, NULL);
		cr_assert(o, "block %llu not in the map", blk);
		cr_expect_eq(strstr(line, "not in use") != NULL,
			     o->kind == E2MAP_OWNER_FREE, "block %llu: %s is "
			     "%s", blk, e2map_owner_kind_name(o->kind), line);
		seen++;
	}
	pclose(f);
	unlink(cmdfile);
	cr_assert_eq((uint64_t)seen, mp->total - from);
}

/* Whether INO owns BLK in some range (shared xattr blocks have several). */
static bool owns(struct map *mp, uint64_t blk, uint64_t ino)
{
	size_t i, n = e2map_blockmap_count(mp->b);

	for (i = 0; i < n; i++) {
		const struct e2map_owner *o = e2map_blockmap_get(mp->b, i);

		if (o->ino == ino && blk - o->start < o->count)
			return true;
	}
	return false;
}

/* icheck of every block an inode owns, 200 blocks a command line. */
static void check_icheck(struct map *mp)
{
	char cmdfile[] = "/tmp/e2map-bm-XXXXXX", line[8192];
	int fd = mkstemp(cmdfile), on_line = 0, asked = 0, answered = 0;
	size_t i, n = e2map_blockmap_count(mp->b);
	unsigned long long blk, ino;
	FILE *f;

	cr_assert_geq(fd, 0);
	for (i = 0; i < n; i++) {
		const struct e2map_owner *o = e2map_blockmap_get(mp->b, i);
		uint64_t b;

		for (b = o->start; o->ino && b < o->start + o->count; b++) {
			dprintf(fd, "%s %" PRIu64, on_line ? "" : "icheck", b);
			if (++on_line == 200) {
				dprintf(fd, "\n");
				on_line = 0;
			}
			asked++;
		}
	}
	dprintf(fd, "\n");
	close(fd);
	cr_assert_gt(asked, 0);
	cr_assert((f = debugfs(mp->img, cmdfile)));
	while (fgets(line, sizeof(line), f)) {
		/* "BLOCK<tab>INODE"; the echoed command lines have no tab */
		if (!strchr(line, '\t') || !strncmp(line, "debugfs", 7))
			continue;
		if (sscanf(line, "%llu\t%llu", &blk, &ino) == 2) {
			cr_expect(owns(mp, blk, ino), "block %llu: debugfs "
				  "says inode %llu", blk, ino);
			answered++;
		} else if (sscanf(line, "%llu\t<block not found>", &blk) == 1) {
			cr_expect_fail("block %llu: debugfs finds no owner",
				       blk);
			answered++;
		}
	}
	pclose(f);
	unlink(cmdfile);
	cr_expect_eq(answered, asked, "%d asked, %d answered", asked,
		     answered);
}

static void image(const char *name)
{
	struct map mp;

	if (system("command -v debugfs >/dev/null 2>&1"))
		cr_skip_test("no debugfs (Debian's e2fsprogs)");
	load(&mp, name);
	check_cover(&mp);
	check_free(&mp);
	check_icheck(&mp);
	unload(&mp);
}

TestSuite(blockmap, .timeout = 120);

Test(blockmap, ext4_4k) { image("ext4-4k"); }
Test(blockmap, ext4_1k) { image("ext4-1k"); }
Test(blockmap, ext2_1k) { image("ext2-1k"); }
Test(blockmap, ext3_1k) { image("ext3-1k"); }
Test(blockmap, ext4_noextents) { image("ext4-noextents"); }
Test(blockmap, ext4_bigalloc) { image("ext4-bigalloc"); }
Test(blockmap, ext4_inline) { image("ext4-inline"); }
Test(blockmap, xattr_4k) { image("xattr-4k"); }
Test(blockmap, special_1k) { image("special-1k"); }
Test(blockmap, ext4_deep) { image("ext4-deep"); }

/* Damaged images: the map is built (or the build fails cleanly) and still
 * covers every block in order; under the sanitizers, no bad read. */
Test(blockmap, corpus_images_map_whole, .timeout = 300)
{
	char **paths;
	int n = fixture_corpus_list(&paths), built = 0;

	cr_assert_geq(n, 113);
	for (int i = 0; i < n; i++) {
		char *img = fixture_decompress(paths[i]);
		struct map mp = { .img = img };
		int err;

		cr_assert(img, "cannot unpack %s", paths[i]);
		if (e2map_open(img, NULL, &mp.m) == 0) {
			err = e2map_blockmap_build(mp.m, &mp.b);
			cr_expect(err == 0 || err == -ENOMEM || err == -EIO,
				  "%s: %d", paths[i], err);
			if (err == 0 && e2map_blockmap_count(mp.b)) {
				const struct e2map_owner *o =
					e2map_blockmap_get(mp.b,
					e2map_blockmap_count(mp.b) - 1);

				mp.first = e2map_blockmap_get(mp.b, 0)->start;
				mp.total = o->start + o->count;
				check_cover(&mp);
				built++;
			}
			e2map_blockmap_free(mp.b);
			e2map_close(mp.m);
		}
		fixture_remove(img);
	}
	cr_expect_gt(built, 80);
	fixture_corpus_free(paths, n);
}

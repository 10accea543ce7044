/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Library behaviour that needs no kernel recording: bad input gets a clear
 * error and never a crash, lookups stay within depth + 1 metadata reads,
 * options work, and the image is never written.  (Every answer the kernel
 * gives is checked by test_replay.c against its recordings instead.)
 */
#include <criterion/criterion.h>

#include <e2map.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"

static char *img;
static char digest[65];

static void setup_sample(void)
{
	img = fixture_image("sample");
	cr_assert(img, "cannot unpack testdata/sample.img.gz");
	cr_assert(fixture_sha256(img, digest) == 0);
}

static void teardown(void)
{
	char after[65];

	cr_expect(fixture_sha256(img, after) == 0 && !strcmp(digest, after),
		  "the image changed");
	fixture_remove(img);
}

static e2map_t *open_ok(const char *path, const char *opts)
{
	e2map_t *m = NULL;
	int err = e2map_open(path, opts, &m);

	cr_assert_eq(err, 0, "e2map_open(%s, %s): %s (%s)", path,
		     opts ? opts : "NULL", e2map_strerror(err), e2map_errmsg(NULL));
	return m;
}

static int file_open_err(e2map_t *m, const char *path)
{
	e2map_file_t *f = (e2map_file_t *)1;
	int err = e2map_file_open(m, path, &f);

	if (!err)
		e2map_file_close(f);
	else
		cr_expect_null(f, "failed open left a handle");
	return err;
}

TestSuite(open_errors, .init = setup_sample, .fini = teardown, .timeout = 30);

Test(open_errors, unknown_option_is_einval)
{
	e2map_t *m = (e2map_t *)1;

	cr_expect_eq(e2map_open(img, "cache=hot", &m), -EINVAL);
	cr_expect_null(m);
	cr_expect_eq(e2map_open(img, "bogus", &m), -EINVAL);
	cr_expect_eq(e2map_open(img, "offset=12x", &m), -EINVAL);
	cr_expect_eq(e2map_open(img, "offset=-1", &m), -EINVAL);
	cr_expect(strstr(e2map_errmsg(NULL), "offset=-1"));
}

Test(open_errors, missing_image_is_enoent)
{
	e2map_t *m;

	cr_expect_eq(e2map_open("/nonexistent/e2map.img", NULL, &m), -ENOENT);
	/* The errno says it all: no detail to repeat it. */
	cr_expect_str_empty(e2map_errmsg(NULL));
}

Test(open_errors, a_pipe_is_no_image)
{
	char dir[] = "/tmp/e2map-lib-XXXXXX", fifo[64];
	e2map_t *m;

	cr_assert(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/pipe", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_expect_eq(e2map_open(fifo, NULL, &m), -ESPIPE);
	cr_expect_str_eq(e2map_errmsg(NULL), "the image must be a seekable "
			 "file");
	unlink(fifo);
	rmdir(dir);
}

Test(open_errors, offset_past_the_end_is_einval)
{
	e2map_t *m;

	cr_expect_eq(e2map_open(img, "offset=1g", &m), -EINVAL);
	cr_expect(strstr(e2map_errmsg(NULL), "offset past the end of the "
			 "image"), "%s", e2map_errmsg(NULL));
}

/* The library's offset= takes what the CLI's --offset takes. */
Test(open_errors, offset_takes_the_cli_units)
{
	static const char *const same[] = { "offset=1m", "offset=1M",
		"offset=2048s", "offset=256b", "offset=1024k", "offset=0x100000",
		"offset=04000000", "offset=1048576" };
	char *shifted = fixture_slice(img, 0, 1LL << 40, 1 << 20);

	cr_assert(shifted);
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		e2map_close(open_ok(shifted, same[i]));
	fixture_remove(shifted);
}

Test(open_errors, byte_counts_parse_as_xfs_io_s)
{
	int64_t v;

	cr_expect_eq(e2map_parse_bytes("3b", &v), 0);
	cr_expect_eq(v, 3 * 4096);
	cr_expect_eq(e2map_parse_bytes("2S", &v), 0);
	cr_expect_eq(v, 1024);
	cr_expect_eq(e2map_parse_bytes("1e", &v), 0);
	cr_expect_eq(v, 1LL << 60);
	cr_expect_eq(e2map_parse_bytes("0x10k", &v), 0);
	cr_expect_eq(v, 16 << 10);
	cr_expect_eq(e2map_parse_bytes("99999999999999999999", &v), 0);
	cr_expect_eq(v, INT64_MAX);
	cr_expect_eq(e2map_parse_bytes("8e", &v), -ERANGE);
	cr_expect_eq(e2map_parse_bytes("1kb", &v), -EINVAL);
	cr_expect_eq(e2map_parse_bytes("-1", &v), -EINVAL);
	cr_expect_eq(e2map_parse_bytes(" 1", &v), -EINVAL);
	cr_expect_eq(e2map_parse_bytes("", &v), -EINVAL);
}

Test(open_errors, journal_needing_recovery_is_reported)
{
	char *copy = fixture_decompress(img), cmd[256];
	e2map_t *m = open_ok(img, NULL);

	cr_assert(copy);
	cr_expect_eq(e2map_image_state(m), 0, "unmounted, recovered");
	e2map_close(m);
	snprintf(cmd, sizeof(cmd), "debugfs -w -R 'feature needs_recovery' "
		 "'%s' >/dev/null 2>&1", copy);
	cr_assert_eq(system(cmd), 0, "debugfs could not set needs_recovery");
	m = open_ok(copy, NULL);
	cr_expect_eq(e2map_image_state(m), E2MAP_IMAGE_NEEDS_RECOVERY);
	cr_expect_eq(e2map_image_state(NULL), -EINVAL);
	e2map_close(m);
	fixture_remove(copy);
}

Test(open_errors, stat_needs_no_open)
{
	e2map_t *m = open_ok(img, NULL);
	struct e2map_stat st = E2MAP_STAT_INIT;

	cr_expect_eq(e2map_path_stat(m, "/hello.txt", &st), 0);
	cr_expect(S_ISREG(st.mode));
	cr_expect_gt(st.size, 0);
	cr_expect_eq(e2map_path_stat(m, "/nothere", &st), -ENOENT);
	cr_expect_eq(e2map_path_stat(m, "/hello.txt/x", &st), -ENOTDIR);
	cr_expect_eq(e2map_path_stat(m, "<100>", &st), -ESTALE);
	cr_expect_eq(e2map_path_stat(NULL, "/", &st), -EINVAL);
	e2map_close(m);
}

Test(open_errors, non_ext_file_is_refused)
{
	char *junk = fixture_slice(img, 4 << 20, 1 << 20, 0);
	e2map_t *m;

	cr_assert(junk);
	cr_expect_eq(e2map_open(junk, NULL, &m), -EUCLEAN);
	cr_expect_str_eq(e2map_errmsg(NULL), "not an ext2/3/4 filesystem");
	fixture_remove(junk);
}

Test(open_errors, truncated_image_is_refused)
{
	char *cut = fixture_slice(img, 0, 200 << 10, 0);
	e2map_t *m;

	cr_assert(cut);
	cr_expect_eq(e2map_open(cut, NULL, &m), -EUCLEAN);
	cr_expect(strstr(e2map_errmsg(NULL), "truncated"), "%s",
		  e2map_errmsg(NULL));
	fixture_remove(cut);
}

Test(open_errors, bad_paths)
{
	e2map_t *m = open_ok(img, NULL);

	cr_expect_eq(file_open_err(m, "/no/such/file"), -ENOENT);
	cr_expect_eq(file_open_err(m, "/nothere"), -ENOENT);
	cr_expect_eq(file_open_err(m, "/hello.txt/x"), -ENOTDIR);
	cr_expect_eq(file_open_err(m, "/notes-link/"), -ENOTDIR);
	cr_expect_eq(file_open_err(m, "<20>"), -ELOOP);	/* never followed */
	cr_expect_eq(file_open_err(m, ""), -ENOENT);
	cr_expect_eq(file_open_err(m, "/hello.txt"), 0);
	cr_expect_eq(file_open_err(m, "<12>"), 0);
	cr_expect_eq(file_open_err(m, "/"), 0);
	e2map_close(m);
}

/* open(2) follows a final symlink; O_NOFOLLOW (the flag) refuses it. */
Test(open_errors, final_symlink_follows_unless_nofollow)
{
	e2map_t *m = open_ok(img, NULL);
	struct e2map_stat link = E2MAP_STAT_INIT, target = E2MAP_STAT_INIT;
	e2map_file_t *f;

	cr_assert_eq(e2map_file_open(m, "/docs/notes.txt", &f), 0);
	cr_assert_eq(e2map_file_stat(f, &target), 0);
	e2map_file_close(f);
	cr_assert_eq(e2map_file_open(m, "/notes-link", &f), 0, "%s",
		     e2map_errmsg(m));
	cr_assert_eq(e2map_file_stat(f, &link), 0);
	e2map_file_close(f);
	cr_expect_eq(link.ino, target.ino);
	cr_expect_eq(e2map_file_open_flags(m, "/notes-link", 0, &f), 0);
	e2map_file_close(f);
	f = (e2map_file_t *)1;
	cr_expect_eq(e2map_file_open_flags(m, "/notes-link", E2MAP_O_NOFOLLOW,
					   &f), -ELOOP);
	cr_expect_null(f);
	cr_expect_eq(e2map_file_open_flags(m, "/docs/notes.txt",
					   E2MAP_O_NOFOLLOW, &f), 0);
	e2map_file_close(f);
	e2map_close(m);
}

Test(open_errors, unknown_open_flags_are_einval)
{
	e2map_t *m = open_ok(img, NULL);
	e2map_file_t *f = (e2map_file_t *)1;

	cr_expect_eq(e2map_file_open_flags(m, "/hello.txt", 0x2, &f), -EINVAL);
	cr_expect_null(f);
	cr_expect_eq(e2map_file_open_flags(m, "/hello.txt",
					   E2MAP_O_NOFOLLOW | 0x100, &f),
		     -EINVAL);
	cr_expect_eq(e2map_file_open_flags(m, "/hello.txt", -1, &f), -EINVAL);
	cr_expect(strstr(e2map_errmsg(m), "flags"), "%s", e2map_errmsg(m));
	e2map_close(m);
}

/*
 * <INO> naming no inode: -ESTALE, as open_by_handle_at answers for a
 * handle outside 1..s_inodes_count; not a number at all: -EINVAL.
 * Special inodes keep debugfs's meaning (<8> the journal, <7> resize).
 */
Test(open_errors, inode_numbers_outside_the_table_are_estale)
{
	e2map_t *m = open_ok(img, NULL);
	static const char *const stale[] = { "<0>", "<4097>", "<99999999>",
		"<-1>", "<99999999999999999999>", "<0x1001>" };
	static const char *const bad[] = { "<>", "<12x>", "<x>", "<12",
		"< 12>", "<+12>", "<12>x", "<0x>" };
	e2map_file_t *f;
	size_t i;

	for (i = 0; i < sizeof(stale) / sizeof(stale[0]); i++) {
		cr_expect_eq(file_open_err(m, stale[i]), -ESTALE, "%s",
			     stale[i]);
		cr_expect(strstr(e2map_errmsg(m), "inode numbers run from 1 "
				 "to 4096"), "%s: %s", stale[i],
			  e2map_errmsg(m));
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(file_open_err(m, bad[i]), -EINVAL, "%s", bad[i]);
	cr_expect_eq(e2map_file_open_ino(m, 0, &f), -ESTALE);
	cr_expect_eq(e2map_file_open_ino(m, 4097, &f), -ESTALE);
	cr_expect(strstr(e2map_errmsg(m), "no inode 4097"), "%s",
		  e2map_errmsg(m));
	cr_expect_eq(file_open_err(m, "<4096>"), -ESTALE);	/* unused */
	cr_expect_eq(file_open_err(m, "<8>"), 0);
	cr_expect_eq(file_open_err(m, "<7>"), 0);
	cr_expect_eq(file_open_err(m, "<0xc>"), 0);
	e2map_close(m);
}

Test(open_errors, unused_inode_by_number_is_estale)
{
	e2map_t *m = open_ok(img, NULL);

	/* An inode never allocated: __ext4_iget's "deleted inode" answer. */
	cr_expect_eq(file_open_err(m, "<100>"), -ESTALE);
	e2map_close(m);
}

TestSuite(call_errors, .init = setup_sample, .fini = teardown, .timeout = 30);

Test(call_errors, bad_whence_and_offsets)
{
	e2map_t *m = open_ok(img, NULL);
	e2map_file_t *f;

	cr_assert_eq(e2map_file_open(m, "/sparse.bin", &f), 0);
	cr_expect_eq(e2map_file_lseek(f, 0, 5), -EINVAL);
	cr_expect_eq(e2map_file_lseek(f, 0, -1), -EINVAL);
	cr_expect_eq(e2map_file_lseek(f, -1, E2MAP_SEEK_SET), -EINVAL);
	cr_expect_eq(e2map_file_lseek(f, INT64_MAX, E2MAP_SEEK_SET), -EINVAL);
	cr_expect_eq(e2map_file_lseek(f, -1, E2MAP_SEEK_DATA), -ENXIO);
	cr_expect_eq(e2map_file_lseek(f, INT64_MAX, E2MAP_SEEK_HOLE), -ENXIO);
	cr_expect_eq(e2map_file_lseek(f, 0, E2MAP_SEEK_CUR), 0);
	e2map_file_close(f);
	e2map_close(m);
}

Test(call_errors, fiemap_too_many_extents_leaves_struct_alone)
{
	e2map_t *m = open_ok(img, NULL);
	struct fiemap fm = { .fm_length = ~0ULL, .fm_extent_count = 76695845,
			     .fm_mapped_extents = 0xdeadbeef, .fm_flags = 0x8 };
	e2map_file_t *f;

	cr_assert_eq(e2map_file_open(m, "/sparse.bin", &f), 0);
	cr_expect_eq(e2map_file_fiemap(f, &fm), -EINVAL);
	cr_expect_eq(fm.fm_mapped_extents, 0xdeadbeef);
	cr_expect_eq(fm.fm_flags, 0x8);
	fm.fm_extent_count = 0;
	cr_expect_eq(e2map_file_fiemap(f, &fm), -EBADR);
	cr_expect_eq(fm.fm_flags, 0x8);
	cr_expect_eq(fm.fm_mapped_extents, 0);
	e2map_file_close(f);
	e2map_close(m);
}

Test(call_errors, null_handles_are_harmless)
{
	e2map_close(NULL);
	e2map_file_close(NULL);
	cr_expect_eq(e2map_file_lseek(NULL, 0, 0), -EINVAL);
	cr_expect_eq(e2map_file_fiemap(NULL, NULL), -EINVAL);
	cr_expect_str_not_empty(e2map_strerror(-EUCLEAN));
}

/* FIEMAP through a handle; returns the number of extents listed. */
static unsigned list(e2map_file_t *f, struct fiemap_extent *out, unsigned n)
{
	struct fiemap *fm = calloc(1, sizeof(*fm) + n * sizeof(*out));
	unsigned got;

	cr_assert(fm);
	fm->fm_length = ~0ULL;
	fm->fm_extent_count = n;
	cr_assert_eq(e2map_file_fiemap(f, fm), 0);
	got = fm->fm_mapped_extents;
	memcpy(out, fm->fm_extents, got * sizeof(*out));
	free(fm);
	return got;
}

/* /docs/big.dat maps alike through M1 and M2, which are then closed. */
static void expect_same_map(e2map_t *m1, e2map_t *m2)
{
	struct fiemap_extent a[64], b[64];
	e2map_file_t *f1, *f2;
	unsigned n;

	cr_assert_eq(e2map_file_open(m1, "/docs/big.dat", &f1), 0);
	cr_assert_eq(e2map_file_open(m2, "/docs/big.dat", &f2), 0);
	n = list(f1, a, 64);
	cr_expect_gt(n, 0);
	cr_expect_eq(list(f2, b, 64), n);
	cr_expect_eq(memcmp(a, b, n * sizeof(a[0])), 0);
	e2map_file_close(f1);
	e2map_file_close(f2);
	e2map_close(m1);
	e2map_close(m2);
}

Test(options, offset_shifts_the_filesystem)
{
	char *shifted = fixture_slice(img, 0, 1LL << 40, 1 << 20);

	cr_assert(shifted);
	expect_same_map(open_ok(img, NULL), open_ok(shifted, "offset=1048576"));
	fixture_remove(shifted);
}

/* Is PATH mapped into this process? */
static bool mapped_here(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4608];
	bool hit = false;

	cr_assert(f);
	while (!hit && fgets(line, sizeof(line), f))
		hit = strstr(line, path) != NULL;
	fclose(f);
	return hit;
}

/* A raw image is read where it lies (mmap), but not with "nomap" (what
 * e2map mount asks for): the answers are the same. */
Test(options, nomap_reads_what_the_map_reads)
{
	e2map_t *m1 = open_ok(img, NULL), *m2;

	cr_expect(mapped_here(img), "%s is not mapped", img);
	e2map_close(m1);
	cr_expect(!mapped_here(img), "%s is mapped after close", img);
	m1 = open_ok(img, NULL);
	m2 = open_ok(img, "nomap");
	e2map_close(m1);
	cr_expect(!mapped_here(img), "nomap: %s is mapped", img);
	expect_same_map(open_ok(img, NULL), m2);
}

Test(options, warm_first_call_equals_cold_second_call, .timeout = 30)
{
	char *one = fixture_image("ext4-1k");
	struct fiemap_extent a[64], b[64];
	e2map_t *cold, *warm;
	e2map_file_t *fc, *fw;
	unsigned n;

	cr_assert(one);
	cold = open_ok(one, "cache=cold");
	warm = open_ok(one, "cache=warm");
	cr_assert_eq(e2map_file_open(cold, "/long_contig", &fc), 0);
	cr_assert_eq(e2map_file_open(warm, "/long_contig", &fw), 0);
	list(fc, a, 64);
	n = list(fc, a, 64);
	cr_expect_eq(list(fw, b, 64), n);
	cr_expect_eq(memcmp(a, b, n * sizeof(a[0])), 0);
	e2map_file_close(fc);
	e2map_file_close(fw);
	e2map_close(cold);
	e2map_close(warm);
	fixture_remove(one);
}

Test(readonly, image_without_write_permission_still_opens)
{
	e2map_t *m;

	cr_assert_eq(chmod(img, 0444), 0);
	m = open_ok(img, NULL);
	cr_expect_eq(file_open_err(m, "/sparse.bin"), 0);
	e2map_close(m);
	chmod(img, 0600);
}
TestSuite(readonly, .init = setup_sample, .fini = teardown, .timeout = 30);
TestSuite(options, .init = setup_sample, .fini = teardown, .timeout = 60);

/* A lookup descends the tree: at most depth + 1 metadata blocks. */
static void check_reads(const char *image, const char *path, unsigned depth)
{
	e2map_t *m = open_ok(image, NULL);
	e2map_file_t *f;
	uint64_t before;
	int64_t r;

	cr_assert_eq(e2map_file_open(m, path, &f), 0, "%s", path);
	before = e2map_blocks_read(m);
	r = e2map_file_lseek(f, 0, E2MAP_SEEK_DATA);
	cr_expect_geq(r, 0, "%s: SEEK_DATA(0) = %lld", path, (long long)r);
	cr_expect_leq(e2map_blocks_read(m) - before, depth + 1,
		      "%s: %llu metadata reads for SEEK_DATA(0)", path,
		      (unsigned long long)(e2map_blocks_read(m) - before));
	e2map_file_close(f);
	e2map_close(m);
}

Test(bounded, seek_data_reads_at_most_depth_plus_one, .timeout = 60)
{
	char *deep = fixture_image("ext4-deep");
	char *four = fixture_image("ext4-4k");

	cr_assert(deep && four);
	check_reads(deep, "/deep3", 3);
	check_reads(deep, "/deep2", 2);
	check_reads(deep, "/deep_alternating", 2);
	/* 16 TiB sparse file, one block at the end, depth 0: no reads. */
	check_reads(four, "/maxbytes", 0);
	check_reads(four, "/near_maxbytes_sparse", 1);
	fixture_remove(deep);
	fixture_remove(four);
}

/* ---- FIFOs, sockets, devices: answers by file type (special-1k) ---- */

static char *special;

static void setup_special(void)
{
	special = fixture_image("special-1k");
	cr_assert(special, "cannot unpack testdata/special-1k.img.gz");
}

static void teardown_special(void)
{
	fixture_remove(special);
}

TestSuite(special, .init = setup_special, .fini = teardown_special,
	  .timeout = 30);

static int count_run(const struct e2map_run *run, void *payload)
{
	(void)run;
	++*(int *)payload;
	return 0;
}

/* The calls replay checks lseek and FIEMAP; these are e2map's own calls. */
Test(special, a_fifo_has_nothing_to_map)
{
	e2map_t *m = open_ok(special, NULL);
	struct e2map_check_stats cs = E2MAP_CHECK_STATS_INIT;
	struct e2map_stat st = E2MAP_STAT_INIT;
	e2map_file_t *f;
	int runs = 0;

	cr_assert_eq(e2map_path_stat(m, "/fifo", &st), 0);
	cr_expect(S_ISFIFO(st.mode));
	cr_assert_eq(e2map_file_open(m, "/fifo", &f), 0);
	cr_expect_eq(e2map_file_walk(f, 0, 10, count_run, &runs), -EOPNOTSUPP);
	cr_expect_eq(runs, 0);
	cr_expect_eq(e2map_file_check(f, &cs), 0);
	cr_expect_eq(cs.seeks + cs.fiemaps, 0);
	e2map_file_close(f);
	e2map_close(m);
}

Test(special, sockets_and_devices_do_not_open)
{
	e2map_t *m = open_ok(special, NULL);
	struct e2map_stat st = E2MAP_STAT_INIT;

	cr_expect_eq(file_open_err(m, "/sock"), -ENXIO);
	cr_expect_eq(file_open_err(m, "/chr_nodrv"), -ENXIO);
	cr_expect_eq(file_open_err(m, "/blk_nodrv"), -ENXIO);
	/* stat(2) needs no open: it works on all of them. */
	cr_expect_eq(e2map_path_stat(m, "/sock", &st), 0);
	cr_expect(S_ISSOCK(st.mode));
	cr_expect_eq(e2map_path_stat(m, "/blk_nodrv", &st), 0);
	cr_expect(S_ISBLK(st.mode));
	e2map_close(m);
}

/* lstat, stat by number and readlink, with their errno contracts. */
Test(open_errors, lstat_stat_ino_readlink)
{
	e2map_t *m = open_ok(img, NULL);
	struct e2map_stat st = E2MAP_STAT_INIT;
	char buf[64];

	cr_expect_eq(e2map_path_lstat(m, "/notes-link", &st), 0);
	cr_expect(S_ISLNK(st.mode) && st.ino == 20 && st.size == 14);
	cr_expect_eq(e2map_path_stat(m, "/notes-link", &st), 0);
	cr_expect(S_ISREG(st.mode) && st.ino == 18);
	cr_expect_eq(e2map_path_lstat(m, "/nothere", &st), -ENOENT);
	cr_expect_eq(e2map_path_lstat(NULL, "/", &st), -EINVAL);
	cr_expect_eq(e2map_inode_stat(m, 20, &st), 0);
	cr_expect(S_ISLNK(st.mode) && st.nlink == 1);
	cr_expect(st.mask & E2MAP_STAT_CRTIME);
	cr_expect_eq(e2map_inode_stat(m, 8, &st), 0, "special inodes too");
	cr_expect_eq(e2map_inode_stat(m, 0, &st), -ESTALE);
	cr_expect_eq(e2map_inode_stat(m, 1ULL << 40, &st), -ESTALE);
	cr_expect_eq(e2map_inode_stat(m, 100, &st), -ESTALE, "unused");
	cr_expect_eq(e2map_inode_readlink(m, 20, buf, sizeof(buf)), 14);
	cr_expect(!memcmp(buf, "docs/notes.txt", 14));
	cr_expect_eq(e2map_inode_readlink(m, 20, buf, 4), 14, "the whole length");
	cr_expect(!memcmp(buf, "docs", 4));
	cr_expect_eq(e2map_inode_readlink(m, 20, NULL, 0), 14);
	cr_expect_eq(e2map_inode_readlink(m, 12, buf, sizeof(buf)), -EINVAL);
	cr_expect_eq(e2map_inode_readlink(m, 100, buf, sizeof(buf)), -ESTALE);
	e2map_close(m);
}

/* A record by number: the inode's trouble inside it, a bad number not. */
Test(open_errors, inode_record_contract)
{
	e2map_t *m = open_ok(img, NULL);
	struct e2map_record r = E2MAP_RECORD_INIT;

	cr_expect_eq(e2map_inode_record(m, 14, &r), 0);
	cr_expect(r.err == 0 && (r.flags & E2MAP_REC_STAT) &&
		  (r.flags & E2MAP_REC_MAPPED));
	cr_expect_eq(r.written + r.unwritten + r.holes, r.st.size);
	cr_expect_eq(e2map_inode_record(m, 20, &r), 0);
	cr_expect(!(r.flags & E2MAP_REC_MAPPED) && r.written == 0);
	cr_expect_eq(e2map_inode_record(m, 0, &r), -ESTALE);
	cr_expect_eq(e2map_inode_record(m, 100, &r), -ESTALE);
	cr_expect_eq(e2map_inode_record(m, 1ULL << 40, &r), -ESTALE);
	cr_expect_eq(e2map_inode_record(NULL, 2, &r), -EINVAL);
	cr_expect_eq(e2map_inode_record(m, 2, NULL), -EINVAL);
	cr_expect_eq(e2map_scan_records(m, 0, NULL, NULL), -EINVAL);
	e2map_close(m);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal's past on images the generator does not make: made here
 * with mkfs.ext4 (and debugfs where a file must change), no mount needed.
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include "cli_run.h"

#include <errno.h>
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

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

/* An extent node of DEPTH with every one of its 340 entries pointing at
 * block CHILD (an index) or at data block 100 (a leaf). */
static void full_node(unsigned char *b, unsigned depth, uint32_t child)
{
	memset(b, 0, 4096);
	put16(b, 0xf30a);
	put16(b + 2, 340);
	put16(b + 4, 340);
	put16(b + 6, depth);
	for (unsigned i = 0; i < 340; i++) {
		unsigned char *e = b + 12 + 12 * i;

		put32(e, i);
		if (depth) {
			put32(e + 4, child);
		} else {
			put16(e + 4, 1);
			put32(e + 8, 100);
		}
	}
}

static int count_runs(uint64_t lblk, uint64_t pblk, uint64_t len, void *arg)
{
	(void)lblk, (void)pblk, (void)len;
	(*(unsigned *)arg)++;
	return 0;
}

static int keep_version(const struct e2map_version *v, void *arg)
{
	*(struct e2map_version *)arg = *v;
	return 0;
}

/*
 * Inode 12 of a fresh image: a file of 4 GiB whose root (depth five)
 * has four entries, each to block 4004 (plus HI << 32), and blocks
 * 4000 + D nodes of depth D, each of whose 340 entries points at the
 * node below.  Its disk version into *V; the journal open in *J.
 */
static void tree_image(struct tmpimg *t, unsigned hi, e2map_t **m,
		       e2map_journal_t **j, struct e2map_version *v)
{
	unsigned char b[4096];
	char cmd[1200];
	FILE *f;

	make_image(t, "-b 4096 -N 64 -J size=4", "16M");
	snprintf(cmd, sizeof(cmd), "cd %s && (echo x > x && debugfs -w -R "
		 "'write x f' i.img && debugfs -w -R 'sif f size 0x100000000' "
		 "i.img && debugfs -w -R 'sif f block[0] 0x0004f30a' i.img && "
		 "debugfs -w -R 'sif f block[1] 0x00050004' i.img", t->dir);
	for (int w = 2; w < 15; w++) {	/* ei_block I, ei_leaf 4004, hi */
		static const char *const ind[] = { "IND", "DIND", "TIND" };
		char word[8];

		snprintf(word, sizeof(word), "%d", w);
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
			 " && debugfs -w -R 'sif f block[%s] %u' i.img",
			 w < 12 ? word : ind[w - 12], w % 3 == 1 ? 4004u :
			 w % 3 == 0 ? w / 3u - 1 : w > 2 ? hi : 0u);
	}
	strncat(cmd, ") >/dev/null 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert((f = fopen(t->img, "r+b")));
	for (unsigned d = 0; d < 5; d++) {
		full_node(b, d, 4000 + d - 1);
		cr_assert_eq(fseek(f, (4000L + d) * 4096, SEEK_SET), 0);
		cr_assert_eq(fwrite(b, 1, sizeof(b), f), sizeof(b));
	}
	fclose(f);
	cr_assert_eq(e2map_open(t->img, "unmountable", m), 0);
	cr_assert_eq(e2map_journal_open(*m, j), 0);
	cr_assert_eq(e2map_inode_history(*j, 12, keep_version, v), 0);
	cr_assert_eq(v->i_block[0], 0x0a, "f is not inode 12");
	cr_assert_eq(v->i_block[52] | v->i_block[53] << 8, 4004,
		     "debugfs did not set the last entry");
}

/*
 * A tree whose nodes point, all 340 entries each, at one node of the
 * next depth: 340^4 leaves to a reader that follows each pointer, five
 * blocks to one that reads a block once.  Read at once, called
 * incomplete.
 */
Test(history_edge, shared_tree_blocks_are_read_once, .timeout = 30)
{
	struct e2map_version v = { 0 };
	struct tmpimg t;
	e2map_journal_t *j;
	unsigned runs = 0;
	e2map_t *m;
	int rc;

	tree_image(&t, 0, &m, &j, &v);
	rc = e2map_version_map(j, &v, count_runs, &runs);
	cr_expect_eq(rc, 0, "rc %d runs %u", rc, runs);
	cr_expect_leq(runs, 340);
	e2map_journal_close(j);
	e2map_close(m);
	remove_image(&t);
}

/* An index entry past the device: the map is incomplete, not an error
 * (e2map_version_map's contract), and the other entries are read. */
Test(history_edge, index_past_the_device_is_incomplete)
{
	struct e2map_version v = { 0 };
	struct tmpimg t;
	e2map_journal_t *j;
	unsigned runs = 0;
	e2map_t *m;
	int rc;

	tree_image(&t, 1, &m, &j, &v);
	v.i_block[5 * 4] = 0;	/* the first entry's ei_leaf_hi: on the device */
	rc = e2map_version_map(j, &v, count_runs, &runs);
	cr_expect_eq(rc, 0, "rc %d runs %u", rc, runs);
	cr_expect_gt(runs, 0);
	e2map_journal_close(j);
	e2map_close(m);
	remove_image(&t);
}

/*
 * recover --format jsonl of a file whose old name is not UTF-8: its line
 * is written, the path as the other names are ("path" with U+FFFD,
 * "path_hex" the bytes).  The deletion is the kernel's: a loop mount
 * (skipped where refused).
 */
Test(history_edge, recover_jsonl_non_utf8_path)
{
	struct tmpimg t;
	struct cli_out r;
	char cmd[700], dest[128];

	make_image(&t, "-b 1024", "8M");
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir m && mount -o loop i.img m "
		 ">/dev/null 2>&1 && { n=$(printf '\\377\\376'); head -c 3000 "
		 "/dev/zero > \"m/$n\"; sync; rm \"m/$n\"; sync; umount m; }",
		 t.dir);
	if (system(cmd) != 0) {
		remove_image(&t);
		cr_skip_test("cannot loop-mount an image here (not root?)");
	}
	snprintf(dest, sizeof(dest), "%s/out", t.dir);
	cr_assert_eq(cli_run((const char *const[]){ "recover", "--all",
		"--format", "jsonl", t.img, dest, NULL }, &r), 0);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"path_hex\":\"2ffffe\""), "out: %s", r.out);
	cr_expect(strstr(r.out, "\"state\":\"complete\""), "out: %s", r.out);
	cli_out_free(&r);
	remove_image(&t);
}

static int count_dir_name(const struct e2map_dir_name *d, void *arg)
{
	(void)d;
	(*(unsigned *)arg)++;
	return 0;
}

/*
 * 64 KiB blocks: a block whose one entry spans it stores rec_len 65535
 * (ext4_rec_len_to_disk).  249 names of 255 bytes: 248 fill the first
 * block, the last is alone in the second.  The directory's history
 * holds all of them.
 */
Test(history_edge, dir_history_64k_rec_len)
{
	struct tmpimg t;
	char cmd[700];
	unsigned n = 0;
	e2map_journal_t *j;
	e2map_t *m;
	uint64_t ino;
	struct e2map_stat st = E2MAP_STAT_INIT;

	snprintf(t.dir, sizeof(t.dir), "/tmp/e2map-hedge-XXXXXX");
	cr_assert(mkdtemp(t.dir));
	snprintf(t.img, sizeof(t.img), "%s/i.img", t.dir);
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p s/d && p=$(printf "
		 "'%%0252d' 0) && for i in $(seq 100 348); do : > s/d/$p$i; "
		 "done && mkfs.ext4 -q -F -b 65536 -O ^metadata_csum -N 512 "
		 "-d s i.img 256M >/dev/null 2>&1", t.dir);
	if (system(cmd) != 0) {
		remove_image(&t);
		cr_skip_test("mkfs.ext4 -b 65536 -d failed here");
	}
	cr_assert_eq(e2map_open(t.img, "unmountable", &m), 0);
	cr_assert_eq(e2map_path_stat(m, "/d", &st), 0);
	ino = st.ino;
	cr_assert_eq(e2map_journal_open(m, &j), 0);
	cr_assert_eq(e2map_dir_history(j, ino, count_dir_name, &n), 0);
	cr_expect_eq(n, 249);
	e2map_journal_close(j);
	e2map_close(m);
	remove_image(&t);
}

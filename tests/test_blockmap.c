/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_blockmap_build against debugfs on testdata images (e2fsprogs'
 * own reading of the same bytes, as issue 10 asks):
 *  - the map covers every block from 0 to the end, in order, without
 *    gaps; with 1 KiB blocks block 0 is the boot block, bigalloc or not;
 *  - `testb` of every block: free ranges are exactly the blocks the
 *    bitmap marks free;
 *  - `icheck` of every block an inode owns: debugfs names one of the
 *    inodes the map gives that block, and finds no owner for none of them.
 *  - the layout: every block dumpe2fs names as a superblock copy,
 *    descriptor block (meta_bg copies included), reserved GDT block,
 *    bitmap or inode table has that kind in the map, and no other does.
 * And e2map_unallocated: its free ranges are dumpe2fs's "Free blocks";
 * each regular file's past-EOF bytes are what the kernel's FIEMAP mapped
 * past EOF (the scan recordings), its tail the rest of the EOF block; an
 * image behind offset= moves every range by that much.
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
#include "scan_rec.h"

struct map {
	e2map_t *m;
	e2map_blockmap_t *b;
	char *img;
	uint64_t first, total;
	uint32_t bs;
};

static void load(struct map *mp, const char *name)
{
	struct e2map_statfs sf = E2MAP_STATFS_INIT;
	const struct e2map_owner *o;

	mp->img = fixture_image(name);
	cr_assert(mp->img, "cannot unpack testdata/%s.img.gz", name);
	cr_assert_eq(e2map_open(mp->img, NULL, &mp->m), 0);
	cr_assert_eq(e2map_blockmap_build(mp->m, &mp->b), 0, "%s",
		     e2map_errmsg(mp->m));
	cr_assert_eq(e2map_statfs(mp->m, &sf), 0);
	mp->bs = (uint32_t)sf.bsize;
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

/* Whether a range at block 0 is of KIND (damage may put more there). */
static bool block0_is(struct map *mp, enum e2map_owner_kind kind)
{
	size_t i, n = e2map_blockmap_count(mp->b);

	for (i = 0; i < n && e2map_blockmap_get(mp->b, i)->start == 0; i++)
		if (e2map_blockmap_get(mp->b, i)->kind == kind)
			return true;
	return false;
}

/* Ranges in order, each block covered, the lookup finding each. */
static void check_cover(struct map *mp)
{
	uint64_t at = mp->first, blk;
	size_t i, n = e2map_blockmap_count(mp->b), idx;

	cr_expect_eq(mp->first, 0);
	cr_expect(block0_is(mp, mp->bs == 1024 ? E2MAP_OWNER_BOOT :
			    E2MAP_OWNER_SUPERBLOCK), "block 0 of a %u-byte "
		  "block filesystem", mp->bs);
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

/* -n: the bitmaps read as they lie, also where a checksum fails. */
static FILE *debugfs(const char *img, const char *cmdfile)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "debugfs -n -f %s %s 2>/dev/null", cmdfile,
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

/*
 * The group layout against dumpe2fs's: each block it names as a
 * superblock copy, descriptor block (the whole table below
 * s_first_meta_bg, a meta group's copies from it on), reserved GDT block,
 * bitmap or inode table has that kind in the map, and the map gives those
 * kinds to no other block.
 */
static void check_layout(struct map *mp)
{
	static const struct {
		const char *at;		/* then FIRST[-LAST] */
		enum e2map_owner_kind kind;
	} pats[] = {
		{ "superblock at ", E2MAP_OWNER_SUPERBLOCK },
		{ "Group descriptors at ", E2MAP_OWNER_GDT },
		{ "Group descriptor at ", E2MAP_OWNER_GDT },
		{ "Reserved GDT blocks at ", E2MAP_OWNER_RESERVED_GDT },
		{ "Block bitmap at ", E2MAP_OWNER_BLOCK_BITMAP },
		{ "Inode bitmap at ", E2MAP_OWNER_INODE_BITMAP },
		{ "Inode table at ", E2MAP_OWNER_INODE_TABLE },
	};
	unsigned char *want = calloc(mp->total + 1, 1);
	char cmd[512], *line = NULL;
	size_t cap = 0, i, n = e2map_blockmap_count(mp->b), named = 0;
	FILE *f;

	cr_assert(want);
	snprintf(cmd, sizeof(cmd), "dumpe2fs %s 2>/dev/null", mp->img);
	cr_assert((f = popen(cmd, "r")));
	while (getline(&line, &cap, f) > 0) {
		for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
			char *p = line;
			unsigned long long lo, hi, b;
			int used;

			while ((p = strstr(p, pats[i].at))) {
				p += strlen(pats[i].at);
				if (sscanf(p, "%llu%n", &lo, &used) != 1)
					break;
				p += used;
				hi = lo;
				if (*p == '-' && sscanf(p + 1, "%llu%n", &hi,
							&used) == 1)
					p += 1 + used;
				for (b = lo; b <= hi && b < mp->total; b++) {
					want[b] = pats[i].kind;
					named++;
				}
			}
		}
	}
	pclose(f);
	free(line);
	cr_assert_gt(named, 0, "no layout lines from dumpe2fs");
	for (i = 0; i < n; i++) {
		const struct e2map_owner *o = e2map_blockmap_get(mp->b, i);

		if (o->kind < E2MAP_OWNER_SUPERBLOCK ||
		    o->kind > E2MAP_OWNER_INODE_TABLE)
			continue;
		for (uint64_t b = o->start; b < o->start + o->count &&
		     b < mp->total; b++)
			cr_expect_eq(want[b], o->kind, "block %" PRIu64 ": "
				     "e2map %s, dumpe2fs %s", b,
				     e2map_owner_kind_name(o->kind),
				     want[b] ? e2map_owner_kind_name(want[b]) :
				     "nothing");
	}
	/* The reserved GDT blocks are also the resize inode's: find any
	 * range of that kind, not the first one holding the block. */
	for (i = 0; i < n; i++) {
		const struct e2map_owner *o = e2map_blockmap_get(mp->b, i);

		if (o->kind < E2MAP_OWNER_SUPERBLOCK ||
		    o->kind > E2MAP_OWNER_INODE_TABLE)
			continue;
		for (uint64_t b = o->start; b < o->start + o->count &&
		     b < mp->total; b++)
			if (want[b] == o->kind)
				want[b] = 0;	/* found */
	}
	for (uint64_t b = 0; b < mp->total; b++)
		cr_expect(!want[b], "block %" PRIu64 ": dumpe2fs %s, not in "
			  "e2map's map", b, e2map_owner_kind_name(want[b]));
	free(want);
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
	check_layout(&mp);
	unload(&mp);
}

TestSuite(blockmap, .timeout = 120);
TestSuite(unallocated, .timeout = 120);

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
/* meta_bg (scripts/gen/mkmetabg.sh): descriptor copies by meta group from
 * s_first_meta_bg on, the whole table below it */
Test(blockmap, metabg_0_1k) { image("metabg-0-1k"); }
Test(blockmap, metabg_1_1k) { image("metabg-1-1k"); }
Test(blockmap, metabg_2_1k32) { image("metabg-2-1k32"); }
Test(blockmap, metabg_3_1k) { image("metabg-3-1k"); }
Test(blockmap, metabg_1_4k) { image("metabg-1-4k"); }
Test(blockmap, metabg_2_ext2) { image("metabg-2-ext2"); }
Test(blockmap, metabg_1_bigalloc) { image("metabg-1-bigalloc"); }
Test(blockmap, metabg_0_bigalloc) { image("metabg-0-bigalloc"); }

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
			struct e2map_statfs sf = E2MAP_STATFS_INIT;

			cr_assert_eq(e2map_statfs(mp.m, &sf), 0);
			mp.bs = (uint32_t)sf.bsize;
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

/* ---- unallocated ---- */

struct ua {
	uint64_t bs;
	unsigned char *free;		/* a byte a block: e2map says free */
	uint64_t total;
	uint64_t *past, *tail;		/* bytes, by inode number */
	size_t ninodes;
	uint64_t first_offset;
};

static int on_unalloc(const struct e2map_unalloc *u, void *payload)
{
	struct ua *a = payload;
	uint64_t b;

	if (!a->first_offset)
		a->first_offset = u->offset + 1;
	if (u->kind == E2MAP_UNALLOC_FREE) {
		cr_assert_eq(u->offset % a->bs, 0);
		for (b = u->offset / a->bs; b < (u->offset + u->length) / a->bs;
		     b++)
			if (b < a->total)
				a->free[b] = 1;
	} else if (u->kind == E2MAP_UNALLOC_PAST_EOF && u->ino < a->ninodes) {
		a->past[u->ino] += u->length;
	} else if (u->kind == E2MAP_UNALLOC_TAIL && u->ino < a->ninodes) {
		a->tail[u->ino] += u->length;
	}
	return 0;
}

/* dumpe2fs's "  Free blocks: 1-3, 7, ..." lines, against A->free. */
static void check_dumpe2fs(const char *img, struct ua *a)
{
	char cmd[512], *line = NULL;
	size_t cap = 0, n = 0, b;
	unsigned char *want = calloc(a->total, 1);
	FILE *f;

	snprintf(cmd, sizeof(cmd), "dumpe2fs %s 2>/dev/null", img);
	f = popen(cmd, "r");
	cr_assert(want && f);
	while (getline(&line, &cap, f) > 0) {
		char *p = strstr(line, "  Free blocks: ");
		unsigned long long lo, hi;
		int used;

		if (!p || p != line)
			continue;
		for (p += 15; sscanf(p, "%llu%n", &lo, &used) == 1; ) {
			p += used;
			hi = lo;
			if (*p == '-' && sscanf(p + 1, "%llu%n", &hi, &used) == 1)
				p += 1 + used;
			for (b = lo; b <= hi && b < a->total; b++)
				want[b] = 1;
			while (*p == ',' || *p == ' ')
				p++;
		}
		n++;
	}
	pclose(f);
	free(line);
	cr_assert_gt(n, 0, "no Free blocks lines from dumpe2fs");
	for (b = 0; b < a->total; b++)
		cr_expect_eq(a->free[b], want[b], "block %zu: e2map %s, "
			     "dumpe2fs %s", b, a->free[b] ? "free" : "in use",
			     want[b] ? "free" : "in use");
	free(want);
}

/* Each regular file's slack against the kernel's recorded stat and map. */
static void check_slack(const char *name, struct ua *a)
{
	char file[4096];
	struct scan_kernel k;
	size_t i, files = 0;

	snprintf(file, sizeof(file), "%s/%s.scan", fixture_testdata(), name);
	cr_assert_eq(scan_kernel_load(file, &k), 0, "no %s(.gz)", file);
	for (i = 0; i < k.n; i++) {
		const struct scan_kinode *ki = &k.v[i];
		uint64_t size = ki->st.size, tail;

		if (!ki->has_map || (ki->st.mode & 0170000) != 0100000 ||
		    ki->ino >= a->ninodes || ki->err)
			continue;
		cr_expect_eq(a->past[ki->ino], ki->map.past_eof, "%s: <%llu> "
			     "past EOF", name, (unsigned long long)ki->ino);
		tail = size % a->bs ? a->bs - size % a->bs : 0;
		if (ki->map.holes == 0 && ki->map.written + ki->map.unwritten
		    == size)	/* the EOF block is mapped */
			cr_expect_eq(a->tail[ki->ino], tail, "%s: <%llu> tail",
				     name, (unsigned long long)ki->ino);
		files++;
	}
	cr_expect_gt(files, 0);
	scan_kernel_free(&k);
}

static void unallocated(const char *name)
{
	struct e2map_statfs sf = E2MAP_STATFS_INIT;
	struct map mp;
	struct ua a = { 0 };

	if (system("command -v dumpe2fs >/dev/null 2>&1"))
		cr_skip_test("no dumpe2fs (Debian's e2fsprogs)");
	load(&mp, name);
	cr_assert_eq(e2map_statfs(mp.m, &sf), 0);
	a.bs = sf.bsize;
	a.total = mp.total;
	a.ninodes = sf.files + 1;
	cr_assert((a.free = calloc(a.total, 1)));
	a.past = calloc(a.ninodes, 8);
	a.tail = calloc(a.ninodes, 8);
	cr_assert(a.past && a.tail);
	cr_assert_eq(e2map_unallocated(mp.m, mp.b, on_unalloc, &a), 0);
	check_dumpe2fs(mp.img, &a);
	check_slack(name, &a);
	free(a.free);
	free(a.past);
	free(a.tail);
	unload(&mp);
}

Test(unallocated, ext4_4k) { unallocated("ext4-4k"); }
Test(unallocated, ext4_1k) { unallocated("ext4-1k"); }
Test(unallocated, ext2_1k) { unallocated("ext2-1k"); }
Test(unallocated, ext3_1k) { unallocated("ext3-1k"); }
Test(unallocated, ext4_noextents) { unallocated("ext4-noextents"); }
Test(unallocated, ext4_deep) { unallocated("ext4-deep"); }

/* offset=: the filesystem 1 MiB into the file moves every range by that. */
Test(unallocated, offsets_are_the_disks)
{
	char *img = fixture_image("ext4-1k"), *shifted;
	struct ua a = { .bs = 1 }, b = { .bs = 1 };
	e2map_blockmap_t *ba, *bb;
	e2map_t *m, *s;

	cr_assert(img);
	shifted = fixture_slice(img, 0, 1LL << 40, 1 << 20);
	cr_assert(shifted);
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert_eq(e2map_open(shifted, "offset=1m", &s), 0);
	cr_expect_eq(e2map_disk_offset(m), 0);
	cr_expect_eq(e2map_disk_offset(s), 1 << 20);
	cr_assert_eq(e2map_blockmap_build(m, &ba), 0);
	cr_assert_eq(e2map_blockmap_build(s, &bb), 0);
	cr_assert_eq(e2map_unallocated(m, ba, on_unalloc, &a), 0);
	cr_assert_eq(e2map_unallocated(s, bb, on_unalloc, &b), 0);
	cr_expect_eq(b.first_offset, a.first_offset + (1 << 20));
	e2map_blockmap_free(ba);
	e2map_blockmap_free(bb);
	e2map_close(m);
	e2map_close(s);
	fixture_remove(shifted);
	fixture_remove(img);
}

/* ---- the e2fsprogs corpus against debugfs, damage and all ---- */

struct corpus_map {
	struct map mp;
	unsigned char *kind;	/* per block: OWNED, FREE, UNKNOWN bits */
	unsigned owner_over_free, icheck_skips;
};
enum { OWNED = 1, FREE = 2, UNKNOWN = 4 };

static void mark_kinds(struct corpus_map *c)
{
	size_t i, n = e2map_blockmap_count(c->mp.b);

	cr_assert((c->kind = calloc(c->mp.total + 1, 1)));
	for (i = 0; i < n; i++) {
		const struct e2map_owner *o = e2map_blockmap_get(c->mp.b, i);
		unsigned char bit = o->kind == E2MAP_OWNER_FREE ? FREE :
				    o->kind == E2MAP_OWNER_UNKNOWN ? UNKNOWN :
				    OWNED;

		for (uint64_t b = o->start; b < o->start + o->count &&
		     b < c->mp.total; b++)
			c->kind[b] |= bit;
	}
}

/*
 * testb of every block: a block the map calls free, the bitmap does; a
 * block the bitmap marks in use has an owner or is UNKNOWN.  A block the
 * bitmap calls free may have an owner (e2map(1), blockmap: the inode
 * that maps it, or the layout, whatever the bitmap says).
 */
static int corpus_testb(struct corpus_map *c, const char *name)
{
	char cmdfile[] = "/tmp/e2map-bm-XXXXXX", line[256];
	int fd = mkstemp(cmdfile), bad = 0;
	uint64_t from = c->mp.first ? c->mp.first : 1, seen = 0;
	unsigned long long blk;
	FILE *f;

	cr_assert_geq(fd, 0);
	dprintf(fd, "testb %" PRIu64 " %" PRIu64 "\n", from,
		c->mp.total - from);
	close(fd);
	cr_assert((f = debugfs(c->mp.img, cmdfile)));
	while (fgets(line, sizeof(line), f)) {
		bool used = strstr(line, "marked in use") != NULL;
		unsigned char k;

		if (sscanf(line, "Block %llu", &blk) != 1 || blk >= c->mp.total)
			continue;
		k = c->kind[blk];
		seen++;
		if (!used && !(k & FREE) && (k & OWNED))
			c->owner_over_free++;
		else if ((used ? (k & FREE) || !(k & (OWNED | UNKNOWN)) :
			  !(k & FREE)) && bad++ < 5)
			cr_log_error("%s: block %llu: testb %s, the map's "
				     "bits %#x", name, blk, used ? "in use" :
				     "free", k);
	}
	pclose(f);
	unlink(cmdfile);
	cr_expect_eq(seen, c->mp.total - from, "%s: testb answered %" PRIu64,
		     name, seen);
	return bad;
}

/* debugfs's one-line answer to CMD on IMG, grepped for WHAT. */
static bool debugfs_says(const char *img, const char *cmd, const char *what)
{
	char line[1024];
	bool found = false;
	FILE *f;

	snprintf(line, sizeof(line), "debugfs -n -R '%s' %s 2>/dev/null", cmd,
		 img);
	cr_assert((f = popen(line, "r")));
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, what) != NULL;
	pclose(f);
	return found;
}

/*
 * Where icheck finds no owner for a block the map gives inode INO, it
 * skipped INO as debugfs does and the kernel does not: a dtime set on an
 * inode in use (a rule for 0.3c-era filesystems), or an inode-table
 * block on the bad-blocks list (f_bbinode, f_bb_in_bb).
 */
static bool icheck_skips(const char *img, uint64_t ino)
{
	char cmd[128], at[64];
	FILE *f;
	unsigned long long itb = 0;

	snprintf(cmd, sizeof(cmd), "stat <%" PRIu64 ">", ino);
	if (debugfs_says(img, cmd, "dtime:"))
		return true;
	snprintf(cmd, sizeof(cmd), "debugfs -n -R 'imap <%" PRIu64 ">' %s "
		 "2>/dev/null", ino, img);
	cr_assert((f = popen(cmd, "r")));
	while (fgets(cmd, sizeof(cmd), f))
		sscanf(cmd, " located at block %llu", &itb);
	pclose(f);
	snprintf(at, sizeof(at), "%llu", itb);
	return itb && debugfs_says(img, "blocks <1>", at);
}

/* The inode owning BLK in the map (the first), or 0. */
static uint64_t owner_of(struct map *mp, uint64_t blk)
{
	size_t i, n = e2map_blockmap_count(mp->b);

	for (i = 0; i < n; i++) {
		const struct e2map_owner *o = e2map_blockmap_get(mp->b, i);

		if (o->ino && blk - o->start < o->count)
			return o->ino;
	}
	return 0;
}

/* icheck of up to 400 blocks inodes own, spread over the map. */
static int corpus_icheck(struct corpus_map *c, const char *name)
{
	char cmdfile[] = "/tmp/e2map-bm-XXXXXX", line[8192];
	int fd = mkstemp(cmdfile), on_line = 0, bad = 0;
	size_t i, n = e2map_blockmap_count(c->mp.b);
	uint64_t owned = 0, step, k = 0;
	unsigned long long blk, ino;
	FILE *f;

	for (i = 0; i < n; i++)
		if (e2map_blockmap_get(c->mp.b, i)->ino)
			owned += e2map_blockmap_get(c->mp.b, i)->count;
	step = owned / 400 + 1;
	cr_assert_geq(fd, 0);
	for (i = 0; i < n; i++) {
		const struct e2map_owner *o = e2map_blockmap_get(c->mp.b, i);

		for (uint64_t b = o->start; o->ino && b < o->start + o->count;
		     b++)
			if (k++ % step == 0) {
				dprintf(fd, "%s %" PRIu64, on_line ? "" :
					"icheck", b);
				if (++on_line == 100)
					dprintf(fd, "\n"), on_line = 0;
			}
	}
	dprintf(fd, "\n");
	close(fd);
	cr_assert((f = debugfs(c->mp.img, cmdfile)));
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\t') || !strncmp(line, "debugfs", 7))
			continue;
		if (sscanf(line, "%llu\t%llu", &blk, &ino) == 2) {
			if (!owns(&c->mp, blk, ino) && bad++ < 5)
				cr_log_error("%s: block %llu: icheck says "
					     "inode %llu", name, blk, ino);
		} else if (sscanf(line, "%llu\t<block not found>",
				  &blk) == 1) {
			if (icheck_skips(c->mp.img, owner_of(&c->mp, blk)))
				c->icheck_skips++;
			else if (bad++ < 5)
				cr_log_error("%s: block %llu: icheck finds no "
					     "owner", name, blk);
		}
	}
	pclose(f);
	unlink(cmdfile);
	return bad;
}

/*
 * Every corpus image e2map opens, its block map against debugfs (issue
 * 20 §11): testb and icheck agree but for the rules e2map(1) gives,
 * which the kernel's reading decides: an owner wins over the bitmap, a
 * bitmap whose checksum fails is read as it lies (f_bad_bmap_csum), and
 * icheck's skips are the kernel's reads.
 */
Test(blockmap, corpus_against_debugfs, .timeout = 1800)
{
	char **srcs;
	int n = fixture_corpus_list(&srcs), bad = 0, done = 0;
	unsigned over = 0, skips = 0;

	if (system("command -v debugfs >/dev/null 2>&1"))
		cr_skip_test("no debugfs (Debian's e2fsprogs)");
	cr_assert_geq(n, 113);
	for (int i = 0; i < n; i++) {
		const char *name = strrchr(srcs[i], '/') + 1;
		struct corpus_map c = { 0 };

		cr_assert((c.mp.img = fixture_decompress(srcs[i])));
		if (e2map_open(c.mp.img, NULL, &c.mp.m) < 0) {
			fixture_remove(c.mp.img);
			continue;	/* refused, as the kernel refuses it */
		}
		cr_assert_eq(e2map_blockmap_build(c.mp.m, &c.mp.b), 0, "%s",
			     name);
		c.mp.first = e2map_blockmap_get(c.mp.b, 0)->start;
		c.mp.total = 0;
		for (size_t j = 0; j < e2map_blockmap_count(c.mp.b); j++) {
			const struct e2map_owner *o =
				e2map_blockmap_get(c.mp.b, j);

			if (o->start + o->count > c.mp.total)
				c.mp.total = o->start + o->count;
		}
		mark_kinds(&c);
		bad += corpus_testb(&c, name) + corpus_icheck(&c, name);
		over += c.owner_over_free;
		skips += c.icheck_skips;
		free(c.kind);
		unload(&c.mp);
		done++;
	}
	fixture_corpus_free(srcs, n);
	cr_log_info("corpus: %d images; %u blocks the bitmap calls free have "
		    "an owner; icheck skipped %u", done, over, skips);
	cr_expect_gt(done, 90);
	cr_expect_eq(bad, 0, "%d blocks answer otherwise than debugfs", bad);
}

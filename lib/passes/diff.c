/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * e2map_diff: two images of one filesystem compared inode by inode.  The
 * two inode tables are read side by side, a block at a time; a block
 * equal in both but for checksums (and atimes) holds no change and costs
 * a memcmp.  Only an inode whose bytes differ is looked at further: its
 * stat, xattrs, names (the two path tables) and mapping (diffmap.c).
 */
#include "passes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Offsets in an on-disk inode (struct ext4_inode). */
#define RAW_ATIME 0x08
#define RAW_BLOCK 0x28
#define RAW_GENERATION 0x64
#define RAW_CSUM_LO 0x7c
#define RAW_EXTRA_ISIZE 0x80
#define RAW_CSUM_HI 0x82
#define RAW_ATIME_EXTRA 0x8c

struct diff {
	e2map_t *a, *b;
	const struct e2map_diff_opts *o;
	e2map_diff_cb cb;
	void *payload;
	struct e2map_diff_summary sum;
	uint32_t isize;
	e2map_paths_t *pa, *pb;
	struct e2map__diff_side side;
	struct e2map__diff_ranges ranges;
	unsigned char *blk_a, *blk_b;
	unsigned char *raw_a, *raw_b;	/* one inode each, masked */
	uint64_t budget;	/* blocks one inode's tree may still read */
};

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Zero what changes without the file changing: checksums, atime. */
static void mask(const struct diff *d, unsigned char *raw)
{
	unsigned extra = d->isize > 128 ? get16(raw + RAW_EXTRA_ISIZE) : 0;

	memset(raw + RAW_CSUM_LO, 0, 2);
	if (extra >= RAW_CSUM_HI + 2 - 128)
		memset(raw + RAW_CSUM_HI, 0, 2);
	if (d->o->flags & E2MAP_DIFF_ATIME)
		return;
	memset(raw + RAW_ATIME, 0, 4);
	if (extra >= RAW_ATIME_EXTRA + 4 - 128)
		memset(raw + RAW_ATIME_EXTRA, 0, 4);
}

/* In use, and a file of its own: an EA inode's value is compared as its
 * parent's xattr. */
static bool in_use(const unsigned char *raw)
{
	struct e2map_inode in;

	e2map__inode_decode(raw, 0, &in);
	return in.links && in.mode && !(in.flags & EXT4_EA_INODE_FL);
}

/* ---- names ---- */

struct names {
	char *buf;		/* NUL-separated */
	size_t len, cap, n;
};

static int add_name(const char *path, size_t len, void *payload)
{
	struct names *nm = payload;

	if (e2map__grow((void **)&nm->buf, &nm->cap, nm->len + len + 1, 1) < 0)
		return -ENOMEM;
	memcpy(nm->buf + nm->len, path, len + 1);
	nm->len += len + 1;
	nm->n++;
	return 0;
}

static int names_of(const e2map_paths_t *p, uint64_t ino, struct names *nm)
{
	nm->len = nm->n = 0;
	return e2map_paths_foreach(p, ino, add_name, nm);
}

static bool names_have(const struct names *nm, const char *s)
{
	for (size_t i = 0; i < nm->len; i += strlen(nm->buf + i) + 1)
		if (!strcmp(nm->buf + i, s))
			return true;
	return false;
}

/* Every name of X is one of Y's. */
static bool names_within(const struct names *x, const struct names *y)
{
	for (size_t i = 0; i < x->len; i += strlen(x->buf + i) + 1)
		if (!names_have(y, x->buf + i))
			return false;
	return true;
}

/* Is some name of NM at or under PREFIX? */
static bool names_under(const struct names *nm, const char *prefix)
{
	size_t pl = strlen(prefix);

	while (pl > 1 && prefix[pl - 1] == '/')
		pl--;
	if (pl == 1 && prefix[0] == '/')
		return true;
	for (size_t i = 0; i < nm->len; i += strlen(nm->buf + i) + 1) {
		const char *s = nm->buf + i;

		if (!strncmp(s, prefix, pl) && (s[pl] == '/' || !s[pl]))
			return true;
	}
	return false;
}

static int build_paths(struct diff *d)
{
	int err;

	if (d->pa)
		return 0;
	if ((err = e2map_paths_build(d->a, &d->pa)) < 0)
		return err;
	return e2map_paths_build(d->b, &d->pb);
}

/* ---- xattrs: the set as an order-free digest of (name, value) ---- */

struct xsum {
	uint64_t sum, x;
	size_t n;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

static int add_xattr(const struct e2map_xattr *x, void *payload)
{
	struct xsum *s = payload;
	uint64_t h = fnv(0xcbf29ce484222325ULL, x->name, x->name_len + 1);

	if (x->value)
		h = fnv(h, x->value, x->value_len);
	h = fnv(h, &x->err, sizeof(x->err));
	s->sum += h;
	s->x ^= h * 0x9e3779b97f4a7c15ULL;
	s->n++;
	return 0;
}

static int xattrs_differ(struct diff *d, uint64_t ino, bool *differ)
{
	struct xsum sa = { 0, 0, 0 }, sb = { 0, 0, 0 };
	int err;

	if ((err = e2map_inode_xattrs(d->a, ino, add_xattr, &sa)) < 0 ||
	    (err = e2map_inode_xattrs(d->b, ino, add_xattr, &sb)) < 0)
		return err;
	*differ = sa.sum != sb.sum || sa.x != sb.x || sa.n != sb.n;
	return 0;
}

/* ---- one inode ---- */

struct entry {
	struct e2map_diff_entry e;
	struct names na, nb;
	bool has_a, has_b;
};

static bool ts_ne(const struct e2map_timespec *x,
		  const struct e2map_timespec *y)
{
	return x->sec != y->sec || x->nsec != y->nsec;
}

static void stat_changes(const struct diff *d, struct entry *en)
{
	const struct e2map_stat *x = &en->e.st_a, *y = &en->e.st_b;
	uint32_t *c = &en->e.change;

	if ((x->mode & 07777) != (y->mode & 07777))
		*c |= E2MAP_DIFF_MODE;
	if (x->uid != y->uid || x->gid != y->gid)
		*c |= E2MAP_DIFF_OWNER;
	if (x->size != y->size)
		*c |= E2MAP_DIFF_SIZE;
	if (x->nlink != y->nlink)
		*c |= E2MAP_DIFF_LINKS;
	if (ts_ne(&x->mtime, &y->mtime) || ts_ne(&x->crtime, &y->crtime) ||
	    ((d->o->flags & E2MAP_DIFF_ATIME) && ts_ne(&x->atime, &y->atime)))
		*c |= E2MAP_DIFF_TIMES;
}

static bool mapped_type(uint32_t mode)
{
	return (mode & 0170000) == 0100000 || (mode & 0170000) == 0040000;
}

static int open_side(e2map_t *m, bool has, const struct e2map_stat *st,
		     e2map_file_t **f)
{
	*f = NULL;
	if (!has || !mapped_type(st->mode))
		return 0;
	return e2map_file_open_ino(m, st->ino, f);
}

/* The ranges: A's side left out for a new file on the number. */
static int data_changes(struct diff *d, struct entry *en, bool fresh)
{
	struct e2map__diff_side *s = &d->side;
	const struct e2map_stat *x = &en->e.st_a, *y = &en->e.st_b;
	e2map_t *fail = en->has_b ? d->b : d->a;
	int err;

	d->ranges.n = 0;	/* no walk below leaves the last inode's */
	if (!en->has_b)
		return 0;	/* a deleted file's blocks are not copied */
	s->bs = d->a->bs;
	s->size_a = fresh ? 0 : x->size;
	s->size_b = y->size;
	s->data_may_change = fresh || ts_ne(&x->mtime, &y->mtime) ||
			     x->size != y->size;
	s->bytes = (d->o->flags & E2MAP_DIFF_BYTES) != 0;
	s->budget = ext2fs_blocks_count(d->a->fs->super);
	s->dir = (y->mode & 0170000) == 0040000;
	if ((err = open_side(d->a, en->has_a && !fresh, x, &s->fa)) == 0 &&
	    (err = open_side(d->b, true, y, &s->fb)) == 0) {
		d->sum.inodes_walked += !!s->fa + !!s->fb;
		fail = d->a;
		if (s->fa || s->fb)
			err = e2map__diff_map(s, &d->ranges);
	}
	if (err < 0)
		en->e.detail = e2map_errmsg(fail);
	e2map_file_close(s->fa);
	e2map_file_close(s->fb);
	s->fa = s->fb = NULL;
	if (err < 0)
		return err;
	en->e.ranges = d->ranges.v;
	en->e.nranges = d->ranges.n;
	if (d->ranges.n)
		en->e.change |= E2MAP_DIFF_DATA;
	return 0;
}

static int stat_both(struct diff *d, struct entry *en, uint64_t ino)
{
	int err = 0;

	en->e.st_a.version = en->e.st_b.version = E2MAP_STAT_VERSION;
	if (en->has_a && (err = e2map_inode_stat(d->a, ino, &en->e.st_a)) < 0)
		en->e.detail = e2map_errmsg(d->a);
	else if (en->has_b &&
		 (err = e2map_inode_stat(d->b, ino, &en->e.st_b)) < 0)
		en->e.detail = e2map_errmsg(d->b);
	return err;
}

/*
 * Names that differ: a hard link's set changed where one name stayed
 * (a link added and one removed leave the count alone), else it moved.
 */
static void names_changes(struct entry *en)
{
	bool kept = false;

	if (names_within(&en->na, &en->nb) && names_within(&en->nb, &en->na))
		return;
	for (size_t i = 0; i < en->na.len; i += strlen(en->na.buf + i) + 1)
		kept |= names_have(&en->nb, en->na.buf + i);
	if (kept && (en->e.st_a.nlink > 1 || en->e.st_b.nlink > 1))
		en->e.change |= E2MAP_DIFF_LINKS;
	else if (!(en->e.change & E2MAP_DIFF_LINKS))
		en->e.change |= E2MAP_DIFF_RENAMED;
}

/* What changed of an inode both images have, the same file. */
static int same_file(struct diff *d, struct entry *en)
{
	bool xd = false;
	int err;

	stat_changes(d, en);
	names_changes(en);
	if ((err = xattrs_differ(d, en->e.ino, &xd)) < 0) {
		en->e.detail = e2map_errmsg(d->a);
		return err;
	}
	if (xd)
		en->e.change |= E2MAP_DIFF_XATTR;
	if ((err = data_changes(d, en, false)) < 0)
		return err;
	if (!en->e.change &&
	    ts_ne(&en->e.st_a.ctime, &en->e.st_b.ctime))
		en->e.change |= E2MAP_DIFF_TIMES;
	return 0;
}

static int compare(struct diff *d, struct entry *en, bool fresh)
{
	int err;

	if ((err = stat_both(d, en, en->e.ino)) < 0)
		return err;
	if (!en->has_a)
		en->e.change |= E2MAP_DIFF_ADDED;
	else if (!en->has_b)
		en->e.change |= E2MAP_DIFF_DELETED;
	else if (fresh)
		en->e.change |= E2MAP_DIFF_TYPE | E2MAP_DIFF_ADDED |
				E2MAP_DIFF_DELETED;
	if (en->has_a && en->has_b && !fresh)
		return same_file(d, en);
	return data_changes(d, en, fresh);
}

static void first_name(const struct names *nm, const char **out)
{
	*out = nm->n ? nm->buf : NULL;
}

static int hand_on(struct diff *d, struct entry *en)
{
	const char *p = d->o->path;

	if (p && !names_under(&en->na, p) && !names_under(&en->nb, p))
		return 0;
	if (!en->e.change)
		return 0;
	first_name(&en->na, &en->e.path_a);
	first_name(&en->nb, &en->e.path_b);
	for (size_t i = 0; i < en->e.nranges; i++) {
		const struct e2map_diff_range *r = &en->e.ranges[i];
		uint64_t end = r->offset + r->length, eof = en->e.st_b.size;

		if (r->kind == E2MAP_DIFF_R_REMOVED ||
		    r->kind == E2MAP_DIFF_R_PUNCHED ||
		    r->kind == E2MAP_DIFF_R_FILLED ||
		    r->kind == E2MAP_DIFF_R_UNWRITTEN || r->offset >= eof)
			continue;
		end = end < eof ? end : eof;
		d->sum.copy_bytes += end - r->offset;
		if (r->kind == E2MAP_DIFF_R_SAME_UNCHECKED)
			d->sum.unchecked_bytes += end - r->offset;
	}
	d->sum.files++;
	return d->cb(&en->e, d->payload);
}

/* RA, RB: the masked raw inodes, NULL where not in use. */
static int diff_inode(struct diff *d, uint64_t ino, const unsigned char *ra,
		      const unsigned char *rb, struct entry *en)
{
	bool fresh;
	int err;

	d->sum.inodes_differing++;
	if ((err = build_paths(d)) < 0)
		return err;
	memset(&en->e, 0, sizeof(en->e));
	en->e.ino = ino;
	en->e.detail = "";
	en->has_a = ra != NULL;
	en->has_b = rb != NULL;
	fresh = ra && rb && (get32(ra + RAW_GENERATION) !=
			     get32(rb + RAW_GENERATION) ||
			     ((get16(ra) ^ get16(rb)) & 0170000));
	if ((ra && (err = names_of(d->pa, ino, &en->na)) < 0) ||
	    (rb && (err = names_of(d->pb, ino, &en->nb)) < 0))
		return err;
	if (!ra)
		en->na.n = en->na.len = 0;
	if (!rb)
		en->nb.n = en->nb.len = 0;
	if ((err = compare(d, en, fresh)) < 0) {
		if (err == -ENOMEM)
			return err;
		en->e.err = err;
		en->e.change |= E2MAP_DIFF_ERROR;
	}
	return hand_on(d, en);
}

/* ---- an inode equal in both: are the blocks its mapping hangs from? ---- */

#define EXTENTS_FL 0x80000u
#define INLINE_DATA_FL 0x10000000u
#define EXTENT_MAGIC 0xf30a
#define ROOT_ENTRIES 4	/* (sizeof i_block - header) / 12 */

static int node_differs(struct diff *d, const unsigned char *node,
			unsigned depth, bool extents);

/*
 * Block PBLK in both images (1: it differs, or cannot be read, or the
 * tree reads more blocks than the filesystem has: a loop or a fan of
 * pointers at one block; let the walk find out); equal, the blocks under
 * it.  DEPTH: indirect levels below it (0: it points at data), or the
 * extent node's depth.
 */
static int child_differs(struct diff *d, uint64_t pblk, unsigned depth,
			 bool extents)
{
	unsigned char *x = NULL, *y = NULL;
	int r = 1;

	if (!pblk)
		return 0;	/* a hole of a block map, in both */
	if (!d->budget-- || !e2map__block_valid(d->a, pblk, 1) ||
	    !(x = malloc(d->a->bs)) || !(y = malloc(d->a->bs)))
		goto out;
	if (e2map__read_block(d->a, pblk, x) < 0 ||
	    e2map__read_block(d->b, pblk, y) < 0 || memcmp(x, y, d->a->bs))
		goto out;
	r = extents ? node_differs(d, x, depth, true) :
	    depth ? node_differs(d, x, depth - 1, false) : 0;
out:
	free(x);
	free(y);
	return r;
}

/*
 * An extent node of depth DEPTH, with room for MAX entries: its index
 * entries' children compared (a leaf's extents are in the node itself).
 * The depth must fall by one a level, as the kernel checks, or a node
 * pointing at itself would never end.
 */
static int extent_differs(struct diff *d, const unsigned char *node,
			  unsigned depth, unsigned max)
{
	unsigned n = get16(node + 2);
	int r;

	if (get16(node) != EXTENT_MAGIC || get16(node + 6) != depth ||
	    n > max)
		return 1;
	for (unsigned i = 0; i < n && depth; i++) {
		const unsigned char *e = node + 12 + 12 * i;

		if ((r = child_differs(d, get32(e + 4) |
				       (uint64_t)get16(e + 8) << 32,
				       depth - 1, true)) != 0)
			return r;
	}
	return 0;
}

/*
 * NODE: an extent node below the inode (of depth DEPTH) or a block of
 * pointers to blocks of DEPTH indirect levels.  1 where a block under it
 * differs.
 */
static int node_differs(struct diff *d, const unsigned char *node,
			unsigned depth, bool extents)
{
	int r;

	if (extents)
		return extent_differs(d, node, depth, (d->a->bs - 12) / 12);
	for (unsigned i = 0; i < d->a->bs / 4; i++)
		if ((r = child_differs(d, get32(node + 4 * i), depth,
				       false)) != 0)
			return r;
	return 0;
}

/* RAW equal in both images: do its extent or indirect blocks differ? */
static bool tree_differs(struct diff *d, const unsigned char *raw)
{
	uint32_t flags = get32(raw + 0x20);
	const unsigned char *ib = raw + RAW_BLOCK;
	uint16_t type = get16(raw) & 0170000;
	unsigned depth = get16(ib + 6);

	if ((type != 0100000 && type != 0040000) || (flags & INLINE_DATA_FL))
		return false;
	d->budget = ext2fs_blocks_count(d->a->fs->super);
	if (flags & EXTENTS_FL)
		return depth > E2MAP_MAX_DEPTH ||
		       extent_differs(d, ib, depth, ROOT_ENTRIES) != 0;
	for (unsigned k = 0; k < 3; k++)	/* single, double, triple */
		if (child_differs(d, get32(ib + 4 * (12 + k)), k, false))
			return true;
	return false;
}

/* An inode table block that could not be read: one error entry. */
static int table_error(struct diff *d, e2map_t *m, uint64_t ino, int err)
{
	struct e2map_diff_entry e;

	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.change = E2MAP_DIFF_ERROR;
	e.err = err;
	e.detail = e2map_errmsg(m);
	d->sum.files++;
	return d->cb(&e, d->payload);
}

/* Block I of group G's table on M into BUF; 0 with *HAVE false: unused. */
static int table_block(e2map_t *m, dgrp_t g, uint32_t i, uint32_t per,
		       unsigned char *buf, uint32_t *n)
{
	ext2_filsys fs = m->fs;
	uint64_t table;

	*n = g < fs->group_desc_count ? e2map__group_inodes(fs, g) : 0;
	if ((uint64_t)i * per >= *n)
		return 0;
	table = ext2fs_inode_table_loc(fs, g);
	if (!e2map__block_valid(m, table, m->itb))
		return e2map__fail(m, -EUCLEAN, "group %u: bad inode table",
				   (unsigned)g);
	return e2map__read_block(m, table + i, buf);
}

/*
 * The inodes of one table block.  SAME: the block is equal in both (the
 * common case): only the blocks an inode's mapping hangs from can differ.
 */
static int diff_slots(struct diff *d, uint64_t first, uint32_t per,
		      uint32_t na, uint32_t nb, uint32_t i0, struct entry *en,
		      bool same)
{
	int err;

	for (uint32_t k = 0; k < per && same; k++) {
		const unsigned char *raw = d->blk_a + k * d->isize;

		if (i0 + k < na && in_use(raw) && tree_differs(d, raw)) {
			memcpy(d->raw_a, raw, d->isize);
			mask(d, d->raw_a);
			memcpy(d->raw_b, d->raw_a, d->isize);
			if ((err = diff_inode(d, first + i0 + k, d->raw_a,
					      d->raw_b, en)) != 0)
				return err;
		}
	}
	for (uint32_t k = 0; k < per && !same; k++) {
		uint32_t slot = i0 + k;
		bool ua, ub;

		memset(d->raw_a, 0, d->isize);
		memset(d->raw_b, 0, d->isize);
		if (slot < na)
			memcpy(d->raw_a, d->blk_a + k * d->isize, d->isize);
		if (slot < nb)
			memcpy(d->raw_b, d->blk_b + k * d->isize, d->isize);
		ua = slot < na && in_use(d->raw_a);
		ub = slot < nb && in_use(d->raw_b);
		if (!ua && !ub)
			continue;
		mask(d, d->raw_a);
		mask(d, d->raw_b);
		if (ua && ub && !memcmp(d->raw_a, d->raw_b, d->isize) &&
		    !tree_differs(d, d->raw_a))
			continue;
		if ((err = diff_inode(d, first + slot, ua ? d->raw_a : NULL,
				      ub ? d->raw_b : NULL, en)) != 0)
			return err;
	}
	return 0;
}

/* Do both groups count the same slots of this block in use?  A slot
 * past a group's itable_unused is no inode, whatever its bytes say. */
static bool same_slots(uint32_t i0, uint32_t per, uint32_t na, uint32_t nb)
{
	uint64_t end = (uint64_t)i0 + per;

	return (na < end ? na : end) == (nb < end ? nb : end);
}

static int diff_group(struct diff *d, dgrp_t g, struct entry *en)
{
	uint32_t per = d->a->bs / d->isize, ipg = d->a->fs->super->
		s_inodes_per_group, na, nb;
	uint64_t first = (uint64_t)g * ipg + 1;
	int err;

	for (uint32_t i = 0; (uint64_t)i * per < ipg; i++) {
		memset(d->blk_a, 0, d->a->bs);
		memset(d->blk_b, 0, d->a->bs);
		if ((err = table_block(d->a, g, i, per, d->blk_a, &na)) < 0)
			return table_error(d, d->a, first, err);
		if ((err = table_block(d->b, g, i, per, d->blk_b, &nb)) < 0)
			return table_error(d, d->b, first, err);
		if ((uint64_t)i * per >= na && (uint64_t)i * per >= nb)
			break;
		err = diff_slots(d, first, per, na, nb, i * per, en,
				 same_slots(i * per, per, na, nb) &&
				 !memcmp(d->blk_a, d->blk_b, d->a->bs));
		if (err)
			return err;
	}
	return 0;
}

/* Refuse what cannot be compared table against table. */
static int check_pair(e2map_t *a, e2map_t *b, unsigned flags)
{
	struct ext2_super_block *sa = a->fs->super, *sb = b->fs->super;

	if (a->bs != b->bs)
		return e2map__fail(a, -EINVAL, "block sizes differ (%u and %u)",
				   (unsigned)a->bs, (unsigned)b->bs);
	if (memcmp(sa->s_uuid, sb->s_uuid, sizeof(sa->s_uuid)) &&
	    !(flags & E2MAP_DIFF_FORCE))
		return e2map__fail(a, -EINVAL, "UUIDs differ: not one "
				   "filesystem (force compares them)");
	if (EXT2_INODE_SIZE(sa) != EXT2_INODE_SIZE(sb) ||
	    sa->s_inodes_per_group != sb->s_inodes_per_group)
		return e2map__fail(a, -EINVAL, "inode size or inodes per "
				   "group differ: not one filesystem");
	return 0;
}

/* The groups' free counts, as statfs sums them: the superblock's lag. */
static int totals(e2map_t *m, uint64_t *apparent, uint64_t *allocated)
{
	struct e2map_statfs st = E2MAP_STATFS_INIT;
	uint64_t count = ext2fs_blocks_count(m->fs->super);
	int err;

	if ((err = e2map_statfs(m, &st)) < 0)
		return err;
	*apparent = count * m->bs;
	*allocated = (count - (st.bfree < count ? st.bfree : count)) * m->bs;
	return 0;
}

static void release(struct diff *d, struct entry *en)
{
	e2map_paths_free(d->pa);
	e2map_paths_free(d->pb);
	free(d->side.buf_a);
	free(d->side.buf_b);
	free(d->ranges.v);
	free(d->blk_a);
	free(d->blk_b);
	free(d->raw_a);
	free(d->raw_b);
	free(en->na.buf);
	free(en->nb.buf);
}

static int run(struct diff *d, struct entry *en)
{
	dgrp_t groups = d->a->fs->group_desc_count;
	int err = 0;

	if (d->b->fs->group_desc_count > groups)
		groups = d->b->fs->group_desc_count;
	if (!(d->blk_a = malloc(d->a->bs)) || !(d->blk_b = malloc(d->a->bs))
	    || !(d->raw_a = malloc(d->isize)) ||
	    !(d->raw_b = malloc(d->isize)))
		return -ENOMEM;
	for (dgrp_t g = 0; g < groups && !err; g++)
		err = diff_group(d, g, en);
	return err;
}

int e2map_diff(e2map_t *a, e2map_t *b, const struct e2map_diff_opts *opts,
	       e2map_diff_cb cb, void *payload,
	       struct e2map_diff_summary *summary)
{
	struct diff d;
	struct entry en;
	int err;

	if (!a || !b || !opts || !cb ||
	    opts->version != E2MAP_DIFF_OPTS_VERSION ||
	    (summary && summary->version != E2MAP_DIFF_SUMMARY_VERSION))
		return -EINVAL;
	if ((err = check_pair(a, b, opts->flags)) < 0)
		return err;
	memset(&d, 0, sizeof(d));
	memset(&en, 0, sizeof(en));
	d.a = a;
	d.b = b;
	d.o = opts;
	d.cb = cb;
	d.payload = payload;
	d.isize = EXT2_INODE_SIZE(a->fs->super);
	d.sum.version = E2MAP_DIFF_SUMMARY_VERSION;
	err = run(&d, &en);
	release(&d, &en);
	if (err == 0 &&
	    (err = totals(a, &d.sum.apparent_a, &d.sum.allocated_a)) == 0 &&
	    (err = totals(b, &d.sum.apparent_b, &d.sum.allocated_b)) == 0 &&
	    summary)
		*summary = d.sum;
	return err;
}

const char *e2map_diff_kind_name(enum e2map_diff_kind k)
{
	static const char *const names[] = {
		"added", "removed", "punched", "moved", "filled", "written",
		"unwritten", "same_mapping_changed", "same_mapping_unchecked"
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k]
							     : "?";
}

const char *e2map_diff_change_name(uint32_t bit)
{
	static const char *const names[] = {
		"added", "deleted", "renamed", "links", "type", "mode",
		"owner", "times", "xattr", "size", "data", "error"
	};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bit == 1u << i)
			return names[i];
	return NULL;
}

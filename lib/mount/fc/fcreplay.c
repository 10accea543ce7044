/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fast-commit replay: what ext4_fc_replay (fs/ext4/fast_commit.c) does at
 * a read-write mount after the log's blocks are back, done by libext2fs on
 * a scratch handle whose writes stay in memory (io_manager.c's overlay).
 *
 * The tags are logical: a range added to or deleted from an inode's
 * extents, an inode's raw copy, a name created, linked or unlinked.  Each
 * is replayed as the kernel replays it, and where its effect is visible
 * to SEEK_DATA/SEEK_HOLE and FIEMAP it is the kernel's effect exactly:
 * the extents are edited as a list, with ext4_ext_insert_extent's merges,
 * ext4_ext_replay_update_ex's splits, ext4_ext_remove_space's cuts and
 * ext4_ext_replay_shrink_inode's merges, never across two leaves, and a
 * tree of depth 0 or 1 is written back where the kernel keeps it.  Blocks
 * the kernel allocates during replay come from its simple allocator (the
 * first free block from the goal, outside the ranges the fast commits add
 * and the blocks replayed inodes held), names go where ext4_add_entry puts
 * them (inline, first fit, a new block, make_indexed_dir, do_split), and
 * the bitmaps are set again for every inode the replay touched, as
 * ext4_fc_set_bitmaps_and_counters sets them.
 *
 * A deeper tree, or one whose leaf overflows, is written back whole, and
 * a deeper htree is left to libext2fs: their extents and names are the
 * kernel's, the blocks that hold them may not be.
 */
#include "mount.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXT_MAGIC 0xf30a
#define INIT_MAX 32768U
#define UNWRITTEN_MAX 32767U
#define ROOT_MAX 4U
#define I_BLOCK 40		/* offsetof(struct ext4_inode, i_block) */
#define I_GENERATION 100	/* offsetof(struct ext4_inode, i_generation) */
#define NONE SIZE_MAX
#define MAX_LBLK 0xffffffffULL	/* EXT_MAX_BLOCKS */
#define MAX_EXTENTS (1U << 20)	/* a tree bigger than this is refused */

struct fx {			/* one extent of the leaves */
	uint32_t lblk, len;
	uint64_t pblk;
	bool unwritten;
	unsigned leaf;		/* the leaf it lies in, counted from 0 */
};

struct tree {			/* an inode's extent tree, read whole */
	struct fx *x;
	size_t n, cap;
	blk64_t *nodes;		/* the blocks below the root */
	size_t nnodes, capnodes;
	unsigned depth, nleaves;
};

struct region {
	uint64_t pblk;
	uint32_t len;
};

struct fcr {
	ext2_filsys fs;
	struct region *rg;	/* fc_regions: never allocated from */
	size_t nrg, caprg;
	ext2_ino_t *mod;	/* fc_modified_inodes, in order */
	size_t nmod, capmod;
	struct tree t;
	unsigned char *raw;	/* one on-disk inode */
	unsigned char *blk;	/* one block */
};

static void put16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static int fcfail(int err, const char *what, uint32_t ino)
{
	return e2map__fail(NULL, err, "fast-commit replay: inode %" PRIu32
			   ": %s: the kernel's mount fails", ino, what);
}

/* What e2map does not replay (the kernel does): refused, not guessed. */
static int unsupported(const char *what, uint32_t ino)
{
	return e2map__fail(NULL, -EOPNOTSUPP, "fast-commit replay: inode %"
			   PRIu32 ": %s: not replayed by e2map", ino, what);
}

static int code2err(errcode_t code, const char *what, uint32_t ino)
{
	return fcfail(code == EXT2_ET_NO_MEMORY ? -ENOMEM : -EIO, what, ino);
}

/* ---- bitmaps and the replay's allocator ---- */

/*
 * ext4_mb_mark_bb: ceil(LEN / cluster) clusters from BLK's cluster, group
 * by group (on bigalloc an unaligned range leaves its last cluster as it
 * was: the kernel's count, kept).  Only the bits that change move the
 * counts.
 */
static void mark_bb(struct fcr *r, uint64_t blk, uint64_t len, bool on)
{
	ext2_filsys fs = r->fs;
	blk64_t ratio = EXT2FS_CLUSTER_RATIO(fs), end = ext2fs_blocks_count(fs->super);
	blk64_t bpg = fs->super->s_blocks_per_group, first, c, n, part;

	while (len && blk < end && blk >= fs->super->s_first_data_block) {
		first = ext2fs_group_first_block2(fs, ext2fs_group_of_blk2(fs, blk));
		c = (blk - first) / ratio;	/* the cluster in its group */
		part = bpg - c * ratio;
		part = len < part ? len : part;
		for (n = 0; n < (part + ratio - 1) / ratio; n++) {
			blk64_t b = first + (c + n) * ratio;

			if (b < end && !ext2fs_test_block_bitmap2(fs->block_map,
								  b) != !on)
				ext2fs_block_alloc_stats2(fs, b, on ? 1 : -1);
		}
		blk += part;
		len -= part;
	}
}

/* The end of the fc region holding BLK, or 0: none holds it. */
static uint64_t excluded_to(const struct fcr *r, uint64_t blk)
{
	size_t i;

	for (i = 0; i < r->nrg; i++)
		if (blk >= r->rg[i].pblk && blk - r->rg[i].pblk < r->rg[i].len)
			return r->rg[i].pblk + r->rg[i].len;
	return 0;
}

/* The first block in [FROM, TO) free and in no fc region, or TO. */
static blk64_t first_free(const struct fcr *r, blk64_t from, blk64_t to)
{
	blk64_t ratio = EXT2FS_CLUSTER_RATIO(r->fs), b = from, skip;

	while (b < to) {
		if (ext2fs_find_first_zero_block_bitmap2(r->fs->block_map, b,
							 to - 1, &b))
			return to;
		b &= ~(ratio - 1);	/* bigalloc: its cluster's first block */
		if (!(skip = excluded_to(r, b)))
			return b;
		b = (skip + ratio - 1) & ~(ratio - 1);
	}
	return to;
}

/*
 * ext4_mb_new_blocks_simple: the first free block from GOAL that no fast
 * commit adds, on to the last group, then from the first group up to
 * GOAL's (the part of GOAL's group before it is never looked at).
 */
static int alloc_simple(struct fcr *r, blk64_t goal, blk64_t *out)
{
	ext2_filsys fs = r->fs;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t end = ext2fs_blocks_count(fs->super), b, stop;

	if (goal < first || goal >= end)
		goal = first;
	stop = ext2fs_group_first_block2(fs, ext2fs_group_of_blk2(fs, goal));
	if ((b = first_free(r, goal, end)) == end &&
	    (b = first_free(r, first, stop)) == stop)
		return fcfail(-ENOSPC, "no free block for the replay", 0);
	mark_bb(r, b, 1, true);
	*out = b;
	return 0;
}

/*
 * ext4_inode_to_goal_block, under delalloc (the default mount), as it
 * runs during the replay: ext4_fill_flex_info has not run yet, so the
 * flex group is 1 and the goal is the inode's own group.
 */
static blk64_t inode_goal(const struct fcr *r, ext2_ino_t ino)
{
	return ext2fs_group_first_block2(r->fs, ext2fs_group_of_ino(r->fs, ino));
}

static int record_modified(struct fcr *r, ext2_ino_t ino)
{
	size_t i;

	for (i = 0; i < r->nmod; i++)
		if (r->mod[i] == ino)
			return 0;
	if (e2map__grow((void **)&r->mod, &r->capmod, r->nmod + 1,
			sizeof(*r->mod)) < 0)
		return -ENOMEM;
	r->mod[r->nmod++] = ino;
	return 0;
}

/* ---- inodes ---- */

static uint16_t raw_mode(const unsigned char *raw)
{
	return le16(raw);
}

static uint32_t raw_flags(const unsigned char *raw)
{
	return le32(raw + 32);
}

static uint64_t raw_size(const unsigned char *raw)
{
	return le32(raw + 4) | (uint64_t)le32(raw + 108) << 32;
}

static int read_raw(struct fcr *r, ext2_ino_t ino)
{
	return ext2fs_read_inode_full(r->fs, ino, (struct ext2_inode *)r->raw,
				      EXT2_INODE_SIZE(r->fs->super)) ? -EIO : 0;
}

static int write_raw(struct fcr *r, ext2_ino_t ino)
{
	errcode_t code = ext2fs_write_inode_full(r->fs, ino,
			(struct ext2_inode *)r->raw,
			EXT2_INODE_SIZE(r->fs->super));

	return code ? code2err(code, "writing the inode", ino) : 0;
}

/* ext4_iget(EXT4_IGET_NORMAL) succeeds: the inode is read into r->raw. */
static bool iget_ok(struct fcr *r, ext2_ino_t ino)
{
	const struct ext2_super_block *sb = r->fs->super;

	if ((ino < EXT2_FIRST_INO(sb) && ino != EXT2_ROOT_INO) ||
	    ino > sb->s_inodes_count)
		return false;
	return read_raw(r, ino) == 0 && le16(r->raw + 26) != 0;
}

/* ext4_mark_inode_used */
static void mark_inode_used(struct fcr *r, ext2_ino_t ino, uint16_t mode)
{
	if (!ext2fs_test_inode_bitmap2(r->fs->inode_map, ino))
		ext2fs_inode_alloc_stats2(r->fs, ino, 1, LINUX_S_ISDIR(mode));
}

/* ---- the extent list ---- */

/* The last extent starting at or before LBLK, or NONE. */
static size_t find(const struct tree *t, uint32_t lblk)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->x[mid].lblk <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : NONE;
}

static uint64_t xend(const struct fx *e)
{
	return (uint64_t)e->lblk + e->len;
}

/* ext4_map_blocks without create: *E is the mapped piece, or a hole. */
static bool lookup(const struct tree *t, uint32_t cur, uint32_t rem,
		   struct fx *e)
{
	size_t i = find(t, cur), next = i == NONE ? 0 : i + 1;

	*e = (struct fx){ .lblk = cur, .len = rem };
	if (i != NONE && cur < xend(&t->x[i])) {
		if (xend(&t->x[i]) - cur < rem)
			e->len = (uint32_t)(xend(&t->x[i]) - cur);
		e->pblk = t->x[i].pblk + (cur - t->x[i].lblk);
		e->unwritten = t->x[i].unwritten;
		return true;
	}
	if (next < t->n && t->x[next].lblk - cur < rem)
		e->len = t->x[next].lblk - cur;
	return false;
}

/* ext4_can_extents_be_merged, of two extents of one leaf */
static bool can_merge(const struct fx *a, const struct fx *b)
{
	return a->leaf == b->leaf && a->unwritten == b->unwritten &&
	       xend(a) == b->lblk &&
	       a->pblk + a->len == b->pblk &&
	       (uint64_t)a->len + b->len <=
			(a->unwritten ? UNWRITTEN_MAX : INIT_MAX);
}

static void drop(struct tree *t, size_t i)
{
	memmove(t->x + i, t->x + i + 1, (t->n - i - 1) * sizeof(*t->x));
	t->n--;
}

static int put_at(struct tree *t, size_t i, const struct fx *e)
{
	if (e2map__grow((void **)&t->x, &t->cap, t->n + 1, sizeof(*t->x)) < 0)
		return -ENOMEM;
	memmove(t->x + i + 1, t->x + i, (t->n - i) * sizeof(*t->x));
	t->x[i] = *e;
	t->n++;
	return 0;
}

/* ext4_ext_try_to_merge_right */
static bool merge_right(struct tree *t, size_t i)
{
	bool done = false;

	while (i + 1 < t->n && can_merge(&t->x[i], &t->x[i + 1])) {
		t->x[i].len += t->x[i + 1].len;
		drop(t, i + 1);
		done = true;
	}
	return done;
}

/* ext4_ext_try_to_merge */
static void try_to_merge(struct tree *t, size_t i)
{
	if (!(i > 0 && merge_right(t, i - 1)))
		merge_right(t, i);
}

static int make_room(struct fcr *r, const struct fx *e, unsigned *leaf);

/* ext4_ext_insert_extent of E into a hole: append, prepend, or a new one. */
static int insert(struct fcr *r, const struct fx *e)
{
	struct tree *t = &r->t;
	size_t i = find(t, e->lblk), ex = i != NONE ? i : t->n ? 0 : NONE;
	int err;

	if (ex != NONE && can_merge(&t->x[ex], e)) {
		t->x[ex].len += e->len;
	} else if (ex != NONE && can_merge(e, &t->x[ex])) {
		t->x[ex].lblk = e->lblk;
		t->x[ex].pblk = e->pblk;
		t->x[ex].len += e->len;
	} else {
		struct fx n = *e;

		/* ext4_find_extent's leaf: the one holding I, else the first */
		n.leaf = i != NONE ? t->x[i].leaf : t->n ? t->x[0].leaf : 0;
		ex = i == NONE ? 0 : i + 1;
		if ((err = make_room(r, e, &n.leaf)) < 0 ||
		    (err = put_at(t, ex, &n)) < 0)
			return err;
	}
	try_to_merge(t, ex);
	return 0;
}

/* ext4_split_extent_at under PRE_IO: two extents, no merge. */
static int split_at(struct tree *t, size_t i, uint32_t at)
{
	struct fx tail = t->x[i];

	if (at <= t->x[i].lblk || at >= xend(&t->x[i]))
		return 0;
	tail.lblk = at;
	tail.pblk += at - t->x[i].lblk;
	tail.len -= at - t->x[i].lblk;
	t->x[i].len = at - t->x[i].lblk;
	return put_at(t, i + 1, &tail);
}

/* ext4_ext_replay_update_ex: [START, START + LEN) gets PBLK and state. */
static int update_ex(struct tree *t, uint32_t start, uint32_t len,
		     bool unwritten, uint64_t pblk)
{
	size_t i = find(t, start);
	int err;

	if (i == NONE || start >= xend(&t->x[i]))
		return -EUCLEAN;
	if ((err = split_at(t, i, start)) < 0)
		return err;
	i = find(t, start);
	if ((err = split_at(t, i, start + len)) < 0)
		return err;
	t->x[i].pblk = pblk;
	t->x[i].unwritten = unwritten;
	return 0;
}

/* ext4_ext_remove_space over [START, LAST]: cut, never merged. */
static int remove_space(struct tree *t, uint32_t start, uint32_t last)
{
	size_t i;
	int err;

	for (i = 0; i < t->n; i++) {
		struct fx *e = &t->x[i];

		if (xend(e) <= start || e->lblk > last)
			continue;
		if (e->lblk < start && xend(e) - 1 > last) {
			if ((err = split_at(t, i, last + 1)) < 0)
				return err;
			e = &t->x[i];
		}
		if (e->lblk < start) {
			e->len = start - e->lblk;
		} else if (xend(e) - 1 > last) {
			e->pblk += last + 1 - e->lblk;
			e->len -= last + 1 - e->lblk;
			e->lblk = last + 1;
		} else {
			drop(t, i--);
		}
	}
	return 0;
}

/*
 * ext4_ext_replay_shrink_inode: every extent it meets on its way from
 * block 0 to END is merged with its neighbours.  It steps a block at a
 * time through holes, meeting the same extent again: that changes
 * nothing, so the walk jumps to the next extent instead.
 */
static void shrink(struct tree *t, uint64_t end)
{
	uint64_t cur = 0;
	size_t i;

	while (cur < end && t->n) {
		i = find(t, (uint32_t)cur);
		if (i == NONE)
			i = 0;
		try_to_merge(t, i);
		i = find(t, (uint32_t)cur);
		if (i == NONE)
			i = 0;
		if (xend(&t->x[i]) > cur)
			cur = xend(&t->x[i]);
		else if (i + 1 < t->n)
			cur = t->x[i + 1].lblk;
		else
			break;
	}
}

/* ---- reading and writing the tree ---- */

static int add_node(struct tree *t, blk64_t b)
{
	if (e2map__grow((void **)&t->nodes, &t->capnodes, t->nnodes + 1,
			sizeof(*t->nodes)) < 0)
		return -ENOMEM;
	t->nodes[t->nnodes++] = b;
	return 0;
}

static int read_node(struct fcr *r, const unsigned char *h, size_t room,
		     unsigned depth, ext2_ino_t ino);

static int read_entries(struct fcr *r, const unsigned char *h,
			unsigned entries, unsigned depth, ext2_ino_t ino)
{
	struct tree *t = &r->t;
	const unsigned char *e = h + 12;
	unsigned char *buf;
	unsigned k;
	int err = 0;

	for (k = 0; k < entries && !err; k++, e += 12) {
		uint64_t p = le32(e + 4) | (uint64_t)le16(e + 8) << 32;
		struct fx x = { le32(e), le16(e + 4), 0, false,
				t->nleaves - 1 };

		if (t->n >= MAX_EXTENTS || t->nnodes >= MAX_EXTENTS)
			return fcfail(-EUCLEAN, "an extent tree too big to "
				      "replay", ino);
		if (!depth) {
			x.pblk = (uint64_t)le16(e + 6) << 32 | le32(e + 8);
			x.unwritten = x.len > INIT_MAX;
			x.len -= x.unwritten ? INIT_MAX : 0;
			err = put_at(t, t->n, &x);
			continue;
		}
		if (!(buf = malloc(r->fs->blocksize)))
			return -ENOMEM;
		if ((err = add_node(t, p)) == 0 &&
		    io_channel_read_blk64(r->fs->io, p, 1, buf))
			err = fcfail(-EIO, "reading an extent block", ino);
		if (!err)
			err = read_node(r, buf, r->fs->blocksize, depth - 1,
					ino);
		free(buf);
	}
	return err;
}

static int read_node(struct fcr *r, const unsigned char *h, size_t room,
		     unsigned depth, ext2_ino_t ino)
{
	unsigned entries = le16(h + 2);

	if (le16(h) != EXT_MAGIC || le16(h + 6) != depth ||
	    12 + (size_t)entries * 12 > room || entries > le16(h + 4))
		return fcfail(-EUCLEAN, "a bad extent tree", ino);
	if (!depth)
		r->t.nleaves++;
	return read_entries(r, h, entries, depth, ino);
}

/* ext4_valid_extent_entries: rising, apart, none empty, none past the end. */
static int tree_valid(struct fcr *r, ext2_ino_t ino)
{
	const struct tree *t = &r->t;
	size_t k;

	for (k = 0; k < t->n; k++)
		if (!t->x[k].len || xend(&t->x[k]) > MAX_LBLK ||
		    (k && xend(&t->x[k - 1]) > t->x[k].lblk))
			return fcfail(-EUCLEAN, "a bad extent tree", ino);
	return 0;
}

/* The extents of inode INO (in r->raw), as ext4_find_extent finds them. */
static int tree_read(struct fcr *r, ext2_ino_t ino)
{
	const unsigned char *root = r->raw + I_BLOCK;
	int err;

	r->t.n = r->t.nnodes = r->t.nleaves = 0;
	if (!(raw_flags(r->raw) & EXT4_EXTENTS_FL))
		return fcfail(-EUCLEAN, "a fast commit for an inode without "
			      "extents", ino);
	r->t.depth = le16(root + 6);
	if (r->t.depth > 5)
		return fcfail(-EUCLEAN, "a bad extent tree", ino);
	if ((err = read_node(r, root, 60, r->t.depth, ino)) < 0)
		return err;
	return tree_valid(r, ino);
}

static void put_header(unsigned char *h, unsigned entries, unsigned max,
		       unsigned depth)
{
	memset(h, 0, 12);
	put16(h, EXT_MAGIC);
	put16(h + 2, entries);
	put16(h + 4, max);
	put16(h + 6, depth);
}

static void put_extent(unsigned char *e, const struct fx *x)
{
	put32(e, x->lblk);
	put16(e + 4, x->len + (x->unwritten ? INIT_MAX : 0));
	put16(e + 6, (uint32_t)(x->pblk >> 32));
	put32(e + 8, (uint32_t)x->pblk);
}

static void put_index(unsigned char *e, uint32_t lblk, blk64_t b)
{
	put32(e, lblk);
	put32(e + 4, (uint32_t)b);
	put16(e + 8, (uint32_t)(b >> 32));
	put16(e + 10, 0);
}

static unsigned node_max(const struct fcr *r)
{
	return (r->fs->blocksize - 12) / 12;
}

static int write_node(struct fcr *r, ext2_ino_t ino, blk64_t b)
{
	errcode_t code = ext2fs_extent_block_csum_set(r->fs, ino,
				(struct ext3_extent_header *)r->blk);

	if (!code)
		code = io_channel_write_blk64(r->fs->io, b, 1, r->blk);
	return code ? code2err(code, "writing an extent block", ino) : 0;
}

/* A leaf of extents [FROM, FROM + N) in block B. */
static int write_leaf(struct fcr *r, ext2_ino_t ino, blk64_t b, size_t from,
		      size_t n)
{
	size_t k;

	memset(r->blk, 0, r->fs->blocksize);
	put_header(r->blk, (unsigned)n, node_max(r), 0);
	for (k = 0; k < n; k++)
		put_extent(r->blk + 12 + 12 * k, &r->t.x[from + k]);
	return write_node(r, ino, b);
}

struct level {			/* one level of a tree being built */
	uint32_t *lblk;
	blk64_t *blk;
	size_t n;
};

/* The index level above LOW, in new blocks, into *UP. */
static int build_index(struct fcr *r, ext2_ino_t ino, blk64_t goal,
		       const struct level *low, struct level *up,
		       unsigned depth)
{
	size_t per = node_max(r), k, j;
	int err = 0;

	up->n = (low->n + per - 1) / per;
	for (k = 0; k < up->n && !err; k++) {
		size_t n = low->n - k * per < per ? low->n - k * per : per;

		if ((err = alloc_simple(r, goal, &up->blk[k])) < 0)
			break;
		up->lblk[k] = low->lblk[k * per];
		memset(r->blk, 0, r->fs->blocksize);
		put_header(r->blk, (unsigned)n, (unsigned)per, depth);
		for (j = 0; j < n; j++)
			put_index(r->blk + 12 + 12 * j, low->lblk[k * per + j],
				  low->blk[k * per + j]);
		err = write_node(r, ino, up->blk[k]);
	}
	return err;
}

/* Leaves full from the left, then index levels until the root holds them. */
static int build_tree(struct fcr *r, ext2_ino_t ino, blk64_t goal)
{
	size_t per = node_max(r), nl = (r->t.n + per - 1) / per, k;
	struct level a = { 0 }, b = { 0 };
	unsigned depth = 1, i;
	int err = -ENOMEM;

	if (!(a.lblk = calloc(nl, sizeof(*a.lblk))) ||
	    !(a.blk = calloc(nl, sizeof(*a.blk))) ||
	    !(b.lblk = calloc(nl, sizeof(*b.lblk))) ||
	    !(b.blk = calloc(nl, sizeof(*b.blk))))
		goto out;
	for (k = 0, err = 0; k < nl && !err; k++) {
		size_t n = r->t.n - k * per < per ? r->t.n - k * per : per;

		a.lblk[k] = r->t.x[k * per].lblk;
		if ((err = alloc_simple(r, goal, &a.blk[k])) == 0)
			err = write_leaf(r, ino, a.blk[k], k * per, n);
	}
	for (a.n = nl; !err && a.n > ROOT_MAX; depth++) {
		err = build_index(r, ino, goal, &a, &b, depth);
		a.n = b.n;
		memcpy(a.lblk, b.lblk, b.n * sizeof(*a.lblk));
		memcpy(a.blk, b.blk, b.n * sizeof(*a.blk));
	}
	if (!err) {
		put_header(r->raw + I_BLOCK, (unsigned)a.n, ROOT_MAX, depth);
		for (i = 0; i < a.n; i++)
			put_index(r->raw + I_BLOCK + 12 + 12 * i, a.lblk[i],
				  a.blk[i]);
	}
out:
	free(a.lblk);
	free(a.blk);
	free(b.lblk);
	free(b.blk);
	return err;
}

static void write_root_extents(struct fcr *r)
{
	size_t k;

	memset(r->raw + I_BLOCK, 0, 60);
	put_header(r->raw + I_BLOCK, (unsigned)r->t.n, ROOT_MAX, 0);
	for (k = 0; k < r->t.n; k++)
		put_extent(r->raw + I_BLOCK + 12 + 12 * k, &r->t.x[k]);
}

/* How many leaves of a depth-1 tree still hold extents. */
static size_t leaves_used(const struct tree *t)
{
	size_t k, n = 0;

	for (k = 0; k < t->n; k++)
		if (!k || t->x[k].leaf != t->x[k - 1].leaf)
			n++;
	return n;
}

/* The extents of leaf LEAF: how many, and the first (they are consecutive). */
static size_t leaf_span(const struct tree *t, unsigned leaf, size_t *first)
{
	size_t k, n = 0;

	*first = NONE;
	for (k = 0; k < t->n; k++)
		if (t->x[k].leaf == leaf && !n++)
			*first = k;
	return n;
}

/*
 * ext4_ext_insert_extent meeting a full leaf of a depth-1 tree: an extent
 * past its last goes into the next leaf while that has room; else
 * ext4_ext_split moves the extents after the one ext4_find_extent found
 * into a new leaf (allocated near it), whose border is the first of them,
 * or the new extent.  *LEAF is where the new extent goes.  A root full of
 * leaves grows in depth: the tree is then written back whole.
 */
static int make_room(struct fcr *r, const struct fx *e, unsigned *leaf)
{
	struct tree *t = &r->t;
	size_t first, n = leaf_span(t, *leaf, &first), last, p, k, f2;
	uint32_t border;
	blk64_t goal, b;
	int err;

	if (t->depth != 1 || n < node_max(r))
		return 0;
	last = first + n - 1;
	if (e->lblk > t->x[last].lblk && last + 1 < t->n &&
	    leaf_span(t, t->x[last + 1].leaf, &f2) < node_max(r)) {
		*leaf = t->x[last + 1].leaf;
		return 0;
	}
	if (leaves_used(t) >= ROOT_MAX)
		return 0;
	p = find(t, e->lblk);
	p = p == NONE || p < first ? first : p > last ? last : p;
	goal = e->lblk > t->x[p].lblk ? t->x[p].pblk + (e->lblk - t->x[p].lblk)
				      : t->x[p].pblk - (t->x[p].lblk - e->lblk);
	if ((err = alloc_simple(r, goal, &b)) < 0 || (err = add_node(t, b)) < 0)
		return err;
	border = p < last ? t->x[p + 1].lblk : e->lblk;
	for (k = p + 1; k <= last; k++)
		t->x[k].leaf = (unsigned)(t->nnodes - 1);
	if (e->lblk >= border)
		*leaf = (unsigned)(t->nnodes - 1);
	return 0;
}

/*
 * A depth-1 tree edited in place: each leaf in its own block, an emptied
 * leaf freed with its index entry (ext4_ext_rm_idx).  0 when a leaf
 * overflowed: the kernel would have split it.
 */
static int write_leaves(struct fcr *r, ext2_ino_t ino)
{
	struct tree *t = &r->t;
	unsigned char *root = r->raw + I_BLOCK, *seen;
	size_t k, from, used = 0;
	unsigned leaf;
	int err = 1;

	if (!(seen = calloc(t->nnodes + 1, 1)))
		return -ENOMEM;
	for (k = 0; k < t->n && err > 0; k = from) {
		for (from = k; from < t->n && t->x[from].leaf == t->x[k].leaf;)
			from++;
		leaf = t->x[k].leaf;
		if (from - k > node_max(r) || leaf >= t->nnodes || seen[leaf] ||
		    used++ == ROOT_MAX)
			err = 0;
		else
			seen[leaf] = 1;
	}
	for (leaf = 0; leaf < t->nnodes && err > 0; leaf++)
		if (!seen[leaf])
			mark_bb(r, t->nodes[leaf], 1, false);
	for (used = 0, k = 0; k < t->n && err > 0; k = from, used++) {
		for (from = k; from < t->n && t->x[from].leaf == t->x[k].leaf;)
			from++;
		leaf = t->x[k].leaf;
		if ((err = write_leaf(r, ino, t->nodes[leaf], k, from - k)) == 0)
			err = 1;
		put_index(root + 12 + 12 * used, t->x[k].lblk, t->nodes[leaf]);
	}
	if (err > 0)
		put_header(root, (unsigned)used, ROOT_MAX, 1);
	free(seen);
	return err;
}

/*
 * The list back into the tree: in the inode when it fits and at most one
 * leaf is left (ext4_ext_try_to_merge_up takes a lone leaf back), in the
 * leaves it was read from while they hold it, else a new tree.
 */
static int tree_write(struct fcr *r, ext2_ino_t ino)
{
	struct tree *t = &r->t;
	size_t k;
	int err = 0;

	if (t->n <= ROOT_MAX && t->depth <= 1 && leaves_used(t) <= 1) {
		for (k = 0; k < t->nnodes; k++)
			mark_bb(r, t->nodes[k], 1, false);
		write_root_extents(r);
	} else if (t->depth != 1 || (err = write_leaves(r, ino)) == 0) {
		for (k = 0; k < t->nnodes; k++)
			mark_bb(r, t->nodes[k], 1, false);
		err = build_tree(r, ino, inode_goal(r, ino));
	}
	return err < 0 ? err : write_raw(r, ino);
}

static void mark_tree(struct fcr *r, bool on)
{
	size_t k;

	for (k = 0; k < r->t.n; k++)
		mark_bb(r, r->t.x[k].pblk, r->t.x[k].len, on);
	for (k = 0; k < r->t.nnodes; k++)
		mark_bb(r, r->t.nodes[k], 1, on);
}

static int add_region(struct fcr *r, uint64_t pblk, uint32_t len)
{
	if (!len)
		return 0;
	if (e2map__grow((void **)&r->rg, &r->caprg, r->nrg + 1,
			sizeof(*r->rg)) < 0)
		return -ENOMEM;
	r->rg[r->nrg++] = (struct region){ pblk, len };
	return 0;
}

/*
 * ext4_ext_clear_bb: the blocks an inode had before its raw copy are
 * freed, and kept from the allocator until the replay ends.
 */
static int clear_bb(struct fcr *r)
{
	size_t k;
	int err = 0;

	mark_tree(r, false);
	for (k = 0; k < r->t.n && !err; k++)
		err = add_region(r, r->t.x[k].pblk, r->t.x[k].len);
	for (k = 0; k < r->t.nnodes && !err; k++)
		err = add_region(r, r->t.nodes[k], 1);
	return err;
}

/* ---- the tags ---- */

/* ext4_fc_replay_add_range */
static int add_range(struct fcr *r, const unsigned char *v)
{
	ext2_ino_t ino = le32(v);
	uint32_t start = le32(v + 4), raw = le16(v + 8), len, cur, rem;
	uint64_t pblk = (uint64_t)le16(v + 10) << 32 | le32(v + 12);
	bool unwritten = raw > INIT_MAX;
	struct fx m, e;
	int err;

	len = unwritten ? raw - INIT_MAX : raw;
	if (!iget_ok(r, ino))
		return 0;
	if ((uint64_t)start + len > MAX_LBLK)
		return fcfail(-EUCLEAN, "a range past the last block", ino);
	if ((err = record_modified(r, ino)) < 0 || (err = tree_read(r, ino)) < 0)
		return err;
	for (cur = start, rem = len; rem && !err; cur += m.len, rem -= m.len) {
		uint64_t want = pblk + (cur - start);

		if (!lookup(&r->t, cur, rem, &m)) {
			e = (struct fx){ cur, m.len, want, unwritten, 0 };
			err = insert(r, &e);
		} else if (m.pblk != want) {
			err = update_ex(&r->t, cur, m.len, unwritten, want);
			mark_bb(r, m.pblk, m.len, false);
		} else {
			err = update_ex(&r->t, cur, m.len, unwritten, m.pblk);
			shrink(&r->t, (uint64_t)start + len);
		}
	}
	if (err < 0)
		return err == -ENOMEM ? err : fcfail(err, "an extent", ino);
	shrink(&r->t, raw_size(r->raw) >> (10 + r->fs->super->s_log_block_size));
	return tree_write(r, ino);
}

/* ext4_fc_replay_del_range */
static int del_range(struct fcr *r, const unsigned char *v)
{
	ext2_ino_t ino = le32(v);
	uint32_t start = le32(v + 4), len = le32(v + 8), cur, rem;
	struct fx m;
	int err;

	if (!iget_ok(r, ino))
		return 0;
	if ((err = record_modified(r, ino)) < 0 || (err = tree_read(r, ino)) < 0)
		return err;
	for (cur = start, rem = len; rem; cur += m.len, rem -= m.len)
		if (lookup(&r->t, cur, rem, &m))
			mark_bb(r, m.pblk, m.len, false);
	if (len && (err = remove_space(&r->t, start, start + len - 1)) < 0)
		return err;
	shrink(&r->t, raw_size(r->raw) >> (10 + r->fs->super->s_log_block_size));
	return tree_write(r, ino);
}

/* ext4_ext_replay_set_iblocks: data and tree blocks, no xattr block. */
static int set_iblocks(struct fcr *r, ext2_ino_t ino)
{
	blk64_t n;
	size_t k;
	int err;

	if (!(raw_flags(r->raw) & EXT4_EXTENTS_FL))
		return 0;
	if ((err = tree_read(r, ino)) < 0)
		return err;
	for (n = r->t.nnodes, k = 0; k < r->t.n; k++)
		n += r->t.x[k].len;
	if (ext2fs_iblk_set(r->fs, (struct ext2_inode *)r->raw, n))
		return fcfail(-EFBIG, "its block count", ino);
	return write_raw(r, ino);
}

/* ext4_fc_replay_inode: the raw inode, but for its extent tree. */
static int inode_tag(struct fcr *r, const unsigned char *v, unsigned vlen)
{
	ext2_ino_t ino = le32(v);
	const unsigned char *fc = v + 4;
	size_t len = vlen - 4;
	unsigned char *root = r->raw + I_BLOCK;
	int err;

	if (iget_ok(r, ino) && (raw_flags(r->raw) & EXT4_EXTENTS_FL) &&
	    tree_read(r, ino) == 0 && (err = clear_bb(r)) < 0)
		return err;
	if ((err = record_modified(r, ino)) < 0)
		return err;
	if (read_raw(r, ino) < 0)
		return fcfail(-EUCLEAN, "no such inode", ino);
	memcpy(r->raw, fc, I_BLOCK);
	memcpy(r->raw + I_GENERATION, fc + I_GENERATION, len - I_GENERATION);
	if ((raw_flags(r->raw) & EXT4_EXTENTS_FL) && le16(root) != EXT_MAGIC)
		put_header(root, 0, ROOT_MAX, 0);
	else if (raw_flags(r->raw) & EXT4_INLINE_DATA_FL)
		memcpy(root, fc + I_BLOCK, 60);
	if ((err = write_raw(r, ino)) < 0)
		return err;
	mark_inode_used(r, ino, raw_mode(r->raw));
	if (!iget_ok(r, ino))
		return fcfail(-EUCLEAN, "not found after its replay", ino);
	return set_iblocks(r, ino);
}

static int file_type(uint16_t mode)
{
	switch (mode & LINUX_S_IFMT) {
	case LINUX_S_IFREG: return EXT2_FT_REG_FILE;
	case LINUX_S_IFDIR: return EXT2_FT_DIR;
	case LINUX_S_IFCHR: return EXT2_FT_CHRDEV;
	case LINUX_S_IFBLK: return EXT2_FT_BLKDEV;
	case LINUX_S_IFIFO: return EXT2_FT_FIFO;
	case LINUX_S_IFSOCK: return EXT2_FT_SOCK;
	case LINUX_S_IFLNK: return EXT2_FT_SYMLINK;
	}
	return EXT2_FT_UNKNOWN;
}

struct dentry {
	ext2_ino_t parent, ino;
	char name[EXT2_NAME_LEN + 1];
	int len;
};

static void dentry(const unsigned char *v, unsigned vlen, struct dentry *d)
{
	d->parent = le32(v);
	d->ino = le32(v + 4);
	d->len = (int)(vlen - 8);
	memcpy(d->name, v + 8, (size_t)d->len);
	d->name[d->len] = 0;
}

static bool name_exists(struct fcr *r, const struct dentry *d)
{
	ext2_ino_t found;

	return !ext2fs_lookup(r->fs, d->parent, d->name, d->len, NULL, &found);
}

/* ---- directories: ext4_add_entry, as fs/ext4/namei.c adds a name ---- */

#define DOT_LEN 12		/* ext4_dir_rec_len(1) and (2) */
#define DX_INFO 24		/* struct dx_root_info, after "." and ".." */
#define DX_ENTRIES 32
#define DX_TAIL 8

static unsigned rec_len(unsigned name_len)
{
	return (8 + name_len + 3) & ~3U;
}

static unsigned csum_size(const struct fcr *r)
{
	return ext2fs_has_feature_metadata_csum(r->fs->super) ? 12 : 0;
}

/* A directory block's entry at OFF: inode, rec_len, name_len. */
struct de {
	uint32_t ino;
	unsigned rlen, nlen;
};

static struct de de_at(const unsigned char *b, size_t off)
{
	return (struct de){ le32(b + off), le16(b + off + 4), b[off + 6] };
}

static void de_put(struct fcr *r, unsigned char *b, size_t off,
		   const struct dentry *d, unsigned rlen, uint16_t mode)
{
	put32(b + off, d->ino);
	put16(b + off + 4, rlen);
	b[off + 6] = (unsigned char)d->len;
	b[off + 7] = ext2fs_has_feature_filetype(r->fs->super) ?
		     (unsigned char)file_type(mode) : 0;
	memcpy(b + off + 8, d->name, (size_t)d->len);
}

/* The logical block LBLK of the directory whose tree is r->t. */
static int dir_block(struct fcr *r, ext2_ino_t dir, uint32_t lblk,
		     blk64_t *pblk, unsigned char *buf)
{
	struct fx m;
	errcode_t code;

	if (!lookup(&r->t, lblk, 1, &m) || m.unwritten)
		return fcfail(-EUCLEAN, "a directory block not mapped", dir);
	*pblk = m.pblk;
	code = ext2fs_read_dir_block4(r->fs, m.pblk, buf, 0, dir);
	if (code == EXT2_ET_DIR_CSUM_INVALID)
		return fcfail(-EBADMSG, "directory block failed checksum", dir);
	return code ? fcfail(-EUCLEAN, "a bad directory block", dir) : 0;
}

static int dir_write(struct fcr *r, ext2_ino_t dir, blk64_t pblk,
		     unsigned char *buf)
{
	if (csum_size(r))
		ext2fs_initialize_dirent_tail(r->fs, EXT2_DIRENT_TAIL(buf,
					      r->fs->blocksize));
	return ext2fs_write_dir_block4(r->fs, pblk, buf, 0, dir) ?
	       fcfail(-EIO, "writing a directory block", dir) : 0;
}

/*
 * ext4_ext_map_blocks allocating block LBLK of DIR (tree in r->t): near
 * the extent ext4_find_extent finds (ext4_ext_find_goal); on bigalloc a
 * block of a cluster that extent already holds (get_implied_cluster_alloc),
 * else a new cluster, at LBLK's offset in it.
 */
static int map_new(struct fcr *r, ext2_ino_t dir, uint32_t lblk, blk64_t *pblk)
{
	blk64_t ratio = EXT2FS_CLUSTER_RATIO(r->fs), off = lblk & (ratio - 1);
	size_t i = find(&r->t, lblk);
	const struct fx *x = i != NONE ? &r->t.x[i] : r->t.n ? r->t.x : NULL;
	blk64_t goal, b;
	int err;

	if (x && off && (lblk / ratio == x->lblk / ratio ||
			 lblk / ratio == (xend(x) - 1) / ratio)) {
		b = lblk / ratio == (xend(x) - 1) / ratio ?
		    x->pblk + x->len - 1 : x->pblk;
		*pblk = (b & ~(ratio - 1)) + off;
		return 0;
	}
	if (!x)
		goal = inode_goal(r, dir);
	else if (lblk > x->lblk)
		goal = x->pblk + (lblk - x->lblk);
	else
		goal = x->pblk - (x->lblk - lblk);
	if ((err = alloc_simple(r, goal - off, &b)) < 0)
		return err;
	*pblk = b + off;
	return 0;
}

/*
 * ext4_append: a block at the end of the directory (inode in r->raw,
 * tree in r->t), allocated near the block before it.  Its bytes are the
 * caller's to write.
 */
static int dir_append(struct fcr *r, ext2_ino_t dir, uint32_t *lblk,
		      blk64_t *pblk)
{
	uint64_t size = raw_size(r->raw);
	struct fx e;
	int err;

	*lblk = (uint32_t)(size >> (10 + r->fs->super->s_log_block_size));
	if ((err = map_new(r, dir, *lblk, pblk)) < 0)
		return err;
	e = (struct fx){ *lblk, 1, *pblk, false, 0 };
	if ((err = insert(r, &e)) < 0)
		return err;
	size += r->fs->blocksize;
	put32(r->raw + 4, (uint32_t)size);
	put32(r->raw + 108, (uint32_t)(size >> 32));
	return tree_write(r, dir);
}

/* ext4_find_dest_de and ext4_insert_dentry: the first entry with room. */
static bool add_in(struct fcr *r, unsigned char *b, size_t room,
		   const struct dentry *d, uint16_t mode)
{
	unsigned need = rec_len((unsigned)d->len), used;
	size_t off = 0;
	struct de e;

	while (off + 12 <= room) {
		e = de_at(b, off);
		used = e.ino ? rec_len(e.nlen) : 0;
		if (e.rlen < 12 || off + e.rlen > room || used > e.rlen)
			return false;
		if (e.rlen - used >= need) {
			if (used)
				put16(b + off + 4, used);
			de_put(r, b, off + used, d, e.rlen - used, mode);
			return true;
		}
		off += e.rlen;
	}
	return false;
}

static bool add_to_block(struct fcr *r, unsigned char *b,
			 const struct dentry *d, uint16_t mode)
{
	return add_in(r, b, r->fs->blocksize - csum_size(r), d, mode);
}

static int name_hash(struct fcr *r, int version, const char *name, int len,
		     uint32_t *hash)
{
	ext2_dirhash_t h, minor;

	if (version <= EXT2_HASH_TEA &&
	    (r->fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		version += 3;
	if (ext2fs_dirhash2(version, name, len, r->fs->encoding, 0,
			    r->fs->super->s_hash_seed, &h, &minor))
		return -EOPNOTSUPP;
	*hash = h;
	return 0;
}

struct dxmap {
	uint32_t hash;
	unsigned off, size;
};

/* dx_sort_map: a comb sort, then bubbles; equal hashes keep its order. */
static void sort_map(struct dxmap *map, size_t count)
{
	size_t gap = count, p;
	bool more;
	struct dxmap tmp;

	while (gap > 2) {
		gap = gap * 10 / 13;
		if (gap == 9 || gap == 10)
			gap = 11;
		for (p = count - 1; p >= gap; p--)
			if (map[p].hash < map[p - gap].hash) {
				tmp = map[p];
				map[p] = map[p - gap];
				map[p - gap] = tmp;
			}
	}
	do {
		more = false;
		for (p = count - 1; p > 0; p--)
			if (map[p].hash < map[p - 1].hash) {
				tmp = map[p];
				map[p] = map[p - 1];
				map[p - 1] = tmp;
				more = true;
			}
	} while (more);
}

/* dx_make_map: the live entries of B, last first, then by hash. */
static int make_map(struct fcr *r, const unsigned char *b, int version,
		    struct dxmap *map, size_t *count)
{
	size_t off = 0, n = 0, bs = r->fs->blocksize;
	struct de e;
	int err;

	while (off + 8 <= bs) {
		e = de_at(b, off);
		if (e.rlen < 8 || off + e.rlen > bs || 8 + e.nlen > e.rlen)
			break;
		if (e.ino && e.nlen) {
			map[n] = (struct dxmap){ 0, (unsigned)off, e.rlen };
			if ((err = name_hash(r, version, (const char *)b + off + 8,
					     (int)e.nlen, &map[n].hash)) < 0)
				return err;
			n++;
		}
		off += e.rlen;
	}
	for (off = 0; off < n / 2; off++) {
		struct dxmap t = map[off];

		map[off] = map[n - 1 - off];
		map[n - 1 - off] = t;
	}
	sort_map(map, n);
	*count = n;
	return 0;
}

/* dx_move_dirents: MAP's entries packed at the start of TO; the last. */
static size_t move_dirents(unsigned char *from, unsigned char *to,
			   const struct dxmap *map, size_t n)
{
	size_t k, at = 0, last = 0;

	for (k = 0; k < n; k++) {
		unsigned char *de = from + map[k].off;
		unsigned rl = rec_len(de[6]);

		memcpy(to + at, de, rl);
		put16(to + at + 4, rl);
		put32(de, 0);
		memset(de + 6, 0, le16(de + 4) - 6);
		last = at;
		at += rl;
	}
	return last;
}

/* dx_pack_dirents: the live entries of B packed in place; the last. */
static size_t pack_dirents(unsigned char *b, size_t bs)
{
	size_t off = 0, to = 0, last = 0;
	struct de e;

	while (off + 8 <= bs) {
		e = de_at(b, off);
		if (e.rlen < 8 || off + e.rlen > bs || 8 + e.nlen > e.rlen)
			break;
		if (e.ino && e.nlen) {
			unsigned rl = rec_len(e.nlen);

			memmove(b + to, b + off, rl);
			put16(b + to + 4, rl);
			last = to;
			to += rl;
		}
		off += e.rlen;
	}
	return last;
}

/* dx_insert_block: an index entry after entry AT of the node at NODE. */
static void dx_insert(unsigned char *node, unsigned at, uint32_t hash,
		      uint32_t lblk)
{
	unsigned count = le16(node + 2);
	unsigned char *e = node + 8 * (at + 1);

	memmove(e + 8, e, 8 * (count - at - 1));
	put32(e, hash);
	put32(e + 4, lblk);
	put16(node + 2, count + 1);
}

struct split {			/* one leaf of an htree and where it lies */
	unsigned char *buf;
	blk64_t pblk;
};

/*
 * do_split: the leaf A is split by hash into A and a new block B, half
 * of the bytes each; the index at NODE (entry AT points to A) gets B.
 * On return A is the block the new name (hash HASH) goes to, *LAST its
 * last entry.
 */
static int do_split(struct fcr *r, ext2_ino_t dir, struct split *a,
		    struct split *b, unsigned char *node, unsigned at,
		    int version, uint32_t hash, size_t *last)
{
	size_t bs = r->fs->blocksize, count, i, move = 0, size = 0, split;
	size_t la, lb;
	struct dxmap *map = calloc(bs / 8, sizeof(*map));
	uint32_t lblk, hash2;
	unsigned continued;
	int err;

	if (!map)
		return -ENOMEM;
	if ((err = dir_append(r, dir, &lblk, &b->pblk)) < 0 ||
	    (err = make_map(r, a->buf, version, map, &count)) < 0 ||
	    (err = count < 2 ? fcfail(-EUCLEAN, "a directory leaf to "
				      "split", dir) : 0) < 0)
		goto out;
	for (i = count; i-- > 0; move++) {
		if (size + map[i].size / 2 > bs / 2)
			break;
		size += map[i].size;
	}
	split = i != (size_t)-1 && i > 0 ? count - move : count / 2;
	hash2 = map[split].hash;
	continued = hash2 == map[split - 1].hash;
	memset(b->buf, 0, bs);
	lb = move_dirents(a->buf, b->buf, map + split, count - split);
	la = pack_dirents(a->buf, bs);
	put16(a->buf + la + 4, (unsigned)(bs - csum_size(r) - la));
	put16(b->buf + lb + 4, (unsigned)(bs - csum_size(r) - lb));
	memset(a->buf + la + rec_len(a->buf[la + 6]), 0,
	       bs - csum_size(r) - la - rec_len(a->buf[la + 6]));
	dx_insert(node, at, hash2 + continued, lblk);
	*last = la;
	if (hash >= hash2) {
		struct split t = *a;

		*a = *b;
		*b = t;
		*last = lb;
	}
out:
	free(map);
	return err;
}

/* add_dirent_to_buf after do_split: the name after the last entry. */
static void add_after(struct fcr *r, unsigned char *b, size_t last,
		      const struct dentry *d, uint16_t mode)
{
	unsigned used = rec_len(b[last + 6]), rl = le16(b + last + 4);

	put16(b + last + 4, used);
	de_put(r, b, last + used, d, rl - used, mode);
}

static int write_split(struct fcr *r, ext2_ino_t dir, struct split *a,
		       struct split *b, blk64_t node_pblk, unsigned char *node)
{
	int err;

	if ((err = dir_write(r, dir, a->pblk, a->buf)) < 0 ||
	    (err = dir_write(r, dir, b->pblk, b->buf)) < 0)
		return err;
	return ext2fs_write_dir_block4(r->fs, node_pblk, node, 0, dir) ?
	       fcfail(-EIO, "writing a directory index", dir) : 0;
}

/* do_split, then the name after the last entry of its half; all written. */
static int split_add(struct fcr *r, const struct dentry *d, uint16_t mode,
		     struct split *a, struct split *b, unsigned char *node,
		     unsigned at, int version, uint32_t hash,
		     unsigned char *root, blk64_t root_pblk)
{
	size_t last;
	int err;

	if ((err = do_split(r, d->parent, a, b, node, at, version, hash,
			    &last)) < 0)
		return err;
	add_after(r, a->buf, last, d, mode);
	return write_split(r, d->parent, a, b, root_pblk, root);
}

static int two_blocks(struct fcr *r, struct split *a, struct split *b)
{
	a->buf = malloc(r->fs->blocksize);
	b->buf = malloc(r->fs->blocksize);
	return a->buf && b->buf ? 0 : -ENOMEM;
}

/* dx_probe's checks of the root: true where it finds ERR_BAD_DX_DIR. */
static bool dx_root_bad(const struct fcr *r, const unsigned char *root)
{
	size_t bs = r->fs->blocksize, ilen = root[DX_INFO + 5], limit;
	unsigned version = root[DX_INFO + 4], count, k;
	unsigned levels = ext2fs_has_feature_largedir(r->fs->super) ? 3 : 2;

	if ((version != EXT2_HASH_LEGACY && version != EXT2_HASH_HALF_MD4 &&
	     version != EXT2_HASH_TEA) || (root[DX_INFO + 7] & 1) ||
	    root[DX_INFO + 6] >= levels || DX_INFO + ilen + 8 > bs)
		return true;
	limit = (bs - DX_INFO - ilen - (csum_size(r) ? DX_TAIL : 0)) / 8;
	count = le16(root + DX_INFO + ilen + 2);
	if (le16(root + DX_INFO + ilen) != limit || !count || count > limit)
		return true;
	for (k = 0; k < count; k++)	/* a tree cycle back to the root */
		if (!(le32(root + DX_INFO + ilen + 8 * k + 4) & 0x0fffffff) &&
		    !root[DX_INFO + 6])
			return true;
	return false;
}

/*
 * ext4_dx_add_entry for a one-level htree whose root has room: the leaf
 * the hash picks, split when full.  *DONE is false where it does not
 * apply (a deeper tree, a full root): libext2fs's htree code adds the
 * name then, and its blocks may not be the kernel's.
 */
static int dx_add(struct fcr *r, const struct dentry *d, uint16_t mode,
		  unsigned char *root, blk64_t root_pblk, bool *done)
{
	unsigned char *node = root + DX_ENTRIES;
	unsigned count = le16(node + 2), limit = le16(node), at = 0, k;
	int version = root[DX_INFO + 4];
	struct split a = { 0 }, b = { 0 };
	uint32_t hash;
	int err;

	*done = false;
	if (root[DX_INFO + 6] || root[DX_INFO + 5] != 8 || !count ||
	    count >= limit || limit > (r->fs->blocksize - DX_ENTRIES) / 8 ||
	    name_hash(r, version, d->name, d->len, &hash) < 0)
		return 0;
	for (k = 1; k < count; k++)
		if (le32(node + 8 * k) <= hash)
			at = k;
	*done = true;
	if ((err = two_blocks(r, &a, &b)) < 0 ||
	    (err = dir_block(r, d->parent, le32(node + 8 * at + 4) & 0x0fffffff,
			     &a.pblk, a.buf)) < 0)
		goto out;
	if (add_to_block(r, a.buf, d, mode)) {
		err = dir_write(r, d->parent, a.pblk, a.buf);
		goto out;
	}
	err = split_add(r, d, mode, &a, &b, node, at, version, hash, root,
			root_pblk);
out:
	free(a.buf);
	free(b.buf);
	return err;
}

/*
 * make_indexed_dir: a one-block directory that is full becomes an htree,
 * its entries moved to a new block 1 and split by hash with a block 2.
 */
static int make_indexed(struct fcr *r, const struct dentry *d, uint16_t mode,
			unsigned char *root, blk64_t root_pblk)
{
	size_t bs = r->fs->blocksize, cs = csum_size(r), from, len, off;
	int version = r->fs->super->s_def_hash_version;
	struct split a = { 0 }, b = { 0 };
	uint32_t lblk, hash;
	int err;

	from = le16(root + 4);
	if (from < DOT_LEN || from + DOT_LEN > bs ||
	    (from += le16(root + from + 4)) >= bs - cs)
		return fcfail(-EUCLEAN, "a bad \"..\" entry", d->parent);
	len = bs - cs - from;
	if ((err = two_blocks(r, &a, &b)) < 0 ||
	    (err = dir_append(r, d->parent, &lblk, &a.pblk)) < 0)
		goto out;
	put32(r->raw + 32, raw_flags(r->raw) | EXT2_INDEX_FL);
	memset(a.buf, 0, bs);
	memcpy(a.buf, root + from, len);
	memset(root + from, 0, len);
	for (off = 0; off + le16(a.buf + off + 4) < len;) {
		if (le16(a.buf + off + 4) < 12) {
			err = fcfail(-EUCLEAN, "a bad directory entry",
				     d->parent);
			goto out;
		}
		off += le16(a.buf + off + 4);
	}
	put16(a.buf + off + 4, (unsigned)(bs - cs - off));
	put16(root + DOT_LEN + 4, (unsigned)(bs - DOT_LEN));
	memset(root + DX_INFO, 0, 8);
	root[DX_INFO + 4] = (unsigned char)version;
	root[DX_INFO + 5] = 8;
	put16(root + DX_ENTRIES, (unsigned)((bs - DX_ENTRIES -
					     (cs ? DX_TAIL : 0)) / 8));
	put16(root + DX_ENTRIES + 2, 1);
	put32(root + DX_ENTRIES + 4, lblk);
	if ((err = write_raw(r, d->parent)) == 0 &&
	    (err = name_hash(r, version, d->name, d->len, &hash)) == 0)
		err = split_add(r, d, mode, &a, &b, root + DX_ENTRIES, 0,
				version, hash, root, root_pblk);
out:
	free(a.buf);
	free(b.buf);
	return err;
}

/* ---- inline directories (fs/ext4/inline.c) ---- */


static size_t xattr_len(unsigned name_len)	/* EXT4_XATTR_LEN */
{
	return (16 + name_len + 3) & ~(size_t)3;
}

static long xattr_size(long size)		/* EXT4_XATTR_SIZE */
{
	return (size + 3) & ~3L;
}

/*
 * get_max_inline_xattr_value_size of the inode in r->raw: the bytes
 * system.data may hold, the in-inode xattr space its neighbours leave.
 */
static long max_inline_value(const struct fcr *r)
{
	long isz = EXT2_INODE_SIZE(r->fs->super), extra, min_offs, free;
	const unsigned char *first, *e, *data = NULL, *end = r->raw + isz;

	if (isz <= EXT2_GOOD_OLD_INODE_SIZE)
		return 0;
	extra = le16(r->raw + EXT2_GOOD_OLD_INODE_SIZE);
	if (EXT2_GOOD_OLD_INODE_SIZE + extra + 8 > isz)
		return 0;
	min_offs = isz - EXT2_GOOD_OLD_INODE_SIZE - extra - 4;
	first = r->raw + EXT2_GOOD_OLD_INODE_SIZE + extra + 4;
	if (le32(first - 4) != E2MAP_XATTR_MAGIC)
		return xattr_size(min_offs - (long)xattr_len(4) - 3 - 4);
	for (e = first; e + 4 <= end && le32(e); e += xattr_len(e[0])) {
		if (e + xattr_len(e[0]) >= end)
			return 0;
		if (!le32(e + 4) && le32(e + 8) && le16(e + 2) < min_offs)
			min_offs = le16(e + 2);
		if (e[1] == E2MAP_XATTR_INDEX_SYSTEM && e[0] == 4 && !memcmp(e + 16, "data", 4))
			data = e;
	}
	free = min_offs - (long)(e - first) - 4;
	if (data)
		return free + xattr_size((long)le32(data + 8));
	free -= (long)xattr_len(4);
	return free > 3 ? xattr_size(free - 3) : 0;
}

static int inline_write(struct fcr *r, ext2_ino_t dir, unsigned char *buf,
			size_t size)
{
	if (ext2fs_inline_data_set(r->fs, dir, NULL, buf, size) ||
	    read_raw(r, dir) < 0)
		return fcfail(-EIO, "writing an inline directory", dir);
	put32(r->raw + 4, (uint32_t)size);
	put32(r->raw + 108, 0);
	return write_raw(r, dir);
}

/*
 * ext4_xattr_set_entry clears the in-inode magic when the last xattr
 * goes (so FIEMAP_FLAG_XATTR finds none); libext2fs leaves it.
 */
static void no_empty_xattrs(struct fcr *r)
{
	long isz = EXT2_INODE_SIZE(r->fs->super), extra;
	unsigned char *hdr;

	if (isz <= EXT2_GOOD_OLD_INODE_SIZE)
		return;
	extra = le16(r->raw + EXT2_GOOD_OLD_INODE_SIZE);
	hdr = r->raw + EXT2_GOOD_OLD_INODE_SIZE + extra;
	if (EXT2_GOOD_OLD_INODE_SIZE + extra + 8 <= isz &&
	    le32(hdr) == E2MAP_XATTR_MAGIC && !le32(hdr + 4))
		put32(hdr, 0);
}

/* ext4_update_final_de: the last entry of [B, B + OLD) reaches B + NEW. */
static void final_de(unsigned char *b, size_t old, size_t new)
{
	size_t off = 0, prev = 0;

	while (off < old && le16(b + off + 4) >= 12) {
		prev = off;
		off += le16(b + off + 4);
	}
	put16(b + prev + 4, (unsigned)(le16(b + prev + 4) + new - old));
}

/*
 * ext4_convert_inline_data_nolock for a directory: system.data goes, the
 * entries move to a new block 0 after "." and "..", the tree is an empty
 * extent root plus that block.
 */
static int inline_to_block(struct fcr *r, ext2_ino_t dir,
			   const unsigned char *buf, size_t size)
{
	size_t bs = r->fs->blocksize, cs = csum_size(r);
	struct ext2_xattr_handle *h = NULL;
	unsigned char *blk;
	struct dentry dot = { dir, dir, ".", 1 }, dotdot = { dir, 0, "..", 2 };
	struct fx e;
	blk64_t b;
	int err;

	if (ext2fs_xattrs_open(r->fs, dir, &h) || ext2fs_xattrs_read(h) ||
	    ext2fs_xattr_remove(h, "system.data") || ext2fs_xattrs_write(h)) {
		ext2fs_xattrs_close(&h);
		return fcfail(-EIO, "removing inline data", dir);
	}
	ext2fs_xattrs_close(&h);
	if (read_raw(r, dir) < 0)
		return fcfail(-EIO, "reading the directory", dir);
	no_empty_xattrs(r);
	put32(r->raw + 32, (raw_flags(r->raw) & ~EXT4_INLINE_DATA_FL) |
			   EXT4_EXTENTS_FL);
	memset(r->raw + I_BLOCK, 0, E2MAP_MIN_INLINE_DATA_SIZE);
	r->t.n = r->t.nnodes = r->t.nleaves = 0;
	r->t.depth = 0;
	if ((err = alloc_simple(r, inode_goal(r, dir), &b)) < 0)
		return err;
	e = (struct fx){ 0, 1, b, false, 0 };
	if ((err = insert(r, &e)) < 0)
		return err;
	put32(r->raw + 4, (uint32_t)bs);
	put32(r->raw + 108, 0);
	if ((err = tree_write(r, dir)) < 0 || !(blk = calloc(1, bs)))
		return err < 0 ? err : -ENOMEM;
	dotdot.ino = le32(buf);
	de_put(r, blk, 0, &dot, DOT_LEN, LINUX_S_IFDIR);
	de_put(r, blk, DOT_LEN, &dotdot, DOT_LEN, LINUX_S_IFDIR);
	memcpy(blk + 2 * DOT_LEN, buf + 4, size - 4);
	final_de(blk, size - 4 + 2 * DOT_LEN, bs - cs);
	err = dir_write(r, dir, b, blk);
	free(blk);
	return err;
}

/*
 * ext4_try_add_inline_entry: the first entry with room in i_block, then
 * in system.data (grown to all the inode's free xattr space when it held
 * nothing, ext4_update_inline_dir); else the directory becomes a block
 * and 1 says so: the name then goes in as in any directory of blocks.
 */
static int inline_add(struct fcr *r, const struct dentry *d, uint16_t mode)
{
	ext2_filsys fs = r->fs;
	unsigned char *buf = NULL, *grown;
	size_t size = 0;
	long more;
	int err;

	if (ext2fs_inline_data_size(fs, d->parent, &size) || size < E2MAP_MIN_INLINE_DATA_SIZE ||
	    !(buf = malloc(size)) ||
	    ext2fs_inline_data_get(fs, d->parent, NULL, buf, &size)) {
		free(buf);
		return fcfail(-EUCLEAN, "a bad inline directory", d->parent);
	}
	if (add_in(r, buf + 4, E2MAP_MIN_INLINE_DATA_SIZE - 4, d, mode) ||
	    add_in(r, buf + E2MAP_MIN_INLINE_DATA_SIZE, size - E2MAP_MIN_INLINE_DATA_SIZE, d, mode)) {
		err = inline_write(r, d->parent, buf, size);
		goto out;
	}
	if (size == E2MAP_MIN_INLINE_DATA_SIZE && (err = read_raw(r, d->parent)) == 0 &&
	    (more = max_inline_value(r)) > DOT_LEN) {
		if (!(grown = realloc(buf, E2MAP_MIN_INLINE_DATA_SIZE + (size_t)more))) {
			err = -ENOMEM;
			goto out;
		}
		buf = grown;
		memset(buf + E2MAP_MIN_INLINE_DATA_SIZE, 0, (size_t)more);
		put16(buf + E2MAP_MIN_INLINE_DATA_SIZE + 4, (unsigned)more);
		size = E2MAP_MIN_INLINE_DATA_SIZE + (size_t)more;
		if (add_in(r, buf + E2MAP_MIN_INLINE_DATA_SIZE, (size_t)more, d, mode)) {
			err = inline_write(r, d->parent, buf, size);
			goto out;
		}
		if ((err = inline_write(r, d->parent, buf, size)) < 0)
			goto out;
	}
	err = inline_to_block(r, d->parent, buf, size);
	if (!err)
		err = 1;
out:
	free(buf);
	return err;
}

/*
 * ext4_add_entry's linear walk: the first block with room (1), or none
 * (0): then a one-block directory becomes an htree (make_indexed_dir,
 * with dir_index), a longer one gets a new block at its end.
 */
static int linear_add(struct fcr *r, const struct dentry *d, uint16_t mode)
{
	uint64_t blocks = raw_size(r->raw) >>
			  (10 + r->fs->super->s_log_block_size), b;
	unsigned char *buf = malloc(r->fs->blocksize);
	blk64_t pblk;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (b = 0; b < blocks && !err; b++) {
		if ((err = dir_block(r, d->parent, (uint32_t)b, &pblk,
				     buf)) < 0)
			break;
		if (add_to_block(r, buf, d, mode))
			err = dir_write(r, d->parent, pblk, buf) < 0 ? -EIO : 1;
	}
	free(buf);
	return err;
}

static int casefolded(struct fcr *r, ext2_ino_t dir)
{
	return raw_flags(r->raw) & EXT4_CASEFOLD_FL ?
	       unsupported("an htree of casefolded names", dir) : 0;
}

/*
 * ext4_add_entry after the linear walk found no room; FELL_BACK: the
 * htree index was dropped on the way (dx_fallback), none is made again.
 */
static int add_grown(struct fcr *r, const struct dentry *d, uint16_t mode,
		     bool fell_back)
{
	uint64_t blocks = raw_size(r->raw) >>
			  (10 + r->fs->super->s_log_block_size);
	unsigned char *buf = malloc(r->fs->blocksize);
	blk64_t pblk;
	uint32_t lblk;
	int err;

	if (!buf)
		return -ENOMEM;
	if (blocks == 1 && !fell_back &&
	    ext2fs_has_feature_dir_index(r->fs->super)) {
		if ((err = casefolded(r, d->parent)) == 0 &&
		    (err = dir_block(r, d->parent, 0, &pblk, buf)) == 0)
			err = make_indexed(r, d, mode, buf, pblk);
	} else if ((err = dir_append(r, d->parent, &lblk, &pblk)) == 0) {
		memset(buf, 0, r->fs->blocksize);
		put16(buf + 4, r->fs->blocksize - csum_size(r));
		add_to_block(r, buf, d, mode);
		err = dir_write(r, d->parent, pblk, buf);
	}
	free(buf);
	return err;
}

/*
 * An htree's leaf (*DONE), or *FELL_BACK: dx_probe found the index
 * corrupt, and without metadata_csum ext4_add_entry drops it and goes on
 * as in a directory of blocks (with it, the mount fails).
 */
static int htree_add(struct fcr *r, const struct dentry *d, uint16_t mode,
		     bool *done, bool *fell_back)
{
	unsigned char *root = malloc(r->fs->blocksize);
	blk64_t pblk;
	int err;

	if (!root)
		return -ENOMEM;
	if ((err = casefolded(r, d->parent)) == 0 &&
	    (err = dir_block(r, d->parent, 0, &pblk, root)) == 0) {
		if (!dx_root_bad(r, root))
			err = dx_add(r, d, mode, root, pblk, done);
		else if (csum_size(r))
			err = fcfail(-EUCLEAN, "directory has corrupted htree "
				     "index", d->parent);
		else if ((err = read_raw(r, d->parent)) == 0) {
			put32(r->raw + 32, raw_flags(r->raw) & ~EXT2_INDEX_FL);
			*fell_back = true;
			err = write_raw(r, d->parent);
		}
	}
	free(root);
	return err;
}

/* ext4_add_entry: inline, an htree's leaf, else the first block with room. */
static int add_entry(struct fcr *r, const struct dentry *d, uint16_t mode)
{
	bool done = false, fell_back = false;
	errcode_t code;
	int err;

	if (read_raw(r, d->parent) < 0)
		return fcfail(-EIO, "reading the directory", d->parent);
	if ((raw_flags(r->raw) & EXT4_INLINE_DATA_FL) &&
	    ((err = inline_add(r, d, mode)) <= 0 || read_raw(r, d->parent) < 0))
		return err <= 0 ? err : fcfail(-EIO, "reading the directory",
					       d->parent);
	if ((err = tree_read(r, d->parent)) < 0)
		return err;
	if ((raw_flags(r->raw) & EXT2_INDEX_FL) &&
	    ext2fs_has_feature_dir_index(r->fs->super)) {
		if ((err = htree_add(r, d, mode, &done, &fell_back)) < 0 ||
		    done)
			return err;
		if (!fell_back) {
			code = ext2fs_link(r->fs, d->parent, d->name, d->ino,
					   file_type(mode));
			return code ? code2err(code, "adding a name",
					       d->parent) : 0;
		}
	}
	if ((err = linear_add(r, d, mode)) != 0)
		return err < 0 ? err : 0;
	return add_grown(r, d, mode, fell_back);
}

static int set_links(struct fcr *r, ext2_ino_t ino, int delta)
{
	if (read_raw(r, ino) < 0)
		return fcfail(-EIO, "reading the inode", ino);
	put16(r->raw + 26, (uint32_t)(le16(r->raw + 26) + delta));
	return write_raw(r, ino);
}

/* ext4_fc_replay_link_internal, __ext4_link: an existing name is kept. */
static int link_internal(struct fcr *r, const struct dentry *d)
{
	uint16_t mode;
	int err;

	if (!iget_ok(r, d->ino))
		return 0;
	mode = raw_mode(r->raw);
	if (!iget_ok(r, d->parent) || name_exists(r, d))
		return 0;
	if ((err = set_links(r, d->ino, 1)) < 0)
		return err;
	if ((err = add_entry(r, d, mode)) < 0)
		set_links(r, d->ino, -1);
	return err;
}

/* ext4_evict_inode of an inode whose last link went: its blocks freed. */
static int evict(struct fcr *r, ext2_ino_t ino)
{
	uint16_t mode = raw_mode(r->raw);
	errcode_t code;

	if (raw_flags(r->raw) & EXT4_EXTENTS_FL) {
		if (tree_read(r, ino) == 0)
			mark_tree(r, false);
		r->t.n = 0;
		write_root_extents(r);
	} else if (!(raw_flags(r->raw) & EXT4_INLINE_DATA_FL)) {
		code = ext2fs_punch(r->fs, ino, (struct ext2_inode *)r->raw,
				    NULL, 0, ~0ULL);
		if (code)
			return code2err(code, "freeing its blocks", ino);
	}
	put32(r->raw + 4, 0);
	put32(r->raw + 108, 0);
	put32(r->raw + 20, r->fs->now ? (uint32_t)r->fs->now :
				      (uint32_t)time(NULL));
	ext2fs_iblk_set(r->fs, (struct ext2_inode *)r->raw, 0);
	ext2fs_inode_alloc_stats2(r->fs, ino, -1, LINUX_S_ISDIR(mode));
	return write_raw(r, ino);
}

/* ext4_fc_replay_unlink, __ext4_unlink: another inode's name stays. */
static int unlink_tag(struct fcr *r, const unsigned char *v, unsigned vlen)
{
	struct dentry d;
	ext2_ino_t found;
	uint16_t links;
	errcode_t code;

	dentry(v, vlen, &d);
	if (!iget_ok(r, d.ino) || !iget_ok(r, d.parent) ||
	    ext2fs_lookup(r->fs, d.parent, d.name, d.len, NULL, &found))
		return 0;
	if (found == d.ino &&
	    (code = ext2fs_unlink(r->fs, d.parent, d.name, d.ino, 0)))
		return code2err(code, "removing a name", d.parent);
	if (read_raw(r, d.ino) < 0)
		return fcfail(-EIO, "reading the inode", d.ino);
	if (!(links = le16(r->raw + 26)))
		return 0;
	put16(r->raw + 26, --links);
	return links ? write_raw(r, d.ino) : evict(r, d.ino);
}

/*
 * ext4_try_create_inline_dir, for an inode the replay made inline: the
 * parent's number, then one empty entry over the rest of i_block.
 */
static int inline_new_dir(struct fcr *r, const struct dentry *d)
{
	unsigned char *ib = r->raw + I_BLOCK;

	if (max_inline_value(r) <= 0)
		return unsupported("a new inline directory without room", d->ino);
	put32(ib, d->parent);
	put32(ib + 4, 0);
	put16(ib + 8, E2MAP_MIN_INLINE_DATA_SIZE - 4);
	put32(r->raw + 4, E2MAP_MIN_INLINE_DATA_SIZE);
	put32(r->raw + 108, 0);
	put16(r->raw + 26, 2);
	return write_raw(r, d->ino);
}

/* ext4_init_new_dir: "." and ".." in block 0 of an empty directory. */
static int init_new_dir(struct fcr *r, const struct dentry *d)
{
	struct fx m, e;
	blk64_t b;
	char *buf;
	int err;

	if (read_raw(r, d->ino) < 0)
		return 0;
	if (raw_flags(r->raw) & EXT4_INLINE_DATA_FL)
		return inline_new_dir(r, d);
	if ((err = tree_read(r, d->ino)) < 0)
		return 0;
	if (lookup(&r->t, 0, 1, &m)) {
		b = m.pblk;
	} else {
		if ((err = alloc_simple(r, inode_goal(r, d->ino), &b)) < 0)
			return err;
		e = (struct fx){ 0, 1, b, false, 0 };
		if ((err = insert(r, &e)) < 0)
			return err;
	}
	if (ext2fs_new_dir_block(r->fs, d->ino, d->parent, &buf))
		return -ENOMEM;
	err = ext2fs_write_dir_block4(r->fs, b, buf, 0, d->ino) ?
	      fcfail(-EIO, "writing a directory block", d->ino) : 0;
	ext2fs_free_mem(&buf);
	put32(r->raw + 4, r->fs->blocksize);
	put32(r->raw + 108, 0);
	put16(r->raw + 26, 2);
	return err < 0 ? err : tree_write(r, d->ino);
}

/* ext4_fc_replay_create */
static int create_tag(struct fcr *r, const unsigned char *v, unsigned vlen)
{
	struct dentry d;
	int err;

	dentry(v, vlen, &d);
	if (d.ino > r->fs->super->s_inodes_count || !d.ino ||
	    read_raw(r, d.ino) < 0)
		return fcfail(-EINVAL, "created, but not found", d.ino);
	mark_inode_used(r, d.ino, raw_mode(r->raw));
	if (!iget_ok(r, d.ino))
		return fcfail(-EINVAL, "created, but not found", d.ino);
	if (LINUX_S_ISDIR(raw_mode(r->raw))) {
		if (!iget_ok(r, d.parent))
			return 0;
		if ((err = init_new_dir(r, &d)) != 0)
			return err < 0 && err != -ENOMEM &&
			       err != -EOPNOTSUPP ? 0 : err;
	}
	if ((err = link_internal(r, &d)) < 0)
		return err;
	if (read_raw(r, d.ino) < 0)
		return fcfail(-EIO, "reading the inode", d.ino);
	put16(r->raw + 26, 1);
	return write_raw(r, d.ino);
}

static int link_tag(struct fcr *r, const unsigned char *v, unsigned vlen)
{
	struct dentry d;

	dentry(v, vlen, &d);
	return link_internal(r, &d);
}

static int one_tag(struct fcr *r, unsigned tag, const unsigned char *v,
		   unsigned len)
{
	switch (tag) {
	case E2MAP_FC_ADD_RANGE:
		return add_range(r, v);
	case E2MAP_FC_DEL_RANGE:
		return del_range(r, v);
	case E2MAP_FC_CREAT:
		return create_tag(r, v, len);
	case E2MAP_FC_LINK:
		return link_tag(r, v, len);
	case E2MAP_FC_UNLINK:
		return unlink_tag(r, v, len);
	case E2MAP_FC_INODE:
		return inode_tag(r, v, len);
	}
	return 0;		/* head, tail, pad */
}

/* Each of the first FC->tags tags, in order, to FN. */
static int each_tag(struct fcr *r, const struct e2map_fc *fc,
		    int (*fn)(struct fcr *, unsigned, const unsigned char *,
			      unsigned))
{
	unsigned left = fc->tags;
	size_t k, p;
	int err;

	for (k = 0; k < fc->nblocks && left; k++) {
		const unsigned char *b = fc->blocks + k * (size_t)fc->bs;

		for (p = 0; p + E2MAP_FC_TL <= fc->bs && left; left--) {
			unsigned tag = le16(b + p), len = le16(b + p + 2);

			if ((err = fn(r, tag, b + p + E2MAP_FC_TL, len)) < 0)
				return err;
			p += E2MAP_FC_TL + len;
		}
	}
	return 0;
}

/* ext4_fc_record_regions, from the scan's tags. */
static int region_tag(struct fcr *r, unsigned tag, const unsigned char *v,
		      unsigned len)
{
	uint32_t n = le16(v + 8);

	(void)len;
	if (tag != E2MAP_FC_ADD_RANGE || !le32(v))
		return 0;
	return add_region(r, (uint64_t)le16(v + 10) << 32 | le32(v + 12),
			  n > INIT_MAX ? n - INIT_MAX : n);
}

/* ext4_fc_set_bitmaps_and_counters */
static void set_bitmaps(struct fcr *r)
{
	size_t i;

	for (i = 0; i < r->nmod; i++)
		if (iget_ok(r, r->mod[i]) &&
		    (raw_flags(r->raw) & EXT4_EXTENTS_FL) &&
		    tree_read(r, r->mod[i]) == 0)
			mark_tree(r, true);
}

static int replay_all(struct fcr *r, const struct e2map_fc *fc)
{
	errcode_t code;
	int err;

	if ((code = ext2fs_read_bitmaps(r->fs)))
		return e2map__fail(NULL, -EIO, "fast-commit replay: reading "
				   "the bitmaps: %s", error_message(code));
	if ((err = each_tag(r, fc, region_tag)) < 0 ||
	    (err = each_tag(r, fc, one_tag)) < 0)
		return err;
	set_bitmaps(r);
	ext2fs_clear_feature_journal_needs_recovery(r->fs->super);
	ext2fs_mark_super_dirty(r->fs);
	if ((code = ext2fs_flush2(r->fs, EXT2_FLAG_FLUSH_NO_SYNC)))
		return e2map__fail(NULL, -EIO, "fast-commit replay: %s",
				   error_message(code));
	return 0;
}

int e2map__fc_replay(ext2_filsys fs, const struct e2map_fc *fc)
{
	const uint16_t probe = 1;
	struct fcr r = { .fs = fs };
	int err = -ENOMEM;

	/* Raw inodes are copied as bytes: libext2fs keeps them in host order. */
	if (!*(const unsigned char *)&probe)
		return e2map__fail(NULL, -EOPNOTSUPP, "fast-commit replay "
				   "needs a little-endian host");
	if ((r.raw = calloc(1, EXT2_INODE_SIZE(fs->super))) &&
	    (r.blk = malloc(fs->blocksize)))
		err = replay_all(&r, fc);
	free(r.rg);
	free(r.mod);
	free(r.t.x);
	free(r.t.nodes);
	free(r.raw);
	free(r.blk);
	return err;
}

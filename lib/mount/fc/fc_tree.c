/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An inode's extent tree read whole into the list fc_extent.c edits
 * (ext4_find_extent's checks, ext4_valid_extent_entries) and written
 * back where the kernel keeps it: in the inode when the extents fit and
 * one leaf at most is left (ext4_ext_try_to_merge_up), in the leaves of
 * a depth-1 tree they were read from (an emptied one freed,
 * ext4_ext_rm_idx), else a new tree.  ext4_ext_clear_bb's release of an
 * inode's old blocks is here too, as it walks the same tree.
 */
#include "fc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
			return e2map__fc_fail(-EUCLEAN, "an extent tree too "
					      "big to replay", ino);
		if (!depth) {
			x.pblk = (uint64_t)le16(e + 6) << 32 | le32(e + 8);
			x.unwritten = x.len > INIT_MAX;
			x.len -= x.unwritten ? INIT_MAX : 0;
			err = e2map__fc_put_at(t, t->n, &x);
			continue;
		}
		if (!(buf = malloc(r->fs->blocksize)))
			return -ENOMEM;
		if ((err = e2map__fc_add_node(t, p)) == 0 &&
		    io_channel_read_blk64(r->fs->io, p, 1, buf))
			err = e2map__fc_fail(-EIO, "reading an extent block",
					     ino);
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
		return e2map__fc_fail(-EUCLEAN, "a bad extent tree", ino);
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
			return e2map__fc_fail(-EUCLEAN, "a bad extent tree",
					      ino);
	return 0;
}

/* The extents of inode INO (in r->raw), as ext4_find_extent finds them. */
int e2map__fc_tree_read(struct fcr *r, ext2_ino_t ino)
{
	const unsigned char *root = r->raw + I_BLOCK;
	int err;

	r->t.n = r->t.nnodes = r->t.nleaves = 0;
	if (!(raw_flags(r->raw) & EXT4_EXTENTS_FL))
		return e2map__fc_fail(-EUCLEAN, "a fast commit for an inode "
				      "without extents", ino);
	r->t.depth = le16(root + 6);
	if (r->t.depth > 5)
		return e2map__fc_fail(-EUCLEAN, "a bad extent tree", ino);
	if ((err = read_node(r, root, 60, r->t.depth, ino)) < 0)
		return err;
	return tree_valid(r, ino);
}

void e2map__fc_put_header(unsigned char *h, unsigned entries, unsigned max,
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

static int write_node(struct fcr *r, ext2_ino_t ino, blk64_t b)
{
	errcode_t code = ext2fs_extent_block_csum_set(r->fs, ino,
				(struct ext3_extent_header *)r->blk);

	if (!code)
		code = io_channel_write_blk64(r->fs->io, b, 1, r->blk);
	return code ? e2map__fc_code2err(code, "writing an extent block", ino)
		    : 0;
}

/* A leaf of extents [FROM, FROM + N) in block B. */
static int write_leaf(struct fcr *r, ext2_ino_t ino, blk64_t b, size_t from,
		      size_t n)
{
	size_t k;

	memset(r->blk, 0, r->fs->blocksize);
	e2map__fc_put_header(r->blk, (unsigned)n, node_max(r), 0);
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

		if ((err = e2map__fc_alloc(r, goal, &up->blk[k])) < 0)
			break;
		up->lblk[k] = low->lblk[k * per];
		memset(r->blk, 0, r->fs->blocksize);
		e2map__fc_put_header(r->blk, (unsigned)n, (unsigned)per, depth);
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
		if ((err = e2map__fc_alloc(r, goal, &a.blk[k])) == 0)
			err = write_leaf(r, ino, a.blk[k], k * per, n);
	}
	for (a.n = nl; !err && a.n > ROOT_MAX; depth++) {
		err = build_index(r, ino, goal, &a, &b, depth);
		a.n = b.n;
		memcpy(a.lblk, b.lblk, b.n * sizeof(*a.lblk));
		memcpy(a.blk, b.blk, b.n * sizeof(*a.blk));
	}
	if (!err) {
		e2map__fc_put_header(r->raw + I_BLOCK, (unsigned)a.n, ROOT_MAX,
				     depth);
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

void e2map__fc_write_root(struct fcr *r)
{
	size_t k;

	memset(r->raw + I_BLOCK, 0, 60);
	e2map__fc_put_header(r->raw + I_BLOCK, (unsigned)r->t.n, ROOT_MAX, 0);
	for (k = 0; k < r->t.n; k++)
		put_extent(r->raw + I_BLOCK + 12 + 12 * k, &r->t.x[k]);
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
			e2map__fc_mark_bb(r, t->nodes[leaf], 1, false);
	for (used = 0, k = 0; k < t->n && err > 0; k = from, used++) {
		for (from = k; from < t->n && t->x[from].leaf == t->x[k].leaf;)
			from++;
		leaf = t->x[k].leaf;
		if ((err = write_leaf(r, ino, t->nodes[leaf], k, from - k)) == 0)
			err = 1;
		put_index(root + 12 + 12 * used, t->x[k].lblk, t->nodes[leaf]);
	}
	if (err > 0)
		e2map__fc_put_header(root, (unsigned)used, ROOT_MAX, 1);
	free(seen);
	return err;
}

/*
 * The list back into the tree: in the inode when it fits and at most one
 * leaf is left (ext4_ext_try_to_merge_up takes a lone leaf back), in the
 * leaves it was read from while they hold it, else a new tree.
 */
int e2map__fc_tree_write(struct fcr *r, ext2_ino_t ino)
{
	struct tree *t = &r->t;
	size_t k;
	int err = 0;

	if (t->n <= ROOT_MAX && t->depth <= 1 &&
	    e2map__fc_leaves_used(t) <= 1) {
		for (k = 0; k < t->nnodes; k++)
			e2map__fc_mark_bb(r, t->nodes[k], 1, false);
		e2map__fc_write_root(r);
	} else if (t->depth != 1 || (err = write_leaves(r, ino)) == 0) {
		for (k = 0; k < t->nnodes; k++)
			e2map__fc_mark_bb(r, t->nodes[k], 1, false);
		err = build_tree(r, ino, e2map__fc_goal(r, ino));
	}
	return err < 0 ? err : e2map__fc_write_raw(r, ino);
}

void e2map__fc_mark_tree(struct fcr *r, bool on)
{
	size_t k;

	for (k = 0; k < r->t.n; k++)
		e2map__fc_mark_bb(r, r->t.x[k].pblk, r->t.x[k].len, on);
	for (k = 0; k < r->t.nnodes; k++)
		e2map__fc_mark_bb(r, r->t.nodes[k], 1, on);
}

/*
 * ext4_ext_clear_bb: the blocks an inode had before its raw copy are
 * freed, and kept from the allocator until the replay ends.
 */
int e2map__fc_clear_bb(struct fcr *r)
{
	size_t k;
	int err = 0;

	e2map__fc_mark_tree(r, false);
	for (k = 0; k < r->t.n && !err; k++)
		err = e2map__fc_add_region(r, r->t.x[k].pblk, r->t.x[k].len);
	for (k = 0; k < r->t.nnodes && !err; k++)
		err = e2map__fc_add_region(r, r->t.nodes[k], 1);
	return err;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Extent-mapped inodes: the kernel's lookup on a cache miss
 * (ext4_find_extent + ext4_ext_map_blocks, spec §3.3, §8.1), its node
 * checks (__ext4_ext_check), and bulk caching of leaves as they are first
 * read (ext4_cache_extents, __read_extent_tree_block, ext4_ext_precache).
 */
#include "inode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define EXT_MAGIC 0xF30A
#define HDR 12
#define ENTRY 12
#define ROOT_MAX 4
#define INIT_MAX_LEN 32768U
/* __ext4_ext_check refuses deeper nodes ("too large eh_depth"). */
#define MAX_CHECKED_DEPTH 32

/* A node (root or block) seen through its header; entries follow it. */
struct node {
	const unsigned char *p;
	unsigned entries, max, depth;
};

struct extent {
	uint32_t lblk, len;
	uint64_t pblk;
	bool unwritten;
};

static void node_init(struct node *n, const unsigned char *p)
{
	n->p = p;
	n->entries = le16(p + 2);
	n->max = le16(p + 4);
	n->depth = le16(p + 6);
}

static void get_extent(const struct node *n, unsigned i, struct extent *e)
{
	const unsigned char *x = n->p + HDR + i * ENTRY;
	unsigned raw = le16(x + 4);

	e->lblk = le32(x);
	e->unwritten = raw > INIT_MAX_LEN;
	e->len = e->unwritten ? raw - INIT_MAX_LEN : raw;
	e->pblk = (uint64_t)le16(x + 6) << 32 | le32(x + 8);
}

static uint32_t idx_key(const struct node *n, unsigned i)
{
	return le32(n->p + HDR + i * ENTRY);
}

static uint64_t idx_child(const struct node *n, unsigned i)
{
	const unsigned char *x = n->p + HDR + i * ENTRY;

	return (uint64_t)le16(x + 8) << 32 | le32(x + 4);
}

static int corrupt(e2map_file_t *f, uint64_t pblk, const char *why)
{
	return e2map__fail(f->m, -EUCLEAN, "inode %u: extent block %" PRIu64
			   ": %s", f->ino, pblk, why);
}

/* ext4_valid_extent_entries: in range, non-empty, ordered, keyed as parent. */
static const char *check_entries(e2map_file_t *f, const struct node *n,
				 bool root, uint32_t key)
{
	uint64_t cur = 0;
	struct extent e;
	unsigned i;

	if (!n->entries)
		return NULL;
	if (!root && key != le32(n->p + HDR))
		return "first key differs from the parent's";
	for (i = 0; i < n->entries; i++) {
		if (n->depth) {
			if (!e2map__inode_block_valid(f, idx_child(n, i), 1))
				return "index points outside the data area";
			if (idx_key(n, i) < cur)
				return "index keys out of order";
			cur = (uint64_t)idx_key(n, i) + 1;
			continue;
		}
		get_extent(n, i, &e);
		if (!e.len || !e2map__inode_block_valid(f, e.pblk, e.len) ||
		    (uint64_t)e.lblk + e.len > E2MAP_MAX_BLOCKS + 1)
			return "bad extent";
		if (e.lblk < cur)
			return "extents overlap";
		cur = (uint64_t)e.lblk + e.len;
	}
	return NULL;
}

/* __ext4_ext_check on a node expected at DEPTH; KEY is the parent's key. */
static int check_node(e2map_file_t *f, const struct node *n, unsigned depth,
		      bool root, uint32_t key, uint64_t pblk)
{
	unsigned cap = root ? ROOT_MAX : (f->m->bs - HDR) / ENTRY;
	const char *why = NULL;

	if (le16(n->p) != EXT_MAGIC)
		why = "bad magic";
	else if (n->depth != depth)
		why = "unexpected depth";
	else if (!n->max || n->max > cap)
		why = "bad eh_max";
	else if (n->entries > n->max)
		why = "bad eh_entries";
	else if (n->depth && !n->entries)
		why = "index node without entries";
	else
		why = check_entries(f, n, root, key);
	if (!why && depth > MAX_CHECKED_DEPTH)
		why = "depth too large";
	if (why)
		return corrupt(f, pblk, why);
	if (!root && ext2fs_has_feature_metadata_csum(f->m->fs->super) &&
	    !ext2fs_extent_block_csum_verify(f->m->fs, f->ino,
					     (struct ext3_extent_header *)n->p))
		return e2map__fail(f->m, -EBADMSG, "inode %u: extent block %"
				   PRIu64 ": checksum does not match",
				   f->ino, pblk);
	return 0;
}

int e2map__extent_check_root(e2map_file_t *f)
{
	struct node root;

	node_init(&root, (const unsigned char *)f->inode->i_block);
	return check_node(f, &root, root.depth, true, 0, 0);
}

static int cache_one(e2map_file_t *f, uint32_t lblk, uint64_t len,
		     uint64_t pblk, enum e2map_run_kind kind)
{
	struct es_entry e = { lblk, (uint32_t)len, pblk, kind };

	return e2map__es_cache(&f->es, &e);
}

/* ext4_cache_extents: every extent of a leaf and the gaps between them. */
static int cache_leaf(e2map_file_t *f, const struct node *n)
{
	uint64_t prev = 0;
	struct extent e;
	unsigned i;
	int err;

	for (i = 0; i < n->entries; i++) {
		get_extent(n, i, &e);
		if (prev && prev != e.lblk &&
		    (err = cache_one(f, (uint32_t)prev, e.lblk - prev, 0,
				     E2MAP_RUN_HOLE)) < 0)
			return err;
		err = cache_one(f, e.lblk, e.len, e.pblk, e.unwritten ?
				E2MAP_RUN_UNWRITTEN : E2MAP_RUN_DATA);
		if (err < 0)
			return err;
		prev = (uint64_t)e.lblk + e.len;
	}
	return 0;
}

/* ext4_ext_binsearch(_idx): last entry starting at or before LBLK, else 0. */
static unsigned binsearch(const struct node *n, uint32_t lblk)
{
	unsigned lo = 1, hi = n->entries;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (lblk < idx_key(n, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo - 1;
}

/*
 * Read the child at index I of N into BUF and check it; N may be CHILD and
 * may live in BUF, so everything needed from it is taken first.
 */
/*
 * __read_extent_tree_block: a block is checked (__ext4_ext_check, with
 * its checksum) until it passes once; then it is trusted (buffer_verified)
 * unless FORCE (EXT4_EX_FORCE_CACHE, the precache walk).  *FRESH says
 * whether it was checked now: only then does a leaf fill the cache.
 */
static int read_child(e2map_file_t *f, const struct node *n, unsigned i,
		      unsigned char *buf, struct node *child, uint64_t *pblk,
		      bool force, bool *fresh)
{
	uint32_t key = idx_key(n, i);
	unsigned depth = n->depth - 1;
	int err;

	*pblk = idx_child(n, i);
	if ((err = e2map__read_block(f->m, *pblk, buf)) < 0)
		return err;
	node_init(child, buf);
	*fresh = force || !e2map__blkset_has(&f->leaves, *pblk);
	if (!*fresh)
		return 0;
	if ((err = check_node(f, child, depth, false, key, *pblk)) < 0)
		return err;
	e2map__blkset_add(&f->leaves, *pblk, &err);
	return err;
}

/*
 * ext4_find_extent: descend to the leaf for LBLK.  *NEXT gets the key of
 * the next index entry at the deepest level that has one (the bound of a
 * hole past the leaf's last extent), else E2MAP_MAX_BLOCKS.
 */
static int find_leaf(e2map_file_t *f, uint32_t lblk, struct node *n,
		     uint64_t *next)
{
	uint64_t pblk;
	bool fresh = false;
	unsigned i;
	int err;

	node_init(n, (const unsigned char *)f->inode->i_block);
	*next = E2MAP_MAX_BLOCKS;
	if (n->depth > E2MAP_MAX_DEPTH)
		return corrupt(f, 0, "tree deeper than the kernel allows");
	if (n->depth == 0)
		return cache_leaf(f, n);
	while (n->depth > 0) {
		i = binsearch(n, lblk);
		if (i + 1 < n->entries)
			*next = idx_key(n, i + 1);
		if ((err = read_child(f, n, i, f->buf, n, &pblk, false,
				      &fresh)) < 0)
			return err;
	}
	return fresh ? cache_leaf(f, n) : 0;
}

/*
 * ext4_ext_determine_insert_hole: the whole hole [START, END) is cached;
 * the answer is its part from LBLK on, at most N blocks.
 */
static int hole(e2map_file_t *f, uint32_t start, uint64_t end, uint32_t lblk,
		uint32_t n, struct es_entry *out)
{
	struct es_entry h = { start, (uint32_t)(end - start), 0, E2MAP_RUN_HOLE };

	*out = (struct es_entry){ lblk, end - lblk < n ? (uint32_t)(end - lblk) : n,
				  0, E2MAP_RUN_HOLE };
	return e2map__es_insert(&f->es, &h);
}

/* ext4_ext_map_blocks without create, on a cache miss. */
int e2map__extent_map(e2map_file_t *f, uint32_t lblk, uint32_t n,
		      struct es_entry *out)
{
	struct node leaf;
	struct extent e;
	uint64_t next;
	unsigned i;
	int err;

	if ((err = find_leaf(f, lblk, &leaf, &next)) < 0)
		return err;
	/* An empty leaf: the kernel caches the hole from block 0 on. */
	if (!leaf.entries)
		return hole(f, 0, E2MAP_MAX_BLOCKS, lblk, n, out);
	i = binsearch(&leaf, lblk);
	get_extent(&leaf, i, &e);
	if (lblk < e.lblk)
		return hole(f, lblk, e.lblk, lblk, n, out);
	if (lblk >= (uint64_t)e.lblk + e.len) {
		if (i + 1 < leaf.entries)
			next = idx_key(&leaf, i + 1);
		return hole(f, lblk, next, lblk, n, out);
	}
	out->lblk = lblk;
	out->len = (uint32_t)((uint64_t)e.lblk + e.len - lblk);
	if (out->len > n)
		out->len = n;
	out->pblk = e.pblk + (lblk - e.lblk);
	out->kind = e.unwritten ? E2MAP_RUN_UNWRITTEN : E2MAP_RUN_DATA;
	return e2map__es_insert(&f->es, out);
}

/*
 * ext4_ext_precache: read every leaf and cache it, verified or not, at
 * any depth the root check let through (an ext4_find_extent lookup stops
 * at EXT4_MAX_EXTENT_DEPTH; this walk does not).
 * FORCE_ROOT also caches a depth-0 root (cache=warm); the kernel's
 * FIEMAP_FLAG_CACHE leaves a depth-0 tree alone.
 */
int e2map__extent_precache(e2map_file_t *f, bool force_root)
{
	struct node path[MAX_CHECKED_DEPTH + 1];
	unsigned next[MAX_CHECKED_DEPTH + 1];
	unsigned char *bufs;
	uint64_t pblk;
	bool fresh;
	int level = 0, err = 0;

	node_init(&path[0], (const unsigned char *)f->inode->i_block);
	if (path[0].depth == 0)
		return force_root ? cache_leaf(f, &path[0]) : 0;
	/* No EXT4_MAX_EXTENT_DEPTH limit here: ext4_ext_precache has none. */
	if (path[0].depth > MAX_CHECKED_DEPTH)
		return corrupt(f, 0, "depth too large");
	if (!(bufs = malloc((size_t)f->m->bs * path[0].depth)))
		return -ENOMEM;
	next[0] = 0;
	while (level >= 0 && !err) {
		struct node *n = &path[level];

		if (n->depth == 0 || next[level] >= n->entries) {
			level--;
			continue;
		}
		err = read_child(f, n, next[level]++, bufs + (size_t)level *
				 f->m->bs, &path[level + 1], &pblk, true,
				 &fresh);
		if (err)
			break;
		next[++level] = 0;
		if (path[level].depth == 0)
			err = cache_leaf(f, &path[level]);
	}
	free(bufs);
	return err;
}

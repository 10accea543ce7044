/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One record per inode for whole-image inventories (e2map scan): stat,
 * and the bytes and blocks its mapping holds, from one cold e2map_file_walk of
 * the whole logical range (the walk seek and fiemap use), then a FIEMAP
 * count answered from the cache that walk left, which is what the
 * kernel's FIEMAP answers once an inode's extents are all cached.
 */
#include "passes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tally {
	struct e2map_record *r;
	uint64_t size, bs, eof;		/* eof: i_size up to a block boundary */
	uint64_t inline_len;
	uint64_t next_lblk, next_pblk;	/* where a contiguous run would go on */
};

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* A run's bytes below i_size, and those from EOF's block boundary on. */
static int add_run(const struct e2map_run *run, void *payload)
{
	struct tally *t = payload;
	struct e2map_record *r = t->r;
	uint64_t from = run->lblk * t->bs, to = (run->lblk + run->nblk) * t->bs;
	uint64_t below = from < t->size ? min64(to, t->size) - from : 0;

	if (run->kind == E2MAP_RUN_HOLE)
		return 0;
	if (run->kind == E2MAP_RUN_INLINE) {
		r->written += t->inline_len;
		r->extents += t->inline_len > 0;
		return 0;
	}
	if (run->kind == E2MAP_RUN_DATA)
		r->written += below;
	else
		r->unwritten += below;
	if (to > t->eof)
		r->past_eof += to - (from > t->eof ? from : t->eof);
	/* A block map's runs stop at each pointer array's end: join them. */
	if (run->lblk != t->next_lblk || run->pblk != t->next_pblk)
		r->extents++;
	t->next_lblk = run->lblk + run->nblk;
	t->next_pblk = run->pblk + run->nblk;
	return 0;
}

/* Leaf entries of the tree the walk read: extents as the disk holds them. */
static int count_leaf_entries(e2map_file_t *f, uint64_t *n)
{
	const unsigned char *root = (const unsigned char *)f->inode->i_block;
	size_t i;
	int err;

	*n = 0;
	if (le16(root + 6) == 0) {
		*n = le16(root + 2);
		return 0;
	}
	for (i = 0; i < f->leaves.n; i++) {
		if ((err = e2map__read_block(f->m, f->leaves.v[i], f->buf)) < 0)
			return err;
		if (le16(f->buf + 6) == 0)
			*n += le16(f->buf + 2);
	}
	return 0;
}

/* The warm FIEMAP: fm_mapped_extents of a count-only call over it all. */
static int fiemap_count(e2map_file_t *f, uint64_t *n)
{
	struct fiemap fm;
	int err;

	memset(&fm, 0, sizeof(fm));
	fm.fm_length = ~0ULL;
	if ((err = e2map_file_fiemap(f, &fm)) < 0)
		return err;
	*n = fm.fm_mapped_extents;
	return 0;
}

#define EXT_MAGIC 0xf30a
#define EXT_ROOT_ENTRIES 4	/* i_block's 60 bytes hold a header and 4 */

/* The blocks index node NODE (N bytes) points to, added to V. */
static void index_children(const unsigned char *node, size_t n,
			   uint64_t end, struct blkset *v)
{
	size_t i, count = le16(node + 2);
	int err = 0;

	if (le16(node) != EXT_MAGIC || !le16(node + 6))
		return;
	for (i = 0; i < count && 12 + 12 * (i + 1) <= n; i++) {
		const unsigned char *e = node + 12 + 12 * i;
		uint64_t pblk = le32(e + 4) | (uint64_t)le16(e + 8) << 32;

		if (pblk < end)
			(void)e2map__blkset_add(v, pblk, &err);
		if (err < 0)
			return;
	}
}

/* V's blocks (a sorted set) asked for in ascending order, neighbours
 * as one range. */
static void prefetch_set(e2map_t *m, const struct blkset *v)
{
	size_t i, run = 0;

	for (i = 1; i <= v->n; i++) {
		if (i < v->n && v->v[i] <= v->v[i - 1] + 1)
			continue;
		e2map__prefetch(m, v->v[run], v->v[i - 1] - v->v[run] + 1);
		run = i;
	}
}

/*
 * Cold, a deep extent tree's blocks were a scan's slowest reads: the
 * walk reads them one at a time, each where the last one sent it.  Its
 * index nodes first, then the blocks they point to, are asked of the
 * media in ascending order before the walk (a hint: what the walk reads
 * and checks is unchanged; any trouble here is left to the walk, with
 * the handle's error message as it was).
 */
static void prefetch_tree(e2map_file_t *f)
{
	const unsigned char *root = (const unsigned char *)f->inode->i_block;
	uint64_t end = ext2fs_blocks_count(f->m->fs->super);
	struct blkset top = { 0 }, below = { 0 };
	struct e2map_err saved = f->m->err;
	unsigned char *buf;
	size_t i;

	index_children(root, 12 + 12 * EXT_ROOT_ENTRIES, end, &top);
	if (!top.n)
		return;
	prefetch_set(f->m, &top);
	if (le16(root + 6) >= 2 && (buf = malloc(f->m->bs))) {
		for (i = 0; i < top.n; i++)
			if (e2map__read_block(f->m, top.v[i], buf) == 0)
				index_children(buf, f->m->bs, end, &below);
		free(buf);
		if (below.n)
			prefetch_set(f->m, &below);
	}
	f->m->err = saved;
	e2map__blkset_free(&top);
	e2map__blkset_free(&below);
}

/* The walk, then what it read: bytes, tree blocks, extents both ways. */
static int map_record(e2map_file_t *f, struct e2map_record *r)
{
	uint64_t bs = f->m->bs;
	struct tally t = { r, f->size, bs, (f->size + bs - 1) / bs * bs,
			   min64(f->inline_size, f->size), 0, 0 };
	uint64_t disk;
	int err;

	r->flags |= E2MAP_REC_MAPPED;
	if (f->src == SRC_INLINE)
		r->flags |= E2MAP_REC_INLINE;
	if (f->src == SRC_EXTENT)
		prefetch_tree(f);
	/* One pass over every block a file may map, holes included. */
	err = e2map_file_walk(f, 0, E2MAP_MAX_BLOCKS, add_run, &t);
	r->holes = f->size - min64(f->size, r->written + r->unwritten);
	r->meta_blocks += f->leaves.n;
	if (err < 0) {
		/* FIEMAP still lists what lies before the damage, and the
		 * kernel's returns 0 for it (README: errors mid-walk). */
		fiemap_count(f, &r->fiemap_extents);
		return err;
	}
	if (f->src == SRC_EXTENT) {
		if ((err = count_leaf_entries(f, &disk)) < 0)
			return err;
		r->extents = disk;
	}
	return fiemap_count(f, &r->fiemap_extents);
}

/* The inode as the kernel reaches it: an EA inode through its parent's
 * xattr (ext4_xattr_inode_iget), any other by handle. */
static int iget_for_record(e2map_t *m, ext2_ino_t ino, e2map_file_t **f,
			   struct e2map_record *r)
{
	uint32_t flags = 0;
	int err;

	m->err.msg[0] = '\0';
	if (ext2fs_has_feature_ea_inode(m->fs->super)) {
		if ((err = e2map__inode_raw_flags(m, ino, &flags)) < 0)
			return err;
		if (flags & EXT4_EA_INODE_FL) {
			r->flags |= E2MAP_REC_EA_INODE;
			return e2map__iget_how(m, ino, E2MAP_IGET_EA, f);
		}
	}
	return e2map__iget(m, ino, true, f);
}

static int fill(e2map_t *m, const struct e2map_inode *in,
		struct e2map_record *r)
{
	e2map_file_t *f;
	int err;

	memset(r, 0, sizeof(*r));
	r->version = E2MAP_RECORD_VERSION;
	r->st.version = E2MAP_STAT_VERSION;
	r->ino = r->st.ino = in->ino;
	r->st.mode = in->mode;
	r->st.size = in->size;
	r->st.nlink = in->links;
	if ((r->err = in->err) < 0)
		return 0;
	if ((err = iget_for_record(m, (ext2_ino_t)in->ino, &f, r)) < 0) {
		r->err = err;
		return err == -ENOMEM ? err : 0;
	}
	/* An encrypted symlink's stat can fail as its readlink does. */
	if ((err = e2map_file_stat(f, &r->st)) < 0) {
		e2map_file_close(f);
		r->err = err;
		r->st.ino = in->ino;
		return err == -ENOMEM ? err : 0;
	}
	r->flags |= E2MAP_REC_STAT;
	r->meta_blocks = f->file_acl != 0;
	if (!e2map__unmapped(f) && !(r->flags & E2MAP_REC_EA_INODE))
		err = e2map__crypt_open(f, NULL);
	if (!err && !e2map__unmapped(f))
		err = map_record(f, r);
	e2map_file_close(f);
	r->err = err;
	return err == -ENOMEM ? err : 0;
}

int e2map_inode_record(e2map_t *m, uint64_t ino, struct e2map_record *out)
{
	struct e2map_inode in;
	int err;

	if (!m || !E2MAP__OUT_OK(out, E2MAP_RECORD_VERSION))
		return -EINVAL;
	m->err.msg[0] = '\0';
	if (ino < 1 || ino > m->fs->super->s_inodes_count)
		return e2map__fail(m, -ESTALE, "no inode %llu",
				   (unsigned long long)ino);
	if ((err = e2map__inode_peek(m, (ext2_ino_t)ino, &in)) < 0)
		return err;
	if (!in.links || !in.mode)
		return e2map__fail(m, -ESTALE, "inode %llu is not in use",
				   (unsigned long long)ino);
	return fill(m, &in, out);
}

/* The scan: fill in a worker (parscan.c), hand on in inode order. */
static int record_work(e2map_t *h, const struct e2map_inode *in,
		       void *result, const char **detail)
{
	struct e2map_record *r = result;
	int err;

	if ((err = fill(h, in, r)) < 0)
		return err;
	if (r->err)
		*detail = e2map_errmsg(h);
	return 0;
}

struct records {
	e2map_record_cb cb;
	void *payload;
	e2map_paths_t **paths;		/* or NULL: no named records */
	uint64_t named;			/* inodes named up to here handed on */
};

/* First path of an inode: the shortest, copied, then stop. */
static int first_path(const char *path, size_t len, void *payload)
{
	char **out = payload;

	*out = strndup(path, len);
	return 1;
}

/*
 * INO, which a name reaches but the scan did not find in use: the record
 * of what lstat of its first name answers (the kernel's readdir lists
 * the name, and its lstat fails or, for an inode the scan cannot see,
 * such as one past a group's itable_unused mark, works).
 */
static int named_record(e2map_t *m, const struct records *rs, uint64_t ino)
{
	struct e2map_record r = E2MAP_RECORD_INIT, full = E2MAP_RECORD_INIT;
	char *path = NULL;
	int err;

	if (e2map_paths_foreach(*rs->paths, ino, first_path, &path) < 0 ||
	    !path)
		return -ENOMEM;
	r.st.version = E2MAP_STAT_VERSION;
	err = e2map_path_lstat(m, path, &r.st);
	free(path);
	if (err == -ENOMEM)
		return err;
	/* A name another entry of the same name shadows: lstat reaches
	 * that one, whose record is its own. */
	if (err == 0 && r.st.ino != ino)
		return 0;
	r.ino = r.st.ino = ino;
	if (err < 0)
		r.err = err;
	else if (e2map_inode_record(m, ino, &full) == 0)
		r = full;
	else
		r.flags = E2MAP_REC_STAT;	/* stat only: no map by number */
	return rs->cb(&r, r.err ? e2map_errmsg(m) : "", rs->payload);
}

/* The named inodes below BEFORE (0: all) that no record has covered. */
static int named_before(e2map_t *m, struct records *rs, uint64_t before)
{
	uint64_t ino;
	int err;

	if (!rs->paths)
		return 0;
	/* Built by the first record, while the workers go on. */
	if (!*rs->paths && (err = e2map_paths_build(m, rs->paths)) < 0)
		return err;
	while ((ino = e2map__paths_next(*rs->paths, rs->named)) &&
	       (!before || ino < before)) {
		rs->named = ino;
		if ((err = named_record(m, rs, ino)) != 0)
			return err;
	}
	if (before > rs->named)
		rs->named = before;
	return 0;
}

static int record_hand(e2map_t *m, const struct e2map_inode *in,
		       void *result, const char *detail, void *payload)
{
	struct records *rs = payload;
	const struct e2map_record *r = result;
	int err;

	(void)in;
	if ((err = named_before(m, rs, r->ino)) != 0)
		return err;
	return rs->cb(r, r->err && detail ? detail : "", rs->payload);
}

int e2map_scan_records_named(e2map_t *m, unsigned threads,
			     e2map_paths_t **paths, e2map_record_cb cb,
			     void *payload)
{
	static const struct e2map__par ops = { sizeof(struct e2map_record),
					       record_work, record_hand };
	struct records rs = { cb, payload, paths, 0 };
	int err;

	if (!m || !cb)
		return -EINVAL;
	if ((err = e2map__par_scan(m, threads, &ops, &rs)) != 0)
		return err;
	return named_before(m, &rs, 0);
}

int e2map_scan_records(e2map_t *m, unsigned threads, e2map_record_cb cb,
		       void *payload)
{
	return e2map_scan_records_named(m, threads, NULL, cb, payload);
}

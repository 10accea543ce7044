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
 * tree of depth 0 or 1 is written back where the kernel keeps it
 * (fc_extent.c, fc_tree.c).  Blocks the kernel allocates during replay
 * come from its simple allocator (fc_alloc.c: the first free block from
 * the goal, outside the ranges the fast commits add and the blocks
 * replayed inodes held), names go where ext4_add_entry puts them
 * (fc_name.c: inline, first fit, a new block, make_indexed_dir,
 * do_split), and the bitmaps are set again for every inode the replay
 * touched, as ext4_fc_set_bitmaps_and_counters sets them.
 *
 * A deeper tree, or one whose leaf overflows, is written back whole, and
 * a deeper htree is left to libext2fs: their extents and names are the
 * kernel's, the blocks that hold them may not be.
 *
 * This file is ext4_fc_replay itself: the two passes over the tags (the
 * regions first, ext4_fc_record_regions; then each tag in order) and
 * the tags' own handlers, ext4_fc_replay_{add,del}_range, _inode,
 * _create, _link and _unlink.
 */
#include "fc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	if (!e2map__fc_iget_ok(r, ino))
		return 0;
	if ((uint64_t)start + len > MAX_LBLK)
		return e2map__fc_fail(-EUCLEAN, "a range past the last block",
				      ino);
	if ((err = e2map__fc_record_modified(r, ino)) < 0 ||
	    (err = e2map__fc_tree_read(r, ino)) < 0)
		return err;
	for (cur = start, rem = len; rem && !err; cur += m.len, rem -= m.len) {
		uint64_t want = pblk + (cur - start);

		if (!e2map__fc_lookup(&r->t, cur, rem, &m)) {
			e = (struct fx){ cur, m.len, want, unwritten, 0 };
			err = e2map__fc_insert(r, &e);
		} else if (m.pblk != want) {
			err = e2map__fc_update_ex(&r->t, cur, m.len, unwritten,
						  want);
			e2map__fc_mark_bb(r, m.pblk, m.len, false);
		} else {
			err = e2map__fc_update_ex(&r->t, cur, m.len, unwritten,
						  m.pblk);
			e2map__fc_shrink(&r->t, (uint64_t)start + len);
		}
	}
	if (err < 0)
		return err == -ENOMEM ? err : e2map__fc_fail(err, "an extent",
							     ino);
	e2map__fc_shrink(&r->t, raw_size(r->raw) >>
			 (10 + r->fs->super->s_log_block_size));
	return e2map__fc_tree_write(r, ino);
}

/* ext4_fc_replay_del_range */
static int del_range(struct fcr *r, const unsigned char *v)
{
	ext2_ino_t ino = le32(v);
	uint32_t start = le32(v + 4), len = le32(v + 8), cur, rem;
	struct fx m;
	int err;

	if (!e2map__fc_iget_ok(r, ino))
		return 0;
	if ((err = e2map__fc_record_modified(r, ino)) < 0 ||
	    (err = e2map__fc_tree_read(r, ino)) < 0)
		return err;
	for (cur = start, rem = len; rem; cur += m.len, rem -= m.len)
		if (e2map__fc_lookup(&r->t, cur, rem, &m))
			e2map__fc_mark_bb(r, m.pblk, m.len, false);
	if (len && (err = e2map__fc_remove_space(&r->t, start,
						 start + len - 1)) < 0)
		return err;
	e2map__fc_shrink(&r->t, raw_size(r->raw) >>
			 (10 + r->fs->super->s_log_block_size));
	return e2map__fc_tree_write(r, ino);
}

/* ext4_ext_replay_set_iblocks: data and tree blocks, no xattr block. */
static int set_iblocks(struct fcr *r, ext2_ino_t ino)
{
	blk64_t n;
	size_t k;
	int err;

	if (!(raw_flags(r->raw) & EXT4_EXTENTS_FL))
		return 0;
	if ((err = e2map__fc_tree_read(r, ino)) < 0)
		return err;
	for (n = r->t.nnodes, k = 0; k < r->t.n; k++)
		n += r->t.x[k].len;
	if (ext2fs_iblk_set(r->fs, (struct ext2_inode *)r->raw, n))
		return e2map__fc_fail(-EFBIG, "its block count", ino);
	return e2map__fc_write_raw(r, ino);
}

/* ext4_fc_replay_inode: the raw inode, but for its extent tree. */
static int inode_tag(struct fcr *r, const unsigned char *v, unsigned vlen)
{
	ext2_ino_t ino = le32(v);
	const unsigned char *fc = v + 4;
	size_t len = vlen - 4;
	unsigned char *root = r->raw + I_BLOCK;
	int err;

	if (e2map__fc_iget_ok(r, ino) &&
	    (raw_flags(r->raw) & EXT4_EXTENTS_FL) &&
	    e2map__fc_tree_read(r, ino) == 0 &&
	    (err = e2map__fc_clear_bb(r)) < 0)
		return err;
	if ((err = e2map__fc_record_modified(r, ino)) < 0)
		return err;
	if (e2map__fc_read_raw(r, ino) < 0)
		return e2map__fc_fail(-EUCLEAN, "no such inode", ino);
	memcpy(r->raw, fc, I_BLOCK);
	memcpy(r->raw + I_GENERATION, fc + I_GENERATION, len - I_GENERATION);
	if ((raw_flags(r->raw) & EXT4_EXTENTS_FL) && le16(root) != EXT_MAGIC)
		e2map__fc_put_header(root, 0, ROOT_MAX, 0);
	else if (raw_flags(r->raw) & EXT4_INLINE_DATA_FL)
		memcpy(root, fc + I_BLOCK, 60);
	if ((err = e2map__fc_write_raw(r, ino)) < 0)
		return err;
	e2map__fc_mark_inode_used(r, ino, raw_mode(r->raw));
	if (!e2map__fc_iget_ok(r, ino))
		return e2map__fc_fail(-EUCLEAN, "not found after its replay",
				      ino);
	return set_iblocks(r, ino);
}

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

static int set_links(struct fcr *r, ext2_ino_t ino, int delta)
{
	if (e2map__fc_read_raw(r, ino) < 0)
		return e2map__fc_fail(-EIO, "reading the inode", ino);
	put16(r->raw + 26, (uint32_t)(le16(r->raw + 26) + delta));
	return e2map__fc_write_raw(r, ino);
}

/* ext4_fc_replay_link_internal, __ext4_link: an existing name is kept. */
static int link_internal(struct fcr *r, const struct dentry *d)
{
	uint16_t mode;
	int err;

	if (!e2map__fc_iget_ok(r, d->ino))
		return 0;
	mode = raw_mode(r->raw);
	if (!e2map__fc_iget_ok(r, d->parent) || name_exists(r, d))
		return 0;
	if ((err = set_links(r, d->ino, 1)) < 0)
		return err;
	if ((err = e2map__fc_add_entry(r, d, mode)) < 0)
		set_links(r, d->ino, -1);
	return err;
}

/* ext4_evict_inode of an inode whose last link went: its blocks freed. */
static int evict(struct fcr *r, ext2_ino_t ino)
{
	uint16_t mode = raw_mode(r->raw);
	errcode_t code;

	if (raw_flags(r->raw) & EXT4_EXTENTS_FL) {
		if (e2map__fc_tree_read(r, ino) == 0)
			e2map__fc_mark_tree(r, false);
		r->t.n = 0;
		e2map__fc_write_root(r);
	} else if (!(raw_flags(r->raw) & EXT4_INLINE_DATA_FL)) {
		code = ext2fs_punch(r->fs, ino, (struct ext2_inode *)r->raw,
				    NULL, 0, ~0ULL);
		if (code)
			return e2map__fc_code2err(code, "freeing its blocks",
						  ino);
	}
	put32(r->raw + 4, 0);
	put32(r->raw + 108, 0);
	put32(r->raw + 20, r->fs->now ? (uint32_t)r->fs->now :
				      (uint32_t)time(NULL));
	ext2fs_iblk_set(r->fs, (struct ext2_inode *)r->raw, 0);
	ext2fs_inode_alloc_stats2(r->fs, ino, -1, LINUX_S_ISDIR(mode));
	return e2map__fc_write_raw(r, ino);
}

/* ext4_fc_replay_unlink, __ext4_unlink: another inode's name stays. */
static int unlink_tag(struct fcr *r, const unsigned char *v, unsigned vlen)
{
	struct dentry d;
	ext2_ino_t found;
	uint16_t links;
	errcode_t code;

	dentry(v, vlen, &d);
	if (!e2map__fc_iget_ok(r, d.ino) || !e2map__fc_iget_ok(r, d.parent) ||
	    ext2fs_lookup(r->fs, d.parent, d.name, d.len, NULL, &found))
		return 0;
	if (found == d.ino &&
	    (code = ext2fs_unlink(r->fs, d.parent, d.name, d.ino, 0)))
		return e2map__fc_code2err(code, "removing a name", d.parent);
	if (e2map__fc_read_raw(r, d.ino) < 0)
		return e2map__fc_fail(-EIO, "reading the inode", d.ino);
	if (!(links = le16(r->raw + 26)))
		return 0;
	put16(r->raw + 26, --links);
	return links ? e2map__fc_write_raw(r, d.ino) : evict(r, d.ino);
}

/* ext4_init_new_dir: "." and ".." in block 0 of an empty directory. */
static int init_new_dir(struct fcr *r, const struct dentry *d)
{
	struct fx m, e;
	blk64_t b;
	char *buf;
	int err;

	if (e2map__fc_read_raw(r, d->ino) < 0)
		return 0;
	if (raw_flags(r->raw) & EXT4_INLINE_DATA_FL)
		return e2map__fc_inline_new_dir(r, d);
	if ((err = e2map__fc_tree_read(r, d->ino)) < 0)
		return 0;
	if (e2map__fc_lookup(&r->t, 0, 1, &m)) {
		b = m.pblk;
	} else {
		if ((err = e2map__fc_alloc(r, e2map__fc_goal(r, d->ino),
					   &b)) < 0)
			return err;
		e = (struct fx){ 0, 1, b, false, 0 };
		if ((err = e2map__fc_insert(r, &e)) < 0)
			return err;
	}
	if (ext2fs_new_dir_block(r->fs, d->ino, d->parent, &buf))
		return -ENOMEM;
	err = ext2fs_write_dir_block4(r->fs, b, buf, 0, d->ino) ?
	      e2map__fc_fail(-EIO, "writing a directory block", d->ino) : 0;
	ext2fs_free_mem(&buf);
	put32(r->raw + 4, r->fs->blocksize);
	put32(r->raw + 108, 0);
	put16(r->raw + 26, 2);
	return err < 0 ? err : e2map__fc_tree_write(r, d->ino);
}

/* ext4_fc_replay_create */
static int create_tag(struct fcr *r, const unsigned char *v, unsigned vlen)
{
	struct dentry d;
	int err;

	dentry(v, vlen, &d);
	if (d.ino > r->fs->super->s_inodes_count || !d.ino ||
	    e2map__fc_read_raw(r, d.ino) < 0)
		return e2map__fc_fail(-EINVAL, "created, but not found", d.ino);
	e2map__fc_mark_inode_used(r, d.ino, raw_mode(r->raw));
	if (!e2map__fc_iget_ok(r, d.ino))
		return e2map__fc_fail(-EINVAL, "created, but not found", d.ino);
	if (LINUX_S_ISDIR(raw_mode(r->raw))) {
		if (!e2map__fc_iget_ok(r, d.parent))
			return 0;
		if ((err = init_new_dir(r, &d)) != 0)
			return err < 0 && err != -ENOMEM &&
			       err != -EOPNOTSUPP ? 0 : err;
	}
	if ((err = link_internal(r, &d)) < 0)
		return err;
	if (e2map__fc_read_raw(r, d.ino) < 0)
		return e2map__fc_fail(-EIO, "reading the inode", d.ino);
	put16(r->raw + 26, 1);
	return e2map__fc_write_raw(r, d.ino);
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
	return e2map__fc_add_region(r, (uint64_t)le16(v + 10) << 32 |
					le32(v + 12),
				    n > INIT_MAX ? n - INIT_MAX : n);
}

/* ext4_fc_set_bitmaps_and_counters */
static void set_bitmaps(struct fcr *r)
{
	size_t i;

	for (i = 0; i < r->nmod; i++)
		if (e2map__fc_iget_ok(r, r->mod[i]) &&
		    (raw_flags(r->raw) & EXT4_EXTENTS_FL) &&
		    e2map__fc_tree_read(r, r->mod[i]) == 0)
			e2map__fc_mark_tree(r, true);
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

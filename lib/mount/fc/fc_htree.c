/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names added to an htree as fs/ext4/namei.c adds them: ext4_dx_add_entry
 * into a one-level tree (the leaf the hash picks, do_split when it is
 * full) and make_indexed_dir, which turns a full one-block directory
 * into an htree.  libext2fs would place the entries and blocks
 * otherwise, and both show: readdir's order after --replay and the
 * directory's FIEMAP.
 */
#include "fc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DX_INFO 24		/* struct dx_root_info, after "." and ".." */
#define DX_ENTRIES 32
#define DX_TAIL 8

/*
 * The name's hash as the kernel's htree code computes it (dir/hash.c:
 * signed or unsigned as ext4_hash_info_init decides, the end-of-directory
 * value kept free); a version it cannot hash is not replayed.  No name
 * is casefolded here: an htree add in a casefolded directory is refused
 * before it hashes.
 */
static int name_hash(struct fcr *r, int version, const char *name, int len,
		     uint32_t *hash)
{
	const struct ext2_super_block *sb = r->fs->super;
	uint32_t minor;

	if (e2map__dirhash(sb, e2map__hash_version(sb, (unsigned)version),
			   NULL, name, (unsigned)len, hash, &minor) < 0)
		return -EOPNOTSUPP;
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
			if ((err = name_hash(r, version,
					     (const char *)b + off + 8,
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
	if ((err = e2map__fc_dir_append(r, dir, &lblk, &b->pblk)) < 0 ||
	    (err = make_map(r, a->buf, version, map, &count)) < 0 ||
	    (err = count < 2 ? e2map__fc_fail(-EUCLEAN, "a directory leaf to "
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
	e2map__fc_de_put(r, b, last + used, d, rl - used, mode);
}

static int write_split(struct fcr *r, ext2_ino_t dir, struct split *a,
		       struct split *b, blk64_t node_pblk, unsigned char *node)
{
	int err;

	if ((err = e2map__fc_dir_write(r, dir, a->pblk, a->buf)) < 0 ||
	    (err = e2map__fc_dir_write(r, dir, b->pblk, b->buf)) < 0)
		return err;
	return ext2fs_write_dir_block4(r->fs, node_pblk, node, 0, dir) ?
	       e2map__fc_fail(-EIO, "writing a directory index", dir) : 0;
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
bool e2map__fc_dx_root_bad(const struct fcr *r, const unsigned char *root)
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
int e2map__fc_dx_add(struct fcr *r, const struct dentry *d, uint16_t mode,
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
	    (err = e2map__fc_dir_block(r, d->parent,
				       le32(node + 8 * at + 4) & 0x0fffffff,
				       &a.pblk, a.buf)) < 0)
		goto out;
	if (e2map__fc_add_to_block(r, a.buf, d, mode)) {
		err = e2map__fc_dir_write(r, d->parent, a.pblk, a.buf);
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
int e2map__fc_make_indexed(struct fcr *r, const struct dentry *d, uint16_t mode,
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
		return e2map__fc_fail(-EUCLEAN, "a bad \"..\" entry",
				      d->parent);
	len = bs - cs - from;
	if ((err = two_blocks(r, &a, &b)) < 0 ||
	    (err = e2map__fc_dir_append(r, d->parent, &lblk, &a.pblk)) < 0)
		goto out;
	put32(r->raw + 32, raw_flags(r->raw) | EXT2_INDEX_FL);
	memset(a.buf, 0, bs);
	memcpy(a.buf, root + from, len);
	memset(root + from, 0, len);
	for (off = 0; off + le16(a.buf + off + 4) < len;) {
		if (le16(a.buf + off + 4) < 12) {
			err = e2map__fc_fail(-EUCLEAN, "a bad directory entry",
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
	if ((err = e2map__fc_write_raw(r, d->parent)) == 0 &&
	    (err = name_hash(r, version, d->name, d->len, &hash)) == 0)
		err = split_add(r, d, mode, &a, &b, root + DX_ENTRIES, 0,
				version, hash, root, root_pblk);
out:
	free(a.buf);
	free(b.buf);
	return err;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names a directory still holds where no live entry is: in the rec_len
 * slack of a live entry (the space past its own name up to its rec_len,
 * where a later entry merged into it on delete used to be), and first
 * entries of a block whose inode was cleared (ext4_generic_delete_entry
 * with no previous entry keeps the name), and past an htree index
 * block's hash/block pairs, what the block held as a leaf before.
 * Kernels since 5.13 wipe both on delete, so on their images what is
 * found is mostly older: images made by earlier kernels, and htree
 * splits, which leave the moved entries' old copies past the packed ones
 * (names deleted since the split among them).
 *
 * Every candidate is held to more than the kernel's entry check, for
 * slack is anything: aligned, inside the slack, a name without '/' or
 * NUL (ciphertext of an AES block or more in an encrypted directory), a
 * known file type, an inode number the filesystem has.
 */
#include "dirent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct area {
	const struct dir *d;
	const unsigned char *b;
	size_t size;		/* bytes of B that are entries */
	uint64_t pblk;		/* 0: the inline area */
	uint32_t base;		/* B's offset in the inline area */
	bool filetype;
	bool crypt;		/* names are ciphertext */
	e2map__slack_cb cb;
	void *payload;
};

/* A name as the kernel writes one; in an encrypted directory, any bytes
 * of ciphertext, which is never shorter than an AES block. */
static bool name_ok(const struct area *a, const unsigned char *s,
		    unsigned len)
{
	if (e2map__is_dot((const char *)s, len))
		return false;
	if (a->crypt)
		return len >= 16;
	return len && !memchr(s, '/', len) && !memchr(s, '\0', len);
}

/* With the filetype feature, the kernel writes one of the seven types;
 * without, the byte is the high half of a 16-bit name length. */
static bool type_ok(const struct area *a, unsigned type)
{
	return a->filetype ? type >= 1 && type <= 7 : type == 0;
}

/* The entry at OFF, holding a name, whose own length ends by END. */
static bool dead_ok(const struct area *a, size_t off, size_t end)
{
	const unsigned char *de = a->b + off;
	uint32_t rlen = e2map__rec_len(de, a->d->bs);
	uint32_t need = e2map__dir_rec_len(de[6], a->d->hash_in_dirent);

	if (off + 8 > end || off + need > end || rlen < need || rlen % 4 ||
	    off + rlen > a->size)
		return false;
	if (le32(de) > a->d->f->m->fs->super->s_inodes_count)
		return false;
	return type_ok(a, de[7]) && name_ok(a, de + 8, de[6]);
}

/* The entry at OFF; its inode number is INO (0: overwritten, unknown). */
static int yield_ino(const struct area *a, size_t off, uint32_t ino)
{
	const unsigned char *de = a->b + off;
	struct e2map__slack s = { ino, (const char *)de + 8, de[6], de[7],
				  a->pblk, a->base + (uint32_t)off,
				  ino != le32(de) };

	return a->cb(&s, a->payload);
}

static int yield(const struct area *a, size_t off)
{
	return yield_ino(a, off, le32(a->b + off));
}

/* [FROM, END): what is left of entries deleted after a live one.  A
 * found entry is stepped over by its own length, not its rec_len, which
 * may span further deleted entries. */
static int scan_slack(const struct area *a, size_t from, size_t end)
{
	size_t off = (from + 3) & ~(size_t)3;
	int err;

	while (off + 12 <= end) {
		if (!dead_ok(a, off, end)) {
			off += 4;
			continue;
		}
		if ((err = yield(a, off)) != 0)
			return err;
		off += e2map__dir_rec_len(a->b[off + 6],
					  a->d->hash_in_dirent);
	}
	return 0;
}

/* The live chain from FROM; where it breaks, the rest is slack. */
static int scan_area(const struct area *a, size_t from)
{
	size_t off = from;
	int err;

	while (off + 12 <= a->size) {
		const unsigned char *de = a->b + off;
		uint32_t rlen = e2map__rec_len(de, a->d->bs);
		uint32_t used = e2map__dir_rec_len(de[6],
						   a->d->hash_in_dirent);

		if (rlen < 12 || rlen % 4 || off + rlen > a->size)
			return scan_slack(a, off, a->size);
		if (!le32(de) && de[6] && dead_ok(a, off, off + rlen) &&
		    (err = yield(a, off)) != 0)
			return err;
		if (used < rlen && (err = scan_slack(a, off + used,
						     off + rlen)) != 0)
			return err;
		off += rlen;
	}
	return 0;
}

/* The checksum tail (struct ext4_dir_entry_tail) ends a leaf: not slack. */
static size_t leaf_size(const struct dir *d, const unsigned char *b)
{
	const unsigned char *t = b + d->bs - TAIL_SIZE;

	if (d->csum && !le32(t) && le16(t + 4) == TAIL_SIZE && !t[6] &&
	    t[7] == FT_DIR_CSUM)
		return d->bs - TAIL_SIZE;
	return d->bs;
}

/* A dx root or node.  A leaf whose only entry was deleted looks alike
 * but keeps its name. */
static bool index_block(const struct dir *d, uint32_t lblk,
		     const unsigned char *b)
{
	return e2map__dx_internal(d, lblk, b) && (lblk == 0 || !b[6]);
}

/*
 * [FROM, END) after an index block's last pair.  The entry that began
 * four bytes before FROM lost its inode field to that pair's block
 * number, but keeps the rest: its name is found, its inode unknown (fls
 * gives the block number as the inode).
 */
static int scan_pairs_end(const struct area *a, size_t from, size_t end)
{
	const unsigned char *de = a->b + from - 4;
	uint32_t need, rlen;
	int err;

	if (from < 12 || from + 4 > end)
		return scan_slack(a, from, end);
	need = e2map__dir_rec_len(de[6], a->d->hash_in_dirent);
	rlen = e2map__rec_len(de, a->d->bs);
	if (from - 4 + need <= end && rlen >= need && rlen % 4 == 0 &&
	    from - 4 + rlen <= a->size && type_ok(a, de[7]) &&
	    name_ok(a, de + 8, de[6])) {
		if ((err = yield_ino(a, from - 4, 0)) != 0)
			return err;
		from += need - 4;
	}
	return scan_slack(a, from, end);
}

/*
 * An index block's hash/block pairs end at COUNT; past them, up to
 * LIMIT, lies what the block held before it became an index (the
 * linear entries of a directory just made an htree: old copies, or
 * names deleted since).  The fake entries before them are no names.
 */
static int scan_index(const struct area *a, bool root)
{
	const unsigned char *b = a->b;
	size_t coff = root ? 24 + (size_t)b[29] : 8, limit, count;

	if (coff + 4 > a->size)
		return 0;
	limit = le16(b + coff);
	count = le16(b + coff + 2);
	if (count > limit || coff + limit * 8 > a->size)
		return 0;
	return scan_pairs_end(a, coff + count * 8, coff + limit * 8);
}

static int scan_blocks(struct area *a, unsigned char *b)
{
	const struct dir *d = a->d;
	e2map_file_t *f = d->f;
	uint64_t nblocks = f->size / d->bs, lblk, pblk;
	uint32_t hole;
	int err;

	if (nblocks > E2MAP_MAX_BLOCKS)
		nblocks = E2MAP_MAX_BLOCKS;
	for (lblk = 0; lblk < nblocks; lblk++) {
		if (e2map__dir_map(d, (uint32_t)lblk,
				   (uint32_t)(nblocks - lblk), &pblk, &hole) < 0)
			return 0;	/* the map is damaged: no further */
		if (!pblk) {
			lblk += (hole ? hole : 1) - 1;
			continue;
		}
		if (e2map__read_block(f->m, pblk, b) < 0)
			continue;
		a->b = b;
		a->size = d->bs;
		a->pblk = pblk;
		if (index_block(d, (uint32_t)lblk, b))
			err = scan_index(a, lblk == 0);
		else {
			a->size = leaf_size(d, b);
			err = scan_area(a, 0);
		}
		if (err)
			return err;
	}
	return 0;
}

/* i_block after the parent's number, then system.data's value. */
static int scan_inline(struct area *a)
{
	e2map_file_t *f = a->d->f;
	int err;

	a->b = (const unsigned char *)f->inode->i_block;
	a->size = 60;
	if ((err = scan_area(a, 4)) != 0 || f->inline_size <= 60)
		return err;
	a->b = f->raw + f->inline_value;
	a->size = f->inline_size - 60;
	a->base = 60;
	return scan_area(a, 0);
}

int e2map__dir_slack(e2map_file_t *dir, e2map__slack_cb cb, void *payload)
{
	struct dir d = e2map__dir_of(dir);
	struct area a = { .d = &d, .cb = cb, .payload = payload,
			  .filetype = ext2fs_has_feature_filetype(
				  dir->m->fs->super),
			  .crypt = dir->inode->i_flags & EXT4_ENCRYPT_FL };
	unsigned char *b;
	int err;

	if (dir->src == SRC_INLINE)
		return scan_inline(&a);
	if (!(b = malloc(d.bs)))
		return -ENOMEM;
	err = scan_blocks(&a, b);
	free(b);
	return err;
}

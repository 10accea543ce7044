/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A directory's blocks and entries as fs/ext4/dir.c and namei.c check
 * them: rec_len decoded, each entry held to __ext4_check_dir_entry, leaf
 * and index checksums verified once per block (buffer_verified), and
 * ext4_read_dirblock's refusals for the htree walk.  Every block comes
 * through the same mapping walk as file data.
 */
#include "dirent.h"

/* ext4_rec_len_from_disk */
uint32_t e2map__rec_len(const unsigned char *de, uint32_t bs)
{
	uint32_t len = le16(de + 4);

	if (bs < 65536)
		return len;
	if (len == 65535 || len == 0)
		return bs;
	return (len & 65532) | ((len & 3) << 16);
}

/* ext4_dir_rec_len */
uint32_t e2map__dir_rec_len(unsigned name_len, bool hash)
{
	return ((name_len + 8 + 3) & ~3U) + (hash ? 8 : 0);
}

/* is_fake_dir_entry: "." / ".." or the checksum tail carry no hash. */
static bool fake_entry(const unsigned char *de)
{
	return (de[6] > 0 && de[6] <= 2 && de[8] == '.' &&
		(de[9] == '.' || de[9] == '\0')) || de[7] == FT_DIR_CSUM;
}

/* __ext4_check_dir_entry, on a matching entry at OFF of a SIZE buffer. */
bool e2map__entry_ok(const struct dir *d, const unsigned char *de, size_t off,
		     size_t size)
{
	bool hash = d->hash_in_dirent && !fake_entry(de);
	uint32_t rlen = e2map__rec_len(de, d->bs);
	size_t next = off + rlen;
	uint32_t tail = e2map__dir_rec_len(1, !d->csum && d->hash_in_dirent);

	if (rlen < e2map__dir_rec_len(1, hash) || rlen % 4 ||
	    rlen < e2map__dir_rec_len(de[6], hash) || next > size)
		return false;
	if (next + tail > size && next != size)
		return false;
	return le32(de) <= d->f->m->fs->super->s_inodes_count;
}

/* The crc32c seed of the directory inode (ext4_iget's i_csum_seed). */
static uint32_t inode_seed(const e2map_file_t *f)
{
	uint32_t le_ino = ext2fs_cpu_to_le32(f->ino);
	uint32_t crc = e2map__crc32c(f->m->fs->csum_seed,
					(unsigned char *)&le_ino, 4);

	return e2map__crc32c(crc, (unsigned char *)&f->inode->i_generation,
				4);
}

/* ext4_dirblock_csum_verify: the tail sits at the very end of the block. */
static bool leaf_csum_ok(const struct dir *d, const unsigned char *b)
{
	const unsigned char *t = b + d->bs - TAIL_SIZE;

	if (!d->csum)
		return true;
	if (le32(t) || e2map__rec_len(t, d->bs) != TAIL_SIZE || t[6] ||
	    t[7] != FT_DIR_CSUM)
		return false;
	return e2map__crc32c(inode_seed(d->f), b, d->bs - TAIL_SIZE) ==
	       le32(t + 8);
}

/* get_dx_countlimit: where count/limit sit in a root or node block. */
static size_t dx_count_offset(const struct dir *d, const unsigned char *b)
{
	uint32_t rlen = e2map__rec_len(b, d->bs);

	if (rlen == d->bs)
		return 8;
	if (rlen != 12 || e2map__rec_len(b + 12, d->bs) != d->bs - 12 ||
	    le32(b + 24) || b[29] != 8)
		return 0;
	return 32;
}

/* ext4_dx_csum_verify */
static bool dx_csum_ok(const struct dir *d, const unsigned char *b)
{
	size_t coff = dx_count_offset(d, b), limit, count;
	unsigned char zero[4] = { 0 };
	uint32_t crc;

	if (!d->csum)
		return true;
	if (!coff)
		return false;
	limit = le16(b + coff);
	count = le16(b + coff + 2);
	if (coff + limit * 8 > d->bs - DX_TAIL_SIZE || count > limit)
		return false;
	crc = e2map__crc32c(inode_seed(d->f), b, coff + count * 8);
	crc = e2map__crc32c(crc, b + coff + limit * 8, 4);
	crc = e2map__crc32c(crc, zero, 4);
	return crc == le32(b + coff + limit * 8 + 4);
}

/*
 * Where logical block LBLK of the directory lies: 0 for a hole, and then
 * *HOLE is how many blocks the hole spans (at most N).
 */
int e2map__dir_map(const struct dir *d, uint32_t lblk, uint32_t n,
		   uint64_t *pblk, uint32_t *hole)
{
	struct es_entry r;
	int err;

	if ((err = e2map__map_blocks(d->f, lblk, n, &r)) < 0)
		return err;
	*pblk = r.kind == E2MAP_RUN_HOLE ? 0 : r.pblk;
	*hole = r.kind == E2MAP_RUN_HOLE ? r.len : 0;
	return 0;
}

/*
 * __ext4_read_dirblock's buffer_verified: a block whose checksum passed
 * once is trusted from then on (the image never changes under us).
 */
bool e2map__csum_once(const struct dir *d, uint64_t pblk, bool index,
		      const unsigned char *b)
{
	struct blkset *ok = &d->f->m->dir_ok;
	int err = 0;

	if (e2map__blkset_has(ok, pblk))
		return true;
	if (!(index ? dx_csum_ok(d, b) : leaf_csum_ok(d, b)))
		return false;
	e2map__blkset_add(ok, pblk, &err);
	return true;
}

/* ext4_read_dirblock for the htree walk: holes and checksums refused. */
int e2map__read_dirblock(const struct dir *d, uint32_t lblk,
			 enum dirblock_type type, unsigned char *b)
{
	e2map_t *m = d->f->m;
	uint64_t pblk;
	uint32_t hole;
	bool dx;
	int err;

	if (lblk >= d->f->size / d->bs)
		return e2map__fail(m, -EUCLEAN, "directory %u: block %u past "
				   "i_size", d->f->ino, lblk);
	if ((err = e2map__dir_map(d, lblk, 1, &pblk, &hole)) < 0)
		return err;
	if (!pblk)
		return e2map__fail(m, -EUCLEAN, "directory %u: hole in the "
				   "htree at block %u", d->f->ino, lblk);
	if ((err = e2map__read_block(m, pblk, b)) < 0)
		return err;
	dx = (d->f->inode->i_flags & EXT2_INDEX_FL) &&
	     (lblk == 0 || e2map__rec_len(b, d->bs) == d->bs);
	if (!dx && type == INDEX)
		return e2map__fail(m, -EUCLEAN, "directory %u: leaf block %u "
				   "where an index was expected", d->f->ino,
				   lblk);
	if ((dx && type == INDEX && !e2map__csum_once(d, pblk, true, b)) ||
	    (!dx && !e2map__csum_once(d, pblk, false, b)))
		return e2map__fail(m, -EBADMSG, "directory %u: block %u "
				   "checksum does not match", d->f->ino, lblk);
	return 0;
}

/* is_dx_internal_node: blocks whose checksum the linear scan skips. */
bool e2map__dx_internal(const struct dir *d, uint32_t lblk,
			const unsigned char *b)
{
	if (!(d->f->inode->i_flags & EXT2_INDEX_FL) ||
	    !ext2fs_has_feature_dir_index(d->f->m->fs->super))
		return false;
	return lblk == 0 || (!le32(b) && e2map__rec_len(b, d->bs) == d->bs);
}

struct dir e2map__dir_of(e2map_file_t *f)
{
	uint32_t fl = f->inode->i_flags;

	return (struct dir){ f, f->m->bs,
		ext2fs_has_feature_metadata_csum(f->m->fs->super),
		(fl & EXT4_ENCRYPT_FL) && (fl & EXT4_CASEFOLD_FL), NULL };
}

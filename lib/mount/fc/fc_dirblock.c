/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A directory's blocks as fs/ext4/namei.c writes them during a replay:
 * an entry put in the first slot with room (ext4_find_dest_de,
 * ext4_insert_dentry), a block read or written with its checksum tail,
 * and a block appended (ext4_append, its place chosen as
 * ext4_ext_map_blocks chooses it).  The inline, htree and linear ways
 * of adding a name (fc_inline.c, fc_htree.c, fc_name.c) all end here.
 */
#include "fc.h"

#include <errno.h>
#include <string.h>

int e2map__fc_file_type(uint16_t mode)
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

void e2map__fc_de_put(struct fcr *r, unsigned char *b, size_t off,
		      const struct dentry *d, unsigned rlen, uint16_t mode)
{
	put32(b + off, d->ino);
	put16(b + off + 4, rlen);
	b[off + 6] = (unsigned char)d->len;
	b[off + 7] = ext2fs_has_feature_filetype(r->fs->super) ?
		     (unsigned char)e2map__fc_file_type(mode) : 0;
	memcpy(b + off + 8, d->name, (size_t)d->len);
}

/* The logical block LBLK of the directory whose tree is r->t. */
int e2map__fc_dir_block(struct fcr *r, ext2_ino_t dir, uint32_t lblk,
			blk64_t *pblk, unsigned char *buf)
{
	struct fx m;
	errcode_t code;

	if (!e2map__fc_lookup(&r->t, lblk, 1, &m) || m.unwritten)
		return e2map__fc_fail(-EUCLEAN, "a directory block not mapped",
				      dir);
	*pblk = m.pblk;
	code = ext2fs_read_dir_block4(r->fs, m.pblk, buf, 0, dir);
	if (code == EXT2_ET_DIR_CSUM_INVALID)
		return e2map__fc_fail(-EBADMSG, "directory block failed "
				      "checksum", dir);
	return code ? e2map__fc_fail(-EUCLEAN, "a bad directory block", dir)
		    : 0;
}

int e2map__fc_dir_write(struct fcr *r, ext2_ino_t dir, blk64_t pblk,
			unsigned char *buf)
{
	if (csum_size(r))
		ext2fs_initialize_dirent_tail(r->fs, EXT2_DIRENT_TAIL(buf,
					      r->fs->blocksize));
	return ext2fs_write_dir_block4(r->fs, pblk, buf, 0, dir) ?
	       e2map__fc_fail(-EIO, "writing a directory block", dir) : 0;
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
	size_t i = e2map__fc_find(&r->t, lblk);
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
		goal = e2map__fc_goal(r, dir);
	else if (lblk > x->lblk)
		goal = x->pblk + (lblk - x->lblk);
	else
		goal = x->pblk - (x->lblk - lblk);
	if ((err = e2map__fc_alloc(r, goal - off, &b)) < 0)
		return err;
	*pblk = b + off;
	return 0;
}

/*
 * ext4_append: a block at the end of the directory (inode in r->raw,
 * tree in r->t), allocated near the block before it.  Its bytes are the
 * caller's to write.
 */
int e2map__fc_dir_append(struct fcr *r, ext2_ino_t dir, uint32_t *lblk,
			 blk64_t *pblk)
{
	uint64_t size = raw_size(r->raw);
	struct fx e;
	int err;

	*lblk = (uint32_t)(size >> (10 + r->fs->super->s_log_block_size));
	if ((err = map_new(r, dir, *lblk, pblk)) < 0)
		return err;
	e = (struct fx){ *lblk, 1, *pblk, false, 0 };
	if ((err = e2map__fc_insert(r, &e)) < 0)
		return err;
	size += r->fs->blocksize;
	put32(r->raw + 4, (uint32_t)size);
	put32(r->raw + 108, (uint32_t)(size >> 32));
	return e2map__fc_tree_write(r, dir);
}

/* ext4_find_dest_de and ext4_insert_dentry: the first entry with room. */
bool e2map__fc_add_in(struct fcr *r, unsigned char *b, size_t room,
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
			e2map__fc_de_put(r, b, off + used, d, e.rlen - used,
					 mode);
			return true;
		}
		off += e.rlen;
	}
	return false;
}

bool e2map__fc_add_to_block(struct fcr *r, unsigned char *b,
			    const struct dentry *d, uint16_t mode)
{
	return e2map__fc_add_in(r, b, r->fs->blocksize - csum_size(r), d, mode);
}

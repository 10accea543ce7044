/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An inode as it lies on disk: where it is (ext4_get_inode_loc), a private
 * copy of it, and the checks __ext4_iget makes on its fields before
 * anything looks at its type (checksum, link count, sizes, xattrs).
 */
#include "inode.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Where the inode lies: ext4_get_inode_loc's arithmetic. */
static int locate(e2map_file_t *f)
{
	ext2_filsys fs = f->m->fs;
	uint32_t ipg = fs->super->s_inodes_per_group;
	uint64_t byte = (uint64_t)((f->ino - 1) % ipg) * EXT2_INODE_SIZE(fs->super);
	uint64_t table = ext2fs_inode_table_loc(fs, (f->ino - 1) / ipg);

	if (!e2map__block_valid(f->m, table, 1))
		return e2map__fail(f->m, -EUCLEAN, "inode %u: bad inode table "
				   "block %" PRIu64, f->ino, table);
	f->inode_pblk = table + byte / f->m->bs;
	f->inode_off = (uint32_t)(byte % f->m->bs);
	return 0;
}

/* An inode's private copy: the on-disk size, or the large struct the
 * fields are read through when the inode is smaller. */
size_t e2map__raw_size(const e2map_t *m)
{
	size_t isize = EXT2_INODE_SIZE(m->fs->super);

	return isize > sizeof(struct ext2_inode_large) ?
	       isize : sizeof(struct ext2_inode_large);
}

/* Into F->raw, e2map__raw_size bytes that come with F (iget.c). */
static int read_raw(e2map_file_t *f)
{
	unsigned isize = EXT2_INODE_SIZE(f->m->fs->super);
	size_t alloc = e2map__raw_size(f->m);
	int err;

	if ((err = locate(f)) < 0)
		return err;
	/* A 128-byte inode has no fields past it: read them as zeroes. */
	memset(f->raw + isize, 0, alloc - isize);
	if ((err = e2map__read_part(f->m, f->inode_pblk, f->inode_off, isize,
				    f->raw)) < 0)
		return err;
	f->inode = (struct ext2_inode_large *)f->raw;
	return 0;
}

/*
 * ext4_inode_csum_verify: crc32c over inode number, generation and the
 * inode with its checksum fields zeroed.  Unlike libext2fs's verifier, an
 * all-zero inode is no exception.  Hurd filesystems carry no checksum.
 */
static bool csum_ok(e2map_file_t *f)
{
	ext2_filsys fs = f->m->fs;
	unsigned isize = EXT2_INODE_SIZE(fs->super);
	struct ext2_inode_large *in = f->inode;
	bool hi = isize > EXT2_GOOD_OLD_INODE_SIZE &&
		  in->i_extra_isize >= offsetof(struct ext2_inode_large,
						 i_checksum_hi) + 2 -
				       EXT2_GOOD_OLD_INODE_SIZE;
	size_t lo = offsetof(struct ext2_inode_large, i_checksum_lo);
	size_t hi_at = offsetof(struct ext2_inode_large, i_checksum_hi);
	uint32_t le_ino = ext2fs_cpu_to_le32(f->ino), crc, want;
	unsigned char zero[2] = { 0, 0 };

	if (fs->super->s_creator_os == EXT2_OS_HURD)
		return true;
	crc = e2map__crc32c(fs->csum_seed, (unsigned char *)&le_ino, 4);
	crc = e2map__crc32c(crc, (unsigned char *)&in->i_generation, 4);
	/* The inode with its checksum fields read as zeroes, uncopied. */
	crc = e2map__crc32c(crc, f->raw, lo);
	crc = e2map__crc32c(crc, zero, 2);
	if (hi) {
		crc = e2map__crc32c(crc, f->raw + lo + 2, hi_at - lo - 2);
		crc = e2map__crc32c(crc, zero, 2);
		crc = e2map__crc32c(crc, f->raw + hi_at + 2, isize - hi_at - 2);
	} else {
		crc = e2map__crc32c(crc, f->raw + lo + 2, isize - lo - 2);
	}
	want = in->i_checksum_lo;
	if (hi)
		want |= (uint32_t)in->i_checksum_hi << 16;
	else
		crc &= 0xFFFF;
	return crc == want;
}

/*
 * The order of __ext4_iget: a free inode asked by handle (EXT4_IGET_HANDLE),
 * extra_isize, checksum, link count (-ESTALE,
 * which ext4_lookup turns into -EUCLEAN), size, htree flag, acl block.
 */
static int check_inode(e2map_file_t *f, bool by_number)
{
	e2map_t *m = f->m;
	struct ext2_inode_large *in = f->inode;
	unsigned isize = EXT2_INODE_SIZE(m->fs->super);

	/* By handle, a free inode is stale before anything is checked. */
	if (by_number && !in->i_links_count && !in->i_mode)
		return e2map__fail(m, -ESTALE, "inode %u is not in use",
				   f->ino);
	if (isize > EXT2_GOOD_OLD_INODE_SIZE &&
	    ((unsigned)EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize > isize ||
	     (in->i_extra_isize & 3)))
		return e2map__fail(m, -EUCLEAN, "inode %u: bad extra_isize %u",
				   f->ino, in->i_extra_isize);
	if (ext2fs_has_feature_metadata_csum(m->fs->super) && !csum_ok(f))
		return e2map__fail(m, -EBADMSG, "inode %u: checksum does not "
				   "match", f->ino);
	if (in->i_links_count == 0)
		return e2map__fail(m, by_number ? -ESTALE : -EUCLEAN,
				   "inode %u is not in use", f->ino);
	if (f->size > INT64_MAX)
		return e2map__fail(m, -EUCLEAN, "inode %u: bad i_size", f->ino);
	/* Without dir_index, checksums would break on htree blocks. */
	if (!ext2fs_has_feature_dir_index(m->fs->super) &&
	    ext2fs_has_feature_metadata_csum(m->fs->super) &&
	    (in->i_flags & EXT2_INDEX_FL))
		return e2map__fail(m, -EUCLEAN, "inode %u: htree flag without "
				   "dir_index", f->ino);
	return 0;
}

/* __ext4_iget, after the in-inode xattrs: the xattr block reference. */
static int check_acl(e2map_file_t *f)
{
	if (f->file_acl && !e2map__inode_block_valid(f, f->file_acl, 1))
		return e2map__fail(f->m, -EUCLEAN, "inode %u: bad extended "
				   "attribute block %" PRIu64, f->ino,
				   f->file_acl);
	return 0;
}

static void decode(e2map_file_t *f)
{
	struct ext2_inode_large *in = f->inode;

	f->size = in->i_size;
	/* ext4_isize: i_size_high counts for files, or with largedir. */
	if (LINUX_S_ISREG(in->i_mode) ||
	    ext2fs_has_feature_largedir(f->m->fs->super))
		f->size |= (uint64_t)in->i_size_high << 32;
	f->file_acl = in->i_file_acl;
	if (ext2fs_has_feature_64bit(f->m->fs->super))
		f->file_acl |= (uint64_t)in->osd2.linux2.l_i_file_acl_high << 32;
}

int e2map__inode_raw_flags(e2map_t *m, ext2_ino_t ino, uint32_t *flags)
{
	e2map_file_t f = { .m = m, .ino = ino };
	unsigned char le[4];
	int err;

	if ((err = locate(&f)) == 0 &&
	    (err = e2map__read_part(m, f.inode_pblk, f.inode_off +
				    offsetof(struct ext2_inode_large, i_flags),
				    4, le)) == 0)
		*flags = le32(le);
	return err;
}

void e2map__inode_decode(const unsigned char *raw, uint64_t ino,
			 struct e2map_inode *out)
{
	out->ino = ino;
	out->mode = le16(raw);
	out->links = le16(raw + 26);
	out->size = le32(raw + 4) | (uint64_t)le32(raw + 108) << 32;
	out->err = 0;
	out->flags = le32(raw + 32);
}

int e2map__inode_peek(e2map_t *m, ext2_ino_t ino, struct e2map_inode *out)
{
	e2map_file_t f = { .m = m, .ino = ino };
	unsigned char raw[EXT2_GOOD_OLD_INODE_SIZE];
	int err;

	if ((err = locate(&f)) < 0 ||
	    (err = e2map__read_part(m, f.inode_pblk, f.inode_off, sizeof(raw),
				    raw)) < 0)
		return err;
	e2map__inode_decode(raw, ino, out);
	return 0;
}

int e2map__inode_load(e2map_file_t *f, bool by_number)
{
	int err;

	if ((err = read_raw(f)) < 0)
		return err;
	decode(f);
	if ((err = check_inode(f, by_number)) < 0 ||
	    (err = e2map__ibody_scan(f)) < 0)
		return err;
	return check_acl(f);
}

/* ext4_inode_blocks: i_blocks in 512-byte units. */
uint64_t e2map__inode_blocks(const e2map_file_t *f)
{
	const struct ext2_inode_large *in = f->inode;
	uint64_t blocks = in->i_blocks;

	if (!ext2fs_has_feature_huge_file(f->m->fs->super))
		return blocks;
	blocks |= (uint64_t)in->osd2.linux2.l_i_blocks_hi << 32;
	return (in->i_flags & EXT4_HUGE_FILE_FL) ? blocks << (f->m->bits - 9) :
						    blocks;
}

/*
 * st_blocks as stat(2) shows it: ext4_file_getattr reports at least a
 * sector per 512 bytes of a regular file's inline data, so that tools do
 * not take it for a hole.
 */
uint64_t e2map__stat_blocks(const e2map_file_t *f)
{
	uint64_t blocks = e2map__inode_blocks(f);

	if (f->src == SRC_INLINE && LINUX_S_ISREG(f->inode->i_mode))
		blocks += (f->size + 511) >> 9;
	return blocks;
}

/*
 * EXT4_FITS_IN_INODE: the in-memory i_extra_isize covers the field at OFF
 * (4 bytes).  __ext4_iget gives a large inode whose i_extra_isize is 0
 * the whole struct ext4_inode (32 bytes past 128) before it reads the
 * times, so its birth time is the bytes there, zero or not.
 */
static bool fits(const e2map_file_t *f, size_t off)
{
	unsigned extra = 0;

	if (EXT2_INODE_SIZE(f->m->fs->super) > EXT2_GOOD_OLD_INODE_SIZE)
		extra = f->inode->i_extra_isize ? f->inode->i_extra_isize :
			E2MAP_KERNEL_EXTRA_ISIZE;
	return off + 4 <= EXT2_GOOD_OLD_INODE_SIZE + extra;
}

/*
 * ext4_decode_extra_time: the base is signed; the extra word, where the
 * inode has it, adds two epoch bits above bit 31 and the nanoseconds.
 */
static struct e2map_timespec xtime(const e2map_file_t *f, uint32_t base,
				   size_t extra_off)
{
	struct e2map_timespec ts = { (int32_t)base, 0 };
	uint32_t extra;

	if (!fits(f, extra_off))
		return ts;
	extra = le32(f->raw + extra_off);
	ts.sec += (int64_t)(extra & 3) << 32;
	ts.nsec = extra >> 2;
	return ts;
}

/* st_rdev of a device (ext4_iget's init_special_inode), glibc's makedev. */
static uint64_t rdev(const e2map_file_t *f)
{
	uint32_t b0 = f->inode->i_block[0], b1 = f->inode->i_block[1];
	uint64_t major, minor;

	if (!LINUX_S_ISCHR(f->inode->i_mode) && !LINUX_S_ISBLK(f->inode->i_mode))
		return 0;
	if (b0) {		/* old_decode_dev: 8 bits each, of a u16 */
		major = (b0 >> 8) & 0xff;
		minor = b0 & 0xff;
	} else {		/* new_decode_dev */
		major = (b1 & 0xfff00) >> 8;
		minor = (b1 & 0xff) | ((b1 >> 12) & 0xfff00);
	}
	return (major & 0xfff) << 8 | (major & ~0xfffULL) << 32 |
	       (minor & 0xff) | (minor & ~0xffULL) << 12;
}

#define OFF(field) offsetof(struct ext2_inode_large, field)

void e2map__inode_stat(const e2map_file_t *f, struct e2map_stat *st)
{
	const struct ext2_inode_large *in = f->inode;

	st->ino = f->ino;
	st->mode = in->i_mode;
	st->blksize = f->m->bs;
	st->size = f->size;
	st->blocks = e2map__stat_blocks(f);
	st->maxbytes = f->maxbytes;
	st->nlink = in->i_links_count;
	st->uid = in->i_uid | (uint32_t)in->osd2.linux2.l_i_uid_high << 16;
	st->gid = in->i_gid | (uint32_t)in->osd2.linux2.l_i_gid_high << 16;
	st->rdev = rdev(f);
	st->atime = xtime(f, in->i_atime, OFF(i_atime_extra));
	st->mtime = xtime(f, in->i_mtime, OFF(i_mtime_extra));
	st->ctime = xtime(f, in->i_ctime, OFF(i_ctime_extra));
	st->crtime = (struct e2map_timespec){ 0, 0 };
	st->mask = 0;
	if (fits(f, OFF(i_crtime))) {
		st->crtime = xtime(f, in->i_crtime, OFF(i_crtime_extra));
		st->mask |= E2MAP_STAT_CRTIME;
	}
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inodes under the fast-commit replay: one on-disk inode read into
 * r->raw as bytes and written back (libext2fs keeps raw inodes in host
 * order, which is why the replay needs a little-endian host), the
 * checks of ext4_iget(EXT4_IGET_NORMAL) a tag's inode must pass,
 * ext4_mark_inode_used, the fc_modified_inodes list
 * ext4_fc_set_bitmaps_and_counters walks at the end, and the one form of
 * a replay's failure.  Every other part of the replay stands on these.
 */
#include "fc.h"

#include <errno.h>
#include <inttypes.h>

int e2map__fc_fail(int err, const char *what, uint32_t ino)
{
	return e2map__fail(NULL, err, "fast-commit replay: inode %" PRIu32
			   ": %s: the kernel's mount fails", ino, what);
}

/* What e2map does not replay (the kernel does): refused, not guessed. */
int e2map__fc_unsupported(const char *what, uint32_t ino)
{
	return e2map__fail(NULL, -EOPNOTSUPP, "fast-commit replay: inode %"
			   PRIu32 ": %s: not replayed by e2map", ino, what);
}

int e2map__fc_code2err(errcode_t code, const char *what, uint32_t ino)
{
	return e2map__fc_fail(code == EXT2_ET_NO_MEMORY ? -ENOMEM : -EIO, what,
			      ino);
}

int e2map__fc_read_raw(struct fcr *r, ext2_ino_t ino)
{
	return ext2fs_read_inode_full(r->fs, ino, (struct ext2_inode *)r->raw,
				      EXT2_INODE_SIZE(r->fs->super)) ? -EIO : 0;
}

int e2map__fc_write_raw(struct fcr *r, ext2_ino_t ino)
{
	errcode_t code = ext2fs_write_inode_full(r->fs, ino,
			(struct ext2_inode *)r->raw,
			EXT2_INODE_SIZE(r->fs->super));

	return code ? e2map__fc_code2err(code, "writing the inode", ino) : 0;
}

/* ext4_iget(EXT4_IGET_NORMAL) succeeds: the inode is read into r->raw. */
bool e2map__fc_iget_ok(struct fcr *r, ext2_ino_t ino)
{
	const struct ext2_super_block *sb = r->fs->super;

	if ((ino < EXT2_FIRST_INO(sb) && ino != EXT2_ROOT_INO) ||
	    ino > sb->s_inodes_count)
		return false;
	return e2map__fc_read_raw(r, ino) == 0 && le16(r->raw + 26) != 0;
}

/* ext4_mark_inode_used */
void e2map__fc_mark_inode_used(struct fcr *r, ext2_ino_t ino, uint16_t mode)
{
	if (!ext2fs_test_inode_bitmap2(r->fs->inode_map, ino))
		ext2fs_inode_alloc_stats2(r->fs, ino, 1, LINUX_S_ISDIR(mode));
}

int e2map__fc_record_modified(struct fcr *r, ext2_ino_t ino)
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

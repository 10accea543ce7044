/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * e2map_file_lseek: ext4_llseek and ext4_dir_llseek (spec §5).  SEEK_DATA and
 * SEEK_HOLE walk the same mapper as FIEMAP (iomap_seek_data/_hole), so they
 * warm the handle's cache exactly as the kernel's calls do.
 */
#include "file.h"

#include <assert.h>
#include <errno.h>
#include <unistd.h>

static_assert(E2MAP_SEEK_DATA == SEEK_DATA && E2MAP_SEEK_HOLE == SEEK_HOLE,
	      "whence values differ from the C library's");

#define HTREE_EOF_64BIT INT64_MAX

/* vfs_setpos: the position must be in [0, maxsize]. */
static int64_t setpos(e2map_file_t *f, int64_t off, uint64_t maxsize)
{
	if (off < 0 || (uint64_t)off > maxsize)
		return -EINVAL;
	f->pos = off;
	return off;
}

/* generic_file_llseek_size, with loff_t's wrapping arithmetic. */
static int64_t generic_llseek(e2map_file_t *f, int64_t off, int whence,
			      uint64_t maxsize, uint64_t eof)
{
	switch (whence) {
	case SEEK_END:
		off = (int64_t)((uint64_t)off + eof);
		break;
	case SEEK_CUR:
		if (off == 0)
			return f->pos;
		off = (int64_t)((uint64_t)f->pos + (uint64_t)off);
		break;
	case SEEK_DATA:
		if ((uint64_t)off >= eof)
			return -ENXIO;
		break;
	case SEEK_HOLE:
		if ((uint64_t)off >= eof)
			return -ENXIO;
		off = (int64_t)eof;
		break;
	}
	return setpos(f, off, maxsize);
}

/*
 * One iomap_seek_data/_hole walk over [pos, i_size).  Unwritten extents
 * read as holes: a fresh mount's page cache is empty (spec §5.1).
 */
static int64_t seek_walk(e2map_file_t *f, int64_t pos, bool want_data)
{
	uint64_t cur = (uint64_t)pos, left;
	struct e2map_iomap io;
	int err;

	if (pos < 0 || (uint64_t)pos >= f->size)
		return -ENXIO;
	for (left = f->size - cur; left; ) {
		bool data;
		uint64_t len;

		if ((err = e2map__iomap_report(f, cur, left, &io)) < 0)
			return err;
		data = io.kind == E2MAP_RUN_DATA || io.kind == E2MAP_RUN_INLINE;
		if (data == want_data)
			return (int64_t)cur;
		len = io.off + io.len - cur;
		if (len > left)
			len = left;
		cur += len;
		left -= len;
	}
	return want_data ? -ENXIO : (int64_t)f->size;
}

/* is_dx_dir: such directories seek by hash cookies, not by blocks. */
static bool is_dx_dir(const e2map_file_t *f)
{
	const struct ext2_inode_large *in = f->inode;

	return LINUX_S_ISDIR(in->i_mode) &&
	       ext2fs_has_feature_dir_index(f->m->fs->super) &&
	       ((in->i_flags & EXT2_INDEX_FL) ||
		(f->size >> f->m->bits) == 1 || f->src == SRC_INLINE);
}

int64_t e2map_file_lseek(e2map_file_t *f, int64_t offset, int whence)
{
	int64_t r;

	if (!f || whence < SEEK_SET || whence > SEEK_HOLE)
		return -EINVAL;
	if (e2map__unmapped(f))
		return -ESPIPE;		/* a pipe: no llseek (vfs_llseek) */
	if (is_dx_dir(f))
		return generic_llseek(f, offset, whence, HTREE_EOF_64BIT,
				      HTREE_EOF_64BIT);
	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return generic_llseek(f, offset, whence, f->maxbytes, f->size);
	r = seek_walk(f, offset, whence == SEEK_DATA);
	return r < 0 ? r : setpos(f, r, f->maxbytes);
}

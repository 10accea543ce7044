/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * e2map_file_fiemap: FS_IOC_FIEMAP on ext4 (spec §2, §3.1): the request checks
 * in the kernel's order (ioctl_fiemap, ext4_fiemap, fiemap_prep), the
 * iomap_fiemap walk that emits each mapping one step late, and the
 * write-back of fm_flags and fm_mapped_extents.
 */
#include "file.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#define FIEMAP_MAX_EXTENTS (UINT_MAX / sizeof(struct fiemap_extent))

/* ext4_fiemap_check_ranges and fiemap_prep share this clipping. */
static int clip_range(uint64_t start, uint64_t *len, uint64_t maxbytes,
		      bool inclusive)
{
	if (*len == 0)
		return -EINVAL;
	if (inclusive ? start > maxbytes : start >= maxbytes)
		return -EFBIG;
	if (*len > maxbytes || maxbytes - *len < start)
		*len = maxbytes - start;
	return 0;
}

/* fiemap_fill_next_extent: 1 when the walk must stop, else 0. */
static int fill(struct fiemap *fm, const struct e2map_iomap *io, uint32_t last)
{
	uint32_t flags = last;
	struct fiemap_extent *e;

	if (io->kind == E2MAP_RUN_UNWRITTEN)
		flags |= FIEMAP_EXTENT_UNWRITTEN;
	if (io->kind == E2MAP_RUN_INLINE)
		flags |= FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED;
	if (io->merged)
		flags |= FIEMAP_EXTENT_MERGED;
	if (fm->fm_extent_count == 0) {
		fm->fm_mapped_extents++;
		return last ? 1 : 0;
	}
	if (fm->fm_mapped_extents >= fm->fm_extent_count)
		return 1;
	e = &fm->fm_extents[fm->fm_mapped_extents++];
	memset(e, 0, sizeof(*e));
	e->fe_logical = io->off;
	e->fe_physical = io->addr;
	e->fe_length = io->len;
	e->fe_flags = flags;
	return (fm->fm_mapped_extents == fm->fm_extent_count || last) ? 1 : 0;
}

static int map_one(e2map_file_t *f, bool xattr, uint64_t pos, uint64_t len,
		   struct e2map_iomap *io)
{
	return xattr ? e2map__iomap_xattr(f, pos, io) :
		       e2map__iomap_report(f, pos, len, io);
}

/*
 * iomap_fiemap: each non-hole mapping is held until the next one arrives;
 * the held one goes out with LAST when the walk ends, even when it ended
 * on an error (the kernel then returns 0, as it overwrites the error).
 */
static int walk(e2map_file_t *f, struct fiemap *fm, bool xattr,
		uint64_t pos, uint64_t len)
{
	struct e2map_iomap io, prev = { .kind = E2MAP_RUN_HOLE };
	int err = 0;

	while (len) {
		uint64_t step;

		if ((err = map_one(f, xattr, pos, len, &io)) < 0)
			break;
		step = io.off + io.len - pos;
		if (step > len)
			step = len;
		if (io.kind != E2MAP_RUN_HOLE) {
			int full = prev.kind != E2MAP_RUN_HOLE && fill(fm, &prev, 0);

			prev = io;
			if (full)
				break;
		}
		pos += step;
		len -= step;
	}
	if (prev.kind != E2MAP_RUN_HOLE) {
		fill(fm, &prev, FIEMAP_EXTENT_LAST);
		return 0;
	}
	return err == -ENOENT ? 0 : err;
}

static int request(e2map_file_t *f, struct fiemap *fm, uint32_t *flags)
{
	uint64_t start = fm->fm_start, len = fm->fm_length;
	bool xattr;
	int err;

	if (*flags & FIEMAP_FLAG_CACHE) {
		if (f->src == SRC_EXTENT &&
		    (err = e2map__extent_precache(f, false)) < 0)
			return err;
		*flags &= ~FIEMAP_FLAG_CACHE;
	}
	if ((err = clip_range(start, &len, f->maxbytes, true)) < 0)
		return err;
	xattr = *flags & FIEMAP_FLAG_XATTR;
	*flags &= ~FIEMAP_FLAG_XATTR;
	if ((err = clip_range(start, &len, f->m->s_maxbytes, false)) < 0)
		return err;
	if (*flags & ~FIEMAP_FLAG_SYNC) {
		*flags &= ~FIEMAP_FLAG_SYNC;
		return -EBADR;
	}
	return walk(f, fm, xattr, start, len);
}

int e2map_file_fiemap(e2map_file_t *f, struct fiemap *fm)
{
	uint32_t flags;
	int err;

	if (!f || !fm)
		return -EINVAL;
	if (e2map__unmapped(f))
		return -EOPNOTSUPP;	/* no i_op->fiemap (ioctl_fiemap) */
	if (fm->fm_extent_count > FIEMAP_MAX_EXTENTS)
		return -EINVAL;
	flags = fm->fm_flags;
	fm->fm_mapped_extents = 0;
	err = request(f, fm, &flags);
	fm->fm_flags = flags;
	return err;
}

/* The mapping walk is the inode layer's; a handle is how callers reach it. */
int e2map_file_walk(e2map_file_t *f, uint64_t lblk, uint64_t nblk,
		    e2map_run_cb cb, void *payload)
{
	return e2map__walk(f, lblk, nblk, cb, payload);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one mapping walk every answer goes through: e2map__map_blocks is
 * ext4_map_blocks (extent-status cache first, then the on-disk tree),
 * e2map__iomap_report is ext4_iomap_begin_report, e2map_file_walk the public
 * run-by-run view of it.
 */
#include "inode.h"

#include <errno.h>
#include <inttypes.h>

bool e2map__unmapped(const e2map_file_t *f)
{
	return !LINUX_S_ISREG(f->inode->i_mode) &&
	       !LINUX_S_ISDIR(f->inode->i_mode);
}

/*
 * ext4_map_blocks' check_block_validity: a written mapping, from the
 * cache or the disk, must not reach outside the data area or into the
 * system zone.
 */
static int check_mapped(e2map_file_t *f, const struct es_entry *r)
{
	if (r->kind != E2MAP_RUN_DATA ||
	    e2map__inode_block_valid(f, r->pblk, r->len))
		return 0;
	return e2map__fail(f->m, -EUCLEAN, "inode %u: block %u mapped to "
			   "illegal block %" PRIu64, f->ino, r->lblk, r->pblk);
}

int e2map__map_blocks(e2map_file_t *f, uint32_t lblk, uint32_t n,
		      struct es_entry *out)
{
	struct es_entry hit;
	int err;

	if (n > INT32_MAX)
		n = INT32_MAX;
	if (e2map__es_lookup(&f->es, lblk, &hit)) {
		uint64_t left = (uint64_t)hit.lblk + hit.len - lblk;

		out->lblk = lblk;
		out->len = left < n ? (uint32_t)left : n;
		out->pblk = hit.pblk + (lblk - hit.lblk);
		out->kind = hit.kind;
		return check_mapped(f, out);
	}
	if (f->src == SRC_EXTENT)
		err = e2map__extent_map(f, lblk, n, out);
	else
		err = e2map__blockmap_map(f, lblk, n, out);
	return err < 0 ? err : check_mapped(f, out);
}

/* The inline mapping: all of it, or -ENOENT at or past its end. */
static int iomap_inline(e2map_file_t *f, uint64_t off, struct e2map_iomap *io)
{
	uint64_t len = f->inline_size < f->size ? f->inline_size : f->size;

	*io = (struct e2map_iomap){ 0, len, e2map__inline_addr(f),
				    E2MAP_RUN_INLINE, false };
	return off >= len ? -ENOENT : 0;
}

int e2map__iomap_report(e2map_file_t *f, uint64_t off, uint64_t len,
			struct e2map_iomap *io)
{
	unsigned bits = f->m->bits;
	uint64_t first = off >> bits, last = (off + len - 1) >> bits;
	struct es_entry r;
	int err;

	if (first > E2MAP_MAX_BLOCKS - 1)
		return -EINVAL;
	if (f->src == SRC_INLINE)
		return iomap_inline(f, off, io);
	if (last > E2MAP_MAX_BLOCKS - 1)
		last = E2MAP_MAX_BLOCKS - 1;
	r = (struct es_entry){ (uint32_t)first, (uint32_t)(last - first + 1), 0,
			       E2MAP_RUN_HOLE };
	/* Block maps end at s_bitmap_maxbytes: a hole, without a lookup. */
	if (f->src == SRC_EXTENT || off < f->m->s_bitmap_maxbytes) {
		if ((err = e2map__map_blocks(f, r.lblk, r.len, &r)) < 0)
			return err;
	}
	io->off = (uint64_t)r.lblk << bits;
	io->len = (uint64_t)r.len << bits;
	io->addr = r.pblk << bits;
	io->kind = r.kind;
	io->merged = f->src == SRC_BLOCKMAP;
	return 0;
}

/* cache=warm: everything the inode maps is cached before the first call. */
int e2map__warm(e2map_file_t *f)
{
	uint64_t lblk = 0, end = (f->maxbytes + f->m->bs - 1) >> f->m->bits;
	struct es_entry r;
	int err;

	if (f->src == SRC_EXTENT)
		return e2map__extent_precache(f, true);
	if (f->src != SRC_BLOCKMAP)
		return 0;
	while (lblk < end && lblk < E2MAP_MAX_BLOCKS) {
		uint64_t n = end - lblk;

		if ((err = e2map__blockmap_map(f, (uint32_t)lblk, n > INT32_MAX ?
					       INT32_MAX : (uint32_t)n, &r)) < 0)
			return err;
		lblk += r.len;
	}
	return 0;
}

int e2map__walk(e2map_file_t *f, uint64_t lblk, uint64_t nblk,
		e2map_run_cb cb, void *payload)
{
	uint64_t end = lblk + nblk;
	struct e2map_iomap io;
	struct e2map_run run;
	int err;

	if (e2map__unmapped(f))
		return -EOPNOTSUPP;
	if (end < lblk || end > E2MAP_MAX_BLOCKS)
		end = E2MAP_MAX_BLOCKS;
	while (lblk < end) {
		err = e2map__iomap_report(f, lblk << f->m->bits,
					  (end - lblk) << f->m->bits, &io);
		if (err == -ENOENT)
			return 0;
		if (err < 0)
			return err;
		run = (struct e2map_run){ io.off >> f->m->bits,
			(io.len + f->m->bs - 1) >> f->m->bits,
			io.kind == E2MAP_RUN_INLINE ? io.addr : io.addr >> f->m->bits,
			io.kind };
		if ((err = cb(&run, payload)) != 0)
			return err;
		lblk = run.lblk + run.nblk;
	}
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The image's block cache: metadata blocks (inode tables, extent and
 * indirect blocks, directories) kept between calls, as the kernel's buffer
 * cache keeps them on a mount.  libext2fs's unix io manager caches 8
 * blocks; a path walk or a whole-image check touches far more, and each
 * miss is a pread.  Direct-mapped: a lookup is one compare, and memory is
 * fixed (CACHE_BYTES) whatever the image's size or block size.  The image never changes
 * under a read-only handle, so nothing is ever invalidated.
 */
#include "disk.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_BYTES (4U << 20)	/* 1,024 blocks of 4 KiB, 4,096 of 1 KiB */
#define NO_BLOCK UINT64_MAX

struct e2map_bcache {
	unsigned slots;		/* a power of two */
	uint64_t *tag;
	unsigned char *data;	/* SLOTS blocks, touched as they are used;
				 * made at the first block not in the map */
};

static void bcache_free(struct e2map_bcache *c)
{
	if (c) {
		free(c->tag);
		free(c->data);
	}
	free(c);
}

static struct e2map_bcache *bcache_get(e2map_t *m)
{
	struct e2map_bcache *c = m->bcache;
	unsigned i;

	if (c)
		return c;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	c->slots = CACHE_BYTES / m->bs;		/* block sizes are powers of 2 */
	c->tag = malloc(c->slots * sizeof(*c->tag));
	if (!c->tag) {
		bcache_free(c);
		return NULL;
	}
	for (i = 0; i < c->slots; i++)
		c->tag[i] = NO_BLOCK;
	return m->bcache = c;
}

/* Neighbouring blocks land in neighbouring slots: a table walk keeps
 * its recent blocks while the tree blocks it meets evict few of them. */
static unsigned slot_of(const struct e2map_bcache *c, uint64_t pblk)
{
	return (unsigned)(pblk ^ (pblk >> 20)) & (c->slots - 1);
}

static unsigned char *slot_data(e2map_t *m, struct e2map_bcache *c)
{
	if (!c->data)
		c->data = malloc((size_t)c->slots * m->bs);
	return c->data;
}

/* Block PBLK where it lies in the mapped image; NULL when there is no
 * map or the block is not wholly inside it: the io channel reads it
 * then, and fails as it always did past the image's end. */
static const unsigned char *in_map(const e2map_t *m, uint64_t pblk)
{
	if (!m->map || m->map_len < m->disk_offset ||
	    pblk >= (m->map_len - m->disk_offset) / m->bs)
		return NULL;
	return m->map + m->disk_offset + pblk * m->bs;
}

static int read_image(e2map_t *m, uint64_t pblk, void *buf)
{
	errcode_t code;

	m->blocks_read++;
	code = io_channel_read_blk64(m->fs->io, pblk, 1, buf);
	if (code)
		return e2map__errcode(m, code, "reading a metadata block");
	return 0;
}

/* Block PBLK in the cache, read from the image on a miss; NULL and
 * *ERR on failure. */
static const unsigned char *cached(e2map_t *m, uint64_t pblk, int *err)
{
	struct e2map_bcache *c;
	const unsigned char *at;
	unsigned char *slot;
	unsigned i;

	*err = 0;
	if (pblk >= ext2fs_blocks_count(m->fs->super)) {
		*err = e2map__fail(m, -EUCLEAN, "block %" PRIu64
				   " is outside the filesystem", pblk);
		return NULL;
	}
	if (!(c = bcache_get(m))) {
		*err = -ENOMEM;
		return NULL;
	}
	i = slot_of(c, pblk);
	/* Mapped, the tags only count what a cache of blocks would read. */
	if ((at = in_map(m, pblk))) {
		if (c->tag[i] != pblk)
			m->blocks_read++;
		c->tag[i] = pblk;
		return at;
	}
	if (!slot_data(m, c)) {
		*err = -ENOMEM;
		return NULL;
	}
	slot = c->data + (size_t)i * m->bs;
	if (c->tag[i] != pblk) {
		c->tag[i] = NO_BLOCK;
		if ((*err = read_image(m, pblk, slot)) < 0)
			return NULL;
		c->tag[i] = pblk;
	}
	return slot;
}

/*
 * Readahead, as the kernel's for inode tables (ext4_inode_readahead_blks):
 * one read of up to RA_BYTES straight into the slots of blocks that run in
 * order, where single reads cost a pread (and libext2fs's cache a copy)
 * each.  Only a hint: on any failure the blocks are read one by one later,
 * and fail there with their own errors.
 */
#define RA_BYTES (128U << 10)

/*
 * Mapped, the whole run (a group's inode table, up to MAP_AHEAD) is asked
 * of the page cache at once (MADV_WILLNEED, which does not wait): the
 * faults that follow find its pages read or being read, and map 64 KiB of
 * them each.  The map itself reads as random (see e2map__bcache_map): this
 * is where it is read in order.
 */
#define MAP_AHEAD (4U << 20)

static void map_ahead(e2map_t *m, uint64_t pblk, uint64_t count)
{
	uintptr_t page = (uintptr_t)m->page - 1;
	const unsigned char *from = in_map(m, pblk);
	uintptr_t lo = (uintptr_t)from & ~page, hi;

	if (pblk >= m->map_ahead_lo && pblk < m->map_ahead_hi)
		return;
	while (count > 1 && !in_map(m, pblk + count - 1))
		count--;
	hi = (uintptr_t)(from + count * m->bs);
	(void)madvise((void *)lo, hi - lo, MADV_WILLNEED);
	m->map_ahead_lo = pblk;
	m->map_ahead_hi = pblk + count;
}

void e2map__read_ahead(e2map_t *m, uint64_t pblk, uint64_t count)
{
	struct e2map_bcache *c = bcache_get(m);
	uint64_t end = ext2fs_blocks_count(m->fs->super);
	unsigned i, first, n = 0;

	if (!c || pblk >= end)
		return;
	count = count < end - pblk ? count : end - pblk;
	if (in_map(m, pblk)) {
		map_ahead(m, pblk, count < MAP_AHEAD / m->bs ? count :
				   MAP_AHEAD / m->bs);
		return;
	}
	count = count < RA_BYTES / m->bs ? count : RA_BYTES / m->bs;
	if (!slot_data(m, c))
		return;
	first = slot_of(c, pblk);
	/* Slots in a row: no wrap of the table, no change of pblk >> 20. */
	while (n < count && first + n < c->slots &&
	       slot_of(c, pblk + n) == first + n)
		n++;
	if (n < 2 || c->tag[first] == pblk)
		return;
	for (i = 0; i < n; i++)
		c->tag[first + i] = NO_BLOCK;
	m->blocks_read += n;
	if (io_channel_read_blk64(m->fs->io, pblk, (int)n,
				  c->data + (size_t)first * m->bs))
		return;
	for (i = 0; i < n; i++)
		c->tag[first + i] = pblk + i;
}

/*
 * A whole-image pass on a cold page cache: the page cache is filled in
 * ascending disk order ahead of the reads, as e2fsck's readahead does,
 * not in the order the walk meets blocks.  Only a hint to the media (a
 * container has no page cache to fill: a no-op).
 */
void e2map__prefetch(e2map_t *m, uint64_t pblk, uint64_t count)
{
	uint64_t end = ext2fs_blocks_count(m->fs->super);

	if (pblk >= end || !count)
		return;
	if (count > end - pblk)
		count = end - pblk;
	(void)io_channel_cache_readahead(m->fs->io, pblk, count);
}

const unsigned char *e2map__read_block_at(e2map_t *m, uint64_t pblk,
					  unsigned char *buf, int *err)
{
	const unsigned char *b;

	if (!(b = cached(m, pblk, err)) || b == in_map(m, pblk))
		return b;
	memcpy(buf, b, m->bs);
	return buf;
}

int e2map__read_block(e2map_t *m, uint64_t pblk, void *buf)
{
	return e2map__read_part(m, pblk, 0, m->bs, buf);
}

int e2map__read_part(e2map_t *m, uint64_t pblk, size_t off, size_t len,
		     void *buf)
{
	const unsigned char *b;
	int err;

	if (!(b = cached(m, pblk, &err)))
		return err;
	memcpy(buf, b + off, len);
	return 0;
}

/*
 * A raw image file is mapped read-only (PROT_READ: nothing can write
 * through it), and the passes read its metadata where it lies: no copy
 * into a pread buffer and again into the cache.  Only [0, the size seen
 * here) is mapped and read, so an image that keeps its size never faults.
 * One that shrinks under an open handle would raise SIGBUS on a page past
 * its new end: the handle already holds that the image does not change
 * while it is open (nothing cached is ever invalidated), as e2fsck -n
 * does; a reader of an image being cut down must copy it first.
 */
int e2map__reopen_image(const e2map_t *m, struct stat *st)
{
	int fd = open(m->image, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || st->st_dev != m->image_dev ||
	    st->st_ino != m->image_ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

void e2map__bcache_map(e2map_t *m)
{
	struct stat st;
	void *p;
	int fd;

	if ((fd = e2map__reopen_image(m, &st)) < 0)
		return;
	if (S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		/* A fault reads the page it needs, not the 128 KiB around it:
		 * tree blocks lie scattered; the tables are read ahead. */
		if (p != MAP_FAILED)
			(void)madvise(p, (size_t)st.st_size, MADV_RANDOM);
		if (p != MAP_FAILED) {
			m->map = p;
			m->map_len = (size_t)st.st_size;
			m->page = (size_t)sysconf(_SC_PAGESIZE);
		}
	}
	close(fd);
}

void e2map__bcache_free(e2map_t *m)
{
	bcache_free(m->bcache);
	m->bcache = NULL;
	if (m->map)
		munmap((void *)m->map, m->map_len);
	m->map = NULL;
}

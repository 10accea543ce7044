/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The image's block cache: metadata blocks (inode tables, extent and
 * indirect blocks, directories) kept between calls, as the kernel's buffer
 * cache keeps them on a mount.  libext2fs's unix io manager caches 8
 * blocks; a path walk or a whole-image check touches far more, and each
 * miss is a pread.  Direct-mapped: a lookup is one compare, and memory is
 * fixed (SLOTS blocks) whatever the image's size.  The image never changes
 * under a read-only handle, so nothing is ever invalidated.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 1024U		/* 4 MiB of 4 KiB blocks; a power of two */
#define NO_BLOCK UINT64_MAX

struct e2map_bcache {
	uint64_t tag[SLOTS];
	unsigned char *data;	/* SLOTS blocks, touched as they are used */
};

static struct e2map_bcache *bcache_get(e2map_t *m)
{
	struct e2map_bcache *c = m->bcache;
	unsigned i;

	if (c)
		return c;
	if (!(c = malloc(sizeof(*c))))
		return NULL;
	if (!(c->data = malloc((size_t)SLOTS * m->bs))) {
		free(c);
		return NULL;
	}
	for (i = 0; i < SLOTS; i++)
		c->tag[i] = NO_BLOCK;
	return m->bcache = c;
}

/* Neighbouring blocks land in neighbouring slots: a table walk keeps
 * its recent blocks while the tree blocks it meets evict few of them. */
static unsigned slot_of(uint64_t pblk)
{
	return (unsigned)(pblk ^ (pblk >> 20)) & (SLOTS - 1);
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
	i = slot_of(pblk);
	slot = c->data + (size_t)i * m->bs;
	if (c->tag[i] != pblk) {
		c->tag[i] = NO_BLOCK;
		if ((*err = read_image(m, pblk, slot)) < 0)
			return NULL;
		c->tag[i] = pblk;
	}
	return slot;
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

uint64_t e2map_blocks_read(const e2map_t *m)
{
	return m ? m->blocks_read : 0;
}

void e2map__bcache_free(e2map_t *m)
{
	if (m->bcache)
		free(m->bcache->data);
	free(m->bcache);
	m->bcache = NULL;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The libext2fs io manager for containers and partitions: a window
 * [offset, offset + size) of the media (io_media.c), as the kernel sees
 * a partition's block device.  Read-only by construction: nothing is
 * ever written to the media, which has no write path at all; a write
 * fails with EROFS, or lands in memory, in the overlay of a fast-commit
 * replay's scratch handle (mount/journal.c, mount/fc/).  Each
 * channel opens its own media handle, so two e2map handles on one image
 * (parscan.c's threads) share no container state.
 */
#include "media.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define E2MAP_IO_MAGIC EXT2_ET_MAGIC_IO_CHANNEL

struct window {
	struct e2map_media *md;
	uint64_t offset, size;
	struct e2map_overlay *ov;	/* replayed blocks over the media */
	struct struct_io_stats stats;
};

struct e2map_overlay {
	uint32_t bs;
	size_t n, cap;
	uint64_t *blk;		/* rising */
	unsigned char **data;	/* one block each */
	bool writable;		/* the fast-commit replay's scratch handle */
};

static _Thread_local struct e2map_overlay *handed;

static int overlay_grow(struct e2map_overlay *ov, size_t n)
{
	/* Two arrays of one capacity: each grows from the same size. */
	size_t bcap = ov->cap, dcap = ov->cap;

	if (e2map__grow((void **)&ov->blk, &bcap, n, sizeof(*ov->blk)) < 0 ||
	    e2map__grow((void **)&ov->data, &dcap, n, sizeof(*ov->data)) < 0)
		return -ENOMEM;
	ov->cap = dcap;
	return 0;
}

int e2map__overlay_new(uint32_t bs, size_t n, struct e2map_overlay **out)
{
	struct e2map_overlay *ov = calloc(1, sizeof(*ov));

	*out = NULL;
	if (!ov || overlay_grow(ov, n ? n : 1) < 0) {
		e2map__overlay_free(ov);
		return -ENOMEM;
	}
	ov->bs = bs;
	*out = ov;
	return 0;
}

int e2map__overlay_set(struct e2map_overlay *ov, size_t i, uint64_t blk,
		       const void *data)
{
	if (i >= ov->cap || !(ov->data[i] = malloc(ov->bs)))
		return -ENOMEM;
	ov->blk[i] = blk;
	memcpy(ov->data[i], data, ov->bs);
	if (i >= ov->n)
		ov->n = i + 1;
	return 0;
}

void e2map__overlay_free(struct e2map_overlay *ov)
{
	size_t i;

	if (!ov)
		return;
	for (i = 0; i < ov->n; i++)
		free(ov->data[i]);
	free(ov->blk);
	free(ov->data);
	free(ov);
}

size_t e2map__overlay_count(const struct e2map_overlay *ov)
{
	return ov ? ov->n : 0;
}

void e2map__overlay_writable(struct e2map_overlay *ov, bool on)
{
	ov->writable = on;
}

void e2map__io_hand_overlay(struct e2map_overlay *ov)
{
	e2map__overlay_free(handed);
	handed = ov;
}

/* The first overlay block ending after byte OFF. */
static size_t overlay_find(const struct e2map_overlay *ov, uint64_t off)
{
	size_t lo = 0, hi = ov->n;
	uint64_t b = off / ov->bs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ov->blk[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Lay the overlay's blocks over bytes [OFF, OFF + LEN) read into DATA. */
static void overlay_apply(const struct e2map_overlay *ov, uint64_t off,
			  size_t len, unsigned char *data)
{
	size_t i;

	for (i = overlay_find(ov, off); i < ov->n; i++) {
		uint64_t start = ov->blk[i] * ov->bs, end = start + ov->bs;
		uint64_t from = start > off ? start : off;
		uint64_t to = end < off + len ? end : off + len;

		if (start >= off + len)
			break;
		memcpy(data + (from - off), ov->data[i] + (from - start),
		       (size_t)(to - from));
	}
}

static struct struct_io_manager manager;

static errcode_t close_channel(io_channel ch)
{
	struct window *w = ch->private_data;

	if (--ch->refcount > 0)
		return 0;
	if (w) {
		e2map__media_close(w->md);
		e2map__overlay_free(w->ov);
	}
	free(w);
	free(ch->name);
	free(ch);
	return 0;
}

static errcode_t open_channel(const char *name, int flags, io_channel *out)
{
	io_channel ch = calloc(1, sizeof(*ch));
	struct window *w = calloc(1, sizeof(*w));
	int err;

	*out = NULL;
	if (ch)
		ch->private_data = w;
	if (!ch || !w || !(ch->name = strdup(name))) {
		free(w);
		free(ch);
		return EXT2_ET_NO_MEMORY;
	}
	ch->magic = E2MAP_IO_MAGIC;
	ch->manager = &manager;
	ch->block_size = 1024;
	ch->refcount = 1;
	ch->flags = flags;
	w->ov = handed;
	handed = NULL;
	if (flags & IO_FLAG_RW)
		err = -EROFS;
	else
		err = e2map__media_open(name, &w->md);
	if (err < 0) {
		close_channel(ch);
		return (errcode_t)-err;
	}
	w->size = e2map__media_size(w->md);
	*out = ch;
	return 0;
}

static errcode_t set_blksize(io_channel ch, int blksize)
{
	ch->block_size = blksize;
	return 0;
}

static errcode_t parse_u64(const char *arg, uint64_t *v)
{
	char *end;

	if (!arg || !*arg)
		return EXT2_ET_INVALID_ARGUMENT;
	errno = 0;
	*v = strtoull(arg, &end, 0);
	return *end || errno ? EXT2_ET_INVALID_ARGUMENT : 0;
}

/* "offset" moves the window's start, "size" bounds it: both inside the media. */
static errcode_t set_option(io_channel ch, const char *opt, const char *arg)
{
	struct window *w = ch->private_data;
	uint64_t media = e2map__media_size(w->md), v;
	errcode_t code;

	if (strcmp(opt, "offset") && strcmp(opt, "size"))
		return EXT2_ET_INVALID_ARGUMENT;
	if ((code = parse_u64(arg, &v)))
		return code;
	if (!strcmp(opt, "offset")) {
		if (v > media)
			return EXT2_ET_INVALID_ARGUMENT;
		w->offset = v;
		w->size = media - v;
	} else {
		if (v > media - w->offset)
			return EXT2_ET_INVALID_ARGUMENT;
		w->size = v;
	}
	return 0;
}

/*
 * Bytes [OFF, OFF + LEN) of the window.  What lies past its end reads as
 * zeroes with EXT2_ET_SHORT_READ, unix_io's answer at a file's end; the
 * media's own failure (a bad container checksum) is EIO to libext2fs.
 */
static errcode_t read_bytes(io_channel ch, uint64_t off, size_t len,
			    void *data)
{
	struct window *w = ch->private_data;
	size_t part = len;
	int err;

	if (off >= w->size)
		part = 0;
	else if (len > w->size - off)
		part = (size_t)(w->size - off);
	if (part && (err = e2map__media_pread(w->md, data, part,
					      w->offset + off)) < 0)
		return err == -EBADMSG ? EXT2_ET_BAD_CRC : EIO;
	if (part && w->ov)
		overlay_apply(w->ov, off, part, data);
	w->stats.bytes_read += part;
	if (part == len)
		return 0;
	memset((char *)data + part, 0, len - part);
	return EXT2_ET_SHORT_READ;
}

/* libext2fs's COUNT: blocks, or bytes when negative. */
static errcode_t span(io_channel ch, unsigned long long block, int count,
		      uint64_t *off, size_t *len)
{
	*len = count < 0 ? (size_t)-(long)count
			 : (size_t)count * (size_t)ch->block_size;
	if (block > UINT64_MAX / (uint64_t)ch->block_size)
		return EXT2_ET_LLSEEK_FAILED;
	*off = block * (uint64_t)ch->block_size;
	return 0;
}

static errcode_t read_blk64(io_channel ch, unsigned long long block,
			    int count, void *data)
{
	uint64_t off;
	size_t len;

	return span(ch, block, count, &off, &len) ? EXT2_ET_LLSEEK_FAILED :
	       read_bytes(ch, off, len, data);
}

static errcode_t read_blk(io_channel ch, unsigned long block, int count,
			  void *data)
{
	return read_blk64(ch, block, count, data);
}

/*
 * A write lands in the overlay, in memory, and only on the fast-commit
 * replay's scratch handle: every other channel has no write path at all.
 * A block first written is the media's block (and what the overlay
 * already laid over it) with the new bytes in it.
 */
static errcode_t overlay_insert(io_channel ch, size_t i, uint64_t blk)
{
	struct window *w = ch->private_data;
	struct e2map_overlay *ov = w->ov;
	unsigned char *buf = malloc(ov->bs);
	errcode_t code;

	if (!buf || overlay_grow(ov, ov->n + 1) < 0) {
		free(buf);
		return EXT2_ET_NO_MEMORY;
	}
	code = read_bytes(ch, blk * ov->bs, ov->bs, buf);
	if (code && code != EXT2_ET_SHORT_READ) {
		free(buf);
		return code;
	}
	memmove(ov->blk + i + 1, ov->blk + i, (ov->n - i) * sizeof(*ov->blk));
	memmove(ov->data + i + 1, ov->data + i,
		(ov->n - i) * sizeof(*ov->data));
	ov->blk[i] = blk;
	ov->data[i] = buf;
	ov->n++;
	return 0;
}

static errcode_t write_bytes(io_channel ch, uint64_t off, size_t len,
			     const void *data)
{
	struct window *w = ch->private_data;
	struct e2map_overlay *ov = w->ov;
	const unsigned char *src = data;
	errcode_t code;

	if (!ov || !ov->writable)
		return EROFS;
	if (off > w->size || len > w->size - off)
		return EXT2_ET_SHORT_WRITE;
	while (len) {
		uint64_t blk = off / ov->bs;
		size_t in = (size_t)(off % ov->bs), part = ov->bs - in;
		size_t i = overlay_find(ov, off);

		if (part > len)
			part = len;
		if ((i == ov->n || ov->blk[i] != blk) &&
		    (code = overlay_insert(ch, i, blk)))
			return code;
		memcpy(ov->data[i] + in, src, part);
		src += part;
		off += part;
		len -= part;
	}
	return 0;
}

static errcode_t write_blk64(io_channel ch, unsigned long long block,
			     int count, const void *data)
{
	uint64_t off;
	size_t len;

	return span(ch, block, count, &off, &len) ? EXT2_ET_LLSEEK_FAILED :
	       write_bytes(ch, off, len, data);
}

static errcode_t write_blk(io_channel ch, unsigned long block, int count,
			   const void *data)
{
	return write_blk64(ch, block, count, data);
}

static errcode_t write_byte(io_channel ch, unsigned long offset, int count,
			    const void *data)
{
	if (count < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	return write_bytes(ch, offset, (size_t)count, data);
}

struct e2map_overlay *e2map__io_take_overlay(io_channel ch)
{
	struct window *w = ch->private_data;
	struct e2map_overlay *ov = w->ov;

	w->ov = NULL;
	if (ov)
		ov->writable = false;
	return ov;
}

static errcode_t discard(io_channel ch, unsigned long long block,
			 unsigned long long count)
{
	(void)ch, (void)block, (void)count;
	return EROFS;
}

/* e2map__prefetch: the page cache of a raw image, none for containers. */
static errcode_t cache_readahead(io_channel ch, unsigned long long block,
				 unsigned long long count)
{
	struct window *w = ch->private_data;
	int fd = e2map__media_fd(w->md);
	uint64_t bs = (uint64_t)ch->block_size, off;

	if (fd < 0 || block >= w->size / bs)
		return 0;
	off = block * bs;
	if (count > (w->size - off) / bs)
		count = (w->size - off) / bs;
	(void)posix_fadvise(fd, (off_t)(w->offset + off), (off_t)(count * bs),
			    POSIX_FADV_WILLNEED);
	return 0;
}

static errcode_t flush(io_channel ch)
{
	(void)ch;
	return 0;
}

static errcode_t get_stats(io_channel ch, io_stats *out)
{
	struct window *w = ch->private_data;

	w->stats.num_fields = 2;
	*out = &w->stats;
	return 0;
}

static struct struct_io_manager manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "e2map media",
	.open = open_channel,
	.close = close_channel,
	.set_blksize = set_blksize,
	.read_blk = read_blk,
	.write_blk = write_blk,
	.flush = flush,
	.write_byte = write_byte,
	.set_option = set_option,
	.get_stats = get_stats,
	.read_blk64 = read_blk64,
	.write_blk64 = write_blk64,
	.discard = discard,
	.cache_readahead = cache_readahead,
	.zeroout = discard,
};

io_manager e2map__io_manager = &manager;

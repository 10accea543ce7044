/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * e2map_file_pread / e2map_file_read: read(2) on the fresh mount (filemap_read over
 * ext4_mpage_readpages and ext4_readpage_inline).  Each mapping from the
 * one mapping walk (e2map__iomap_report) becomes one action: a hole or an
 * unwritten range is zeroed, a written run is one read from the image.
 * A block whose mapping fails fails its whole page, as the kernel fails
 * the folio: the bytes before that page come back first (a short read),
 * then -EIO.  Reads keep a mapping state of their own, so the handle's
 * seek and FIEMAP answers stay those of a file that was never read.
 */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel's page: the unit a mapping failure takes down with it. */
#define READ_PAGE 4096U
/* rw_verify_area's MAX_RW_COUNT: INT_MAX rounded down to a page. */
#define MAX_RW_COUNT (0x7fffffffU & ~(READ_PAGE - 1))

/* A byte range of the file being read into the caller's buffer. */
struct rd {
	e2map_file_t *f;
	unsigned char *buf;	/* the caller's, for bytes [off, end) */
	uint64_t off, end;
};

/* Swap the handle's cache and leaf set with the read's own (spec §3.3). */
static void swap_state(e2map_file_t *f)
{
	struct escache es = f->es;
	struct blkset leaves = f->leaves;

	f->es = f->rd_es;
	f->leaves = f->rd_leaves;
	f->rd_es = es;
	f->rd_leaves = leaves;
}

static int bounce(e2map_file_t *f)
{
	if (!f->bounce && !(f->bounce = malloc(f->m->bs)))
		return -ENOMEM;
	return 0;
}

/* One image block of file data, through the bounce block. */
static errcode_t read_one(e2map_file_t *f, uint64_t pblk, uint64_t skip,
			  uint64_t n, unsigned char *dst)
{
	errcode_t code;

	if (bounce(f) < 0)
		return EXT2_ET_NO_MEMORY;
	code = io_channel_read_blk64(f->m->fs->io, pblk, 1, f->bounce);
	if (!code)
		memcpy(dst, f->bounce + skip, n);
	return code;
}

/*
 * Bytes [pos, pos + len) of the file, lying in image block PBLK onwards:
 * whole blocks straight into the buffer in one read (libext2fs reads more
 * than a few blocks without its cache's copy), a partial block at either
 * end through the bounce block.  *DONE gets the bytes read before a
 * failure: a failed run is read again block by block to find where.
 */
static int copy_data(struct rd *r, uint64_t pos, uint64_t len, uint64_t pblk,
		     uint64_t *done)
{
	e2map_t *m = r->f->m;
	unsigned char *dst = r->buf + (pos - r->off);
	uint64_t skip = pos & (m->bs - 1), n, blocks = 1;
	errcode_t code;

	for (*done = 0; *done < len; *done += n, pblk += blocks, skip = 0) {
		n = len - *done;
		if (skip || n < m->bs) {
			n = m->bs - skip < n ? m->bs - skip : n;
			blocks = 1;
			code = read_one(r->f, pblk, skip, n, dst + *done);
		} else {
			blocks = n >> m->bits;
			if (blocks > (uint64_t)(INT32_MAX >> m->bits))
				blocks = (uint64_t)(INT32_MAX >> m->bits);
			n = blocks << m->bits;
			code = io_channel_read_blk64(m->fs->io, pblk,
						     (int)blocks, dst + *done);
			if (code && blocks > 1) {
				blocks = 1;
				n = m->bs;
				code = read_one(r->f, pblk, 0, n, dst + *done);
			}
		}
		if (code)
			return e2map__errcode(m, code, "reading file data");
	}
	return 0;
}

/* ext4_read_inline_folio: i_block, then system.data, then zeroes. */
static void copy_inline(struct rd *r)
{
	const e2map_file_t *f = r->f;
	uint64_t have = f->inline_size < f->size ? f->inline_size : f->size;
	uint64_t pos;

	memset(r->buf, 0, r->end - r->off);
	for (pos = r->off; pos < r->end && pos < have; pos++) {
		size_t at = pos < 60 ? 40 + pos : f->inline_value + (pos - 60);

		r->buf[pos - r->off] = f->raw[at];
	}
}

/*
 * One mapping's share of [pos, r->end): its length, or -errno with *DONE
 * the bytes read before the failure.
 */
static int64_t read_mapping(struct rd *r, uint64_t pos, uint64_t *done)
{
	struct e2map_iomap io;
	uint64_t len;
	int err;

	*done = 0;
	if ((err = e2map__iomap_report(r->f, pos, r->end - pos, &io)) < 0)
		return err;
	len = io.off + io.len - pos;
	if (len > r->end - pos)
		len = r->end - pos;
	if (io.kind != E2MAP_RUN_DATA) {
		memset(r->buf + (pos - r->off), 0, len);
		return (int64_t)len;
	}
	err = copy_data(r, pos, len, (io.addr + (pos - io.off)) >> r->f->m->bits,
			done);
	return err < 0 ? err : (int64_t)len;
}

/*
 * The bytes before the page at POS, where a mapping (or the image) failed
 * with ERR: the kernel leaves that folio not uptodate, copies what came
 * before it and fails the next read there with EIO.
 */
static uint64_t fail_unit(const e2map_t *m)
{
	return m->bs > READ_PAGE ? m->bs : READ_PAGE;
}

static int64_t failed_at(struct rd *r, uint64_t pos, int err)
{
	uint64_t page = pos & ~(fail_unit(r->f->m) - 1);

	if (err == -ENOMEM)
		return err;
	if (page <= r->off)
		return -EIO;
	return (int64_t)(page - r->off);
}

static int64_t read_blocks(struct rd *r)
{
	uint64_t pos = r->off, done;
	int64_t n;

	while (pos < r->end) {
		if ((n = read_mapping(r, pos, &done)) < 0)
			return failed_at(r, pos + done, (int)n);
		pos += (uint64_t)n;
	}
	return (int64_t)(r->end - r->off);
}

/*
 * What pread(2) refuses before any mapping, in the kernel's order
 * (ksys_pread64, rw_verify_area, generic_read_dir), then the range cut
 * to MAX_RW_COUNT and to EOF: the bytes to read, or 0, or -errno.
 */
static int64_t check_read(e2map_file_t *f, int64_t off, size_t *len)
{
	if (off < 0 || *len > INT64_MAX || (uint64_t)off + *len > INT64_MAX)
		return -EINVAL;
	if (e2map__unmapped(f))
		return -ESPIPE;		/* a FIFO: pread(2) has no position */
	if (LINUX_S_ISDIR(f->inode->i_mode))
		return e2map__fail(f->m, -EISDIR, "inode %u is a directory",
				   f->ino);
	if (*len > MAX_RW_COUNT)
		*len = MAX_RW_COUNT;
	if ((uint64_t)off >= f->size || !*len)
		return 0;
	if (*len > f->size - (uint64_t)off)
		*len = (size_t)(f->size - (uint64_t)off);
	return (int64_t)*len;
}

int64_t e2map_file_pread(e2map_file_t *f, void *buf, size_t len, int64_t off)
{
	struct rd r;
	int64_t n;

	if (!f || (!buf && len))
		return -EINVAL;
	f->m->err.msg[0] = '\0';
	if ((n = check_read(f, off, &len)) <= 0)
		return n;
	r = (struct rd){ f, buf, (uint64_t)off, (uint64_t)off + len };
	if (f->src == SRC_INLINE) {
		copy_inline(&r);
		return (int64_t)len;
	}
	swap_state(f);
	n = read_blocks(&r);
	swap_state(f);
	return n;
}

int64_t e2map_file_read(e2map_file_t *f, void *buf, size_t len)
{
	int64_t n;

	if (f && e2map__unmapped(f))
		return 0;	/* a FIFO without a writer: end of file */
	if ((n = e2map_file_pread(f, buf, len, f ? f->pos : 0)) > 0)
		f->pos += n;
	return n;
}

/*
 * The image opened again for spans: only a bare raw image that libext2fs
 * reads through unix_io (nothing laid over it), and only the very file
 * e2map_open found at that name (a daemon may have changed directory).
 */
static int span_fd(e2map_t *m)
{
	struct stat st;
	off_t end;
	int fd;

	if (m->span_fd)
		return m->span_fd > 0 ? m->span_fd - 1 : -1;
	m->span_fd = -1;
	if (m->fs->io->manager != unix_io_manager)
		return -1;
	if ((fd = e2map__reopen_image(m, &st)) < 0)
		return -1;
	if ((end = lseek(fd, 0, SEEK_END)) < 0) {
		close(fd);
		return -1;
	}
	/* Copies read runs in order: the larger readahead window. */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	m->span_fd = fd + 1;
	m->span_end = (uint64_t)end;
	return fd;
}

/*
 * Written data [OFF, END) from image byte ADDR on, as a span of FD.  It
 * stops at a page boundary unless END is EOF: the kernel fails the page
 * of a block that fails, and the block after END is another mapping's,
 * so the page END lies in goes through the read, which knows.
 */
static void data_span(e2map_file_t *f, uint64_t off, uint64_t end,
		      uint64_t addr, int fd, struct e2map_span *out)
{
	e2map_t *m = f->m;
	uint64_t at = m->disk_offset + addr;

	out->len = end - off;
	if (end < f->size && (end & ~(fail_unit(m) - 1)) > off)
		end &= ~(fail_unit(m) - 1);
	else if (end < f->size)
		return;		/* within one page: the read's */
	if (at > m->span_end || end - off > m->span_end - at)
		return;		/* past the image's end: the read's EIO */
	*out = (struct e2map_span){ fd, (int64_t)at, end - off };
}

int e2map_file_span(e2map_file_t *f, int64_t off, size_t len,
		    struct e2map_span *out)
{
	struct e2map_iomap io;
	uint64_t end;
	int64_t n;
	int fd, err;

	if (!f || !out)
		return -EINVAL;
	*out = (struct e2map_span){ -1, 0, 0 };
	f->m->err.msg[0] = '\0';
	if ((n = check_read(f, off, &len)) <= 0)
		return (int)n;
	out->len = len;
	if (f->src == SRC_INLINE || (fd = span_fd(f->m)) < 0)
		return 0;
	swap_state(f);
	err = e2map__iomap_report(f, (uint64_t)off, len, &io);
	swap_state(f);
	if (err < 0)
		return 0;	/* the read meets the failure and says so */
	end = io.off + io.len < (uint64_t)off + len ? io.off + io.len :
						     (uint64_t)off + len;
	if (io.kind != E2MAP_RUN_DATA)
		out->len = end - (uint64_t)off;
	else
		data_span(f, (uint64_t)off, end, io.addr + ((uint64_t)off - io.off),
			  fd, out);
	return 0;
}

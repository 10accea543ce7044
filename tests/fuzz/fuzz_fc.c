/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the fast-commit replay: the input is the
 * fast-commit area of a dirty image (FC_BASE, testdata's dirty-fc-4k).
 * Each commit's head and tail are made valid (the tid the log expects, the
 * crc32c of the tags), so the input's tags get past the scan into
 * lib/mount/fc/ with any values; the image is then opened with "replay"
 * and walked: every inode checked and read, the path table built.
 */
#include <e2map.h>
#include "mount.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK 4096

static unsigned char *base;	/* the image, and its chunks not all zero */
static size_t base_len, *chunks, nchunks;
static uint64_t *fc_off;	/* each fast-commit block's byte offset */
static size_t nfc, bs;
static uint32_t tid;

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void put32le(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static int load_base(void)
{
	FILE *f = fopen(FC_BASE, "rb");
	struct stat st;
	size_t k;

	if (!f || fstat(fileno(f), &st) || !(base = malloc((size_t)st.st_size)) ||
	    fread(base, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		return -1;
	fclose(f);
	base_len = (size_t)st.st_size;
	chunks = calloc(base_len / CHUNK + 1, sizeof(*chunks));
	for (k = 0; chunks && k < base_len; k += CHUNK) {
		size_t i, n = base_len - k < CHUNK ? base_len - k : CHUNK;

		for (i = 0; i < n && !base[k + i]; i++)
			;
		if (i < n)
			chunks[nchunks++] = k;
	}
	return chunks ? 0 : -1;
}

/* Where the journal's fast-commit blocks lie, and the tid they carry. */
static int map_fc(void)
{
	ext2_filsys fs;
	struct ext2_inode in;
	unsigned char *jsb;
	blk64_t p;
	uint32_t maxlen, n, first;
	size_t k;

	if (ext2fs_open(FC_BASE, 0, 0, 0, unix_io_manager, &fs))
		return -1;
	bs = fs->blocksize;
	if (ext2fs_read_inode(fs, fs->super->s_journal_inum, &in) ||
	    ext2fs_bmap2(fs, fs->super->s_journal_inum, &in, NULL, 0, 0, NULL,
			 &p))
		return -1;
	jsb = base + p * bs;
	maxlen = be32(jsb + 16);
	n = be32(jsb + 84) ? be32(jsb + 84) : 256;
	first = maxlen - n + 1;
	nfc = n - 1;
	fc_off = calloc(nfc, sizeof(*fc_off));
	for (k = 0; fc_off && k < nfc; k++) {
		if (ext2fs_bmap2(fs, fs->super->s_journal_inum, &in, NULL, 0,
				 first + k, NULL, &p))
			return -1;
		fc_off[k] = p * bs;
	}
	ext2fs_free(fs);
	if (!fc_off || base[fc_off[0]] != E2MAP_FC_HEAD)
		return -1;
	tid = le32(base + fc_off[0] + 8);
	return 0;
}

/* Heads and tails made valid, block by block, as the scan reads them. */
static void fix_up(unsigned char *area)
{
	uint32_t crc = 0;
	size_t k, p;

	area[0] = E2MAP_FC_HEAD;
	area[1] = 0;
	area[2] = 8;
	area[3] = 0;
	for (k = 0; k < nfc; k++) {
		unsigned char *b = area + k * bs;

		for (p = 0; p + 4 <= bs;) {
			unsigned tag = le16(b + p), len = le16(b + p + 2);

			if (len > bs - p - 4)
				break;
			if (tag == E2MAP_FC_HEAD && len == 8) {
				put32le(b + p + 4, 0);
				put32le(b + p + 8, tid);
			}
			if (tag == E2MAP_FC_TAIL && len >= 8) {
				put32le(b + p + 4, tid);
				crc = e2map__crc32c(crc, b + p, 8);
				put32le(b + p + 8, crc);
				crc = 0;
			} else {
				crc = e2map__crc32c(crc, b + p, 4 + len);
			}
			p += 4 + len;
		}
	}
}

static int visit(e2map_t *m, const struct e2map_inode *in, void *payload)
{
	static unsigned char buf[65536];
	struct e2map_check_stats st = E2MAP_CHECK_STATS_INIT;
	e2map_file_t *f;

	(void)payload;
	if (in->err)
		return 0;
	e2map_inode_check(m, in->ino, &st);
	if (e2map_file_open_ino(m, in->ino, &f) == 0) {
		e2map_file_pread(f, buf, sizeof(buf), 0);
		e2map_file_close(f);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static unsigned char *area;
	e2map_paths_t *p = NULL;
	char path[64];
	e2map_t *m;
	size_t k;

	if (fd < 0 && (load_base() || map_fc() ||
		       (fd = memfd_create("e2map-fuzz-fc", 0)) < 0 ||
		       !(area = malloc(nfc * bs))))
		abort();
	memset(area, 0, nfc * bs);
	memcpy(area, data, size < nfc * bs ? size : nfc * bs);
	fix_up(area);
	if (ftruncate(fd, 0) || ftruncate(fd, (off_t)base_len))
		return 0;
	for (k = 0; k < nchunks; k++)
		if (pwrite(fd, base + chunks[k], base_len - chunks[k] < CHUNK ?
			   base_len - chunks[k] : CHUNK, (off_t)chunks[k]) < 0)
			return 0;
	for (k = 0; k < nfc; k++)
		if (pwrite(fd, area + k * bs, bs, (off_t)fc_off[k]) < 0)
			return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (e2map_open(path, "replay", &m))
		return 0;
	e2map_paths_build(m, &p);
	e2map_scan(m, visit, NULL);
	e2map_paths_free(p);
	e2map_close(m);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The media layer, under the image and invisible above it: the media (a raw file or a
 * container, io_media.c), the partition table read from it by libblkid
 * (partition.c), and the libext2fs io manager that gives e2map_open a
 * window of the media, read-only and bounded (io_manager.c).
 */
#ifndef E2MAP_MEDIA_H
#define E2MAP_MEDIA_H

#include "base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <et/com_err.h>
#include <ext2fs/ext2_io.h>

struct e2map_media;

/* io_media.c: PATH by its signature; the open error is e2map_errmsg(NULL). */
int e2map__media_open(const char *path, struct e2map_media **out);
void e2map__media_close(struct e2map_media *md);
/* "raw", "ewf", "vmdk", "vhd" (VHD and VHDX) or "qcow" */
const char *e2map__media_format(const struct e2map_media *md);
uint64_t e2map__media_size(const struct e2map_media *md);
/* The file descriptor of raw media, else -1. */
int e2map__media_fd(const struct e2map_media *md);
/* All LEN bytes at OFF, or -EIO (past the end, a short read), -EBADMSG
 * (a container chunk whose checksum fails). */
int e2map__media_pread(struct e2map_media *md, void *buf, size_t len,
		       uint64_t off);

/*
 * io_manager.c: open with io_options "offset=BYTES&size=BYTES" (the
 * window of the media the filesystem lies in; no size: to the end).  A
 * write fails with EROFS, except on a channel whose overlay is writable
 * (below), where it lands in the overlay; a read past the window gets what
 * lies inside it and EXT2_ET_SHORT_READ, as unix_io does at a file's end.
 */
extern io_manager e2map__io_manager;

/*
 * The journal overlay (journal.c builds it, the io manager reads through
 * it): blocks of BS bytes that replace the media's, as journal recovery
 * would have written them.  _set fills entry I (0 <= I < N, in rising
 * BLK order) with a copy of DATA.
 */
struct e2map_overlay;
int e2map__overlay_new(uint32_t bs, size_t n, struct e2map_overlay **out);
int e2map__overlay_set(struct e2map_overlay *ov, size_t i, uint64_t blk,
		       const void *data);
void e2map__overlay_free(struct e2map_overlay *ov);
size_t e2map__overlay_count(const struct e2map_overlay *ov);
/*
 * A writable overlay takes the writes of the channel it is handed to:
 * the fast-commit replay (mount/fc/) edits the filesystem through
 * libext2fs in memory.  _take detaches it from channel CH, read-only
 * again, for the next handle.
 */
void e2map__overlay_writable(struct e2map_overlay *ov, bool on);
struct e2map_overlay *e2map__io_take_overlay(io_channel ch);
/*
 * The next channel this thread opens with e2map__io_manager reads through
 * OV and frees it at its close (ext2fs_open2 reads the superblock before
 * any option could name it, so it is handed over here).
 */
void e2map__io_hand_overlay(struct e2map_overlay *ov);

/* partition.c: e2map_disk_read on open media. */
struct e2map_disk;
int e2map__disk_read_media(struct e2map_media *md, struct e2map_disk **out);
/*
 * The partition e2map_open reads: NUMBER (> 0), or the only ext2/3/4 one
 * (0).  Its number, and *START and *SIZE in bytes; or -errno, the reason
 * in e2map_errmsg(NULL).
 */
int e2map__disk_choose(const struct e2map_disk *d, unsigned number,
		       uint64_t *start, uint64_t *size);

/*
 * io_select.c: where e2map_open finds the filesystem in IMAGE.  OWN: read
 * through e2map__io_manager, the window [OFFSET, OFFSET + SIZE) of the
 * media (a container, or a partition); else unix_io as for a bare file.
 * SIZE is the device's size, as the kernel would see it.
 */
struct e2map_window {
	bool own;
	uint64_t offset, size;
	unsigned partition;	/* the partition read, 0: none */
	char format[8];		/* the media's format */
};
int e2map__window_resolve(const char *image, const struct e2map_options *o,
			  struct e2map_window *w);

#endif /* E2MAP_MEDIA_H */

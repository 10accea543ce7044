/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where in IMAGE the filesystem lies, decided before libext2fs reads it:
 * a bare filesystem (today's unix_io path, byte for byte), or a window
 * of a container's or a whole disk's media, read through e2map's own io
 * manager (io_manager.c).  A bare image is one with an ext2/3/4 magic at
 * its start: a partition table never wins over it unless partition=N says.
 */
#include "media.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The ext2/3/4 superblock's magic, at byte 1080 of the filesystem. */
static bool ext_magic(struct e2map_media *md, uint64_t off)
{
	unsigned char b[2];

	return e2map__media_pread(md, b, 2, off + 1080) == 0 &&
	       le16(b) == EXT2_SUPER_MAGIC;
}

/* The window of partition O->partition (or the only ext one) of MD. */
static int choose(struct e2map_media *md, const struct e2map_options *o,
		  struct e2map_window *w)
{
	struct e2map_disk *d;
	int n;

	if ((n = e2map__disk_read_media(md, &d)) < 0)
		return n;
	if (!d->count && !o->partition) {
		/* No table: the whole media, for ext2fs_open2 to judge. */
		w->size = d->size;
		e2map_disk_free(d);
		return 0;
	}
	n = e2map__disk_choose(d, o->partition, &w->offset, &w->size);
	e2map_disk_free(d);
	if (n < 0)
		return n;
	w->partition = (unsigned)n;
	return 0;
}

static int resolve(struct e2map_media *md, const struct e2map_options *o,
		   struct e2map_window *w)
{
	bool raw = e2map__media_fd(md) >= 0;
	int err;

	snprintf(w->format, sizeof(w->format), "%s", e2map__media_format(md));
	if (o->partition && o->offset)
		return e2map__fail(NULL, -EINVAL, "offset= and partition= "
				   "together: give one");
	if (!o->partition && (o->offset || ext_magic(md, 0))) {
		w->own = !raw;
		w->offset = o->offset;
		w->size = o->offset < e2map__media_size(md) ?
			  e2map__media_size(md) - o->offset : 0;
		return 0;
	}
	w->own = true;
	if ((err = choose(md, o, w)) < 0)
		return err;
	/* A raw file without a table stays on today's path. */
	if (raw && !w->partition)
		w->own = false;
	return 0;
}

int e2map__window_resolve(const char *image, const struct e2map_options *o,
			  struct e2map_window *w)
{
	struct e2map_media *md;
	int err;

	memset(w, 0, sizeof(*w));
	if ((err = e2map__media_open(image, &md)) < 0)
		return err;
	err = resolve(md, o, w);
	e2map__media_close(md);
	return err;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tar_pax.c: the stream between libarchive's pax writer and the archive
 * file, mended where the writer cannot be told what GNU tar writes.
 */
#ifndef E2MAP_TAR_PAX_H
#define E2MAP_TAR_PAX_H

#include <archive.h>
#include <e2map.h>

struct tar_pax;

/*
 * archive_write_open for A onto FD through the mending stream: 0, or -1
 * with A's error set.  The stream is freed with A.
 */
int tar_pax_open(struct archive *a, int fd, struct tar_pax **out);
/* ST is the next member's stat: its header's mode and time records. */
void tar_pax_next(struct tar_pax *p, const struct e2map_stat *st);

#endif /* E2MAP_TAR_PAX_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The passes over a whole image: the inode-table scan (scan.c), the same
 * pass on several threads (parscan.c), each inode's record (record.c),
 * check (check.c), the path table (paths.c) and every block's owner
 * (owners.c).  They stand on the file layer and open sibling handles
 * through the mount layer.
 */
#ifndef E2MAP_PASSES_H
#define E2MAP_PASSES_H

#include "file.h"
#include "mount.h"

/*
 * scan.c: CB for each inode of group G in use (BUF: one block), as
 * e2map_scan visits them; a non-zero CB result stops and is returned.
 */
int e2map__scan_group(e2map_t *m, dgrp_t g, unsigned char *buf,
		      e2map_scan_cb cb, void *payload);
/* scan.c: inodes of group G that may be in use: all but the never-used
 * tail (diff.c reads the same stretch of two tables). */
uint32_t e2map__group_inodes(ext2_filsys fs, dgrp_t g);

/*
 * parscan.c: WORK on every inode e2map_scan visits, on THREADS workers
 * (0: one per CPU), each through its own handle H on M's image; HAND in
 * the caller's thread, in inode order, with the RESULT (SIZE bytes, as
 * WORK left it) and the DETAIL WORK pointed at (copied; NULL: none).  A
 * negative WORK or non-zero HAND return stops the pass and is returned.
 */
struct e2map__par {
	size_t size;
	int (*work)(e2map_t *h, const struct e2map_inode *in, void *result,
		    const char **detail);
	int (*hand)(e2map_t *m, const struct e2map_inode *in, void *result,
		    const char *detail, void *payload);
};
int e2map__par_scan(e2map_t *m, unsigned threads, const struct e2map__par *ops,
		    void *payload);

/* paths.c: the smallest inode number above AFTER that P names; 0: none */
uint64_t e2map__paths_next(const e2map_paths_t *p, uint64_t after);

/*
 * diffmap.c: one inode's changed ranges between A and B (diff.c).  FA and
 * FB are its handles (NULL: absent on that side); SIZE_B decides punched
 * or removed; same-mapped blocks are reported only when DATA_MAY_CHANGE
 * (mtime or size differ), read and compared when BYTES (up to BUDGET
 * blocks, the rest unchecked).  BUF_A and
 * BUF_B are made on first use and freed by the caller.
 */
struct e2map__diff_side {
	e2map_file_t *fa, *fb;
	uint32_t bs;
	uint64_t size_a, size_b;
	bool data_may_change, bytes, dir;
	uint64_t budget;	/* blocks BYTES may still read */
	unsigned char *buf_a, *buf_b;
};
struct e2map__diff_ranges {
	struct e2map_diff_range *v;
	size_t n, cap;
};
int e2map__diff_range_add(struct e2map__diff_ranges *d,
			  enum e2map_diff_kind kind, uint64_t off,
			  uint64_t len);
int e2map__diff_map(struct e2map__diff_side *s, struct e2map__diff_ranges *d);

#endif /* E2MAP_PASSES_H */

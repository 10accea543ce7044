/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A kernel recording of scan (scan_rec.h) against e2map's records. */
#ifndef E2MAP_TESTS_SCAN_CMP_H
#define E2MAP_TESTS_SCAN_CMP_H

#include <stdbool.h>
#include <stdio.h>

#include "scan_rec.h"

#include "e2map.h"

/* Where differences go: the first MAX as lines on OUT, all counted. */
struct scan_diffs {
	const char *name;
	FILE *out;
	size_t n, max;
};

/*
 * Every inode the mount lists: its record (stat, times, FIEMAP bytes, the
 * warm count, the tree blocks against st_blocks when META, the extents on
 * disk against debugfs) and its paths; every name lstat failed on; and
 * every inode e2map names that the mount does not list.  Returns the
 * differences found.
 */
size_t scan_compare(e2map_t *m, const struct scan_kernel *k, bool meta,
		    struct scan_diffs *d);
/*
 * Whether the mount shows PATH (LEN bytes) as e2map's path table does:
 * not a name lstat failed on, nor one in a directory getdents failed on
 * (the path table reads an htree block by block past a bad block, where
 * getdents stops).
 */
/* A set of text lines (body lines, timeline events) to sort and compare:
 * scan_lines_add takes S (malloc'd), scan_lines_free frees them all. */
struct scan_lines {
	char **v;
	size_t n, cap;
};
void scan_lines_add(struct scan_lines *l, char *s);
void scan_lines_sort(struct scan_lines *l);
void scan_lines_free(struct scan_lines *l);

bool scan_kernel_lists(const struct scan_kernel *k, const char *path,
		       size_t len);

#endif

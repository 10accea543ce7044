/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's view of an image, as scripts/record/scan.sh records it. */
#ifndef E2MAP_TESTS_SCAN_REC_H
#define E2MAP_TESTS_SCAN_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scan_kstat {
	uint32_t mode, nlink, uid, gid;
	uint64_t size, blocks, rdev;
	char atime[32], mtime[32], ctime[32], btime[32];  /* SEC.NSEC or "-" */
};
struct scan_kmap {
	uint64_t written, unwritten, holes, past_eof, mapped, cold, warm;
	bool fail_meta;		/* st_blocks holds more than data and tree */
};
struct scan_kinode {
	uint64_t ino;
	struct scan_kstat st;
	bool has_map;
	struct scan_kmap map;
	int err;		/* errno of an open or FIEMAP that failed */
	bool has_disk;
	uint64_t disk_extents;	/* debugfs's count of the extents on disk */
	char **paths;		/* sorted, NUL-terminated */
	size_t npaths;
	char *link;		/* readlink, or NULL */
	bool crypt_dir;		/* an encrypted directory */
};
struct scan_kfail {
	char *path;
	int err;		/* lstat's errno, or getdents' */
	bool dir;		/* getdents failed on PATH, after some names, or
				 * PATH is encrypted (no-key names) */
};
struct scan_kernel {
	struct scan_kinode *v;	/* by inode number */
	size_t n;
	struct scan_kfail *fail;
	size_t nfail;
	/* the P lines, (ino, path) sorted */
	struct scan_kpath { uint64_t ino; char *path; } *p;
	size_t np;
};

/* Load FILE (or FILE.gz): 0, or -1. */
int scan_kernel_load(const char *file, struct scan_kernel *k);
const struct scan_kinode *scan_kernel_find(const struct scan_kernel *k,
					   uint64_t ino);
void scan_kernel_free(struct scan_kernel *k);

#endif

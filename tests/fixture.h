/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test fixtures: scratch copies of testdata images, and their digests. */
#ifndef E2MAP_TESTS_FIXTURE_H
#define E2MAP_TESTS_FIXTURE_H

#include <stddef.h>

/* The testdata directory: $E2MAP_TESTDATA, else "testdata". */
const char *fixture_testdata(void);
/*
 * Decompress testdata/NAME.img.gz into a fresh temporary file; returns its
 * malloc'd path (remove with fixture_remove), or NULL.
 */
char *fixture_image(const char *name);
/*
 * Decompress SRC (.gz, .bz2, or a plain copy otherwise) into a fresh
 * temporary file; returns its malloc'd path, or NULL.
 */
char *fixture_decompress(const char *src);
/* Write LEN bytes of SRC from OFFSET to a new temporary file; NULL on error. */
char *fixture_slice(const char *src, long long offset, long long len,
		    long long prefix_zeroes);
void fixture_remove(char *path);
/* sha256 of PATH as 64 hex digits into OUT[65]; 0 or -1. */
int fixture_sha256(const char *path, char out[65]);

/*
 * The e2fsprogs corpus: testdata/corpus/e2fsprogs (shipped with the tree)
 * first, then each directory of $E2MAP_CORPUS (colon-separated; "none"
 * adds none), or, when it is unset, ../shared/corpus/e2fsprogs if present.
 * Image NAME (NAME.img.gz, NAME.img.bz2 or NAME.img) comes from the first
 * directory that has it, so a later directory only adds new names.
 *
 * fixture_corpus_dirs fills DIRS (at most MAX) and returns their number;
 * *MISSING is the first directory that should exist and does not, or NULL.
 */
int fixture_corpus_dirs(const char **dirs, int max, const char **missing);
/* Every corpus image, one path per NAME, sorted by NAME; count or -1. */
int fixture_corpus_list(char ***paths);
void fixture_corpus_free(char **paths, int n);
/* The path of corpus image NAME into OUT: 0, or -1 when none has it. */
int fixture_corpus_find(const char *name, char *out, size_t len);

/*
 * `$E2MAP mount -f [-o OPTS] IMG DIR` in a child that dies with the test
 * (OPTS NULL: no -o), waited for until DIR is a mount: NULL with *PID the
 * child, or a reason the mount
 * cannot be tried here (no $E2MAP, no /dev/fuse or fusermount3, FUSE
 * refused) for cr_skip_test, or "timeout".  fixture_fuse_unmount: 0 when
 * fusermount3 -u worked and the child exited 0.
 */
#include <sys/types.h>
const char *fixture_fuse_mount(const char *img, const char *dir,
			       const char *opts, pid_t *pid);
int fixture_fuse_unmount(const char *dir, pid_t pid);

#endif

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

#endif

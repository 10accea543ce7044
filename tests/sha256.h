/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 (FIPS 180-4) of bytes in memory, fed in pieces, for the tests. */
#ifndef E2MAP_TESTS_SHA256_H
#define E2MAP_TESTS_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;
	unsigned char block[64];
	size_t fill;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL into HEX. */
void sha256_final(struct sha256 *s, char hex[65]);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 of bytes in memory, fed in pieces, as hex: the library's
 * (lib/base/sha256.c), which fscrypt's long no-key names use too. */
#ifndef E2MAP_TESTS_SHA256_H
#define E2MAP_TESTS_SHA256_H

#include <stdio.h>

#include "../lib/base/base.h"

struct sha256 {
	struct e2map_sha256 s;
};

static inline void sha256_init(struct sha256 *h)
{
	e2map__sha256_init(&h->s);
}

static inline void sha256_update(struct sha256 *h, const void *data,
				 size_t len)
{
	e2map__sha256_update(&h->s, data, len);
}

/* The digest as 64 lowercase hex digits and a NUL into HEX. */
static inline void sha256_final(struct sha256 *h, char hex[65])
{
	unsigned char d[32];

	e2map__sha256_final(&h->s, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crc32c as ext4 uses it (no pre- or post-inversion: the seed is the
 * caller's, as with ext2fs_crc32c_le).  On x86-64 with SSE4.2 the crc32
 * instruction computes exactly that update, eight bytes a step: every
 * inode load checksums 256 bytes, so the table-driven loop was a tenth
 * of a whole-image check.  Elsewhere, libext2fs's own.
 */
#include "base.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t c = crc, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);	/* unaligned, and no aliasing games */
		c = _mm_crc32_u64(c, w);
	}
	crc = (uint32_t)c;
	for (; n; p++, n--)
		crc = _mm_crc32_u8(crc, *p);
	return crc;
}

/* The CPU model is read once at start-up by libgcc: a load and a test. */
uint32_t e2map__crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_hw(crc, buf, len);
	return ext2fs_crc32c_le(crc, buf, len);
}
#else
uint32_t e2map__crc32c(uint32_t crc, const void *buf, size_t len)
{
	return ext2fs_crc32c_le(crc, buf, len);
}
#endif

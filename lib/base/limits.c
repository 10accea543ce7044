/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Largest file sizes, as ext4_max_size() and ext4_max_bitmap_size() compute
 * them at mount (spec §6).  Every offset check of lseek and FIEMAP hangs on
 * these two numbers.
 */
#include "base.h"

#define MAX_LFS_FILESIZE 0x7fffffffffffffffULL
#define NDIR_BLOCKS 12ULL

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

uint64_t e2map__max_size(unsigned bits, bool huge_file)
{
	uint64_t upper = MAX_LFS_FILESIZE;
	uint64_t res = ((1ULL << 32) - 1) << bits;

	/* Without huge_file, i_blocks counts 512-byte sectors in 32 bits. */
	if (!huge_file)
		upper = (((1ULL << 32) - 1) >> (bits - 9)) << bits;
	return res < upper ? res : upper;
}

/*
 * Blocks a dense block-mapped file can reach: the tree's capacity, unless
 * data plus indirect blocks would overflow i_blocks first.
 */
static uint64_t bitmap_blocks(unsigned bits, bool huge_file)
{
	uint64_t ppb = 1ULL << (bits - 2);
	uint64_t upper, res, meta;

	upper = huge_file ? (1ULL << 48) - 1 : ((1ULL << 32) - 1) >> (bits - 9);
	res = NDIR_BLOCKS + ppb + ppb * ppb + ppb * ppb * ppb;
	meta = 1 + (1 + ppb) + (1 + ppb + ppb * ppb);
	if (res + meta <= upper)
		return res;
	res = upper;
	upper -= NDIR_BLOCKS + ppb;
	meta = 1;
	if (upper < ppb * ppb)
		return res - (meta + 1 + div_up(upper, ppb));
	meta += 1 + ppb;
	upper -= ppb * ppb;
	meta += 1 + div_up(upper, ppb) + div_up(upper, ppb * ppb);
	return res - meta;
}

uint64_t e2map__max_bitmap_size(unsigned bits, bool huge_file)
{
	uint64_t blocks = bitmap_blocks(bits, huge_file);

	if (blocks > (MAX_LFS_FILESIZE >> bits))
		return MAX_LFS_FILESIZE;
	return blocks << bits;
}

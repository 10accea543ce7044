/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one directory hash: ext4fs_dirhash as a mount computes it, for the
 * htree lookup (htree.c), readdir's hash order (readdir.c) and the
 * fast-commit replay's new names (mount/fc).  libext2fs has the hash
 * functions; what the mount decides around them lives here once.
 */
#include "dir.h"

#include <errno.h>

/*
 * ext4_hash_info_init's s_hash_unsigned: the unsigned variants unless the
 * superblock says "signed" alone.  With neither flag the kernel goes by
 * its own char type, and kernels since 6.2 are built with -funsigned-char
 * on every architecture (before, x86 and most others hashed signed).
 */
unsigned e2map__hash_version(const struct ext2_super_block *sb,
			     unsigned version)
{
	bool unsig = (sb->s_flags & EXT2_FLAGS_UNSIGNED_HASH) ||
		     !(sb->s_flags & EXT2_FLAGS_SIGNED_HASH);

	return version <= EXT2_HASH_TEA && unsig ?
	       version + EXT2_HASH_LEGACY_UNSIGNED : version;
}

int e2map__dirhash(const struct ext2_super_block *sb, unsigned version,
		   const struct ext2fs_nls_table *cf, const char *name,
		   unsigned len, uint32_t *hash, uint32_t *minor)
{
	ext2_dirhash_t h, mi;

	/* ext4fs_dirhash: over the casefolded name when it has one. */
	if (ext2fs_dirhash2((int)version, name, (int)len, cf,
			    cf ? EXT4_CASEFOLD_FL : 0, sb->s_hash_seed, &h, &mi))
		return -EINVAL;
	/* __ext4fs_dirhash keeps the end-of-directory marker free. */
	*hash = h == 0xfffffffe ? 0xfffffffc : h;
	*minor = mi;
	return 0;
}

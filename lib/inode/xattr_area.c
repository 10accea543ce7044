/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An xattr area as fs/ext4/xattr.c reads one, in the inode or in a block:
 * its entries checked as check_xattrs checks them, found by index and
 * name as xattr_find_entry finds them, and walked in order.  It reads
 * nothing itself: inline data (inline.c) and the xattr calls (xattr.c)
 * hand it the bytes.
 */
#include "inode.h"

#include <errno.h>
#include <string.h>

#define XATTR_SIZE_MAX (1U << 24)	/* EXT4_XATTR_SIZE_MAX, on disk */

static size_t entry_len(const unsigned char *p)
{
	return (16 + p[0] + 3) & ~(size_t)3;
}

static void decode(const unsigned char *p, struct e2map__xentry *e)
{
	e->name = (const char *)p + 16;
	e->name_len = p[0];
	e->index = p[1];
	e->offs = le16(p + 2);
	e->inum = le32(p + 4);
	e->size = le32(p + 8);
	e->hash = le32(p + 12);
}

/* check_xattrs: names in bounds and NUL-free, then every value. */
int e2map__xarea_check(const e2map_t *m, const struct e2map__xarea *a)
{
	struct ext2_super_block *sb = m->fs->super;
	const unsigned char *p = a->first, *tend;
	struct e2map__xentry e;

	for (; p + 4 <= a->end && le32(p); p += entry_len(p))
		if (p + entry_len(p) >= a->end || memchr(p + 16, 0, p[0]))
			return -EUCLEAN;
	if (p + 4 > a->end)
		return -EUCLEAN;
	for (tend = p, p = a->first; p < tend; p += entry_len(p)) {
		decode(p, &e);
		if (e.inum && (!ext2fs_has_feature_ea_inode(sb) ||
			       e.inum < EXT2_FIRST_INO(sb) ||
			       e.inum > sb->s_inodes_count || !e.size))
			return -EUCLEAN;
		if (e.size > XATTR_SIZE_MAX)
			return -EUCLEAN;
		if (e.size && !e.inum &&
		    (e.offs < (size_t)(tend + 4 - a->vstart) ||
		     e.offs > (size_t)(a->end - a->vstart) ||
		     ((e.size + 3ULL) & ~3ULL) >
			     (size_t)(a->end - a->vstart) - e.offs))
			return -EUCLEAN;
	}
	return 0;
}

/* xattr_find_entry */
bool e2map__xarea_find(const struct e2map__xarea *a, unsigned index,
		       const char *name, size_t len, bool sorted,
		       struct e2map__xentry *out)
{
	const unsigned char *p;
	int cmp;

	for (p = a->first; le32(p); p += entry_len(p)) {
		cmp = (int)index - p[1];
		if (!cmp)
			cmp = (int)len - p[0];
		if (!cmp)
			cmp = memcmp(name, p + 16, len);
		if (!cmp) {
			decode(p, out);
			return true;
		}
		if (cmp < 0 && sorted)
			return false;
	}
	return false;
}

int e2map__xarea_each(const struct e2map__xarea *a, e2map__xentry_cb cb,
		      void *payload)
{
	struct e2map__xentry e;
	const unsigned char *p;
	int err = 0;

	for (p = a->first; !err && le32(p); p += entry_len(p)) {
		decode(p, &e);
		err = cb(&e, payload);
	}
	return err;
}

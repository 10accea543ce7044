/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Extended attributes as listxattr(2) and getxattr(2) see them on the
 * fresh mount (fs/ext4/xattr.c, fs/ext4/acl.c, fs/xattr.c): the in-inode
 * area first, then the xattr block, each checked as check_xattrs checks
 * it; values in EA inodes read and their hashes verified as
 * ext4_xattr_inode_get does; POSIX ACLs turned from ext4's on-disk form
 * into the VFS's; names no handler of a default mount lists (system.data,
 * the encryption context, lustre, richacl) hidden.  The caller is root.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XATTR_SIZE_MAX (1U << 24)	/* EXT4_XATTR_SIZE_MAX, on disk */
#define XATTR_NAME_MAX 255		/* the VFS's, and ext4_xattr_get's */
#define BLOCK_HEADER 32			/* struct ext4_xattr_header */

enum {
	IDX_USER = 1, IDX_ACL_ACCESS = 2, IDX_ACL_DEFAULT = 3,
	IDX_TRUSTED = 4, IDX_SECURITY = 6, IDX_HURD = 10
};

/* ext4_xattr_handler_map, as far as a default mount lists names: the
 * two ACL entries name the whole attribute, the others are prefixes. */
static const char *const prefixes[] = {
	[IDX_USER] = "user.",
	[IDX_ACL_ACCESS] = "system.posix_acl_access",
	[IDX_ACL_DEFAULT] = "system.posix_acl_default",
	[IDX_TRUSTED] = "trusted.",
	[IDX_SECURITY] = "security.",
	[IDX_HURD] = "gnu.",
};

static const char *prefix_of(unsigned index)
{
	return index < sizeof(prefixes) / sizeof(*prefixes) ?
	       prefixes[index] : NULL;
}

struct entry {
	const unsigned char *p;	/* the entry; its name at p + 16 */
	unsigned name_len, index;
	uint32_t offs, inum, size, hash;
};

static size_t entry_len(const unsigned char *p)
{
	return (16 + p[0] + 3) & ~(size_t)3;
}

static void decode(const unsigned char *p, struct entry *e)
{
	e->p = p;
	e->name_len = p[0];
	e->index = p[1];
	e->offs = le16(p + 2);
	e->inum = le32(p + 4);
	e->size = le32(p + 8);
	e->hash = le32(p + 12);
}

/* check_xattrs: names in bounds and NUL-free, then every value. */
static int area_check(const e2map_t *m, const struct e2map__xarea *a)
{
	struct ext2_super_block *sb = m->fs->super;
	const unsigned char *p = a->first, *tend;
	struct entry e;

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

/* xattr_find_entry: SORTED (the block) stops past where NAME would be. */
static bool find(const struct e2map__xarea *a, unsigned index,
		 const char *name, size_t len, bool sorted, struct entry *out)
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

int e2map__xarea_check(const e2map_t *m, const struct e2map__xarea *a)
{
	return area_check(m, a);
}

bool e2map__xarea_find(const struct e2map__xarea *a, unsigned index,
		       const char *name, size_t len, struct e2map__xentry *out)
{
	struct entry e;

	if (!find(a, index, name, len, false, &e))
		return false;
	out->offs = e.offs;
	out->inum = e.inum;
	out->size = e.size;
	return true;
}

/* The in-inode area of F, checked when the inode was loaded. */
static bool ibody_area(const e2map_file_t *f, struct e2map__xarea *a)
{
	const unsigned char *first = f->raw + EXT2_GOOD_OLD_INODE_SIZE +
				     f->inode->i_extra_isize + 4;

	if (!f->xattr_in_inode)
		return false;
	a->first = a->vstart = first;
	a->end = f->raw + EXT2_INODE_SIZE(f->m->fs->super);
	return true;
}

/* The xattr block of F into B, checked as ext4_xattr_check_block. */
static int block_area(e2map_file_t *f, unsigned char *b,
		      struct e2map__xarea *a)
{
	e2map_t *m = f->m;
	int err = e2map__read_block(m, f->file_acl, b);

	if (err < 0)
		return err;
	if (le32(b) != E2MAP_XATTR_MAGIC || le32(b + 8) != 1)
		return e2map__fail(m, -EUCLEAN, "inode %u: bad xattr block "
				   "header in block %llu", f->ino,
				   (unsigned long long)f->file_acl);
	if (ext2fs_has_feature_metadata_csum(m->fs->super) &&
	    !ext2fs_ext_attr_block_csum_verify(m->fs, f->ino, f->file_acl,
					       (struct ext2_ext_attr_header *)b))
		return e2map__fail(m, -EBADMSG, "inode %u: xattr block %llu: "
				   "checksum does not match", f->ino,
				   (unsigned long long)f->file_acl);
	a->vstart = b;
	a->first = b + BLOCK_HEADER;
	a->end = b + m->bs;
	if (area_check(m, a) < 0)
		return e2map__fail(m, -EUCLEAN, "inode %u: corrupted xattr "
				   "block %llu", f->ino,
				   (unsigned long long)f->file_acl);
	return 0;
}

/* ext4_xattr_hash_entry over one value word, unsigned or signed chars. */
static uint32_t entry_hash(const struct entry *e, uint32_t word, bool sgn)
{
	const unsigned char *n = e->p + 16;
	uint32_t h = 0;
	unsigned i;

	for (i = 0; i < e->name_len; i++)
		h = (h << 5) ^ (h >> 27) ^
		    (sgn ? (uint32_t)(int32_t)(signed char)n[i] : n[i]);
	return (h << 16) ^ (h >> 16) ^ word;
}

/* ext4_xattr_inode_read: every block mapped, read as it lies. */
static int ea_read(e2map_file_t *ea, unsigned char *buf, size_t size)
{
	e2map_t *m = ea->m;
	uint64_t nblk = (size + m->bs - 1) >> m->bits, lblk;
	struct es_entry run;
	unsigned char *b;
	size_t at, n;
	int err = 0;

	if (!(b = malloc(m->bs)))
		return -ENOMEM;
	for (lblk = 0; lblk < nblk && !err; lblk++) {
		err = e2map__map_blocks(ea, (uint32_t)lblk, 1, &run);
		if (!err && run.kind == E2MAP_RUN_HOLE)
			err = e2map__fail(m, -EUCLEAN, "EA inode %u: hole at "
					  "block %llu", ea->ino,
					  (unsigned long long)lblk);
		if (!err && io_channel_read_blk64(m->fs->io, run.pblk, 1, b))
			err = e2map__fail(m, -EIO, "EA inode %u: cannot read "
					  "block %llu", ea->ino,
					  (unsigned long long)run.pblk);
		at = lblk << m->bits;
		n = size - at < m->bs ? size - at : m->bs;
		if (!err)
			memcpy(buf + at, b, n);
	}
	free(b);
	return err;
}

/* ext4_xattr_inode_verify_hashes; a Lustre EA inode is not verified. */
static int ea_verify(e2map_file_t *ea, e2map_file_t *parent,
		     const struct entry *e, const unsigned char *buf)
{
	uint32_t stored = ea->inode->i_atime, crc;

	if (ea->inode->i_mtime == parent->ino &&
	    ea->inode->i_generation == parent->inode->i_generation)
		return 0;
	crc = e2map__crc32c(ea->m->fs->csum_seed, buf, e->size);
	if (crc != stored || (entry_hash(e, crc, false) != e->hash &&
			      entry_hash(e, crc, true) != e->hash))
		return e2map__fail(ea->m, -EUCLEAN, "EA inode %u: hash "
				   "validation failed", ea->ino);
	return 0;
}

/* ext4_xattr_inode_get: the value E names, from its EA inode. */
static int ea_value(e2map_file_t *parent, const struct entry *e,
		    unsigned char *buf)
{
	e2map_t *m = parent->m;
	e2map_file_t *ea;
	int err = e2map__iget_how(m, e->inum, E2MAP_IGET_EA, &ea);

	if (err < 0)
		return err;
	if (ea->size != e->size)
		err = e2map__fail(m, -EUCLEAN, "EA inode %u: size %llu, the "
				  "entry says %u", ea->ino,
				  (unsigned long long)ea->size, e->size);
	if (!err)
		err = ea_read(ea, buf, e->size);
	if (!err)
		err = ea_verify(ea, parent, e, buf);
	e2map_file_close(ea);
	return err;
}

/* The value of E into BUF (SIZE bytes; 0: the length only). */
static int64_t value_of(e2map_file_t *f, const struct e2map__xarea *a,
			const struct entry *e, void *buf, size_t size)
{
	if (!size)
		return e->size;
	if (e->size > size)
		return -ERANGE;
	if (e->inum) {
		int err = ea_value(f, e, buf);

		return err < 0 ? (int64_t)err : (int64_t)e->size;
	}
	memcpy(buf, a->vstart + e->offs, e->size);
	return e->size;
}

int64_t e2map__xattr_get(e2map_file_t *f, unsigned index, const char *name,
			 size_t len, void *buf, size_t size)
{
	struct e2map__xarea a;
	struct entry e;
	unsigned char *b;
	int64_t r = -ENODATA;

	if (len > XATTR_NAME_MAX)
		return -ERANGE;
	if (ibody_area(f, &a) && find(&a, index, name, len, false, &e))
		return value_of(f, &a, &e, buf, size);
	if (!f->file_acl)
		return -ENODATA;
	if (!(b = malloc(f->m->bs)))
		return -ENOMEM;
	if ((r = block_area(f, b, &a)) == 0)
		r = find(&a, index, name, len, true, &e) ?
		    value_of(f, &a, &e, buf, size) : -ENODATA;
	free(b);
	return r;
}

/*
 * ext4_acl_from_disk, then posix_acl_to_xattr: version 1 with 4-byte
 * entries for the owner, group, mask and other classes and 8-byte ones
 * for named users and groups, to version 2 with 8-byte entries all
 * through (ACL_UNDEFINED_ID where no id).  *OUT (malloc'd) and its
 * length, or -EINVAL for a bad ACL, -ENODATA for an empty one.
 */
static int64_t acl_to_vfs(const unsigned char *d, size_t n, unsigned char **out)
{
	size_t at = 4, i, count;
	unsigned char *v;

	if (n < 4 || le32(d) != 1)
		return -EINVAL;
	/* ext4_acl_count: four short entries, then long ones */
	if (n - 4 < 16 && (n - 4) % 4)
		return -EINVAL;
	if (n - 4 >= 16 && (n - 20) % 8)
		return -EINVAL;
	count = n - 4 < 16 ? (n - 4) / 4 : (n - 20) / 8 + 4;
	if (!count)
		return -ENODATA;
	if (!(v = malloc(4 + 8 * count)))
		return -ENOMEM;
	memcpy(v, "\x02\0\0\0", 4);
	for (i = 0; i < count; i++) {
		unsigned tag = at + 4 <= n ? le16(d + at) : 0;
		size_t el = (tag == 0x02 || tag == 0x08) ? 8 : 4;
		unsigned char *o = v + 4 + 8 * i;

		/* tags ACL_USER_OBJ to ACL_OTHER: one bit of 0x3f each */
		if (!tag || (tag & ~0x3fU) || (tag & (tag - 1)) ||
		    at + el > n)
			break;
		memcpy(o, d + at, 4);
		memcpy(o + 4, el == 8 ? d + at + 4 :
		       (const unsigned char *)"\xff\xff\xff\xff", 4);
		at += el;
	}
	if (i < count || at != n) {
		free(v);
		return -EINVAL;
	}
	*out = v;
	return 4 + 8 * (int64_t)count;
}

/* get_acl through the xattr of INDEX, as getxattr(2) of its name. */
static int64_t acl_get(e2map_file_t *f, unsigned index, void *buf,
		       size_t size)
{
	unsigned char *raw, *vfs = NULL;
	int64_t n = e2map__xattr_get(f, index, "", 0, NULL, 0), r;

	if (n <= 0)	/* ext4_get_acl: an empty value is no ACL either */
		return n ? n : -ENODATA;
	if (!(raw = malloc((size_t)n)))
		return -ENOMEM;
	if ((r = e2map__xattr_get(f, index, "", 0, raw, (size_t)n)) >= 0)
		r = acl_to_vfs(raw, (size_t)r, &vfs);
	free(raw);
	if (r >= 0 && size && (size_t)r > size)
		r = -ERANGE;
	else if (r >= 0 && size)
		memcpy(buf, vfs, (size_t)r);
	free(vfs);
	return r;
}

/*
 * xattr_resolve_name and the handler's get: NAME to its index and
 * suffix.  An ACL name is whole (no ACL on a symlink: -EOPNOTSUPP); a
 * prefix needs a suffix (-EINVAL without); a name no handler takes:
 * -EOPNOTSUPP.
 */
static int64_t getxattr(e2map_file_t *f, const char *name, void *buf,
			size_t size)
{
	size_t len = strlen(name), pl;
	uint16_t mode = f->inode->i_mode;
	unsigned i;

	if (!len || len > XATTR_NAME_MAX)
		return -ERANGE;
	/* xattr_permission: user.* lives on files and directories only */
	if (!strncmp(name, prefixes[IDX_USER], 5) &&
	    !LINUX_S_ISREG(mode) && !LINUX_S_ISDIR(mode))
		return -ENODATA;
	if (!strcmp(name, prefixes[IDX_ACL_ACCESS]))
		return LINUX_S_ISLNK(mode) ? -EOPNOTSUPP :
		       acl_get(f, IDX_ACL_ACCESS, buf, size);
	if (!strcmp(name, prefixes[IDX_ACL_DEFAULT]))
		return LINUX_S_ISLNK(mode) ? -EOPNOTSUPP :
		       acl_get(f, IDX_ACL_DEFAULT, buf, size);
	for (i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
		if (!prefixes[i] || i == IDX_ACL_ACCESS || i == IDX_ACL_DEFAULT)
			continue;
		pl = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], pl))
			continue;
		if (len == pl)
			return -EINVAL;
		return e2map__xattr_get(f, i, name + pl, len - pl, buf, size);
	}
	return -EOPNOTSUPP;
}

/* A listed name: prefix and stored suffix, NUL-terminated. */
struct names {
	char *s;
	size_t len, cap;
};

static int list_area(const struct e2map__xarea *a, struct names *n)
{
	const unsigned char *p;
	const char *pre;
	size_t pl;

	for (p = a->first; le32(p); p += entry_len(p)) {
		if (!(pre = prefix_of(p[1])))
			continue;
		pl = strlen(pre);
		if (e2map__grow((void **)&n->s, &n->cap, n->len + pl + p[0] + 1,
				1) < 0)
			return -ENOMEM;
		memcpy(n->s + n->len, pre, pl);
		memcpy(n->s + n->len + pl, p + 16, p[0]);
		n->len += pl + p[0];
		n->s[n->len++] = '\0';
	}
	return 0;
}

/* ext4_listxattr: the in-inode names, then the block's; all or error. */
static int listxattr(e2map_file_t *f, struct names *n)
{
	struct e2map__xarea a;
	unsigned char *b;
	int err = 0;

	if (ibody_area(f, &a) && (err = list_area(&a, n)) < 0)
		return err;
	if (!f->file_acl)
		return 0;
	if (!(b = malloc(f->m->bs)))
		return -ENOMEM;
	if ((err = block_area(f, b, &a)) == 0)
		err = list_area(&a, n);
	free(b);
	return err;
}

/* The inode by number as e2map_stat_ino reaches it. */
static int iget_ino(e2map_t *m, uint64_t ino, e2map_file_t **f)
{
	m->errmsg[0] = '\0';
	if (ino < 1 || ino > m->fs->super->s_inodes_count)
		return e2map__fail(m, -ESTALE, "no inode %llu: inode numbers "
				   "run from 1 to %u", (unsigned long long)ino,
				   m->fs->super->s_inodes_count);
	return e2map__iget(m, (ext2_ino_t)ino, true, f);
}

int64_t e2map_getxattr_ino(e2map_t *m, uint64_t ino, const char *name,
			   void *buf, size_t size)
{
	e2map_file_t *f;
	int64_t r;

	if (!m || !name || (!buf && size))
		return -EINVAL;
	if ((r = iget_ino(m, ino, &f)) < 0)
		return r;
	r = getxattr(f, name, buf, size);
	e2map_file_close(f);
	return r;
}

int64_t e2map_lgetxattr(e2map_t *m, const char *path, const char *name,
			void *buf, size_t size)
{
	e2map_file_t *f;
	int64_t r;

	if (!m || !path || !name || (!buf && size))
		return -EINVAL;
	m->errmsg[0] = '\0';
	if ((r = e2map__lookup_inode(m, path, false, &f)) < 0)
		return r;
	r = getxattr(f, name, buf, size);
	e2map_file_close(f);
	return r;
}

/* One listed name's value (grown into *V), as getxattr(2) answers it. */
static void fetch(e2map_file_t *f, struct e2map_xattr *x, unsigned char **v,
		  size_t *cap)
{
	int64_t n = getxattr(f, x->name, NULL, 0);

	x->value = NULL;
	x->value_len = 0;
	if (n >= 0 && e2map__grow((void **)v, cap, n ? (size_t)n : 1, 1) < 0)
		n = -ENOMEM;
	if (n > 0)
		n = getxattr(f, x->name, *v, (size_t)n);
	x->err = n < 0 ? (int)n : 0;
	if (n >= 0) {
		x->value = *v;
		x->value_len = (size_t)n;
	}
}

static int xattrs_of(e2map_file_t *f, e2map_xattr_cb cb, void *payload)
{
	struct names n = { 0 };
	struct e2map_xattr x;
	unsigned char *v = NULL;
	size_t at, cap = 0;
	int err = listxattr(f, &n);

	for (at = 0; !err && at < n.len; at += x.name_len + 1) {
		x.name = n.s + at;
		x.name_len = strlen(x.name);
		fetch(f, &x, &v, &cap);
		err = cb(&x, payload);
	}
	free(n.s);
	free(v);
	return err;
}

int e2map_xattrs_ino(e2map_t *m, uint64_t ino, e2map_xattr_cb cb,
		     void *payload)
{
	e2map_file_t *f;
	int err;

	if (!m || !cb)
		return -EINVAL;
	if ((err = iget_ino(m, ino, &f)) < 0)
		return err;
	err = xattrs_of(f, cb, payload);
	e2map_file_close(f);
	return err;
}

int e2map_lxattrs(e2map_t *m, const char *path, e2map_xattr_cb cb,
		  void *payload)
{
	e2map_file_t *f;
	int err;

	if (!m || !path || !cb)
		return -EINVAL;
	m->errmsg[0] = '\0';
	if ((err = e2map__lookup_inode(m, path, false, &f)) < 0)
		return err;
	err = xattrs_of(f, cb, payload);
	e2map_file_close(f);
	return err;
}

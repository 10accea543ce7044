/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Extended attributes as listxattr(2) and getxattr(2) see them on the
 * fresh mount (fs/ext4/xattr.c's handlers, fs/ext4/acl.c, fs/xattr.c):
 * names by the handlers of a default mount (system.data, the encryption
 * context, lustre and richacl hidden), POSIX ACLs turned from ext4's
 * on-disk form into the VFS's, by path or by inode number.  The values
 * themselves are the inode layer's (inode/xattr.c).  The caller is root.
 */
#include "file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XATTR_NAME_MAX 255		/* the VFS's, and ext4_xattr_get's */

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

/* One entry's name as listxattr(2) lists it; none where no handler. */
static int list_name(const struct e2map__xentry *e, void *payload)
{
	struct names *n = payload;
	const char *pre = prefix_of(e->index);
	size_t pl;

	if (!pre)
		return 0;
	pl = strlen(pre);
	if (e2map__grow((void **)&n->s, &n->cap, n->len + pl + e->name_len + 1,
			1) < 0)
		return -ENOMEM;
	memcpy(n->s + n->len, pre, pl);
	memcpy(n->s + n->len + pl, e->name, e->name_len);
	n->len += pl + e->name_len;
	n->s[n->len++] = '\0';
	return 0;
}

int64_t e2map_inode_getxattr(e2map_t *m, uint64_t ino, const char *name,
			     void *buf, size_t size)
{
	e2map_file_t *f;
	int64_t r;

	if (!m || !name || (!buf && size))
		return -EINVAL;
	if ((r = e2map__iget_ino(m, ino, &f)) < 0)
		return r;
	r = getxattr(f, name, buf, size);
	e2map__iput(f);
	return r;
}

int64_t e2map_path_lgetxattr(e2map_t *m, const char *path, const char *name,
			     void *buf, size_t size)
{
	e2map_file_t *f;
	int64_t r;

	if (!m || !path || !name || (!buf && size))
		return -EINVAL;
	m->err.msg[0] = '\0';
	if ((r = e2map__lookup_inode(m, path, false, &f)) < 0)
		return r;
	r = getxattr(f, name, buf, size);
	e2map__iput(f);
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
	int err = e2map__xattr_list(f, list_name, &n);

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

int e2map_inode_xattrs(e2map_t *m, uint64_t ino, e2map_xattr_cb cb,
		       void *payload)
{
	e2map_file_t *f;
	int err;

	if (!m || !cb)
		return -EINVAL;
	if ((err = e2map__iget_ino(m, ino, &f)) < 0)
		return err;
	err = xattrs_of(f, cb, payload);
	e2map__iput(f);
	return err;
}

int e2map_path_lxattrs(e2map_t *m, const char *path, e2map_xattr_cb cb,
		       void *payload)
{
	e2map_file_t *f;
	int err;

	if (!m || !path || !cb)
		return -EINVAL;
	m->err.msg[0] = '\0';
	if ((err = e2map__lookup_inode(m, path, false, &f)) < 0)
		return err;
	err = xattrs_of(f, cb, payload);
	e2map__iput(f);
	return err;
}

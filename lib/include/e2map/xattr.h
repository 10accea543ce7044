/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: extended attributes, as listxattr(2) and getxattr(2) answer.
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_XATTR_H
#define E2MAP_PUBLIC_XATTR_H

#include <e2map/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Extended attributes of inode INO (by number, as e2map_inode_stat), as
 * root sees them on the mount: listxattr(2)'s names in its order (the
 * in-inode ones, then the xattr block's), each with getxattr(2)'s answer
 * for it.  Names a default mount does not list are not there:
 * system.data (inline data), the encryption context, lustre's and
 * richacl's.  POSIX ACLs are system.posix_acl_access and
 * system.posix_acl_default with the VFS's value (version 2, 8-byte
 * entries), not ext4's on-disk form.  A value in an EA inode is read from
 * it and its hashes verified.  NAME and VALUE are borrowed for the call;
 * NAME is NUL-terminated.  ERR is 0, or getxattr(2)'s -errno for that name
 * (VALUE NULL): -EUCLEAN for a damaged EA inode, -EINVAL for a bad ACL or
 * an empty name suffix ("user."), -ENODATA for an empty ACL, and so on.
 * Returns 0, CB's non-zero return, or listxattr(2)'s error, CB never
 * called: -EUCLEAN for a corrupted xattr block, -EBADMSG for a bad
 * checksum, -EIO; also e2map_inode_stat's errors.
 */
struct e2map_xattr {
	const char *name;
	size_t name_len;
	const void *value;
	size_t value_len;
	int err;
};
typedef int (*e2map_xattr_cb)(const struct e2map_xattr *x, void *payload);
E2MAP_API int e2map_inode_xattrs(e2map_t *m, uint64_t ino, e2map_xattr_cb cb,
				 void *payload);
/*
 * The same for PATH, as llistxattr(2) reaches it: the lookup of
 * e2map_path_lstat (a final symlink not followed), its errors, but no stat
 * (so an encrypted symlink whose stat fails still lists).
 */
E2MAP_API int e2map_path_lxattrs(e2map_t *m, const char *path,
				 e2map_xattr_cb cb, void *payload);
/*
 * getxattr(2) of NAME on inode INO: with SIZE 0 the value's length, else
 * the value into BUF and its length, -ERANGE when it does not fit.
 * -ENODATA for a name the inode lacks, -EOPNOTSUPP for a name no handler
 * takes (system.data among them), -EINVAL for a prefix alone ("user."),
 * -ERANGE for an empty name or one past 255 bytes; the errors above.
 */
E2MAP_API int64_t e2map_inode_getxattr(e2map_t *m, uint64_t ino,
				       const char *name, void *buf,
				       size_t size);
/* lgetxattr(2): the same for PATH, reached as e2map_path_lxattrs reaches it. */
E2MAP_API int64_t e2map_path_lgetxattr(e2map_t *m, const char *path,
				       const char *name, void *buf,
				       size_t size);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_XATTR_H */

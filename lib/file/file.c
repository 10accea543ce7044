/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file handle: open(2) and stat(2) on top of a path lookup and
 * __ext4_iget, and the handle's life.  Each handle is a fresh in-memory
 * inode: its extent-status cache starts empty, as on a fresh mount.
 */
#include "file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The inode flags FS_IOC_GETFLAGS reports (EXT4_FL_USER_VISIBLE). */
#define FL_USER_VISIBLE 0x705BDFFFU

/*
 * What open(2) does by type before any filesystem code: a socket has no
 * open (no_open: ENXIO); a device opens its driver, which e2map never
 * does, so it answers as a kernel without one (chrdev_open, blkdev_open:
 * ENXIO).  A FIFO opens; its lseek and FIEMAP answers are by type.  A
 * symlink reaches here only by O_NOFOLLOW or by number: open's ELOOP.
 */
static int check_type(e2map_file_t *f)
{
	uint16_t mode = f->inode->i_mode;

	if (LINUX_S_ISLNK(mode))
		return e2map__fail(f->m, -ELOOP, "inode %u is a symlink", f->ino);
	if (LINUX_S_ISSOCK(mode))
		return e2map__fail(f->m, -ENXIO, "inode %u is a socket", f->ino);
	if (LINUX_S_ISCHR(mode) || LINUX_S_ISBLK(mode))
		return e2map__fail(f->m, -ENXIO, "inode %u is a device node: "
				   "e2map opens no device, as a kernel without "
				   "its driver", f->ino);
	return 0;
}

/* The open itself (ext4_file_open, ext4_dir_open), PARENT 0 by number. */
static int open_checks(e2map_file_t *f, ext2_ino_t parent)
{
	e2map_file_t *dir = NULL;
	int err;

	if ((err = check_type(f)) < 0)
		return err;
	if (parent && (err = e2map__iget(f->m, parent, false, &dir)) < 0)
		return err;
	err = e2map__crypt_open(f, dir);
	e2map_file_close(dir);
	return err;
}

/* open(2) on top of the inode: only files and directories; cache=warm. */
static int file_new(e2map_t *m, ext2_ino_t ino, ext2_ino_t parent,
		    e2map_file_t **out)
{
	e2map_file_t *f;
	int err;

	if ((err = e2map__iget(m, ino, !parent, &f)) < 0)
		return err;
	if ((err = open_checks(f, parent)) < 0 ||
	    (m->warm && (err = e2map__warm(f)) < 0)) {
		e2map_file_close(f);
		return err;
	}
	*out = f;
	return 0;
}

int e2map__file_open_in(e2map_t *m, uint64_t ino, uint64_t parent,
			e2map_file_t **out)
{
	int err;

	*out = NULL;
	if (!m)
		return -EINVAL;
	m->err.msg[0] = '\0';
	if ((err = e2map__ino_check(m, ino)) < 0 ||
	    (parent && (err = e2map__ino_check(m, parent)) < 0))
		return err;
	return file_new(m, (ext2_ino_t)ino, (ext2_ino_t)parent, out);
}

int e2map_file_open_ino(e2map_t *m, uint64_t ino, e2map_file_t **out)
{
	return e2map__file_open_in(m, ino, 0, out);
}

int e2map_file_open_child(e2map_t *m, uint64_t dir, uint64_t ino,
			  e2map_file_t **out)
{
	*out = NULL;
	if (!dir)
		return -EINVAL;
	return e2map__file_open_in(m, ino, dir, out);
}

int e2map_file_open_flags(e2map_t *m, const char *path, int flags,
			  e2map_file_t **out)
{
	ext2_ino_t ino, parent;
	int err;

	*out = NULL;
	if (!m || !path)
		return -EINVAL;
	if (flags & ~E2MAP_O_NOFOLLOW)
		return e2map__fail(m, -EINVAL, "unknown flags 0x%x",
				   (unsigned)(flags & ~E2MAP_O_NOFOLLOW));
	if ((err = e2map__lookup(m, path, !(flags & E2MAP_O_NOFOLLOW), &ino,
			       &parent)) < 0)
		return err;
	return file_new(m, ino, parent, out);
}

int e2map_file_open(e2map_t *m, const char *path, e2map_file_t **out)
{
	return e2map_file_open_flags(m, path, 0, out);
}

static int stat_path(e2map_t *m, const char *path, bool follow,
		     struct e2map_stat *st)
{
	e2map_file_t *f;
	int err;

	if (!m || !path || !E2MAP__OUT_OK(st, E2MAP_STAT_VERSION))
		return -EINVAL;
	if ((err = e2map__lookup_inode(m, path, follow, &f)) < 0)
		return err;
	err = e2map_file_stat(f, st);
	e2map_file_close(f);
	return err;
}

int e2map_path_stat(e2map_t *m, const char *path, struct e2map_stat *st)
{
	return stat_path(m, path, true, st);
}

int e2map_path_lstat(e2map_t *m, const char *path, struct e2map_stat *st)
{
	return stat_path(m, path, false, st);
}

int e2map_inode_stat(e2map_t *m, uint64_t ino, struct e2map_stat *st)
{
	e2map_file_t *f;
	int err;

	if (!m || !E2MAP__OUT_OK(st, E2MAP_STAT_VERSION))
		return -EINVAL;
	if ((err = e2map__iget_ino(m, ino, &f)) < 0)
		return err;
	err = e2map_file_stat(f, st);
	e2map_file_close(f);
	return err;
}

/* Symlink INO's target, malloc'd and NUL-terminated, and its length. */
static int read_target(e2map_t *m, uint64_t ino, char **target, size_t *len)
{
	e2map_file_t *f;
	int err;

	*target = NULL;
	if ((err = e2map__iget_ino(m, ino, &f)) < 0)
		return err;
	if (!LINUX_S_ISLNK(f->inode->i_mode))
		err = e2map__fail(m, -EINVAL, "inode %llu is not a symlink",
				  (unsigned long long)ino);
	else
		err = e2map__read_link(f, target, len);
	e2map_file_close(f);
	return err;
}

int64_t e2map_inode_readlink(e2map_t *m, uint64_t ino, char *buf, size_t size)
{
	char *target;
	size_t len = 0;
	int err;

	if (!m || (!buf && size))
		return -EINVAL;
	if ((err = read_target(m, ino, &target, &len)) < 0)
		return err;
	if (size)
		memcpy(buf, target, len < size ? len : size);
	free(target);
	return (int64_t)len;
}

int64_t e2map_inode_readlink_alloc(e2map_t *m, uint64_t ino, char **out)
{
	size_t len = 0;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!m)
		return -EINVAL;
	if ((err = read_target(m, ino, out, &len)) < 0) {
		free(*out);
		*out = NULL;
		return err;
	}
	return (int64_t)len;
}

/* A handle is an in-memory inode: closing it is iput. */
void e2map_file_close(e2map_file_t *f)
{
	e2map__iput(f);
}

/*
 * fscrypt_symlink_getattr: an encrypted symlink's size is that of the
 * target readlink gives, the no-key one without the key; where that
 * fails, so does stat.
 */
static int encrypted_link_size(e2map_file_t *f, uint64_t *size)
{
	char *target;
	size_t len;
	int err;

	if (!LINUX_S_ISLNK(f->inode->i_mode) ||
	    !(f->inode->i_flags & EXT4_ENCRYPT_FL))
		return 0;
	if ((err = e2map__read_link(f, &target, &len)) < 0)
		return err;
	free(target);
	*size = len;
	return 0;
}

int e2map_file_stat(e2map_file_t *f, struct e2map_stat *st)
{
	if (!f || !E2MAP__OUT_OK(st, E2MAP_STAT_VERSION))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->version = E2MAP_STAT_VERSION;
	e2map__inode_stat(f, st);
	st->flags = f->inode->i_flags & FL_USER_VISIBLE;
	return encrypted_link_size(f, &st->size);
}

int e2map_inode_lookup(e2map_t *m, uint64_t dir, const char *name, size_t len,
		       uint64_t *ino)
{
	struct e2map_name n = { .s = name, .len = (unsigned)len };
	e2map_file_t *d, *child;
	ext2_ino_t chain[1];
	int err;

	if (!m || !name || !ino)
		return -EINVAL;
	if (len > E2MAP_NAME_LEN)
		return e2map__fail(m, -ENAMETOOLONG, "name too long");
	if ((err = e2map_file_open_ino(m, dir, &d)) < 0)
		return err;
	chain[0] = d->ino;
	if (!LINUX_S_ISDIR(d->inode->i_mode))
		err = -ENOTDIR;
	else if ((err = e2map__lookup_child(d, chain, 1, &n, &child)) == 0)
		*ino = child->ino;
	if (err == 0)
		e2map_file_close(child);
	e2map_file_close(d);
	return err;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * e2map_extract: a file or a tree out of the image onto the host, as
 * `cp -a` copies it from the kernel's mount.  A regular file's data is
 * found as coreutils finds it (SEEK_DATA/SEEK_HOLE through the mapping
 * walk), read as read(2) on the mount returns it and written at the same
 * offsets, so holes and unwritten ranges become holes: only the data is
 * written.  Hard links are made as links, symlinks, FIFOs, sockets and
 * (as root) device nodes recreated.  One entry's failure is reported and
 * the walk goes on; nothing is ever written to the image.
 */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#define COPY_BUF (1U << 20)
/* One span's share of a copy made in the kernel. */
#define SEND_MAX (1U << 30)

/* How the data of a span of the image reaches the copy. */
enum send_how {
	SEND_RANGE,	/* copy_file_range(2): a copy in the kernel */
	SEND_FILE,	/* sendfile(2): the same across filesystems */
	SEND_NONE,	/* read into the buffer and written */
};

struct xt {
	e2map_t *m;
	unsigned flags;
	e2map_extract_cb cb;
	void *payload;
	const char *src;	/* the entry's path in the image */
	struct e2map_pathbuf dst, first;	/* its copy; a hard link's target */
	size_t base;		/* DEST's part of dst */
	size_t start;		/* PATH's part of src */
	unsigned char *buf;
	mode_t umask;
	bool root;		/* may chown and make device nodes */
	unsigned failures;
	int stop;		/* CB's non-zero return: stop, return it */
	bool acl_failed;	/* the xattrs stopped at an ACL's getxattr */
	enum send_how how;
};

/* EV to the caller; CB's non-zero return stops the walk (0 here,
 * x->stop set: every step checks it). */
static int emit(struct xt *x, const struct e2map_extract_event *ev)
{
	int r;

	if (x->cb && (r = x->cb(ev, x->payload)) != 0)
		x->stop = r;
	return 0;
}

/* Tell the caller about the entry at src/dst. */
static int report(struct xt *x, const struct e2map_stat *st, int err,
		  const char *what, uint64_t bytes, bool partial)
{
	struct e2map_extract_event ev = {
		.path = x->src, .dest = x->dst.s, .mode = st ? st->mode : 0,
		.bytes = bytes, .err = err, .what = what ? what : "",
		.partial = partial,
	};

	if (err)
		x->failures++;
	return emit(x, &ev);
}

static bool all_zero(const unsigned char *p, size_t n)
{
	return n == 0 || (p[0] == 0 && !memcmp(p, p + 1, n - 1));
}

/* N bytes of the buffer to FD at OFF; in SPARSE mode zero blocks of the
 * image's block size are skipped (left as holes). */
static int put(struct xt *x, int fd, size_t n, int64_t off, bool sparse)
{
	size_t at = 0, step;

	while (at < n) {
		step = sparse ? x->m->bs - (size_t)((off + at) % x->m->bs) :
			n - at;
		step = step < n - at ? step : n - at;
		if (!(sparse && all_zero(x->buf + at, step))) {
			size_t w = 0;

			while (w < step) {
				ssize_t k = pwrite(fd, x->buf + at + w,
						   step - w, off + at + w);

				if (k < 0)
					return -errno;
				w += (size_t)k;
			}
		}
		at += step;
	}
	return 0;
}

/* LEN bytes at IN of image descriptor SRC to FD at OUT, one call. */
static ssize_t send_once(struct xt *x, int src, loff_t *in, int fd,
			 loff_t out, size_t len)
{
	if (x->how == SEND_RANGE)
		return copy_file_range(src, in, fd, &out, len, 0);
	if (lseek(fd, out, SEEK_SET) < 0)
		return -1;
	return sendfile(fd, src, in, len);
}

/*
 * Span S of the image to FD at OFF without passing through the buffer:
 * the bytes sent.  Where the copy cannot be made so, the next way is
 * tried (copy_file_range, then sendfile, then none); any other failure
 * leaves the rest to the read and the write, which say which failed.
 */
static uint64_t send_span(struct xt *x, const struct e2map_span *s, int fd,
			  int64_t off)
{
	loff_t in = s->fd_off;
	uint64_t sent = 0;
	ssize_t n;

	while (x->how != SEND_NONE && sent < s->len) {
		n = send_once(x, s->fd, &in, fd, (loff_t)(off + (int64_t)sent),
			      s->len - sent < SEND_MAX ?
			      (size_t)(s->len - sent) : SEND_MAX);
		if (n > 0)
			sent += (uint64_t)n;
		else if (n < 0 && (errno == EXDEV || errno == EINVAL ||
				   errno == ENOSYS || errno == EOPNOTSUPP))
			x->how++;
		else if (n == 0 || errno != EINTR)
			break;
	}
	return sent;
}

/* Bytes of F at *OFF, below END, that a span sends: *OFF moves on. */
static uint64_t send_data(struct xt *x, e2map_file_t *f, int fd, int64_t *off,
			  int64_t end)
{
	struct e2map_span s;
	uint64_t n;

	if (x->how == SEND_NONE ||
	    e2map_file_span(f, *off, (size_t)(end - *off), &s) < 0 ||
	    s.fd < 0)
		return 0;
	n = send_span(x, &s, fd, *off);
	*off += (int64_t)n;
	return n;
}

/*
 * Bytes [*off, end) of F into FD at the same offsets; *OFF moves on.
 * SPARSE: the map is unknown, zero blocks are not written.
 */
static int copy_range(struct xt *x, e2map_file_t *f, int fd, int64_t *off,
		      int64_t end, bool sparse, uint64_t *done,
		      const char **what)
{
	int err;

	while (*off < end) {
		size_t want = end - *off < COPY_BUF ? (size_t)(end - *off) :
			      COPY_BUF;
		uint64_t sent = sparse ? 0 : send_data(x, f, fd, off, end);
		int64_t n;

		if (sent) {
			*done += sent;
			continue;
		}
		n = e2map_file_pread(f, x->buf, want, *off);

		if (n < 0) {
			*what = "read";
			return (int)n;
		}
		if (n == 0)
			return 0;
		if ((err = put(x, fd, (size_t)n, *off, sparse)) < 0) {
			*what = "write";
			return err;
		}
		*off += n;
		*done += (uint64_t)n;
	}
	return 0;
}

/*
 * The data of F, region by region as SEEK_DATA/SEEK_HOLE give them, then
 * the size set.  Where the map cannot be had (damaged metadata fails the
 * seek), the rest is read as read(2) reads it, so that the bytes are the
 * mount's; where a read fails, the size is cut where the good bytes end,
 * so the file holds nothing that was not read.
 */
static int copy_data(struct xt *x, e2map_file_t *f, int fd, uint64_t size,
		     uint64_t *done, const char **what)
{
	int64_t pos = 0, data, hole;
	int err = 0;

	while ((uint64_t)pos < size) {
		if ((data = e2map_file_lseek(f, pos, E2MAP_SEEK_DATA)) == -ENXIO)
			break;
		if (data < 0 ||
		    (hole = e2map_file_lseek(f, data, E2MAP_SEEK_HOLE)) < 0) {
			if (data >= 0)
				pos = data;
			err = copy_range(x, f, fd, &pos, (int64_t)size, true,
					 done, what);
			break;
		}
		pos = data;
		err = copy_range(x, f, fd, &pos, hole, false, done, what);
		if (err < 0 || pos < hole)	/* failed, or EOF came first */
			break;
	}
	if (err)
		size = (uint64_t)pos;
	if (ftruncate(fd, (off_t)size) < 0 && !err) {
		*what = "truncate";
		err = -errno;
	}
	return err;
}

/*
 * open(2) the destination, replacing what is there but a directory.  With
 * -p, as cp -a opens it: the owner's bits only (and u+w, for the xattrs,
 * where it will not own the file), until the copy is whole and its
 * attributes are set; a copy that fails halfway keeps that mode.
 */
static int create_file(struct xt *x, mode_t mode)
{
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, fd;

	if (x->flags & E2MAP_EXTRACT_PRESERVE)
		mode = (mode & S_IRWXU) | (x->root ? 0 : S_IWUSR);
	fd = open(x->dst.s, flags, mode & 0777);
	if (fd < 0 && errno == ELOOP && unlink(x->dst.s) == 0)
		fd = open(x->dst.s, flags, mode & 0777);
	return fd < 0 ? -errno : fd;
}

static int extract_file(struct xt *x, const struct e2map_tree_entry *e,
			const char **what, uint64_t *done, bool *partial)
{
	const struct e2map_stat *st = e->st;
	e2map_file_t *f;
	int fd, err;

	/* As cp opens the name: across an encryption policy, EPERM. */
	if ((err = e2map__file_open_in(x->m, e->ino, e->parent, &f)) < 0) {
		*what = "open";
		return err;
	}
	if ((fd = create_file(x, st->mode)) < 0) {
		*what = "create";
		e2map_file_close(f);
		return fd;
	}
	err = copy_data(x, f, fd, st->size, done, what);
	e2map_file_close(f);
	if (close(fd) < 0 && !err) {
		*what = "write";
		err = -errno;
	}
	*partial = err && strcmp(*what, "create");
	return err;
}

/* A node that is no file: make it anew, replacing what is there. */
static int make_node(struct xt *x, uint64_t ino, const struct e2map_stat *st,
		     const char **what)
{
	uint32_t type = st->mode & S_IFMT;
	char *target = NULL;
	int64_t n = 0;
	int r, tries;

	if (type == S_IFLNK) {
		*what = "readlink";
		if ((n = e2map_inode_readlink_alloc(x->m, ino, &target)) < 0)
			return (int)n;
	} else if ((type == S_IFCHR || type == S_IFBLK) && !x->root) {
		*what = "mknod";
		return -EPERM;
	}
	for (tries = 0; tries < 2; tries++) {
		if (type == S_IFLNK)
			*what = "symlink", r = symlink(target, x->dst.s);
		else
			*what = "mknod", r = mknod(x->dst.s, type | (st->mode &
					0777), (dev_t)st->rdev);
		if (r == 0 || errno != EEXIST || unlink(x->dst.s) < 0)
			break;
	}
	free(target);
	return r < 0 ? -errno : 0;
}

/* A POSIX ACL: cp -a copies it with the mode (copy_acl), and a failure
 * to read it is an error there; any other xattr's is not. */
static bool is_acl(const char *name)
{
	return !strcmp(name, "system.posix_acl_access") ||
	       !strcmp(name, "system.posix_acl_default");
}

/* An xattr that did not come across, which cp -a passes over in silence
 * (attr_copy_fd, no error context): said, the copy still whole. */
static int xattr_warning(struct xt *x, int err, const char *what)
{
	struct e2map_extract_event ev = {
		.path = x->src, .dest = x->dst.s, .err = err, .what = what,
		.warning = 1,
	};

	return emit(x, &ev);
}

static int set_one_xattr(const struct e2map_xattr *xa, void *payload)
{
	struct xt *x = payload;

	if (xa->err == -ENODATA || xa->err == -EOPNOTSUPP)
		return 0;	/* the mount would not give it to cp either */
	if (xa->err && is_acl(xa->name)) {
		x->acl_failed = true;
		return xa->err;
	}
	if (xa->err)
		return xattr_warning(x, xa->err, "getxattr");
	if (lsetxattr(x->dst.s, xa->name, xa->value, xa->value_len, 0) < 0 &&
	    errno != ENOTSUP)
		return xattr_warning(x, -errno, "setxattr");
	return 0;
}

/*
 * -p, in cp -a's order: the two times, the owner, the xattrs (ACLs among
 * them), then the mode, so that a copy whose xattrs cannot be read keeps
 * its times and the mode it was created with, as cp leaves it.
 */
static int preserve(struct xt *x, uint64_t ino, const struct e2map_stat *st,
		    const char **what)
{
	struct timespec ts[2] = {
		{ .tv_sec = st->atime.sec, .tv_nsec = st->atime.nsec },
		{ .tv_sec = st->mtime.sec, .tv_nsec = st->mtime.nsec },
	};
	int err;

	*what = "utimensat";
	if (utimensat(AT_FDCWD, x->dst.s, ts, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	*what = "chown";
	if (lchown(x->dst.s, st->uid, st->gid) < 0 && (x->root || errno != EPERM))
		return -errno;
	x->acl_failed = false;
	if ((err = e2map_inode_xattrs(x->m, ino, set_one_xattr, x)) < 0) {
		*what = x->acl_failed ? "getxattr" : "listxattr";
		return err;
	}
	*what = "chmod";
	if (!S_ISLNK(st->mode) && chmod(x->dst.s, st->mode & 07777) < 0)
		return -errno;
	return 0;
}

/* The copy of image path PATH: DEST, then what follows the walk's start. */
static int dest_of(struct xt *x, const char *path,
		   struct e2map_pathbuf *out)
{
	const char *rest = path + x->start;

	if (out == &x->dst) {
		out->s[out->len = x->base] = '\0';
	} else {
		out->len = 0;
		if (e2map__path_push(out, x->dst.s, x->base) < 0)
			return -ENOMEM;
	}
	while (*rest == '/')
		rest++;
	return *rest ? e2map__path_push(out, rest, strlen(rest)) : 0;
}

/* A second name of a file already extracted: a hard link to it. */
static int extract_link(struct xt *x, const char *first, const char **what)
{
	*what = "link";
	if (dest_of(x, first, &x->first) < 0)
		return -ENOMEM;
	if (link(x->first.s, x->dst.s) == 0)
		return 0;
	if (errno == EEXIST && unlink(x->dst.s) == 0 &&
	    link(x->first.s, x->dst.s) == 0)
		return 0;
	return -errno;
}

/* A directory is made on the way down, set as it should be on the way up. */
static int enter_dir(struct xt *x, const struct e2map_stat *st, int err)
{
	if (!(x->flags & E2MAP_EXTRACT_RECURSIVE)) {
		report(x, st, -EISDIR, "not recursive", 0, false);
		return x->stop ? x->stop : E2MAP_SKIP;
	}
	if (err) {
		report(x, st, err, "directory loop", 0, false);
		return x->stop;
	}
	if (mkdir(x->dst.s, (st->mode & 0777) | S_IRWXU) < 0 &&
	    errno != EEXIST) {
		report(x, st, -errno, "mkdir", 0, false);
		return x->stop ? x->stop : E2MAP_SKIP;
	}
	return x->stop;
}

static int leave_dir(struct xt *x, const struct e2map_stat *st)
{
	mode_t mode = st->mode & 0777;
	const char *what = "chmod";
	int err = 0;

	if (!(x->flags & E2MAP_EXTRACT_PRESERVE) &&
	    (mode & S_IRWXU) != S_IRWXU && chmod(x->dst.s, mode & ~x->umask) < 0)
		err = -errno;
	if (!err && (x->flags & E2MAP_EXTRACT_PRESERVE))
		err = preserve(x, st->ino, st, &what);
	if (err == -ENOMEM)
		return err;
	report(x, st, err, err ? what : NULL, 0, false);
	return x->stop;
}

/*
 * Anything but a directory; a file whose copy could not be made is not
 * the target of its later names (the walk skips it).
 */
static int extract_node(struct xt *x, const struct e2map_tree_entry *e)
{
	const struct e2map_stat *st = e->st;
	const char *what = "link";
	uint64_t bytes = 0;
	bool partial = false;
	int made, err;

	if (e->first)
		made = extract_link(x, e->first, &what);
	else if (S_ISREG(st->mode))
		made = extract_file(x, e, &what, &bytes, &partial);
	else
		made = make_node(x, e->ino, st, &what);
	err = made;
	if (!err && !e->first && (x->flags & E2MAP_EXTRACT_PRESERVE))
		err = preserve(x, e->ino, st, &what);
	if (err == -ENOMEM || made == -ENOMEM)
		return -ENOMEM;
	report(x, st, err, err ? what : NULL, bytes, partial);
	return x->stop ? x->stop : made < 0 ? E2MAP_SKIP : 0;
}

static int entry(struct xt *x, const struct e2map_tree_entry *e)
{
	x->src = e->path;
	if (dest_of(x, e->path, &x->dst) < 0)
		return -ENOMEM;
	if (e->visit == E2MAP_TREE_LIST_FAILED) {
		report(x, NULL, e->err, "readdir", 0, false);
		return x->stop;
	}
	if (e->visit == E2MAP_TREE_DIR_DONE)
		return leave_dir(x, e->st);
	if (!e->st) {
		report(x, NULL, e->err, "lstat", 0, false);
		return x->stop;
	}
	if (S_ISDIR(e->st->mode))
		return enter_dir(x, e->st, e->err);
	return extract_node(x, e);
}

/* The caller's stop may be any value, E2MAP_SKIP too: the walk is told to
 * stop with one it cannot take for a skip, and e2map_extract hands back
 * the caller's. */
static int on_entry(const struct e2map_tree_entry *e, void *payload)
{
	struct xt *x = payload;
	int r = entry(x, e);

	return x->stop ? -ECANCELED : r;
}

/* DEST names the copy; an existing directory takes it under PATH's name. */
static int start_dest(struct xt *x, const char *path, const char *dest)
{
	const char *base = strrchr(path, '/');
	struct e2map_stat st = E2MAP_STAT_INIT;
	struct stat hs;
	size_t n;
	int err;

	if ((err = e2map__path_push(&x->dst, dest, strlen(dest))) < 0)
		return err;
	x->base = x->dst.len;
	if ((err = e2map_path_lstat(x->m, path, &st)) == -ENOMEM)
		return err;
	if (stat(dest, &hs) < 0 || !S_ISDIR(hs.st_mode) ||
	    (!err && st.ino == EXT2_ROOT_INO))
		return 0;
	base = base ? base + 1 : path;
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	if (n && (err = e2map__path_push(&x->dst, base, n)) < 0)
		return err;
	x->base = x->dst.len;
	return 0;
}

int e2map_extract(e2map_t *m, const char *path, const char *dest,
		  unsigned flags, e2map_extract_cb cb, void *payload)
{
	struct xt x = { .m = m, .flags = flags, .cb = cb, .payload = payload };
	int err;

	if (!m || !path || !dest || !*dest ||
	    (flags & ~(E2MAP_EXTRACT_RECURSIVE | E2MAP_EXTRACT_PRESERVE)))
		return -EINVAL;
	x.umask = umask(0);
	umask(x.umask);
	x.root = geteuid() == 0;
	x.start = strlen(path);
	if (!(x.buf = malloc(COPY_BUF)))
		return -ENOMEM;
	if ((err = start_dest(&x, path, dest)) == 0)
		err = e2map_tree_walk(m, path, on_entry, &x);
	if (x.stop)
		err = x.stop;
	free(x.buf);
	free(x.dst.s);
	free(x.first.s);
	return err ? err : (int)x.failures;
}

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
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#define COPY_BUF (1U << 20)

/* A path being built, component by component. */
struct pathbuf {
	char *s;
	size_t len, cap;
};

static int path_push(struct pathbuf *p, const char *name, size_t n)
{
	bool slash = p->len && p->s[p->len - 1] != '/';

	if (e2map__grow((void **)&p->s, &p->cap, p->len + slash + n + 1, 1) < 0)
		return -ENOMEM;
	if (slash)
		p->s[p->len++] = '/';
	memcpy(p->s + p->len, name, n);
	p->len += n;
	p->s[p->len] = '\0';
	return 0;
}

/* Inodes already extracted: hard links' first names, directories seen. */
struct seen {
	uint64_t *ino;
	char **dest;
	size_t n, cap;		/* cap: a power of two, or 0 */
};

static size_t seen_slot(const struct seen *s, uint64_t ino)
{
	size_t i = (size_t)(ino * 0x9e3779b97f4a7c15ULL) & (s->cap - 1);

	while (s->ino[i] && s->ino[i] != ino)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static const char *seen_find(const struct seen *s, uint64_t ino)
{
	return s->cap ? s->dest[seen_slot(s, ino)] : NULL;
}

static int seen_grow(struct seen *s)
{
	struct seen t = { 0 };
	size_t i, j;

	t.cap = s->cap ? 2 * s->cap : 64;
	t.ino = calloc(t.cap, sizeof(*t.ino));
	t.dest = calloc(t.cap, sizeof(*t.dest));
	if (!t.ino || !t.dest) {
		free(t.ino);
		free(t.dest);
		return -ENOMEM;
	}
	for (i = 0; i < s->cap; i++) {
		if (!s->ino[i])
			continue;
		j = seen_slot(&t, s->ino[i]);
		t.ino[j] = s->ino[i];
		t.dest[j] = s->dest[i];
	}
	t.n = s->n;
	free(s->ino);
	free(s->dest);
	*s = t;
	return 0;
}

static int seen_add(struct seen *s, uint64_t ino, const char *dest)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap && seen_grow(s) < 0)
		return -ENOMEM;
	i = seen_slot(s, ino);
	if (s->ino[i])
		return 0;
	if (!(s->dest[i] = strdup(dest)))
		return -ENOMEM;
	s->ino[i] = ino;
	s->n++;
	return 0;
}

static void seen_free(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		free(s->dest[i]);
	free(s->ino);
	free(s->dest);
}

struct xt {
	e2map_t *m;
	unsigned flags;
	e2map_extract_cb cb;
	void *payload;
	struct pathbuf src, dst;
	struct seen links, dirs;
	unsigned char *buf;
	mode_t umask;
	bool root;		/* may chown and make device nodes */
	unsigned failures;
	int stop;		/* CB's negative return: stop, return it */
};

/* Tell the caller about the entry at src/dst; CB's negative return stops
 * the walk (0 here, x->stop set: every step checks it). */
static int report(struct xt *x, const struct e2map_stat *st, int err,
		  const char *what, uint64_t bytes, bool partial)
{
	int r;

	struct e2map_extract_event ev = {
		.path = x->src.s, .dest = x->dst.s, .mode = st ? st->mode : 0,
		.bytes = bytes, .err = err, .what = what ? what : "",
		.partial = partial,
	};

	if (err)
		x->failures++;
	if (x->cb && (r = x->cb(&ev, x->payload)) < 0)
		x->stop = r;
	return 0;
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
		int64_t n = e2map_pread(f, x->buf, want, *off);

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
		if ((data = e2map_lseek(f, pos, E2MAP_SEEK_DATA)) == -ENXIO)
			break;
		if (data < 0 ||
		    (hole = e2map_lseek(f, data, E2MAP_SEEK_HOLE)) < 0) {
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

/* open(2) the destination, replacing what is there but a directory. */
static int create_file(struct xt *x, mode_t mode)
{
	int fd = open(x->dst.s, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		      O_CLOEXEC, mode & 0777);

	if (fd < 0 && errno == ELOOP && unlink(x->dst.s) == 0)
		fd = open(x->dst.s, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			  O_CLOEXEC, mode & 0777);
	return fd < 0 ? -errno : fd;
}

static int extract_file(struct xt *x, uint64_t ino,
			const struct e2map_stat *st, const char **what,
			uint64_t *done, bool *partial)
{
	e2map_file_t *f;
	int fd, err;

	if ((err = e2map_file_open_ino(x->m, ino, &f)) < 0) {
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
		if ((n = e2map_readlink_ino(x->m, ino, NULL, 0)) < 0)
			return (int)n;
		if (!(target = malloc((size_t)n + 1)))
			return -ENOMEM;
		if ((n = e2map_readlink_ino(x->m, ino, target, (size_t)n)) < 0) {
			free(target);
			return (int)n;
		}
		target[n] = '\0';
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

static int set_one_xattr(const struct e2map_xattr *xa, void *payload)
{
	struct xt *x = payload;

	if (xa->err == -ENODATA || xa->err == -EOPNOTSUPP)
		return 0;	/* the mount would not give it to cp either */
	if (xa->err)
		return report(x, NULL, xa->err, "getxattr", 0, false);
	if (lsetxattr(x->dst.s, xa->name, xa->value, xa->value_len, 0) < 0 &&
	    errno != ENOTSUP)
		return report(x, NULL, -errno, "setxattr", 0, false);
	return 0;
}

/* -p: xattrs (ACLs among them), owner, mode, then the two times. */
static int preserve(struct xt *x, uint64_t ino, const struct e2map_stat *st,
		    const char **what)
{
	struct timespec ts[2] = {
		{ .tv_sec = st->atime.sec, .tv_nsec = st->atime.nsec },
		{ .tv_sec = st->mtime.sec, .tv_nsec = st->mtime.nsec },
	};
	int err;

	if ((err = e2map_xattrs_ino(x->m, ino, set_one_xattr, x)) < 0) {
		*what = "listxattr";
		return err;
	}
	*what = "chown";
	if (lchown(x->dst.s, st->uid, st->gid) < 0 && (x->root || errno != EPERM))
		return -errno;
	*what = "chmod";
	if (!S_ISLNK(st->mode) && chmod(x->dst.s, st->mode & 07777) < 0)
		return -errno;
	*what = "utimensat";
	if (utimensat(AT_FDCWD, x->dst.s, ts, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/* One directory's entries, read before any is extracted. */
struct listing {
	struct e2map_dirent *v;
	char *names;
	size_t n, cap, nlen, ncap;
};

static int list_add(const struct e2map_dirent *de, void *payload)
{
	struct listing *l = payload;

	if ((de->len == 1 && de->name[0] == '.') ||
	    (de->len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	if (e2map__grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0 ||
	    e2map__grow((void **)&l->names, &l->ncap, l->nlen + de->len, 1) < 0)
		return -ENOMEM;
	l->v[l->n] = *de;
	l->v[l->n++].name = (const char *)(uintptr_t)l->nlen;	/* an offset */
	memcpy(l->names + l->nlen, de->name, de->len);
	l->nlen += de->len;
	return 0;
}

static int extract_node(struct xt *x, uint64_t ino, unsigned depth);

/* The entries of directory INO, each extracted under src/dst. */
static int extract_children(struct xt *x, uint64_t ino, unsigned depth)
{
	struct listing l = { 0 };
	size_t i, slen = x->src.len, dlen = x->dst.len;
	e2map_file_t *d;
	int err;

	if ((err = e2map_file_open_ino(x->m, ino, &d)) == 0) {
		err = e2map_readdir(d, list_add, &l);
		e2map_file_close(d);
	}
	if (err == -ENOMEM)
		goto out;
	if (err)
		err = report(x, NULL, err, "readdir", 0, false);
	for (i = 0; i < l.n && !err && !x->stop; i++) {
		const char *name = l.names + (uintptr_t)l.v[i].name;

		if ((err = path_push(&x->src, name, l.v[i].len)) < 0 ||
		    (err = path_push(&x->dst, name, l.v[i].len)) < 0)
			break;
		err = extract_node(x, l.v[i].ino, depth + 1);
		x->src.s[x->src.len = slen] = '\0';
		x->dst.s[x->dst.len = dlen] = '\0';
	}
out:
	free(l.v);
	free(l.names);
	return err ? err : x->stop;
}

static int extract_dir(struct xt *x, uint64_t ino, const struct e2map_stat *st,
		       unsigned depth, const char **what)
{
	mode_t mode = st->mode & 0777;
	int err;

	if (!(x->flags & E2MAP_EXTRACT_RECURSIVE)) {
		*what = "not recursive";
		return -EISDIR;
	}
	if (seen_find(&x->dirs, ino) || depth > E2MAP_PATHS_MAX_DEPTH) {
		*what = "directory loop";
		return -ELOOP;
	}
	if ((err = seen_add(&x->dirs, ino, "")) < 0)
		return err;
	*what = "mkdir";
	if (mkdir(x->dst.s, mode | S_IRWXU) < 0 && errno != EEXIST)
		return -errno;
	if ((err = extract_children(x, ino, depth)) < 0)
		return err;
	*what = "chmod";
	if (!(x->flags & E2MAP_EXTRACT_PRESERVE) && (mode & S_IRWXU) != S_IRWXU &&
	    chmod(x->dst.s, mode & ~x->umask) < 0)
		return -errno;
	return 0;
}

/* A second name of a file already extracted: a hard link to it. */
static int extract_link(struct xt *x, const char *first, const char **what)
{
	*what = "link";
	if (link(first, x->dst.s) == 0)
		return 0;
	if (errno == EEXIST && unlink(x->dst.s) == 0 &&
	    link(first, x->dst.s) == 0)
		return 0;
	return -errno;
}

static int extract_node(struct xt *x, uint64_t ino, unsigned depth)
{
	struct e2map_stat st;
	const char *what = "lstat", *first = NULL;
	uint64_t bytes = 0;
	bool partial = false, linked = false;
	int err;

	if ((err = e2map_stat_ino(x->m, ino, &st)) < 0) {
		if (err == -ENOMEM)
			return err;
		report(x, NULL, err, what, 0, false);
		return x->stop;
	}
	if (!S_ISDIR(st.mode) && st.nlink > 1)
		first = seen_find(&x->links, ino);
	if (first)
		linked = !(err = extract_link(x, first, &what));
	else if (S_ISREG(st.mode))
		err = extract_file(x, ino, &st, &what, &bytes, &partial);
	else if (S_ISDIR(st.mode))
		err = extract_dir(x, ino, &st, depth, &what);
	else
		err = make_node(x, ino, &st, &what);
	if (err == -ENOMEM || x->stop)
		return x->stop ? x->stop : err;
	if (!err && !first && st.nlink > 1 && !S_ISDIR(st.mode))
		err = seen_add(&x->links, ino, x->dst.s);
	if (!err && !linked && (x->flags & E2MAP_EXTRACT_PRESERVE))
		err = preserve(x, ino, &st, &what);
	if (err == -ENOMEM || x->stop)
		return x->stop ? x->stop : err;
	report(x, &st, err, err ? what : NULL, bytes, partial);
	return x->stop;
}

/* DEST names the copy; an existing directory takes it under PATH's name. */
static int start_paths(struct xt *x, const char *path, const char *dest,
		       bool root)
{
	const char *base = strrchr(path, '/');
	struct stat hs;
	size_t n;
	int err;

	if ((err = path_push(&x->src, path, strlen(path))) < 0 ||
	    (err = path_push(&x->dst, dest, strlen(dest))) < 0)
		return err;
	if (stat(dest, &hs) < 0 || !S_ISDIR(hs.st_mode) || root)
		return 0;
	base = base ? base + 1 : path;
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	return n ? path_push(&x->dst, base, n) : 0;
}

int e2map_extract(e2map_t *m, const char *path, const char *dest,
		  unsigned flags, e2map_extract_cb cb, void *payload)
{
	struct xt x = { .m = m, .flags = flags, .cb = cb, .payload = payload };
	struct e2map_stat st;
	int err;

	if (!m || !path || !dest || !*dest ||
	    (flags & ~(E2MAP_EXTRACT_RECURSIVE | E2MAP_EXTRACT_PRESERVE)))
		return -EINVAL;
	x.umask = umask(0);
	umask(x.umask);
	x.root = geteuid() == 0;
	if (!(x.buf = malloc(COPY_BUF)))
		return -ENOMEM;
	err = e2map_lstat(m, path, &st);
	if (err == -ENOMEM ||
	    (err = start_paths(&x, path, dest, !err && st.ino == 2)) < 0)
		goto out;
	if ((err = e2map_lstat(m, path, &st)) < 0 && err != -ENOMEM)
		err = report(&x, NULL, err, "lstat", 0, false);
	else if (!err)
		err = extract_node(&x, st.ino, 0);
out:
	free(x.buf);
	free(x.src.s);
	free(x.dst.s);
	seen_free(&x.links);
	seen_free(&x.dirs);
	return err < 0 ? err : (int)x.failures;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map tar`: PATH and what is under it as a POSIX pax archive, written
 * with libarchive, as `tar --sparse --xattrs` would archive it from the
 * kernel's mount: a file's data regions are its SEEK_DATA/SEEK_HOLE map
 * (pax sparse entries, GNU 1.0), holes and preallocated ranges stored as
 * holes; hard links as links; times with nanoseconds; xattrs (ACLs as
 * their system.posix_acl_* values).  The archive is an output format, as
 * --json is: libarchive stays in the CLI, the library gives the walk
 * (e2map_tree_walk), the map, the bytes and the xattrs.
 */
#include "cmd.h"
#include "dl.h"
#include "tar_pax.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (1U << 20)

struct tar_opts {
	const char *file;
};

struct region {
	int64_t off, len;
};

struct tar_run {
	e2map_t *m;
	const char *image, *out;
	struct archive *a;
	struct tar_pax *pax;	/* the stream A writes through */
	bool root;		/* PATH is the root: members are ./NAME */
	size_t strip;		/* PATH's bytes, left out under the root */
	char *name;		/* the member's name being built */
	size_t name_cap;
	struct region *map;
	size_t nmap, map_cap;
	unsigned char *buf;
	unsigned failures;
	int fatal;		/* the archive could not be written */
	struct cmd_progress progress;
	/* A directory met, its member held until its listing is known:
	 * GNU tar archives nothing of one it cannot list (savedir). */
	bool held;
	struct e2map_tree_entry dir;
	struct e2map_stat dir_st;
	char *dir_path;
};

/* The member's name for image path PATH ("./x" under the root). */
static const char *member(struct tar_run *t, const char *path)
{
	const char *rest = path + t->strip, *prefix;
	size_t n;

	while (*rest == '/')
		rest++;
	prefix = !t->root ? "" : *rest ? "./" : ".";
	n = strlen(prefix) + strlen(rest) + 1;
	if (cmd_grow((void **)&t->name, &t->name_cap, n, 1) < 0)
		return NULL;
	strcpy(t->name, prefix);
	strcat(t->name, rest);
	return t->name;
}

static void say(struct tar_run *t, const char *path, const char *what,
		int err, const char *warning)
{
	bool archive = !strcmp(what, "write");
	const char *detail = archive ? "" : e2map_errmsg(t->m);

	cmd_progress_end(&t->progress);
	cmd_errorf("tar: %s:%s: %s%s: %s%s%s%s", cmd_esc(t->image),
		   cmd_esc(path), warning, what, e2map_strerror(err),
		   *detail ? " (" : "", detail, *detail ? ")" : "");
}

static void failure(struct tar_run *t, const char *path, const char *what,
		    int err)
{
	t->failures++;
	say(t, path, what, err, "");
}

/* The member is archived without its xattrs: GNU tar's "Warning: Cannot
 * flistxattr", which leaves its exit status alone. */
static void xattr_warning(struct tar_run *t, const char *path,
			  const char *what, int err)
{
	say(t, path, what, err, "warning: ");
}

/* libarchive's complaint about the archive itself: the walk stops. */
static int archive_failed(struct tar_run *t, int r)
{
	if (r >= ARCHIVE_WARN)
		return 0;
	if (t->fatal)
		return t->fatal;	/* said once */
	cmd_progress_end(&t->progress);
	t->fatal = ar.archive_errno(t->a) > 0 ? -ar.archive_errno(t->a) : -EIO;
	cmd_errorf("tar: %s: %s: %s", cmd_esc(t->out),
		   ar.archive_error_string(t->a) ? ar.archive_error_string(t->a) :
		   "cannot write", e2map_strerror(t->fatal));
	return t->fatal;
}

static int add_region(struct tar_run *t, int64_t off, int64_t len)
{
	if (cmd_grow((void **)&t->map, &t->map_cap, t->nmap + 1,
		     sizeof(*t->map)) < 0)
		return -ENOMEM;
	t->map[t->nmap++] = (struct region){ off, len };
	return 0;
}

/*
 * F's data regions as tar --sparse finds them on the mount (SEEK_DATA,
 * SEEK_HOLE).  Where the map cannot be had (damaged metadata), the whole
 * file is one region: it is read as read(2) would read it.
 */
static int data_map(struct tar_run *t, e2map_file_t *f, int64_t size)
{
	int64_t pos = 0, data, hole;

	t->nmap = 0;
	while (pos < size) {
		if ((data = e2map_file_lseek(f, pos, E2MAP_SEEK_DATA)) == -ENXIO)
			break;
		if (data < 0 ||
		    (hole = e2map_file_lseek(f, data, E2MAP_SEEK_HOLE)) < 0) {
			t->nmap = 0;
			return add_region(t, 0, size);
		}
		if (add_region(t, data, hole - data) < 0)
			return -ENOMEM;
		pos = hole;
	}
	return 0;
}

/* Sparse entries, unless the file is one region of data end to end. */
static void set_sparse(struct tar_run *t, struct archive_entry *e,
		       int64_t size)
{
	size_t i;

	if (size == 0 || (t->nmap == 1 && t->map[0].off == 0 &&
			  t->map[0].len == size))
		return;
	for (i = 0; i < t->nmap; i++)
		ar.archive_entry_sparse_add_entry(e, t->map[i].off,
					       t->map[i].len);
	if (!t->nmap)	/* all hole: an empty region marks the end */
		ar.archive_entry_sparse_add_entry(e, size, 0);
}

/* LEN bytes of zeroes: libarchive drops them where the map has a hole. */
static int feed_hole(struct tar_run *t, int64_t len)
{
	static const unsigned char zero[CHUNK];

	while (len > 0) {
		size_t n = len < CHUNK ? (size_t)len : CHUNK;
		la_ssize_t w = ar.archive_write_data(t->a, zero, n);

		if (w < 0)
			return archive_failed(t, ARCHIVE_FATAL);
		len -= (int64_t)n;
	}
	return 0;
}

/* Region R's bytes; a read error ends the data (the rest is padded). */
static int feed_region(struct tar_run *t, e2map_file_t *f,
		       const struct region *r, uint64_t *done, int *rerr)
{
	int64_t pos = r->off, end = r->off + r->len;

	while (pos < end && !*rerr) {
		size_t want = end - pos < CHUNK ? (size_t)(end - pos) : CHUNK;
		int64_t n = e2map_file_pread(f, t->buf, want, pos);

		if (n <= 0) {
			*rerr = n < 0 ? (int)n : -EIO;
			break;
		}
		if (ar.archive_write_data(t->a, t->buf, (size_t)n) < 0)
			return archive_failed(t, ARCHIVE_FATAL);
		pos += n;
		*done += (uint64_t)n;
	}
	return 0;
}

static int feed_data(struct tar_run *t, e2map_file_t *f, int64_t size,
		     uint64_t *done, int *rerr)
{
	int64_t pos = 0;
	size_t i;
	int r;

	for (i = 0; i < t->nmap && !*rerr; i++) {
		if ((r = feed_hole(t, t->map[i].off - pos)) < 0 ||
		    (r = feed_region(t, f, &t->map[i], done, rerr)) < 0)
			return r;
		pos = t->map[i].off + t->map[i].len;
	}
	return *rerr ? 0 : feed_hole(t, size - pos);
}

static void set_stat(struct archive_entry *e, const struct e2map_stat *st)
{
	ar.archive_entry_set_mode(e, st->mode);
	ar.archive_entry_set_uid(e, st->uid);
	ar.archive_entry_set_gid(e, st->gid);
	ar.archive_entry_set_nlink(e, st->nlink);
	/* Their records are rewritten as GNU tar writes them (tar_pax.c):
	 * libarchive's "SEC.NSEC" is wrong before 1970. */
	ar.archive_entry_set_atime(e, (time_t)st->atime.sec, st->atime.nsec);
	ar.archive_entry_set_mtime(e, (time_t)st->mtime.sec, st->mtime.nsec);
	ar.archive_entry_set_ctime(e, (time_t)st->ctime.sec, st->ctime.nsec);
	/* no crtime: tar and cp -a on the mount keep none, and GNU tar
	 * warns at LIBARCHIVE.creationtime */
	if (S_ISCHR(st->mode) || S_ISBLK(st->mode))
		ar.archive_entry_set_rdev(e, st->rdev);
	if (S_ISREG(st->mode))
		ar.archive_entry_set_size(e, (la_int64_t)st->size);
}

struct xattr_add {
	struct tar_run *t;
	struct archive_entry *e;
	const char *path;
};

static uint32_t le(const unsigned char *p, int n)
{
	return n == 2 ? (uint32_t)(p[0] | p[1] << 8) :
	       (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
}

/*
 * A POSIX ACL (the VFS's xattr value: version 2, then 8-byte entries of
 * tag, permissions and id) as the archive's ACL, SCHILY.acl.*, not as an
 * xattr: GNU tar (--acls) and bsdtar restore ACLs from those, and GNU tar
 * archives them so.  libarchive keeps the owner, group and other entries
 * in the mode (the header's group bits are the group entry's, not the
 * mask's); the extracting tar sets the mask from the ACL after the mode.
 */
static void add_acl(struct archive_entry *e, const struct e2map_xattr *x)
{
	static const struct { unsigned vfs; int archive; } tags[] = {
		{ 0x01, ARCHIVE_ENTRY_ACL_USER_OBJ },
		{ 0x02, ARCHIVE_ENTRY_ACL_USER },
		{ 0x04, ARCHIVE_ENTRY_ACL_GROUP_OBJ },
		{ 0x08, ARCHIVE_ENTRY_ACL_GROUP },
		{ 0x10, ARCHIVE_ENTRY_ACL_MASK },
		{ 0x20, ARCHIVE_ENTRY_ACL_OTHER },
	};
	const unsigned char *v = x->value;
	int type = strcmp(x->name, "system.posix_acl_access") ?
		   ARCHIVE_ENTRY_ACL_TYPE_DEFAULT : ARCHIVE_ENTRY_ACL_TYPE_ACCESS;
	size_t at, i;

	if (x->value_len < 4 || le(v, 4) != 2)
		return;
	for (at = 4; at + 8 <= x->value_len; at += 8)
		for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
			if (le(v + at, 2) == tags[i].vfs)
				ar.archive_entry_acl_add_entry(e, type,
					(int)(le(v + at + 2, 2) & 7),
					tags[i].archive,
					(int)le(v + at + 4, 4), NULL);
}

static int add_xattr(const struct e2map_xattr *x, void *payload)
{
	struct xattr_add *xa = payload;

	if (x->err == -ENODATA || x->err == -EOPNOTSUPP)
		return 0;	/* getxattr on the mount would not give it */
	if (x->err) {
		xattr_warning(xa->t, xa->path, "getxattr", x->err);
		return 0;
	}
	if (!strncmp(x->name, "system.posix_acl_", 17))
		add_acl(xa->e, x);
	else
		ar.archive_entry_xattr_add_entry(xa->e, x->name, x->value,
					      x->value_len);
	return 0;
}

/* open(2) as GNU tar's of the name on the mount: with its directory's
 * encryption policy (a file not encrypted in an encrypted one: EPERM). */
static int open_member(struct tar_run *t, const struct e2map_tree_entry *te,
		       e2map_file_t **f)
{
	return te->parent ? e2map_file_open_child(t->m, te->parent, te->ino, f)
			  : e2map_file_open_ino(t->m, te->ino, f);
}

static int set_symlink(struct tar_run *t, struct archive_entry *e,
		       uint64_t ino)
{
	char *target;
	int64_t n = e2map_inode_readlink_alloc(t->m, ino, &target);

	if (n >= 0)
		ar.archive_entry_set_symlink(e, target);
	e2map_free(target);
	return n < 0 ? (int)n : 0;
}

/* Everything the header holds; WHAT names the step that failed. */
static int fill_entry(struct tar_run *t, const struct e2map_tree_entry *te,
		      struct archive_entry *e, e2map_file_t **f,
		      const char **what)
{
	const struct e2map_stat *st = te->st;
	struct xattr_add xa = { t, e, te->path };
	const char *name = member(t, te->path);
	int err = 0;

	if (!name)
		return -ENOMEM;
	ar.archive_entry_copy_pathname(e, name);
	set_stat(e, st);
	if (te->first) {
		if (!(name = member(t, te->first)))
			return -ENOMEM;
		ar.archive_entry_copy_hardlink(e, name);
		ar.archive_entry_set_size(e, 0);
		return 0;
	}
	if (S_ISLNK(st->mode) && (err = set_symlink(t, e, te->ino)) < 0)
		*what = "readlink";
	else if (S_ISREG(st->mode) &&
		 (err = open_member(t, te, f)) < 0)
		*what = "open";
	else if (S_ISREG(st->mode) &&
		 (err = data_map(t, *f, (int64_t)st->size)) == 0)
		set_sparse(t, e, (int64_t)st->size);
	if (err)
		return err;
	if ((err = e2map_inode_xattrs(t->m, te->ino, add_xattr, &xa)) < 0)
		xattr_warning(t, te->path, "listxattr", err);
	return err == -ENOMEM ? err : 0;
}

/* One entry into the archive: header, then a regular file's data. */
static int add_entry(struct tar_run *t, const struct e2map_tree_entry *te)
{
	struct archive_entry *e = ar.archive_entry_new();
	e2map_file_t *f = NULL;
	const char *what = "";
	uint64_t done = 0;
	int rerr = 0, err;

	if (!e)
		return -ENOMEM;
	err = fill_entry(t, te, e, &f, &what);
	if (err == 0)
		tar_pax_next(t->pax, te->st);
	if (err == 0 && (err = archive_failed(t, ar.archive_write_header(t->a,
								     e))) == 0
	    && f)
		err = feed_data(t, f, (int64_t)te->st->size, &done, &rerr);
	if (err == 0)
		err = archive_failed(t, ar.archive_write_finish_entry(t->a));
	e2map_file_close(f);
	ar.archive_entry_free(e);
	if (err && err != -ENOMEM && !t->fatal)
		failure(t, te->path, what, err);
	if (rerr) {
		failure(t, te->path, "read", rerr);
		cmd_errorf("tar: %s:%s: member padded with zeroes after the "
			   "%llu bytes read", cmd_esc(t->image),
			   cmd_esc(te->path), (unsigned long long)done);
	}
	cmd_progress_add(&t->progress, 1, done);
	if (t->fatal)
		return t->fatal;
	if (err == -ENOMEM)
		return err;
	/* A member left out: the walk goes on, but not into a directory
	 * with no header (the tree walk stops at any other non-zero). */
	return err && S_ISDIR(te->st->mode) ? E2MAP_SKIP : 0;
}

/* Directory TE, met: held until what follows it says it could be listed. */
static int hold(struct tar_run *t, const struct e2map_tree_entry *te)
{
	free(t->dir_path);
	if (!(t->dir_path = strdup(te->path)))
		return -ENOMEM;
	t->dir = *te;
	t->dir_st = *te->st;
	t->dir.path = t->dir_path;
	t->dir.st = &t->dir_st;
	t->held = true;
	return 0;
}

/* The held directory's member, now that its listing worked. */
static int release(struct tar_run *t)
{
	if (!t->held)
		return 0;
	t->held = false;
	return add_entry(t, &t->dir);
}

static int on_entry(const struct e2map_tree_entry *te, void *payload)
{
	struct tar_run *t = payload;
	int r;

	if (t->held && te->visit == E2MAP_TREE_LIST_FAILED &&
	    te->ino == t->dir.ino && !strcmp(te->path, t->dir.path))
		t->held = false;	/* left out, as GNU tar leaves it */
	else if ((r = release(t)) != 0 && r != E2MAP_SKIP)
		return r;	/* a failed header was said; its entries go on */
	if (te->visit == E2MAP_TREE_DIR_DONE)
		return 0;
	if (te->visit == E2MAP_TREE_LIST_FAILED || !te->st) {
		failure(t, te->path, te->st ? "readdir" : "lstat", te->err);
		return 0;
	}
	if (te->err) {		/* a directory met again: a damaged tree */
		failure(t, te->path, "directory loop", te->err);
		return E2MAP_SKIP;
	}
	if (S_ISSOCK(te->st->mode)) {
		/* pax has no sockets; GNU tar says so and goes on */
		cmd_progress_end(&t->progress);
		cmd_errorf("tar: %s:%s: socket ignored", cmd_esc(t->image),
			   cmd_esc(te->path));
		return 0;
	}
	return S_ISDIR(te->st->mode) ? hold(t, te) : add_entry(t, te);
}

static const struct cmd_option tar_options[] = {
	{ .short_name = 'f', .long_name = "file", .arg = "ARCHIVE",
	  .action = CMD_OPT_STRING, .field = offsetof(struct tar_opts, file),
	  .help = "write the archive to ARCHIVE, not to stdout (- is stdout)" },
	CMD_OPT_QUIET,
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec tar_spec = {
	.options = tar_options,
	.operands = "IMAGE [PATH]",
	.min_operands = 1,
	.max_operands = 2,
	.about =
"Writes PATH (default /) and everything under it as a POSIX pax archive,\n"
"as tar --sparse --xattrs archives it from the mounted image: files keep\n"
"their holes and preallocated ranges as holes (pax sparse entries, GNU\n"
"format 1.0), hard links are links, times have nanoseconds, xattrs and\n"
"ACLs are kept.  Members under / are named ./NAME, under another PATH by\n"
"that path without its leading slash.  GNU tar and bsdtar extract it.\n"
"An entry that fails is named on stderr (a file whose read fails is\n"
"padded with zeroes after the bytes read, as GNU tar pads it), the walk\n"
"goes on, and the exit status is 1.  The image is never written.\n"
"\n"
"Examples:\n"
"  e2map tar evidence.img > evidence.tar\n"
"  e2map tar -f home.tar evidence.img /home\n",
	.opts_size = sizeof(struct tar_opts),
};

static int open_archive(struct tar_run *t, const char *file)
{
	int fd = 1;

	if (file && !strcmp(file, "-"))
		file = NULL;	/* GNU tar's and bsdtar's stdout */
	if (!file && isatty(1)) {
		cmd_errorf("tar: refusing to write an archive to a terminal "
			   "(redirect stdout, or -f ARCHIVE)");
		return -1;
	}
	if (file && (fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			       0666)) < 0) {
		cmd_fail(cmd_esc(file), -errno, NULL);
		return -1;
	}
	t->out = file ? file : "stdout";
	if (!(t->a = ar.archive_write_new()) ||
	    ar.archive_write_set_format_pax(t->a) != ARCHIVE_OK ||
	    ar.archive_write_set_format_option(t->a, "pax", "xattrheader",
					    "SCHILY") != ARCHIVE_OK ||
	    tar_pax_open(t->a, fd, &t->pax) < 0) {
		if (t->a)
			archive_failed(t, ARCHIVE_FATAL);
		else
			cmd_fail("tar", -ENOMEM, NULL);
		if (file)
			close(fd);
		return -1;
	}
	return fd;
}

static int finish(struct tar_run *t, int fd, bool own, int walked)
{
	int status = 0;

	if (walked < 0 && !t->fatal)
		status = cmd_fail("tar", walked, NULL);
	if (archive_failed(t, ar.archive_write_close(t->a)) < 0)
		status = CMD_EXIT_FAIL;
	if (own && close(fd) < 0)
		status = cmd_fail(cmd_esc(t->out), -errno, NULL);
	ar.archive_write_free(t->a);
	return t->fatal || t->failures ? CMD_EXIT_FAIL : status;
}

int cmd_tar(struct cmd_ctx *ctx)
{
	const struct tar_opts *o = ctx->opts;
	const char *path = ctx->ops.n > 1 ? ctx->ops.v[1] : "/";
	struct tar_run t = { .m = ctx->m, .image = ctx->image };
	int status, fd, r;

	if ((status = cmd_dl_load(&cmd_dl_archive, "tar")))
		return status;
	t.root = !path[strspn(path, "/")];
	t.strip = t.root ? strlen(path) : 0;
	if (!(t.buf = malloc(CHUNK)) || (fd = open_archive(&t, o->file)) < 0) {
		status = t.buf ? CMD_EXIT_FAIL : cmd_fail("tar", -ENOMEM, NULL);
		goto out;
	}
	cmd_progress_inodes(&t.progress, t.m, "tar", "files", path,
			    ctx->co.quiet, false);
	r = e2map_tree_walk(t.m, path, on_entry, &t);
	if (r == 0 && (r = release(&t)) == E2MAP_SKIP)
		r = 0;
	cmd_progress_end(&t.progress);
	status = finish(&t, fd, o->file != NULL, r);
out:
	free(t.dir_path);
	free(t.buf);
	free(t.name);
	free(t.map);
	return status;
}

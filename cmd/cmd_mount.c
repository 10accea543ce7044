/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map mount`: the image as a read-only FUSE filesystem (libfuse3's
 * low-level API), every answer the library's: lookup, stat with real
 * inode numbers and nanosecond times, readdir in getdents order,
 * readlink, xattrs (system.data hidden), read, and SEEK_DATA/SEEK_HOLE
 * through FUSE's lseek with the kernel-identical answers of e2map_lseek.
 * The FUSE mount is read-only, so the kernel answers EROFS to every write
 * before it reaches us.  Node ids are inode numbers, but the root's: FUSE
 * calls it 1.  The image never changes under us, so the kernel may keep
 * attributes, names and pages as long as it likes.
 */
#define FUSE_USE_VERSION 35
#include "cmd.h"
#include "dl.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define FOREVER 86400.0		/* seconds the kernel may cache an answer */
#define ROOT_INO 2

struct mount_opts {
	bool foreground;
	const char *options;
};

static e2map_t *image;

/*
 * The directory each node was last named in (lookup, readdirplus): open(2)
 * on the kernel's mount checks the opened dentry's parent's encryption
 * policy, and FUSE hands the server only the node.  A node named in two
 * directories (hard links) opens as in the last.  Open addressing by
 * node; the loop is single-threaded.
 */
struct parents {
	uint64_t *node, *dir;
	size_t n, cap;
};
static struct parents parents;

static size_t parent_slot(const struct parents *p, uint64_t node)
{
	size_t i = (size_t)(node * 0x9e3779b97f4a7c15ULL) & (p->cap - 1);

	while (p->node[i] && p->node[i] != node)
		i = (i + 1) & (p->cap - 1);
	return i;
}

static void parents_grow(struct parents *p)
{
	struct parents old = *p;
	size_t cap = old.cap ? 2 * old.cap : 1024;

	p->node = calloc(cap, sizeof(*p->node));
	p->dir = calloc(cap, sizeof(*p->dir));
	if (!p->node || !p->dir) {
		free(p->node);
		free(p->dir);
		*p = old;	/* keeps what it had: an open then checks less */
		return;
	}
	p->cap = cap;
	p->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.node[i]) {
			size_t s = parent_slot(p, old.node[i]);

			p->node[s] = old.node[i];
			p->dir[s] = old.dir[i];
			p->n++;
		}
	free(old.node);
	free(old.dir);
}

static void parent_set(uint64_t node, uint64_t dir)
{
	size_t s;

	if (2 * (parents.n + 1) > parents.cap)
		parents_grow(&parents);
	if (2 * (parents.n + 1) > parents.cap)
		return;
	s = parent_slot(&parents, node);
	parents.n += !parents.node[s];
	parents.node[s] = node;
	parents.dir[s] = dir;
}

/* The directory NODE was named in, or 0 (the root, or never named). */
static uint64_t parent_of(uint64_t node)
{
	size_t s;

	if (!parents.cap)
		return 0;
	s = parent_slot(&parents, node);
	return parents.node[s] ? parents.dir[s] : 0;
}

static uint64_t to_ino(fuse_ino_t n)
{
	return n == FUSE_ROOT_ID ? ROOT_INO : (uint64_t)n;
}

static fuse_ino_t to_node(uint64_t ino)
{
	return ino == ROOT_INO ? FUSE_ROOT_ID : (fuse_ino_t)ino;
}

static void to_stat(const struct e2map_stat *s, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = (ino_t)s->ino;
	st->st_mode = s->mode;
	st->st_nlink = s->nlink;
	st->st_uid = s->uid;
	st->st_gid = s->gid;
	st->st_rdev = (dev_t)s->rdev;
	st->st_size = (off_t)s->size;
	st->st_blksize = s->blksize;
	st->st_blocks = (blkcnt_t)s->blocks;
	st->st_atim = (struct timespec){ s->atime.sec, s->atime.nsec };
	st->st_mtim = (struct timespec){ s->mtime.sec, s->mtime.nsec };
	st->st_ctim = (struct timespec){ s->ctime.sec, s->ctime.nsec };
}

static void reply_err(fuse_req_t req, int err)
{
	fu.fuse_reply_err(req, err < 0 ? -err : EIO);
}

/*
 * Always readdirplus: the kernel's adaptive mode drops to plain readdir
 * when the first entries' attributes go unused, and a walk that stats
 * every name then costs a LOOKUP round trip per name.
 */
static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = {
		.attr_timeout = FOREVER, .entry_timeout = FOREVER,
	};
	struct e2map_stat s = E2MAP_STAT_INIT;
	uint64_t ino;
	int err = e2map_inode_lookup(image, to_ino(parent), name, strlen(name),
				     &ino);

	if (err == -ENOENT) {	/* a negative entry, cached as long */
		fu.fuse_reply_entry(req, &e);
		return;
	}
	if (err == 0 && (err = e2map_inode_stat(image, ino, &s)) == 0) {
		parent_set(ino, to_ino(parent));
		e.ino = to_node(ino);
		to_stat(&s, &e.attr);
		fu.fuse_reply_entry(req, &e);
		return;
	}
	reply_err(req, err);
}

static void op_getattr(fuse_req_t req, fuse_ino_t node,
		       struct fuse_file_info *fi)
{
	struct e2map_stat s = E2MAP_STAT_INIT;
	struct stat st;
	int err = e2map_inode_stat(image, to_ino(node), &s);

	(void)fi;
	if (err < 0)
		{ reply_err(req, err); return; }
	to_stat(&s, &st);
	fu.fuse_reply_attr(req, &st, FOREVER);
}

static void op_readlink(fuse_req_t req, fuse_ino_t node)
{
	char *target;
	int64_t n = e2map_inode_readlink_alloc(image, to_ino(node), &target);

	if (n < 0)
		reply_err(req, (int)n);
	else
		fu.fuse_reply_readlink(req, target);
	e2map_free(target);
}

static void op_open(fuse_req_t req, fuse_ino_t node, struct fuse_file_info *fi)
{
	e2map_file_t *f;
	uint64_t dir;
	int err;

	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		{ reply_err(req, -EROFS); return; }
	dir = parent_of(to_ino(node));
	err = dir ? e2map_file_open_child(image, dir, to_ino(node), &f) :
		    e2map_file_open_ino(image, to_ino(node), &f);
	if (err < 0)
		{ reply_err(req, err); return; }
	fi->fh = (uintptr_t)f;
	fi->keep_cache = 1;
	fu.fuse_reply_open(req, fi);
}

/*
 * A read is whole or fails: FUSE takes a short reply for the end of the
 * file and would cut i_size there.  The kernel then asks page by page,
 * so read(2) returns the pages before the damage, as on the mount.
 */
static void op_read(fuse_req_t req, fuse_ino_t node, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	e2map_file_t *f = (e2map_file_t *)(uintptr_t)fi->fh;
	char *buf = malloc(size ? size : 1);
	size_t done = 0;
	int64_t n = 0;

	(void)node;
	if (!buf)
		{ reply_err(req, -ENOMEM); return; }
	while (done < size &&
	       (n = e2map_file_pread(f, buf + done, size - done,
				     off + (off_t)done)) > 0)
		done += (size_t)n;
	if (n < 0)
		reply_err(req, (int)n);
	else
		fu.fuse_reply_buf(req, buf, done);
	free(buf);
}

static void op_release(fuse_req_t req, fuse_ino_t node,
		       struct fuse_file_info *fi)
{
	(void)node;
	e2map_file_close((e2map_file_t *)(uintptr_t)fi->fh);
	fu.fuse_reply_err(req, 0);
}

static void op_lseek(fuse_req_t req, fuse_ino_t node, off_t off, int whence,
		     struct fuse_file_info *fi)
{
	int64_t r = e2map_file_lseek((e2map_file_t *)(uintptr_t)fi->fh, off, whence);

	(void)node;
	if (r < 0)
		{ reply_err(req, (int)r); return; }
	fu.fuse_reply_lseek(req, (off_t)r);
}

/* A directory's listing, read whole at opendir, as getdents gives it. */
static void op_opendir(fuse_req_t req, fuse_ino_t node,
		       struct fuse_file_info *fi)
{
	struct e2map_dirlist *l = NULL;
	e2map_file_t *d;
	int err;

	if ((err = e2map_file_open_ino(image, to_ino(node), &d)) < 0)
		{ reply_err(req, err); return; }
	err = e2map_dirlist_read(d, &l);
	e2map_file_close(d);
	if (!err && l->count == 0 && l->err < 0)
		err = l->err;
	if (err < 0) {
		e2map_dirlist_free(l);
		{ reply_err(req, err); return; }
	}
	fi->fh = (uintptr_t)l;
	fi->keep_cache = 1;
	fi->cache_readdir = 1;
	fu.fuse_reply_open(req, fi);
}

/* One entry of L, directory DIR's listing, at buffer BUF: the bytes it
 * takes (more than SIZE: none). */
typedef size_t (*add_entry_fn)(fuse_req_t req, char *buf, size_t size,
			       uint64_t dir, const struct e2map_dirlist *l,
			       size_t i);

static size_t add_plain(fuse_req_t req, char *buf, size_t size, uint64_t dir,
			const struct e2map_dirlist *l, size_t i)
{
	struct stat st = { .st_ino = (ino_t)l->entries[i].ino,
			   .st_mode = (mode_t)l->entries[i].type << 12 };

	(void)dir;
	return fu.fuse_add_direntry(req, buf, size, l->entries[i].name, &st,
				 (off_t)i + 1);
}

/* The entries from OFF on that fit in SIZE; getdents' error at the end. */
static void reply_listing(fuse_req_t req, fuse_ino_t node, size_t size,
			  off_t off, struct fuse_file_info *fi, add_entry_fn add)
{
	struct e2map_dirlist *l = (struct e2map_dirlist *)(uintptr_t)fi->fh;
	char *buf = malloc(size);
	size_t at = 0, i, n;

	if (!buf) {
		reply_err(req, -ENOMEM);
		return;
	}
	for (i = (size_t)off; i < l->count; i++) {
		if ((n = add(req, buf + at, size - at, to_ino(node), l, i)) >
		    size - at)
			break;
		at += n;
	}
	if (at == 0 && i >= l->count && l->err < 0)
		reply_err(req, l->err);
	else
		fu.fuse_reply_buf(req, buf, at);
	free(buf);
}

static void op_readdir(fuse_req_t req, fuse_ino_t node, size_t size,
		       off_t off, struct fuse_file_info *fi)
{
	reply_listing(req, node, size, off, fi, add_plain);
}

/*
 * readdir with each entry's lookup done too: a walk that stats what it
 * lists (find, ls -l, du) needs no LOOKUP round trip per name.  The
 * kernel takes an entry with attributes as looked up, so an entry gets
 * them only where ext4_lookup of its name reaches its inode and that
 * inode can be read; any other (the htree probe misses the name, another
 * encryption policy, a twin of a damaged directory, an inode that fails)
 * is listed without (node id 0), and the kernel looks it up by name and
 * gets lookup's answer.  A directory above the entry is the FUSE client's
 * own ELOOP (d_splice_alias), as on the kernel's mount.
 */
static size_t add_plus(fuse_req_t req, char *buf, size_t size, uint64_t dir,
		       const struct e2map_dirlist *l, size_t i)
{
	const struct e2map_dirent *de = &l->entries[i];
	const char *name = de->name;
	struct fuse_entry_param e = {
		.attr_timeout = FOREVER, .entry_timeout = FOREVER,
	};
	struct e2map_stat s = E2MAP_STAT_INIT;
	bool dots = !strcmp(name, ".") || !strcmp(name, "..");
	uint64_t ino = 0;

	if (!dots && e2map_inode_lookup(image, dir, name, de->len, &ino) == 0 &&
	    ino == de->ino && e2map_inode_stat(image, de->ino, &s) == 0) {
		parent_set(de->ino, dir);
		e.ino = to_node(de->ino);
		to_stat(&s, &e.attr);
	} else {
		e.attr.st_ino = (ino_t)de->ino;
		e.attr.st_mode = (mode_t)de->type << 12;
	}
	return fu.fuse_add_direntry_plus(req, buf, size, name, &e, (off_t)i + 1);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t node, size_t size,
			   off_t off, struct fuse_file_info *fi)
{
	reply_listing(req, node, size, off, fi, add_plus);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t node,
			  struct fuse_file_info *fi)
{
	(void)node;
	e2map_dirlist_free((struct e2map_dirlist *)(uintptr_t)fi->fh);
	fu.fuse_reply_err(req, 0);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t node, const char *name,
			size_t size)
{
	char *buf = size ? malloc(size) : NULL;
	int64_t n;

	if (size && !buf)
		{ reply_err(req, -ENOMEM); return; }
	n = e2map_inode_getxattr(image, to_ino(node), name, buf, size);
	if (n < 0)
		reply_err(req, (int)n);
	else if (size == 0)
		fu.fuse_reply_xattr(req, (size_t)n);
	else
		fu.fuse_reply_buf(req, buf, (size_t)n);
	free(buf);
}

struct names {
	char *s;
	size_t len, cap;
};

static int add_name(const struct e2map_xattr *x, void *payload)
{
	struct names *n = payload;

	if (cmd_grow((void **)&n->s, &n->cap, n->len + x->name_len + 1, 1) < 0)
		return -ENOMEM;
	memcpy(n->s + n->len, x->name, x->name_len + 1);
	n->len += x->name_len + 1;
	return 0;
}

static void op_listxattr(fuse_req_t req, fuse_ino_t node, size_t size)
{
	struct names n = { 0 };
	int err = e2map_inode_xattrs(image, to_ino(node), add_name, &n);

	if (err < 0)
		reply_err(req, err);
	else if (size == 0)
		fu.fuse_reply_xattr(req, n.len);
	else if (n.len > size)
		reply_err(req, -ERANGE);
	else
		fu.fuse_reply_buf(req, n.s, n.len);
	free(n.s);
}

static void op_statfs(fuse_req_t req, fuse_ino_t node)
{
	struct e2map_statfs s = E2MAP_STATFS_INIT;
	struct statvfs v = { 0 };
	int err = e2map_statfs(image, &s);

	(void)node;
	if (err < 0)
		{ reply_err(req, err); return; }
	v.f_bsize = v.f_frsize = s.bsize;
	v.f_blocks = s.blocks;
	v.f_bfree = s.bfree;	/* as the kernel's read-only mount says */
	v.f_bavail = s.bavail;
	v.f_files = s.files;
	v.f_ffree = v.f_favail = s.ffree;
	v.f_namemax = s.namelen;
	fu.fuse_reply_statfs(req, &v);
}

static const struct fuse_lowlevel_ops ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.readlink = op_readlink,
	.open = op_open,
	.read = op_read,
	.release = op_release,
	.lseek = op_lseek,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.releasedir = op_releasedir,
	.getxattr = op_getxattr,
	.listxattr = op_listxattr,
	.statfs = op_statfs,
};

static const struct cmd_option mount_options[] = {
	{ .short_name = 'f', .long_name = "foreground",
	  .action = CMD_OPT_TRUE,
	  .field = offsetof(struct mount_opts, foreground),
	  .help = "stay in the foreground (until unmounted)" },
	{ .short_name = 'o', .arg = "OPTIONS", .action = CMD_OPT_STRING,
	  .field = offsetof(struct mount_opts, options),
	  .help = "FUSE mount options (allow_other, ...); always ro" },
	CMD_OPT_OFFSET,
	CMD_OPT_PARTITION,
	CMD_OPT_REPLAY,
	CMD_OPT_UNMOUNTABLE,
	CMD_OPT_END,
};

const struct cmd_spec mount_spec = {
	.options = mount_options,
	.operands = "IMAGE DIR",
	.min_operands = 2,
	.max_operands = 2,
	.about =
"Mounts the image read-only on DIR through FUSE, answering every call from\n"
"the image as the kernel's ro,noload mount would: stat with real inode\n"
"numbers and nanosecond times, directories in getdents order, symlinks,\n"
"xattrs (system.data hidden), reads, and SEEK_DATA/SEEK_HOLE (so cp,\n"
"tar --sparse and rsync -S keep holes).  Writes fail with EROFS; the\n"
"image is never written.  Runs in the background once mounted (-f: in\n"
"the foreground); unmount with fusermount3 -u DIR.\n"
"\n"
"Examples:\n"
"  e2map mount evidence.img /mnt/evidence\n"
"  e2map mount -o allow_other --partition 2 disk.E01 /mnt/p2\n",
	.opts_size = sizeof(struct mount_opts),
};

/* "ro,default_permissions,fsname=e2map,subtype=e2map[,OPTIONS]" */
static char *mount_option_string(const char *extra)
{
	static const char base[] =
		"ro,default_permissions,fsname=e2map,subtype=e2map";
	size_t n = sizeof(base) + (extra ? strlen(extra) + 1 : 0);
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s%s", base, extra ? "," : "",
			 extra ? extra : "");
	return s;
}

/* The loop's end: a signal that asks to unmount (Ctrl-C, kill, the
 * terminal gone) is the normal end, as an unmount by fusermount3 -u. */
static int loop_status(int r)
{
	return r == 0 || r == SIGINT || r == SIGTERM || r == SIGHUP ?
	       0 : CMD_EXIT_FAIL;
}

/*
 * DIR made absolute, so that the unmount at the end finds it after the
 * daemon has left the working directory; and refused where mount(8)
 * would be: not a directory, or a dead FUSE mount (its statfs fails with
 * ENOTCONN: a stat may still answer from the attributes the kernel
 * keeps), which mounting again would only hide.
 */
static int mount_point(const char *dir, char abs[PATH_MAX])
{
	char what[PATH_MAX + 16];
	struct statfs sf;
	struct stat st;
	int err = 0;

	if (!realpath(dir, abs) || stat(abs, &st) < 0 || statfs(abs, &sf) < 0)
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	if (!err)
		return 0;
	snprintf(what, sizeof(what), "mount: %s", cmd_esc(dir));
	return cmd_fail(what, err, err == -ENOTCONN ?
			"a dead FUSE mount: fusermount3 -u it first" : NULL);
}

static int serve(const struct mount_opts *o, const char *dir)
{
	char *opts = mount_option_string(o->options);
	char *argv[] = { "e2map", "-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_session *se;
	int status = CMD_EXIT_FAIL;

	if (!opts)
		return cmd_fail("mount", -ENOMEM, NULL);
	se = fu.fuse_session_new(&args, &ops, sizeof(ops), NULL);
	/* The handlers first: a signal once the mount is there unmounts it. */
	if (!se || fu.fuse_set_signal_handlers(se) != 0) {
		cmd_errorf("mount: bad options '%s'", cmd_esc(opts));
	} else if (fu.fuse_session_mount(se, dir) != 0) {
		cmd_errorf("mount: %s: cannot mount (is /dev/fuse there, "
			   "and fusermount3?)", cmd_esc(dir));
	} else {
		if (fu.fuse_daemonize(o->foreground) == 0)
			status = loop_status(fu.fuse_session_loop(se));
		fu.fuse_session_unmount(se);
	}
	if (se) {
		fu.fuse_remove_signal_handlers(se);
		fu.fuse_session_destroy(se);
	}
	fu.fuse_opt_free_args(&args);
	free(opts);
	free(parents.node);
	free(parents.dir);
	parents = (struct parents){ 0 };
	return status;
}

/* The FUSE callbacks answer from IMAGE, the dispatcher's open image. */
int cmd_mount(struct cmd_ctx *ctx)
{
	char dir[PATH_MAX];
	int status;

	image = ctx->m;
	if ((status = cmd_dl_load(&cmd_dl_fuse, "mount")) ||
	    (status = mount_point(ctx->ops.v[1], dir)))
		return status;
	return serve(ctx->opts, dir);
}

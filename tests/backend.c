/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The two backends of the .calls format: the kernel (a mounted tree, or a
 * fresh read-only loop mount per open) and libe2map (an image), and the
 * execution of one call against either.
 */
#include "calls.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/mount.h>
#include <linux/fs.h>
#include <linux/fiemap.h>
#include <linux/loop.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

#include "e2map.h"

/* ---- backends ---- */

enum backend_kind { BK_KERNEL, BK_REMOUNT, BK_E2MAP };

struct calls_backend {
	enum backend_kind kind;
	char root[CALLS_PATH_MAX];	/* kernel: mount dir */
	char img[CALLS_PATH_MAX];	/* remount: image */
	bool mounted;
	int noload;			/* remount: -1 undecided, 0, 1 */
	bool safe_errors;		/* image asks errors=panic */
	bool use_syscalls;		/* remount: mount(2) worked */
	char fstype[16];		/* remount: blkid's type */
	bool have;			/* an open succeeded */
	bool opened;			/* an open happened */
	int fd;
	e2map_t *m;
	e2map_file_t *f;
};

static int run_quiet(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void kernel_close(struct calls_backend *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

static int do_umount(struct calls_backend *b)
{
	char *argv[] = { "umount", b->root, NULL };

	kernel_close(b);
	if (!b->mounted)
		return 0;
	if (b->use_syscalls ? umount2(b->root, 0) < 0 : run_quiet(argv) != 0)
		return -1;
	b->mounted = false;
	return 0;
}

/*
 * What mount -o loop,ro does, in-process (ten times faster than running
 * mount(8)): a read-only autoclear loop device over the image opened
 * read-only, then mount(2) with blkid's filesystem type.  -errno.
 */
static int sys_mount(struct calls_backend *b, const char *data)
{
	struct loop_config cfg;
	char dev[64];
	int tries, err = -EBUSY;

	for (tries = 0; tries < 20 && err == -EBUSY; tries++) {
		int ctl, n, lfd, ifd;

		ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
		if (ctl < 0)
			return -errno;
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		close(ctl);
		if (n < 0)
			return -errno;
		snprintf(dev, sizeof(dev), "/dev/loop%d", n);
		lfd = open(dev, O_RDONLY | O_CLOEXEC);
		if (lfd < 0)
			return -errno;
		ifd = open(b->img, O_RDONLY | O_CLOEXEC);
		if (ifd < 0) {
			err = -errno;
			close(lfd);
			return err;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)ifd;
		cfg.info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR;
		err = ioctl(lfd, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
		close(ifd);
		if (err == 0) {
			/* The device goes away with the mount (autoclear). */
			err = mount(dev, b->root, b->fstype, MS_RDONLY, data) < 0
				      ? -errno : 0;
			if (err < 0)
				ioctl(lfd, LOOP_CLR_FD, 0);
		}
		close(lfd);
	}
	return err;
}

static int try_mount(struct calls_backend *b, bool noload)
{
	char opts[128], data[64];
	char *argv[] = { "mount", "-o", opts, b->img, b->root, NULL };

	snprintf(data, sizeof(data), "%s%s", noload ? "noload" : "",
		 b->safe_errors ? (noload ? ",errors=remount-ro"
					  : "errors=remount-ro") : "");
	if (b->use_syscalls)
		return sys_mount(b, data) == 0 ? 0 : -1;
	snprintf(opts, sizeof(opts), "loop,ro%s%s", data[0] ? "," : "", data);
	return run_quiet(argv) == 0 ? 0 : -1;
}

static int do_mount(struct calls_backend *b)
{
	if (b->noload < 0) {
		if (try_mount(b, true) == 0)
			b->noload = 1;
		else if (try_mount(b, false) == 0)
			b->noload = 0;
		else
			return -1;
	} else if (try_mount(b, b->noload == 1) < 0) {
		return -1;
	}
	b->mounted = true;
	return 0;
}

/* The type mount(8) would pass: blkid's probe of the image. */
static void probe_fstype(struct calls_backend *b)
{
	char cmd[CALLS_PATH_MAX + 64], *q;
	FILE *p;

	snprintf(b->fstype, sizeof(b->fstype), "ext4");
	if (strchr(b->img, '\''))
		return;
	snprintf(cmd, sizeof(cmd), "blkid -p -o value -s TYPE '%s' 2>/dev/null",
		 b->img);
	p = popen(cmd, "r");
	if (!p)
		return;
	if (fgets(cmd, sizeof(cmd), p) && strncmp(cmd, "ext", 3) == 0) {
		if ((q = strchr(cmd, '\n')) != NULL)
			*q = '\0';
		if (strlen(cmd) < sizeof(b->fstype))
			memcpy(b->fstype, cmd, strlen(cmd) + 1);
	}
	pclose(p);
}

/*
 * An image whose superblock says errors=panic would panic this machine on
 * the first corruption the kernel meets; on a read-only mount
 * errors=remount-ro answers the same without that risk.
 */
static bool image_wants_panic(const char *img)
{
	unsigned char sb[1024];
	int fd = open(img, O_RDONLY);
	bool panic = false;

	if (fd < 0)
		return false;
	if (pread(fd, sb, sizeof(sb), 1024) == (ssize_t)sizeof(sb) &&
	    sb[0x38] == 0x53 && sb[0x39] == 0xef) {
		char mopts[65];

		memcpy(mopts, sb + 0x200, 64);
		mopts[64] = '\0';
		panic = (sb[0x3c] | sb[0x3d] << 8) == 3 ||
			strstr(mopts, "errors=panic") != NULL;
	}
	close(fd);
	return panic;
}

static struct calls_backend *backend_alloc(enum backend_kind kind)
{
	struct calls_backend *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->kind = kind;
	b->fd = -1;
	b->noload = -1;
	return b;
}

int calls_kernel_new(const char *root, struct calls_backend **out)
{
	struct calls_backend *b = backend_alloc(BK_KERNEL);

	*out = NULL;
	if (!b)
		return -ENOMEM;
	snprintf(b->root, sizeof(b->root), "%s", root);
	*out = b;
	return 0;
}

int calls_kernel_remount_new(const char *img, const char *mnt,
			     struct calls_backend **out)
{
	struct calls_backend *b = backend_alloc(BK_REMOUNT);

	*out = NULL;
	if (!b)
		return -ENOMEM;
	snprintf(b->root, sizeof(b->root), "%s", mnt);
	snprintf(b->img, sizeof(b->img), "%s", img);
	b->safe_errors = image_wants_panic(img);
	if (b->safe_errors)
		fprintf(stderr, "calls: %s asks errors=panic; mounting with "
			"errors=remount-ro\n", img);
	/*
	 * Decide noload (and mount(2) or mount(8)) now, so that a mount
	 * failure shows at once.
	 */
	probe_fstype(b);
	b->use_syscalls = !getenv("CALLS_MOUNT8");
	if (do_mount(b) < 0) {
		b->use_syscalls = false;
		b->noload = -1;
		if (do_mount(b) < 0) {
			free(b);
			return -EIO;
		}
	}
	if (do_umount(b) < 0) {
		free(b);
		return -EIO;
	}
	*out = b;
	return 0;
}

int calls_e2map_new(const char *image, const char *options,
		    struct calls_backend **out)
{
	struct calls_backend *b = backend_alloc(BK_E2MAP);
	int err;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	err = e2map_open(image, options, &b->m);
	if (err < 0) {
		free(b);
		return err;
	}
	*out = b;
	return 0;
}

void calls_backend_free(struct calls_backend *b)
{
	if (!b)
		return;
	kernel_close(b);
	if (b->kind == BK_REMOUNT)
		do_umount(b);
	e2map_file_close(b->f);
	e2map_close(b->m);
	free(b);
}

/*
 * open(2) of PATH below the mount ROOT as if ROOT were "/": openat2 with
 * RESOLVE_IN_ROOT, so that an absolute symlink (and ".." at the top)
 * stays inside the image, as a chroot would keep it.  FLAGS as open(2).
 * The fd, or -errno.
 */
static int open_in_root(const char *root, const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)flags,
				.resolve = RESOLVE_IN_ROOT };
	int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), fd, err;

	if (dfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
	err = fd < 0 ? -errno : fd;
	close(dfd);
	return err;
}

/*
 * What the tool is given for "@": /proc/self/fd/CALLS_FRESH_FD, an O_PATH
 * descriptor of PATH opened in the mount's root (the tool's open through
 * it is a plain open of that file), or MNT/PATH when the lookup fails
 * there the same way (the tool then fails as on the mount).  1 when the
 * descriptor is used, 0 for MNT/PATH, -EXDEV when the lookups disagree.
 */
static int fresh_target(const char *mnt, const char *path, char *out,
			size_t len)
{
	int fd = open_in_root(mnt, path, O_PATH), host;

	if (fd >= 0) {
		if (dup2(fd, CALLS_FRESH_FD) < 0)
			return -errno;
		if (fd != CALLS_FRESH_FD)
			close(fd);
		snprintf(out, len, "/proc/self/fd/%d", CALLS_FRESH_FD);
		return 1;
	}
	snprintf(out, len, "%s%s%s", mnt, path[0] == '/' ? "" : "/", path);
	host = open(out, O_PATH | O_CLOEXEC);
	if (host >= 0)
		close(host);
	return host < 0 && -errno == fd ? 0 : -EXDEV;
}

/* Run ARGV ("@" replaced by TARGET when given); its exit status. */
static int run_tool(char *const argv[], const char *target)
{
	char *args[64];
	pid_t pid;
	int i, st = -1;

	for (i = 0; argv[i] && i < 63; i++)
		args[i] = target && !strcmp(argv[i], "@") ? (char *)target
							  : argv[i];
	args[i] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execvp(args[0], args);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || st < 0)
		return -ECHILD;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int calls_fresh_run(const char *img, const char *mnt, const char *fstype,
		    const char *data, const char *path, char *const argv[])
{
	struct calls_backend *b = backend_alloc(BK_REMOUNT);
	char target[2 * CALLS_PATH_MAX + 2];
	int st, err;

	if (!b)
		return -ENOMEM;
	snprintf(b->root, sizeof(b->root), "%s", mnt);
	snprintf(b->img, sizeof(b->img), "%s", img);
	snprintf(b->fstype, sizeof(b->fstype), "%s", fstype);
	b->use_syscalls = true;
	err = sys_mount(b, data);
	if (err < 0) {
		free(b);
		return err;
	}
	b->mounted = true;
	err = path ? fresh_target(mnt, path, target, sizeof(target)) : 0;
	st = err < 0 ? err : run_tool(argv, path ? target : NULL);
	if (err == 1)
		close(CALLS_FRESH_FD);
	err = do_umount(b) < 0 ? -EBUSY : 0;
	free(b);
	return err < 0 ? err : st;
}

/* ---- execution ---- */

static int be_open(struct calls_backend *b, const struct calls_call *c)
{
	int fd;

	b->opened = true;
	b->have = false;
	if (b->kind == BK_E2MAP) {
		int err;

		e2map_file_close(b->f);
		b->f = NULL;
		err = e2map_file_open_flags(b->m, c->path, c->nofollow ?
					    E2MAP_O_NOFOLLOW : 0, &b->f);
		b->have = err == 0;
		return err;
	}
	kernel_close(b);
	if (b->kind == BK_REMOUNT && (do_umount(b) < 0 || do_mount(b) < 0)) {
		fprintf(stderr, "calls: cannot remount %s on %s\n", b->img,
			b->root);
		exit(3);
	}
	/* O_NONBLOCK: a FIFO opens without a writer, as in xfs_io (and as
	 * e2map answers); it changes nothing for files and directories. */
	fd = open_in_root(b->root, c->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
			  (c->nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return fd;
	b->fd = fd;
	b->have = true;
	return 0;
}

static int64_t be_lseek(struct calls_backend *b, int64_t off, int whence)
{
	off_t r;

	if (b->kind == BK_E2MAP)
		return e2map_file_lseek(b->f, off, whence);
	r = lseek(b->fd, (off_t)off, whence);
	return r < 0 ? -errno : (int64_t)r;
}

static int be_fiemap(struct calls_backend *b, struct fiemap *fm)
{
	if (b->kind == BK_E2MAP)
		return e2map_file_fiemap(b->f, fm);
	return ioctl(b->fd, FS_IOC_FIEMAP, fm) < 0 ? -errno : 0;
}

static void exec_fiemap(struct calls_backend *b, const struct calls_call *c,
			struct calls_buf *out)
{
	size_t size = sizeof(struct fiemap) +
		      (size_t)c->count * sizeof(struct fiemap_extent);
	bool mapped = size > (1u << 20);
	struct fiemap *fm;
	uint32_t i, n;
	int ret;

	fm = mapped ? mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
		    : calloc(1, size);
	if (fm == MAP_FAILED || !fm) {
		fprintf(stderr, "calls: cannot allocate %zu bytes\n", size);
		exit(3);
	}
	fm->fm_start = c->start;
	fm->fm_length = c->length;
	fm->fm_flags = c->flags;
	fm->fm_extent_count = c->count;
	fm->fm_mapped_extents = CALLS_MAPPED_PRESET;
	ret = be_fiemap(b, fm);
	calls_buf_add(out, " = ");
	calls_format_ret(out, ret);
	calls_buf_add(out, " 0x%x %u\n", fm->fm_flags, fm->fm_mapped_extents);
	n = fm->fm_mapped_extents;
	if (n == CALLS_MAPPED_PRESET)
		n = 0;
	if (n > c->count)
		n = c->count;
	for (i = 0; i < n; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];

		calls_buf_add(out, "ext %llu %llu %llu 0x%x\n",
			      (unsigned long long)e->fe_logical,
			      (unsigned long long)e->fe_physical,
			      (unsigned long long)e->fe_length, e->fe_flags);
	}
	if (mapped)
		munmap(fm, size);
	else
		free(fm);
}

void calls_exec(struct calls_backend *b, const struct calls_call *c,
		struct calls_buf *out)
{
	calls_format_call(out, c);
	if (c->op == CALLS_OPEN) {
		calls_buf_add(out, " = ");
		calls_format_ret(out, be_open(b, c));
		calls_buf_add(out, "\n");
		return;
	}
	if (!b->have) {
		calls_buf_add(out, " = SKIP\n");
		return;
	}
	if (c->op == CALLS_LSEEK) {
		calls_buf_add(out, " = ");
		calls_format_ret(out, be_lseek(b, c->offset, c->whence));
		calls_buf_add(out, "\n");
		return;
	}
	exec_fiemap(b, c, out);
}

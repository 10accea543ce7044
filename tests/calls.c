/*
 * .calls parsing, execution and formatting for the two backends (kernel
 * mount, libe2map image), and .golden replay through the CLI.  The format
 * is described in calls.h; both backends share every formatting line, so a
 * difference in output is a difference in answers.
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

#include "e2map.h"

/* ---- text buffer ---- */

static void buf_reserve(struct calls_buf *b, size_t more)
{
	size_t need = b->len + more + 1;
	char *s;

	if (need <= b->cap)
		return;
	if (need < 2 * b->cap)
		need = 2 * b->cap;
	if (need < 256)
		need = 256;
	s = realloc(b->s, need);
	if (!s)
		abort();
	b->s = s;
	b->cap = need;
}

void calls_buf_addn(struct calls_buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void calls_buf_add(struct calls_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void calls_buf_free(struct calls_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *calls_read_file(const char *path, size_t *len)
{
	struct calls_buf b = { 0 };
	char tmp[65536];
	FILE *fp = fopen(path, "rb");
	size_t n;

	if (!fp)
		return NULL;
	buf_reserve(&b, 0);
	while ((n = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		calls_buf_addn(&b, tmp, n);
	if (ferror(fp)) {
		fclose(fp);
		calls_buf_free(&b);
		return NULL;
	}
	fclose(fp);
	if (len)
		*len = b.len;
	return b.s;
}

/* ---- errno names ---- */

#define E(x) { x, #x }
static const struct {
	int num;
	const char *name;
} errnames[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
	E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK),
	E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ENODATA),
	E(ETIME), E(ENOLINK), E(EPROTO), E(EBADMSG), E(EOVERFLOW), E(EILSEQ),
	E(EBADR), E(EBADE), E(EBADRQC), E(EBADSLT), E(EUCLEAN), E(EOPNOTSUPP),
	E(ENOTSUP), E(ENOKEY), E(EKEYREJECTED), E(ESTALE), E(EREMOTEIO),
	E(ECANCELED), E(ENOMEDIUM), E(EMEDIUMTYPE), E(EDQUOT),
};
#undef E

const char *calls_errname(int err)
{
	static __thread char other[24];
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].num == err)
			return errnames[i].name;
	snprintf(other, sizeof(other), "E%d", err);
	return other;
}

/* ---- parsing ---- */

static const char *const whence_names[] = { "SET", "CUR", "END", "DATA",
					    "HOLE" };

static void path_encode(struct calls_buf *b, const char *p)
{
	for (; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch < 0x20 || ch == 0x7f || ch == '\\' || ch == '#' ||
		    ch == '=')
			calls_buf_add(b, "\\x%02x", ch);
		else
			calls_buf_addn(b, p, 1);
	}
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = tolower(ch);
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static int path_decode(const char *s, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int ch = (unsigned char)s[i];

		if (ch == '\\') {
			int hi, lo;

			if (i + 3 >= n)
				return -1;
			if (s[i + 1] != 'x' || (hi = hexval(s[i + 2])) < 0 ||
			    (lo = hexval(s[i + 3])) < 0)
				return -1;
			ch = hi * 16 + lo;
			i += 3;
		}
		if (o + 1 >= outlen)
			return -1;
		out[o++] = (char)ch;
	}
	out[o] = '\0';
	return 0;
}

static int parse_u64(const char *tok, uint64_t *v, bool allow_max)
{
	char *end;

	if (allow_max && strcmp(tok, "max") == 0) {
		*v = ~0ULL;
		return 0;
	}
	if (!*tok || *tok == '-')
		return -1;
	errno = 0;
	*v = strtoull(tok, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static int parse_i64(const char *tok, int64_t *v)
{
	char *end;

	if (!*tok)
		return -1;
	errno = 0;
	*v = strtoll(tok, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static int parse_whence(const char *tok, int *w)
{
	int64_t v;
	size_t i;

	for (i = 0; i < 5; i++)
		if (strcmp(tok, whence_names[i]) == 0) {
			*w = (int)i;
			return 0;
		}
	if (parse_i64(tok, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*w = (int)v;
	return 0;
}

/* Split S (modified in place) on blanks into at most MAX tokens. */
static int split(char *s, char **tok, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

int calls_parse(const char *line, struct calls_call *c, char *err,
		size_t errlen)
{
	char work[CALLS_PATH_MAX + 256], *eq, *hash, *tok[8], *p;
	size_t n = strcspn(line, "\r\n");
	int nt;

	memset(c, 0, sizeof(*c));
	if (n >= sizeof(work)) {
		snprintf(err, errlen, "line too long");
		return -1;
	}
	memcpy(work, line, n);
	work[n] = '\0';
	p = work;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	if ((hash = strstr(p, " #")) != NULL)
		*hash = '\0';
	if ((eq = strchr(p, '=')) != NULL)
		*eq = '\0';
	if (strncmp(p, "open", 4) == 0 && (p[4] == ' ' || p[4] == '\t')) {
		char *s = p + 5, *e;

		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e == s || path_decode(s, (size_t)(e - s), c->path,
					  sizeof(c->path)) < 0) {
			snprintf(err, errlen, "bad open path");
			return -1;
		}
		c->op = CALLS_OPEN;
		return 1;
	}
	nt = split(p, tok, 8);
	if (nt >= 1 && strcmp(tok[0], "ext") == 0)
		return 0;
	if (nt == 3 && strcmp(tok[0], "lseek") == 0) {
		if (parse_i64(tok[1], &c->offset) < 0 ||
		    parse_whence(tok[2], &c->whence) < 0) {
			snprintf(err, errlen, "bad lseek arguments");
			return -1;
		}
		c->op = CALLS_LSEEK;
		return 1;
	}
	if (nt == 5 && strcmp(tok[0], "fiemap") == 0) {
		uint64_t fl, cnt;

		if (parse_u64(tok[1], &c->start, false) < 0 ||
		    parse_u64(tok[2], &c->length, true) < 0 ||
		    parse_u64(tok[3], &fl, false) < 0 || fl > UINT32_MAX ||
		    parse_u64(tok[4], &cnt, false) < 0 || cnt > UINT32_MAX) {
			snprintf(err, errlen, "bad fiemap arguments");
			return -1;
		}
		c->flags = (uint32_t)fl;
		c->count = (uint32_t)cnt;
		c->op = CALLS_FIEMAP;
		return 1;
	}
	snprintf(err, errlen, "unknown call");
	return -1;
}

/* The call part of a line, canonical: "lseek 0 DATA". */
static void format_call(struct calls_buf *b, const struct calls_call *c)
{
	switch (c->op) {
	case CALLS_OPEN:
		calls_buf_add(b, "open ");
		path_encode(b, c->path);
		break;
	case CALLS_LSEEK:
		calls_buf_add(b, "lseek %" PRId64 " ", c->offset);
		if (c->whence >= 0 && c->whence < 5)
			calls_buf_add(b, "%s", whence_names[c->whence]);
		else
			calls_buf_add(b, "%d", c->whence);
		break;
	case CALLS_FIEMAP:
		calls_buf_add(b, "fiemap %" PRIu64 " ", c->start);
		if (c->length == ~0ULL)
			calls_buf_add(b, "max");
		else
			calls_buf_add(b, "%" PRIu64, c->length);
		calls_buf_add(b, " 0x%x %u", c->flags, c->count);
		break;
	}
}

static void format_ret(struct calls_buf *b, int64_t ret)
{
	if (ret < 0)
		calls_buf_add(b, "-%s", calls_errname((int)-ret));
	else
		calls_buf_add(b, "%" PRId64, ret);
}

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

int calls_fresh_run(const char *img, const char *mnt, const char *fstype,
		    const char *data, char *const argv[])
{
	struct calls_backend *b = backend_alloc(BK_REMOUNT);
	pid_t pid;
	int st = -1, err;

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
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	err = do_umount(b) < 0 ? -EBUSY : 0;
	free(b);
	if (err < 0)
		return err;
	if (pid < 0 || st < 0)
		return -ECHILD;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- execution ---- */

static int be_open(struct calls_backend *b, const char *path)
{
	char full[2 * CALLS_PATH_MAX + 2];
	int fd;

	b->opened = true;
	b->have = false;
	if (b->kind == BK_E2MAP) {
		int err;

		e2map_file_close(b->f);
		b->f = NULL;
		err = e2map_file_open(b->m, path, &b->f);
		b->have = err == 0;
		return err;
	}
	kernel_close(b);
	if (b->kind == BK_REMOUNT && (do_umount(b) < 0 || do_mount(b) < 0)) {
		fprintf(stderr, "calls: cannot remount %s on %s\n", b->img,
			b->root);
		exit(3);
	}
	snprintf(full, sizeof(full), "%s%s%s", b->root,
		 path[0] == '/' ? "" : "/", path);
	fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	b->fd = fd;
	b->have = true;
	return 0;
}

static int64_t be_lseek(struct calls_backend *b, int64_t off, int whence)
{
	off_t r;

	if (b->kind == BK_E2MAP)
		return e2map_lseek(b->f, off, whence);
	r = lseek(b->fd, (off_t)off, whence);
	return r < 0 ? -errno : (int64_t)r;
}

static int be_fiemap(struct calls_backend *b, struct fiemap *fm)
{
	if (b->kind == BK_E2MAP)
		return e2map_fiemap(b->f, fm);
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
	format_ret(out, ret);
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
	format_call(out, c);
	if (c->op == CALLS_OPEN) {
		calls_buf_add(out, " = ");
		format_ret(out, be_open(b, c->path));
		calls_buf_add(out, "\n");
		return;
	}
	if (!b->have) {
		calls_buf_add(out, " = SKIP\n");
		return;
	}
	if (c->op == CALLS_LSEEK) {
		calls_buf_add(out, " = ");
		format_ret(out, be_lseek(b, c->offset, c->whence));
		calls_buf_add(out, "\n");
		return;
	}
	exec_fiemap(b, c, out);
}

/* ---- replay ---- */

/* Next line of TEXT from *POS: start and length without the newline. */
static bool next_line(const char *text, size_t *pos, const char **line,
		      size_t *len)
{
	const char *s = text + *pos, *nl;

	if (!*s)
		return false;
	nl = strchr(s, '\n');
	*line = s;
	*len = nl ? (size_t)(nl - s) : strlen(s);
	*pos += *len + (nl ? 1 : 0);
	return true;
}

/* Append LINE trimmed of blanks at both ends (and a " #" comment). */
static void add_trimmed(struct calls_buf *b, const char *line, size_t len)
{
	const char *e;
	size_t i;

	for (i = 0; i + 1 < len; i++)
		if (line[i] == ' ' && line[i + 1] == '#') {
			len = i;
			break;
		}
	while (len && isspace((unsigned char)*line)) {
		line++;
		len--;
	}
	e = line + len;
	while (e > line && isspace((unsigned char)e[-1]))
		e--;
	calls_buf_addn(b, line, (size_t)(e - line));
}

static bool is_ext_line(const char *line, size_t len)
{
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	return len >= 4 && strncmp(line, "ext ", 4) == 0;
}

/* Expected text of one call: canonical call, recorded result, ext lines. */
static void expected_text(const struct calls_call *c, const char *line,
			  size_t len, struct calls_buf *exp)
{
	const char *eq = memchr(line, '=', len);

	format_call(exp, c);
	calls_buf_add(exp, " = ");
	if (eq)
		add_trimmed(exp, eq + 1, len - (size_t)(eq + 1 - line));
	else
		calls_buf_add(exp, "(no recorded result)");
	calls_buf_add(exp, "\n");
}

/* First differing line of two texts, for the report. */
static void report_diff(struct calls_buf *r, const char *name, int lineno,
			const char *exp, const char *got)
{
	int k = 0;

	while (*exp || *got) {
		size_t le = strcspn(exp, "\n"), lg = strcspn(got, "\n");

		if (le != lg || memcmp(exp, got, le) != 0) {
			calls_buf_add(r, "%s:%d: expected: %.*s\n"
				      "%s:%d:      got: %.*s\n",
				      name, lineno + k, (int)le, exp, name,
				      lineno + k, (int)lg, got);
			return;
		}
		exp += le + (exp[le] ? 1 : 0);
		got += lg + (got[lg] ? 1 : 0);
		k++;
	}
}

int calls_replay(struct calls_backend *b, const char *name, const char *text,
		 struct calls_buf *report, int max_report)
{
	struct calls_buf exp = { 0 }, got = { 0 };
	struct calls_call c;
	size_t pos = 0, len;
	const char *line;
	int lineno = 0, diffs = 0, calls = 0, call_line = 0, r;
	bool pending = false;
	char err[128];

	for (;;) {
		bool more = next_line(text, &pos, &line, &len);

		if (more)
			lineno++;
		if (more && pending && is_ext_line(line, len)) {
			add_trimmed(&exp, line, len);
			calls_buf_add(&exp, "\n");
			continue;
		}
		if (pending) {
			pending = false;
			if (strcmp(exp.s, got.s) != 0) {
				if (++diffs <= max_report)
					report_diff(report, name, call_line,
						    exp.s, got.s);
			}
		}
		if (!more)
			break;
		r = calls_parse(line, &c, err, sizeof(err));
		if (r < 0) {
			calls_buf_add(report, "%s:%d: %s: %.*s\n", name,
				      lineno, err, (int)len, line);
			diffs = -1;
			break;
		}
		if (r == 0)
			continue;
		exp.len = got.len = 0;
		calls_buf_add(&exp, "%s", "");
		calls_buf_add(&got, "%s", "");
		expected_text(&c, line, len, &exp);
		calls_exec(b, &c, &got);
		pending = true;
		call_line = lineno;
		calls++;
	}
	if (diffs > 0)
		calls_buf_add(report, "%s: %d of %d calls differ\n", name, diffs,
			      calls);
	if (diffs == 0 && calls == 0) {
		calls_buf_add(report, "%s: no calls\n", name);
		diffs = -1;
	}
	calls_buf_free(&exp);
	calls_buf_free(&got);
	return diffs;
}

/* ---- golden replay ---- */

/* Run ARGV, stdout into OUT, stderr into ERRB; returns the exit status. */
static int run_capture(char *const argv[], struct calls_buf *out,
		       struct calls_buf *errb)
{
	int po[2], pe[2], st;
	pid_t pid;

	if (pipe(po) < 0 || pipe(pe) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* Drain both pipes together, so that neither can fill up. */
	int fds[2] = { po[0], pe[0] };
	struct calls_buf *dst[2] = { out, errb };

	while (fds[0] >= 0 || fds[1] >= 0) {
		struct pollfd pfd[2] = { { fds[0], POLLIN, 0 },
					 { fds[1], POLLIN, 0 } };

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < 2; k++) {
			char tmp[8192];
			ssize_t n;

			if (fds[k] < 0 || !pfd[k].revents)
				continue;
			n = read(fds[k], tmp, sizeof(tmp));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				fds[k] = -1;	/* poll ignores it from now on */
			else if (k == 0 || errb->len < 4096)
				calls_buf_addn(dst[k], tmp, (size_t)n);
		}
	}
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Length of the line at P, at most N bytes. */
static int line_len(const char *p, size_t n)
{
	const char *nl = memchr(p, '\n', n);

	return (int)(nl ? (size_t)(nl - p) : n);
}

/* Where two byte strings first differ, as a line number and both lines. */
static void report_bytes(struct calls_buf *r, const char *exp, size_t le,
			 const char *got, size_t lg)
{
	size_t i = 0, ls = 0;
	int line = 1;

	while (i < le && i < lg && exp[i] == got[i]) {
		if (exp[i] == '\n') {
			line++;
			ls = i + 1;
		}
		i++;
	}
	calls_buf_add(r, "    output line %d: expected: %.*s\n", line,
		      line_len(exp + ls, le - ls), exp + ls);
	calls_buf_add(r, "    output line %d:      got: %.*s\n", line,
		      line_len(got + ls, lg - ls), got + ls);
}

#define GOLDEN_MAXARGS 32

/*
 * e2map's exit status is its own: 1 with one "e2map: " line on stderr for
 * any error, where xfs_io exits 0 after printing ERR and filefrag exits
 * with the errno.  So a tool's failure must be e2map's 1, and a tool's 0
 * is e2map's 0 or, when e2map reported the error it printed, 1.
 */
static bool exit_matches(int tool, int ours, const struct calls_buf *err)
{
	const char *nl = err->s ? strchr(err->s, '\n') : NULL;
	bool one_error = err->len && !strncmp(err->s, "e2map: ", 7) &&
			 nl && nl[1] == '\0';

	if (tool != 0)
		return ours == 1 && one_error;
	return ours == 0 || (ours == 1 && one_error);
}

static int golden_entry(const char *e2map, const char *image, const char *name,
			int lineno, char *argline, const char *exp, size_t nexp,
			int exit_exp, struct calls_buf *report, bool describe)
{
	char *argv[GOLDEN_MAXARGS + 2], *tok;
	struct calls_buf out = { 0 }, errb = { 0 };
	int argc = 0, st, bad = 0;
	char *save = NULL;

	argv[argc++] = (char *)e2map;
	for (tok = strtok_r(argline, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (argc > GOLDEN_MAXARGS)
			return -1;
		argv[argc++] = strcmp(tok, "IMAGE") == 0 ? (char *)image : tok;
	}
	argv[argc] = NULL;
	calls_buf_add(&out, "%s", "");
	calls_buf_add(&errb, "%s", "");
	st = run_capture(argv, &out, &errb);
	if (!exit_matches(exit_exp, st, &errb) || out.len != nexp ||
	    memcmp(out.s, exp, nexp)) {
		bad = 1;
		if (describe) {
			calls_buf_add(report, "%s:%d: $ e2map", name, lineno);
			for (int i = 1; i < argc; i++)
				calls_buf_add(report, " %s",
					      argv[i] == image ? "IMAGE"
							       : argv[i]);
			calls_buf_add(report, "\n    exit: expected %d, got %d"
				      "; %zu bytes expected, %zu got\n",
				      exit_exp, st, nexp, out.len);
			if (out.len != nexp || memcmp(out.s, exp, nexp))
				report_bytes(report, exp, nexp, out.s, out.len);
			if (errb.len)
				calls_buf_add(report, "    stderr: %.*s\n",
					      (int)strcspn(errb.s, "\n"),
					      errb.s);
		}
	}
	calls_buf_free(&out);
	calls_buf_free(&errb);
	return bad;
}

int calls_golden_replay(const char *e2map, const char *image, const char *name,
			const char *text, size_t len, struct calls_buf *report,
			int max_report)
{
	size_t pos = 0;
	int lineno = 1, diffs = 0, entries = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		char hdr[CALLS_PATH_MAX + 256], *t1, *t2, *end;
		unsigned long long nbytes;
		long exit_exp;
		size_t hl;
		int r;

		if (!nl || text[pos] != '$' || text[pos + 1] != ' ')
			goto bad;
		hl = (size_t)(nl - text - pos);
		if (hl >= sizeof(hdr))
			goto bad;
		memcpy(hdr, text + pos + 2, hl - 2);
		hdr[hl - 2] = '\0';
		t1 = strchr(hdr, '\t');
		if (!t1)
			goto bad;
		*t1++ = '\0';
		t2 = strchr(t1, '\t');
		if (!t2)
			goto bad;
		*t2++ = '\0';
		nbytes = strtoull(t1, &end, 10);
		if (*end || !*t1)
			goto bad;
		exit_exp = strtol(t2, &end, 10);
		if (*end || !*t2)
			goto bad;
		pos += hl + 1;
		if (nbytes > len - pos)
			goto bad;
		r = golden_entry(e2map, image, name, lineno, hdr, text + pos,
				 (size_t)nbytes, (int)exit_exp, report,
				 diffs < max_report);
		if (r < 0)
			goto bad;
		diffs += r;
		entries++;
		for (size_t i = 0; i < nbytes; i++)
			if (text[pos + i] == '\n')
				lineno++;
		lineno++;
		pos += (size_t)nbytes;
	}
	if (diffs)
		calls_buf_add(report, "%s: %d of %d entries differ\n", name,
			      diffs, entries);
	return diffs;
bad:
	calls_buf_add(report, "%s:%d: malformed golden entry header\n", name,
		      lineno);
	return -1;
}

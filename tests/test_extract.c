/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_extract -r -p of whole testdata images into a scratch directory,
 * and `e2map tar` of them extracted by GNU tar and by bsdtar, against what
 * the kernel's mount gives cp -a (the recordings):
 *  - every regular file's bytes equal read(2) of it on the mount
 *    (NAME.read.gz, 4 KiB calls); where the kernel's read failed, the
 *    extract reports that file, and the copy holds exactly the bytes the
 *    kernel returned before the error;
 *  - its data regions are the kernel's SEEK_DATA/SEEK_HOLE map
 *    (`seek -a -r` in NAME.golden.gz), each rounded out to the scratch
 *    filesystem's block size, where allocation happens (equal where the
 *    block sizes are equal): holes and unwritten ranges stay holes;
 *  - modes, owners, times with nanoseconds, sizes, symlink targets, device
 *    numbers and hard-link groups are those of e2map_path_lstat (held to the
 *    kernel's stat by the scan tests); xattrs are those the mount lists
 *    (NAME.xattr.gz), where the scratch filesystem takes them (owners and
 *    trusted.* as root only, as for cp -a).
 * A tar archive holds no sockets (GNU tar skips them too), and where the
 * kernel's read fails the member is padded with zeroes after the bytes
 * read, as GNU tar pads it: there the bytes before the error are compared.
 * `e2map mount` is held to the same, read through its FUSE mount, and
 * more: inode numbers, link counts and st_blocks are the kernel's, the
 * data regions are exactly the kernel's, and a read fails where the
 * kernel's does, after the same bytes.  cp -a and tar --sparse from that
 * mount keep the kernel's holes, as from the kernel's mount: where
 * st_blocks covers the size (preallocated ranges count), both copy the
 * whole file as data, and so do they on the kernel's mount.
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "calls.h"
#include "cli_run.h"
#include "fixture.h"
#include "sha256.h"

/* How the tree comes out of the image, or is shown (a FUSE mount). */
enum how {
	BY_EXTRACT, BY_GNU_TAR, BY_BSDTAR, BY_FUSE,
	BY_FUSE_CP,		/* cp -a from the FUSE mount */
	BY_FUSE_TAR		/* tar --sparse from the FUSE mount, then -x */
};

/* What the extract reported failing, by image path. */
struct failures {
	char **path;
	int *err;
	uint64_t *bytes;
	size_t n;
};

static int on_event(const struct e2map_extract_event *ev, void *payload)
{
	struct failures *f = payload;

	if (!ev->err || ev->warning)	/* an xattr left behind: no failure */
		return 0;
	f->path = realloc(f->path, (f->n + 1) * sizeof(*f->path));
	f->err = realloc(f->err, (f->n + 1) * sizeof(*f->err));
	f->bytes = realloc(f->bytes, (f->n + 1) * sizeof(*f->bytes));
	cr_assert(f->path && f->err && f->bytes);
	cr_assert((f->path[f->n] = strdup(ev->path)));
	f->err[f->n] = ev->err;
	f->bytes[f->n++] = ev->bytes;
	return 0;
}

static int failed(const struct failures *f, const char *path)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->path[i], path))
			return f->err[i];
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

struct run {
	const char *name;
	enum how how;
	int tar_status;		/* the extracting tar's, as system() gives it */
	pid_t fuse;		/* the e2map mount serving dir */
	e2map_t *m;
	char dir[64];		/* the scratch directory: the root's copy */
	char *dest;		/* dir + image path, for one entry */
	struct failures fail;
	blksize_t bs;		/* the scratch filesystem's block size */
};

static bool by_tar(const struct run *r)
{
	return r->how == BY_GNU_TAR || r->how == BY_BSDTAR ||
	       r->how == BY_FUSE_TAR;
}

static const char *dest_of(struct run *r, const char *path)
{
	free(r->dest);
	cr_assert((r->dest = malloc(strlen(r->dir) + strlen(path) + 1)));
	strcpy(r->dest, r->dir);
	strcat(r->dest, strcmp(path, "/") ? path : "");
	return r->dest;
}

/*
 * What `e2map tar` named on stderr as failing, as extract's events would
 * have: "e2map: tar: IMAGE:PATH: WHAT: ..." (PATH has no ": " here).
 */
/* The paths e2map tar names on stderr, in R's failures; those it failed
 * on (the rest were warnings: xattrs not read), counted. */
static size_t tar_failures(struct run *r, const char *img, const char *err)
{
	char head[4200];
	const char *p, *end;
	size_t hard = 0;

	snprintf(head, sizeof(head), "e2map: tar: %s:", img);
	for (p = strstr(err, head); p; p = strstr(end, head)) {
		struct e2map_extract_event ev = { .err = -EIO };
		char *path;

		p += strlen(head);
		end = strstr(p, ": ");
		cr_assert(end, "%s: odd line in %s", r->name, err);
		if (!strncmp(end, ": socket ignored", 16) ||
		    !strncmp(end, ": member padded", 15))
			continue;
		cr_assert((path = strndup(p, (size_t)(end - p))));
		hard += strncmp(end, ": warning: ", 11) != 0;
		if (!failed(&r->fail, path)) {
			ev.path = path;
			on_event(&ev, &r->fail);
		}
		free(path);
	}
	return hard;
}

/*
 * Each member's atime and mtime as the archive holds them (the pax
 * records, read by Python's tarfile): tar restores no atime, and not the
 * times of "." either, so the archive is checked, not only the tree.
 */
static const char list_times[] =
	"import os, sys, tarfile, decimal\n"
	"def ns(v):\n"
	"    d = decimal.Decimal(v)\n"
	"    s = int(d.to_integral_value(decimal.ROUND_FLOOR))\n"
	"    return '%d %d' % (s, int((d - s) * 10**9))\n"
	"for m in tarfile.open(sys.argv[1]):\n"
	"    h = m.pax_headers\n"
	"    print(os.fsencode(m.name).hex(),\n"
	"          ns(h['atime']) if 'atime' in h else '-1 -1',\n"
	"          ns(h.get('mtime', m.mtime)))\n";

static void check_archive_times(struct run *r, const char *archive)
{
	struct e2map_timespec a, m;
	char cmd[256], hex[8200], path[4100];
	long long as, an, ms, mn;
	struct e2map_stat st = E2MAP_STAT_INIT;
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "python3 -c \"$T\" %s", archive);
	setenv("T", list_times, 1);
	cr_assert((f = popen(cmd, "r")));
	while (fscanf(f, "%8199s %lld %lld %lld %lld", hex, &as, &an, &ms,
		      &mn) == 5) {
		size_t i, len = strlen(hex) / 2, at = 1;

		path[0] = '/';
		for (i = 0; i < len && at < sizeof(path) - 1; i++)
			sscanf(hex + 2 * i, "%2hhx", (unsigned char *)&path[at++]);
		path[at] = '\0';
		/* "./x" is /x, "." and "./" the root */
		memmove(path + 1, path + (path[1] == '.' ? 2 : 1), at);
		if (path[1] == '/')
			memmove(path + 1, path + 2, strlen(path + 1));
		cr_assert_eq(e2map_path_lstat(r->m, path, &st), 0, "%s: member %s",
			     r->name, path);
		a = st.atime;
		m = st.mtime;
		if (an == -1)	/* no atime record: nothing to compare */
			as = a.sec, an = a.nsec;
		cr_expect(as == a.sec && an == a.nsec && ms == m.sec &&
			  mn == m.nsec,
			  "%s: %s: member times %lld.%09lld %lld.%09lld", r->name,
			  path, as, an, ms, mn);
		n++;
	}
	cr_expect_eq(pclose(f), 0, "%s: python3 tarfile failed", r->name);
	cr_expect_gt(n, 0);
}

/* `e2map tar` of the image, extracted by the tar R->how names. */
static void tar_all(struct run *r, const char *img)
{
	char archive[64] = "/tmp/e2map-tar-XXXXXX", cmd[512];
	struct cli_out o;
	size_t hard;
	int fd = mkstemp(archive);

	struct rlimit was, cap = { 1 << 30, 1 << 30 };

	cr_assert_geq(fd, 0);
	close(fd);
	/* a hole archived as data would fill the disk before the timeout */
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
	cap.rlim_max = was.rlim_max;
	cap.rlim_cur = was.rlim_max < cap.rlim_cur ? was.rlim_max : cap.rlim_cur;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &cap), 0);
	cr_assert_eq(cli_run((const char *[]){ "tar", "-q", "-f", archive, img,
					       NULL }, &o), 0);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
	hard = tar_failures(r, img, o.err);
	cr_expect_eq(o.status, hard ? 1 : 0, "%s: e2map tar exit %d, "
		     "%zu failures: %s", r->name, o.status, hard, o.err);
	snprintf(cmd, sizeof(cmd), r->how == BY_GNU_TAR ?
		 "tar -xpf %s -C %s --acls --xattrs --xattrs-include='*' "
		 "--warning=no-unknown-keyword" :
		 "bsdtar -xpf %s -C %s", archive, r->dir);
	r->tar_status = system(cmd);
	if (r->how == BY_GNU_TAR)
		check_archive_times(r, archive);
	unlink(archive);
	cli_out_free(&o);
}

/* The FUSE daemon in the foreground, a child that dies with the test. */
static void fuse_mount(struct run *r, const char *img, const char *dir)
{
	const char *why = fixture_fuse_mount(img, dir, "auto_unmount", &r->fuse);

	if (why && strcmp(why, "timeout"))
		cr_skip_test("%s", why);
	cr_assert_null(why, "%s: the FUSE mount did not come up", r->name);
}

static void fuse_unmount(struct run *r, const char *dir)
{
	cr_expect_eq(fixture_fuse_unmount(dir, r->fuse), 0,
		     "%s: fusermount3 -u, or e2map mount's exit", r->name);
	r->fuse = 0;
	rmdir(dir);
}

/* cp -a, or tar --sparse and back, from the FUSE mount into R->dir. */
static void copy_from_fuse(struct run *r, const char *img)
{
	char mnt[] = "/tmp/e2map-fuse-XXXXXX", cmd[600];

	cr_assert(mkdtemp(mnt));
	fuse_mount(r, img, mnt);
	if (r->how == BY_FUSE_CP)
		snprintf(cmd, sizeof(cmd), "cp -a %s/. %s", mnt, r->dir);
	else
		snprintf(cmd, sizeof(cmd), "tar --sparse --acls --xattrs -cf - "
			 "-C %s . | tar -xpf - -C %s --acls --xattrs "
			 "--xattrs-include='*'", mnt, r->dir);
	r->tar_status = system(cmd);
	fuse_unmount(r, mnt);
}

static void extract_all(struct run *r, const char *name, enum how how)
{
	char *img = fixture_image(name);
	struct stat hs;
	int n;

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->how = how;
	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
	cr_assert_eq(e2map_open(img, NULL, &r->m), 0, "%s", e2map_errmsg(NULL));
	strcpy(r->dir, "/tmp/e2map-extract-XXXXXX");
	cr_assert(mkdtemp(r->dir));
	if (how == BY_FUSE) {
		fuse_mount(r, img, r->dir);
	} else if (how == BY_FUSE_CP || how == BY_FUSE_TAR) {
		copy_from_fuse(r, img);
	} else if (how != BY_EXTRACT) {
		tar_all(r, img);
	} else {
		n = e2map_extract(r->m, "/", r->dir, E2MAP_EXTRACT_RECURSIVE |
				  E2MAP_EXTRACT_PRESERVE, on_event, &r->fail);
		cr_assert_geq(n, 0, "%s: %s", name, e2map_strerror(n));
		cr_expect_eq((size_t)n, r->fail.n, "%s: %d failures, %zu "
			     "reported", name, n, r->fail.n);
	}
	fixture_remove(img);	/* the mount keeps it open */
	cr_assert_eq(stat(r->dir, &hs), 0);
	r->bs = how == BY_FUSE ? 1 : hs.st_blksize;	/* exact maps */
}

static void run_free(struct run *r)
{
	size_t i;

	if (r->fuse)
		fuse_unmount(r, r->dir);
	else
		nftw(r->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	for (i = 0; i < r->fail.n; i++)
		free(r->fail.path[i]);
	free(r->fail.path);
	free(r->fail.err);
	free(r->fail.bytes);
	free(r->dest);
	e2map_close(r->m);
}

/* Reading a copy must not move its atime (checked after). */
static int open_copy(const char *p)
{
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_NOATIME);

	return fd < 0 && errno == EPERM ? open(p, O_RDONLY | O_NOFOLLOW) : fd;
}

static bool opens(const char *p)
{
	int fd = open_copy(p);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* sha256 and length of the first MAX bytes of the host file P. */
static int read_err;	/* errno of file_sha's last read, or 0 */

static int64_t file_sha(const char *p, uint64_t max, char hex[65])
{
	unsigned char buf[65536];
	struct sha256 s;
	int64_t total = 0;
	ssize_t n = 0;
	int fd = open_copy(p);

	if (fd < 0)
		return -errno;
	sha256_init(&s);
	while ((uint64_t)total < max &&
	       (n = read(fd, buf, max - (uint64_t)total < sizeof(buf) ?
			 (size_t)(max - (uint64_t)total) : sizeof(buf))) > 0) {
		sha256_update(&s, buf, (size_t)n);
		total += n;
	}
	read_err = n < 0 ? errno : 0;
	close(fd);
	sha256_final(&s, hex);
	return total;
}

/* Whether PATH's copy failed: the extract or tar said so, or, through
 * the FUSE mount, the read itself failed. */
static int copy_failed(const struct run *r, const char *path)
{
	return r->how == BY_FUSE ? read_err : failed(&r->fail, path);
}

/* A path through a symlink names, on the host, something else. */
static bool through_symlink(e2map_t *m, const char *path)
{
	char *p = strdup(path), *slash;
	struct e2map_stat st = E2MAP_STAT_INIT;
	bool link = false;

	cr_assert(p);
	for (slash = strchr(p + 1, '/'); slash && !link;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		link = !e2map_path_lstat(m, p, &st) && S_ISLNK(st.mode);
		*slash = '/';
	}
	free(p);
	return link;
}

/* One path's "run 4096 START BYTES ERRNO SHA" against its copy. */
static void check_bytes(struct run *r, const char *path, const char *rec)
{
	char err[32], sha[65], got[65];
	unsigned long long start, bytes;
	struct e2map_stat st = E2MAP_STAT_INIT;
	int64_t n;

	if (e2map_path_lstat(r->m, path, &st) || (st.mode & S_IFMT) != S_IFREG ||
	    through_symlink(r->m, path))
		return;
	if (!strncmp(rec, "open ", 5)) {
		cr_expect(r->how == BY_FUSE ? !opens(dest_of(r, path)) :
			  failed(&r->fail, path) != 0, "%s: %s: open failed on "
			  "the mount (%s), not on the copy", r->name, path, rec);
		return;
	}
	cr_assert_eq(sscanf(rec, "run 4096 %llu %llu %31s %64s", &start, &bytes,
			    err, sha), 4, "%s: bad record %s", r->name, rec);
	if (start)
		return;		/* only the last MiB recorded */
	/* CUT: the recording stopped at 64 MiB, the file goes on; a tar
	 * member is padded where the read failed */
	n = file_sha(dest_of(r, path), !strcmp(err, "CUT") ||
		     (by_tar(r) && strcmp(err, "0")) ? bytes : UINT64_MAX,
		     got);
	if (strcmp(err, "0") && strcmp(err, "CUT")) {
		cr_expect(copy_failed(r, path), "%s: %s: the mount's read "
			  "failed (%s), the copy's did not", r->name, path,
			  err);
		if (n == -ENOENT)
			return;	/* nothing written: the open failed */
	} else {
		cr_expect(!copy_failed(r, path), "%s: %s: the copy failed "
			  "where the mount reads it", r->name, path);
	}
	cr_expect_eq(n, (int64_t)bytes, "%s: %s: %lld bytes, the mount "
		     "reads %llu", r->name, path, (long long)n, bytes);
	cr_expect_str_eq(got, sha, "%s: %s: bytes differ", r->name, path);
}

static void check_all_bytes(struct run *r)
{
	char path[4096], *text;
	size_t len, at;
	const char *cur = NULL;
	int files = 0;

	snprintf(path, sizeof(path), "%s/%s.read", fixture_testdata(),
		 r->name);
	cr_assert((text = calls_read_file(path, &len)), "no %s(.gz)", path);
	for (at = strlen(text) + 1; at < len; at += strlen(text + at) + 1) {
		if (text[at] == '/')
			cur = text + at;
		else if (cur && (!strncmp(text + at, "run 4096 ", 9) ||
				 !strncmp(text + at, "open ", 5))) {
			check_bytes(r, cur, text + at);
			files++;
		}
	}
	cr_assert_gt(files, 0);
	free(text);
}

/* The host file's data regions, as SEEK_DATA/SEEK_HOLE give them. */
static void host_map(const char *p, struct calls_buf *b)
{
	int fd = open_copy(p);
	off_t pos = 0, d, h;

	cr_assert_geq(fd, 0, "%s: %s", p, strerror(errno));
	while ((d = lseek(fd, pos, SEEK_DATA)) >= 0) {
		h = lseek(fd, d, SEEK_HOLE);
		calls_buf_add(b, "%lld-%lld ", (long long)d, (long long)h);
		pos = h;
	}
	close(fd);
}

/* The kernel's map (xfs_io seek -a -r output), rounded out to BS. */
static void kernel_map(const char *out, size_t n, uint64_t size, uint64_t bs,
		       struct calls_buf *b)
{
	unsigned long long v, d = 0, last_end = 0;
	bool in = false, any = false;
	const char *end = out + n, *p = memchr(out, '\n', n);
	char kind[8];

	p = p ? p + 1 : end;	/* past "Whence\tResult" */
	while (p < end && sscanf(p, "%7s %llu", kind, &v) == 2) {
		if (!strcmp(kind, "DATA")) {
			d = v / bs * bs;
			in = true;
		} else if (!strcmp(kind, "HOLE") && in) {
			unsigned long long e = (v + bs - 1) / bs * bs;

			e = e > size ? size : e;
			if (any && d <= last_end) {
				/* merge with the region before: drop its end */
				b->len = (size_t)(strrchr(b->s, '-') - b->s);
				b->s[b->len] = '\0';
				calls_buf_add(b, "-%llu ", e);
			} else {
				calls_buf_add(b, "%llu-%llu ", d, e);
			}
			last_end = e;
			any = true;
			in = false;
		}
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
}

static void check_maps(struct run *r)
{
	char path[4096], *text, *hdr, *at;
	size_t len;
	int files = 0;

	snprintf(path, sizeof(path), "%s/%s.golden", fixture_testdata(),
		 r->name);
	cr_assert((text = calls_read_file(path, &len)), "no %s(.gz)", path);
	for (at = text; (hdr = strstr(at, "$ seek -a -r IMAGE ")); ) {
		char *tab = strchr(hdr, '\t'), *nl = strchr(hdr, '\n'), *p;
		unsigned long nout = 0, nerr = 0;
		int exit = 1;
		struct e2map_stat st = E2MAP_STAT_INIT;
		struct calls_buf want = { 0 }, got = { 0 };

		cr_assert(tab && nl);
		sscanf(tab, "\t%lu\t%d\t%lu", &nout, &exit, &nerr);
		at = nl + 1 + nout + nerr;
		if (tab - hdr < 22 || strncmp(tab - 2, " 0", 2) || exit)
			continue;
		p = strndup(hdr + 19, (size_t)(tab - 2 - hdr - 19));
		if (!e2map_path_lstat(r->m, p, &st) && S_ISREG(st.mode) &&
		    !failed(&r->fail, p) && !through_symlink(r->m, p)) {
			if ((r->how == BY_FUSE_CP || r->how == BY_FUSE_TAR) &&
			    st.blocks * 512 >= st.size && st.size)
				calls_buf_add(&want, "0-%llu ", (unsigned long
					      long)st.size);	/* not sparse */
			else
				kernel_map(nl + 1, nout, st.size,
					   (uint64_t)r->bs, &want);
			host_map(dest_of(r, p), &got);
			cr_expect_str_eq(got.s ? got.s : "",
					 want.s ? want.s : "", "%s: %s: data "
					 "regions %s, the kernel's %s (block "
					 "size %ld)", r->name, p,
					 got.s ? got.s : "none",
					 want.s ? want.s : "none", (long)r->bs);
			files++;
		}
		free(p);
		free(want.s);
		free(got.s);
	}
	cr_assert_gt(files, 0, "%s: no seek maps in %s", r->name, path);
	free(text);
}

/* Metadata of every extracted entry against e2map_path_lstat of its path. */
static int check_meta(struct run *r, const char *path,
		      struct calls_buf *links)
{
	struct e2map_stat st = E2MAP_STAT_INIT;
	struct stat hs;
	const char *d = dest_of(r, path);

	if (e2map_path_lstat(r->m, path, &st) || failed(&r->fail, path) ||
	    through_symlink(r->m, path) ||
	    (by_tar(r) && S_ISSOCK(st.mode)))
		return 0;
	cr_assert_eq(lstat(d, &hs), 0, "%s: %s: no copy at %s", r->name,
		     path, d);
	cr_expect_eq(hs.st_mode, st.mode, "%s: %s: mode %o, not %o", r->name,
		     path, hs.st_mode, st.mode);
	/* as cp -a, a user other than root keeps the files as their own */
	cr_expect(geteuid() || (hs.st_uid == st.uid && hs.st_gid == st.gid),
		  "%s: %s: owner", r->name, path);
	/* tar restores no atime, nor the times of "." (the archive's
	 * times are held to the image's in check_archive_times) */
	cr_expect((by_tar(r) && !strcmp(path, "/")) ||
		  (hs.st_mtim.tv_sec == st.mtime.sec &&
		   hs.st_mtim.tv_nsec == st.mtime.nsec), "%s: %s: mtime",
		  r->name, path);
	cr_expect(by_tar(r) ||
		  (hs.st_atim.tv_sec == st.atime.sec &&
		   hs.st_atim.tv_nsec == st.atime.nsec), "%s: %s: atime",
		  r->name, path);
	if (S_ISREG(st.mode) || S_ISLNK(st.mode))
		cr_expect_eq((uint64_t)hs.st_size, st.size, "%s: %s: size",
			     r->name, path);
	if (S_ISCHR(st.mode) || S_ISBLK(st.mode))
		cr_expect_eq((uint64_t)hs.st_rdev, st.rdev, "%s: %s: rdev",
			     r->name, path);
	if (r->how == BY_FUSE)
		cr_expect(hs.st_ino == st.ino && hs.st_nlink == st.nlink &&
			  (uint64_t)hs.st_blocks == st.blocks &&
			  hs.st_ctim.tv_sec == st.ctime.sec &&
			  hs.st_ctim.tv_nsec == st.ctime.nsec, "%s: %s: inode, "
			  "links, st_blocks or ctime", r->name, path);
	if (!S_ISDIR(st.mode) && st.nlink > 1)
		calls_buf_add(links, "%llu %llu\n", (unsigned long long)st.ino,
			      (unsigned long long)hs.st_ino);
	return 1;
}

/* Hard links: one host inode per image inode, and the other way round. */
static void check_links(const struct calls_buf *links)
{
	unsigned long long a, b, c, d;
	const char *p, *q;

	for (p = links->s; p && *p; p = strchr(p, '\n') + 1) {
		sscanf(p, "%llu %llu", &a, &b);
		for (q = links->s; *q; q = strchr(q, '\n') + 1) {
			sscanf(q, "%llu %llu", &c, &d);
			cr_expect((a == c) == (b == d), "hard links: image "
				  "inodes %llu/%llu, copies %llu/%llu", a, c,
				  b, d);
		}
	}
}

static void check_all_meta(struct run *r)
{
	char path[4096], *text;
	size_t len, at;
	struct calls_buf links = { 0 };
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s.read", fixture_testdata(),
		 r->name);
	cr_assert((text = calls_read_file(path, &len)), "no %s(.gz)", path);
	for (at = strlen(text) + 1; at < len; at += strlen(text + at) + 1)
		if (text[at] == '/')
			n += check_meta(r, text + at, &links);
	cr_assert_gt(n, 0);
	check_links(&links);
	free(links.s);
	free(text);
}

/* NAME extracted HOW, the extracting tar exiting STATUS. */
static void image_status(const char *name, enum how how, int status)
{
	struct run r;

	extract_all(&r, name, how);
	cr_expect(WIFEXITED(r.tar_status) &&
		  WEXITSTATUS(r.tar_status) == status, "%s: the tar "
		  "extracting it ended with wait status %#x", name,
		  r.tar_status);
	check_all_meta(&r);
	check_all_bytes(&r);
	check_maps(&r);
	run_free(&r);
}

static void image(const char *name, enum how how)
{
	image_status(name, how, 0);
}

/*
 * Whether the scratch filesystem takes xattr NAME = VALUE at all (a value
 * larger than its block needs ext4's ea_inode, which /tmp may lack): the
 * copy can hold only what its filesystem takes, whoever writes it.
 */
static bool host_takes(const char *name, const void *value, size_t len)
{
	char probe[] = "/tmp/e2map-xattr-probe-XXXXXX";
	bool dir = strstr(name, "posix_acl_default") != NULL, ok;
	int fd = -1;

	if (dir)
		cr_assert(mkdtemp(probe));
	else
		cr_assert_geq(fd = mkstemp(probe), 0);
	if (fd >= 0)
		close(fd);
	ok = lsetxattr(probe, name, value, len, 0) == 0;
	dir ? rmdir(probe) : unlink(probe);
	return ok;
}

/* Each value NAME.xattr.gz shows the mount giving, on the copy. */
static void check_xattrs(struct run *r)
{
	char path[4096], *text, name[300];
	const char *cur = NULL, *at;
	size_t len;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s.xattr", fixture_testdata(),
		 r->name);
	cr_assert((text = calls_read_file(path, &len)), "no %s(.gz)", path);
	name[0] = '\0';
	for (at = text; at < text + len; at += strlen(at) + 1) {
		if (!strncmp(at, "P ", 2)) {
			cur = at + 2;
		} else if (!strncmp(at, "N ", 2)) {
			snprintf(name, sizeof(name), "%s", at + 2);
		} else if (!strncmp(at, "V ", 2) && name[0] && cur &&
			   !failed(&r->fail, cur) && !through_symlink(r->m, cur) &&
			   (!geteuid() || strncmp(name, "trusted.", 8))) {
			size_t hl = strlen(at + 2), i;
			unsigned char *want = malloc(hl / 2 + 1);
			unsigned char *got = malloc(hl / 2 + 1);
			ssize_t g;

			cr_assert(want && got);
			for (i = 0; i < hl / 2; i++)
				sscanf(at + 2 + 2 * i, "%2hhx", &want[i]);
			g = lgetxattr(dest_of(r, cur), name, got, hl / 2 + 1);
			if (g < 0 && errno == ENODATA &&
			    !host_takes(name, want, hl / 2))
				g = (ssize_t)(hl / 2), memcpy(got, want, hl / 2);
			cr_expect(g == (ssize_t)(hl / 2) && !memcmp(got, want, hl / 2),
				  "%s: %s: xattr %s not copied (%s)", r->name,
				  cur, name, g < 0 ? strerror(errno) : "value");
			free(want);
			free(got);
			n++;
			name[0] = '\0';
		} else {
			name[0] = '\0';	/* "G": a probe, not listed */
		}
	}
	cr_assert_gt(n, 0);
	free(text);
}

static void image_xattrs(const char *name, enum how how)
{
	struct run r;

	extract_all(&r, name, how);
	check_xattrs(&r);
	run_free(&r);
}

TestSuite(extract, .timeout = 120);
TestSuite(tar, .timeout = 120);

static void need_bsdtar(void)
{
	if (system("bsdtar --version >/dev/null 2>&1"))
		cr_skip_test("bsdtar is not installed (Debian's libarchive-tools)");
}

Test(extract, xattrs_of_every_kind) { image_xattrs("xattr-4k", BY_EXTRACT); }
Test(extract, xattrs_4k) { image_xattrs("ext4-4k", BY_EXTRACT); }
Test(tar, xattrs_of_every_kind_gnu) { image_xattrs("xattr-4k", BY_GNU_TAR); }
Test(tar, xattrs_of_every_kind_bsdtar, .init = need_bsdtar)
{
	image_xattrs("xattr-4k", BY_BSDTAR);
}

Test(extract, ext4_4k) { image("ext4-4k", BY_EXTRACT); }
Test(extract, ext4_1k) { image("ext4-1k", BY_EXTRACT); }
Test(extract, ext4_2k) { image("ext4-2k", BY_EXTRACT); }
Test(extract, ext2_1k) { image("ext2-1k", BY_EXTRACT); }
Test(extract, ext3_1k) { image("ext3-1k", BY_EXTRACT); }
Test(extract, ext4_bigalloc) { image("ext4-bigalloc", BY_EXTRACT); }
Test(extract, ext4_inline) { image("ext4-inline", BY_EXTRACT); }
Test(extract, ext4_links) { image("ext4-links", BY_EXTRACT); }
Test(extract, ext4_noextents) { image("ext4-noextents", BY_EXTRACT); }
Test(extract, ext4_deep) { image("ext4-deep", BY_EXTRACT); }
Test(extract, ext4_names) { image("ext4-names", BY_EXTRACT); }
Test(extract, special_1k) { image("special-1k", BY_EXTRACT); }
Test(extract, corrupt_4k) { image("corrupt-4k", BY_EXTRACT); }
Test(extract, crafted_4k) { image("crafted-4k", BY_EXTRACT); }

Test(tar, ext4_4k_gnu) { image("ext4-4k", BY_GNU_TAR); }

/* `e2map tar -q -f ARCHIVE IMG`, which must exit 0. */
static void archive_ok(const char *img, const char *archive)
{
	struct cli_out o;

	cr_assert_eq(cli_run((const char *[]){ "tar", "-q", "-f", archive, img,
					       NULL }, &o), 0, "E2MAP is not set");
	cr_assert_eq(o.status, 0, "%s", o.err);
	cli_out_free(&o);
}

/* Times from 1901 to 2446, before 1970 with nanoseconds: each member's
 * pax records, read as GNU tar and Python read a decimal, are the image's
 * times, also between -1 and 0 s (tar_pax.c writes GNU tar's decimal). */
Test(tar, times_before_1970_read_as_gnu_tar_reads_them)
{
	char archive[] = "/tmp/e2map-tar-XXXXXX", *img = fixture_image("times-4k");
	struct run r = { .name = "times-4k" };
	int fd = mkstemp(archive);

	cr_assert(img && fd >= 0);
	close(fd);
	archive_ok(img, archive);
	cr_assert_eq(e2map_open(img, NULL, &r.m), 0);
	check_archive_times(&r, archive);
	e2map_close(r.m);
	unlink(archive);
	fixture_remove(img);
}
Test(tar, ext4_1k_gnu) { image("ext4-1k", BY_GNU_TAR); }
Test(tar, ext4_2k_gnu) { image("ext4-2k", BY_GNU_TAR); }
Test(tar, ext2_1k_gnu) { image("ext2-1k", BY_GNU_TAR); }
Test(tar, ext3_1k_gnu) { image("ext3-1k", BY_GNU_TAR); }
Test(tar, ext4_bigalloc_gnu) { image("ext4-bigalloc", BY_GNU_TAR); }
Test(tar, ext4_inline_gnu) { image("ext4-inline", BY_GNU_TAR); }
Test(tar, ext4_links_gnu) { image("ext4-links", BY_GNU_TAR); }
Test(tar, ext4_noextents_gnu) { image("ext4-noextents", BY_GNU_TAR); }
Test(tar, ext4_deep_gnu) { image("ext4-deep", BY_GNU_TAR); }
Test(tar, ext4_names_gnu) { image("ext4-names", BY_GNU_TAR); }
Test(tar, special_1k_gnu) { image("special-1k", BY_GNU_TAR); }
Test(tar, corrupt_4k_gnu) { image("corrupt-4k", BY_GNU_TAR); }
Test(tar, crafted_4k_gnu) { image("crafted-4k", BY_GNU_TAR); }

Test(tar, ext4_4k_bsdtar, .init = need_bsdtar)
{
	image("ext4-4k", BY_BSDTAR);
}
Test(tar, ext4_1k_bsdtar, .init = need_bsdtar)
{
	image("ext4-1k", BY_BSDTAR);
}
Test(tar, ext4_2k_bsdtar, .init = need_bsdtar)
{
	image("ext4-2k", BY_BSDTAR);
}
Test(tar, ext2_1k_bsdtar, .init = need_bsdtar)
{
	image("ext2-1k", BY_BSDTAR);
}
Test(tar, ext3_1k_bsdtar, .init = need_bsdtar)
{
	image("ext3-1k", BY_BSDTAR);
}
Test(tar, ext4_bigalloc_bsdtar, .init = need_bsdtar)
{
	image("ext4-bigalloc", BY_BSDTAR);
}
Test(tar, ext4_inline_bsdtar, .init = need_bsdtar)
{
	image("ext4-inline", BY_BSDTAR);
}
Test(tar, ext4_links_bsdtar, .init = need_bsdtar)
{
	image("ext4-links", BY_BSDTAR);
}
Test(tar, ext4_noextents_bsdtar, .init = need_bsdtar)
{
	image("ext4-noextents", BY_BSDTAR);
}
Test(tar, ext4_deep_bsdtar, .init = need_bsdtar)
{
	image("ext4-deep", BY_BSDTAR);
}
/* Names that are not UTF-8 are written as GNU tar writes them, with no
 * hdrcharset record (GNU tar warns at one): bsdtar extracts them, warns
 * that it cannot convert them and exits 1, as on GNU tar's own archive
 * of the mount (measured: GNU tar 1.34, bsdtar 3.6.2). */
Test(tar, ext4_names_bsdtar, .init = need_bsdtar)
{
	image_status("ext4-names", BY_BSDTAR, 1);
}
Test(tar, special_1k_bsdtar, .init = need_bsdtar)
{
	image("special-1k", BY_BSDTAR);
}
Test(tar, corrupt_4k_bsdtar, .init = need_bsdtar)
{
	image("corrupt-4k", BY_BSDTAR);
}
Test(tar, crafted_4k_bsdtar, .init = need_bsdtar)
{
	image("crafted-4k", BY_BSDTAR);
}

TestSuite(fuse, .timeout = 120);

Test(fuse, xattrs_of_every_kind) { image_xattrs("xattr-4k", BY_FUSE); }
Test(fuse, ext4_4k) { image("ext4-4k", BY_FUSE); }
Test(fuse, ext4_1k) { image("ext4-1k", BY_FUSE); }
Test(fuse, ext4_2k) { image("ext4-2k", BY_FUSE); }
Test(fuse, ext2_1k) { image("ext2-1k", BY_FUSE); }
Test(fuse, ext3_1k) { image("ext3-1k", BY_FUSE); }
Test(fuse, ext4_bigalloc) { image("ext4-bigalloc", BY_FUSE); }
Test(fuse, ext4_inline) { image("ext4-inline", BY_FUSE); }
Test(fuse, ext4_links) { image("ext4-links", BY_FUSE); }
Test(fuse, ext4_noextents) { image("ext4-noextents", BY_FUSE); }
Test(fuse, ext4_deep) { image("ext4-deep", BY_FUSE); }
Test(fuse, ext4_names) { image("ext4-names", BY_FUSE); }
Test(fuse, special_1k) { image("special-1k", BY_FUSE); }
Test(fuse, corrupt_4k) { image("corrupt-4k", BY_FUSE); }
Test(fuse, crafted_4k) { image("crafted-4k", BY_FUSE); }

/* cp -a and tar --sparse on the FUSE mount keep the holes (clean images:
 * what cp and tar do with a failing read is theirs). */
Test(fuse, cp_a_ext4_4k) { image("ext4-4k", BY_FUSE_CP); }
Test(fuse, cp_a_ext4_1k) { image("ext4-1k", BY_FUSE_CP); }
Test(fuse, cp_a_bigalloc) { image("ext4-bigalloc", BY_FUSE_CP); }
Test(fuse, cp_a_inline) { image("ext4-inline", BY_FUSE_CP); }
Test(fuse, cp_a_links) { image("ext4-links", BY_FUSE_CP); }
Test(fuse, cp_a_special) { image("special-1k", BY_FUSE_CP); }
Test(fuse, cp_a_xattrs) { image_xattrs("xattr-4k", BY_FUSE_CP); }
Test(fuse, tar_sparse_ext4_4k) { image("ext4-4k", BY_FUSE_TAR); }
Test(fuse, tar_sparse_ext4_1k) { image("ext4-1k", BY_FUSE_TAR); }
Test(fuse, tar_sparse_bigalloc) { image("ext4-bigalloc", BY_FUSE_TAR); }
Test(fuse, tar_sparse_links) { image("ext4-links", BY_FUSE_TAR); }
Test(fuse, tar_sparse_noextents) { image("ext4-noextents", BY_FUSE_TAR); }

/* Every write through the mount is EROFS, and the image keeps its bytes. */
Test(fuse, writes_are_erofs_and_the_image_is_untouched)
{
	char *img = fixture_image("ext4-4k"), before[65], after[65], p[200];
	struct run r = { .name = "ext4-4k", .how = BY_FUSE };
	int fd;

	cr_assert(img && fixture_sha256(img, before) == 0);
	strcpy(r.dir, "/tmp/e2map-fuse-XXXXXX");
	cr_assert(mkdtemp(r.dir));
	fuse_mount(&r, img, r.dir);
	snprintf(p, sizeof(p), "%s/new", r.dir);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	cr_expect(fd < 0 && errno == EROFS, "create: %s", strerror(errno));
	cr_expect(mkdir(p, 0755) < 0 && errno == EROFS);
	snprintf(p, sizeof(p), "%s/dense", r.dir);
	fd = open(p, O_WRONLY);
	cr_expect(fd < 0 && errno == EROFS, "open for writing");
	cr_expect(truncate(p, 0) < 0 && errno == EROFS);
	cr_expect(setxattr(p, "user.x", "1", 1, 0) < 0 && errno == EROFS);
	cr_expect(chmod(p, 0777) < 0 && errno == EROFS);
	cr_expect(unlink(p) < 0 && errno == EROFS);
	fuse_unmount(&r, r.dir);
	cr_assert_eq(fixture_sha256(img, after), 0);
	cr_expect_str_eq(after, before, "the image was written");
	fixture_remove(img);
}

/* ---- what GNU tar writes in the pax headers (cmd/tar_pax.c) ---- */

/* Run CMD, a shell line; its exit status, or -1. */
static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Xattr names beyond ASCII, with a space, '=' and '%', and a file whose
 * mode's group bits are its ACL's mask (0674), not its group entry (r):
 * GNU tar restores each name and the mode; the header holds 0674 and the
 * ACL's own entries, as GNU tar archives them from a mount.
 */
Test(tar, xattr_names_and_acl_mode_as_gnu_tar_writes_them)
{
	/* posix_acl_xattr: version 2; user::rw- user:1000:r-- group::r--
	 * mask::rwx other::r-- */
	static const unsigned char acl[] = {
		2, 0, 0, 0,  1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		2, 0, 4, 0, 0xe8, 3, 0, 0,  4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x10, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	};
	char dir[] = "/tmp/e2map-taracl-XXXXXX", cmd[2048], got[64];
	char *img = fixture_image("sample");
	FILE *f;
	ssize_t n;

	if (sh("command -v debugfs >/dev/null") != 0)
		cr_skip_test("debugfs is not installed");
	cr_assert(img && mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/acl", dir);
	cr_assert((f = fopen(cmd, "w")));
	cr_assert_eq(fwrite(acl, 1, sizeof(acl), f), sizeof(acl));
	fclose(f);
	snprintf(cmd, sizeof(cmd), "printf 'hi\\n' > %s/x && debugfs -w -f - %s "
		 ">/dev/null 2>&1 <<'EOF'\nwrite %s/x x\nea_set /x user.\xc3\xa9t\xc3\xa9 v1\n"
		 "ea_set /x \"user.a b=c%%\" v2\nea_set -f %s/acl /x "
		 "system.posix_acl_access\nsif /x mode 0100674\nEOF", dir, img,
		 dir, dir);
	cr_assert_eq(sh(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/t.tar", dir);
	archive_ok(img, cmd);
	/* the header: Python reads the mode and the records */
	snprintf(cmd, sizeof(cmd), "python3 -c 'import tarfile,sys; m = "
		 "tarfile.open(sys.argv[1]).getmember(\"./x\"); sys.exit(m.mode "
		 "!= 0o674 or \"group::r--\" not in m.pax_headers.get("
		 "\"SCHILY.acl.access\", \"\"))' %s/t.tar", dir);
	cr_expect_eq(sh(cmd), 0, "the header's mode or ACL: %s", cmd);
	snprintf(cmd, sizeof(cmd), "mkdir %s/out && tar -xpf %s/t.tar -C "
		 "%s/out --xattrs --xattrs-include='*' 2> %s/err && ! test -s "
		 "%s/err", dir, dir, dir, dir, dir);
	cr_expect_eq(sh(cmd), 0, "GNU tar failed or warned: %s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/out/x", dir);
	n = lgetxattr(cmd, "user.\xc3\xa9t\xc3\xa9", got, sizeof(got));
	cr_expect(n == 2 && !memcmp(got, "v1", 2), "user.été not restored");
	n = lgetxattr(cmd, "user.a b=c%", got, sizeof(got));
	cr_expect(n == 2 && !memcmp(got, "v2", 2), "user.a b=c%% not restored");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	sh(cmd);
	fixture_remove(img);
}

/* Names that are not UTF-8 (ext4-names): GNU tar extracts the archive
 * without a word, as it extracts its own (no hdrcharset record). */
Test(tar, names_not_utf8_extract_quietly_with_gnu_tar)
{
	char dir[] = "/tmp/e2map-tarnames-XXXXXX", cmd[1024];
	char *img = fixture_image("ext4-names");

	cr_assert(img && mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/t.tar", dir);
	archive_ok(img, cmd);
	snprintf(cmd, sizeof(cmd), "! grep -aq hdrcharset %s/t.tar && mkdir "
		 "%s/out && tar -xpf %s/t.tar -C %s/out 2> %s/err && ! test -s "
		 "%s/err", dir, dir, dir, dir, dir, dir);
	cr_expect_eq(sh(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	sh(cmd);
	fixture_remove(img);
}

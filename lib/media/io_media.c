/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The media under everything: the bytes of a whole disk as an examiner
 * holds it, read in place.  A plain file (or block device), or a
 * container whose format is told by its signature: EnCase E01/Ex01
 * segment sets (libewf), VMDK (libvmdk), VHD/VHDX (libvhdi), QCOW (libqcow).
 * Nothing is ever converted to a raw copy, and nothing is written: every
 * container is opened for reading only.  Each media handle belongs to one
 * e2map handle, so handles on one image share nothing (parscan.c's threads).
 */
#include "media.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include <libewf.h>
#include <libqcow.h>
#include <libvhdi.h>
#include <libvmdk.h>

struct e2map_media {
	const struct media_ops *ops;
	void *h;			/* the library's handle */
	void *pool;			/* VMDK: its extent, opened by us */
	int fd;				/* raw: the file */
	uint64_t size;
};

/* One container format: its name, signature test, open, read, close. */
struct media_ops {
	const char *name;
	int (*check)(const char *path);		/* 1: this format */
	int (*open)(struct e2map_media *md, const char *path);
	ssize_t (*pread)(struct e2map_media *md, void *buf, size_t len,
			 uint64_t off);
	void (*close)(struct e2map_media *md);
};

/* -- raw files and block devices -- */

static int raw_check(const char *path)
{
	(void)path;
	return 1;
}

static int raw_open(struct e2map_media *md, const char *path)
{
	struct stat st;

	if ((md->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(md->fd, &st) < 0)
		return -errno;
	md->size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(md->fd, BLKGETSIZE64, &md->size) < 0)
		return -errno;
	return 0;
}

static ssize_t raw_pread(struct e2map_media *md, void *buf, size_t len,
			 uint64_t off)
{
	ssize_t n = pread(md->fd, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

static void raw_close(struct e2map_media *md)
{
	if (md->fd >= 0)
		close(md->fd);
}

/* -- EnCase EWF (E01, Ex01): every segment of the set, found by glob -- */

static int ewf_check(const char *path)
{
	libewf_error_t *err = NULL;
	int r = libewf_check_file_signature(path, &err);

	libewf_error_free(&err);
	return r;
}

static int ewf_fail(const char *what, libewf_error_t **err)
{
	char s[200];

	s[0] = '\0';
	if (*err && libewf_error_sprint(*err, s, sizeof(s)) > 0)
		s[strcspn(s, "\n")] = '\0';
	libewf_error_free(err);
	return e2map__fail(NULL, -EIO, "EWF: %s%s%s", what, s[0] ? ": " : "",
			   s);
}

static ssize_t ewf_pread(struct e2map_media *md, void *buf, size_t len,
			 uint64_t off);

/*
 * libewf opens a set whose later segments are missing (the first holds
 * the media size) and fails only when a read gets there: the last sector
 * is read now, so that an incomplete set fails at open, named.
 */
static int ewf_complete(struct e2map_media *md, const char *last)
{
	unsigned char b[512];
	size_t n = md->size < sizeof(b) ? (size_t)md->size : sizeof(b);

	if (!n || ewf_pread(md, b, n, md->size - n) == (ssize_t)n)
		return 0;
	return e2map__fail(NULL, -EIO, "EWF: the segment set ends early: "
			   "%s is the last segment found, the media (%" PRIu64
			   " bytes) goes on past it (a segment missing or "
			   "truncated)", last, md->size);
}

static int ewf_open(struct e2map_media *md, const char *path)
{
	libewf_error_t *err = NULL;
	libewf_handle_t *h = NULL;
	char **names = NULL, names_last[256];
	int n = 0, r;
	size64_t size;

	if (libewf_glob(path, strlen(path), LIBEWF_FORMAT_UNKNOWN, &names, &n,
			&err) != 1)
		return ewf_fail("cannot find the segment files", &err);
	snprintf(names_last, sizeof(names_last), "%s", n ? names[n - 1] : "");
	r = libewf_handle_initialize(&h, &err) == 1 &&
	    libewf_handle_open(h, names, n, LIBEWF_OPEN_READ, &err) == 1;
	libewf_glob_free(names, n, NULL);
	md->h = h;
	if (!r)
		return ewf_fail("cannot open the segment set (a segment "
				"missing, truncated or out of order?)", &err);
	if (libewf_handle_get_media_size(h, &size, &err) != 1)
		return ewf_fail("no media size", &err);
	md->size = size;
	return ewf_complete(md, names_last);
}

/* Does [OFF, OFF + LEN) touch a range libewf noted as failing its checksum? */
static bool ewf_bad(struct e2map_media *md, uint64_t off, size_t len)
{
	libewf_error_t *err = NULL;
	uint32_t n = 0, i, bps = 512;
	uint64_t start, count;

	if (libewf_handle_get_number_of_checksum_errors(md->h, &n, &err) != 1)
		libewf_error_free(&err);
	if (n && libewf_handle_get_bytes_per_sector(md->h, &bps, &err) != 1)
		libewf_error_free(&err);
	for (i = 0; i < n; i++) {
		if (libewf_handle_get_checksum_error(md->h, i, &start, &count,
						     &err) != 1) {
			libewf_error_free(&err);
			return true;
		}
		if (start * bps < off + len && off < (start + count) * bps)
			return true;
	}
	return false;
}

/*
 * libewf answers a chunk whose checksum fails with zeroes and a note (once
 * per chunk): evidence that does not verify must not answer as if it did,
 * on the first read of it or any later one.
 */
static ssize_t ewf_pread(struct e2map_media *md, void *buf, size_t len,
			 uint64_t off)
{
	libewf_error_t *err = NULL;
	ssize_t n = libewf_handle_read_random(md->h, buf, len, (off64_t)off,
					      &err);

	if (n < 0) {
		libewf_error_free(&err);
		return -EIO;
	}
	return ewf_bad(md, off, (size_t)n) ? -EBADMSG : n;
}

static void ewf_close(struct e2map_media *md)
{
	libewf_handle_t *h = md->h;

	if (!h)
		return;
	libewf_handle_close(h, NULL);
	libewf_handle_free(&h, NULL);
}

/* -- VMDK: the descriptor and its extent files -- */

static int vmdk_check(const char *path)
{
	libvmdk_error_t *err = NULL;
	int r = libvmdk_check_file_signature(path, &err);

	libvmdk_error_free(&err);
	return r;
}

static int vmdk_fail(const char *what, libvmdk_error_t **err)
{
	char s[200];

	s[0] = '\0';
	if (*err && libvmdk_error_sprint(*err, s, sizeof(s)) > 0)
		s[strcspn(s, "\n")] = '\0';
	libvmdk_error_free(err);
	return e2map__fail(NULL, -EIO, "VMDK: %s%s%s", what, s[0] ? ": " : "",
			   s);
}

/* Is PATH a sparse VMDK, descriptor and data in one file? */
static bool vmdk_sparse(const char *path)
{
	unsigned char b[4];
	FILE *f = fopen(path, "rbe");
	bool r = f && fread(b, 1, 4, f) == 4 &&
		 (!memcmp(b, "KDMV", 4) || !memcmp(b, "COWD", 4));

	if (f)
		fclose(f);
	return r;
}

/*
 * A monolithic sparse VMDK names its one extent by the name it was
 * made with: renamed, as evidence files are, libvmdk cannot find it.
 * The file itself is that extent, so it is handed over directly.
 */
static int vmdk_self_extent(struct e2map_media *md, const char *path,
			    libvmdk_error_t **verr)
{
	libbfio_handle_t *file = NULL;
	libbfio_pool_t *pool = NULL;
	libbfio_error_t *err = NULL;
	int n = 0, entry;

	if (!vmdk_sparse(path) ||
	    libvmdk_handle_get_number_of_extents(md->h, &n, NULL) != 1 ||
	    n != 1)
		return -EIO;
	if (libbfio_file_initialize(&file, &err) != 1 ||
	    libbfio_file_set_name(file, path, strlen(path), &err) != 1 ||
	    libbfio_pool_initialize(&pool, 0, 0, &err) != 1 ||
	    libbfio_pool_append_handle(pool, &entry, file, LIBBFIO_OPEN_READ,
				       &err) != 1) {
		libbfio_error_free(&err);
		libbfio_handle_free(&file, NULL);
		libbfio_pool_free(&pool, NULL);
		return -EIO;
	}
	md->pool = pool;	/* the pool owns FILE now */
	libvmdk_error_free(verr);
	if (libvmdk_handle_open_extent_data_files_file_io_pool(md->h, pool,
								verr) != 1)
		return -EIO;
	return 0;
}

static int vmdk_open(struct e2map_media *md, const char *path)
{
	libvmdk_error_t *err = NULL;
	libvmdk_handle_t *h = NULL;
	size64_t size;

	if (libvmdk_handle_initialize(&h, &err) != 1)
		return vmdk_fail("no memory", &err);
	md->h = h;
	if (libvmdk_handle_open(h, path, LIBVMDK_OPEN_READ, &err) != 1)
		return vmdk_fail("cannot open the descriptor", &err);
	if (libvmdk_handle_open_extent_data_files(h, &err) != 1 &&
	    vmdk_self_extent(md, path, &err) < 0)
		return vmdk_fail("cannot open the extent files", &err);
	if (libvmdk_handle_get_media_size(h, &size, &err) != 1)
		return vmdk_fail("no media size", &err);
	md->size = size;
	return 0;
}

static ssize_t vmdk_pread(struct e2map_media *md, void *buf, size_t len,
			  uint64_t off)
{
	libvmdk_error_t *err = NULL;
	ssize_t n = libvmdk_handle_read_buffer_at_offset(md->h, buf, len,
							 (off64_t)off, &err);

	libvmdk_error_free(&err);
	return n < 0 ? -EIO : n;
}

static void vmdk_close(struct e2map_media *md)
{
	libvmdk_handle_t *h = md->h;

	if (!h)
		return;
	libvmdk_handle_close(h, NULL);
	libvmdk_handle_free(&h, NULL);
	if (md->pool) {
		libbfio_pool_t *pool = md->pool;

		libbfio_pool_free(&pool, NULL);
	}
}

/* -- VHD and VHDX (libvhdi) -- */

static int vhdi_check(const char *path)
{
	libvhdi_error_t *err = NULL;
	int r = libvhdi_check_file_signature(path, &err);

	libvhdi_error_free(&err);
	return r;
}

static int vhdi_fail(const char *what, libvhdi_error_t **err)
{
	char s[200];

	s[0] = '\0';
	if (*err && libvhdi_error_sprint(*err, s, sizeof(s)) > 0)
		s[strcspn(s, "\n")] = '\0';
	libvhdi_error_free(err);
	return e2map__fail(NULL, -EIO, "VHD: %s%s%s", what, s[0] ? ": " : "",
			   s);
}

static int vhdi_open(struct e2map_media *md, const char *path)
{
	libvhdi_error_t *err = NULL;
	libvhdi_file_t *h = NULL;
	uint32_t type = 0;
	size64_t size;

	if (libvhdi_file_initialize(&h, &err) != 1)
		return vhdi_fail("no memory", &err);
	md->h = h;
	if (libvhdi_file_open(h, path, LIBVHDI_OPEN_READ, &err) != 1)
		return vhdi_fail("cannot open", &err);
	/* A differencing disk reads through its parent, which is not given. */
	if (libvhdi_file_get_disk_type(h, &type, &err) == 1 &&
	    type == LIBVHDI_DISK_TYPE_DIFFERENTIAL)
		return e2map__fail(NULL, -EOPNOTSUPP, "VHD: a differencing "
				   "disk: its parent image is needed");
	libvhdi_error_free(&err);
	if (libvhdi_file_get_media_size(h, &size, &err) != 1)
		return vhdi_fail("no media size", &err);
	md->size = size;
	return 0;
}

static ssize_t vhdi_pread(struct e2map_media *md, void *buf, size_t len,
			  uint64_t off)
{
	libvhdi_error_t *err = NULL;
	ssize_t n = libvhdi_file_read_buffer_at_offset(md->h, buf, len,
						       (off64_t)off, &err);

	libvhdi_error_free(&err);
	return n < 0 ? -EIO : n;
}

static void vhdi_close(struct e2map_media *md)
{
	libvhdi_file_t *h = md->h;

	if (!h)
		return;
	libvhdi_file_close(h, NULL);
	libvhdi_file_free(&h, NULL);
}

/* -- QCOW (1, 2 and 3) -- */

static int qcow_check(const char *path)
{
	libqcow_error_t *err = NULL;
	int r = libqcow_check_file_signature(path, &err);

	libqcow_error_free(&err);
	return r;
}

static int qcow_fail(const char *what, libqcow_error_t **err)
{
	char s[200];

	s[0] = '\0';
	if (*err && libqcow_error_sprint(*err, s, sizeof(s)) > 0)
		s[strcspn(s, "\n")] = '\0';
	libqcow_error_free(err);
	return e2map__fail(NULL, -EIO, "QCOW: %s%s%s", what, s[0] ? ": " : "",
			   s);
}

static int qcow_open(struct e2map_media *md, const char *path)
{
	libqcow_error_t *err = NULL;
	libqcow_file_t *h = NULL;
	size64_t size;

	if (libqcow_file_initialize(&h, &err) != 1)
		return qcow_fail("no memory", &err);
	md->h = h;
	if (libqcow_file_open(h, path, LIBQCOW_OPEN_READ, &err) != 1)
		return qcow_fail("cannot open", &err);
	if (libqcow_file_get_media_size(h, &size, &err) != 1)
		return qcow_fail("no media size", &err);
	md->size = size;
	return 0;
}

static ssize_t qcow_pread(struct e2map_media *md, void *buf, size_t len,
			  uint64_t off)
{
	libqcow_error_t *err = NULL;
	ssize_t n = libqcow_file_read_buffer_at_offset(md->h, buf, len,
						       (off64_t)off, &err);

	libqcow_error_free(&err);
	return n < 0 ? -EIO : n;
}

static void qcow_close(struct e2map_media *md)
{
	libqcow_file_t *h = md->h;

	if (!h)
		return;
	libqcow_file_close(h, NULL);
	libqcow_file_free(&h, NULL);
}

/* Tried in order; raw, which takes anything, last. */
static const struct media_ops formats[] = {
	{ "ewf", ewf_check, ewf_open, ewf_pread, ewf_close },
	{ "vmdk", vmdk_check, vmdk_open, vmdk_pread, vmdk_close },
	{ "vhd", vhdi_check, vhdi_open, vhdi_pread, vhdi_close },
	{ "qcow", qcow_check, qcow_open, qcow_pread, qcow_close },
	{ "raw", raw_check, raw_open, raw_pread, raw_close },
};

/*
 * A signature check reads the file's head: a FIFO would lose those bytes
 * (check_file refused those already) and a device node is raw by nature.
 */
static const struct media_ops *detect(const char *path)
{
	struct stat st;
	size_t i;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return &formats[sizeof(formats) / sizeof(formats[0]) - 1];
	for (i = 0; formats[i].check != raw_check; i++)
		if (formats[i].check(path) == 1)
			break;
	return &formats[i];
}

int e2map__media_open(const char *path, struct e2map_media **out)
{
	struct e2map_media *md;
	struct stat st;
	int err;

	*out = NULL;
	/* open(2) of a directory read-only works: say what it is, as cat
	 * does, before a container library or libblkid says less. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return e2map__fail(NULL, -EISDIR, "%s", "");
	if (!(md = calloc(1, sizeof(*md))))
		return -ENOMEM;
	md->fd = -1;
	md->ops = detect(path);
	if ((err = md->ops->open(md, path)) < 0) {
		e2map__media_close(md);
		return err;
	}
	*out = md;
	return 0;
}

void e2map__media_close(struct e2map_media *md)
{
	if (!md)
		return;
	md->ops->close(md);
	free(md);
}

const char *e2map__media_format(const struct e2map_media *md)
{
	return md->ops->name;
}

uint64_t e2map__media_size(const struct e2map_media *md)
{
	return md->size;
}

int e2map__media_fd(const struct e2map_media *md)
{
	return md->fd;
}

int e2map__media_pread(struct e2map_media *md, void *buf, size_t len,
		       uint64_t off)
{
	char *p = buf;
	ssize_t n;

	if (off > md->size || len > md->size - off)
		return -EIO;
	while (len) {
		n = md->ops->pread(md, p, len, off);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

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
#include "container.h"

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

/* -- raw files and block devices -- */

/* MD->fd is PATH, opened by e2map__media_open. */
static int raw_open(struct e2map_media *md, const char *path)
{
	struct stat st;

	(void)path;
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

static const struct media_ops raw_ops = {
	.name = "raw", .open = raw_open, .pread = raw_pread, .close = raw_close,
};

/* The first and last bytes of FD, where containers sign themselves. */
static void read_sig(int fd, off_t end, struct media_sig *sig)
{
	ssize_t h = pread(fd, sig->head, sizeof(sig->head), 0), t = 0;

	if (end > (off_t)sizeof(sig->tail))
		t = pread(fd, sig->tail, sizeof(sig->tail),
			  end - (off_t)sizeof(sig->tail));
	sig->nhead = h > 0 ? (size_t)h : 0;
	sig->ntail = t > 0 ? (size_t)t : 0;
}

/*
 * A format's library is loaded only when the file's bytes may be its; a
 * signature check reads the file's head: a FIFO would lose those bytes
 * (check_file refused those already) and a device node is raw by nature.
 */
static int detect(const char *path, int fd, const struct media_ops **out)
{
	struct media_sig sig;
	struct stat st;
	size_t i;
	int err;

	*out = &raw_ops;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;	/* raw_open says why it cannot use it */
	read_sig(fd, st.st_size, &sig);
	for (i = 0; i < e2map__ncontainers; i++) {
		const struct media_ops *f = &e2map__containers[i];

		if (!f->maybe(&sig))
			continue;
		if ((err = f->load()) < 0)
			return err;
		if (f->check(path) == 1) {
			*out = f;
			break;
		}
	}
	return 0;
}

/* PATH is opened once: raw media keep that descriptor, a container's
 * library opens its files itself. */
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
	if ((md->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		err = -errno;
		free(md);
		return err;
	}
	if ((err = detect(path, md->fd, &md->ops)) < 0) {
		close(md->fd);
		free(md);
		return err;
	}
	if (md->ops != &raw_ops) {
		close(md->fd);
		md->fd = -1;
	}
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

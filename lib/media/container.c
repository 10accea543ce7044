/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Containers: EnCase E01/Ex01 segment sets (libewf), VMDK (libvmdk),
 * VHD/VHDX (libvhdi), QCOW (libqcow), each opened for reading only and
 * read in place, never converted to a raw copy.
 */
#include "container.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libewf.h>
#include <libqcow.h>
#include <libvhdi.h>
#include <libvmdk.h>

/*
 * The container libraries, loaded when a file's signature asks for one
 * (base/dl.c says why).  Each call goes through its library's table.
 */
#define EWF_FNS(X) \
	X(libewf_check_file_signature) \
	X(libewf_error_free) \
	X(libewf_error_sprint) \
	X(libewf_glob) \
	X(libewf_glob_free) \
	X(libewf_handle_close) \
	X(libewf_handle_free) \
	X(libewf_handle_get_bytes_per_sector) \
	X(libewf_handle_get_checksum_error) \
	X(libewf_handle_get_media_size) \
	X(libewf_handle_get_number_of_checksum_errors) \
	X(libewf_handle_initialize) \
	X(libewf_handle_open) \
	X(libewf_handle_read_random)

static struct ewf_fns { EWF_FNS(E2MAP_DL_SLOT) } ewf;

#define SYM(f) E2MAP_DL_SYM(struct ewf_fns, f)
static const struct e2map_dlsym ewf_syms[] = { EWF_FNS(SYM) };
#undef SYM

static struct e2map_dlib ewf_lib = {
	.what = "an E01 image", .soname = E2MAP_SO_LIBEWF, .package = "libewf2",
	.syms = ewf_syms, .count = sizeof(ewf_syms) / sizeof(ewf_syms[0]),
	.table = &ewf,
};

#define VMDK_FNS(X) \
	X(libvmdk_check_file_signature) \
	X(libvmdk_error_free) \
	X(libvmdk_error_sprint) \
	X(libvmdk_handle_close) \
	X(libvmdk_handle_free) \
	X(libvmdk_handle_get_media_size) \
	X(libvmdk_handle_get_number_of_extents) \
	X(libvmdk_handle_initialize) \
	X(libvmdk_handle_open) \
	X(libvmdk_handle_open_extent_data_files) \
	X(libvmdk_handle_open_extent_data_files_file_io_pool) \
	X(libvmdk_handle_read_buffer_at_offset)

static struct vmdk_fns { VMDK_FNS(E2MAP_DL_SLOT) } vmdk;

#define SYM(f) E2MAP_DL_SYM(struct vmdk_fns, f)
static const struct e2map_dlsym vmdk_syms[] = { VMDK_FNS(SYM) };
#undef SYM

static struct e2map_dlib vmdk_lib = {
	.what = "a VMDK image", .soname = E2MAP_SO_LIBVMDK, .package = "libvmdk1",
	.syms = vmdk_syms, .count = sizeof(vmdk_syms) / sizeof(vmdk_syms[0]),
	.table = &vmdk,
};

#define BFIO_FNS(X) \
	X(libbfio_error_free) \
	X(libbfio_file_initialize) \
	X(libbfio_file_set_name) \
	X(libbfio_handle_free) \
	X(libbfio_pool_append_handle) \
	X(libbfio_pool_free) \
	X(libbfio_pool_initialize)

static struct bfio_fns { BFIO_FNS(E2MAP_DL_SLOT) } bfio;

#define SYM(f) E2MAP_DL_SYM(struct bfio_fns, f)
static const struct e2map_dlsym bfio_syms[] = { BFIO_FNS(SYM) };
#undef SYM

static struct e2map_dlib bfio_lib = {
	.what = "a VMDK image", .soname = E2MAP_SO_LIBBFIO, .package = "libbfio1",
	.syms = bfio_syms, .count = sizeof(bfio_syms) / sizeof(bfio_syms[0]),
	.table = &bfio,
};

#define VHDI_FNS(X) \
	X(libvhdi_check_file_signature) \
	X(libvhdi_error_free) \
	X(libvhdi_error_sprint) \
	X(libvhdi_file_close) \
	X(libvhdi_file_free) \
	X(libvhdi_file_get_disk_type) \
	X(libvhdi_file_get_media_size) \
	X(libvhdi_file_initialize) \
	X(libvhdi_file_open) \
	X(libvhdi_file_read_buffer_at_offset)

static struct vhdi_fns { VHDI_FNS(E2MAP_DL_SLOT) } vhdi;

#define SYM(f) E2MAP_DL_SYM(struct vhdi_fns, f)
static const struct e2map_dlsym vhdi_syms[] = { VHDI_FNS(SYM) };
#undef SYM

static struct e2map_dlib vhdi_lib = {
	.what = "a VHD image", .soname = E2MAP_SO_LIBVHDI, .package = "libvhdi1",
	.syms = vhdi_syms, .count = sizeof(vhdi_syms) / sizeof(vhdi_syms[0]),
	.table = &vhdi,
};

#define QCOW_FNS(X) \
	X(libqcow_check_file_signature) \
	X(libqcow_error_free) \
	X(libqcow_error_sprint) \
	X(libqcow_file_close) \
	X(libqcow_file_free) \
	X(libqcow_file_get_media_size) \
	X(libqcow_file_initialize) \
	X(libqcow_file_open) \
	X(libqcow_file_read_buffer_at_offset)

static struct qcow_fns { QCOW_FNS(E2MAP_DL_SLOT) } qcow;

#define SYM(f) E2MAP_DL_SYM(struct qcow_fns, f)
static const struct e2map_dlsym qcow_syms[] = { QCOW_FNS(SYM) };
#undef SYM

static struct e2map_dlib qcow_lib = {
	.what = "a QCOW image", .soname = E2MAP_SO_LIBQCOW, .package = "libqcow1",
	.syms = qcow_syms, .count = sizeof(qcow_syms) / sizeof(qcow_syms[0]),
	.table = &qcow,
};

static int ewf_load(void)
{
	return e2map__dlib_load(&ewf_lib);
}

static int vmdk_load(void)
{
	int r = e2map__dlib_load(&vmdk_lib);

	return r < 0 ? r : e2map__dlib_load(&bfio_lib);
}

static int vhdi_load(void)
{
	return e2map__dlib_load(&vhdi_lib);
}

static int qcow_load(void)
{
	return e2map__dlib_load(&qcow_lib);
}

/*
 * The signatures, wider than the libraries': EWF's "EVF\t\r\n\xff\0",
 * "LVF...", "dvf...", "EVF2\r\n\x81\0" all hold CR LF at byte 4; a VMDK is
 * "KDMV", "COWD" or a text descriptor (no NUL in its first bytes); a VHD
 * has "conectix" at its start or in its footer, a VHDX "vhdxfile".
 */
static bool ewf_maybe(const struct media_sig *s)
{
	return s->nhead >= 8 && s->head[4] == '\r' && s->head[5] == '\n';
}

static bool vmdk_maybe(const struct media_sig *s)
{
	return s->nhead >= 4 && (!memcmp(s->head, "KDMV", 4) ||
				 !memcmp(s->head, "COWD", 4) ||
				 !memchr(s->head, 0, s->nhead));
}

static bool vhdi_maybe(const struct media_sig *s)
{
	return (s->nhead >= 8 && (!memcmp(s->head, "conectix", 8) ||
				  !memcmp(s->head, "vhdxfile", 8))) ||
	       memmem(s->tail, s->ntail, "conectix", 8);
}

static bool qcow_maybe(const struct media_sig *s)
{
	return s->nhead >= 4 && !memcmp(s->head, "QFI\xfb", 4);
}

/* -- EnCase EWF (E01, Ex01): every segment of the set, found by glob -- */

static int ewf_check(const char *path)
{
	libewf_error_t *err = NULL;
	int r = ewf.libewf_check_file_signature(path, &err);

	ewf.libewf_error_free(&err);
	return r;
}

static int ewf_fail(const char *what, libewf_error_t **err)
{
	char s[200];

	s[0] = '\0';
	if (*err && ewf.libewf_error_sprint(*err, s, sizeof(s)) > 0)
		s[strcspn(s, "\n")] = '\0';
	ewf.libewf_error_free(err);
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

	if (ewf.libewf_glob(path, strlen(path), LIBEWF_FORMAT_UNKNOWN, &names, &n,
			&err) != 1)
		return ewf_fail("cannot find the segment files", &err);
	snprintf(names_last, sizeof(names_last), "%s", n ? names[n - 1] : "");
	r = ewf.libewf_handle_initialize(&h, &err) == 1 &&
	    ewf.libewf_handle_open(h, names, n, LIBEWF_OPEN_READ, &err) == 1;
	ewf.libewf_glob_free(names, n, NULL);
	md->h = h;
	if (!r)
		return ewf_fail("cannot open the segment set (a segment "
				"missing, truncated or out of order?)", &err);
	if (ewf.libewf_handle_get_media_size(h, &size, &err) != 1)
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

	if (ewf.libewf_handle_get_number_of_checksum_errors(md->h, &n, &err) != 1)
		ewf.libewf_error_free(&err);
	if (n && ewf.libewf_handle_get_bytes_per_sector(md->h, &bps, &err) != 1)
		ewf.libewf_error_free(&err);
	for (i = 0; i < n; i++) {
		if (ewf.libewf_handle_get_checksum_error(md->h, i, &start, &count,
						     &err) != 1) {
			ewf.libewf_error_free(&err);
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
	ssize_t n = ewf.libewf_handle_read_random(md->h, buf, len, (off64_t)off,
					      &err);

	if (n < 0) {
		ewf.libewf_error_free(&err);
		return -EIO;
	}
	return ewf_bad(md, off, (size_t)n) ? -EBADMSG : n;
}

static void ewf_close(struct e2map_media *md)
{
	libewf_handle_t *h = md->h;

	if (!h)
		return;
	ewf.libewf_handle_close(h, NULL);
	ewf.libewf_handle_free(&h, NULL);
}

/* -- VMDK: the descriptor and its extent files -- */

static int vmdk_check(const char *path)
{
	libvmdk_error_t *err = NULL;
	int r = vmdk.libvmdk_check_file_signature(path, &err);

	vmdk.libvmdk_error_free(&err);
	return r;
}

static int vmdk_fail(const char *what, libvmdk_error_t **err)
{
	char s[200];

	s[0] = '\0';
	if (*err && vmdk.libvmdk_error_sprint(*err, s, sizeof(s)) > 0)
		s[strcspn(s, "\n")] = '\0';
	vmdk.libvmdk_error_free(err);
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
	    vmdk.libvmdk_handle_get_number_of_extents(md->h, &n, NULL) != 1 ||
	    n != 1)
		return -EIO;
	if (bfio.libbfio_file_initialize(&file, &err) != 1 ||
	    bfio.libbfio_file_set_name(file, path, strlen(path), &err) != 1 ||
	    bfio.libbfio_pool_initialize(&pool, 0, 0, &err) != 1 ||
	    bfio.libbfio_pool_append_handle(pool, &entry, file, LIBBFIO_OPEN_READ,
				       &err) != 1) {
		bfio.libbfio_error_free(&err);
		bfio.libbfio_handle_free(&file, NULL);
		bfio.libbfio_pool_free(&pool, NULL);
		return -EIO;
	}
	md->pool = pool;	/* the pool owns FILE now */
	vmdk.libvmdk_error_free(verr);
	if (vmdk.libvmdk_handle_open_extent_data_files_file_io_pool(md->h, pool,
								verr) != 1)
		return -EIO;
	return 0;
}

static int vmdk_open(struct e2map_media *md, const char *path)
{
	libvmdk_error_t *err = NULL;
	libvmdk_handle_t *h = NULL;
	size64_t size;

	if (vmdk.libvmdk_handle_initialize(&h, &err) != 1)
		return vmdk_fail("no memory", &err);
	md->h = h;
	if (vmdk.libvmdk_handle_open(h, path, LIBVMDK_OPEN_READ, &err) != 1)
		return vmdk_fail("cannot open the descriptor", &err);
	if (vmdk.libvmdk_handle_open_extent_data_files(h, &err) != 1 &&
	    vmdk_self_extent(md, path, &err) < 0)
		return vmdk_fail("cannot open the extent files", &err);
	if (vmdk.libvmdk_handle_get_media_size(h, &size, &err) != 1)
		return vmdk_fail("no media size", &err);
	md->size = size;
	return 0;
}

static ssize_t vmdk_pread(struct e2map_media *md, void *buf, size_t len,
			  uint64_t off)
{
	libvmdk_error_t *err = NULL;
	ssize_t n = vmdk.libvmdk_handle_read_buffer_at_offset(md->h, buf, len,
							 (off64_t)off, &err);

	vmdk.libvmdk_error_free(&err);
	return n < 0 ? -EIO : n;
}

static void vmdk_close(struct e2map_media *md)
{
	libvmdk_handle_t *h = md->h;

	if (!h)
		return;
	vmdk.libvmdk_handle_close(h, NULL);
	vmdk.libvmdk_handle_free(&h, NULL);
	if (md->pool) {
		libbfio_pool_t *pool = md->pool;

		bfio.libbfio_pool_free(&pool, NULL);
	}
}

/* -- VHD and VHDX (libvhdi) -- */

static int vhdi_check(const char *path)
{
	libvhdi_error_t *err = NULL;
	int r = vhdi.libvhdi_check_file_signature(path, &err);

	vhdi.libvhdi_error_free(&err);
	return r;
}

static int vhdi_fail(const char *what, libvhdi_error_t **err)
{
	char s[200];

	s[0] = '\0';
	if (*err && vhdi.libvhdi_error_sprint(*err, s, sizeof(s)) > 0)
		s[strcspn(s, "\n")] = '\0';
	vhdi.libvhdi_error_free(err);
	return e2map__fail(NULL, -EIO, "VHD: %s%s%s", what, s[0] ? ": " : "",
			   s);
}

static int vhdi_open(struct e2map_media *md, const char *path)
{
	libvhdi_error_t *err = NULL;
	libvhdi_file_t *h = NULL;
	uint32_t type = 0;
	size64_t size;

	if (vhdi.libvhdi_file_initialize(&h, &err) != 1)
		return vhdi_fail("no memory", &err);
	md->h = h;
	if (vhdi.libvhdi_file_open(h, path, LIBVHDI_OPEN_READ, &err) != 1)
		return vhdi_fail("cannot open", &err);
	/* A differencing disk reads through its parent, which is not given. */
	if (vhdi.libvhdi_file_get_disk_type(h, &type, &err) == 1 &&
	    type == LIBVHDI_DISK_TYPE_DIFFERENTIAL)
		return e2map__fail(NULL, -EOPNOTSUPP, "VHD: a differencing "
				   "disk: its parent image is needed");
	vhdi.libvhdi_error_free(&err);
	if (vhdi.libvhdi_file_get_media_size(h, &size, &err) != 1)
		return vhdi_fail("no media size", &err);
	md->size = size;
	return 0;
}

static ssize_t vhdi_pread(struct e2map_media *md, void *buf, size_t len,
			  uint64_t off)
{
	libvhdi_error_t *err = NULL;
	ssize_t n = vhdi.libvhdi_file_read_buffer_at_offset(md->h, buf, len,
						       (off64_t)off, &err);

	vhdi.libvhdi_error_free(&err);
	return n < 0 ? -EIO : n;
}

static void vhdi_close(struct e2map_media *md)
{
	libvhdi_file_t *h = md->h;

	if (!h)
		return;
	vhdi.libvhdi_file_close(h, NULL);
	vhdi.libvhdi_file_free(&h, NULL);
}

/* -- QCOW (1, 2 and 3) -- */

static int qcow_check(const char *path)
{
	libqcow_error_t *err = NULL;
	int r = qcow.libqcow_check_file_signature(path, &err);

	qcow.libqcow_error_free(&err);
	return r;
}

static int qcow_fail(const char *what, libqcow_error_t **err)
{
	char s[200];

	s[0] = '\0';
	if (*err && qcow.libqcow_error_sprint(*err, s, sizeof(s)) > 0)
		s[strcspn(s, "\n")] = '\0';
	qcow.libqcow_error_free(err);
	return e2map__fail(NULL, -EIO, "QCOW: %s%s%s", what, s[0] ? ": " : "",
			   s);
}

static int qcow_open(struct e2map_media *md, const char *path)
{
	libqcow_error_t *err = NULL;
	libqcow_file_t *h = NULL;
	size64_t size;

	if (qcow.libqcow_file_initialize(&h, &err) != 1)
		return qcow_fail("no memory", &err);
	md->h = h;
	if (qcow.libqcow_file_open(h, path, LIBQCOW_OPEN_READ, &err) != 1)
		return qcow_fail("cannot open", &err);
	if (qcow.libqcow_file_get_media_size(h, &size, &err) != 1)
		return qcow_fail("no media size", &err);
	md->size = size;
	return 0;
}

static ssize_t qcow_pread(struct e2map_media *md, void *buf, size_t len,
			  uint64_t off)
{
	libqcow_error_t *err = NULL;
	ssize_t n = qcow.libqcow_file_read_buffer_at_offset(md->h, buf, len,
						       (off64_t)off, &err);

	qcow.libqcow_error_free(&err);
	return n < 0 ? -EIO : n;
}

static void qcow_close(struct e2map_media *md)
{
	libqcow_file_t *h = md->h;

	if (!h)
		return;
	qcow.libqcow_file_close(h, NULL);
	qcow.libqcow_file_free(&h, NULL);
}

/* Tried in order; raw, which takes anything, last. */

const struct media_ops e2map__containers[] = {
	{ "ewf", ewf_maybe, ewf_load, ewf_check, ewf_open, ewf_pread,
	  ewf_close },
	{ "vmdk", vmdk_maybe, vmdk_load, vmdk_check, vmdk_open, vmdk_pread,
	  vmdk_close },
	{ "vhd", vhdi_maybe, vhdi_load, vhdi_check, vhdi_open, vhdi_pread,
	  vhdi_close },
	{ "qcow", qcow_maybe, qcow_load, qcow_check, qcow_open, qcow_pread,
	  qcow_close },
};
const size_t e2map__ncontainers = sizeof(e2map__containers) /
				  sizeof(e2map__containers[0]);

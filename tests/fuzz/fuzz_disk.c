/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the input is a whole disk, or a container, as an
 * examiner might be handed one.  It is listed (e2map_disk_read: the
 * signature checks, the container library, libblkid's table and its
 * primary GPT header, e2map's bounds and overlap checks, the choice of a partition)
 * and opened with and without partition=N, so any crash, hang or
 * out-of-bounds read in the layers under the image shows.  Inputs that
 * carry a container's signature are left out: those parsers are the
 * libyal libraries' (this target found a heap overflow in libqcow
 * 20201213 within seconds: libqcow_internal_file_read_buffer_from_file_io
 * _handle copies a whole cluster out of a shorter compressed block), and
 * a crash there would hide ours.
 */
#include <e2map.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void open_each(const char *path, const struct e2map_disk *d)
{
	char opts[32];
	e2map_t *m;
	size_t i;

	for (i = 0; i < d->count && i < 8; i++) {
		snprintf(opts, sizeof(opts), "partition=%u",
			 d->partitions[i].number);
		if (e2map_open(path, opts, &m) == 0)
			e2map_close(m);
	}
}

/* EWF, VMDK (sparse and descriptor), VHDX, QCOW, and a VHD's footer. */
static int container(const uint8_t *data, size_t size)
{
	static const char *const heads[] = {
		"EVF", "LVF", "KDMV", "COWD", "# Disk DescriptorFile",
		"vhdxfile", "QFI\xfb", "conectix",
	};
	size_t i, n;

	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		n = strlen(heads[i]);
		if (size >= n && !memcmp(data, heads[i], n))
			return 1;
	}
	return size >= 512 && !memcmp(data + size - 512, "conectix", 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct e2map_disk *d;
	char path[64];
	e2map_t *m;

	if (container(data, size))
		return 0;
	if (fd < 0 && (fd = memfd_create("e2map-fuzz-disk", 0)) < 0)
		return 0;
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (e2map_disk_read(path, &d) == 0) {
		open_each(path, d);
		e2map_disk_free(d);
	}
	if (e2map_open(path, NULL, &m) == 0)
		e2map_close(m);
	return 0;
}

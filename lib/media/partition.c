/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A whole disk's partition table, read by util-linux's libblkid (the
 * table, numbered as the kernel numbers /dev/sdaN: MBR primaries 1-4,
 * logical partitions from 5; GPT entries from 1), what libblkid finds
 * inside each partition.  No parser of our own: the tables are
 * libblkid's to read.  Refused as a clear
 * error: a partition past the end of the image, partitions that overlap,
 * a GPT whose primary header is corrupt (the kernel's efi.c then reads
 * no partitions at all, where libblkid would silently take the backup).
 * Containers have no file descriptor for libblkid: it reads a sparse
 * in-memory view (view.c's job here) holding only the table areas.
 */
#include "media.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <blkid.h>

#define SECTOR 512ULL
#define MIB (1024ULL * 1024)
/* A container's view holds this much at each end of every gap between
 * partitions (where EBRs and GPT headers lie) and of every partition
 * (where superblocks lie, for libblkid's filesystem probe). */
#define VIEW_EDGE MIB
#define MAX_ROUNDS 256		/* probes, and links of an EBR chain */

static void copy_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* -- a container's sparse view: copied ranges, holes elsewhere -- */

static int view_copy(struct e2map_media *md, int fd, uint64_t off,
		     uint64_t len)
{
	static _Thread_local unsigned char buf[64 * 1024];
	uint64_t size = e2map__media_size(md);
	size_t n;
	int err;

	if (off >= size)
		return 0;
	if (len > size - off)
		len = size - off;
	for (; len; off += n, len -= n) {
		n = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		if ((err = e2map__media_pread(md, buf, n, off)) < 0)
			return e2map__fail(NULL, -EIO, "%s: cannot read %zu "
					   "bytes at %" PRIu64 "%s",
					   e2map__media_format(md), n, off,
					   err == -EBADMSG ? ": a chunk's "
					   "checksum does not match (the "
					   "evidence is damaged)" :
					   " (the container is damaged or "
					   "cut short)");
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
			return -errno;
	}
	return 0;
}

/* Both ends of [OFF, OFF + LEN), VIEW_EDGE each (all of it if short). */
static int view_edges(struct e2map_media *md, int fd, uint64_t off,
		      uint64_t len)
{
	int err;

	if (len <= 2 * VIEW_EDGE)
		return view_copy(md, fd, off, len);
	if ((err = view_copy(md, fd, off, VIEW_EDGE)) < 0)
		return err;
	return view_copy(md, fd, off + len - VIEW_EDGE, VIEW_EDGE);
}

/* -- the listing -- */

static bool is_dos_logical(const struct e2map_disk *d,
			   const struct e2map_partition *p)
{
	return !strcmp(d->table, "dos") && p->number > 4;
}

static int add_partition(struct e2map_disk *d, blkid_partition bp)
{
	struct e2map_partition *p;
	const char *ts = blkid_partition_get_type_string(bp);
	size_t cap = d->count + 1;

	p = realloc(d->partitions, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	d->partitions = p;
	p = &d->partitions[d->count++];
	memset(p, 0, sizeof(*p));
	p->number = (unsigned)blkid_partition_get_partno(bp);
	p->start_sector = (uint64_t)blkid_partition_get_start(bp);
	p->sectors = (uint64_t)blkid_partition_get_size(bp);
	p->start = p->start_sector * SECTOR;
	p->size = p->sectors * SECTOR;
	p->extended = blkid_partition_is_extended(bp) != 0;
	if (ts)
		copy_str(p->type, sizeof(p->type), ts);
	else
		snprintf(p->type, sizeof(p->type), "0x%02x",
			 blkid_partition_get_type(bp));
	copy_str(p->name, sizeof(p->name), blkid_partition_get_name(bp));
	copy_str(p->uuid, sizeof(p->uuid), blkid_partition_get_uuid(bp));
	return 0;
}

/*
 * No table, yet libblkid's probe names one: "PMBR", a protective MBR
 * whose GPT is not valid.  The kernel then reads no partitions.
 */
static bool protective_only(blkid_probe pr)
{
	const char *v;

	return blkid_do_safeprobe(pr) == 0 &&
	       !blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) &&
	       !strcmp(v, "PMBR");
}

/* The table libblkid finds on FD (SIZE bytes) into D, replacing D's list. */
static int probe_table(int fd, uint64_t size, struct e2map_disk *d)
{
	blkid_probe pr = blkid_new_probe();
	blkid_partlist ls;
	blkid_parttable tab;
	int i, n, err = 0;

	d->count = 0;
	d->table[0] = d->table_id[0] = '\0';
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, (blkid_loff_t)size) < 0) {
		blkid_free_probe(pr);
		return e2map__fail(NULL, -EIO, "libblkid cannot read the image");
	}
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	ls = blkid_probe_get_partitions(pr);
	if (ls && (tab = blkid_partlist_get_table(ls))) {
		copy_str(d->table, sizeof(d->table),
			 blkid_parttable_get_type(tab));
		copy_str(d->table_id, sizeof(d->table_id),
			 blkid_parttable_get_id(tab));
		n = blkid_partlist_numof_partitions(ls);
		for (i = 0; i < n && !err; i++)
			err = add_partition(d, blkid_partlist_get_partition(ls,
									 i));
	} else if (protective_only(pr)) {
		copy_str(d->table, sizeof(d->table), "PMBR");
	}
	blkid_free_probe(pr);
	return err;
}

/* What libblkid finds inside P: a filesystem's type, label and UUID. */
static void probe_fs(int fd, struct e2map_partition *p)
{
	blkid_probe pr = blkid_new_probe();
	const char *v;

	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)p->start,
				   (blkid_loff_t)p->size) == 0) {
		blkid_probe_enable_partitions(pr, 0);
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
						  BLKID_SUBLKS_LABEL |
						  BLKID_SUBLKS_UUID);
		if (blkid_do_safeprobe(pr) == 0) {
			if (!blkid_probe_lookup_value(pr, "TYPE", &v, NULL))
				copy_str(p->fstype, sizeof(p->fstype), v);
			if (!blkid_probe_lookup_value(pr, "LABEL", &v, NULL))
				copy_str(p->label, sizeof(p->label), v);
			if (!blkid_probe_lookup_value(pr, "UUID", &v, NULL))
				copy_str(p->fsuuid, sizeof(p->fsuuid), v);
		}
	}
	blkid_free_probe(pr);
}

static int by_start(const void *a, const void *b)
{
	const struct e2map_partition *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/*
 * Copy into the view the edges of every stretch of the media outside
 * the partitions found so far (the MBR, GPT headers, EBRs inside an
 * extended partition); the caller probes again until nothing new shows.
 */
static int view_gaps(struct e2map_media *md, int fd, const struct e2map_disk *d)
{
	struct e2map_partition *v = malloc((d->count + 1) * sizeof(*v));
	uint64_t pos = 0, size = e2map__media_size(md);
	size_t i, n = 0;
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < d->count; i++)
		if (!d->partitions[i].extended)
			v[n++] = d->partitions[i];
	qsort(v, n, sizeof(*v), by_start);
	for (i = 0; i < n && !err && pos < size; i++) {
		if (v[i].start > pos)
			err = view_edges(md, fd, pos, v[i].start - pos);
		if (v[i].start + v[i].size > pos)
			pos = v[i].start + v[i].size;
	}
	if (!err && pos < size)
		err = view_edges(md, fd, pos, size - pos);
	free(v);
	return err;
}

/* An MBR partition type that links an EBR chain (dos_partition.c). */
static bool is_extended_type(unsigned char t)
{
	return t == 0x05 || t == 0x0f || t == 0x85;
}

/*
 * The EBRs of extended partition P into the view, wherever they lie: an
 * EBR's second entry gives the next one's place, relative to P's start,
 * as libblkid and the kernel follow the chain on a raw disk.  An EBR may
 * lie far from any partition found so far, past the gaps' edges.
 */
static int view_ebrs(struct e2map_media *md, int fd,
		     const struct e2map_partition *p)
{
	uint64_t at = p->start, end = p->start + p->size;
	unsigned char s[SECTOR];
	unsigned rel;
	int err, links;

	for (links = 0; links < MAX_ROUNDS && at + SECTOR <= end; links++) {
		if ((err = view_copy(md, fd, at, SECTOR)) < 0)
			return err;
		if (pread(fd, s, SECTOR, (off_t)at) != (ssize_t)SECTOR)
			return -errno;
		if (s[510] != 0x55 || s[511] != 0xaa ||
		    !is_extended_type(s[446 + 16 + 4]))
			break;
		rel = le32(s + 446 + 16 + 8);
		if (!rel || p->start + rel * SECTOR <= at)
			break;	/* the chain must go forward to end */
		at = p->start + rel * SECTOR;
	}
	return 0;
}

/*
 * The partition table of a container: probe a view, widen it with the
 * gaps the probe reveals and every extended partition's EBR chain, until
 * the list stops changing.  Each partition then gets its own edges, for
 * the filesystem probe.
 */
static int probe_container(struct e2map_media *md, int *fdp,
			   struct e2map_disk *d)
{
	uint64_t size = e2map__media_size(md);
	size_t last = (size_t)-1;
	int fd, err = 0, round;

	if ((fd = memfd_create("e2map-table-view", MFD_CLOEXEC)) < 0)
		return -errno;
	*fdp = fd;
	if (ftruncate(fd, (off_t)size) < 0)
		return -errno;
	for (round = 0; round < MAX_ROUNDS && !err; round++) {
		if ((err = view_gaps(md, fd, d)) < 0)
			break;
		for (size_t i = 0; i < d->count && !err; i++)
			if (d->partitions[i].extended)
				err = view_ebrs(md, fd, &d->partitions[i]);
		if (err < 0 || (err = probe_table(fd, size, d)) < 0)
			break;
		if (d->count == last)
			break;
		last = d->count;
	}
	for (size_t i = 0; i < d->count && !err; i++)
		if (!d->partitions[i].extended)
			err = view_edges(md, fd, d->partitions[i].start,
					 d->partitions[i].size);
	return err;
}

/* -- the primary GPT header, as the kernel reads it -- */

/*
 * libblkid takes the backup header when the primary fails its checks;
 * the kernel (block/partitions/efi.c, find_valid_gpt) finds the backup
 * only through the primary's pointer, so a corrupt primary leaves it no
 * partitions.  Probing again with the last sector (the backup header)
 * out of sight tells which header libblkid read.
 */
static int check_gpt(int fd, uint64_t size)
{
	struct e2map_disk d = { .count = 0 };
	int err;

	if (size < 2 * SECTOR)
		return 0;
	err = probe_table(fd, size / SECTOR * SECTOR - SECTOR, &d);
	free(d.partitions);
	if (err < 0)
		return err;
	if (strcmp(d.table, "gpt"))
		return e2map__fail(NULL, -EUCLEAN, "the primary GPT header is "
				   "corrupt (libblkid finds the table only "
				   "through the backup header): the kernel "
				   "reads no partitions from this disk");
	return 0;
}

/* -- checks that a table is one the kernel can serve -- */

static int check_bounds(const struct e2map_disk *d)
{
	uint64_t sectors = d->size / SECTOR;

	for (size_t i = 0; i < d->count; i++) {
		const struct e2map_partition *p = &d->partitions[i];

		if (p->start_sector + p->sectors > sectors)
			return e2map__fail(NULL, -EUCLEAN, "partition %u "
					   "(sectors %" PRIu64 "-%" PRIu64 ") "
					   "ends past the end of the image "
					   "(%" PRIu64 " sectors)", p->number,
					   p->start_sector, p->start_sector +
					   p->sectors - 1, sectors);
	}
	return 0;
}

/* Only an extended partition may hold others, and only logical ones. */
static bool may_overlap(const struct e2map_disk *d,
			const struct e2map_partition *a,
			const struct e2map_partition *b)
{
	return (a->extended && is_dos_logical(d, b)) ||
	       (b->extended && is_dos_logical(d, a));
}

static int check_overlaps(const struct e2map_disk *d)
{
	for (size_t i = 0; i < d->count; i++)
		for (size_t j = i + 1; j < d->count; j++) {
			const struct e2map_partition *a = &d->partitions[i];
			const struct e2map_partition *b = &d->partitions[j];

			if (a->start < b->start + b->size &&
			    b->start < a->start + a->size &&
			    !may_overlap(d, a, b))
				return e2map__fail(NULL, -EUCLEAN, "partitions "
						   "%u and %u overlap", a->number,
						   b->number);
		}
	return 0;
}

/* -- the public calls -- */

static int read_disk(struct e2map_media *md, struct e2map_disk *d)
{
	int fd = e2map__media_fd(md), view = -1, err;

	copy_str(d->format, sizeof(d->format), e2map__media_format(md));
	d->size = e2map__media_size(md);
	if (fd < 0) {
		err = probe_container(md, &view, d);
		fd = view;
	} else {
		err = probe_table(fd, d->size, d);
	}
	if (!err && !strcmp(d->table, "PMBR"))
		err = e2map__fail(NULL, -EUCLEAN, "a protective MBR without a "
				  "valid GPT (both GPT headers corrupt?): the "
				  "kernel reads no partitions from this disk");
	if (!err && !strcmp(d->table, "gpt"))
		err = check_gpt(fd, d->size);
	if (!err && !(err = check_bounds(d)) && !(err = check_overlaps(d)))
		for (size_t i = 0; i < d->count; i++)
			if (!d->partitions[i].extended)
				probe_fs(fd, &d->partitions[i]);
	if (view >= 0)
		close(view);
	return err;
}

int e2map__disk_read_media(struct e2map_media *md, struct e2map_disk **out)
{
	struct e2map_disk *d = calloc(1, sizeof(*d));
	int err;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	if ((err = read_disk(md, d)) < 0) {
		e2map_disk_free(d);
		return err;
	}
	*out = d;
	return 0;
}

int e2map_disk_read(const char *image, struct e2map_disk **out)
{
	struct e2map_media *md;
	int err;

	*out = NULL;
	e2map__set_open_error("%s", "");
	if (!image)
		return -EINVAL;
	if ((err = e2map__media_open(image, &md)) < 0)
		return err;
	err = e2map__disk_read_media(md, out);
	e2map__media_close(md);
	return err;
}

void e2map_disk_free(struct e2map_disk *d)
{
	if (!d)
		return;
	free(d->partitions);
	free(d);
}

int e2map_partition_is_ext(const struct e2map_partition *p)
{
	return !p->extended && (!strcmp(p->fstype, "ext2") ||
				!strcmp(p->fstype, "ext3") ||
				!strcmp(p->fstype, "ext4"));
}

const struct e2map_partition *e2map_disk_partition_at(const struct e2map_disk *d,
						      uint64_t byte)
{
	for (size_t i = 0; i < d->count; i++) {
		const struct e2map_partition *p = &d->partitions[i];

		if (e2map_partition_is_ext(p) && byte >= p->start &&
		    byte - p->start < p->size)
			return p;
	}
	return NULL;
}

/* The ext2/3/4 partitions of D, their numbers as "1, 5, 6" into BUF. */
static size_t ext_partitions(const struct e2map_disk *d, char *buf,
			     size_t size, const struct e2map_partition **one)
{
	size_t n = 0, len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < d->count; i++) {
		const struct e2map_partition *p = &d->partitions[i];

		if (!e2map_partition_is_ext(p))
			continue;
		*one = p;
		n++;
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%u %s",
						n > 1 ? ", " : "", p->number,
						p->fstype);
	}
	return n;
}

/*
 * Which partition of D e2map_open reads: NUMBER if given (> 0), else the
 * only ext2/3/4 one.  Sets *START and *SIZE (bytes).
 */
int e2map__disk_choose(const struct e2map_disk *d, unsigned number,
		       uint64_t *start, uint64_t *size)
{
	const struct e2map_partition *p = NULL;
	char list[160];
	size_t n;

	for (size_t i = 0; number && i < d->count; i++)
		if (d->partitions[i].number == number)
			p = &d->partitions[i];
	if (number && (!p || p->extended))
		return e2map__fail(NULL, -ENXIO, "no partition %u on this %s "
				   "disk", number, d->table[0] ? d->table :
				   "unpartitioned");
	if (!number) {
		n = ext_partitions(d, list, sizeof(list), &p);
		if (n == 0)
			return e2map__fail(NULL, -EUCLEAN, "no ext2/3/4 "
					   "partition on this %s disk "
					   "(e2map partitions lists them)",
					   d->table);
		if (n > 1)
			return e2map__fail(NULL, -EINVAL, "%zu ext2/3/4 "
					   "partitions (%s): choose one with "
					   "--partition N", n, list);
	}
	*start = p->start;
	*size = p->size;
	return (int)p->number;
}

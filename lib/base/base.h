/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bottom layer of libe2map: what every layer above uses and which
 * knows nothing of a filesystem -- the one error border, the one
 * growable-array step, e2map_open's options, crc32c and the size limits.
 *
 * The layers, bottom-up; each folder of lib/ is one, and its files see
 * only the headers of their own layer and the layers below (the Makefile
 * gives each folder exactly those include directories, so an upward
 * include does not compile):
 *   base/    this header
 *   media/   the media (raw, E01, VMDK, VHD, QCOW), partitions, io manager
 *   disk/    the handle (a mounted superblock), block cache, zone queries,
 *            group layout
 *   inode/   inode load, iget/iput, es cache, extent and indirect mapping,
 *            inline data, the mapping walk, xattrs by inode
 *   dir/     entries, checksums, the directory hash, namei and htree,
 *            readdir, dcache, path lookup, fscrypt names
 *   mount/   e2map_open: the parts put together, the system zone built,
 *            journal recovery, fast-commit replay (mount/fc/)
 *   file/    the file handle, seek, fiemap, read, xattrs by path, the tree
 *            walk, extract, du
 *   passes/  whole-image passes: scan, parscan, records, check, paths,
 *            owners and blockmap
 * mount/ and file/ both stand on dir/ and do not see each other.
 */
#ifndef E2MAP_BASE_H
#define E2MAP_BASE_H

#include "e2map.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/* A caller's struct (e2map_stat...) made for a version this library knows
 * (the public header's Growth rule); only version 1 exists yet. */
#define E2MAP__OUT_OK(p, want) ((p) && (p)->version == (want))

/* On-disk little-endian fields, read byte by byte (any alignment). */
static inline uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * errors.c: the detail of the last failure.  Every image handle starts
 * with one (struct e2map, disk.h), so this layer writes it knowing
 * nothing else of the handle; with no handle (a failed e2map_open) it is
 * kept per thread.
 */
struct e2map_err {
	char msg[256];
};
int e2map__fail(e2map_t *m, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int e2map__errcode(e2map_t *m, errcode_t code, const char *what);
void e2map__set_open_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* array.c: make room for NEED elements of ELEM bytes in *V; -ENOMEM */
int e2map__grow(void **v, size_t *cap, size_t need, size_t elem);
/* array.c: a path built a component at a time ("/" joins them, once) */
struct e2map_pathbuf {
	char *s;
	size_t len, cap;
};
int e2map__path_push(struct e2map_pathbuf *p, const char *name, size_t n);
/* array.c: a sorted set of block numbers (extent leaves already checked,
 * directory blocks whose checksum passed). */
struct blkset {
	uint64_t *v;
	size_t n, cap;
};
/* Adds PBLK: true when it was not there before (*ERR set on -ENOMEM). */
bool e2map__blkset_add(struct blkset *s, uint64_t pblk, int *err);
bool e2map__blkset_has(const struct blkset *s, uint64_t pblk);
void e2map__blkset_free(struct blkset *s);

/* options.c: e2map_open's OPTIONS */
struct e2map_options {
	uint64_t offset;		/* offset=BYTES */
	unsigned partition;		/* partition=N; 0: none given */
	bool warm;			/* cache=warm */
	bool replay;			/* replay: the journal recovered */
	bool unmountable;		/* unmountable: read past the mount's refusal */
	bool nomap;			/* nomap: pread only, never mmap */
};
int e2map__parse_options(const char *options, struct e2map_options *o);

/* limits.c: s_maxbytes and s_bitmap_maxbytes (spec §6) */
uint64_t e2map__max_size(unsigned bits, bool huge_file);
uint64_t e2map__max_bitmap_size(unsigned bits, bool huge_file);

/* sha256.c: SHA-256 (FIPS 180-4), fed in pieces */
struct e2map_sha256 {
	uint32_t h[8];
	uint64_t bytes;
	unsigned char block[64];
	size_t fill;
};
void e2map__sha256_init(struct e2map_sha256 *s);
void e2map__sha256_update(struct e2map_sha256 *s, const void *data,
			  size_t len);
void e2map__sha256_final(struct e2map_sha256 *s, unsigned char out[32]);

/* crc32c.c: ext4's crc32c update (ext2fs_crc32c_le's), in hardware where it can */
uint32_t e2map__crc32c(uint32_t crc, const void *buf, size_t len);

/*
 * dl.c: a library opened on first use (by its soname, as the linker would
 * have asked for it) and its functions found once, into TABLE: a struct of
 * typed pointers named as the functions, filled at SYMS[i].off.  STATE is 0
 * until tried, 1 once loaded, a negative errno if it failed (WHY says).
 */
struct e2map_dlsym {
	const char *name;
	size_t off;
};
struct e2map_dlib {
	const char *what;		/* who needs it: "an E01 image" */
	const char *soname;		/* "libewf.so.2" */
	const char *package;		/* Debian's: "libewf2" */
	const struct e2map_dlsym *syms;
	size_t count;
	void *table;
	int state;
	char why[160];
};
/* A slot of a library's table, and its entry in the symbol list. */
#define E2MAP_DL_SLOT(f) __typeof__(f) *f;
#define E2MAP_DL_SYM(type, f) { #f, offsetof(type, f) },
/* 0 once LIB is loaded, or -ENOTSUP with its reason as the detail. */
int e2map__dlib_load(struct e2map_dlib *lib);

#endif /* E2MAP_BASE_H */

# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the C source of e2map's cffi extension (API mode).

    python3 python/build_ffi.py OUT.c

The Makefile compiles OUT.c with its own compiler and flags against
<e2map.h> and links it to libe2map.so.  API mode, not ABI mode: the
compiler checks every declaration below against the real header (a field
or a type that drifts fails the build instead of reading the wrong bytes),
calls are direct C calls rather than libffi's, and callbacks are
`extern "Python"` functions, the fast kind.  Structs end in `...;` where
the binding reads only some fields, so their layout is the compiler's.
"""
import sys

import cffi

CDEF = r"""
#define E2MAP_EUSER ...
#define E2MAP_SKIP ...
#define E2MAP_STAT_CRTIME ...
#define E2MAP_STAT_VERSION ...
#define E2MAP_STATFS_VERSION ...
#define E2MAP_RECORD_VERSION ...
#define E2MAP_CHECK_STATS_VERSION ...
#define E2MAP_REC_STAT ...
#define E2MAP_REC_MAPPED ...
#define E2MAP_REC_INLINE ...
#define E2MAP_REC_EA_INODE ...
#define E2MAP_IMAGE_MOUNTED ...
#define E2MAP_IMAGE_NEEDS_RECOVERY ...
#define E2MAP_IMAGE_UNMOUNTABLE ...
#define E2MAP_O_NOFOLLOW ...

typedef struct e2map e2map_t;
typedef struct e2map_file e2map_file_t;
typedef struct e2map_paths e2map_paths_t;
typedef struct e2map_blockmap e2map_blockmap_t;

struct e2map_timespec { int64_t sec; uint32_t nsec; };
struct e2map_stat {
	unsigned version;
	uint64_t ino;
	uint32_t mode, blksize;
	uint64_t size, blocks, maxbytes;
	uint32_t flags, nlink, uid, gid;
	uint64_t rdev;
	struct e2map_timespec atime, mtime, ctime, crtime;
	uint32_t mask;
};
struct e2map_statfs {
	unsigned version;
	uint32_t type, bsize;
	uint64_t blocks, files, ffree, bfree, bavail;
	uint32_t namelen;
};
struct e2map_record {
	unsigned version;
	uint64_t ino;
	int err;
	uint32_t flags;
	uint64_t written, unwritten, holes, past_eof;
	uint64_t meta_blocks, extents, fiemap_extents;
	struct e2map_stat st;
};
struct e2map_check_stats {
	unsigned version;
	uint64_t seeks, fiemaps, extents;
};
struct fiemap_extent {
	uint64_t fe_logical, fe_physical, fe_length;
	uint32_t fe_flags;
	...;
};
struct fiemap {
	uint64_t fm_start, fm_length;
	uint32_t fm_flags, fm_mapped_extents, fm_extent_count;
	struct fiemap_extent fm_extents[];
	...;
};
struct e2map_dirent {
	uint64_t ino;
	unsigned char type;
	const char *name;
	size_t len;
};
struct e2map_dirlist {
	size_t count;
	const struct e2map_dirent *entries;
	int err;
};
enum e2map_run_kind { E2MAP_RUN_HOLE, E2MAP_RUN_DATA, E2MAP_RUN_UNWRITTEN,
		      E2MAP_RUN_INLINE };
struct e2map_run {
	uint64_t lblk, nblk, pblk;
	enum e2map_run_kind kind;
};
struct e2map_xattr {
	const char *name;
	size_t name_len;
	const void *value;
	size_t value_len;
	int err;
};
struct e2map_owner {
	uint64_t start, count;
	int kind;
	uint64_t ino, lblk;
	...;
};
struct e2map_unalloc {
	int kind;
	uint64_t offset, length, ino;
	...;
};
struct e2map_partition {
	unsigned number;
	int extended;
	uint64_t start, size, start_sector, sectors;
	char type[40], name[80], uuid[40], fstype[16], label[80], fsuuid[40];
};
struct e2map_disk {
	char format[8], table[8], table_id[40];
	uint64_t size;
	size_t count;
	struct e2map_partition *partitions;
};

const char *e2map_version(int *major, int *minor, int *patch);
void e2map_free(void *p);
const char *e2map_strerror(int err);
const char *e2map_errmsg(const e2map_t *m);

int e2map_open(const char *image, const char *options, e2map_t **out);
void e2map_close(e2map_t *m);
int e2map_image_state(e2map_t *m);
int e2map_image_refusal(const e2map_t *m, const char **why);
int e2map_statfs(e2map_t *m, struct e2map_statfs *st);
uint64_t e2map_disk_offset(const e2map_t *m);

int e2map_file_open_flags(e2map_t *m, const char *path, int flags,
			  e2map_file_t **out);
int e2map_file_open_ino(e2map_t *m, uint64_t ino, e2map_file_t **out);
void e2map_file_close(e2map_file_t *f);
int64_t e2map_file_lseek(e2map_file_t *f, int64_t offset, int whence);
int e2map_file_fiemap(e2map_file_t *f, struct fiemap *fm);
int64_t e2map_file_pread(e2map_file_t *f, void *buf, size_t len,
			 int64_t off);
int64_t e2map_file_read(e2map_file_t *f, void *buf, size_t len);
int e2map_file_stat(e2map_file_t *f, struct e2map_stat *st);
int e2map_path_stat(e2map_t *m, const char *path, struct e2map_stat *st);
int e2map_path_lstat(e2map_t *m, const char *path, struct e2map_stat *st);
int e2map_inode_stat(e2map_t *m, uint64_t ino, struct e2map_stat *st);
int64_t e2map_inode_readlink_alloc(e2map_t *m, uint64_t ino, char **out);
int e2map_dirlist_read(e2map_file_t *f, struct e2map_dirlist **out);
void e2map_dirlist_free(struct e2map_dirlist *l);
int e2map_file_check(e2map_file_t *f, struct e2map_check_stats *st);

typedef int (*e2map_run_cb)(const struct e2map_run *run, void *payload);
int e2map_file_walk(e2map_file_t *f, uint64_t lblk, uint64_t nblk,
		    e2map_run_cb cb, void *payload);

typedef int (*e2map_xattr_cb)(const struct e2map_xattr *x, void *payload);
int e2map_path_lxattrs(e2map_t *m, const char *path, e2map_xattr_cb cb,
		       void *payload);
int64_t e2map_path_lgetxattr(e2map_t *m, const char *path, const char *name,
			     void *buf, size_t size);

typedef int (*e2map_record_cb)(const struct e2map_record *r,
			       const char *detail, void *payload);
int e2map_scan_records_named(e2map_t *m, unsigned threads,
			     e2map_paths_t **paths, e2map_record_cb cb,
			     void *payload);
void e2map_paths_free(e2map_paths_t *p);
typedef int (*e2map_path_lstat_cb)(const char *path, size_t len, int err,
				   const char *detail, void *payload);
int e2map_paths_foreach_lstat(const e2map_paths_t *p, uint64_t ino,
			      e2map_path_lstat_cb cb, void *payload);

int e2map_blockmap_build(e2map_t *m, e2map_blockmap_t **out);
size_t e2map_blockmap_count(const e2map_blockmap_t *b);
const struct e2map_owner *e2map_blockmap_get(const e2map_blockmap_t *b,
					     size_t i);
const struct e2map_owner *e2map_blockmap_find(const e2map_blockmap_t *b,
					      uint64_t block, size_t *index);
const char *e2map_owner_kind_name(int k);
void e2map_blockmap_free(e2map_blockmap_t *b);
typedef int (*e2map_unalloc_cb)(const struct e2map_unalloc *u, void *payload);
int e2map_unallocated(e2map_t *m, const e2map_blockmap_t *b,
		      e2map_unalloc_cb cb, void *payload);
const char *e2map_unalloc_kind_name(int k);

struct e2map_inode { uint64_t ino; uint32_t mode; int err; ...; };
typedef int (*e2map_check_cb)(e2map_t *m, const struct e2map_inode *in,
			      int err, const char *detail, void *payload);
int e2map_check_all(e2map_t *m, unsigned threads, e2map_check_cb cb,
		    void *payload);


int e2map_disk_read(const char *image, struct e2map_disk **out);
void e2map_disk_free(struct e2map_disk *d);
int e2map_partition_is_ext(const struct e2map_partition *p);

extern "Python" int e2map_py_on_run(const struct e2map_run *, void *);
extern "Python" int e2map_py_on_xattr(const struct e2map_xattr *, void *);
extern "Python" int e2map_py_on_record(const struct e2map_record *,
				       const char *, void *);
extern "Python" int e2map_py_on_name(const char *, size_t, int, const char *,
				     void *);
extern "Python" int e2map_py_on_unalloc(const struct e2map_unalloc *, void *);
extern "Python" int e2map_py_on_check(e2map_t *, const struct e2map_inode *,
				      int, const char *, void *);
"""

# Enum parameters and fields are ints above: cffi passes them as ints and
# C converts them; the compiler still checks every size and offset.
SOURCE = r"""
#include <e2map.h>
"""


def main(out):
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source("e2map._native", SOURCE)
    ffi.emit_c_code(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build_ffi.py OUT.c")
    main(sys.argv[1])

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file layer: the handle a caller opens (file.c: open(2) and stat(2)
 * on top of path lookup and iget), what answers through it -- lseek
 * (seek.c), FIEMAP (fiemap.c), read (read.c), xattrs by path (xattr.c)
 * -- and the walks over a tree of them (tree.c, extract.c, du.c).
 */
#ifndef E2MAP_FILE_H
#define E2MAP_FILE_H

#include "dir.h"

/* file.c: open INO as open(2) of a name in directory PARENT would (its
 * encryption policy checked against PARENT's); PARENT 0: by number. */
int e2map__file_open_in(e2map_t *m, uint64_t ino, uint64_t parent,
			e2map_file_t **out);

/* digest.c: ALGS' digests of the bytes PREAD gives from SRC, from
 * offset 0 until it returns 0 (EOF) or -errno (which stops it), for any
 * byte source that reads as read(2) does: a file, a recovered file. */
typedef int64_t (*e2map__pread_fn)(void *src, void *buf, uint64_t len,
				   uint64_t off);
int e2map__digest(e2map__pread_fn pread, void *src, unsigned algs,
		  struct e2map_digest *out);

#endif /* E2MAP_FILE_H */

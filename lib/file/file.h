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

#endif /* E2MAP_FILE_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: answer lseek(SEEK_DATA/SEEK_HOLE) and FS_IOC_FIEMAP for a file
 * inside an unmounted ext2/ext3/ext4 image, exactly as the Linux kernel does
 * on a fresh read-only mount of that image.  The image is never written.
 *
 * The parts, each a header of its own: common (version, names, errors,
 * callbacks, threads, memory, the stat record), image, file, xattr, walk,
 * inventory, disk, past, history, diff.
 */
#ifndef E2MAP_H
#define E2MAP_H

#include <e2map/common.h>
#include <e2map/image.h>
#include <e2map/file.h>
#include <e2map/xattr.h>
#include <e2map/walk.h>
#include <e2map/inventory.h>
#include <e2map/disk.h>
#include <e2map/past.h>
#include <e2map/history.h>
#include <e2map/diff.h>

#endif /* E2MAP_H */

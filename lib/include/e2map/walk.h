/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: walks of a tree of the image: as cp -a and tar walk it, as cp -a
 * copies it out, as du counts it.
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_WALK_H
#define E2MAP_PUBLIC_WALK_H

#include <e2map/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The walk cp -a and tar make over the mount from PATH (its final symlink
 * not followed) down: CB gets each entry before what is under it, a
 * directory's entries in e2map_file_readdir's order ("." and ".." left out).
 * PATH is the entry's path in the image, PATH as given for the first and
 * then joined with "/" and each name, LEN bytes and a NUL, borrowed for
 * the call; DEPTH is 0 for PATH itself.  VISIT says what the call is:
 *  - E2MAP_TREE_NODE, for every entry: ST its lstat, or NULL with ERR the
 *    lstat's -errno (the kernel's lookup: -ELOOP for a directory that is
 *    its own ancestor, -EPERM across encryption policies; a name listed
 *    twice is the entry the lookup finds).  A directory met again under
 *    another name (a damaged tree) is walked again, as cp -a and tar
 *    walk it, up to 4096 such walks in all; past them, or deeper than
 *    E2MAP_PATHS_MAX_DEPTH, ST set, ERR -ELOOP and nothing under it.
 *    FIRST, for a file of several links met before, is the path it was
 *    first met under (which CB accepted), else NULL.  CB's E2MAP_SKIP
 *    passes over the entry: a directory is not entered, a file of
 *    several links is not the target of its later names;
 *  - E2MAP_TREE_LIST_FAILED: directory PATH's listing failed with ERR, after
 *    its NODE call; none of its entries follows (cp -a and tar read a
 *    directory whole and copy nothing of one whose listing fails);
 *  - E2MAP_TREE_DIR_DONE: directory PATH, after everything under it.
 * Any other non-zero return of CB stops the walk and is returned; else 0,
 * -EINVAL or -ENOMEM.  The walk's own memory: the path, a listing per level, and the
 * first name of each file of several links.
 */
enum e2map_tree_visit {
	E2MAP_TREE_NODE,
	E2MAP_TREE_LIST_FAILED,
	E2MAP_TREE_DIR_DONE
};
struct e2map_tree_entry {
	const char *path;
	size_t len;
	unsigned depth;
	uint64_t ino;		/* 0 where PATH itself could not be reached */
	const struct e2map_stat *st;
	const char *first;
	enum e2map_tree_visit visit;
	int err;
	uint64_t parent;	/* the directory PATH was found in; 0: the start */
};
typedef int (*e2map_tree_cb)(const struct e2map_tree_entry *e,
			     void *payload);
E2MAP_API int e2map_tree_walk(e2map_t *m, const char *path, e2map_tree_cb cb,
			      void *payload);

/*
 * Copy PATH (its final symlink not followed) out of the image to DEST on
 * the host, as `cp -a MNT/PATH DEST` copies it from the kernel's mount:
 * DEST names the copy, or, when it is an existing directory, takes it
 * under PATH's last name (the root's copy is DEST itself).  A regular
 * file's data regions are those SEEK_DATA/SEEK_HOLE give, read as
 * e2map_file_pread reads them and written at their offsets, so holes and
 * unwritten ranges stay holes (only data is written), then the size is
 * set.  A directory needs E2MAP_EXTRACT_RECURSIVE (else -EISDIR) and is
 * copied in e2map_file_readdir's order; a file of several links is copied at
 * its first name and linked at the others; symlinks, FIFOs and sockets
 * are made anew, device nodes only by root (else -EPERM).  What is there
 * is replaced, directories kept; nothing is followed on the host.
 * E2MAP_EXTRACT_PRESERVE creates a file with its owner's bits only, as
 * cp -a does, and once it is whole sets, in cp's order, the two times
 * with nanoseconds, the owner (ignored without the right as cp does), the
 * xattrs (ACLs included; one that cannot be read or set is a WARNING
 * event, the copy still counted whole, as cp -a passes over it; an ACL
 * that cannot be read fails the entry) and last the mode, so a copy that
 * fails keeps the owner's bits, as cp leaves it; without it, files and
 * directories get their mode less the umask.  A directory whose listing
 * fails is made but nothing of it is copied (cp reads a listing whole).
 * CB (may be NULL) is called once per entry done or failed, in walk
 * order, directories after their contents: ERR 0, or the -errno of the
 * step WHAT that failed ("open", "read", "readdir", "mknod", "chown"...);
 * PARTIAL when DEST holds the bytes read before a failure (and no more:
 * the size is cut there).  One entry's failure does not stop the walk;
 * CB's non-zero return does, and is returned (a negative one, such as
 * E2MAP_EUSER, is told from a count).  Returns the number of failed
 * entries (0: all extracted), or -EINVAL, -ENOMEM.
 */
#define E2MAP_EXTRACT_RECURSIVE 0x1
#define E2MAP_EXTRACT_PRESERVE 0x2
struct e2map_extract_event {
	const char *path;	/* in the image */
	const char *dest;	/* on the host */
	uint32_t mode;		/* the inode's, 0 where its stat failed */
	uint64_t bytes;		/* data bytes written */
	int err;
	const char *what;
	int partial;
	int warning;		/* ERR is a warning: the entry is copied */
};
typedef int (*e2map_extract_cb)(const struct e2map_extract_event *ev,
				void *payload);
E2MAP_API int e2map_extract(e2map_t *m, const char *path, const char *dest,
			    unsigned flags, e2map_extract_cb cb, void *payload);

/*
 * du's walk from PATH (its final symlink not followed), as GNU du walks the
 * mount: each directory in getdents order (a batch of more than 10,000
 * names sorted by inode number, as gnulib's fts sorts on ext4), a file of
 * several links counted at its first name only.  CB gets, in du's order,
 * every entry counted (WHAT E2MAP_DU_SIZE; a directory after everything
 * under it, BYTES its total) and what du would complain about, ERR set:
 * a name lstat could not reach (E2MAP_DU_CANNOT_ACCESS, nothing counted), a
 * directory whose listing failed before any name (..._CANNOT_READ_DIR) or
 * after some (..._READ_ERROR; also a size that could not be taken), each
 * right before that directory's own entry.  SIZE: st_blocks * 512, st_size,
 * or the bytes of written data below i_size (regular files and
 * directories; the mapping walk's DATA runs and inline data).  PATH is
 * borrowed for the call, LEN bytes and a NUL.  Returns 0, CB's non-zero
 * return, or -ENOMEM / -EINVAL; the errors CB got are not repeated.
 */
enum e2map_du_size {
	E2MAP_DU_ALLOCATED,
	E2MAP_DU_APPARENT,
	E2MAP_DU_WRITTEN
};
enum e2map_du_what {
	E2MAP_DU_SIZE,
	E2MAP_DU_CANNOT_ACCESS,
	E2MAP_DU_CANNOT_READ_DIR,
	E2MAP_DU_READ_ERROR
};
struct e2map_du_entry {
	const char *path;
	size_t len;
	int depth;		/* 0 for PATH itself */
	int dir;
	uint64_t bytes;
	int err;
	enum e2map_du_what what;
};
typedef int (*e2map_du_cb)(const struct e2map_du_entry *e, void *payload);
E2MAP_API int e2map_du(e2map_t *m, const char *path, enum e2map_du_size size,
		       e2map_du_cb cb, void *payload);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_WALK_H */

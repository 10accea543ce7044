/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: what was there before: names left in directories after their
 * entries were deleted, and inodes the bitmap calls free that still hold
 * their metadata (The Sleuth Kit's fls -d and ils), and orphans.
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_PAST_H
#define E2MAP_PUBLIC_PAST_H

#include <e2map/common.h>
#include <e2map/inventory.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An inode as its inode table holds it now, read without the kernel's
 * checks (a free inode fails them): the fields stat and ils show, and
 * the deletion time.  Times are the kernel's decoding (extra epoch bits
 * and nanoseconds where the inode is large enough); HAS_CRTIME is 0
 * where the inode has no creation time.
 */
struct e2map_past_inode {
	uint32_t mode;
	uint32_t uid, gid;
	uint64_t size;
	uint16_t links;
	uint32_t flags;		/* i_flags */
	struct e2map_timespec atime, mtime, ctime, crtime;
	int has_crtime;
	int64_t dtime;		/* i_dtime (an orphan's next on the list) */
};

/*
 * The inode a deleted name names, now: UNALLOCATED, free in the inode
 * bitmap (or INO 0); REALLOCATED, in use by another file (of another type
 * than the entry's, or born after the directory last changed, so after
 * the name went) or by no live name; LINKED, in use and named by a live
 * name (a rename, a remaining hard link), as far as the image tells: an
 * inode reused before the directory's last change, without a creation
 * time to show it, is called linked too.
 */
enum e2map_inode_state {
	E2MAP_INODE_UNALLOCATED,
	E2MAP_INODE_LINKED,
	E2MAP_INODE_REALLOCATED
};

/*
 * A deleted name: DIR the directory inode that holds it, DIR_PATH its
 * first path in the path table (NULL: no live name reaches it), NAME
 * the entry's bytes (NAME_LEN, not NUL-terminated; borrowed for the
 * call), INO the inode the entry names (0: the kernel cleared it, or an
 * htree index's last hash/block pair overwrote it),
 * FILE_TYPE the entry's type byte (EXT4_FT_*: 1 regular ... 7 symlink;
 * 0 on a filesystem without the filetype feature), BLOCK and OFFSET
 * where it lies (BLOCK 0: in the inode of an inline directory, OFFSET
 * into i_block then system.data), STATE and INODE its inode now (INODE
 * all zero for INO 0).  LIVE_COPY is 1 where the directory's live
 * entries hold the same name for the same inode, or, where INO was
 * overwritten, the same name (an htree split, or a directory's becoming
 * an htree, leaves the moved entries' old copies behind: not a
 * deletion; fls hides them).
 */
struct e2map_deleted_name {
	uint64_t dir;
	const char *dir_path;
	size_t dir_path_len;
	const char *name;
	size_t name_len;
	uint64_t ino;
	unsigned file_type;
	uint64_t block;
	uint32_t offset;
	enum e2map_inode_state state;
	struct e2map_past_inode inode;
	int live_copy;
};
typedef int (*e2map_deleted_name_cb)(const struct e2map_deleted_name *d,
				     void *payload);
/*
 * CB for each deleted name in every directory inode in use (reachable or
 * not), in directory-inode order, then block order: entries in the
 * rec_len slack of live entries and block-first entries whose inode was
 * cleared, in linear, htree (leaves; index blocks hold no names) and
 * inline directories, each held to strict checks (slack may hold
 * anything).  PATHS: the path table for DIR_PATH and LINKED (NULL: one
 * is built and freed).  A directory that cannot be opened or read is
 * passed over.  A non-zero return from CB stops and is returned; else 0,
 * -EINVAL or -ENOMEM.
 */
E2MAP_API int e2map_deleted_names(e2map_t *m, const e2map_paths_t *paths,
				  e2map_deleted_name_cb cb, void *payload);

/*
 * An inode of the past: FREE, the inode bitmap calls it free but it holds
 * metadata (a mode, a time or a deletion time: ils lists those with a
 * ctime); ORPHAN, in use in the bitmap, a mode, no links (on the orphan
 * list or in the orphan file, its deletion not finished).
 */
enum e2map_free_kind {
	E2MAP_FREE_INODE,
	E2MAP_FREE_ORPHAN
};
struct e2map_free_inode {
	uint64_t ino;
	enum e2map_free_kind kind;
	struct e2map_past_inode inode;
};
typedef int (*e2map_free_inode_cb)(const struct e2map_free_inode *f,
				   void *payload);
/*
 * CB for each such inode in inode order, from one read of the inode
 * bitmaps and tables (groups never used, INODE_UNINIT, are passed over;
 * a group whose bitmap or table cannot be read too).  A non-zero return
 * from CB stops and is returned; else 0, -EINVAL or -ENOMEM.
 */
E2MAP_API int e2map_free_inodes(e2map_t *m, e2map_free_inode_cb cb,
				void *payload);

/* "unallocated", "linked", "reallocated"; "inode", "orphan". */
E2MAP_API const char *e2map_inode_state_name(enum e2map_inode_state s);
E2MAP_API const char *e2map_free_kind_name(enum e2map_free_kind k);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_PAST_H */

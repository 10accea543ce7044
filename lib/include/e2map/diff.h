/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libe2map: what changed between two images of one filesystem (A, then
 * B), inode by inode and logical range by range, without reading the data.
 * Part of <e2map.h>, which includes every part; a part may be included alone.
 */
#ifndef E2MAP_PUBLIC_DIFF_H
#define E2MAP_PUBLIC_DIFF_H

#include <e2map/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An entry's kinds of change (struct e2map_diff_entry's CHANGE). */
#define E2MAP_DIFF_ADDED 0x1u	/* in use in B only */
#define E2MAP_DIFF_DELETED 0x2u	/* in use in A only */
#define E2MAP_DIFF_RENAMED 0x4u	/* same inode and generation, other names */
#define E2MAP_DIFF_LINKS 0x8u	/* its link count changed */
#define E2MAP_DIFF_TYPE 0x10u	/* another type or generation: a new file
				 * on the number (ADDED and DELETED too) */
#define E2MAP_DIFF_MODE 0x20u	/* permission bits */
#define E2MAP_DIFF_OWNER 0x40u	/* uid or gid */
#define E2MAP_DIFF_TIMES 0x80u	/* mtime, crtime (atime with ATIME); or
				 * ctime when nothing else changed */
#define E2MAP_DIFF_XATTR 0x100u	/* the xattr set (names or values; ACLs) */
#define E2MAP_DIFF_SIZE 0x200u	/* i_size */
#define E2MAP_DIFF_DATA 0x400u	/* RANGES lists changed logical ranges */
#define E2MAP_DIFF_ERROR 0x800u	/* ERR: the inode could not be compared */

/*
 * A changed logical range, in bytes, block-aligned.  "Mapped" is written
 * or unwritten blocks (or inline data); a hole is neither.
 */
enum e2map_diff_kind {
	E2MAP_DIFF_R_ADDED,	/* written in B, hole in A */
	E2MAP_DIFF_R_REMOVED,	/* mapped in A, past B's EOF and unmapped */
	E2MAP_DIFF_R_PUNCHED,	/* mapped in A, a hole below B's EOF */
	E2MAP_DIFF_R_MOVED,	/* mapped to other physical blocks in B */
	E2MAP_DIFF_R_FILLED,	/* hole in A, unwritten in B (fallocate) */
	E2MAP_DIFF_R_WRITTEN,	/* unwritten in A, written in B, same blocks */
	E2MAP_DIFF_R_UNWRITTEN,	/* written in A, unwritten in B, same blocks */
	E2MAP_DIFF_R_SAME_CHANGED,	/* same blocks, other bytes (BYTES) */
	E2MAP_DIFF_R_SAME_UNCHECKED	/* same blocks, bytes not compared */
};
struct e2map_diff_range {
	uint64_t offset, length;
	enum e2map_diff_kind kind;
};

/*
 * One changed inode, handed to the callback and borrowed for the call
 * (it grows only at its end).  PATH_A and PATH_B are its first names in
 * A and B (NULL where none names it); ST_A and ST_B its stat (ino 0 where
 * absent).  RANGES are sorted by offset and do not overlap.  ERR is 0 or
 * the negative errno that stopped its comparison (then DETAIL says why
 * and CHANGE holds E2MAP_DIFF_ERROR and what was found before).
 */
struct e2map_diff_entry {
	uint64_t ino;
	uint32_t change;		/* E2MAP_DIFF_* */
	int err;
	const char *detail;
	const char *path_a, *path_b;
	struct e2map_stat st_a, st_b;
	const struct e2map_diff_range *ranges;
	size_t nranges;
};

/* The whole comparison, for planning: filled by e2map_diff. */
#define E2MAP_DIFF_SUMMARY_VERSION 1
#define E2MAP_DIFF_SUMMARY_INIT { .version = E2MAP_DIFF_SUMMARY_VERSION }
struct e2map_diff_summary {
	unsigned version;		/* E2MAP_DIFF_SUMMARY_VERSION */
	uint64_t files;			/* entries handed to the callback */
	/* Bytes an incremental copy sends: the ranges B's data is new in
	 * (added, moved, written, same_mapping_changed and, not compared,
	 * same_mapping_unchecked), clipped to B's EOF; UNCHECKED the last. */
	uint64_t copy_bytes, unchecked_bytes;
	/* Each filesystem's size and its blocks in use, in bytes: what
	 * qemu-img measure calls fully allocated and required, and
	 * partclone.info device size and space in use. */
	uint64_t apparent_a, allocated_a, apparent_b, allocated_b;
	uint64_t inodes_differing;	/* raw inodes that differ */
	uint64_t inodes_walked;		/* mapping walks made (A and B) */
};

/* Options (e2map_diff_opts's FLAGS). */
#define E2MAP_DIFF_BYTES 0x1u	/* read same-mapped blocks from both */
#define E2MAP_DIFF_FORCE 0x2u	/* compare filesystems of other UUIDs */
#define E2MAP_DIFF_ATIME 0x4u	/* an atime change is a change */
#define E2MAP_DIFF_OPTS_VERSION 1
#define E2MAP_DIFF_OPTS_INIT { .version = E2MAP_DIFF_OPTS_VERSION }
struct e2map_diff_opts {
	unsigned version;	/* E2MAP_DIFF_OPTS_VERSION */
	unsigned flags;		/* E2MAP_DIFF_BYTES... */
	const char *path;	/* only inodes named under it in A or B; NULL */
};

/*
 * Compare A (before) and B (after): CB once per changed inode, in inode
 * order, then SUMMARY (may be NULL).  Both inode tables are read once,
 * block by block, each inode's bytes compared but for its checksum and
 * atime; where they are equal, only the extent index or indirect blocks
 * under it are read and compared (an extent root in the inode costs
 * nothing).  An inode that differs is stat'ed, its xattrs and names
 * compared, and its mapping walked in both (e2map_file_walk).  Names come from
 * both path tables (e2map_paths_build), built when a first inode
 * differs.  Cost: the two inode tables, the directories (for the path
 * tables) and the mappings of the inodes that differ; BYTES adds the
 * same-mapped blocks of changed files.  Memory: the two path tables
 * (about 24 bytes a name plus the name, each) and one inode's runs at a
 * time; so bounded by the larger image's inode and name count.  A data
 * change that leaves the inode's bytes alone (same mtime to the
 * granularity the inode keeps, same size and mapping) is not seen.
 * Returns 0, CB's non-zero return, or -EINVAL (NULL argument, an unknown
 * version, block sizes or inode geometry that differ, other UUIDs without
 * E2MAP_DIFF_FORCE: e2map_errmsg(A) says which) or -ENOMEM.  An inode
 * table block that cannot be read is one entry with E2MAP_DIFF_ERROR
 * (its group's first inode), and the comparison goes on at the next group.
 */
typedef int (*e2map_diff_cb)(const struct e2map_diff_entry *e, void *payload);
E2MAP_API int e2map_diff(e2map_t *a, e2map_t *b,
			 const struct e2map_diff_opts *opts,
			 e2map_diff_cb cb, void *payload,
			 struct e2map_diff_summary *summary);
/* "added", "removed", "punched", "moved", "filled", "written",
 * "unwritten", "same_mapping_changed", "same_mapping_unchecked". */
E2MAP_API const char *e2map_diff_kind_name(enum e2map_diff_kind k);
/* "added", "deleted", "renamed", "links", "type", "mode", "owner",
 * "times", "xattr", "size", "data", "error": BIT's name, NULL for none. */
E2MAP_API const char *e2map_diff_change_name(uint32_t bit);

#ifdef __cplusplus
}
#endif
#endif /* E2MAP_PUBLIC_DIFF_H */

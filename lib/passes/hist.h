/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Within the journal's history (history.c) and recovery (recover.c): the
 * journal handle, an inode's versions, and the block map a version held.
 */
#ifndef E2MAP_HIST_H
#define E2MAP_HIST_H

#include "passes.h"

struct claim;

struct e2map_journal {
	e2map_t *m;
	struct e2map_jlog *log;
	unsigned char *buf;		/* one block */
	struct claim *claims;		/* built on first use (recover.c) */
	size_t nclaims, capclaims;
	uint64_t longest;		/* the longest claim, in blocks */
	bool claimed;
	e2map_blockmap_t *owners;	/* built on first use (recover.c) */
};

/* A version with the inode's bytes as that copy held them. */
struct hver {
	struct e2map_version v;
	unsigned char raw[1024];
	unsigned isz;
};

/* history.c: the versions of INO, oldest first, collapsed (*V freed by the
 * caller) */
int e2map__versions(e2map_journal_t *j, uint64_t ino, struct hver **v,
		    size_t *n);
/* history.c: where INO lies: its inode-table block and byte offset */
int e2map__ino_place(e2map_t *m, uint64_t ino, uint64_t *blk, uint32_t *off);
/* history.c: the time at byte AT of inode RAW (ISZ bytes) and its extra
 * word at EXTRA (ext4_decode_extra_time: epoch bits, nanoseconds) where
 * the inode holds one; 0 where it holds no AT (a small inode's crtime) */
void e2map__inode_time(const unsigned char *raw, unsigned isz, unsigned at,
		       unsigned extra, int64_t *sec, uint32_t *ns);
/* history.c: RAW (the whole inode, ISZ bytes) of inode INO decoded into
 * V's fields */
void e2map__decode(e2map_t *m, uint64_t ino, const unsigned char *raw,
		   unsigned isz, struct e2map_version *v);

/* One run of a version's map: LEN blocks from logical LBLK at PBLK. */
struct vrun {
	uint64_t lblk, pblk, len;
};
struct vmap {
	struct vrun *v;
	size_t n, cap;
	bool whole;		/* every tree or indirect block was read */
	const e2map_blockmap_t *owners;	/* NULL: a disk block is trusted */
	uint64_t ino;			/* whose map: its own blocks are */
};
/* history.c: the data runs version H maps, in logical order */
int e2map__vmap(e2map_journal_t *j, const struct hver *h, struct vmap *out);

#endif /* E2MAP_HIST_H */

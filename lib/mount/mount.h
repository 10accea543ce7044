/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount layer: e2map_open, where the parts below are put together as
 * ext4_fill_super puts them (image.c: the mount's checks), the system
 * zone built (syszone.c, over zonesim.c where ranges overlap), journal
 * recovery (journal.c over jmap.c; jnl.h within it), and the fast
 * commits scanned and replayed (fc/).
 */
#ifndef E2MAP_MOUNT_H
#define E2MAP_MOUNT_H

#include "dir.h"

/* fs/ext4/fast_commit.h: the tags (fc/fc_scan.c scans them, the rest of
 * fc/ applies them), each after a 4-byte struct ext4_fc_tl. */
enum { E2MAP_FC_ADD_RANGE = 1, E2MAP_FC_DEL_RANGE, E2MAP_FC_CREAT,
       E2MAP_FC_LINK, E2MAP_FC_UNLINK, E2MAP_FC_INODE, E2MAP_FC_PAD,
       E2MAP_FC_TAIL, E2MAP_FC_HEAD };
#define E2MAP_FC_TL 4

/*
 * The fast commits journal recovery replays after the log's blocks:
 * NBLOCKS blocks of BS bytes from the journal's fast-commit area, of
 * which the first TAGS tags are replayed (fc/).
 */
struct e2map_fc {
	unsigned char *blocks;
	size_t nblocks, cap;
	unsigned tags;
	uint32_t bs;
};
/*
 * journal.c: the blocks journal recovery would write in *OUT (NULL when
 * the journal needs none), the fast commits in *FC (NULL: none), or the
 * -errno the kernel's mount fails with.
 */
int e2map__journal_replay(e2map_t *m, struct e2map_overlay **out,
			  struct e2map_fc **fc);
/* fc/fc_scan.c */
void e2map__fc_free(struct e2map_fc *fc);
/* fc/: FC applied to FS (writable over its overlay), as ext4_fc_replay
 * applies it at mount. */
int e2map__fc_replay(ext2_filsys fs, const struct e2map_fc *fc);

/*
 * jmap.c: the journal inode W->ino read as ext4_iget reads it, then each
 * run ext4_map_blocks finds in its first blocks, in logical order.  The
 * system zone's journal runs and journal recovery's map of the journal
 * both walk it so; what they map and what they say differ.
 */
struct e2map_jwalk {
	e2map_t *m;
	uint32_t ino;
	/* The inode is read (F): how many blocks to map (*N); -errno stops. */
	int (*begin)(struct e2map_jwalk *w, e2map_file_t *f, uint32_t *n);
	/* Run R from logical block LBLK, a hole too (R->len at least 1). */
	int (*run)(struct e2map_jwalk *w, uint32_t lblk,
		   const struct es_entry *r);
	/* Reading or mapping the inode failed with ERR, the detail in
	 * W->m's error: the caller's words for it. */
	int (*fail)(struct e2map_jwalk *w, int err);
};
int e2map__journal_walk(struct e2map_jwalk *w);

/*
 * jlog.c: every metadata-block copy the journal area holds (live or
 * checkpointed, revoked or not), V sorted by HOME then TID: each with the
 * journal block holding it, its transaction, that transaction's commit
 * time where its commit block was found, and E2MAP_COPY_* flags.  The
 * counters are what was skipped: tags naming blocks past the device,
 * copies whose checksum fails, tags over a rewritten part of the log,
 * unreadable or damaged header blocks.
 */
struct jnl;
struct e2map_jcopy {
	uint64_t home, commit_sec;
	uint32_t jblk, tid, commit_nsec, flags;
};
struct e2map_jlog {
	struct jnl *j;
	struct e2map_jcopy *v;
	size_t n, cap;
	uint32_t seq, start;	/* the journal superblock's s_sequence, s_start */
	uint64_t past_device, bad_copies, stale_tags, bad_blocks;
};
/* -ENOENT: no journal; -EOPNOTSUPP: an external one */
int e2map__jlog_open(e2map_t *m, struct e2map_jlog **out);
/* The copies of block HOME: the first's index, *N of them. */
size_t e2map__jlog_find(const struct e2map_jlog *l, uint64_t home, size_t *n);
/* Copy C's bytes (an escaped block's magic put back) into BUF. */
int e2map__jlog_read(struct e2map_jlog *l, const struct e2map_jcopy *c,
		     unsigned char *buf);
void e2map__jlog_free(struct e2map_jlog *l);

/* syszone.c: ext4_setup_system_zone, or the -errno that fails the mount */
int e2map__zone_setup(e2map_t *m);
/* zonesim.c: add_system_zone's tree, for overlapping ranges */
struct e2map_zsim {
	struct znode *v;
	uint32_t n, root;
};
int e2map__zsim_init(struct e2map_zsim *t, size_t adds);
/* 0, or -EUCLEAN when START lies inside a range met on the way down */
int e2map__zsim_add(struct e2map_zsim *t, uint64_t start, uint32_t count,
		    uint32_t ino);
void e2map__zsim_free(struct e2map_zsim *t);

#endif /* E2MAP_MOUNT_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Within journal recovery: the journal as its three parts see it --
 * journal.c's passes over the log, jmap.c's map of the journal inode and
 * its block reads, fc/fc_scan.c's scan of the fast-commit area.  The
 * reads sit apart from the passes so that the scan, which the passes
 * call, reads through them without the two files calling each other.
 */
#ifndef E2MAP_JNL_H
#define E2MAP_JNL_H

#include "mount.h"

#include <inttypes.h>

#define JBD2_MIN_JOURNAL_BLOCKS 1024

#define JBD2_MAGIC 0xc03b3998U
enum { JB_DESCRIPTOR = 1, JB_COMMIT = 2, JB_SB_V1 = 3, JB_SB_V2 = 4,
       JB_REVOKE = 5 };
#define JF_COMPAT_CHECKSUM 0x1
#define JF_REVOKE 0x1
#define JF_64BIT 0x2
#define JF_ASYNC_COMMIT 0x4
#define JF_CSUM_V2 0x8
#define JF_CSUM_V3 0x10
#define JF_FAST_COMMIT 0x20
#define JF_KNOWN_INCOMPAT 0x3f
#define JTAG_ESCAPE 0x1
#define JTAG_SAME_UUID 0x2
#define JTAG_LAST 0x8
#define JBD2_CRC32_CHKSUM 1
#define JBD2_CRC32_CHKSUM_SIZE 4
#define JBD2_CRC32C_CHKSUM 4
#define JHDR 12			/* journal_header_t */
#define JTAIL 4			/* jbd2_journal_block_tail */

struct revoke;
struct replayed;

struct jnl {
	e2map_t *m;
	uint64_t *map;		/* journal block -> device block, 0: none */
	uint32_t total, first, last, bs;
	uint32_t fc_first, fc_last;	/* 0: no fast-commit area */
	uint32_t compat, incompat;	/* 0 for a v1 superblock */
	uint32_t seq, start, seed;
	unsigned tag_bytes;
	uint32_t end;		/* info->end_transaction; 0: not known */
	bool failed;		/* j_failed_commit: a commit block was bad */
	uint32_t failed_commit;
	struct revoke *rv;
	size_t nrv, caprv;
	struct replayed *rp;
	size_t nrp, caprp;
	unsigned char *data;	/* nrp blocks, in replay order */
	size_t capdata;
	unsigned char *bh, *obh;
	struct e2map_fc fc;	/* the fast-commit blocks PASS_SCAN kept */
};

static inline uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static inline uint16_t be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline bool has_csum(const struct jnl *j)
{
	return j->incompat & (JF_CSUM_V2 | JF_CSUM_V3);
}

static inline int jfail(int err, const char *what, uint64_t n)
{
	return e2map__fail(NULL, err, "journal recovery: %s %" PRIu64
			   ": the kernel's mount fails", what, n);
}

/* jmap.c: journal block OFF, through the journal's map, into BUF */
int e2map__jnl_read(struct jnl *j, uint32_t off, unsigned char *buf);
/* jmap.c: j->map and j->total from journal inode INO */
int e2map__jnl_map(struct jnl *j, uint32_t ino);

/*
 * journal.c, shared with jlog.c's scan of every descriptor: the journal
 * superblock read into J (journal_load_superblock's checks); a
 * descriptor B's tag at *P (JHDR first) in *T, *P moved on, false past the
 * last; the v2/v3 checksums of a descriptor or revoke block, a commit
 * block and a tagged block DATA of sequence SEQ (true without them).
 */
struct jtag {
	const unsigned char *raw;
	uint64_t blk;
	uint16_t flags;
};
int e2map__jnl_super(struct jnl *j);
bool e2map__jnl_tag_next(const struct jnl *j, const unsigned char *b,
			 size_t *p, struct jtag *t);
bool e2map__jnl_block_ok(const struct jnl *j, unsigned char *b);
bool e2map__jnl_commit_ok(const struct jnl *j, unsigned char *b);
bool e2map__jnl_tag_ok(const struct jnl *j, const unsigned char *tag,
		       const unsigned char *data, uint32_t seq);

/* fc/fc_scan.c: the fast-commit area the journal superblock B sets aside */
int e2map__fc_area(struct jnl *j, const unsigned char *b);
/* fc/fc_scan.c: PASS_SCAN over the fast-commit area, into j->fc */
int e2map__fc_scan(struct jnl *j);
/* fc/fc_scan.c: j->fc handed over as *FC (NULL: no tags to replay) */
int e2map__fc_hand(struct jnl *j, struct e2map_fc **fc);

#endif /* E2MAP_JNL_H */

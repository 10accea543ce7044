/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fast-commit area in journal recovery: where it lies
 * (journal_load_superblock's j_fc_first and j_fc_last) and PASS_SCAN
 * over it (fc_do_one_pass calling ext4_fc_replay_scan): each tag's
 * length checked, each commit's tid and crc32c in its tail, the count
 * of tags the last valid tail closes.  The kernel's mount fails on a
 * bad first commit and stops at a bad later one; the blocks and the
 * count go to fc_replay.c, which replays them after the log.  It reads
 * through journal recovery's map (jmap.c) and is called from its scan
 * pass (journal.c).
 */
#include "jnl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#define JBD2_DEFAULT_FC_BLOCKS 256
#define EXT4_NAME_LEN 255
#define EXT4_GOOD_OLD_INODE_SIZE 128

/* ext4_fc_value_len_isvalid */
static bool fc_len_ok(const struct jnl *j, unsigned tag, unsigned len)
{
	switch (tag) {
	case E2MAP_FC_ADD_RANGE:
		return len == 16;
	case E2MAP_FC_DEL_RANGE:
		return len == 12;
	case E2MAP_FC_CREAT:
	case E2MAP_FC_LINK:
	case E2MAP_FC_UNLINK:
		return len > 8 && len - 8 <= EXT4_NAME_LEN;
	case E2MAP_FC_INODE:
		return len >= 4 + EXT4_GOOD_OLD_INODE_SIZE &&
		       len - 4 <= EXT2_INODE_SIZE(j->m->fs->super);
	case E2MAP_FC_PAD:
		return true;
	case E2MAP_FC_TAIL:
		return len >= 8;
	case E2MAP_FC_HEAD:
		return len == 8;
	}
	return false;
}

enum { FC_CONTINUE, FC_STOP };

struct fc_scan {
	uint32_t crc, expected;
	unsigned cur_tag, num_tags;
};

/* One tag of ext4_fc_replay_scan: FC_CONTINUE, FC_STOP or -errno. */
static int fc_scan_tag(struct fc_scan *sc, unsigned tag, const unsigned char *tl,
		       unsigned len)
{
	const unsigned char *val = tl + E2MAP_FC_TL;

	sc->cur_tag++;
	switch (tag) {
	case E2MAP_FC_TAIL:
		sc->crc = e2map__crc32c(sc->crc, tl, E2MAP_FC_TL + 4);
		if (le32(val) == sc->expected && le32(val + 4) == sc->crc) {
			sc->num_tags = sc->cur_tag;
			sc->crc = 0;
			return FC_CONTINUE;
		}
		sc->crc = 0;
		return sc->num_tags ? FC_STOP : -EBADMSG;
	case E2MAP_FC_HEAD:
		if (le32(val))
			return -EOPNOTSUPP;
		if (le32(val + 4) != sc->expected)
			return FC_STOP;
		break;
	case E2MAP_FC_ADD_RANGE: case E2MAP_FC_DEL_RANGE: case E2MAP_FC_CREAT: case E2MAP_FC_LINK:
	case E2MAP_FC_UNLINK: case E2MAP_FC_INODE: case E2MAP_FC_PAD:
		break;
	default:
		return sc->num_tags ? FC_STOP : -ECANCELED;
	}
	sc->crc = e2map__crc32c(sc->crc, tl, E2MAP_FC_TL + len);
	return FC_CONTINUE;
}

static int fc_scan_block(const struct jnl *j, struct fc_scan *sc,
			 const unsigned char *b)
{
	size_t p = 0;
	unsigned tag, len;
	int r;

	while (p + E2MAP_FC_TL <= j->bs) {
		tag = b[p] | b[p + 1] << 8;
		len = b[p + 2] | b[p + 3] << 8;
		if (len > j->bs - p - E2MAP_FC_TL || !fc_len_ok(j, tag, len))
			return sc->num_tags ? FC_STOP : -ECANCELED;
		if ((r = fc_scan_tag(sc, tag, b + p, len)) != FC_CONTINUE)
			return r;
		p += E2MAP_FC_TL + len;
	}
	return FC_CONTINUE;
}

static int fc_fail(int err, uint32_t blk)
{
	const char *why = err == -EBADMSG ? "bad checksum in its first commit" :
			  err == -EOPNOTSUPP ? "unknown features" :
			  "invalid tag";

	return e2map__fail(NULL, err, "journal recovery: fast-commit block "
			   "%" PRIu32 ": %s: the kernel's mount fails", blk, why);
}

/*
 * fc_do_one_pass in PASS_SCAN: the blocks scanned are kept, with the
 * number of tags the last valid tail closes (ext4_fc_replay's replay pass
 * stops there).
 */
int e2map__fc_scan(struct jnl *j)
{
	struct fc_scan sc = { .expected = j->end };
	uint32_t off;
	unsigned char *b;
	int r = FC_CONTINUE;

	for (off = 0; r == FC_CONTINUE && j->fc_first + off <= j->fc_last;
	     off++) {
		if (e2map__grow((void **)&j->fc.blocks, &j->fc.cap,
				(off + 1) * (size_t)j->bs, 1) < 0)
			return -ENOMEM;
		b = j->fc.blocks + off * (size_t)j->bs;
		if ((r = e2map__jnl_read(j, j->fc_first + off, b)) < 0)
			return r;
		j->fc.nblocks = off + 1;
		if (!off && (b[0] | b[1] << 8) != E2MAP_FC_HEAD)
			return 0;
		if ((r = fc_scan_block(j, &sc, b)) < 0)
			return fc_fail(r, j->fc_first + off);
	}
	j->fc.tags = sc.num_tags;
	return 0;
}

/*
 * journal_check_superblock and journal_load_superblock: the last
 * s_num_fc_blks blocks (256 when 0) are the fast-commit area, and the log
 * wraps before them.  The area is read from j_fc_first = j_last + 1 to
 * j_fc_last = s_maxlen, as the kernel reads it: its last block lies past
 * the journal, so a scan that reaches it fails.
 */
int e2map__fc_area(struct jnl *j, const unsigned char *b)
{
	uint32_t n = be32(b + 84);

	if (!n)
		n = JBD2_DEFAULT_FC_BLOCKS;
	if (j->total < JBD2_MIN_JOURNAL_BLOCKS ||
	    j->total - JBD2_MIN_JOURNAL_BLOCKS < n)
		return e2map__fail(NULL, -EINVAL, "journal superblock: "
				   "journal file too short for %u fast-commit "
				   "blocks: the kernel's mount fails", n);
	j->fc_last = j->total;
	j->last = j->total - n;
	j->fc_first = j->last + 1;
	return 0;
}

/* The fast commits PASS_SCAN passed, for fc_replay.c; NULL when none. */
int e2map__fc_hand(struct jnl *j, struct e2map_fc **fc)
{
	if (!j->fc.tags)
		return 0;
	if (!(*fc = malloc(sizeof(**fc))))
		return -ENOMEM;
	**fc = j->fc;
	(*fc)->bs = j->bs;
	j->fc.blocks = NULL;
	return 0;
}

void e2map__fc_free(struct e2map_fc *fc)
{
	if (fc)
		free(fc->blocks);
	free(fc);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Journal recovery into memory (the "replay" option): what
 * jbd2_journal_recover (fs/jbd2/recovery.c) writes to the device on a
 * read-write mount, collected instead as an overlay of blocks that the io
 * manager lays over the image (io_manager.c), so every later read sees
 * the recovered filesystem and the image is never written.
 *
 * The kernel's three passes over the log from the journal superblock's
 * s_start: PASS_SCAN finds the last complete transaction (sequence
 * numbers, commit blocks, their checksums: v1 crc32_be, v2/v3 crc32c;
 * async commit); PASS_REVOKE collects revoke records with the sequence
 * that wrote them; PASS_REPLAY copies each tagged block that no later
 * revoke covers to its home block, the last copy winning.  The journal is
 * inode s_journal_inum, read through its own mapping (ext4_journal_bmap,
 * jmap.c); an external journal device is refused, not guessed.
 *
 * Fast commits (fc_do_one_pass, ext4_fc_replay_scan): the area after the
 * log holds the logical changes made since the last full commit.  PASS_SCAN
 * checks them as the kernel does (fc/fc_scan.c: the tid, each commit's
 * crc32c in its tail) and counts the tags a valid tail closes; the blocks
 * and that count go to fc/fc_replay.c, which applies them after the log's
 * blocks.
 */
#include "jnl.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum pass { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

struct revoke {
	uint64_t blk;
	uint32_t seq;
};

struct replayed {
	uint64_t blk;
	size_t order;		/* replay order: the last one wins */
};

/* tid_gt: sequence numbers compare modulo 2^32. */
static bool tid_gt(uint32_t x, uint32_t y)
{
	return (int32_t)(x - y) > 0;
}

/* journal_tag_bytes */
static unsigned tag_bytes(const struct jnl *j)
{
	unsigned sz = 12;

	if (j->incompat & JF_CSUM_V3)
		return 16;
	if (j->incompat & JF_CSUM_V2)
		sz += 2;
	return j->incompat & JF_64BIT ? sz : sz - 4;
}

static void wrap(const struct jnl *j, uint32_t *var)
{
	if (*var >= j->last)
		*var -= j->last - j->first;
}

/* A descriptor or revoke block's tail checksum (v2/v3 only). */
bool e2map__jnl_block_ok(const struct jnl *j, unsigned char *b)
{
	uint32_t want, got;

	if (!has_csum(j))
		return true;
	want = be32(b + j->bs - JTAIL);
	memset(b + j->bs - JTAIL, 0, JTAIL);
	got = e2map__crc32c(j->seed, b, j->bs);
	b[j->bs - 4] = (unsigned char)(want >> 24);
	b[j->bs - 3] = (unsigned char)(want >> 16);
	b[j->bs - 2] = (unsigned char)(want >> 8);
	b[j->bs - 1] = (unsigned char)want;
	return want == got;
}

bool e2map__jnl_commit_ok(const struct jnl *j, unsigned char *b)
{
	unsigned char keep[4];
	uint32_t got;

	if (!has_csum(j))
		return true;
	memcpy(keep, b + 16, 4);
	memset(b + 16, 0, 4);
	got = e2map__crc32c(j->seed, b, j->bs);
	memcpy(b + 16, keep, 4);
	return be32(keep) == got;
}

bool e2map__jnl_tag_ok(const struct jnl *j, const unsigned char *tag,
		       const unsigned char *data, uint32_t seq)
{
	unsigned char s[4] = { (unsigned char)(seq >> 24),
			       (unsigned char)(seq >> 16),
			       (unsigned char)(seq >> 8), (unsigned char)seq };
	uint32_t c;

	if (!has_csum(j))
		return true;
	c = e2map__crc32c(e2map__crc32c(j->seed, s, 4), data, j->bs);
	if (j->incompat & JF_CSUM_V3)
		return be32(tag + 12) == c;
	return be16(tag + 4) == (uint16_t)c;
}

static uint64_t tag_block(const struct jnl *j, const unsigned char *tag)
{
	uint64_t b = be32(tag);

	if (j->incompat & JF_64BIT)
		b |= (uint64_t)be32(tag + 8) << 32;
	return b;
}

bool e2map__jnl_tag_next(const struct jnl *j, const unsigned char *b,
			 size_t *p, struct jtag *t)
{
	size_t size = j->bs - (has_csum(j) ? JTAIL : 0);

	if (*p > size || *p + j->tag_bytes > size)
		return false;
	t->raw = b + *p;
	t->flags = be16(t->raw + 6);
	t->blk = tag_block(j, t->raw);
	*p = t->flags & JTAG_LAST ? SIZE_MAX :
	     *p + j->tag_bytes + (t->flags & JTAG_SAME_UUID ? 0 : 16);
	return true;
}

/* count_tags: the tags a descriptor block holds. */
static unsigned count_tags(const struct jnl *j, const unsigned char *b)
{
	size_t p = JHDR;
	unsigned nr = 0;
	struct jtag t;

	while (e2map__jnl_tag_next(j, b, &p, &t))
		nr++;
	return nr;
}

/* calc_chksums: v1's crc32_be over the descriptor and its blocks. */
static int calc_chksums(struct jnl *j, uint32_t *next, uint32_t *sum)
{
	unsigned i, n = count_tags(j, j->bh);

	*sum = ext2fs_crc32_be(*sum, j->bh, j->bs);
	for (i = 0; i < n; i++) {
		uint32_t io = (*next)++;

		wrap(j, next);
		if (e2map__jnl_read(j, io, j->obh) < 0)
			return 1;
		*sum = ext2fs_crc32_be(*sum, j->obh, j->bs);
	}
	return 0;
}

/* jbd2_journal_set_revoke: the newest sequence revoking a block wins. */
static int set_revoke(struct jnl *j, uint64_t blk, uint32_t seq)
{
	if (e2map__grow((void **)&j->rv, &j->caprv, j->nrv + 1,
			sizeof(*j->rv)) < 0)
		return -ENOMEM;
	j->rv[j->nrv++] = (struct revoke){ blk, seq };
	return 0;
}

static int cmp_revoke(const void *a, const void *b)
{
	const struct revoke *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* After PASS_REVOKE: one record per block, its newest sequence. */
static void settle_revokes(struct jnl *j)
{
	size_t i, n = 0;

	if (!j->nrv)	/* j->rv may be NULL, which qsort may not be given */
		return;
	qsort(j->rv, j->nrv, sizeof(*j->rv), cmp_revoke);
	for (i = 0; i < j->nrv; i++) {
		if (n && j->rv[n - 1].blk == j->rv[i].blk) {
			if (tid_gt(j->rv[i].seq, j->rv[n - 1].seq))
				j->rv[n - 1].seq = j->rv[i].seq;
		} else {
			j->rv[n++] = j->rv[i];
		}
	}
	j->nrv = n;
}

/* jbd2_journal_test_revoke: revoked by a transaction at or after SEQ. */
static bool revoked(const struct jnl *j, uint64_t blk, uint32_t seq)
{
	struct revoke key = { blk, 0 }, *r;

	if (!j->nrv)	/* j->rv may be NULL, which bsearch may not be given */
		return false;
	r = bsearch(&key, j->rv, j->nrv, sizeof(*j->rv), cmp_revoke);
	return r && !tid_gt(seq, r->seq);
}

/*
 * scan_revoke_records: PASS_SCAN only checks the count (the kernel sizes
 * its revoke table there), PASS_REVOKE records them.
 */
static int scan_revokes(struct jnl *j, enum pass pass, uint32_t seq)
{
	uint32_t count = be32(j->bh + JHDR);
	size_t rec = j->incompat & JF_64BIT ? 8 : 4, off = JHDR + 4;
	uint64_t blk;

	if (count > j->bs - (has_csum(j) ? JTAIL : 0))
		return jfail(-EINVAL, "revoke block of sequence", seq);
	if (pass == PASS_SCAN)
		return 0;
	for (; off + rec <= count; off += rec) {
		blk = rec == 4 ? be32(j->bh + off) :
		      (uint64_t)be32(j->bh + off) << 32 | be32(j->bh + off + 4);
		if (set_revoke(j, blk, seq) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A block for the overlay: its home BLK and the journal's copy in OBH. */
static int replay_block(struct jnl *j, uint64_t blk, bool escape)
{
	unsigned char *d;

	if (e2map__grow((void **)&j->rp, &j->caprp, j->nrp + 1,
			sizeof(*j->rp)) < 0 ||
	    e2map__grow((void **)&j->data, &j->capdata,
			(j->nrp + 1) * (size_t)j->bs, 1) < 0)
		return -ENOMEM;
	d = j->data + j->nrp * (size_t)j->bs;
	memcpy(d, j->obh, j->bs);
	if (escape) {
		d[0] = JBD2_MAGIC >> 24;
		d[1] = (JBD2_MAGIC >> 16) & 0xff;
		d[2] = (JBD2_MAGIC >> 8) & 0xff;
		d[3] = JBD2_MAGIC & 0xff;
	}
	j->rp[j->nrp] = (struct replayed){ blk, j->nrp };
	j->nrp++;
	return 0;
}

/*
 * PASS_REPLAY over one descriptor block: each tag's block to its home
 * unless revoked; a bad read or a bad tag checksum is recorded in
 * *SUCCESS and the rest still replayed, as the kernel does.
 */
static int replay_tags(struct jnl *j, uint32_t *next, uint32_t seq,
		       int *success, bool *block_error)
{
	size_t p = JHDR;
	struct jtag t;
	int err;

	while (e2map__jnl_tag_next(j, j->bh, &p, &t)) {
		uint32_t io = (*next)++;

		wrap(j, next);
		if ((err = e2map__jnl_read(j, io, j->obh)) < 0) {
			*success = err;
		} else if (revoked(j, t.blk, seq)) {
			/* skip */
		} else if (!e2map__jnl_tag_ok(j, t.raw, j->obh, seq)) {
			*success = -EBADMSG;
			*block_error = true;
		} else if ((err = replay_block(j, t.blk,
					       t.flags & JTAG_ESCAPE)) < 0) {
			return err;
		}
	}
	return 0;
}

/* The state of one pass, as do_one_pass keeps it in locals. */
struct pass_state {
	enum pass pass;
	uint32_t next_id, next_log;
	uint32_t crc32_sum;
	bool need_check_commit_time, block_error;
	uint64_t last_commit_time;
	int success;
};

enum step { STEP_NEXT, STEP_STOP, STEP_DONE };

static int descriptor(struct jnl *j, struct pass_state *s, enum step *st)
{
	if (has_csum(j) && !e2map__jnl_block_ok(j, j->bh)) {
		/* PASS_SCAN may meet stale blocks of a lazily made journal. */
		if (s->pass != PASS_SCAN)
			return jfail(-EBADMSG, "invalid checksum recovering "
				     "block", s->next_log);
		s->need_check_commit_time = true;
	}
	*st = STEP_NEXT;
	if (s->pass == PASS_REPLAY)
		return replay_tags(j, &s->next_log, s->next_id, &s->success,
				   &s->block_error);
	if (s->pass == PASS_SCAN && (j->compat & JF_COMPAT_CHECKSUM) &&
	    !s->need_check_commit_time && !j->end) {
		calc_chksums(j, &s->next_log, &s->crc32_sum);
		return 0;
	}
	s->next_log += count_tags(j, j->bh);
	wrap(j, &s->next_log);
	return 0;
}

/* v1 checksums: a match, or all unused. */
static bool v1_commit_ok(const struct jnl *j, const struct pass_state *s)
{
	uint32_t found = be32(j->bh + 16);
	unsigned type = j->bh[12], size = j->bh[13];

	return (s->crc32_sum == found && type == JBD2_CRC32_CHKSUM &&
		size == JBD2_CRC32_CHKSUM_SIZE) ||
	       (type == 0 && size == 0 && found == 0);
}

/* A commit block whose checksum fails in PASS_SCAN: CHKSUM_ERROR. */
static void commit_bad(struct jnl *j, struct pass_state *s,
		       uint64_t time, enum step *st)
{
	if (time < s->last_commit_time) {
		*st = STEP_DONE;	/* stale: recovery ends, no error */
		return;
	}
	j->end = s->next_id;
	if (!(j->incompat & JF_ASYNC_COMMIT)) {
		j->failed = true;
		j->failed_commit = s->next_id;
		*st = STEP_NEXT;	/* the kernel's switch break */
		return;
	}
	s->last_commit_time = time;
	s->next_id++;
	*st = STEP_NEXT;
}

static int commit(struct jnl *j, struct pass_state *s, enum step *st)
{
	uint64_t time = (uint64_t)be32(j->bh + 48) << 32 | be32(j->bh + 52);

	*st = STEP_NEXT;
	if (s->need_check_commit_time) {
		if (time >= s->last_commit_time)
			return jfail(-EBADMSG, "invalid checksum found in "
				     "transaction", s->next_id);
		*st = STEP_DONE;
		return 0;
	}
	if (s->pass == PASS_SCAN && (j->compat & JF_COMPAT_CHECKSUM)) {
		if (j->end) {
			j->failed = true;
			j->failed_commit = j->end;
			return 0;	/* the kernel's switch break */
		}
		if (!v1_commit_ok(j, s)) {
			commit_bad(j, s, time, st);
			return 0;
		}
		s->crc32_sum = ~0U;
	}
	if (s->pass == PASS_SCAN && !e2map__jnl_commit_ok(j, j->bh)) {
		commit_bad(j, s, time, st);
		return 0;
	}
	if (s->pass == PASS_SCAN)
		s->last_commit_time = time;
	s->next_id++;
	return 0;
}

static int revoke_block(struct jnl *j, struct pass_state *s, enum step *st)
{
	*st = STEP_NEXT;
	if (s->pass == PASS_SCAN && !e2map__jnl_block_ok(j, j->bh))
		s->need_check_commit_time = true;
	if (s->pass == PASS_REPLAY)
		return 0;
	return scan_revokes(j, s->pass, s->next_id);
}

/* One block of the log: read, judged, and what the pass does with it. */
static int one_block(struct jnl *j, struct pass_state *s, enum step *st)
{
	int err;

	if ((err = e2map__jnl_read(j, s->next_log, j->bh)) < 0)
		return err;
	s->next_log++;
	wrap(j, &s->next_log);
	*st = STEP_STOP;
	if (be32(j->bh) != JBD2_MAGIC || be32(j->bh + 8) != s->next_id)
		return 0;
	switch (be32(j->bh + 4)) {
	case JB_DESCRIPTOR:
		return descriptor(j, s, st);
	case JB_COMMIT:
		return commit(j, s, st);
	case JB_REVOKE:
		return revoke_block(j, s, st);
	default:
		*st = STEP_DONE;
		return 0;
	}
}

/*
 * do_one_pass.  A log that never ends (every block a descriptor of the
 * same sequence) would keep the kernel's mount looping: after more blocks
 * than the log holds, e2map refuses it instead.
 */
static int do_one_pass(struct jnl *j, enum pass pass)
{
	struct pass_state s = { .pass = pass, .next_id = j->seq,
				.next_log = j->start, .crc32_sum = ~0U };
	uint64_t seen = 0, most = 2 * (uint64_t)j->total + 2;
	enum step st = STEP_NEXT;
	int err;

	while (st == STEP_NEXT) {
		if (pass != PASS_SCAN && !tid_gt(j->end, s.next_id))
			break;
		if (++seen > most)
			return jfail(-ELOOP, "the log never ends; blocks "
				     "read", seen);
		if ((err = one_block(j, &s, &st)) < 0)
			return err;
	}
	if (pass == PASS_SCAN) {
		if (!j->end)
			j->end = s.next_id;
		if (j->fc_first && !s.success && (err = e2map__fc_scan(j)) < 0)
			return err;
	} else if (j->end != s.next_id && !s.success) {
		s.success = jfail(-EIO, "recovery pass ended at transaction",
				  s.next_id);
	}
	if (s.block_error && !s.success)
		s.success = jfail(-EIO, "invalid checksum recovering a data "
				  "block of transaction", s.next_id);
	return s.success;
}

static int sb_fail(const char *why)
{
	return e2map__fail(NULL, -EUCLEAN, "journal superblock: %s: the "
			   "kernel's mount fails", why);
}

/* journal_load_superblock and jbd2_journal_load's feature check. */
int e2map__jnl_super(struct jnl *j)
{
	unsigned char *b = j->bh;
	uint32_t maxlen, type, c;
	int err;

	if ((err = e2map__jnl_read(j, 0, b)) < 0)
		return err;
	type = be32(b + 4);
	if (be32(b) != JBD2_MAGIC)
		return sb_fail("no valid journal superblock found");
	if (type != JB_SB_V1 && type != JB_SB_V2)
		return sb_fail("unrecognised superblock format ID");
	maxlen = be32(b + 16);
	if (maxlen > j->total)
		return sb_fail("journal file too short");
	j->total = maxlen;
	j->first = be32(b + 20);
	j->last = maxlen;
	if (!j->first || j->first >= j->total)
		return sb_fail("invalid start block of journal");
	if (type == JB_SB_V2) {
		j->compat = be32(b + 36);
		j->incompat = be32(b + 40);
		if (be32(b + 44) || (j->incompat & ~JF_KNOWN_INCOMPAT))
			return e2map__fail(NULL, -EINVAL, "journal: "
					   "unrecognised features: the "
					   "kernel's mount fails");
	}
	if ((j->incompat & JF_CSUM_V2) && (j->incompat & JF_CSUM_V3))
		return sb_fail("checksum v2 and v3 at the same time");
	if (has_csum(j) && (j->compat & JF_COMPAT_CHECKSUM))
		return sb_fail("checksum v1 and v2/v3 at the same time");
	if (has_csum(j)) {
		if (b[80] != JBD2_CRC32C_CHKSUM)
			return sb_fail("unknown checksum type");
		j->seed = e2map__crc32c(~0U, b + 48, 16);
		c = be32(b + 0xfc);
		memset(b + 0xfc, 0, 4);
		if (e2map__crc32c(~0U, b, 1024) != c)
			return e2map__fail(NULL, -EBADMSG, "journal "
					   "superblock: checksum error: the "
					   "kernel's mount fails");
	}
	if ((j->incompat & JF_FAST_COMMIT) && (err = e2map__fc_area(j, b)) < 0)
		return err;
	j->seq = be32(b + 24);
	j->start = be32(b + 28);
	j->tag_bytes = tag_bytes(j);
	return 0;
}

static int cmp_replayed(const void *a, const void *b)
{
	const struct replayed *x = a, *y = b;

	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The overlay: for each home block, the last copy replayed. */
static int make_overlay(struct jnl *j, struct e2map_overlay **out)
{
	size_t i, n = 0;
	int err;

	if (j->nrp)	/* as in settle_revokes: j->rp may be NULL */
		qsort(j->rp, j->nrp, sizeof(*j->rp), cmp_replayed);
	for (i = 0; i < j->nrp; i++) {
		if (i + 1 < j->nrp && j->rp[i + 1].blk == j->rp[i].blk)
			continue;
		j->rp[n++] = j->rp[i];
	}
	if ((err = e2map__overlay_new(j->bs, n, out)) < 0)
		return err;
	for (i = 0; i < n; i++)
		if ((err = e2map__overlay_set(*out, i, j->rp[i].blk, j->data +
					      j->rp[i].order * (size_t)j->bs)) < 0) {
			e2map__overlay_free(*out);
			*out = NULL;
			return err;
		}
	return 0;
}

static int recover(struct jnl *j, struct e2map_overlay **out)
{
	int err;

	if ((err = e2map__jnl_super(j)) < 0)
		return err;
	if (j->start) {
		if ((err = do_one_pass(j, PASS_SCAN)) < 0 ||
		    (err = do_one_pass(j, PASS_REVOKE)) < 0)
			return err;
		settle_revokes(j);
		if ((err = do_one_pass(j, PASS_REPLAY)) < 0)
			return err;
	}
	/* jbd2_journal_load: replayed, but the mount fails. */
	if (j->failed)
		return e2map__fail(NULL, -EUCLEAN, "journal transaction %u is "
				   "corrupt: the kernel's mount fails",
				   j->failed_commit);
	/* journal_reset, after the recovery: a log this short is refused. */
	if (j->first + JBD2_MIN_JOURNAL_BLOCKS > j->last + 1)
		return e2map__fail(NULL, -EINVAL, "journal too short (blocks "
				   "%u-%u): the kernel's mount fails",
				   j->first, j->last);
	return make_overlay(j, out);
}

int e2map__journal_replay(e2map_t *m, struct e2map_overlay **out,
			  struct e2map_fc **fc)
{
	struct ext2_super_block *sb = m->fs->super;
	struct jnl j = { .m = m, .bs = m->bs };
	int err;

	*out = NULL;
	*fc = NULL;
	if (!ext2fs_has_feature_journal(sb) ||
	    !ext2fs_has_feature_journal_needs_recovery(sb))
		return 0;
	if (!sb->s_journal_inum)
		return e2map__fail(NULL, -EOPNOTSUPP, "the journal is on an "
				   "external device: --replay reads internal "
				   "journals only");
	if (!(j.bh = malloc(j.bs)) || !(j.obh = malloc(j.bs)))
		err = -ENOMEM;
	else if ((err = e2map__jnl_map(&j, sb->s_journal_inum)) == 0 &&
		 (err = recover(&j, out)) == 0 &&
		 (err = e2map__fc_hand(&j, fc)) < 0) {
		e2map__overlay_free(*out);
		*out = NULL;
	}
	free(j.fc.blocks);
	free(j.map);
	free(j.rv);
	free(j.rp);
	free(j.data);
	free(j.bh);
	free(j.obh);
	return err;
}

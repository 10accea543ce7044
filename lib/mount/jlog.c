/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every metadata-block copy the journal area still holds, not only the
 * live log recovery replays (journal.c): the past of the filesystem's
 * metadata, for history and recovery (passes/history.c, recover.c).
 *
 * One pass reads each block of the log area once and notes what it is: a
 * descriptor (its tags kept), a commit (its time), a revoke (its records),
 * or none of these.  Then each descriptor's tags are given the journal
 * blocks that follow it, wrapping at the end of the log.  jbd2 writes the
 * log in order from s_first, so a tag's block is stale once a header
 * block stands between it and its descriptor: the log was rewritten
 * there, and the tags from it on are dropped.  That bounds the work on a
 * hostile journal too: tags of different descriptors never share a block,
 * so at most one copy a journal block is kept.  With v2/v3 checksums each
 * copy's tag checksum is checked as well.
 */
#include "jnl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What one journal block is, from its header. */
struct jhead {
	uint32_t tid;
	uint8_t type;		/* JB_*; 0: no header (data, or unused) */
};

struct ptag {			/* a descriptor's tag, not yet placed */
	uint32_t desc, idx, tid;
	uint64_t blk;
	uint16_t flags;
	unsigned char raw[16];	/* the tag, for its checksum */
};

struct commit {
	uint32_t tid;
	uint32_t nsec;
	uint64_t sec;
};

struct scan {
	struct e2map_jlog *l;
	struct jnl *j;
	struct jhead *head;
	struct ptag *pt;
	size_t npt, cappt;
	size_t pend;		/* the last descriptor's first tag in PT */
	uint32_t pdesc;		/* that descriptor; 0: none pending */
	struct commit *cm;
	size_t ncm, capcm;
	struct revoke_rec { uint64_t blk; uint32_t tid; } *rv;
	size_t nrv, caprv;
};

static bool tid_after(uint32_t x, uint32_t y)
{
	return (int32_t)(x - y) > 0;
}

/* A journal block straight from the map: a hole is no copy, no error. */
static int jlog_read(struct jnl *j, uint32_t off, unsigned char *buf)
{
	if (off >= j->total || !j->map[off] ||
	    io_channel_read_blk64(j->m->fs->io, j->map[off], 1, buf))
		return -EIO;
	return 0;
}

/*
 * A header at B ends the blocks that follow the last descriptor: its tags
 * from B on are stale.  Dropped now, not when placed, so that a log of
 * descriptors alone (511 tags each) keeps no more tags than it has blocks.
 */
static void trim_tags(struct scan *s, uint32_t b)
{
	size_t room;

	if (!s->pdesc)
		return;
	room = b - s->pdesc - 1;
	if (s->npt - s->pend > room) {
		s->npt = s->pend + room;
		s->l->stale_tags++;
	}
	s->pdesc = 0;
}

static int keep_tags(struct scan *s, uint32_t at, uint32_t tid)
{
	struct jnl *j = s->j;
	size_t p = JHDR;
	uint32_t idx = 0;
	struct jtag t;

	if (!e2map__jnl_block_ok(j, j->bh)) {
		s->l->bad_blocks++;
		return 0;
	}
	s->pend = s->npt;
	s->pdesc = at;
	while (e2map__jnl_tag_next(j, j->bh, &p, &t)) {
		struct ptag *q;

		if (e2map__grow((void **)&s->pt, &s->cappt, s->npt + 1,
				sizeof(*s->pt)) < 0)
			return -ENOMEM;
		q = &s->pt[s->npt++];
		*q = (struct ptag){ at, idx++, tid, t.blk, t.flags, { 0 } };
		memcpy(q->raw, t.raw, j->tag_bytes < 16 ? j->tag_bytes : 16);
	}
	return 0;
}

static int keep_commit(struct scan *s, uint32_t tid)
{
	const unsigned char *b = s->j->bh;

	if (!e2map__jnl_commit_ok(s->j, s->j->bh)) {
		s->l->bad_blocks++;
		return 0;
	}
	if (e2map__grow((void **)&s->cm, &s->capcm, s->ncm + 1,
			sizeof(*s->cm)) < 0)
		return -ENOMEM;
	s->cm[s->ncm++] = (struct commit){ tid, be32(b + 56),
		(uint64_t)be32(b + 48) << 32 | be32(b + 52) };
	return 0;
}

/* A revoke block's records; a count past the block is cut to it. */
static int keep_revokes(struct scan *s, uint32_t tid)
{
	struct jnl *j = s->j;
	size_t rec = j->incompat & JF_64BIT ? 8 : 4, off = JHDR + 4;
	size_t end = be32(j->bh + JHDR), room = j->bs - (has_csum(j) ? JTAIL : 0);
	uint64_t blk;

	if (!e2map__jnl_block_ok(j, j->bh)) {
		s->l->bad_blocks++;
		return 0;
	}
	if (end > room) {
		s->l->bad_blocks++;
		end = room;
	}
	for (; off + rec <= end; off += rec) {
		blk = rec == 4 ? be32(j->bh + off) :
		      (uint64_t)be32(j->bh + off) << 32 | be32(j->bh + off + 4);
		if (e2map__grow((void **)&s->rv, &s->caprv, s->nrv + 1,
				sizeof(*s->rv)) < 0)
			return -ENOMEM;
		s->rv[s->nrv++] = (struct revoke_rec){ blk, tid };
	}
	return 0;
}

/* The one pass: each block of the log area read once. */
static int read_heads(struct scan *s)
{
	struct jnl *j = s->j;
	uint32_t b, tid, type;
	int err = 0;

	for (b = j->first; b < j->last && !err; b++) {
		if (jlog_read(j, b, j->bh) < 0) {
			s->l->bad_blocks++;
			continue;
		}
		if (be32(j->bh) != JBD2_MAGIC)
			continue;
		type = be32(j->bh + 4);
		tid = be32(j->bh + 8);
		/* any header stops the tags before it, type 0 too */
		trim_tags(s, b);
		s->head[b] = (struct jhead){ tid, (uint8_t)(type && type < 255 ?
							    type : 255) };
		if (type == JB_DESCRIPTOR)
			err = keep_tags(s, b, tid);
		else if (type == JB_COMMIT)
			err = keep_commit(s, tid);
		else if (type == JB_REVOKE)
			err = keep_revokes(s, tid);
	}
	return err;
}

static int cmp_commit(const void *a, const void *b)
{
	const struct commit *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_rv(const void *a, const void *b)
{
	const struct revoke_rec *x = a, *y = b;

	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_copy(const void *a, const void *b)
{
	const struct e2map_jcopy *x = a, *y = b;

	if (x->home != y->home)
		return x->home < y->home ? -1 : 1;
	if (x->tid != y->tid)
		return tid_after(x->tid, y->tid) ? 1 : -1;
	return x->jblk < y->jblk ? -1 : x->jblk > y->jblk;
}

/* Revoked by a revoke record of the same or a later transaction. */
static bool is_revoked(const struct scan *s, uint64_t blk, uint32_t tid)
{
	size_t lo = 0, hi = s->nrv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->rv[mid].blk < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->nrv && s->rv[lo].blk == blk; lo++)
		if (!tid_after(tid, s->rv[lo].tid))
			return true;
	return false;
}

static void set_commit(const struct scan *s, struct e2map_jcopy *c)
{
	struct commit key = { c->tid, 0, 0 }, *f = NULL;

	if (s->ncm)
		f = bsearch(&key, s->cm, s->ncm, sizeof(*s->cm), cmp_commit);
	if (f) {
		c->flags |= E2MAP_COPY_COMMITTED;
		c->commit_sec = f->sec;
		c->commit_nsec = f->nsec;
	}
	if (is_revoked(s, c->home, c->tid))
		c->flags |= E2MAP_COPY_REVOKED;
	if (!tid_after(s->j->seq, c->tid) && s->j->start &&
	    (c->flags & E2MAP_COPY_COMMITTED))
		c->flags |= E2MAP_COPY_LIVE;
	else if (tid_after(s->j->seq, c->tid))
		c->flags |= E2MAP_COPY_OLD;
}

/* Tag Q's journal block, or 0 when the log was rewritten before it. */
static uint32_t place(const struct scan *s, const struct ptag *q)
{
	const struct jnl *j = s->j;
	uint64_t at = (uint64_t)q->desc + 1 + q->idx;
	uint32_t span = j->last - j->first;

	if (q->idx + 1 >= span)
		return 0;
	if (at >= j->last)
		at -= span;
	return s->head[at].type ? 0 : (uint32_t)at;
}

static int add_copy(struct scan *s, const struct ptag *q, uint32_t at)
{
	struct e2map_jlog *l = s->l;
	struct e2map_jcopy *c;

	if (q->blk >= ext2fs_blocks_count(s->j->m->fs->super)) {
		l->past_device++;
		return 0;
	}
	if (has_csum(s->j) && (jlog_read(s->j, at, s->j->obh) < 0 ||
	    !e2map__jnl_tag_ok(s->j, q->raw, s->j->obh, q->tid))) {
		l->bad_copies++;
		return 0;
	}
	if (e2map__grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	c = &l->v[l->n++];
	*c = (struct e2map_jcopy){ .home = q->blk, .jblk = at, .tid = q->tid };
	if (q->flags & JTAG_ESCAPE)
		c->flags |= E2MAP_COPY_ESCAPED;
	set_commit(s, c);
	return 0;
}

/* Each tag given its block; a descriptor's tags stop at a stale one. */
static int place_tags(struct scan *s)
{
	size_t i;
	uint32_t at, stopped = UINT32_MAX;
	int err;

	if (s->ncm)
		qsort(s->cm, s->ncm, sizeof(*s->cm), cmp_commit);
	if (s->nrv)
		qsort(s->rv, s->nrv, sizeof(*s->rv), cmp_rv);
	for (i = 0; i < s->npt; i++) {
		if (s->pt[i].desc == stopped)
			continue;
		if (!(at = place(s, &s->pt[i]))) {
			stopped = s->pt[i].desc;
			s->l->stale_tags++;
			continue;
		}
		if ((err = add_copy(s, &s->pt[i], at)) < 0)
			return err;
	}
	if (s->l->n)
		qsort(s->l->v, s->l->n, sizeof(*s->l->v), cmp_copy);
	return 0;
}

static int scan_log(struct e2map_jlog *l)
{
	struct scan s = { .l = l, .j = l->j };
	int err;

	if (!(s.head = calloc(l->j->total, sizeof(*s.head))))
		return -ENOMEM;
	if ((err = read_heads(&s)) == 0)
		err = place_tags(&s);
	free(s.head);
	free(s.pt);
	free(s.cm);
	free(s.rv);
	return err;
}

static int open_log(e2map_t *m, struct e2map_jlog *l)
{
	struct ext2_super_block *sb = m->fs->super;
	struct jnl *j = l->j;
	int err;

	if (!ext2fs_has_feature_journal(sb))
		return e2map__fail(m, -ENOENT, "the filesystem has no journal");
	if (!sb->s_journal_inum)
		return e2map__fail(m, -EOPNOTSUPP, "the journal is on an "
				   "external device");
	*j = (struct jnl){ .m = m, .bs = m->bs };
	if (!(j->bh = malloc(j->bs)) || !(j->obh = malloc(j->bs)))
		return -ENOMEM;
	if ((err = e2map__jnl_map(j, sb->s_journal_inum)) < 0 ||
	    (err = e2map__jnl_super(j)) < 0)
		return e2map__fail(m, err, "%s", e2map_errmsg(NULL));
	return scan_log(l);
}

int e2map__jlog_open(e2map_t *m, struct e2map_jlog **out)
{
	struct e2map_jlog *l = calloc(1, sizeof(*l));
	int err;

	*out = NULL;
	if (!l || !(l->j = calloc(1, sizeof(*l->j)))) {
		free(l);
		return -ENOMEM;
	}
	if ((err = open_log(m, l)) < 0) {
		e2map__jlog_free(l);
		return err;
	}
	l->seq = l->j->seq;
	l->start = l->j->start;
	*out = l;
	return 0;
}

size_t e2map__jlog_find(const struct e2map_jlog *l, uint64_t home, size_t *n)
{
	size_t lo = 0, hi = l->n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].home < home)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < l->n && l->v[i].home == home; i++)
		;
	*n = i - lo;
	return lo;
}

int e2map__jlog_read(struct e2map_jlog *l, const struct e2map_jcopy *c,
		     unsigned char *buf)
{
	if (jlog_read(l->j, c->jblk, buf) < 0)
		return e2map__fail(l->j->m, -EIO, "journal block %u: read "
				   "failed", c->jblk);
	if (c->flags & E2MAP_COPY_ESCAPED) {
		buf[0] = JBD2_MAGIC >> 24;
		buf[1] = (JBD2_MAGIC >> 16) & 0xff;
		buf[2] = (JBD2_MAGIC >> 8) & 0xff;
		buf[3] = JBD2_MAGIC & 0xff;
	}
	return 0;
}

void e2map__jlog_free(struct e2map_jlog *l)
{
	if (!l)
		return;
	if (l->j) {
		free(l->j->map);
		free(l->j->bh);
		free(l->j->obh);
		free(l->j->fc.blocks);
		free(l->j);
	}
	free(l->v);
	free(l);
}

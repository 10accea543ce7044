/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Recovery of deleted files from the journal's past (history.c): ext4
 * zeroes a deleted inode's extent root, ext3 its block pointers, but the
 * journal still holds the inode-table block as it was before.  The
 * newest version before the deletion that maps data gives the ranges; a
 * range is read back only where nothing claims its blocks since: no owner
 * now (the blockmap, owners.c) and no later version of another inode in
 * the journal (its claims).  A block free now may have held another
 * file in between; the claims catch what the journal saw of that, and
 * a file is complete only when nothing claims any of its blocks.
 */
#include "hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A run some version of an inode mapped, in transaction TID. */
struct claim {
	uint64_t start, len, ino;
	uint32_t gen, tid;
};

/* The group whose inode table holds BLK, or -1. */
static long itable_group(ext2_filsys fs, uint64_t blk, uint64_t *first)
{
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		uint64_t at = ext2fs_inode_table_loc(fs, g);

		if (at && blk >= at && blk < at + fs->inode_blocks_per_group) {
			*first = at;
			return (long)g;
		}
	}
	return -1;
}

typedef int (*slot_fn)(e2map_journal_t *j, uint64_t ino,
		       const unsigned char *raw, const struct e2map_jcopy *c,
		       void *arg);

/* FN for each inode in use in each journal copy of an inode-table block. */
static int each_slot(e2map_journal_t *j, slot_fn fn, void *arg)
{
	ext2_filsys fs = j->m->fs;
	struct e2map_jlog *l = j->log;
	unsigned isz = EXT2_INODE_SIZE(fs->super), k, per = j->m->bs / isz;
	uint64_t first, ino;
	long g, lastg = -2;
	uint64_t lasthome = UINT64_MAX;
	size_t i;
	int err = 0;

	for (i = 0; i < l->n && !err; i++) {
		if (l->v[i].home != lasthome) {
			lasthome = l->v[i].home;
			lastg = itable_group(fs, lasthome, &first);
		}
		if ((g = lastg) < 0 || e2map__jlog_read(l, &l->v[i], j->buf))
			continue;
		for (k = 0; k < per && !err; k++) {
			const unsigned char *raw = j->buf + k * isz;

			ino = (uint64_t)g * fs->super->s_inodes_per_group +
			      (l->v[i].home - first) * per + k + 1;
			if (le16(raw) && le16(raw + 26) &&
			    ino <= fs->super->s_inodes_count)
				err = fn(j, ino, raw, &l->v[i], arg);
		}
	}
	return err;
}

static int add_claim(e2map_journal_t *j, struct claim c)
{
	if (e2map__grow((void **)&j->claims, &j->capclaims, j->nclaims + 1,
			sizeof(*j->claims)) < 0)
		return -ENOMEM;
	j->claims[j->nclaims++] = c;
	if (c.len > j->longest)
		j->longest = c.len;
	return 0;
}

/* The runs an inode's root names straight (a depth-0 tree, direct ones). */
static int claim_slot(e2map_journal_t *j, uint64_t ino,
		      const unsigned char *raw, const struct e2map_jcopy *c,
		      void *arg)
{
	struct claim k = { 0, 1, ino, le32(raw + 100), c->tid };
	const unsigned char *ib = raw + 40;
	unsigned i, n;
	int err = 0;

	(void)arg;
	if (le32(raw + 32) & EXT4_INLINE_DATA_FL)
		return 0;
	if (!(le32(raw + 32) & EXT4_EXTENTS_FL)) {
		for (i = 0; i < 15 && !err; i++)
			if ((k.start = le32(ib + 4 * i)))
				err = add_claim(j, k);
		return err;
	}
	if (le16(ib) != 0xf30a || le16(ib + 6))
		return 0;
	n = le16(ib + 2) < 4 ? le16(ib + 2) : 4;
	for (i = 0; i < n && !err; i++) {
		const unsigned char *e = ib + 12 + 12 * i;

		k.len = le16(e + 4) > 32768 ? le16(e + 4) - 32768u : le16(e + 4);
		k.start = le32(e + 8) | (uint64_t)le16(e + 6) << 32;
		err = add_claim(j, k);
	}
	return err;
}

static int cmp_claim(const void *a, const void *b)
{
	const struct claim *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int build_claims(e2map_journal_t *j)
{
	int err;

	if (j->claimed)
		return 0;
	if ((err = each_slot(j, claim_slot, NULL)) < 0)
		return err;
	if (j->nclaims)
		qsort(j->claims, j->nclaims, sizeof(*j->claims), cmp_claim);
	j->claimed = true;
	return 0;
}

/* A later version of another inode (or of this one, reused) mapped one
 * of [A, A + LEN): its inode, else 0. */
static uint64_t claimed_since(const e2map_journal_t *j, uint64_t a,
			      uint64_t len, const struct e2map_version *v,
			      uint64_t ino)
{
	uint64_t from = a > j->longest ? a - j->longest : 0;
	size_t lo = 0, hi = j->nclaims;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->claims[mid].start < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < j->nclaims && j->claims[lo].start < a + len; lo++) {
		const struct claim *c = &j->claims[lo];

		if (c->start + c->len <= a ||
		    (int32_t)(c->tid - v->last_tid) <= 0 ||
		    (c->ino == ino && c->gen == v->generation))
			continue;
		return c->ino;
	}
	return 0;
}

static int add_range(struct e2map_recover_plan *p, size_t *cap,
		     struct e2map_recover_range r)
{
	if (e2map__grow((void **)&p->ranges, cap, p->nranges + 1,
			sizeof(*p->ranges)) < 0)
		return -ENOMEM;
	p->ranges[p->nranges++] = r;
	if (r.overwritten)
		p->overwritten_blocks += r.count;
	else
		p->recovered_blocks += r.count;
	return 0;
}

/* Run R cut where its blocks' owners change; each piece judged. */
static int judge_run(e2map_journal_t *j, const e2map_blockmap_t *owners,
		     struct e2map_recover_plan *p, size_t *cap,
		     const struct vrun *r)
{
	uint64_t at = r->pblk, end = r->pblk + r->len, seg;
	const struct e2map_owner *o;
	struct e2map_recover_range rr;
	int err = 0;

	while (at < end && !err) {
		o = e2map_blockmap_find(owners, at, NULL);
		seg = o ? o->start + o->count : end;
		if (seg > end || seg <= at)
			seg = end;
		rr = (struct e2map_recover_range){ r->lblk + (at - r->pblk), at,
						   seg - at, 0, 0 };
		if (!o || o->kind != E2MAP_OWNER_FREE) {
			rr.overwritten = 1;
			rr.owner = o ? o->ino : 0;
		} else if ((rr.owner = claimed_since(j, at, seg - at,
						     &p->version, p->ino))) {
			rr.overwritten = 1;
		}
		err = add_range(p, cap, rr);
		at = seg;
	}
	return err;
}

/* Its bytes are in the inode: inline data, or a fast symlink's target. */
static bool in_inode(const struct e2map_version *v)
{
	return (v->iflags & EXT4_INLINE_DATA_FL) ||
	       (LINUX_S_ISLNK(v->mode) && !(v->iflags & EXT4_EXTENTS_FL) &&
		v->size < 60);
}

static void settle_state(struct e2map_recover_plan *p)
{
	if (in_inode(&p->version))
		p->state = p->map_whole ? E2MAP_RECOVER_COMPLETE :
			   E2MAP_RECOVER_PARTIAL;
	else if (!p->nranges && !(p->version.mode && !p->version.size))
		p->state = E2MAP_RECOVER_NONE;
	else if (!p->overwritten_blocks && p->map_whole)
		p->state = E2MAP_RECOVER_COMPLETE;
	else if (p->recovered_blocks)
		p->state = E2MAP_RECOVER_PARTIAL;
	else
		p->state = E2MAP_RECOVER_OVERWRITTEN;
}

static bool in_use(const struct e2map_version *v)
{
	return v->mode && v->links && !v->dtime;
}

/*
 * An inline file's bytes: i_block's 60, then the in-inode xattr
 * system.data (index 7, "data") of the version's raw inode.
 */
static int inline_bytes(const struct hver *h, struct e2map_recover_plan *p)
{
	unsigned at = 128 + (h->isz > 128 ? le16(h->raw + 128) : 0), e;
	uint64_t size = p->version.size, got = size < 60 ? size : 60;

	if (size > 60 + (uint64_t)h->isz)	/* more than an inode holds */
		return 0;
	if (!(p->inline_data = calloc(1, size)))
		return -ENOMEM;
	memcpy(p->inline_data, h->v.i_block, got);
	if (got == size)
		return 1;
	if (at + 4 > h->isz || le32(h->raw + at) != 0xea020000u)
		return 0;
	for (e = at + 4; e + 16 <= h->isz && le32(h->raw + e);
	     e += (16 + h->raw[e] + 3) & ~3u) {
		unsigned off = le16(h->raw + e + 2), len = le32(h->raw + e + 8);

		if (h->raw[e + 1] != 7 || h->raw[e] != 4 ||
		    e + 20 > h->isz || memcmp(h->raw + e + 16, "data", 4))
			continue;
		if (at + 4 + off + (uint64_t)len > h->isz || le32(h->raw + e + 4))
			return 0;
		if (len > size - 60)
			len = (unsigned)(size - 60);
		memcpy(p->inline_data + 60, h->raw + at + 4 + off, len);
		return 60 + len == size;
	}
	return 0;
}

/*
 * The newest usable version: in use, and a map with data (or inline);
 * of an inode in use now (NOW), only one of an earlier file, another
 * generation.
 */
static int choose(e2map_journal_t *j, const e2map_blockmap_t *owners,
		  struct hver *v, size_t n, const struct e2map_version *now,
		  struct e2map_recover_plan *p, struct vmap *vm)
{
	size_t i;
	int err;

	for (i = n; i-- > 0;) {
		if ((v[i].v.flags & E2MAP_COPY_DISK) || !in_use(&v[i].v) ||
		    (now && v[i].v.generation == now->generation))
			continue;
		p->version = v[i].v;
		if (!v[i].v.size) {	/* nothing to read: whole as it is */
			p->map_whole = 1;
			return 1;
		}
		if (in_inode(&v[i].v)) {
			if ((err = inline_bytes(&v[i], p)) < 0)
				return err;
			p->map_whole = err;
			return 1;
		}
		/* A block the inode owns now is the version's own only when
		 * the inode is still that file (an orphan); reused, it is
		 * the new file's, and no tree block of the old. */
		*vm = (struct vmap){ .owners = owners,
				     .ino = now ? 0 : p->ino };
		if ((err = e2map__vmap(j, &v[i], vm)) < 0)
			return err;
		if (vm->n) {
			p->map_whole = vm->whole;
			return 1;
		}
		free(vm->v);
		vm->v = NULL;
	}
	return 0;
}

static int plan_ranges(e2map_journal_t *j, struct e2map_recover_plan *p,
		       struct hver *v, size_t n, const struct e2map_version *now)
{
	struct vmap vm = { .ino = 0 };
	size_t i, cap = 0;
	int err;

	if ((err = build_claims(j)) < 0 ||
	    (!j->owners && (err = e2map_blockmap_build(j->m, &j->owners)) < 0))
		return err;
	if ((err = choose(j, j->owners, v, n, now, p, &vm)) > 0) {
		p->size = p->version.size;
		for (err = 0, i = 0; i < vm.n && !err; i++)
			err = judge_run(j, j->owners, p, &cap, &vm.v[i]);
	}
	free(vm.v);
	if (!err && now && !p->version.mode)
		err = e2map__fail(j->m, -EEXIST, "inode %llu is in use, and "
				  "the journal holds no earlier file of it",
				  (unsigned long long)p->ino);
	return err;
}

int e2map_recover_plan(e2map_journal_t *j, uint64_t ino,
		       struct e2map_recover_plan **out)
{
	const struct e2map_version *now = NULL;
	struct e2map_recover_plan *p;
	struct hver *v;
	size_t n;
	int err;

	if (!j || !out)
		return -EINVAL;
	*out = NULL;
	if ((err = e2map__versions(j, ino, &v, &n)) < 0)
		return err;
	if (n && (v[n - 1].v.flags & E2MAP_COPY_DISK) && in_use(&v[n - 1].v))
		now = &v[n - 1].v;
	if (!(p = calloc(1, sizeof(*p)))) {
		free(v);
		return -ENOMEM;
	}
	p->ino = ino;
	p->journal = j;
	p->block_size = j->m->bs;
	if ((err = plan_ranges(j, p, v, n, now)) < 0) {
		free(v);
		e2map_recover_free(p);
		return err;
	}
	settle_state(p);
	free(v);
	*out = p;
	return 0;
}

/* The recovered bytes of range R that fall in [OFF, OFF + LEN). */
static int read_range(struct e2map_recover_plan *p,
		      const struct e2map_recover_range *r, unsigned char *buf,
		      uint64_t len, uint64_t off, unsigned char *blk)
{
	e2map_t *m = p->journal->m;
	uint64_t bs = m->bs, k, at, from, to;

	for (k = 0; k < r->count; k++) {
		at = (r->lblk + k) * bs;
		if (at >= off + len || at + bs <= off)
			continue;
		if (io_channel_read_blk64(m->fs->io, r->pblk + k, 1, blk))
			return e2map__fail(m, -EIO, "block %llu: read failed",
					   (unsigned long long)(r->pblk + k));
		from = at > off ? at : off;
		to = at + bs < off + len ? at + bs : off + len;
		memcpy(buf + (from - off), blk + (from - at), to - from);
	}
	return 0;
}

int64_t e2map_recover_pread(struct e2map_recover_plan *p, void *buf,
			    uint64_t len, uint64_t off)
{
	unsigned char *blk;
	size_t i;
	int err = 0;

	if (!p || (!buf && len))
		return -EINVAL;
	if (off >= p->size)
		return 0;
	if (len > p->size - off)
		len = p->size - off;
	memset(buf, 0, len);
	if (p->inline_data) {
		memcpy(buf, p->inline_data + off, len);
		return (int64_t)len;
	}
	if (!(blk = malloc(p->journal->m->bs)))
		return -ENOMEM;
	for (i = 0; i < p->nranges && !err; i++)
		if (!p->ranges[i].overwritten)
			err = read_range(p, &p->ranges[i], buf, len, off, blk);
	free(blk);
	return err < 0 ? err : (int64_t)len;
}

void e2map_recover_free(struct e2map_recover_plan *p)
{
	if (!p)
		return;
	free(p->ranges);
	free(p->inline_data);
	free(p);
}

const char *e2map_recover_state_name(enum e2map_recover_state s)
{
	static const char *const names[] = { "none", "complete", "partial",
					     "overwritten" };

	return (unsigned)s < 4 ? names[s] : "?";
}

struct slot {
	uint64_t ino;
	uint32_t gen;
};

struct inos {
	struct slot *v;
	size_t n, cap;
};

static int note_ino(e2map_journal_t *j, uint64_t ino, const unsigned char *raw,
		    const struct e2map_jcopy *c, void *arg)
{
	struct inos *s = arg;

	(void)j, (void)c;
	if (e2map__grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	s->v[s->n++] = (struct slot){ ino, le32(raw + 100) };
	return 0;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/*
 * Inode INO as the image holds it now is free (no links, or dtime), or
 * in use by a file of another generation than GEN, an earlier file's.
 */
static bool free_now(e2map_journal_t *j, uint64_t ino, uint32_t gen)
{
	struct e2map_version v = { 0 };
	uint64_t blk;
	uint32_t off;
	unsigned isz = EXT2_INODE_SIZE(j->m->fs->super);

	if (e2map__ino_place(j->m, ino, &blk, &off) < 0 ||
	    io_channel_read_blk64(j->m->fs->io, blk, 1, j->buf))
		return false;
	e2map__decode(j->m, ino, j->buf + off, isz, &v);
	return !in_use(&v) || v.generation != gen;
}

int e2map_deleted_inodes(e2map_journal_t *j, e2map_ino_cb cb, void *arg)
{
	struct inos s = { 0 };
	uint64_t last = 0;
	size_t i;
	int err;

	if (!j || !cb)
		return -EINVAL;

	err = each_slot(j, note_ino, &s);
	if (!err && s.n)
		qsort(s.v, s.n, sizeof(*s.v), cmp_slot);
	for (i = 0; i < s.n && !err; i++)
		if (s.v[i].ino != last &&
		    s.v[i].ino >= EXT2_FIRST_INO(j->m->fs->super) &&
		    free_now(j, s.v[i].ino, s.v[i].gen)) {
			last = s.v[i].ino;
			err = cb(last, arg);
		}
	free(s.v);
	return err;
}

static int64_t plan_pread(void *p, void *buf, uint64_t len, uint64_t off)
{
	return e2map_recover_pread(p, buf, len, off);
}

int e2map_recover_digest(struct e2map_recover_plan *p, unsigned algs,
			 struct e2map_digest *out)
{
	return p ? e2map__digest(plan_pread, p, algs, out) : -EINVAL;
}

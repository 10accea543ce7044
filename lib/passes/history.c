/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The past of an inode from the journal's copies (mount/jlog.c): each
 * copy of the inode-table block that holds it is a version of the inode,
 * as it was when that transaction committed; the image's block is the
 * last.  A version's block map is read as it was then: the extent tree's
 * or the indirect blocks' newest journal copy no later than the version,
 * else the disk's block where no inode owns it now.  A directory's names
 * are those of every copy of every block its versions mapped.
 */
#include "hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EXT_MAGIC 0xf30a
#define MAX_DEPTH 5
#define MAX_RUNS (1u << 20)

int e2map_journal_open(e2map_t *m, e2map_journal_t **out)
{
	e2map_journal_t *j;
	int err;

	if (!m || !out)
		return -EINVAL;
	*out = NULL;
	if (!(j = calloc(1, sizeof(*j))) || !(j->buf = malloc(m->bs))) {
		free(j);
		return -ENOMEM;
	}
	j->m = m;
	if ((err = e2map__jlog_open(m, &j->log)) < 0) {
		free(j->buf);
		free(j);
		return err;
	}
	*out = j;
	return 0;
}

void e2map_journal_close(e2map_journal_t *j)
{
	if (!j)
		return;
	e2map__jlog_free(j->log);
	free(j->claims);
	e2map_blockmap_free(j->owners);
	free(j->buf);
	free(j);
}

void e2map_journal_info(const e2map_journal_t *j,
			struct e2map_journal_info *out)
{
	const struct e2map_jlog *l = j->log;

	*out = (struct e2map_journal_info){ l->n, l->past_device,
		l->bad_copies, l->stale_tags, l->bad_blocks, l->seq, l->start };
}

int e2map__ino_place(e2map_t *m, uint64_t ino, uint64_t *blk, uint32_t *off)
{
	ext2_filsys fs = m->fs;
	uint32_t ipg = fs->super->s_inodes_per_group;
	uint64_t idx, byte, isz = EXT2_INODE_SIZE(fs->super);
	dgrp_t g;

	if (!ino || ino > fs->super->s_inodes_count)
		return e2map__fail(m, -ESTALE, "inode %llu: no such inode",
				   (unsigned long long)ino);
	g = (dgrp_t)((ino - 1) / ipg);
	idx = (ino - 1) % ipg;
	byte = idx * isz;
	*blk = ext2fs_inode_table_loc(fs, g) + byte / m->bs;
	*off = (uint32_t)(byte % m->bs);
	if (!ext2fs_inode_table_loc(fs, g) ||
	    *blk >= ext2fs_blocks_count(fs->super))
		return e2map__fail(m, -EUCLEAN, "inode %llu: its table lies "
				   "outside the filesystem",
				   (unsigned long long)ino);
	return 0;
}

void e2map__inode_time(const unsigned char *raw, unsigned isz, unsigned at,
		       unsigned extra, int64_t *sec, uint32_t *ns)
{
	unsigned room = isz > 128 ? 128 + le16(raw + 128) : 128;

	*sec = 0;
	*ns = 0;
	if (at + 4 > isz || (at >= 128 && at + 4 > room))
		return;		/* crtime, past a small inode's end */
	*sec = (int32_t)le32(raw + at);
	if (extra && extra + 4 <= room && extra + 4 <= isz) {
		uint32_t x = le32(raw + extra);

		*sec += (int64_t)(x & 3) << 32;
		*ns = x >> 2;
	}
}

/*
 * ext2fs_inode_csum_verify reads the whole inode (EXT2_INODE_SIZE, up to
 * the block size) and zeroes the checksum fields as it goes: a copy of
 * all of it, which RAW holds.
 */
static bool inode_csum_bad(ext2_filsys fs, uint64_t ino,
			   const unsigned char *raw)
{
	size_t isz = EXT2_INODE_SIZE(fs->super);
	unsigned char small[1024], *copy = small;
	bool bad;

	if (isz > sizeof(small) && !(copy = malloc(isz)))
		return false;	/* unchecked, not bad */
	memcpy(copy, raw, isz);
	bad = !ext2fs_inode_csum_verify(fs, (ext2_ino_t)ino,
					(struct ext2_inode_large *)copy);
	if (copy != small)
		free(copy);
	return bad;
}

void e2map__decode(e2map_t *m, uint64_t ino, const unsigned char *raw,
		   unsigned isz, struct e2map_version *v)
{
	ext2_filsys fs = m->fs;

	v->mode = le16(raw);
	v->uid = le16(raw + 2) | (uint32_t)le16(raw + 120) << 16;
	v->gid = le16(raw + 24) | (uint32_t)le16(raw + 122) << 16;
	v->size = le32(raw + 4) | (uint64_t)le32(raw + 108) << 32;
	v->dtime = le32(raw + 20);
	v->links = le16(raw + 26);
	v->blocks = le32(raw + 28) | (uint64_t)le16(raw + 116) << 32;
	v->iflags = le32(raw + 32);
	v->file_acl = le32(raw + 104) | (uint64_t)le16(raw + 118) << 32;
	v->generation = le32(raw + 100);
	memcpy(v->i_block, raw + 40, 60);
	e2map__inode_time(raw, isz, 8, 140, &v->atime, &v->atime_ns);
	e2map__inode_time(raw, isz, 12, 132, &v->ctime, &v->ctime_ns);
	e2map__inode_time(raw, isz, 16, 136, &v->mtime, &v->mtime_ns);
	e2map__inode_time(raw, isz, 144, 148, &v->crtime, &v->crtime_ns);
	if (ext2fs_has_feature_metadata_csum(fs->super) &&
	    inode_csum_bad(fs, ino, raw))
		v->flags |= E2MAP_COPY_CSUM_BAD;
}

/*
 * The fields a version shows equal: the same version, whatever copy holds
 * it (i_version and the checksum, which change with any write, aside).
 */
static bool same_inode(const struct hver *a, const struct hver *b)
{
	struct e2map_version x = a->v, y = b->v;

	x.tid = y.tid = x.last_tid = y.last_tid = 0;
	x.copies = y.copies = x.flags = y.flags = 0;
	x.commit_sec = y.commit_sec = 0;
	x.commit_nsec = y.commit_nsec = 0;
	x.jblock = y.jblock = x.block = y.block = 0;
	return memcmp(&x, &y, sizeof(x)) == 0;
}

static int add_version(e2map_journal_t *j, uint64_t ino, const unsigned char *raw,
		       struct hver **v, size_t *n, size_t *cap)
{
	e2map_t *m = j->m;
	unsigned isz = EXT2_INODE_SIZE(m->fs->super);
	struct hver *h;

	if (e2map__grow((void **)v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	h = &(*v)[(*n)++];
	memset(h, 0, sizeof(*h));
	e2map__decode(m, ino, raw, isz, &h->v);
	if (isz > sizeof(h->raw))
		isz = sizeof(h->raw);
	memcpy(h->raw, raw, isz);
	h->isz = isz;
	h->v.copies = 1;
	return 0;
}

/* A run of identical versions kept as its first, counted. */
static void collapse(struct hver *v, size_t *n)
{
	size_t i, k = 0;

	for (i = 0; i < *n; i++) {
		if (k && same_inode(&v[k - 1], &v[i])) {
			v[k - 1].v.copies++;
			v[k - 1].v.flags |= v[i].v.flags & E2MAP_COPY_DISK;
			if (!(v[i].v.flags & E2MAP_COPY_DISK))
				v[k - 1].v.last_tid = v[i].v.tid;
			continue;
		}
		if (k != i)
			v[k] = v[i];
		k++;
	}
	*n = k;
}

static int journal_versions(e2map_journal_t *j, uint64_t ino, uint64_t blk,
			    uint32_t off, struct hver **v, size_t *n,
			    size_t *cap)
{
	struct e2map_jlog *l = j->log;
	size_t i, cnt, first = e2map__jlog_find(l, blk, &cnt);
	const struct e2map_jcopy *c;
	int err;

	for (i = first; i < first + cnt; i++) {
		c = &l->v[i];
		if (e2map__jlog_read(l, c, j->buf) < 0)
			continue;
		if ((err = add_version(j, ino, j->buf + off, v, n, cap)) < 0)
			return err;
		(*v)[*n - 1].v.tid = (*v)[*n - 1].v.last_tid = c->tid;
		(*v)[*n - 1].v.flags |= c->flags;
		(*v)[*n - 1].v.commit_sec = (int64_t)c->commit_sec;
		(*v)[*n - 1].v.commit_nsec = c->commit_nsec;
		(*v)[*n - 1].v.jblock = c->jblk;
		(*v)[*n - 1].v.block = blk;
	}
	return 0;
}

int e2map__versions(e2map_journal_t *j, uint64_t ino, struct hver **v,
		    size_t *n)
{
	size_t cap = 0;
	uint64_t blk;
	uint32_t off;
	int err;

	*v = NULL;
	*n = 0;
	if ((err = e2map__ino_place(j->m, ino, &blk, &off)) < 0)
		return err;
	if ((err = journal_versions(j, ino, blk, off, v, n, &cap)) < 0)
		goto fail;
	if (io_channel_read_blk64(j->m->fs->io, blk, 1, j->buf) == 0) {
		if ((err = add_version(j, ino, j->buf + off, v, n, &cap)) < 0)
			goto fail;
		(*v)[*n - 1].v.flags |= E2MAP_COPY_DISK;
		(*v)[*n - 1].v.block = blk;
	}
	collapse(*v, n);
	return 0;
fail:
	free(*v);
	*v = NULL;
	*n = 0;
	return err;
}

int e2map_inode_history(e2map_journal_t *j, uint64_t ino,
			e2map_version_cb cb, void *arg)
{
	struct hver *v;
	size_t n, i;
	int err;

	if (!j || !cb)
		return -EINVAL;
	if ((err = e2map__versions(j, ino, &v, &n)) < 0)
		return err;
	for (i = 0; i < n && !err; i++)
		err = cb(&v[i].v, arg);
	free(v);
	return err;
}

/* ---- a version's block map ---- */

static int add_run(struct vmap *out, uint64_t lblk, uint64_t pblk,
		   uint64_t len, uint64_t nblocks)
{
	struct vrun *last = out->n ? &out->v[out->n - 1] : NULL;

	if (lblk >= nblocks)
		return 0;
	if (len > nblocks - lblk)
		len = nblocks - lblk;
	if (last && last->lblk + last->len == lblk &&
	    last->pblk + last->len == pblk) {
		last->len += len;
		return 0;
	}
	if (out->n >= MAX_RUNS) {
		out->whole = false;
		return 0;
	}
	if (e2map__grow((void **)&out->v, &out->cap, out->n + 1,
			sizeof(*out->v)) < 0)
		return -ENOMEM;
	out->v[out->n++] = (struct vrun){ lblk, pblk, len };
	return 0;
}

/*
 * A tree or indirect block as version H knew it: its newest journal copy
 * no later than H, else the disk's where no inode (but H's) owns it now.
 */
static int meta_block(e2map_journal_t *j, const struct hver *h,
		      const struct vmap *out, uint64_t pblk, unsigned char *buf)
{
	struct e2map_jlog *l = j->log;
	const struct e2map_owner *o;
	size_t cnt, first, i;

	if (pblk < j->m->fs->super->s_first_data_block ||
	    pblk >= ext2fs_blocks_count(j->m->fs->super))
		return -EUCLEAN;
	first = e2map__jlog_find(l, pblk, &cnt);
	for (i = first + cnt; i-- > first && !(h->v.flags & E2MAP_COPY_DISK);)
		if ((int32_t)(l->v[i].tid - h->v.last_tid) <= 0)
			return e2map__jlog_read(l, &l->v[i], buf);
	if (out->owners && (o = e2map_blockmap_find(out->owners, pblk, NULL)) &&
	    o->kind != E2MAP_OWNER_FREE && !(o->ino && o->ino == out->ino))
		return -ESTALE;
	if (io_channel_read_blk64(j->m->fs->io, pblk, 1, buf))
		return -EIO;
	return 0;
}

struct walk {
	e2map_journal_t *j;
	const struct hver *h;
	struct vmap *out;
	uint64_t nblocks;
	uint64_t counted;	/* blocks the map holds, tree blocks too */
	struct blkset seen;	/* tree and indirect blocks read */
};

/*
 * No map holds a tree or indirect block twice; a hostile one that points
 * at one block from every entry would make the walk exponential (340^4
 * leaves from five blocks).  A second visit is damage: 1, or -ENOMEM.
 */
static int seen_before(struct walk *w, uint64_t pblk)
{
	int err = 0;

	if (e2map__blkset_add(&w->seen, pblk, &err))
		return 0;
	if (err)
		return err;
	w->out->whole = false;
	return 1;
}

static int ext_node(struct walk *w, const unsigned char *node, size_t room,
		    int want_depth);

static int ext_index(struct walk *w, const unsigned char *e, int depth)
{
	uint64_t leaf = le32(e + 4) | (uint64_t)le16(e + 8) << 32;
	unsigned char *buf;
	int err;

	w->counted++;
	if ((err = seen_before(w, leaf)) != 0)
		return err < 0 ? err : 0;
	if (!(buf = malloc(w->j->m->bs)))
		return -ENOMEM;
	err = meta_block(w->j, w->h, w->out, leaf, buf);
	if (err >= 0)
		err = ext_node(w, buf, w->j->m->bs, depth - 1);
	else if (err != -ENOMEM) {	/* a part missing, not an error */
		w->out->whole = false;
		err = 0;
	}
	free(buf);
	return err;
}

static int ext_leaf(struct walk *w, const unsigned char *e)
{
	uint64_t lblk = le32(e), len = le16(e + 4);
	uint64_t pblk = le32(e + 8) | (uint64_t)le16(e + 6) << 32;

	w->counted += len > 32768 ? len - 32768 : len;
	if (len > 32768)	/* unwritten: reads as zeroes */
		return 0;
	if (!len || pblk + len > ext2fs_blocks_count(w->j->m->fs->super) ||
	    pblk < w->j->m->fs->super->s_first_data_block) {
		w->out->whole = false;
		return 0;
	}
	return add_run(w->out, lblk, pblk, len, w->nblocks);
}

/* One node; WANT_DEPTH < 0: the root, any depth up to MAX_DEPTH. */
static int ext_node(struct walk *w, const unsigned char *node, size_t room,
		    int want_depth)
{
	unsigned entries = le16(node + 2), max = le16(node + 4);
	int depth = le16(node + 6), err = 0;
	unsigned i;

	if (le16(node) != EXT_MAGIC || entries > max ||
	    12 + (size_t)max * 12 > room || depth > MAX_DEPTH ||
	    (want_depth >= 0 && depth != want_depth)) {
		w->out->whole = false;
		return 0;
	}
	for (i = 0; i < entries && !err; i++)
		err = depth ? ext_index(w, node + 12 + 12 * i, depth)
			    : ext_leaf(w, node + 12 + 12 * i);
	return err;
}

/* An indirect block of LEVEL (1: it points at data) from logical BASE. */
static int ind_block(struct walk *w, uint64_t pblk, int level, uint64_t base)
{
	uint32_t apb = w->j->m->bs / 4, i;
	uint64_t span = 1, p;
	unsigned char *buf;
	int err = 0, k;

	for (k = 1; k < level; k++)
		span *= apb;
	if (!pblk || base >= w->nblocks)
		return 0;
	w->counted++;
	if ((err = seen_before(w, pblk)) != 0)
		return err < 0 ? err : 0;
	if (!(buf = malloc(w->j->m->bs)))
		return -ENOMEM;
	if ((err = meta_block(w->j, w->h, w->out, pblk, buf)) < 0) {
		w->out->whole = false;
		err = err == -ENOMEM ? err : 0;
		apb = 0;
	}
	for (i = 0; i < apb && !err && base + i * span < w->nblocks; i++) {
		if (!(p = le32(buf + 4 * i)))
			continue;
		w->counted += level == 1;
		if (level > 1)
			err = ind_block(w, p, level - 1, base + i * span);
		else if (p >= ext2fs_blocks_count(w->j->m->fs->super))
			w->out->whole = false;
		else
			err = add_run(w->out, base + i, p, 1, w->nblocks);
	}
	free(buf);
	return err;
}

static int ind_map(struct walk *w)
{
	const unsigned char *ib = w->h->v.i_block;
	uint64_t apb = w->j->m->bs / 4, p, base = 12;
	int err = 0, i;

	for (i = 0; i < 12 && !err; i++) {
		if (!(p = le32(ib + 4 * i)))
			continue;
		w->counted++;
		if (p >= ext2fs_blocks_count(w->j->m->fs->super))
			w->out->whole = false;
		else
			err = add_run(w->out, (uint64_t)i, p, 1, w->nblocks);
	}
	if (!err)
		err = ind_block(w, le32(ib + 48), 1, base);
	base += apb;
	if (!err)
		err = ind_block(w, le32(ib + 52), 2, base);
	base += apb * apb;
	if (!err)
		err = ind_block(w, le32(ib + 56), 3, base);
	return err;
}

/*
 * Fewer blocks than i_blocks counts: a tree or indirect block read was
 * not the version's own (ext3 zeroes the indirect blocks it frees), so
 * the map has holes that were data.  Bigalloc counts clusters: not held.
 */
static void count_check(const struct walk *w)
{
	const struct e2map_version *v = &w->h->v;
	uint64_t want = v->iflags & EXT4_HUGE_FILE_FL ? v->blocks :
			v->blocks / (w->j->m->bs / 512);

	if (ext2fs_has_feature_bigalloc(w->j->m->fs->super))
		return;
	if (w->counted + (v->file_acl ? 1 : 0) < want)
		w->out->whole = false;
}

int e2map__vmap(e2map_journal_t *j, const struct hver *h, struct vmap *out)
{
	struct walk w = { j, h, out, (h->v.size + j->m->bs - 1) >> j->m->bits,
			  0, { 0 } };
	int err;

	out->whole = true;
	if (h->v.iflags & EXT4_INLINE_DATA_FL)
		return 0;
	if (LINUX_S_ISLNK(h->v.mode) && !(h->v.iflags & EXT4_EXTENTS_FL) &&
	    h->v.size < 60)
		return 0;
	err = h->v.iflags & EXT4_EXTENTS_FL ? ext_node(&w, h->v.i_block, 60, -1)
					     : ind_map(&w);
	if (!err)
		count_check(&w);
	e2map__blkset_free(&w.seen);
	return err;
}

int e2map_version_map(e2map_journal_t *j, const struct e2map_version *v,
		      e2map_vrun_cb cb, void *arg)
{
	struct hver *h;
	struct vmap vm = { .ino = 0 };
	size_t i;
	int err;

	if (!j || !v || !cb)
		return -EINVAL;
	if (!(h = calloc(1, sizeof(*h))))
		return -ENOMEM;
	h->v = *v;
	err = e2map__vmap(j, h, &vm);
	for (i = 0; i < vm.n && !err; i++)
		err = cb(vm.v[i].lblk, vm.v[i].pblk, vm.v[i].len, arg);
	free(vm.v);
	free(h);
	return err ? err : vm.whole;
}

/* ---- the names a directory held ---- */

struct dname {
	char *name;
	size_t len;
	uint64_t ino;
	uint32_t first, last;
	bool now;
};

struct names {
	struct dname *v;
	size_t n, cap;
};

static int add_name(struct names *s, const unsigned char *name, size_t len,
		    uint64_t ino, uint32_t tid, bool now)
{
	struct dname *d;

	if (e2map__grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	d = &s->v[s->n];
	if (!(d->name = malloc(len + 1)))
		return -ENOMEM;
	memcpy(d->name, name, len);
	d->name[len] = 0;
	d->len = len;
	d->ino = ino;
	d->first = d->last = tid;
	d->now = now;
	s->n++;
	return 0;
}

/* The live entries of one directory block, along its rec_len chain. */
static int block_names(struct names *s, const unsigned char *b, size_t size,
		       uint32_t tid, bool now)
{
	size_t off = 0, rec, nlen;
	uint32_t ino;
	int err;

	while (off + 8 <= size) {
		ino = le32(b + off);
		rec = e2map__rec_len(b + off, (uint32_t)size);
		nlen = b[off + 6];
		if (rec < 12 || rec % 4 || off + rec > size || nlen + 8 > rec)
			break;
		if (ino && nlen &&
		    !e2map__is_dot((const char *)b + off + 8, nlen) &&
		    (err = add_name(s, b + off + 8, nlen, ino, tid, now)) < 0)
			return err;
		off += rec;
	}
	return 0;
}

/* Every copy of directory block PBLK, and the disk's (NOW: it is mapped now). */
static int copies_names(e2map_journal_t *j, struct names *s, uint64_t pblk,
			bool now)
{
	struct e2map_jlog *l = j->log;
	size_t cnt, first = e2map__jlog_find(l, pblk, &cnt), i;
	int err;

	for (i = first; i < first + cnt; i++)
		if (e2map__jlog_read(l, &l->v[i], j->buf) == 0 &&
		    (err = block_names(s, j->buf, j->m->bs, l->v[i].tid,
				       false)) < 0)
			return err;
	if (io_channel_read_blk64(j->m->fs->io, pblk, 1, j->buf))
		return 0;
	return block_names(s, j->buf, j->m->bs, 0, now);
}

static int cmp_run(const void *a, const void *b)
{
	const struct vrun *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* The blocks version H mapped, into ALL (LBLK 1: mapped now). */
static int version_blocks(e2map_journal_t *j, const struct hver *h,
			  struct vmap *all)
{
	struct vmap vm = { .ino = 0 };
	uint64_t k, now = (h->v.flags & E2MAP_COPY_DISK) ? 1 : 0;
	size_t i;
	int err;

	if ((err = e2map__vmap(j, h, &vm)) < 0)
		goto out;
	for (i = 0; i < vm.n && !err; i++)
		for (k = 0; k < vm.v[i].len && !err; k++) {
			if (all->n >= MAX_RUNS)
				goto out;
			if (e2map__grow((void **)&all->v, &all->cap,
					all->n + 1, sizeof(*all->v)) < 0) {
				err = -ENOMEM;
				break;
			}
			all->v[all->n++] = (struct vrun){ now,
							  vm.v[i].pblk + k, 1 };
		}
out:
	free(vm.v);
	return err;
}

/* Each block once, its names from every copy. */
static int blocks_names(e2map_journal_t *j, struct vmap *all,
			struct names *s)
{
	size_t i, k = 0;
	int err = 0;

	if (all->n)
		qsort(all->v, all->n, sizeof(*all->v), cmp_run);
	for (i = 0; i < all->n; i++) {
		if (k && all->v[k - 1].pblk == all->v[i].pblk) {
			all->v[k - 1].lblk |= all->v[i].lblk;
			continue;
		}
		all->v[k++] = all->v[i];
	}
	for (i = 0; i < k && !err; i++)
		err = copies_names(j, s, all->v[i].pblk, all->v[i].lblk);
	return err;
}

static int cmp_name(const void *a, const void *b)
{
	const struct dname *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* One name and inode once: the span of transactions, now if ever now. */
static void merge_names(struct names *s)
{
	size_t i, k = 0;

	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_name);
	for (i = 0; i < s->n; i++) {
		struct dname *d = &s->v[i], *p = k ? &s->v[k - 1] : NULL;

		if (p && !cmp_name(p, d)) {
			if (d->first && (!p->first ||
					 (int32_t)(d->first - p->first) < 0))
				p->first = d->first;
			if ((int32_t)(d->last - p->last) > 0)
				p->last = d->last;
			p->now |= d->now;
			free(d->name);
			continue;
		}
		s->v[k++] = *d;
	}
	s->n = k;
}

int e2map_dir_history(e2map_journal_t *j, uint64_t ino, e2map_dir_name_cb cb,
		      void *arg)
{
	struct names s = { 0 };
	struct vmap seen = { .ino = 0 };
	struct hver *v;
	size_t n, i;
	int err;

	if (!j || !cb)
		return -EINVAL;
	if ((err = e2map__versions(j, ino, &v, &n)) < 0)
		return err;
	for (i = 0; i < n && !err; i++) {
		if (!LINUX_S_ISDIR(v[i].v.mode))
			continue;
		if (v[i].v.iflags & EXT4_INLINE_DATA_FL)
			err = block_names(&s, v[i].v.i_block + 4, 56, v[i].v.tid,
					  v[i].v.flags & E2MAP_COPY_DISK);
		else
			err = version_blocks(j, &v[i], &seen);
	}
	if (!err)
		err = blocks_names(j, &seen, &s);
	merge_names(&s);
	for (i = 0; i < s.n && !err; i++) {
		struct e2map_dir_name d = { s.v[i].name, s.v[i].len,
			s.v[i].ino, s.v[i].first, s.v[i].last, s.v[i].now };

		err = cb(&d, arg);
	}
	for (i = 0; i < s.n; i++)
		free(s.v[i].name);
	free(s.v);
	free(seen.v);
	free(v);
	return err;
}

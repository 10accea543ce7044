/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What was there before (e2map/past.h): the names every directory still
 * holds where no live entry is (dir/slack.c finds them), each with what
 * its inode is now, and the inodes the bitmap calls free that still hold
 * their metadata, and orphans.  Inodes are read as their tables hold
 * them, without the kernel's checks, which a free inode fails.
 */
#include "hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What of an inode is read: up to and with i_crtime_extra. */
#define PAST_RAW 152

/* One group's inode bitmap, read once for all its inodes. */
struct imap {
	e2map_t *m;
	unsigned char *b;
	dgrp_t g;
	int state;		/* 0: none read; 1: B holds G's; -1: G unused */
};

/* history.c's decoding, into a timespec. */
static struct e2map_timespec past_time(const unsigned char *raw,
				       size_t have, unsigned at, unsigned extra)
{
	struct e2map_timespec t;

	e2map__inode_time(raw, (unsigned)have, at, extra, &t.sec, &t.nsec);
	return t;
}

/* RAW (HAVE bytes: the inode size, at most PAST_RAW) as stat would. */
static void past_decode(const unsigned char *raw, size_t have,
			struct e2map_past_inode *out)
{
	size_t end = EXT2_GOOD_OLD_INODE_SIZE;

	if (have > end + 2)
		end += le16(raw + 128);
	if (end > have)
		end = have;
	memset(out, 0, sizeof(*out));
	out->mode = le16(raw);
	out->uid = le16(raw + 2) | (uint32_t)le16(raw + 120) << 16;
	out->gid = le16(raw + 24) | (uint32_t)le16(raw + 122) << 16;
	out->size = le32(raw + 4) | (uint64_t)le32(raw + 108) << 32;
	out->links = le16(raw + 26);
	out->flags = le32(raw + 32);
	out->atime = past_time(raw, have, 8, 140);
	out->ctime = past_time(raw, have, 12, 132);
	out->mtime = past_time(raw, have, 16, 136);
	out->dtime = le32(raw + 20);
	if (end >= 148) {
		out->crtime = past_time(raw, have, 144, 148);
		out->has_crtime = 1;
	}
}

static size_t raw_size(const e2map_t *m)
{
	size_t isize = EXT2_INODE_SIZE(m->fs->super);

	return isize < PAST_RAW ? isize : PAST_RAW;
}

/* Inode INO's table entry, decoded. */
static int past_read(e2map_t *m, uint64_t ino, struct e2map_past_inode *out)
{
	ext2_filsys fs = m->fs;
	uint32_t ipg = fs->super->s_inodes_per_group;
	uint32_t isize = EXT2_INODE_SIZE(fs->super), per = m->bs / isize;
	dgrp_t g = (dgrp_t)((ino - 1) / ipg);
	uint32_t i = (uint32_t)((ino - 1) % ipg);
	uint64_t table = ext2fs_inode_table_loc(fs, g) + i / per;
	unsigned char raw[PAST_RAW];
	int err;

	if (!e2map__block_valid(m, table, 1))
		return -EUCLEAN;
	if ((err = e2map__read_part(m, table, (i % per) * isize, raw_size(m),
				    raw)) < 0)
		return err;
	past_decode(raw, raw_size(m), out);
	return 0;
}

/* Group G's inodes ever used: none where INODE_UNINIT says so. */
static bool group_used(ext2_filsys fs, dgrp_t g)
{
	return !ext2fs_has_group_desc_csum(fs) ||
	       !ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT);
}

static int imap_load(struct imap *im, dgrp_t g)
{
	ext2_filsys fs = im->m->fs;
	uint64_t loc = ext2fs_inode_bitmap_loc(fs, g);
	int err;

	if (im->state && im->g == g)
		return 0;
	im->g = g;
	im->state = -1;
	if (!group_used(fs, g))
		return 0;
	if (!e2map__block_valid(im->m, loc, 1))
		return -EUCLEAN;
	if ((err = e2map__read_block(im->m, loc, im->b)) < 0)
		return err;
	im->state = 1;
	return 0;
}

/* Whether the inode bitmap has INO in use; a bitmap that cannot be read
 * says free (TSK and the kernel would find nothing there either). */
static bool imap_used(struct imap *im, uint64_t ino)
{
	uint32_t ipg = im->m->fs->super->s_inodes_per_group;
	uint32_t i = (uint32_t)((ino - 1) % ipg);

	if (imap_load(im, (dgrp_t)((ino - 1) / ipg)) < 0 || im->state < 0)
		return false;
	return im->b[i / 8] & (1u << (i % 8));
}

/* ---- deleted names ---- */

struct dirs {
	uint64_t *v;
	size_t n, cap;
};

static int collect_dir(e2map_t *m, const struct e2map_inode *in,
		       void *payload)
{
	struct dirs *d = payload;

	(void)m;
	if (in->err || !LINUX_S_ISDIR(in->mode))
		return 0;
	if (e2map__grow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v)) < 0)
		return -ENOMEM;
	d->v[d->n++] = in->ino;
	return 0;
}

struct names_walk {
	e2map_t *m;
	const e2map_paths_t *paths;
	struct imap im;
	struct e2map_deleted_name d;
	char *dir_path;
	e2map_file_t *dir;	/* the directory being read */
	struct e2map_timespec dir_mtime;
	e2map_deleted_name_cb cb;
	void *payload;
};

static int first_path(const char *path, size_t len, void *payload)
{
	char **out = payload;

	if (!(*out = malloc(len + 1)))
		return -ENOMEM;
	memcpy(*out, path, len + 1);
	return 1;
}

/* The directory's live entries hold S's name for S's inode (a lookup
 * as the kernel's finds it): S is an old copy, not a deletion. */
static bool live_copy(e2map_file_t *dir, const struct e2map__slack *s)
{
	struct e2map_name n = { .s = s->name, .len = s->len };
	uint32_t ino;

	return e2map__find_entry(dir, &n, &ino) == 0 &&
	       (ino == s->ino || s->ino_lost);
}

/* The entry's type byte as a mode's type: where it differs from the
 * inode's, the inode holds another file now. */
static uint32_t ft_mode(unsigned ft)
{
	static const uint32_t modes[] = { 0, LINUX_S_IFREG, LINUX_S_IFDIR,
		LINUX_S_IFCHR, LINUX_S_IFBLK, LINUX_S_IFIFO, LINUX_S_IFSOCK,
		LINUX_S_IFLNK };

	return ft < 8 ? modes[ft] : 0;
}

static bool later(const struct e2map_timespec *a,
		  const struct e2map_timespec *b)
{
	return a->sec > b->sec || (a->sec == b->sec && a->nsec > b->nsec);
}

/*
 * What the entry's inode is now.  In use, it is another file's where its
 * type differs, or where it was born after the directory last changed
 * (so after the name was removed); else, with a live name, the same file
 * under another name (a rename, a remaining hard link) as far as the
 * image tells: an inode reused before the directory's last change, with
 * no creation time to say so, is called linked too.
 */
static enum e2map_inode_state state_of(struct names_walk *w, uint64_t ino,
				       unsigned ft,
				       const struct e2map_past_inode *in)
{
	uint32_t want = ft_mode(ft);

	if (!ino || !imap_used(&w->im, ino))
		return E2MAP_INODE_UNALLOCATED;
	if (want && (in->mode & LINUX_S_IFMT) != want)
		return E2MAP_INODE_REALLOCATED;
	if (in->has_crtime && later(&in->crtime, &w->dir_mtime))
		return E2MAP_INODE_REALLOCATED;
	if (e2map__paths_next(w->paths, ino - 1) == ino)
		return E2MAP_INODE_LINKED;
	return E2MAP_INODE_REALLOCATED;
}

static int on_slack(const struct e2map__slack *s, void *payload)
{
	struct names_walk *w = payload;
	struct e2map_deleted_name *d = &w->d;

	d->name = s->name;
	d->name_len = s->len;
	d->ino = s->ino;
	d->file_type = s->type;
	d->block = s->pblk;
	d->offset = s->off;
	memset(&d->inode, 0, sizeof(d->inode));
	if (s->ino && past_read(w->m, s->ino, &d->inode) < 0)
		memset(&d->inode, 0, sizeof(d->inode));
	d->state = state_of(w, s->ino, s->type, &d->inode);
	d->live_copy = (d->state == E2MAP_INODE_LINKED || s->ino_lost) &&
		       live_copy(w->dir, s);
	return w->cb(d, w->payload);
}

static int walk_dir(struct names_walk *w, uint64_t ino)
{
	struct e2map_past_inode dirin;
	e2map_file_t *f;
	int err;

	free(w->dir_path);
	w->dir_path = NULL;
	if ((err = e2map_paths_foreach(w->paths, ino, first_path,
				       &w->dir_path)) < 0)
		return err;
	w->d.dir = ino;
	w->d.dir_path = w->dir_path;
	w->d.dir_path_len = w->dir_path ? strlen(w->dir_path) : 0;
	if (e2map__iget(w->m, (ext2_ino_t)ino, true, &f) < 0)
		return 0;	/* the kernel could not read it either */
	w->dir = f;
	w->dir_mtime = (struct e2map_timespec){ 0, 0 };
	if (past_read(w->m, ino, &dirin) == 0)
		w->dir_mtime = dirin.mtime;
	err = e2map__dir_slack(f, on_slack, w);
	e2map__iput(f);
	return err;
}

int e2map_deleted_names(e2map_t *m, const e2map_paths_t *paths,
			e2map_deleted_name_cb cb, void *payload)
{
	struct names_walk w = { .m = m, .paths = paths, .cb = cb,
				.payload = payload };
	e2map_paths_t *own = NULL;
	struct dirs dirs = { 0 };
	size_t i;
	int err;

	if (!m || !cb)
		return -EINVAL;
	if (!paths && (err = e2map_paths_build(m, &own)) < 0)
		return err;
	if (!paths)
		w.paths = own;
	w.im.m = m;
	if (!(w.im.b = malloc(m->bs)))
		err = -ENOMEM;
	else
		err = e2map_scan(m, collect_dir, &dirs);
	for (i = 0; !err && i < dirs.n; i++)
		err = walk_dir(&w, dirs.v[i]);
	free(w.dir_path);
	free(w.im.b);
	free(dirs.v);
	e2map_paths_free(own);
	return err;
}

/* ---- free inodes and orphans ---- */

/* ils's "used": a ctime; and any other trace of a file. */
static bool holds_metadata(const struct e2map_past_inode *in)
{
	return in->mode || in->dtime || in->ctime.sec || in->mtime.sec ||
	       in->atime.sec;
}

/* Inodes of group G in the table: all but a never-used tail. */
static uint32_t table_inodes(ext2_filsys fs, dgrp_t g)
{
	uint32_t ipg = fs->super->s_inodes_per_group, unused;

	if (!ext2fs_has_group_desc_csum(fs))
		return ipg;
	unused = ext2fs_bg_itable_unused(fs, g);
	return unused < ipg ? ipg - unused : 0;
}

static int free_one(struct imap *im, uint64_t ino, const unsigned char *raw,
		    e2map_free_inode_cb cb, void *payload)
{
	struct e2map_free_inode fi = { ino, E2MAP_FREE_INODE, { 0 } };
	bool used = imap_used(im, ino);

	past_decode(raw, raw_size(im->m), &fi.inode);
	if (used && (ino < EXT2_FIRST_INO(im->m->fs->super) ||
		     fi.inode.links || !fi.inode.mode))
		return 0;
	if (!used && !holds_metadata(&fi.inode))
		return 0;
	fi.kind = used ? E2MAP_FREE_ORPHAN : E2MAP_FREE_INODE;
	return cb(&fi, payload);
}

static int free_group(struct imap *im, dgrp_t g, unsigned char *buf,
		      e2map_free_inode_cb cb, void *payload)
{
	ext2_filsys fs = im->m->fs;
	uint32_t isize = EXT2_INODE_SIZE(fs->super), per = im->m->bs / isize;
	uint32_t i, n = table_inodes(fs, g);
	uint64_t first = (uint64_t)g * fs->super->s_inodes_per_group + 1;
	uint64_t table = ext2fs_inode_table_loc(fs, g);
	int err;

	if (!group_used(fs, g) || !n ||
	    !e2map__block_valid(im->m, table, (n + per - 1) / per))
		return 0;
	for (i = 0; i < n; i++) {
		if (i % per == 0 &&
		    e2map__read_block(im->m, table + i / per, buf) < 0) {
			i += per - 1;	/* that block's inodes: unreadable */
			continue;
		}
		if ((err = free_one(im, first + i, buf + (i % per) * isize,
				    cb, payload)) != 0)
			return err;
	}
	return 0;
}

int e2map_free_inodes(e2map_t *m, e2map_free_inode_cb cb, void *payload)
{
	struct imap im = { .m = m };
	unsigned char *buf;
	dgrp_t g;
	int err = 0;

	if (!m || !cb)
		return -EINVAL;
	im.b = malloc(m->bs);
	buf = malloc(m->bs);
	if (!im.b || !buf)
		err = -ENOMEM;
	for (g = 0; !err && g < m->fs->group_desc_count; g++)
		err = free_group(&im, g, buf, cb, payload);
	free(buf);
	free(im.b);
	return err;
}

const char *e2map_inode_state_name(enum e2map_inode_state s)
{
	switch (s) {
	case E2MAP_INODE_UNALLOCATED: return "unallocated";
	case E2MAP_INODE_LINKED: return "linked";
	case E2MAP_INODE_REALLOCATED: return "reallocated";
	}
	return "unknown";
}

const char *e2map_free_kind_name(enum e2map_free_kind k)
{
	return k == E2MAP_FREE_ORPHAN ? "orphan" : "inode";
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who owns each block: one pass over the layout (superblocks, group
 * descriptors, reserved GDT blocks, bitmaps, inode tables, MMP) and over
 * every inode in use through the mapping walk seek and fiemap use (its
 * data and unwritten runs, the tree blocks the walk read, its xattr
 * block), sorted into an interval map.  The gaps are free, or, where the
 * block bitmap says in use, in use by no owner found.  A batch of lookups
 * then costs one scan and a binary search each.
 */
#include "passes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct e2map_blockmap {
	struct e2map_owner *v;
	size_t n, cap;
};

static int add(struct e2map_blockmap *b, uint64_t start, uint64_t count,
	       enum e2map_owner_kind kind, uint64_t ino, uint64_t lblk)
{
	if (!count)
		return 0;
	if (e2map__grow((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v)) < 0)
		return -ENOMEM;
	b->v[b->n++] = (struct e2map_owner){ start, count, kind, ino, lblk };
	return 0;
}

/*
 * A group's superblock copy, descriptors and reserved GDT blocks, as the
 * kernel counts them (e2map__group_base).  Block 0 of a 1 KiB bigalloc
 * filesystem starts group 0, but the superblock is at byte 1024 all the
 * same (libext2fs places it there too).
 */
static int add_group_super(e2map_t *m, struct e2map_blockmap *b, dgrp_t g)
{
	ext2_filsys fs = m->fs;
	uint64_t at = ext2fs_group_first_block2(fs, g);
	struct e2map_group gr;
	int err;

	if (at == 0 && fs->blocksize == 1024)
		at = 1;
	e2map__group_base(fs, g, &gr);
	if ((err = add(b, at, gr.super, E2MAP_OWNER_SUPERBLOCK, 0, 0)) == 0 &&
	    (err = add(b, at + gr.super, gr.gdt, E2MAP_OWNER_GDT, 0, 0)) == 0)
		err = add(b, at + gr.super + gr.gdt, gr.reserved,
			  E2MAP_OWNER_RESERVED_GDT, 0, 0);
	return err;
}

static int add_layout(e2map_t *m, struct e2map_blockmap *b)
{
	ext2_filsys fs = m->fs;
	dgrp_t g;
	int err = 0;

	for (g = 0; g < fs->group_desc_count && !err; g++) {
		if ((err = add_group_super(m, b, g)) < 0 ||
		    (err = add(b, ext2fs_block_bitmap_loc(fs, g), 1,
			       E2MAP_OWNER_BLOCK_BITMAP, 0, 0)) < 0 ||
		    (err = add(b, ext2fs_inode_bitmap_loc(fs, g), 1,
			       E2MAP_OWNER_INODE_BITMAP, 0, 0)) < 0)
			break;
		err = add(b, ext2fs_inode_table_loc(fs, g),
			  fs->inode_blocks_per_group, E2MAP_OWNER_INODE_TABLE,
			  0, 0);
	}
	if (!err && ext2fs_has_feature_mmp(fs->super) && fs->super->s_mmp_block)
		err = add(b, fs->super->s_mmp_block, 1, E2MAP_OWNER_MMP, 0, 0);
	/* One answer for block 0 whether or not it is the filesystem's. */
	if (!err && fs->blocksize == 1024)
		err = add(b, 0, 1, E2MAP_OWNER_BOOT, 0, 0);
	return err;
}

struct own {
	struct e2map_blockmap *b;
	uint64_t ino;
	enum e2map_owner_kind data;	/* what a written run is */
};

static int add_run(const struct e2map_run *run, void *payload)
{
	struct own *o = payload;

	/* the resize inode's runs are the reserved GDT blocks: the layout's */
	if (run->kind == E2MAP_RUN_HOLE || run->kind == E2MAP_RUN_INLINE ||
	    o->ino == EXT2_RESIZE_INO)
		return 0;
	return add(o->b, run->pblk, run->nblk, run->kind == E2MAP_RUN_DATA ?
		   o->data : E2MAP_OWNER_UNWRITTEN, o->ino, run->lblk);
}

/* What an inode's written blocks are: the journal's, a directory's... */
static enum e2map_owner_kind data_kind(e2map_t *m, const struct e2map_inode *in)
{
	if (in->ino == EXT2_JOURNAL_INO)
		return E2MAP_OWNER_JOURNAL;
	if (in->ino == m->fs->super->s_orphan_file_inum &&
	    ext2fs_has_feature_orphan_file(m->fs->super))
		return E2MAP_OWNER_ORPHAN_FILE;
	return LINUX_S_ISDIR(in->mode) ? E2MAP_OWNER_DIRECTORY :
	       E2MAP_OWNER_DATA;
}

/* A slow symlink's target block, which no walk of a file maps. */
static int add_link_block(e2map_t *m, struct own *o, e2map_file_t *f)
{
	blk64_t pblk = 0;

	if (!ext2fs_inode_data_blocks2(m->fs, (struct ext2_inode *)f->inode) ||
	    (f->inode->i_flags & EXT4_INLINE_DATA_FL) ||
	    ext2fs_bmap2(m->fs, (ext2_ino_t)o->ino,
			 (struct ext2_inode *)f->inode, NULL, 0, 0, NULL,
			 &pblk) || !pblk)
		return 0;
	return add(o->b, pblk, 1, E2MAP_OWNER_DATA, o->ino, 0);
}

/* One inode's blocks; one it cannot walk keeps what came before. */
static int add_inode(e2map_t *m, const struct e2map_inode *in, void *payload)
{
	struct own o = { payload, in->ino, data_kind(m, in) };
	enum e2map_owner_kind tree;
	e2map_file_t *f;
	size_t i;
	int err;

	if (in->err)
		return 0;
	err = in->flags & EXT4_EA_INODE_FL ?
	      e2map__iget_how(m, (ext2_ino_t)in->ino, E2MAP_IGET_EA, &f) :
	      e2map__iget(m, (ext2_ino_t)in->ino, true, &f);
	if (err < 0)
		return err == -ENOMEM ? err : 0;
	err = f->file_acl ? add(o.b, f->file_acl, 1, E2MAP_OWNER_XATTR_BLOCK,
				in->ino, 0) : 0;
	if (!err && LINUX_S_ISLNK(f->inode->i_mode))
		err = add_link_block(m, &o, f);
	if (!err && !e2map__unmapped(f)) {
		err = e2map_file_walk(f, 0, E2MAP_MAX_BLOCKS, add_run, &o);
		err = err == -ENOMEM ? err : 0;
		tree = f->src == SRC_EXTENT ? E2MAP_OWNER_EXTENT_TREE :
		       E2MAP_OWNER_INDIRECT;
		for (i = 0; i < f->leaves.n && !err; i++)
			err = add(o.b, f->leaves.v[i], 1, tree, in->ino, 0);
	}
	e2map_file_close(f);
	return err;
}

static int by_start(const void *a, const void *b)
{
	const struct e2map_owner *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The block bitmap's bits as they lie, also where a group's checksum
 * fails (the kernel then only stops allocating there; check reports it):
 * they are all the image says of which blocks are free, and debugfs's
 * testb reads them so.  Without a bitmap at all (unreadable), every gap
 * is in use by no one found.
 */
static void read_bitmap(ext2_filsys fs)
{
	int flags = fs->flags;

	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	ext2fs_read_block_bitmap(fs);
	fs->flags = flags;
}

/* [A, B) per the block bitmap: free runs, and runs in use by no one. */
static int add_gap(e2map_t *m, struct e2map_blockmap *b, uint64_t a,
		   uint64_t end)
{
	ext2fs_block_bitmap map = m->fs->block_map;
	blk64_t next;
	bool used;
	int err = 0;

	while (a < end && !err) {
		used = !map || ext2fs_test_block_bitmap2(map, a);
		next = end;
		if (map && (used ? ext2fs_find_first_zero_block_bitmap2(map, a,
					end - 1, &next) :
			    ext2fs_find_first_set_block_bitmap2(map, a,
					end - 1, &next)))
			next = end;
		err = add(b, a, next - a, used ? E2MAP_OWNER_UNKNOWN :
			  E2MAP_OWNER_FREE, 0, 0);
		a = next;
	}
	return err;
}

/* The owners in block order, each gap between them given its kind: one
 * sort, then one pass into a new map. */
static int fill_gaps(e2map_t *m, struct e2map_blockmap *b)
{
	struct e2map_blockmap out = { 0 };
	uint64_t at = m->fs->super->s_first_data_block;
	uint64_t total = ext2fs_blocks_count(m->fs->super);
	size_t i;
	int err = 0;

	if (b->n)
		qsort(b->v, b->n, sizeof(*b->v), by_start);
	for (i = 0; i < b->n && !err; i++) {
		const struct e2map_owner *o = &b->v[i];

		if (o->start > at)
			err = add_gap(m, &out, at, o->start < total ? o->start :
				      total);
		if (!err)
			err = add(&out, o->start, o->count, o->kind, o->ino,
				  o->lblk);
		if (o->start + o->count > at)
			at = o->start + o->count;
	}
	if (!err && at < total)
		err = add_gap(m, &out, at, total);
	if (err) {
		free(out.v);
		return err;
	}
	free(b->v);
	*b = out;
	return 0;
}

int e2map_blockmap_build(e2map_t *m, e2map_blockmap_t **out)
{
	struct e2map_blockmap *b;
	int err;

	if (!m || !out)
		return -EINVAL;
	*out = NULL;
	if (!(b = calloc(1, sizeof(*b))))
		return -ENOMEM;
	if (!m->fs->block_map)
		read_bitmap(m->fs);
	if ((err = add_layout(m, b)) < 0 ||
	    (err = e2map_scan(m, add_inode, b)) < 0 ||
	    (err = fill_gaps(m, b)) < 0) {
		e2map_blockmap_free(b);
		return err;
	}
	*out = b;
	return 0;
}

size_t e2map_blockmap_count(const e2map_blockmap_t *b)
{
	return b ? b->n : 0;
}

const struct e2map_owner *e2map_blockmap_get(const e2map_blockmap_t *b,
					      size_t i)
{
	return b && i < b->n ? &b->v[i] : NULL;
}

const struct e2map_owner *e2map_blockmap_find(const e2map_blockmap_t *b,
					       uint64_t block, size_t *index)
{
	size_t lo = 0, hi = b ? b->n : 0, i;

	while (lo < hi) {	/* the first range starting past BLOCK */
		size_t mid = lo + (hi - lo) / 2;

		if (b->v[mid].start <= block)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges may overlap where the image is damaged: look back */
	for (i = lo; i-- > 0;) {
		if (block - b->v[i].start < b->v[i].count) {
			if (index)
				*index = i;
			return &b->v[i];
		}
		if (i + 64 < lo)
			break;
	}
	return NULL;
}

const char *e2map_owner_kind_name(enum e2map_owner_kind k)
{
	static const char *const names[] = {
		"free", "unknown", "superblock", "gdt", "reserved-gdt",
		"block-bitmap", "inode-bitmap", "inode-table", "mmp", "journal",
		"orphan-file", "data", "unwritten", "directory", "extent-tree",
		"indirect", "xattr-block", "boot",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

void e2map_blockmap_free(e2map_blockmap_t *b)
{
	if (b) {
		free(b->v);
		free(b);
	}
}

/* An inode's size, asked once per run of ranges of that inode. */
struct sizes {
	e2map_t *m;
	uint64_t ino, size;
	bool ok;
};

static bool size_of(struct sizes *s, uint64_t ino)
{
	struct e2map_stat st = E2MAP_STAT_INIT;

	if (ino != s->ino) {
		s->ino = ino;
		s->ok = e2map_inode_stat(s->m, ino, &st) == 0 &&
			LINUX_S_ISREG(st.mode);
		s->size = s->ok ? st.size : 0;
	}
	return s->ok;
}

static int emit(e2map_t *m, e2map_unalloc_cb cb, void *payload,
		enum e2map_unalloc_kind kind, uint64_t byte, uint64_t len,
		uint64_t ino)
{
	struct e2map_unalloc u = { kind, m->disk_offset + byte, len, ino };

	return len ? cb(&u, payload) : 0;
}

/*
 * A regular file's run past its end: the unused tail of the block that
 * holds EOF, then whole blocks allocated past it (fallocate KEEP_SIZE).
 */
static int file_slack(e2map_t *m, const struct e2map_owner *o,
		      uint64_t size, e2map_unalloc_cb cb, void *payload)
{
	uint64_t bs = m->bs, from = o->lblk * bs, to = from + o->count * bs;
	uint64_t eof_end = (size + bs - 1) / bs * bs, at;
	int err = 0;

	if (to <= size)
		return 0;
	if (size % bs && size > from && size < to)
		err = emit(m, cb, payload, E2MAP_UNALLOC_TAIL,
			   o->start * bs + (size - from), eof_end - size,
			   o->ino);
	at = from > eof_end ? from : eof_end;
	if (!err && at < to)
		err = emit(m, cb, payload, E2MAP_UNALLOC_PAST_EOF,
			   o->start * bs + (at - from), to - at, o->ino);
	return err;
}

int e2map_unallocated(e2map_t *m, const e2map_blockmap_t *b,
		      e2map_unalloc_cb cb, void *payload)
{
	struct sizes sz = { .m = m };
	size_t i;
	int err = 0;

	if (!m || !b || !cb)
		return -EINVAL;
	for (i = 0; i < b->n && !err; i++) {
		const struct e2map_owner *o = &b->v[i];

		if (o->kind == E2MAP_OWNER_FREE || o->kind == E2MAP_OWNER_UNKNOWN)
			err = emit(m, cb, payload, o->kind == E2MAP_OWNER_FREE ?
				   E2MAP_UNALLOC_FREE : E2MAP_UNALLOC_UNOWNED,
				   o->start * m->bs, o->count * m->bs, 0);
		else if ((o->kind == E2MAP_OWNER_DATA ||
			  o->kind == E2MAP_OWNER_UNWRITTEN) &&
			 size_of(&sz, o->ino))
			err = file_slack(m, o, sz.size, cb, payload);
	}
	return err;
}

const char *e2map_unalloc_kind_name(enum e2map_unalloc_kind k)
{
	static const char *const names[] = {
		"free", "unowned", "past-eof", "tail",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

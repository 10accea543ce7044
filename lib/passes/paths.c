/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The path table: every name of every inode, from one breadth-first pass
 * over the directories reachable from the root, each directory read once
 * as ext4_readdir reads it (e2map_file_readdir), and each name looked up
 * as lstat(2) of it would look it up, for what readdir lists and lookup
 * refuses.  A record per name: the inode, the record of the directory
 * holding the name, the name in a pool, and the lookup's errno; paths
 * are rebuilt by climbing the records, and an index sorted by inode
 * number finds an inode's names.
 */
#include "passes.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NO_PARENT UINT32_MAX

/* One name: INO is called NAME in the directory of record PARENT. */
struct name_rec {
	uint32_t ino;
	uint32_t parent;
	uint32_t name_off;	/* into the pool */
	uint16_t depth;		/* components below the root */
	uint8_t name_len;
	uint8_t err;		/* lstat's errno, positive; 0: it works */
};

/* Why a name's lookup failed: rare, so kept beside the records. */
struct why {
	uint32_t rec;
	char *msg;
};

/* The by-inode index: records of each inode, in record (BFS) order. */
struct by_ino {
	uint32_t ino;
	uint32_t rec;
};

struct e2map_paths {
	struct name_rec *v;
	size_t n, cap;
	char *pool;
	size_t pool_used, pool_cap;
	struct by_ino *index;
	struct why *why;	/* sorted by record once built */
	size_t nwhy, why_cap;
	uint64_t serial;	/* this table's, for each thread's memo */
};

/* Blocks to ask the media for ahead of the walk. */
struct span {
	uint64_t pblk, n;
};

/* Directories in use, from the inode tables, each walked at most once. */
struct dirset {
	uint32_t *ino;		/* sorted: the scan goes in inode order */
	unsigned char *walked;
	size_t n, cap;
	struct span *blocks;	/* the directories' blocks */
	size_t nblocks, bcap;
};

/* The walk of one directory: where its names go. */
struct walk {
	e2map_paths_t *p;
	uint32_t parent;	/* the directory's own record */
	uint16_t depth;
};

static int add_name(e2map_paths_t *p, uint32_t ino, uint32_t parent,
		    uint16_t depth, const struct e2map_name *n)
{
	int err;

	if (p->n >= NO_PARENT || p->pool_used + n->len > UINT32_MAX)
		return -EFBIG;
	if ((err = e2map__grow((void **)&p->v, &p->cap, p->n + 1,
			       sizeof(*p->v))) < 0 ||
	    (err = e2map__grow((void **)&p->pool, &p->pool_cap,
			       p->pool_used + n->len + 1, 1)) < 0)
		return err;
	memcpy(p->pool + p->pool_used, n->s, n->len);
	p->v[p->n++] = (struct name_rec){ ino, parent, (uint32_t)p->pool_used,
					  depth, (uint8_t)n->len, 0 };
	p->pool_used += n->len;
	return 0;
}

static int add_span(const struct e2map_run *run, void *payload)
{
	struct dirset *d = payload;

	if (run->kind != E2MAP_RUN_DATA)
		return 0;
	if (d->nblocks && d->blocks[d->nblocks - 1].pblk +
	    d->blocks[d->nblocks - 1].n == run->pblk) {
		d->blocks[d->nblocks - 1].n += run->nblk;
		return 0;
	}
	if (e2map__grow((void **)&d->blocks, &d->bcap, d->nblocks + 1,
			sizeof(*d->blocks)) < 0)
		return 1;	/* only a hint: fewer blocks asked for */
	d->blocks[d->nblocks++] = (struct span){ run->pblk, run->nblk };
	return 0;
}

#define SPAN_MAX_BLOCKS 65536U	/* of one directory: a hint needs no more */

static uint64_t min_blocks(uint64_t n)
{
	return n < SPAN_MAX_BLOCKS ? n : SPAN_MAX_BLOCKS;
}

/* Where directory INO's blocks lie, while its inode's table block is
 * in the cache (the scan just read it); a directory that fails here
 * fails again, with its own error, when the walk opens it. */
static void dir_spans(e2map_t *m, struct dirset *d, uint64_t ino)
{
	e2map_file_t *f;

	if (e2map__iget(m, (ext2_ino_t)ino, false, &f) < 0)
		return;
	if (!e2map__unmapped(f))
		(void)e2map_file_walk(f, 0, min_blocks((f->size + m->bs - 1) /
				      m->bs),
				      add_span, d);
	e2map_file_close(f);
}

static int collect_dir(e2map_t *m, const struct e2map_inode *in, void *payload)
{
	struct dirset *d = payload;
	int err;

	if (in->err || (in->mode & 0170000) != 0040000)
		return 0;
	if ((err = e2map__grow((void **)&d->ino, &d->cap, d->n + 1,
			       sizeof(*d->ino))) < 0)
		return err;
	d->ino[d->n++] = (uint32_t)in->ino;
	dir_spans(m, d, in->ino);
	return 0;
}

static int cmp_span(const void *a, const void *b)
{
	uint64_t x = ((const struct span *)a)->pblk;
	uint64_t y = ((const struct span *)b)->pblk;

	return x < y ? -1 : x > y;
}

#define SPAN_GAP 8	/* blocks between two spans read as one */

/*
 * The directories' blocks asked for in one ascending sweep, before the
 * walk reads them one by one in its own order: on a cold page cache,
 * what e2fsck's pass 2 gains by reading directory blocks sorted.
 */
static void prefetch_dirs(e2map_t *m, struct dirset *d)
{
	struct span cur;
	size_t i;

	if (!d->nblocks)
		return;
	qsort(d->blocks, d->nblocks, sizeof(*d->blocks), cmp_span);
	cur = d->blocks[0];
	for (i = 1; i < d->nblocks; i++) {
		const struct span *s = &d->blocks[i];

		if (s->pblk <= cur.pblk + cur.n + SPAN_GAP) {
			if (s->pblk + s->n > cur.pblk + cur.n)
				cur.n = s->pblk + s->n - cur.pblk;
			continue;
		}
		e2map__prefetch(m, cur.pblk, cur.n);
		cur = *s;
	}
	e2map__prefetch(m, cur.pblk, cur.n);
}

/* The slot of directory INO in D, or -1 when INO is not a directory. */
static long dir_slot(const struct dirset *d, uint32_t ino)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ino[mid] == ino)
			return (long)mid;
		if (d->ino[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int on_entry(uint32_t ino, const struct e2map_name *n, void *payload)
{
	struct walk *w = payload;

	return add_name(w->p, ino, w->parent, w->depth, n);
}

/* A name getdents gives, but "." and "..": the tree is walked downward. */
static int on_dirent(const struct e2map_dirent *de, void *payload)
{
	struct e2map_name n = { .s = de->name, .len = (unsigned)de->len };

	if (e2map__is_dot(de->name, de->len))
		return 0;
	return on_entry((uint32_t)de->ino, &n, payload);
}

/* The directories from the root down to record REC's, REC's last. */
static ext2_ino_t *chain_of(const e2map_paths_t *p, uint32_t rec, size_t *n)
{
	size_t k = (size_t)p->v[rec].depth + 1;
	ext2_ino_t *chain = malloc(k * sizeof(*chain));
	uint32_t r = rec;

	if (!chain)
		return NULL;
	*n = k;
	while (k)
		chain[--k] = p->v[r].ino, r = p->v[r].parent;
	return chain;
}

static int keep_why(e2map_paths_t *p, uint32_t rec, const char *msg)
{
	char *s;
	int err;

	if ((err = e2map__grow((void **)&p->why, &p->why_cap, p->nwhy + 1,
			       sizeof(*p->why))) < 0)
		return err;
	if (!(s = strdup(msg)))
		return -ENOMEM;
	p->why[p->nwhy++] = (struct why){ rec, s };
	return 0;
}

/* Record REC's lookup failed with ERR: kept, with its reason. */
static int failed(e2map_paths_t *p, e2map_t *m, uint32_t rec, int err)
{
	if (err == -ENOMEM)
		return err;
	p->v[rec].err = (uint8_t)(-err < 256 ? -err : EIO);
	return keep_why(p, rec, e2map_errmsg(m));
}

/* The first half of lstat of record REC's name: the entry the kernel's
 * search finds in DIR, whose inode a twin of a damaged directory's name
 * stands for too; the htree probe may miss it (ENOENT). */
static int find(e2map_paths_t *p, e2map_file_t *dir, uint32_t rec)
{
	struct e2map_name name = { .s = p->pool + p->v[rec].name_off,
				   .len = p->v[rec].name_len };
	uint32_t ino;
	int err;

	if ((err = e2map__find_child(dir, &name, &ino)) < 0)
		return failed(p, dir->m, rec, err);
	p->v[rec].ino = ino;
	return 0;
}

/* The second half: what the entry names, as ext4_lookup checks it (an
 * ancestor: ELOOP; another encryption policy: EPERM; an EA inode or any
 * inode __ext4_iget refuses), then its stat (an encrypted symlink whose
 * no-key target cannot be made). */
static int check(e2map_paths_t *p, e2map_file_t *dir,
		 const ext2_ino_t *chain, size_t n, uint32_t rec)
{
	struct e2map_stat st = E2MAP_STAT_INIT;
	e2map_file_t *child;
	int err;

	if (p->v[rec].err)
		return 0;
	if ((err = e2map__check_child(dir, chain, n, p->v[rec].ino,
				      &child)) == 0) {
		err = e2map_file_stat(child, &st);
		e2map_file_close(child);
	}
	return err < 0 ? failed(p, dir->m, rec, err) : 0;
}

static int cmp_rec_ino(const void *a, const void *b, void *payload);

/* The inode-table block holding inode INO. */
static uint64_t itable_block(ext2_filsys fs, uint32_t ino, unsigned bs)
{
	uint32_t ipg = fs->super->s_inodes_per_group;
	uint64_t at = (uint64_t)((ino - 1) % ipg) * EXT2_INODE_SIZE(fs->super);

	return ext2fs_inode_table_loc(fs, (dgrp_t)((ino - 1) / ipg)) +
	       at / bs;
}

#define RUN_GAP 2	/* blocks of no child that a read may still cover */
#define RUN_MAX 32	/* e2map__read_ahead's 128 KiB of 4 KiB blocks */

/*
 * The table blocks of records ORDER[0..K) (ascending inodes), read in
 * runs where they lie close: a directory's children were mostly
 * allocated together, and one read of their blocks replaces a pread
 * each.  Only a hint: a number past the tables is left to check.
 */
static void read_ahead_children(e2map_t *m, const e2map_paths_t *p,
				const uint32_t *order, size_t k)
{
	ext2_filsys fs = m->fs;
	uint64_t start = 0, end = 0, b;
	size_t i;

	for (i = 0; i < k; i++) {
		uint32_t ino = p->v[order[i]].ino;

		if (p->v[order[i]].err || ino < 1 ||
		    ino > fs->super->s_inodes_count)
			continue;
		b = itable_block(fs, ino, m->bs);
		if (end && b >= start && b <= end + RUN_GAP &&
		    b < start + RUN_MAX) {
			end = b > end ? b : end;
			continue;
		}
		if (end > start)
			e2map__read_ahead(m, start, end - start + 1);
		start = end = b;
	}
	if (end > start)
		e2map__read_ahead(m, start, end - start + 1);
}

/*
 * lstat of records [FIRST, p->n), DIR's names: the entries found in
 * listing order, as the directory's blocks lie, then checked in inode
 * order, so the inode table is read ascending, each block once.
 */
static int look_up_all(e2map_paths_t *p, e2map_file_t *dir, uint32_t rec,
		       size_t first)
{
	size_t k = p->n - first, n, i;
	ext2_ino_t *chain;
	uint32_t *order;
	int err = 0;

	if (!k)
		return 0;
	chain = chain_of(p, rec, &n);
	if (!chain || !(order = malloc(k * sizeof(*order)))) {
		free(chain);
		return -ENOMEM;
	}
	for (i = 0; i < k && err >= 0; i++) {
		order[i] = (uint32_t)(first + i);
		err = find(p, dir, order[i]);
	}
	if (err >= 0) {
		qsort_r(order, k, sizeof(*order), cmp_rec_ino, p->v);
		read_ahead_children(dir->m, p, order, k);
	}
	for (i = 0; i < k && err >= 0; i++)
		err = check(p, dir, chain, n, order[i]);
	free(order);
	free(chain);
	return err;
}

static int walk_dir(e2map_t *m, e2map_paths_t *p, uint32_t rec)
{
	struct walk w = { p, rec, (uint16_t)(p->v[rec].depth + 1) };
	size_t first = p->n;
	e2map_file_t *f;
	int err;

	if (e2map__iget(m, p->v[rec].ino, false, &f) < 0)
		return 0;
	err = LINUX_S_ISDIR(f->inode->i_mode) ?
	      e2map_file_readdir(f, on_dirent, &w) : 0;
	/* The directory's own failure is getdents' (its names stop there);
	 * only the walk's own trouble ends the table. */
	if (err != -ENOMEM && err != -EFBIG)
		err = look_up_all(p, f, rec, first);
	e2map_file_close(f);
	return err < 0 ? err : 0;
}

static int cmp_by_ino(const void *a, const void *b)
{
	const struct by_ino *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int cmp_why(const void *a, const void *b)
{
	uint32_t x = ((const struct why *)a)->rec;
	uint32_t y = ((const struct why *)b)->rec;

	return x < y ? -1 : x > y;
}

/* FROM[0..N) into TO by the 16 bits of ino at SHIFT, keeping the order
 * of equal keys (a radix pass: two of them sort by inode, in record
 * order within one, as cmp_by_ino would, in linear time). */
static void radix_pass(const struct by_ino *from, struct by_ino *to, size_t n,
		       unsigned shift, size_t *count)
{
	size_t i, sum = 0, c;

	memset(count, 0, 65536 * sizeof(*count));
	for (i = 0; i < n; i++)
		count[(from[i].ino >> shift) & 0xffff]++;
	for (i = 0; i < 65536; i++) {
		c = count[i];
		count[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		to[count[(from[i].ino >> shift) & 0xffff]++] = from[i];
}

/* By inode, and the reasons by record (found in inode order). */
static int build_index(e2map_paths_t *p)
{
	struct by_ino *tmp;
	size_t *count;

	if (p->nwhy)
		qsort(p->why, p->nwhy, sizeof(*p->why), cmp_why);
	if (!(p->index = malloc((p->n ? p->n : 1) * sizeof(*p->index))))
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		p->index[i] = (struct by_ino){ p->v[i].ino, (uint32_t)i };
	/* Small tables: a qsort costs less than the passes' counts. */
	tmp = p->n >= 65536 ? malloc(p->n * sizeof(*tmp)) : NULL;
	count = tmp ? malloc(65536 * sizeof(*count)) : NULL;
	if (tmp && count) {
		radix_pass(p->index, tmp, p->n, 0, count);
		radix_pass(tmp, p->index, p->n, 16, count);
	} else {
		qsort(p->index, p->n, sizeof(*p->index), cmp_by_ino);
	}
	free(tmp);
	free(count);
	return 0;
}

static int cmp_rec_ino(const void *a, const void *b, void *payload)
{
	const struct name_rec *v = payload;
	uint32_t x = v[*(const uint32_t *)a].ino, y = v[*(const uint32_t *)b].ino;

	return x < y ? -1 : x > y;
}

/*
 * The directories named by records [START, END) (one depth), walked in
 * inode order: consecutive inodes share inode-table blocks, which the
 * I/O cache then keeps (directories are spread over groups, so directory
 * order would read one inode block per directory).
 */
static int walk_level(e2map_t *m, e2map_paths_t *p, struct dirset *d,
		      size_t start, size_t end)
{
	uint32_t *dirs = malloc((end - start) * sizeof(*dirs));
	size_t n = 0, i;
	int err = 0;
	long s;

	if (!dirs)
		return -ENOMEM;
	/* A name lstat fails on cannot be opened to be listed. */
	for (i = start; i < end; i++)
		if (!p->v[i].err && dir_slot(d, p->v[i].ino) >= 0)
			dirs[n++] = (uint32_t)i;
	qsort_r(dirs, n, sizeof(*dirs), cmp_rec_ino, p->v);
	for (i = 0; i < n && err >= 0; i++) {
		s = dir_slot(d, p->v[dirs[i]].ino);
		if (d->walked[s])
			continue;	/* a second name of a directory */
		d->walked[s] = 1;
		err = walk_dir(m, p, dirs[i]);
	}
	free(dirs);
	return err;
}

/*
 * Breadth first: the records themselves are the queue, one depth after
 * the other, so each name is looked at once; a directory met again (a
 * second name of it) is not walked again, and none at a depth of
 * E2MAP_PATHS_MAX_DEPTH or more.
 */
static int walk_all(e2map_t *m, e2map_paths_t *p, struct dirset *d)
{
	const struct e2map_name root = { .s = "", .len = 0 };
	size_t start = 0, end;
	int err;

	if ((err = add_name(p, EXT2_ROOT_INO, NO_PARENT, 0, &root)) < 0)
		return err;
	while (start < p->n && p->v[start].depth < E2MAP_PATHS_MAX_DEPTH) {
		end = p->n;
		if ((err = walk_level(m, p, d, start, end)) < 0)
			return err;
		start = end;
	}
	return 0;
}

/* The tables' serial numbers: one a build, never reused. */
static atomic_uint_fast64_t serials;

int e2map_paths_build(e2map_t *m, e2map_paths_t **out)
{
	struct dirset d = { 0 };
	e2map_paths_t *p;
	int err;

	*out = NULL;
	if (!m)
		return -EINVAL;
	if (!(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
	if ((err = e2map_scan(m, collect_dir, &d)) >= 0 &&
	    (d.walked = calloc(d.n ? d.n : 1, 1)) == NULL)
		err = -ENOMEM;
	if (err >= 0)
		prefetch_dirs(m, &d);
	free(d.blocks);
	if (err >= 0 && (err = walk_all(m, p, &d)) >= 0)
		err = build_index(p);
	free(d.ino);
	free(d.walked);
	if (err < 0) {
		e2map_paths_free(p);
		return err;
	}
	p->serial = atomic_fetch_add(&serials, 1) + 1;
	*out = p;
	return 0;
}

void e2map_paths_free(e2map_paths_t *p)
{
	if (!p)
		return;
	free(p->v);
	free(p->pool);
	free(p->index);
	for (size_t i = 0; i < p->nwhy; i++)
		free(p->why[i].msg);
	free(p->why);
	free(p);
}

/* Length of the path of record REC ("/" for the root counts 1). */
static size_t path_len(const e2map_paths_t *p, uint32_t rec)
{
	size_t total = 0;
	uint32_t r;

	for (r = rec; p->v[r].parent != NO_PARENT; r = p->v[r].parent)
		total += 1 + p->v[r].name_len;
	return total ? total : 1;
}

/* The path of record REC into S (LEN + 1 bytes), built from its end. */
static void path_fill(const e2map_paths_t *p, uint32_t rec, char *s,
		      size_t len)
{
	size_t at = len;
	uint32_t r;

	s[len] = '\0';
	s[0] = '/';
	for (r = rec; p->v[r].parent != NO_PARENT; r = p->v[r].parent) {
		at -= p->v[r].name_len;
		memcpy(s + at, p->pool + p->v[r].name_off, p->v[r].name_len);
		s[--at] = '/';
	}
}

/* The reason record REC's lookup failed ("" if none was kept). */
static const char *why_of(const e2map_paths_t *p, uint32_t rec)
{
	size_t lo = 0, hi = p->nwhy;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->why[mid].rec == rec)
			return p->why[mid].msg;
		if (p->why[mid].rec < rec)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "";
}

/* One of the two callbacks, as the caller asked. */
struct each {
	e2map_path_cb cb;
	e2map_path_lstat_cb lstat_cb;
	void *payload;
};

/*
 * Each thread's memory of its last answers from one table: a scan asks
 * for inodes in ascending order, and neighbouring inodes mostly share a
 * directory, so the next index entry and the directory's path are most
 * often the ones just used.  Per thread, as a built table may be read
 * from several at once; keyed by the table's serial number.
 */
#define MEMO_PATH 4096

struct memo {
	uint64_t serial;	/* the table's; 0: none */
	size_t next;		/* the index entry after the last one used */
	uint32_t dir;		/* the record whose path PATH holds */
	size_t len;
	char path[MEMO_PATH];
};

static _Thread_local struct memo memo;

static struct memo *memo_of(const e2map_paths_t *p)
{
	if (memo.serial != p->serial) {
		memo.serial = p->serial;
		memo.next = 0;
		memo.dir = NO_PARENT;
	}
	return &memo;
}

/* The memo holding record REC's directory's path, and *LEN the length
 * of REC's own; false where the memo cannot hold it (or REC is the
 * root). */
static bool memo_dir(const e2map_paths_t *p, uint32_t rec, size_t *len)
{
	struct memo *mm = memo_of(p);
	uint32_t dir = p->v[rec].parent;
	size_t plen;

	if (dir == NO_PARENT)
		return false;
	if (mm->dir != dir) {
		if ((plen = path_len(p, dir)) >= MEMO_PATH)
			return false;
		path_fill(p, dir, mm->path, plen);
		mm->dir = dir;
		mm->len = plen;
	}
	/* The root's path is "/": its names follow it directly. */
	*len = (p->v[dir].parent == NO_PARENT ? 0 : mm->len) + 1 +
	       p->v[rec].name_len;
	return true;
}

/* After memo_dir: record REC's path (LEN bytes) into S. */
static void memo_fill(const e2map_paths_t *p, uint32_t rec, char *s,
		      size_t len)
{
	size_t plen = len - 1 - p->v[rec].name_len;

	memcpy(s, memo.path, plen);
	s[plen] = '/';
	memcpy(s + plen + 1, p->pool + p->v[rec].name_off, p->v[rec].name_len);
	s[len] = '\0';
}

/* CB with the path of record REC: on the stack unless it is long. */
static int path_cb(const e2map_paths_t *p, uint32_t rec,
		   const struct each *e)
{
	char small[1024], *s = small;
	bool memo_ok;
	size_t len = 0;
	int err, lerr = -(int)p->v[rec].err;

	if (!(memo_ok = memo_dir(p, rec, &len)))
		len = path_len(p, rec);
	if (len >= sizeof(small) && !(s = malloc(len + 1)))
		return -ENOMEM;
	if (memo_ok)
		memo_fill(p, rec, s, len);
	else
		path_fill(p, rec, s, len);
	err = e->cb ? e->cb(s, len, e->payload) :
	      e->lstat_cb(s, len, lerr, lerr ? why_of(p, rec) : "",
			  e->payload);
	if (s != small)
		free(s);
	return err;
}

/* The first index entry of an inode numbered INO or more. */
static size_t index_from(const e2map_paths_t *p, uint64_t ino)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->index[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* index_from, starting where this thread's last call left off. */
static size_t index_at(const e2map_paths_t *p, uint64_t ino)
{
	size_t i = memo_of(p)->next;

	if (i <= p->n && (i == 0 || p->index[i - 1].ino < ino) &&
	    (i == p->n || p->index[i].ino >= ino))
		return i;
	return index_from(p, ino);
}

uint64_t e2map__paths_next(const e2map_paths_t *p, uint64_t after)
{
	size_t i = index_at(p, after + 1);

	memo.next = i;
	return i < p->n ? p->index[i].ino : 0;
}

static int each_path(const e2map_paths_t *p, uint64_t ino,
		     const struct each *e)
{
	size_t lo;
	int err = 0;

	lo = index_at(p, ino);
	for (; lo < p->n && p->index[lo].ino == ino && !err; lo++)
		err = path_cb(p, p->index[lo].rec, e);
	memo.next = lo;
	return err;
}

int e2map_paths_foreach(const e2map_paths_t *p, uint64_t ino, e2map_path_cb cb,
			void *payload)
{
	if (!p || !cb)
		return -EINVAL;
	return each_path(p, ino, &(struct each){ cb, NULL, payload });
}

int e2map_paths_foreach_lstat(const e2map_paths_t *p, uint64_t ino,
			      e2map_path_lstat_cb cb, void *payload)
{
	if (!p || !cb)
		return -EINVAL;
	return each_path(p, ino, &(struct each){ NULL, cb, payload });
}

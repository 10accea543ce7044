/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Open inodes and the one mapping walk every answer goes through:
 * e2map__map_blocks is ext4_map_blocks (extent-status cache first, then
 * the on-disk tree), e2map__iomap_report is ext4_iomap_begin_report.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * What open(2) does by type before any filesystem code: a socket has no
 * open (no_open: ENXIO); a device opens its driver, which e2map never
 * does, so it answers as a kernel without one (chrdev_open, blkdev_open:
 * ENXIO).  A FIFO opens; its lseek and FIEMAP answers are by type.  A
 * symlink reaches here only by O_NOFOLLOW or by number: open's ELOOP.
 */
static int check_type(e2map_file_t *f)
{
	uint16_t mode = f->inode->i_mode;

	if (LINUX_S_ISLNK(mode))
		return e2map__fail(f->m, -ELOOP, "inode %u is a symlink", f->ino);
	if (LINUX_S_ISSOCK(mode))
		return e2map__fail(f->m, -ENXIO, "inode %u is a socket", f->ino);
	if (LINUX_S_ISCHR(mode) || LINUX_S_ISBLK(mode))
		return e2map__fail(f->m, -ENXIO, "inode %u is a device node: "
				   "e2map opens no device, as a kernel without "
				   "its driver", f->ino);
	return 0;
}

bool e2map__unmapped(const e2map_file_t *f)
{
	return !LINUX_S_ISREG(f->inode->i_mode) &&
	       !LINUX_S_ISDIR(f->inode->i_mode);
}

/* ext4_inode_is_fast_symlink: the target lives in i_block, no blocks. */
bool e2map__fast_symlink(const e2map_file_t *f)
{
	uint64_t ea = f->file_acl ? EXT2FS_CLUSTER_RATIO(f->m->fs) *
		      (f->m->bs >> 9) : 0;

	if (ext2fs_has_feature_ea_inode(f->m->fs->super))
		return LINUX_S_ISLNK(f->inode->i_mode) && f->size &&
		       f->size < EXT2_N_BLOCKS * 4;
	if (f->src == SRC_INLINE)
		return false;
	return e2map__inode_blocks(f) == ea;
}

/*
 * Inline data needs both the flag and system.data (ext4_has_inline_data).
 * The block references are checked as __ext4_iget does, for files,
 * directories and slow symlinks, before anything else looks at them.
 */
static int pick_source(e2map_file_t *f)
{
	uint32_t flags = f->inode->i_flags;
	uint16_t mode = f->inode->i_mode;

	f->maxbytes = (flags & EXT4_EXTENTS_FL) ? f->m->s_maxbytes :
			f->m->s_bitmap_maxbytes;
	if ((flags & EXT4_INLINE_DATA_FL) && f->inline_size) {
		f->src = SRC_INLINE;
		return 0;
	}
	f->src = (flags & EXT4_EXTENTS_FL) ? SRC_EXTENT : SRC_BLOCKMAP;
	if (!LINUX_S_ISREG(mode) && !LINUX_S_ISDIR(mode) &&
	    !(LINUX_S_ISLNK(mode) && !e2map__fast_symlink(f)))
		return 0;
	return f->src == SRC_EXTENT ? e2map__extent_check_root(f) :
				      e2map__blockmap_check_root(f);
}

/*
 * __ext4_iget's symlink checks: no append/immutable flag, and a fast
 * symlink's length must match its NUL-terminated target (unencrypted).
 */
static int check_symlink(e2map_file_t *f)
{
	uint32_t flags = f->inode->i_flags;
	const char *target = (const char *)f->inode->i_block;

	if (flags & (EXT2_APPEND_FL | EXT2_IMMUTABLE_FL))
		return e2map__fail(f->m, -EUCLEAN, "inode %u: immutable or "
				   "append flag on a symlink", f->ino);
	if ((flags & EXT4_ENCRYPT_FL) || !e2map__fast_symlink(f))
		return 0;
	if (!f->size || f->size >= EXT2_N_BLOCKS * 4 ||
	    strnlen(target, f->size + 1) != f->size)
		return e2map__fail(f->m, -EUCLEAN, "inode %u: invalid fast "
				   "symlink length %" PRIu64, f->ino, f->size);
	return 0;
}

/*
 * check_igot_inode: an EA inode (EXT4_EA_INODE_FL) is reached only through
 * its parent's xattr entry.  A name naming one is corrupt; a handle (our
 * "<INO>") is stale, as open_by_handle_at answers on 6.18; as an EA inode
 * it must carry the flag and no xattrs of its own.
 */
static int check_ea_flag(e2map_file_t *f, enum e2map_iget how)
{
	bool ea = f->inode->i_flags & EXT4_EA_INODE_FL;

	if (how == E2MAP_IGET_EA && !ea)
		return e2map__fail(f->m, -EUCLEAN, "inode %u: missing EA_INODE "
				   "flag", f->ino);
	if (how == E2MAP_IGET_EA && (f->xattr_in_inode || f->file_acl))
		return e2map__fail(f->m, -EUCLEAN, "inode %u: EA inode with "
				   "extended attributes", f->ino);
	if (how == E2MAP_IGET_HANDLE && ea)
		return e2map__fail(f->m, -ESTALE, "inode %u is an EA inode: "
				   "only its parent's xattr reaches it", f->ino);
	if (how == E2MAP_IGET_NAME && ea)
		return e2map__fail(f->m, -EUCLEAN, "inode %u: unexpected "
				   "EA_INODE flag", f->ino);
	return 0;
}

/*
 * The rest of __ext4_iget: the mode must be a known type (even for the
 * boot loader inode, made bad and then refused), casefolding
 * needs the feature, and the EA inode flag must fit how it was reached.
 */
static int check_mode(e2map_file_t *f, enum e2map_iget how)
{
	uint16_t mode = f->inode->i_mode;
	uint32_t flags = f->inode->i_flags;
	int err;

	if (LINUX_S_ISLNK(mode) && (err = check_symlink(f)) < 0)
		return err;
	if (!LINUX_S_ISREG(mode) && !LINUX_S_ISDIR(mode) &&
	    !LINUX_S_ISLNK(mode) && !LINUX_S_ISCHR(mode) &&
	    !LINUX_S_ISBLK(mode) && !LINUX_S_ISFIFO(mode) &&
	    !LINUX_S_ISSOCK(mode))
		return e2map__fail(f->m, -EUCLEAN, "inode %u: bogus i_mode "
				   "%o", f->ino, mode);
	if ((flags & EXT4_CASEFOLD_FL) &&
	    !ext2fs_has_feature_casefold(f->m->fs->super))
		return e2map__fail(f->m, -EUCLEAN, "inode %u: casefold flag "
				   "without casefold feature", f->ino);
	return check_ea_flag(f, how);
}

/* __ext4_iget: a checked in-memory inode, whatever its type. */
static int iget_init(e2map_t *m, ext2_ino_t ino, enum e2map_iget how,
		     e2map_file_t *f)
{
	int err;

	f->m = m;
	f->ino = ino;
	if (!(f->buf = malloc(m->bs)))
		return -ENOMEM;
	if ((err = e2map__inode_load(f, how == E2MAP_IGET_HANDLE)) < 0 ||
	    (err = pick_source(f)) < 0)
		return err;
	return check_mode(f, how);
}

int e2map__iget_how(e2map_t *m, ext2_ino_t ino, enum e2map_iget how,
		    e2map_file_t **out)
{
	e2map_file_t *f;
	int err;

	*out = NULL;
	if (!(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	if ((err = iget_init(m, ino, how, f)) < 0) {
		e2map_file_close(f);
		return err;
	}
	*out = f;
	return 0;
}

int e2map__iget(e2map_t *m, ext2_ino_t ino, bool by_number,
		e2map_file_t **out)
{
	return e2map__iget_how(m, ino, by_number ? E2MAP_IGET_HANDLE :
			       E2MAP_IGET_NAME, out);
}

/* The open itself (ext4_file_open, ext4_dir_open), PARENT 0 by number. */
static int open_checks(e2map_file_t *f, ext2_ino_t parent)
{
	e2map_file_t *dir = NULL;
	int err;

	if ((err = check_type(f)) < 0)
		return err;
	if (parent && (err = e2map__iget(f->m, parent, false, &dir)) < 0)
		return err;
	err = e2map__crypt_open(f, dir);
	e2map_file_close(dir);
	return err;
}

/* open(2) on top of the inode: only files and directories; cache=warm. */
static int file_new(e2map_t *m, ext2_ino_t ino, ext2_ino_t parent,
		    e2map_file_t **out)
{
	e2map_file_t *f;
	int err;

	if ((err = e2map__iget(m, ino, !parent, &f)) < 0)
		return err;
	if ((err = open_checks(f, parent)) < 0 ||
	    (m->warm && (err = e2map__warm(f)) < 0)) {
		e2map_file_close(f);
		return err;
	}
	*out = f;
	return 0;
}

int e2map_file_open_ino(e2map_t *m, uint64_t ino, e2map_file_t **out)
{
	uint32_t count;

	*out = NULL;
	if (!m)
		return -EINVAL;
	m->errmsg[0] = '\0';
	count = m->fs->super->s_inodes_count;
	if (ino < 1 || ino > count)
		return e2map__fail(m, -ESTALE, "no inode %llu: inode numbers "
				   "run from 1 to %u", (unsigned long long)ino,
				   count);
	return file_new(m, (ext2_ino_t)ino, 0, out);
}

/* The lookup part of open(2) and stat(2): PATH to its inode and parent. */
static int lookup_spec(e2map_t *m, const char *path, bool follow,
		       ext2_ino_t *ino, ext2_ino_t *parent)
{
	m->errmsg[0] = '\0';
	if (!*path)
		return e2map__fail(m, -ENOENT, "empty path");
	return e2map__lookup(m, path, follow, ino, parent);
}

int e2map_file_open_flags(e2map_t *m, const char *path, int flags,
			  e2map_file_t **out)
{
	ext2_ino_t ino, parent;
	int err;

	*out = NULL;
	if (!m || !path)
		return -EINVAL;
	if (flags & ~E2MAP_O_NOFOLLOW)
		return e2map__fail(m, -EINVAL, "unknown flags 0x%x",
				   (unsigned)(flags & ~E2MAP_O_NOFOLLOW));
	if ((err = lookup_spec(m, path, !(flags & E2MAP_O_NOFOLLOW), &ino,
			       &parent)) < 0)
		return err;
	return file_new(m, ino, parent, out);
}

int e2map_file_open(e2map_t *m, const char *path, e2map_file_t **out)
{
	return e2map_file_open_flags(m, path, 0, out);
}

int e2map_stat(e2map_t *m, const char *path, struct e2map_stat *st)
{
	e2map_file_t *f;
	ext2_ino_t ino, parent;
	int err;

	if (!m || !path || !st)
		return -EINVAL;
	if ((err = lookup_spec(m, path, true, &ino, &parent)) < 0 ||
	    (err = e2map__iget(m, ino, !parent, &f)) < 0)
		return err;
	err = e2map_file_stat(f, st);
	e2map_file_close(f);
	return err;
}

void e2map_file_close(e2map_file_t *f)
{
	if (!f)
		return;
	e2map__es_free(&f->es);
	e2map__blkset_free(&f->leaves);
	free(f->raw);
	free(f->buf);
	free(f);
}

/*
 * ext4_map_blocks' check_block_validity: a written mapping, from the
 * cache or the disk, must not reach outside the data area or into the
 * system zone.
 */
static int check_mapped(e2map_file_t *f, const struct es_entry *r)
{
	if (r->kind != E2MAP_RUN_DATA ||
	    e2map__inode_block_valid(f, r->pblk, r->len))
		return 0;
	return e2map__fail(f->m, -EUCLEAN, "inode %u: block %u mapped to "
			   "illegal block %" PRIu64, f->ino, r->lblk, r->pblk);
}

int e2map__map_blocks(e2map_file_t *f, uint32_t lblk, uint32_t n,
		      struct es_entry *out)
{
	struct es_entry hit;
	int err;

	if (n > INT32_MAX)
		n = INT32_MAX;
	if (e2map__es_lookup(&f->es, lblk, &hit)) {
		uint64_t left = (uint64_t)hit.lblk + hit.len - lblk;

		out->lblk = lblk;
		out->len = left < n ? (uint32_t)left : n;
		out->pblk = hit.pblk + (lblk - hit.lblk);
		out->kind = hit.kind;
		return check_mapped(f, out);
	}
	if (f->src == SRC_EXTENT)
		err = e2map__extent_map(f, lblk, n, out);
	else
		err = e2map__blockmap_map(f, lblk, n, out);
	return err < 0 ? err : check_mapped(f, out);
}

/* The inline mapping: all of it, or -ENOENT at or past its end. */
static int iomap_inline(e2map_file_t *f, uint64_t off, struct e2map_iomap *io)
{
	uint64_t len = f->inline_size < f->size ? f->inline_size : f->size;

	*io = (struct e2map_iomap){ 0, len, e2map__inline_addr(f),
				    E2MAP_RUN_INLINE, false };
	return off >= len ? -ENOENT : 0;
}

int e2map__iomap_report(e2map_file_t *f, uint64_t off, uint64_t len,
			struct e2map_iomap *io)
{
	unsigned bits = f->m->bits;
	uint64_t first = off >> bits, last = (off + len - 1) >> bits;
	struct es_entry r;
	int err;

	if (first > E2MAP_MAX_BLOCKS - 1)
		return -EINVAL;
	if (f->src == SRC_INLINE)
		return iomap_inline(f, off, io);
	if (last > E2MAP_MAX_BLOCKS - 1)
		last = E2MAP_MAX_BLOCKS - 1;
	r = (struct es_entry){ (uint32_t)first, (uint32_t)(last - first + 1), 0,
			       E2MAP_RUN_HOLE };
	/* Block maps end at s_bitmap_maxbytes: a hole, without a lookup. */
	if (f->src == SRC_EXTENT || off < f->m->s_bitmap_maxbytes) {
		if ((err = e2map__map_blocks(f, r.lblk, r.len, &r)) < 0)
			return err;
	}
	io->off = (uint64_t)r.lblk << bits;
	io->len = (uint64_t)r.len << bits;
	io->addr = r.pblk << bits;
	io->kind = r.kind;
	io->merged = f->src == SRC_BLOCKMAP;
	return 0;
}

/* cache=warm: everything the inode maps is cached before the first call. */
int e2map__warm(e2map_file_t *f)
{
	uint64_t lblk = 0, end = (f->maxbytes + f->m->bs - 1) >> f->m->bits;
	struct es_entry r;
	int err;

	if (f->src == SRC_EXTENT)
		return e2map__extent_precache(f, true);
	if (f->src != SRC_BLOCKMAP)
		return 0;
	while (lblk < end && lblk < E2MAP_MAX_BLOCKS) {
		uint64_t n = end - lblk;

		if ((err = e2map__blockmap_map(f, (uint32_t)lblk, n > INT32_MAX ?
					       INT32_MAX : (uint32_t)n, &r)) < 0)
			return err;
		lblk += r.len;
	}
	return 0;
}

int e2map_walk(e2map_file_t *f, uint64_t lblk, uint64_t nblk,
	       e2map_run_cb cb, void *payload)
{
	uint64_t end = lblk + nblk;
	struct e2map_iomap io;
	struct e2map_run run;
	int err;

	if (e2map__unmapped(f))
		return -EOPNOTSUPP;
	if (end < lblk || end > E2MAP_MAX_BLOCKS)
		end = E2MAP_MAX_BLOCKS;
	while (lblk < end) {
		err = e2map__iomap_report(f, lblk << f->m->bits,
					  (end - lblk) << f->m->bits, &io);
		if (err == -ENOENT)
			return 0;
		if (err < 0)
			return err;
		run = (struct e2map_run){ io.off >> f->m->bits,
			(io.len + f->m->bs - 1) >> f->m->bits,
			io.kind == E2MAP_RUN_INLINE ? io.addr : io.addr >> f->m->bits,
			io.kind };
		if ((err = cb(&run, payload)) != 0)
			return err;
		lblk = run.lblk + run.nblk;
	}
	return 0;
}

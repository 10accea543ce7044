/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * __ext4_iget: an inode loaded (inode.c) and checked as the kernel checks
 * it before trusting it, whatever its type, and how it was reached (a
 * name, a handle, an xattr).
 */
#include "inode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
 * Both the inline-data and the extents flag is corrupt before that, with
 * the inline_data feature or without it (measured on 6.18: the kernel
 * says so even where i_block holds no extent header).
 */
static int pick_source(e2map_file_t *f)
{
	uint32_t flags = f->inode->i_flags;
	uint16_t mode = f->inode->i_mode;

	if ((flags & EXT4_INLINE_DATA_FL) && (flags & EXT4_EXTENTS_FL))
		return e2map__fail(f->m, -EUCLEAN, "inode %u: inode has both "
				   "inline data and extents flags", f->ino);
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

/*
 * An in-memory inode with its raw copy and (WITH_BUF) its block buffer,
 * in one allocation: a whole-image pass opens every inode, and three
 * allocations each were a tenth of its time.  iput frees the one block;
 * in a pass's work, whose inodes are put back before it returns, it keeps
 * it for the next one instead (a block this size is beyond malloc's
 * per-thread cache).
 */
static e2map_file_t *file_alloc(e2map_t *m, bool with_buf)
{
	size_t head = (sizeof(e2map_file_t) + 15) & ~(size_t)15;
	size_t raw = (e2map__raw_size(m) + 15) & ~(size_t)15;
	bool pass = m->one_pass && with_buf;
	unsigned char *p = pass ? m->spare_inode : NULL;
	e2map_file_t *f;

	if (p)
		m->spare_inode = NULL;
	else if (!(p = malloc(head + raw + (with_buf ? m->bs : 0))))
		return NULL;
	f = (e2map_file_t *)p;
	memset(f, 0, sizeof(*f));
	f->raw = p + head;
	f->buf = with_buf ? p + head + raw : NULL;
	f->pass = pass;
	return f;
}

/* __ext4_iget: a checked in-memory inode, whatever its type. */
static int iget_init(e2map_t *m, ext2_ino_t ino, enum e2map_iget how,
		     e2map_file_t *f)
{
	int err;

	f->m = m;
	f->ino = ino;
	if ((err = e2map__inode_load(f, how == E2MAP_IGET_HANDLE)) < 0 ||
	    (err = pick_source(f)) < 0)
		return err;
	return check_mode(f, how);
}

/*
 * The image's inode cache: inodes that passed __ext4_iget, kept by number
 * and by how they were reached, as the kernel's icache keeps them on a
 * mount.  Each iget still gets a fresh in-memory inode (an empty
 * extent-status cache, no leaf read): only the checked on-disk copy is
 * shared.  Failures are not kept; they are rare and their messages are
 * remade.  Direct-mapped, so memory is fixed whatever the inode count.
 */
#define ICACHE_SLOTS 2048U

struct e2map_icache {
	e2map_file_t *slot[ICACHE_SLOTS];
	enum e2map_iget how[ICACHE_SLOTS];
};

/* DST takes SRC's checked on-disk state, keeping its own buffers, with
 * empty extent-status caches (seek's and read's) and no leaf read. */
static void copy_state(e2map_file_t *dst, const e2map_file_t *src)
{
	unsigned char *raw = dst->raw, *buf = dst->buf;
	bool pass = dst->pass;

	*dst = *src;
	memcpy(raw, src->raw, e2map__raw_size(src->m));
	dst->raw = raw;
	dst->inode = (struct ext2_inode_large *)raw;
	dst->buf = buf;
	dst->es = (struct escache){ 0 };
	dst->leaves = (struct blkset){ 0 };
	dst->rd_es = (struct escache){ 0 };
	dst->rd_leaves = (struct blkset){ 0 };
	dst->bounce = NULL;
	dst->pass = pass;
}

/* A fresh in-memory inode like T; the cache's own copies need no block
 * buffer (WITH_BUF false). */
static int clone(const e2map_file_t *t, bool with_buf, e2map_file_t **out)
{
	e2map_file_t *f = file_alloc(t->m, with_buf);

	if (!f)
		return -ENOMEM;
	copy_state(f, t);
	*out = f;
	return 0;
}

static unsigned slot_of(ext2_ino_t ino, enum e2map_iget how)
{
	return (ino * 3U + (unsigned)how) & (ICACHE_SLOTS - 1);
}

static int icache_get(e2map_t *m, ext2_ino_t ino, enum e2map_iget how,
		      e2map_file_t **out)
{
	struct e2map_icache *c = m->icache;
	unsigned i = slot_of(ino, how);

	if (!c || !c->slot[i] || c->slot[i]->ino != ino || c->how[i] != how)
		return -ENOENT;
	return clone(c->slot[i], true, out);
}

/* Keep a copy of F (in the evicted copy's memory when there is one); a
 * cache that cannot grow only costs speed. */
static void icache_put(e2map_t *m, const e2map_file_t *f, enum e2map_iget how)
{
	unsigned i = slot_of(f->ino, how);
	e2map_file_t **slot;

	if (!m->icache && !(m->icache = calloc(1, sizeof(*m->icache))))
		return;
	slot = &m->icache->slot[i];
	if (*slot)
		copy_state(*slot, f);
	else if (clone(f, false, slot) < 0)
		return;
	m->icache->how[i] = how;
}

void e2map__icache_free(e2map_t *m)
{
	unsigned i;

	free(m->spare_inode);
	m->spare_inode = NULL;
	if (!m->icache)
		return;
	for (i = 0; i < ICACHE_SLOTS; i++)
		e2map__iput(m->icache->slot[i]);
	free(m->icache);
	m->icache = NULL;
}

int e2map__iget_how(e2map_t *m, ext2_ino_t ino, enum e2map_iget how,
		    e2map_file_t **out)
{
	e2map_file_t *f;
	int err;

	*out = NULL;
	if ((err = icache_get(m, ino, how, out)) != -ENOENT)
		return err;
	if (!(f = file_alloc(m, true)))
		return -ENOMEM;
	if ((err = iget_init(m, ino, how, f)) < 0) {
		e2map__iput(f);
		return err;
	}
	if (!m->one_pass)
		icache_put(m, f, how);
	*out = f;
	return 0;
}

int e2map__iget(e2map_t *m, ext2_ino_t ino, bool by_number,
		e2map_file_t **out)
{
	return e2map__iget_how(m, ino, by_number ? E2MAP_IGET_HANDLE :
			       E2MAP_IGET_NAME, out);
}

/* iput: an in-memory inode is never shared (the cache hands out copies),
 * so giving it back frees it, with what its mappers and reads kept. */
void e2map__iput(e2map_file_t *f)
{
	if (!f)
		return;
	e2map__es_free(&f->es);
	e2map__blkset_free(&f->leaves);
	e2map__es_free(&f->rd_es);
	e2map__blkset_free(&f->rd_leaves);
	free(f->bounce);
	if (f->pass && !f->m->spare_inode)
		f->m->spare_inode = f;
	else
		free(f);	/* its raw copy and buffer with it */
}

int e2map__ino_check(e2map_t *m, uint64_t ino)
{
	uint32_t count = m->fs->super->s_inodes_count;

	if (ino < 1 || ino > count)
		return e2map__fail(m, -ESTALE, "no inode %llu: inode numbers "
				   "run from 1 to %u", (unsigned long long)ino,
				   count);
	return 0;
}

int e2map__iget_ino(e2map_t *m, uint64_t ino, e2map_file_t **out)
{
	int err;

	m->err.msg[0] = '\0';
	if ((err = e2map__ino_check(m, ino)) < 0)
		return err;
	return e2map__iget(m, (ext2_ino_t)ino, true, out);
}

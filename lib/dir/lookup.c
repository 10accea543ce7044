/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * From a file spec ("/dir/file" or "<INO>") to an inode number.  Path
 * lookup as the kernel does it on a fresh mount: e2map__find_entry in
 * each directory, ext4_lookup's checks on the entry, __ext4_iget on every
 * component (so a corrupt directory in the middle fails as the kernel
 * fails), symlinks followed in the middle and, unless O_NOFOLLOW, at the
 * end (absolute targets from the image's root, as in a chroot), and
 * d_splice_alias's refusal of a directory that is its own ancestor.
 */
#include "dir.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINKS 40		/* MAXSYMLINKS */

/* The directories from the root to the current one (dentry ancestors). */
struct walk {
	e2map_t *m;
	ext2_ino_t *chain;
	size_t n, cap;
	unsigned links;		/* followed so far: MAXSYMLINKS in all */
	bool follow;		/* a final symlink is followed (no O_NOFOLLOW) */
	ext2_ino_t parent;	/* where the last component was found */
	e2map_file_t *dir;	/* the last directory read, kept for reuse */
};

/*
 * The directory at the end of the chain, read once: each component
 * becomes the next lookup's directory without a second __ext4_iget.
 */
static int current_dir(struct walk *w, e2map_file_t **out)
{
	ext2_ino_t ino = w->chain[w->n - 1];
	int err;

	if (!w->dir || w->dir->ino != ino) {
		e2map__iput(w->dir);
		w->dir = NULL;
		if ((err = e2map__iget(w->m, ino, false, &w->dir)) < 0)
			return err;
	}
	*out = w->dir;
	return 0;
}

static int chain_push(struct walk *w, ext2_ino_t ino)
{
	if (e2map__grow((void **)&w->chain, &w->cap, w->n + 1,
			sizeof(*w->chain)) < 0)
		return -ENOMEM;
	w->chain[w->n++] = ino;
	return 0;
}

static bool in_chain(const struct walk *w, ext2_ino_t ino)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->chain[i] == ino)
			return true;
	return false;
}

/* ext4_valid_inum */
static bool valid_inum(const e2map_t *m, uint32_t ino)
{
	return ino == EXT2_ROOT_INO || (ino >= EXT2_FIRST_INO(m->fs->super) &&
					ino <= m->fs->super->s_inodes_count);
}

/*
 * fscrypt_prepare_lookup in an encrypted directory (no keys): the
 * context must be readable, and the name is a no-key name standing for
 * the ciphertext stored on disk.
 */
static int crypt_name(e2map_file_t *dir, struct e2map_name *n, unsigned char *disk)
{
	int err;

	if (!(dir->inode->i_flags & EXT4_ENCRYPT_FL))
		return 0;
	if ((err = e2map__crypt_dir_info(dir)) < 0)
		return err;
	if ((err = e2map__crypt_nokey_name(n->s, n->len, disk, n)) < 0)
		return e2map__fail(dir->m, err, "'%.*s' is not a no-key name",
				   (int)n->len, n->s);
	return 0;
}

/* ext4_lookup's checks on what an entry names, then its __ext4_iget. */
static int lookup_child(struct walk *w, e2map_file_t *dir, uint32_t ino,
			e2map_file_t **out)
{
	uint16_t mode;
	int err;

	if (!valid_inum(w->m, ino) || ino == dir->ino)
		return e2map__fail(w->m, -EUCLEAN, "directory %u: bad inode "
				   "number %u", dir->ino, ino);
	if ((err = e2map__iget(w->m, ino, false, out)) < 0)
		return err;
	mode = (*out)->inode->i_mode;
	if ((LINUX_S_ISDIR(mode) || LINUX_S_ISLNK(mode)) &&
	    !e2map__crypt_permitted(dir, *out))
		err = e2map__fail(w->m, -EPERM, "inode %u: inconsistent "
				  "encryption contexts", ino);
	/* d_splice_alias: a directory already on the path is a loop. */
	else if (LINUX_S_ISDIR(mode) && in_chain(w, ino))
		err = e2map__fail(w->m, -ELOOP, "directory %u is its own "
				  "ancestor", ino);
	if (err < 0) {
		e2map__iput(*out);
		*out = NULL;
	}
	return err;
}

/* The directory's index when it has one, else the kernel's search. */
static int find_entry(e2map_file_t *dir, const struct e2map_name *n,
		      uint32_t *ino)
{
	/* The index holds whole names; a long no-key name is a digest. */
	int r = n->digest ? -EAGAIN : e2map__dcache_find(dir, n, ino);

	if (r == -EAGAIN)
		return e2map__find_entry(dir, n, ino);
	if (r < 0)
		return r;
	return r ? 0 : e2map__no_entry(dir, n);
}

/* ext4_lookup of N in the current directory; *OUT is the child, checked. */
static int lookup_one(struct walk *w, const struct e2map_name *name,
		      e2map_file_t **out)
{
	unsigned char disk[256];
	struct e2map_name n = *name;
	e2map_file_t *dir;
	uint32_t ino;
	int err;

	if (n.len > E2MAP_NAME_LEN)
		return e2map__fail(w->m, -ENAMETOOLONG, "name too long");
	if ((err = current_dir(w, &dir)) < 0)
		return err;
	if ((err = crypt_name(dir, &n, disk)) == 0 &&
	    (err = find_entry(dir, &n, &ino)) == 0)
		err = lookup_child(w, dir, ino, out);
	return err;
}

/*
 * For tree walks, ext4_lookup of NAME in the open directory DIR, whose
 * ancestors from the root are CHAIN[0..N) (DIR itself last), in two
 * halves: the entry the search finds (*INO), then the checks on what it
 * names, as lstat(2) of DIR/NAME reaches it (*OUT, the child).
 */
int e2map__find_child(e2map_file_t *dir, const struct e2map_name *name,
		      uint32_t *ino)
{
	unsigned char disk[256];
	struct e2map_name nm = *name;
	int err;

	if ((err = crypt_name(dir, &nm, disk)) == 0)
		err = find_entry(dir, &nm, ino);
	return err;
}

int e2map__check_child(e2map_file_t *dir, const ext2_ino_t *chain, size_t n,
		       uint32_t ino, e2map_file_t **out)
{
	struct walk w = { dir->m, (ext2_ino_t *)chain, n, n, 0, false, 0,
			  dir };

	*out = NULL;
	return lookup_child(&w, dir, ino, out);
}

int e2map__lookup_child(e2map_file_t *dir, const ext2_ino_t *chain, size_t n,
			const struct e2map_name *name, e2map_file_t **out)
{
	uint32_t ino;
	int err;

	*out = NULL;
	if ((err = e2map__find_child(dir, name, &ino)) == 0)
		err = e2map__check_child(dir, chain, n, ino, out);
	return err;
}

/* ext4_get_link's block: the first block of a slow symlink. */
static int link_block(e2map_file_t *f)
{
	struct es_entry r;
	int err;

	if ((err = e2map__map_blocks(f, 0, 1, &r)) < 0)
		return err;
	if (r.kind == E2MAP_RUN_HOLE)
		return e2map__fail(f->m, -EUCLEAN, "inode %u: bad symlink",
				   f->ino);
	return e2map__read_block(f->m, r.pblk, f->buf);
}

/* ext4_encrypted_get_link, to follow: i_block of a fast link (or of an
 * inline one), else its block; the no-key name that resolves, as a rule,
 * to nothing. */
static int read_crypt_link(e2map_file_t *f, char **target)
{
	size_t len;
	int err;

	*target = NULL;
	if (f->src == SRC_INLINE || e2map__fast_symlink(f))
		return e2map__crypt_symlink(f, (const unsigned char *)
					    f->inode->i_block, 60, target,
					    &len);
	if ((err = link_block(f)) < 0)
		return err;
	return e2map__crypt_symlink(f, f->buf, f->m->bs, target, &len);
}

/* The target of symlink F (at most a block less one byte), malloc'd. */
static int read_link(e2map_file_t *f, char **target)
{
	uint64_t len = f->size < f->m->bs - 1 ? f->size : f->m->bs - 1;
	uint64_t tail = f->inline_size > 60 ? f->inline_size - 60 : 0;
	char *t;
	int err;

	*target = NULL;
	if (f->inode->i_flags & EXT4_ENCRYPT_FL)
		return read_crypt_link(f, target);
	if (!(t = calloc(1, len + 1)))
		return -ENOMEM;
	if (f->src == SRC_INLINE || e2map__fast_symlink(f)) {
		memcpy(t, f->inode->i_block, len < 60 ? len : 60);
		if (len > 60 && f->src == SRC_INLINE)
			memcpy(t + 60, f->raw + f->inline_value,
			       len - 60 < tail ? len - 60 : tail);
	} else if ((err = link_block(f)) < 0) {
		free(t);
		return err;
	} else {
		memcpy(t, f->buf, len);
	}
	*target = t;
	return 0;
}

/* ext4_encrypted_get_link: i_block for a fast symlink, else block 0. */
static int read_link_nokey(e2map_file_t *f, char **target, size_t *len)
{
	int err;

	if (e2map__fast_symlink(f))
		return e2map__crypt_symlink(f, (const unsigned char *)
					    f->inode->i_block, 60, target, len);
	if ((err = link_block(f)) < 0)
		return err;
	return e2map__crypt_symlink(f, f->buf, f->m->bs, target, len);
}

/* readlink_copy's length: the target up to its first NUL. */
int e2map__read_link(e2map_file_t *f, char **target, size_t *len)
{
	int err;

	if (f->inode->i_flags & EXT4_ENCRYPT_FL)
		return read_link_nokey(f, target, len);
	err = read_link(f, target);
	*len = err < 0 ? 0 : strlen(*target);
	return err;
}

static int walk_path(struct walk *w, const char *path, bool want_dir,
		     ext2_ino_t *ino);

/*
 * A symlink: walk its target from the link's directory (or the root).
 * In the middle of a path (WANT_DIR) it must end at a directory, which
 * becomes the current one; at the end *INO is what it names.
 */
static int follow(struct walk *w, e2map_file_t *link, bool want_dir,
		  ext2_ino_t *ino)
{
	char *target;
	int err;

	if (++w->links > MAX_LINKS)
		return e2map__fail(w->m, -ELOOP, "too many symbolic links");
	if ((err = read_link(link, &target)) < 0)
		return err;
	if (!*target)
		err = e2map__fail(w->m, -ENOENT, "empty symlink");
	else
		err = walk_path(w, target, want_dir, ino);
	free(target);
	return err;
}

/* A directory in the middle of a path becomes the current one. */
static int enter_dir(struct walk *w, e2map_file_t **f)
{
	int err;

	if (!LINUX_S_ISDIR((*f)->inode->i_mode))
		return e2map__fail(w->m, -ENOTDIR, "inode %u is not a "
				   "directory", (*f)->ino);
	if ((err = chain_push(w, (*f)->ino)) < 0)
		return err;
	e2map__iput(w->dir);
	w->dir = *f;		/* the next component's directory */
	*f = NULL;
	return 0;
}

/*
 * One component: "." and ".." move along the chain; a name is looked up,
 * then, unless it is the LAST, must be a directory (or a symlink to one).
 * A symlink as the LAST is followed too when W follows (no O_NOFOLLOW).
 */
static int step(struct walk *w, const struct e2map_name *n, bool last,
		ext2_ino_t *ino)
{
	e2map_file_t *f;
	int err = 0;

	if (n->len == 1 && n->s[0] == '.')
		return *ino = w->chain[w->n - 1], 0;
	if (n->len == 2 && !memcmp(n->s, "..", 2)) {
		if (w->n > 1)
			w->n--;
		return *ino = w->chain[w->n - 1], 0;
	}
	w->parent = w->chain[w->n - 1];
	if ((err = lookup_one(w, n, &f)) < 0)
		return err;
	*ino = f->ino;
	if (LINUX_S_ISLNK(f->inode->i_mode) && (!last || w->follow))
		err = follow(w, f, !last, ino);
	else if (!last)
		err = enter_dir(w, &f);
	e2map__iput(f);
	return err;
}

/*
 * link_path_walk: every component of PATH; *INO is the last one's.  With
 * WANT_DIR (a symlink body in the middle of a path) or a trailing slash,
 * the last component must be a directory, symlinks followed.
 */
static int walk_path(struct walk *w, const char *path, bool want_dir,
		     ext2_ino_t *ino)
{
	const char *p = path;
	int err;

	if (*p == '/')
		w->n = 1;
	*ino = w->chain[w->n - 1];
	while (*p) {
		struct e2map_name n = { .s = p };
		bool last;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n.s = p;
		n.len = (unsigned)strcspn(p, "/");
		p += n.len;
		last = !*p && !want_dir;
		if ((err = step(w, &n, last, ino)) < 0)
			return err;
		if (!last)
			*ino = w->chain[w->n - 1];
	}
	return 0;
}

static int lookup_path(e2map_t *m, const char *path, bool follow,
		       ext2_ino_t *ino, ext2_ino_t *parent)
{
	struct walk w = { .m = m, .follow = follow };
	int err;

	if ((err = chain_push(&w, EXT2_ROOT_INO)) == 0)
		err = walk_path(&w, path, false, ino);
	*parent = w.parent ? w.parent : EXT2_ROOT_INO;
	e2map__iput(w.dir);
	free(w.chain);
	return err;
}

/*
 * "<INO>" as debugfs reads it (strtoul base 0: 12, 0xc, 014).  Anything
 * else between the brackets is no inode number: -EINVAL.  A number that
 * names no inode (0, past s_inodes_count, negative, beyond 64 bits) is
 * -ESTALE, what open_by_handle_at answers for such a handle
 * (ext4_nfs_get_inode).
 */
static int parse_ino(e2map_t *m, const char *spec, ext2_ino_t *ino)
{
	uint32_t count = m->fs->super->s_inodes_count;
	const char *num = spec + 1, *digits = num + (*num == '-');
	unsigned long long v = 0;
	char *end = NULL;
	int len;

	errno = 0;
	if (isdigit((unsigned char)*digits))
		v = strtoull(digits, &end, 0);
	if (!end || strcmp(end, ">"))
		return e2map__fail(m, -EINVAL, "not an inode number: <N> "
				   "takes N from 1 to %u", count);
	len = end - num < 40 ? (int)(end - num) : 40;
	if (errno || digits != num || v < 1 || v > count)
		return e2map__fail(m, -ESTALE, "no inode %.*s: inode numbers "
				   "run from 1 to %u", len, num, count);
	*ino = (ext2_ino_t)v;
	return 0;
}

int e2map__lookup(e2map_t *m, const char *path, bool follow, ext2_ino_t *ino,
		  ext2_ino_t *parent)
{
	m->err.msg[0] = '\0';
	*parent = 0;
	if (!*path)
		return e2map__fail(m, -ENOENT, "empty path");
	if (path[0] == '<')
		return parse_ino(m, path, ino);
	return lookup_path(m, path, follow, ino, parent);
}

int e2map__lookup_inode(e2map_t *m, const char *path, bool follow,
			e2map_file_t **out)
{
	ext2_ino_t ino, parent;
	int err;

	if ((err = e2map__lookup(m, path, follow, &ino, &parent)) < 0)
		return err;
	return e2map__iget(m, ino, !parent, out);
}


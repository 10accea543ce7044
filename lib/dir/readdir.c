/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * readdir as getdents(2) lists a directory on a fresh mount (see below).
 */
#include "dirent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * readdir as getdents(2) lists a directory on a fresh mount.
 *
 * ext4_readdir: a directory is_dx_dir takes (dir_index, and the htree
 * flag, a single block, or inline data) is listed by ext4_dx_readdir in
 * hash order: each fill (ext4_htree_fill_tree) gathers the entries of the
 * leaves from a start hash into a tree sorted by (hash, minor hash) --
 * "." and ".." first from the htree root, with hashes 0 and 2 -- and the
 * next fill starts at the next index entry's hash.  A directory without
 * the flag is one block (or the inline area) whose entries, "." and ".."
 * among them, are hashed like any name.  A broken htree (ERR_BAD_DX_DIR)
 * and every other directory are listed block by block.
 */
struct rd_ent {
	uint32_t hash, minor, seq, ino, name;	/* name: offset in names */
	uint8_t len, ftype;
};

struct rd {
	struct dir d;
	unsigned version;		/* hash version, unsigned-adjusted */
	struct rd_ent *v;
	size_t n, cap, seq;
	char *names;
	size_t used, room;
	e2map_dirent_cb cb;
	void *payload;
	bool crypt;			/* encrypted, no key: no-key names */
};

/* ext4_htree_store_dirent, into an array sorted when the fill ends. */
static int rd_store(struct rd *r, uint32_t hash, uint32_t minor,
		    const unsigned char *de)
{
	if (e2map__grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0 ||
	    e2map__grow((void **)&r->names, &r->room, r->used + de[6] + 1,
			1) < 0)
		return -ENOMEM;
	memcpy(r->names + r->used, de + 8, de[6]);
	r->v[r->n++] = (struct rd_ent){ hash, minor, (uint32_t)r->seq++,
					le32(de), (uint32_t)r->used, de[6],
					de[7] };
	r->used += de[6];
	return 0;
}

/* Entry DE's hash (__ext4fs_dirhash); DX_BAD when it cannot be taken. */
static int rd_hash(const struct rd *r, const unsigned char *de,
		   uint32_t *hash, uint32_t *minor)
{
	if (e2map__dirhash(r->d.f->m->fs->super, r->version, r->d.cf,
			   (const char *)de + 8, de[6], hash, minor) < 0)
		return DX_BAD;
	return 0;
}

/* htree_dirblock_to_tree over BUF: entries from (START, SMINOR) on. */
static int rd_block(struct rd *r, const unsigned char *buf, size_t size,
		    uint32_t start, uint32_t sminor, size_t *count)
{
	size_t off = 0;
	size_t top = size - e2map__dir_rec_len(0, !r->d.csum && r->d.hash_in_dirent);
	uint32_t hash, minor;
	int err;

	for (; off < top; off += e2map__rec_len(buf + off, r->d.bs)) {
		const unsigned char *de = buf + off;

		if (!e2map__entry_ok(&r->d, de, off, size))
			break;	/* the rest of the block is ignored */
		if ((err = rd_hash(r, de, &hash, &minor)) < 0)
			return err;
		if (hash < start || (hash == start && minor < sminor) ||
		    !le32(de))
			continue;
		if ((err = rd_store(r, hash, minor, de)) < 0)
			return err;
		(*count)++;
	}
	return 0;
}

static bool rd_cmp_key(const struct rd_ent *x, const struct rd_ent *y)
{
	return x->hash != y->hash || x->minor != y->minor;
}

static int rd_cmp(const void *a, const void *b)
{
	const struct rd_ent *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * verify_dirent_name: getdents fails with EIO on an empty name or one
 * holding a "/" (a NUL byte passes: the reader sees the name end there).
 */
static bool rd_name_ok(const char *s, size_t len)
{
	return len && !memchr(s, '/', len);
}

static unsigned char rd_dtype(const struct rd *r, uint8_t ft)
{
	static const unsigned char dt[8] = { 0, 8, 4, 2, 6, 1, 12, 10 };

	if (!ext2fs_has_feature_filetype(r->d.f->m->fs->super) || ft >= 8)
		return 0;	/* DT_UNKNOWN */
	return dt[ft];
}

static int rd_short_name(const struct rd *r, int err)
{
	return e2map__fail(r->d.f->m, err, "directory %u: an encrypted name "
			   "too short to be ciphertext", r->d.f->ino);
}

static int rd_emit(struct rd *r, const char *name, size_t len, uint32_t ino,
		   uint8_t ftype, uint32_t hash, uint32_t minor)
{
	struct e2map_dirent de = { ino, rd_dtype(r, ftype), name, len };
	char nokey[E2MAP_NOKEY_NAME_MAX + 1];
	int n;

	if (r->crypt) {
		if ((n = e2map__crypt_disk_to_usr(hash, minor, name,
						  (unsigned)len, nokey)) < 0)
			return rd_short_name(r, n);
		de.name = nokey;
		de.len = (size_t)n;
	}
	/* filldir's check is of the name it is given: a no-key name. */
	if (!rd_name_ok(de.name, de.len))
		return e2map__fail(r->d.f->m, -EIO, "directory %u: a name "
				   "getdents refuses (empty, or with a /)",
				   r->d.f->ino);
	return r->cb(&de, r->payload);
}

/*
 * The fill's entries in tree order: by hash and minor hash, and among
 * equal ones the first stored, then the others newest first (a
 * collision is pushed right after the entry already in the tree).
 */
static int rd_flush(struct rd *r)
{
	size_t i, j;
	int err = 0;

	/* qsort of no entries (a NULL array) is undefined: a fill may be
	 * empty (corpus f_uninit_dir). */
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), rd_cmp);
	for (i = 0; i < r->n; i = j) {
		for (j = i + 1; j < r->n && !rd_cmp_key(&r->v[i], &r->v[j]);)
			j++;
		for (size_t a = i + 1, b = j - 1; a < b; a++, b--) {
			struct rd_ent t = r->v[a];

			r->v[a] = r->v[b];
			r->v[b] = t;
		}
	}
	/* htree_dirblock_to_tree makes the no-key names as it fills: a
	 * name that cannot have one fails the fill before any is listed. */
	for (i = 0; r->crypt && i < r->n; i++)
		if (!e2map__crypt_name_ok(r->names + r->v[i].name, r->v[i].len))
			return rd_short_name(r, -EUCLEAN);
	for (i = 0; i < r->n && !err; i++)
		err = rd_emit(r, r->names + r->v[i].name, r->v[i].len,
			      r->v[i].ino, r->v[i].ftype, r->v[i].hash,
			      r->v[i].minor);
	r->n = r->used = 0;
	return err;
}

/* A "." or ".." made up as the inline code makes them (no rec_len used). */
static void rd_fake(unsigned char *de, uint32_t ino, unsigned len)
{
	memset(de, 0, 12);
	memcpy(de, &(uint32_t){ ext2fs_cpu_to_le32(ino) }, 4);
	de[6] = (unsigned char)len;
	de[7] = EXT2_FT_DIR;
	de[8] = de[9] = '.';
	if (len == 1)
		de[9] = '\0';
}

/* Store DE when its hash is from (START, 0) on: the non-htree fills. */
static int rd_take(struct rd *r, const unsigned char *de, size_t *count)
{
	uint32_t hash, minor;
	int err;

	if ((err = rd_hash(r, de, &hash, &minor)) < 0)
		return err;
	if (!le32(de))
		return 0;
	(*count)++;
	return rd_store(r, hash, minor, de);
}

/* i_block and system.data as one area, as the inline code reads them. */
static unsigned char *rd_inline_area(const e2map_file_t *f)
{
	unsigned char *buf = malloc(f->inline_size);

	if (!buf)
		return NULL;
	memcpy(buf, f->inode->i_block, 60);
	if (f->inline_size > 60)
		memcpy(buf + 60, f->raw + f->inline_value, f->inline_size - 60);
	return buf;
}

/*
 * ext4_inlinedir_to_tree: "." and ".." made up, then the entries after
 * the parent's number, up to the first bad one.
 */
static int rd_inline(struct rd *r, size_t *count)
{
	e2map_file_t *f = r->d.f;
	size_t size = f->inline_size, off = 4;
	unsigned char fake[12], *buf = rd_inline_area(f);
	int err;

	if (!buf)
		return -ENOMEM;
	rd_fake(fake, f->ino, 1);
	err = rd_take(r, fake, count);
	rd_fake(fake, le32(buf), 2);
	if (!err)
		err = rd_take(r, fake, count);
	for (; !err && off + 8 <= size; off += e2map__rec_len(buf + off, r->d.bs)) {
		if (!e2map__entry_ok(&r->d, buf + off, off, size))
			break;
		err = rd_take(r, buf + off, count);
	}
	free(buf);
	return err;
}

/* A directory without the htree flag: block 0 (or the inline area). */
static int rd_unindexed(struct rd *r)
{
	unsigned char *b = r->d.f->buf;
	size_t count = 0;
	int err;

	if (r->d.f->src == SRC_INLINE)
		err = rd_inline(r, &count);
	else if ((err = e2map__read_dirblock(&r->d, 0, DIRENT_HTREE, b)) == 0)
		err = rd_block(r, b, r->d.bs, 0, 0, &count);
	return err ? err : rd_flush(r);
}

/* "." and ".." from the htree root, as the first fill stores them. */
static int rd_dots(struct rd *r, const unsigned char *root, uint32_t start,
		   size_t *count)
{
	size_t dotdot = e2map__rec_len(root, r->d.bs);
	int err = 0;

	if (start == 0 && !(err = rd_store(r, 0, 0, root)))
		(*count)++;
	/* A "." reaching past the block leaves ".." out: nothing to read. */
	if (!err && start <= 2 && dotdot + 8 <= r->d.bs &&
	    dotdot + 8 + root[dotdot + 6] <= r->d.bs &&
	    !(err = rd_store(r, 2, 0, root + dotdot)))
		(*count)++;
	return err;
}

/*
 * One ext4_htree_fill_tree from START: leaves until one has given names
 * and the next index hash does not continue a collision; *NEXT is that
 * hash, ~0 at the end.  FR and LEAF: five blocks of buffers.
 */
static int rd_fill(struct rd *r, struct frame *fr, unsigned char *leaf,
		   uint32_t start, uint32_t *next, size_t *count)
{
	const struct ext2_super_block *sb = r->d.f->m->fs->super;
	uint32_t hash = start;
	unsigned levels = 0;
	int err, more;

	*next = ~0U;
	if ((err = e2map__dx_probe(&r->d, fr, &levels, NULL, &hash)) < 0)
		return err;
	r->version = fr[0].b[28];
	r->version = e2map__hash_version(sb, r->version);
	if ((err = rd_dots(r, fr[0].b, start, count)) < 0)
		return err;
	do {
		err = e2map__read_dirblock(&r->d, dx_block(&fr[levels],
						    fr[levels].at),
				    DIRENT_HTREE, leaf);
		if (err || (err = rd_block(r, leaf, r->d.bs, start, 0,
					   count)) < 0)
			return err;
		hash = ~0U;
		if ((more = e2map__dx_next(&r->d, fr, levels, 1, &hash)) < 0)
			return more;
		*next = hash;
	} while (more && !(*count && !(hash & 1)));
	return 0;
}

/* ext4_dx_readdir: fill after fill until one finds nothing or the end. */
static int rd_indexed(struct rd *r)
{
	unsigned char *bufs = malloc(5 * (size_t)r->d.bs);
	struct frame fr[4];
	uint32_t start = 0, next;
	size_t count;
	int err;

	if (!bufs)
		return -ENOMEM;
	for (unsigned i = 0; i < 4; i++)
		fr[i] = (struct frame){ bufs + (size_t)i * r->d.bs, 0, 0, 0 };
	do {
		count = 0;
		r->n = r->used = 0;
		err = rd_fill(r, fr, bufs + 4 * (size_t)r->d.bs, start, &next,
			      &count);
		/* Past the first fill the kernel's fallback would read from
		 * a hash position as a byte offset: not followed. */
		if (err == DX_BAD && start)
			err = e2map__fail(r->d.f->m, -EUCLEAN, "directory %u: "
					  "htree broken past hash %#x",
					  r->d.f->ino, start);
		if (err || !count)
			break;
		err = rd_flush(r);
		start = next;
	} while (!err && next != ~0U);
	free(bufs);
	return err;
}

/* An entry of the linear readdir: its no-key name, where it needs one,
 * takes the hash an encrypted casefolded entry stores after its name. */
static int rd_emit_linear(struct rd *r, const unsigned char *de)
{
	const unsigned char *h = de + 8 + ((de[6] + 3U) & ~3U);
	bool stored = r->d.hash_in_dirent;

	return rd_emit(r, (const char *)de + 8, de[6], le32(de), de[7],
		       stored ? le32(h) : 0, stored ? le32(h + 4) : 0);
}

/* One block of the linear readdir: entries up to the first bad one. */
static int rd_linear_block(struct rd *r, const unsigned char *b,
			   uint64_t left)
{
	size_t off = 0, size = left < r->d.bs ? (size_t)left : r->d.bs;
	int err;

	while (off < size && off + 8 <= r->d.bs) {
		const unsigned char *de = b + off;

		if (!e2map__entry_ok(&r->d, de, off, r->d.bs))
			return 0;	/* on to the next block */
		off += e2map__rec_len(de, r->d.bs);
		if (le32(de) && (err = rd_emit_linear(r, de)) != 0)
			return err;
	}
	return 0;
}

/*
 * ext4_readdir's own loop: block by block below i_size, holes stepped
 * over, a block failing its checksum skipped.
 */
static int rd_linear(struct rd *r)
{
	e2map_file_t *f = r->d.f;
	uint64_t nblocks = (f->size + r->d.bs - 1) / r->d.bs, lblk = 0;
	struct es_entry run;
	int err = 0;

	if (nblocks > E2MAP_MAX_BLOCKS)
		nblocks = E2MAP_MAX_BLOCKS;
	while (lblk < nblocks && !err) {
		if ((err = e2map__map_blocks(f, (uint32_t)lblk, 1, &run)) < 0)
			return err;
		if (run.kind == E2MAP_RUN_HOLE) {
			lblk += run.len ? run.len : 1;
			continue;
		}
		if ((err = e2map__read_block(f->m, run.pblk, f->buf)) < 0)
			return err;
		if (!r->d.csum || e2map__csum_once(&r->d, run.pblk, false, f->buf))
			err = rd_linear_block(r, f->buf,
					      f->size - lblk * r->d.bs);
		lblk++;
	}
	return err;
}

/* ext4_read_inline_dir: ".", "..", then the entries in place. */
static int rd_inline_linear(struct rd *r)
{
	e2map_file_t *f = r->d.f;
	size_t size = f->inline_size, off = 4;
	unsigned char *buf = rd_inline_area(f);
	int err;

	if (!buf)
		return -ENOMEM;
	if ((err = rd_emit(r, ".", 1, f->ino, EXT2_FT_DIR, 0, 0)) == 0)
		err = rd_emit(r, "..", 2, le32(buf), EXT2_FT_DIR, 0, 0);
	for (; !err && off + 8 <= size; ) {
		const unsigned char *de = buf + off;

		if (!e2map__entry_ok(&r->d, de, off, size))
			break;
		off += e2map__rec_len(de, r->d.bs);
		if (le32(de))
			err = rd_emit(r, (const char *)de + 8, de[6], le32(de),
				      de[7], 0, 0);
	}
	free(buf);
	return err;
}

static bool rd_is_dx(const e2map_file_t *f)
{
	if (!ext2fs_has_feature_dir_index(f->m->fs->super))
		return false;
	return (f->inode->i_flags & EXT2_INDEX_FL) || f->src == SRC_INLINE ||
	       f->size / f->m->bs == 1;
}

int e2map__readdir(e2map_file_t *f, e2map_dirent_cb cb, void *payload)
{
	struct rd r = { .cb = cb, .payload = payload };
	const struct ext2_super_block *sb;
	int err = DX_BAD;

	if (!f || !cb)
		return -EINVAL;
	if (!LINUX_S_ISDIR(f->inode->i_mode))
		return e2map__fail(f->m, -ENOTDIR, "inode %u: not a directory",
				   f->ino);
	/* fscrypt_prepare_readdir: without the key, no-key names. */
	if ((err = e2map__crypt_dir_info(f)) < 0)
		return err;
	/* The inline readers store names as they lie (no fscrypt there). */
	r.crypt = (f->inode->i_flags & EXT4_ENCRYPT_FL) && f->src != SRC_INLINE;
	err = DX_BAD;
	sb = f->m->fs->super;
	r.d = e2map__dir_of(f);
	if ((f->inode->i_flags & EXT4_CASEFOLD_FL) &&
	    !(r.d.cf = ext2fs_load_nls_table(sb->s_encoding)))
		return e2map__fail(f->m, -EINVAL, "unknown filename encoding "
				   "%u", sb->s_encoding);
	r.version = sb->s_def_hash_version;
	r.version = e2map__hash_version(sb, r.version);
	if (rd_is_dx(f))
		err = f->inode->i_flags & EXT2_INDEX_FL && f->src != SRC_INLINE
			? rd_indexed(&r) : rd_unindexed(&r);
	if (err == DX_BAD)
		err = f->src == SRC_INLINE ? rd_inline_linear(&r)
					   : rd_linear(&r);
	free(r.v);
	free(r.names);
	return err;
}

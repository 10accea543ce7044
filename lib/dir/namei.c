/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding a name in one directory as __ext4_find_entry does on a fresh
 * mount: inline directories, the htree probe (htree.c), then the linear
 * scan the kernel falls back to; each block read once, through the same
 * mapping walk as file data, with the checks ext4_check_dir_entry makes
 * on every entry (entry.c).
 */
#include "dirent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RA_SIZE 8		/* NAMEI_RA_SIZE: blocks mapped per batch */

static int corrupt_entry(const struct dir *d)
{
	return e2map__fail(d->f->m, -EUCLEAN, "directory %u: corrupt entry",
			   d->f->ino);
}

/*
 * ext4_match: the same bytes, or in a casefolded directory what
 * generic_ci_match adds, the names equal once normalised and casefolded
 * (libext2fs carries the kernel's utf8 tables).  The comparison fails,
 * so the entry does not match, when either name is not valid UTF-8: such
 * names are found by their exact bytes only.
 */
/* fscrypt_match_name for a long no-key name: the first 149 bytes, then
 * the SHA-256 of the rest of the ciphertext NAME (LEN bytes). */
static bool digest_match(const unsigned char *name, unsigned len,
			 const struct e2map_name *n)
{
	struct e2map_sha256 s;
	unsigned char md[32];

	if (len <= n->len || memcmp(name, n->s, n->len))
		return false;
	e2map__sha256_init(&s);
	e2map__sha256_update(&s, name + n->len, len - n->len);
	e2map__sha256_final(&s, md);
	return !memcmp(md, n->digest, sizeof(md));
}

static bool name_match(const struct dir *d, const unsigned char *de,
		       const struct e2map_name *n)
{
	if (n->digest)
		return digest_match(de + 8, de[6], n);
	if (de[6] == n->len && !memcmp(de + 8, n->s, n->len))
		return true;
	return d->cf && ext2fs_casefold_cmp(d->cf, (const unsigned char *)n->s,
					    n->len, de + 8, de[6]) == 0;
}

/*
 * ext4_search_dir: 1 and *INO when found, 0 when not, -EUCLEAN for a
 * corrupt entry (the matching one fails the full check, or a zero
 * rec_len): what a lookup through such a block answers (verified on the
 * kernel; an htree lookup falls back to the linear scan instead).
 */
static int search_buf(const struct dir *d, const unsigned char *buf,
		      size_t size, const struct e2map_name *n, uint32_t *ino)
{
	size_t off = 0;
	uint32_t rlen;

	while (off + 8 < size) {
		const unsigned char *de = buf + off;

		if (off + 8 + de[6] <= size && le32(de) &&
		    name_match(d, de, n)) {
			if (!e2map__entry_ok(d, de, off, size))
				return corrupt_entry(d);
			*ino = le32(de);
			return 1;
		}
		if ((rlen = e2map__rec_len(de, d->bs)) == 0)
			return corrupt_entry(d);
		off += rlen;
	}
	return 0;
}

/* ext4_dx_find_entry: 1 found, 0 not, DX_BAD or -errno. */
static int dx_find(const struct dir *d, const struct e2map_name *n, uint32_t *ino,
		   unsigned char *bufs)
{
	struct frame fr[4];
	unsigned levels = 0, i;
	uint32_t hash, bhash;
	int r;

	for (i = 0; i < 4; i++)
		fr[i] = (struct frame){ bufs + (size_t)i * d->bs, 0, 0, 0 };
	/* A long no-key name brings its hash: fname_name() is NULL. */
	hash = n->hash;
	if ((r = e2map__dx_probe(d, fr, &levels, n->digest ? NULL : n,
				 &hash)) < 0)
		return r;
	do {
		unsigned char *leaf = bufs + 4 * (size_t)d->bs;

		r = e2map__read_dirblock(d, dx_block(&fr[levels], fr[levels].at),
				  DIRENT_HTREE, leaf);
		if (r < 0)
			return r;
		r = search_buf(d, leaf, d->bs, n, ino);
		if (r != 0)
			return r < 0 ? DX_BAD : 1;
		r = e2map__dx_next(d, fr, levels, hash, &bhash);
	} while (r == 1);
	return r;
}

/* Map one batch from BLOCK: mapping errors come before any search. */
static int map_batch(const struct dir *d, uint64_t block, uint32_t cnt,
		     uint64_t nblocks, uint64_t *pblk, uint64_t *hole_end)
{
	uint32_t i, hole;
	int err;

	for (i = 0; i < cnt; i++) {
		uint64_t b = block + i;

		if (b < *hole_end) {
			pblk[i] = 0;
			continue;
		}
		if ((err = e2map__dir_map(d, (uint32_t)b, (uint32_t)(nblocks - b),
				   &pblk[i], &hole)) < 0)
			return err;
		if (!pblk[i])
			*hole_end = b + hole;
	}
	return 0;
}

/*
 * __ext4_find_entry's linear scan: blocks mapped RA_SIZE at a time (a
 * mapping error anywhere in the batch fails the lookup), holes skipped;
 * batches wholly inside a hole are skipped without mapping each block.
 */
static int linear_find(const struct dir *d, const struct e2map_name *n,
		       uint32_t *ino, unsigned char *b)
{
	uint64_t nblocks = d->f->size / d->bs, pblk[RA_SIZE];
	uint64_t block = 0, hole_end = 0;
	uint32_t i, cnt;
	int err, r;

	if (nblocks > E2MAP_MAX_BLOCKS)
		nblocks = E2MAP_MAX_BLOCKS;
	while (block < nblocks) {
		cnt = nblocks - block < RA_SIZE ? (uint32_t)(nblocks - block) :
						  RA_SIZE;
		if ((err = map_batch(d, block, cnt, nblocks, pblk,
				     &hole_end)) < 0)
			return err;
		for (i = 0; i < cnt; i++) {
			if (!pblk[i])
				continue;
			if ((err = e2map__read_block(d->f->m, pblk[i], b)) < 0)
				return err;
			if (!e2map__dx_internal(d, (uint32_t)(block + i), b) &&
			    !e2map__csum_once(d, pblk[i], false, b))
				return e2map__fail(d->f->m, -EBADMSG, "directory "
						   "%u: block %u checksum does "
						   "not match", d->f->ino,
						   (uint32_t)(block + i));
			if ((r = search_buf(d, b, d->bs, n, ino)) != 0)
				return r;
		}
		block += cnt;
		if (hole_end > block)
			block = hole_end / RA_SIZE * RA_SIZE;
	}
	return 0;
}

/* ext4_find_inline_entry: i_block past the parent, then system.data. */
static int inline_find(const struct dir *d, const struct e2map_name *n,
		       uint32_t *ino)
{
	const e2map_file_t *f = d->f;
	int r;

	r = search_buf(d, (const unsigned char *)f->inode->i_block + 4, 56, n,
		       ino);
	if (r != 0 || f->inline_size <= 60)
		return r;
	return search_buf(d, f->raw + f->inline_value, f->inline_size - 60, n,
			  ino);
}

/*
 * A casefolded directory, as the mount sees it: the encoding for names
 * and hashes (an encrypted one is searched with no-key names, which the
 * kernel compares byte for byte without the key).  In strict mode
 * generic_ci_d_hash refuses a name that is not valid UTF-8 (it cannot be
 * casefolded) before the directory is read: -EINVAL.
 */
static int casefold_setup(struct dir *d, const struct e2map_name *n)
{
	const struct ext2_super_block *sb = d->f->m->fs->super;
	uint32_t fl = d->f->inode->i_flags;
	const unsigned char *s = (const unsigned char *)n->s;

	if (!(fl & EXT4_CASEFOLD_FL) || (fl & EXT4_ENCRYPT_FL))
		return 0;
	if (!(d->cf = ext2fs_load_nls_table(sb->s_encoding)))
		return e2map__fail(d->f->m, -EINVAL, "unknown filename "
				   "encoding %u", sb->s_encoding);
	/* Casefolding a name succeeds when it compares equal to itself. */
	if ((sb->s_encoding_flags & EXT4_ENC_STRICT_MODE_FL) &&
	    ext2fs_casefold_cmp(d->cf, s, n->len, s, n->len) != 0)
		return e2map__fail(d->f->m, -EINVAL, "'%.*s' is not valid "
				   "UTF-8 (strict casefolded directory %u)",
				   (int)n->len, n->s, d->f->ino);
	return 0;
}

/* __ext4_find_entry: 0 and *INO, or -ENOENT, or the error. */
int e2map__find_entry(e2map_file_t *dir, const struct e2map_name *n,
		      uint32_t *ino)
{
	e2map_t *m = dir->m;
	struct dir d = e2map__dir_of(dir);
	unsigned char *bufs;
	int r;

	if ((r = casefold_setup(&d, n)) < 0)
		return r;
	if (dir->src == SRC_INLINE) {
		r = inline_find(&d, n, ino);
	} else {
		if (!(bufs = malloc(5 * (size_t)m->bs)))
			return -ENOMEM;
		r = DX_BAD;
		if ((dir->inode->i_flags & EXT2_INDEX_FL) &&
		    ext2fs_has_feature_dir_index(m->fs->super))
			r = dx_find(&d, n, ino, bufs);
		if (r == DX_BAD)
			r = linear_find(&d, n, ino, bufs);
		free(bufs);
	}
	if (r == 1)
		return 0;
	if (r < 0)
		return r;
	return e2map__no_entry(dir, n);
}

int e2map__no_entry(e2map_file_t *dir, const struct e2map_name *n)
{
	return e2map__fail(dir->m, -ENOENT, "no entry '%.*s' in directory %u",
			   (int)n->len, n->s, dir->ino);
}

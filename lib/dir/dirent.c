/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding a name in one directory as __ext4_find_entry does on a fresh
 * mount: inline directories, the htree probe (dx_probe, with its checks
 * and checksums), then the linear scan the kernel falls back to; each
 * block read once, through the same mapping walk as file data, with the
 * checks ext4_check_dir_entry makes on every entry.
 */
#include "dir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RA_SIZE 8		/* NAMEI_RA_SIZE: blocks mapped per batch */
#define FT_DIR_CSUM 0xDE
#define TAIL_SIZE 12		/* struct ext4_dir_entry_tail */
#define DX_TAIL_SIZE 8		/* struct dx_tail */
#define DX_BAD (-100000)	/* ERR_BAD_DX_DIR: fall back to linear */


/* One directory being searched. */
struct dir {
	e2map_file_t *f;
	uint32_t bs;
	bool csum;		/* metadata_csum */
	bool hash_in_dirent;	/* encrypted + casefolded: 8 more bytes */
	/* casefolded (and not encrypted): the superblock's encoding */
	const struct ext2fs_nls_table *cf;
};

/* ext4_rec_len_from_disk */
static uint32_t rec_len(const unsigned char *de, uint32_t bs)
{
	uint32_t len = le16(de + 4);

	if (bs < 65536)
		return len;
	if (len == 65535 || len == 0)
		return bs;
	return (len & 65532) | ((len & 3) << 16);
}

/* ext4_dir_rec_len */
static uint32_t dir_rec_len(unsigned name_len, bool hash)
{
	return ((name_len + 8 + 3) & ~3U) + (hash ? 8 : 0);
}

/* is_fake_dir_entry: "." / ".." or the checksum tail carry no hash. */
static bool fake_entry(const unsigned char *de)
{
	return (de[6] > 0 && de[6] <= 2 && de[8] == '.' &&
		(de[9] == '.' || de[9] == '\0')) || de[7] == FT_DIR_CSUM;
}

/* __ext4_check_dir_entry, on a matching entry at OFF of a SIZE buffer. */
static bool entry_ok(const struct dir *d, const unsigned char *de, size_t off,
		     size_t size)
{
	bool hash = d->hash_in_dirent && !fake_entry(de);
	uint32_t rlen = rec_len(de, d->bs);
	size_t next = off + rlen;
	uint32_t tail = dir_rec_len(1, !d->csum && d->hash_in_dirent);

	if (rlen < dir_rec_len(1, hash) || rlen % 4 ||
	    rlen < dir_rec_len(de[6], hash) || next > size)
		return false;
	if (next + tail > size && next != size)
		return false;
	return le32(de) <= d->f->m->fs->super->s_inodes_count;
}

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
static bool name_match(const struct dir *d, const unsigned char *de,
		       const struct e2map_name *n)
{
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
			if (!entry_ok(d, de, off, size))
				return corrupt_entry(d);
			*ino = le32(de);
			return 1;
		}
		if ((rlen = rec_len(de, d->bs)) == 0)
			return corrupt_entry(d);
		off += rlen;
	}
	return 0;
}

/* The crc32c seed of the directory inode (ext4_iget's i_csum_seed). */
static uint32_t inode_seed(const e2map_file_t *f)
{
	uint32_t le_ino = ext2fs_cpu_to_le32(f->ino);
	uint32_t crc = e2map__crc32c(f->m->fs->csum_seed,
					(unsigned char *)&le_ino, 4);

	return e2map__crc32c(crc, (unsigned char *)&f->inode->i_generation,
				4);
}

/* ext4_dirblock_csum_verify: the tail sits at the very end of the block. */
static bool leaf_csum_ok(const struct dir *d, const unsigned char *b)
{
	const unsigned char *t = b + d->bs - TAIL_SIZE;

	if (!d->csum)
		return true;
	if (le32(t) || rec_len(t, d->bs) != TAIL_SIZE || t[6] ||
	    t[7] != FT_DIR_CSUM)
		return false;
	return e2map__crc32c(inode_seed(d->f), b, d->bs - TAIL_SIZE) ==
	       le32(t + 8);
}

/* get_dx_countlimit: where count/limit sit in a root or node block. */
static size_t dx_count_offset(const struct dir *d, const unsigned char *b)
{
	uint32_t rlen = rec_len(b, d->bs);

	if (rlen == d->bs)
		return 8;
	if (rlen != 12 || rec_len(b + 12, d->bs) != d->bs - 12 ||
	    le32(b + 24) || b[29] != 8)
		return 0;
	return 32;
}

/* ext4_dx_csum_verify */
static bool dx_csum_ok(const struct dir *d, const unsigned char *b)
{
	size_t coff = dx_count_offset(d, b), limit, count;
	unsigned char zero[4] = { 0 };
	uint32_t crc;

	if (!d->csum)
		return true;
	if (!coff)
		return false;
	limit = le16(b + coff);
	count = le16(b + coff + 2);
	if (coff + limit * 8 > d->bs - DX_TAIL_SIZE || count > limit)
		return false;
	crc = e2map__crc32c(inode_seed(d->f), b, coff + count * 8);
	crc = e2map__crc32c(crc, b + coff + limit * 8, 4);
	crc = e2map__crc32c(crc, zero, 4);
	return crc == le32(b + coff + limit * 8 + 4);
}

/*
 * Where logical block LBLK of the directory lies: 0 for a hole, and then
 * *HOLE is how many blocks the hole spans (at most N).
 */
static int dir_map(const struct dir *d, uint32_t lblk, uint32_t n,
		   uint64_t *pblk, uint32_t *hole)
{
	struct es_entry r;
	int err;

	if ((err = e2map__map_blocks(d->f, lblk, n, &r)) < 0)
		return err;
	*pblk = r.kind == E2MAP_RUN_HOLE ? 0 : r.pblk;
	*hole = r.kind == E2MAP_RUN_HOLE ? r.len : 0;
	return 0;
}

/*
 * __ext4_read_dirblock's buffer_verified: a block whose checksum passed
 * once is trusted from then on (the image never changes under us).
 */
static bool csum_once(const struct dir *d, uint64_t pblk, bool index,
		      const unsigned char *b)
{
	struct blkset *ok = &d->f->m->dir_ok;
	int err = 0;

	if (e2map__blkset_has(ok, pblk))
		return true;
	if (!(index ? dx_csum_ok(d, b) : leaf_csum_ok(d, b)))
		return false;
	e2map__blkset_add(ok, pblk, &err);
	return true;
}

enum dirblock_type { DIRENT_HTREE, INDEX };

/* ext4_read_dirblock for the htree walk: holes and checksums refused. */
static int read_dirblock(const struct dir *d, uint32_t lblk,
			 enum dirblock_type type, unsigned char *b)
{
	e2map_t *m = d->f->m;
	uint64_t pblk;
	uint32_t hole;
	bool dx;
	int err;

	if (lblk >= d->f->size / d->bs)
		return e2map__fail(m, -EUCLEAN, "directory %u: block %u past "
				   "i_size", d->f->ino, lblk);
	if ((err = dir_map(d, lblk, 1, &pblk, &hole)) < 0)
		return err;
	if (!pblk)
		return e2map__fail(m, -EUCLEAN, "directory %u: hole in the "
				   "htree at block %u", d->f->ino, lblk);
	if ((err = e2map__read_block(m, pblk, b)) < 0)
		return err;
	dx = (d->f->inode->i_flags & EXT2_INDEX_FL) &&
	     (lblk == 0 || rec_len(b, d->bs) == d->bs);
	if (!dx && type == INDEX)
		return e2map__fail(m, -EUCLEAN, "directory %u: leaf block %u "
				   "where an index was expected", d->f->ino,
				   lblk);
	if ((dx && type == INDEX && !csum_once(d, pblk, true, b)) ||
	    (!dx && !csum_once(d, pblk, false, b)))
		return e2map__fail(m, -EBADMSG, "directory %u: block %u "
				   "checksum does not match", d->f->ino, lblk);
	return 0;
}

/* One level of the htree walk (struct dx_frame). */
struct frame {
	unsigned char *b;
	size_t entries;		/* offset of the dx_entry array */
	unsigned at, count;
};

static uint32_t dx_hash(const struct frame *fr, unsigned i)
{
	return le32(fr->b + fr->entries + 8 * i);
}

static uint32_t dx_block(const struct frame *fr, unsigned i)
{
	return le32(fr->b + fr->entries + 8 * i + 4) & 0x0fffffff;
}

/* dx_root_limit / dx_node_limit */
static unsigned dx_limit(const struct dir *d, size_t used)
{
	return (unsigned)((d->bs - used - (d->csum ? DX_TAIL_SIZE : 0)) / 8);
}

/*
 * ext4_hash_info_init's s_hash_unsigned: the unsigned variants unless the
 * superblock says "signed" alone.  With neither flag the kernel goes by
 * its own char type, and kernels since 6.2 are built with -funsigned-char
 * on every architecture (before, x86 and most others hashed signed).
 */
static bool hash_unsigned(const struct ext2_super_block *sb)
{
	return (sb->s_flags & EXT2_FLAGS_UNSIGNED_HASH) ||
	       !(sb->s_flags & EXT2_FLAGS_SIGNED_HASH);
}

/* ext4fs_dirhash with the root's version and the superblock's seed. */
static int name_hash(const struct dir *d, unsigned version,
		     const struct e2map_name *n, uint32_t *hash)
{
	struct ext2_super_block *sb = d->f->m->fs->super;
	ext2_dirhash_t h, minor;

	if (version <= EXT2_HASH_TEA && hash_unsigned(sb))
		version += EXT2_HASH_LEGACY_UNSIGNED;
	/* ext4fs_dirhash: over the casefolded name when it has one. */
	if (ext2fs_dirhash2(version, n->s, (int)n->len, d->cf,
			    d->cf ? EXT4_CASEFOLD_FL : 0, sb->s_hash_seed, &h,
			    &minor))
		return DX_BAD;
	/* __ext4fs_dirhash keeps the end-of-directory marker free. */
	if (h == 0xfffffffe)
		h = 0xfffffffc;
	*hash = h;
	return 0;
}

/* dx_probe's checks of the root; DX_BAD sends the lookup to linear. */
static int dx_root(const struct dir *d, struct frame *fr, unsigned *levels,
		   const struct e2map_name *n, uint32_t *hash)
{
	const unsigned char *info = fr->b + 24;
	unsigned version = info[4], max;
	bool large = ext2fs_has_feature_largedir(d->f->m->fs->super);
	int err;

	if (version != EXT2_HASH_LEGACY && version != EXT2_HASH_HALF_MD4 &&
	    version != EXT2_HASH_TEA && version != EXT2_HASH_SIPHASH)
		return DX_BAD;
	if ((version == EXT2_HASH_SIPHASH) != d->hash_in_dirent)
		return DX_BAD;
	/* Hashes of encrypted + casefolded names come from the name: n/a. */
	if (d->hash_in_dirent)
		return DX_BAD;
	/* readdir probes with a hash of its own, not a name's. */
	if (n && (err = name_hash(d, version, n, hash)) < 0)
		return err;
	max = large ? 3 : 2;
	if ((info[7] & 1) || info[6] >= max)
		return DX_BAD;
	*levels = info[6];
	fr->entries = 24 + info[5];
	if (le16(fr->b + fr->entries) != dx_limit(d, 24 + info[5]))
		return DX_BAD;
	return 0;
}

/*
 * dx_probe: from the root down to the leaf's index entry for HASH.
 * FR[0..levels] are filled; errors other than DX_BAD are final.
 */
static int dx_probe(const struct dir *d, struct frame *fr, unsigned *levels,
		    const struct e2map_name *n, uint32_t *hash)
{
	uint32_t blocks[4] = { 0 };
	unsigned level = 0, i;
	int err;

	if ((err = read_dirblock(d, 0, INDEX, fr[0].b)) < 0 ||
	    (err = dx_root(d, &fr[0], levels, n, hash)) < 0)
		return err;
	for (;;) {
		struct frame *f = &fr[level];
		unsigned lo = 1, hi, limit = le16(f->b + f->entries);

		f->count = le16(f->b + f->entries + 2);
		if (!f->count || f->count > limit)
			return DX_BAD;
		hi = f->count - 1;
		while (lo <= hi && hi != ~0U) {
			unsigned mid = lo + (hi - lo) / 2;

			if (dx_hash(f, mid) > *hash)
				hi = mid - 1;
			else
				lo = mid + 1;
		}
		f->at = lo - 1;
		for (i = 0; i <= level; i++)
			if (blocks[i] == dx_block(f, f->at))
				return DX_BAD;
		if (++level > *levels)
			return 0;
		blocks[level] = dx_block(f, f->at);
		if ((err = read_dirblock(d, blocks[level], INDEX,
					 fr[level].b)) < 0)
			return err;
		fr[level].entries = 8;
		if (le16(fr[level].b + 8) != dx_limit(d, 8))
			return DX_BAD;
	}
}

/*
 * ext4_htree_next_block: 1 when the next leaf may hold HASH too (an odd
 * HASH: always, if there is one); *BHASH, the next index entry's hash.
 */
static int dx_next(const struct dir *d, struct frame *fr, unsigned levels,
		   uint32_t hash, uint32_t *bhash)
{
	int p = (int)levels, err;
	unsigned up = 0;

	while (++fr[p].at >= fr[p].count) {
		if (p == 0)
			return 0;
		up++;
		p--;
	}
	*bhash = dx_hash(&fr[p], fr[p].at);
	if (!(hash & 1) && (*bhash & ~1U) != hash)
		return 0;
	while (up--) {
		if ((err = read_dirblock(d, dx_block(&fr[p], fr[p].at), INDEX,
					 fr[p + 1].b)) < 0)
			return err;
		p++;
		fr[p].entries = 8;
		fr[p].at = 0;
		fr[p].count = le16(fr[p].b + 10);
	}
	return 1;
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
	if ((r = dx_probe(d, fr, &levels, n, &hash)) < 0)
		return r;
	do {
		unsigned char *leaf = bufs + 4 * (size_t)d->bs;

		r = read_dirblock(d, dx_block(&fr[levels], fr[levels].at),
				  DIRENT_HTREE, leaf);
		if (r < 0)
			return r;
		r = search_buf(d, leaf, d->bs, n, ino);
		if (r != 0)
			return r < 0 ? DX_BAD : 1;
		r = dx_next(d, fr, levels, hash, &bhash);
	} while (r == 1);
	return r;
}

/* is_dx_internal_node: blocks whose checksum the linear scan skips. */
static bool dx_internal(const struct dir *d, uint32_t lblk,
			const unsigned char *b)
{
	if (!(d->f->inode->i_flags & EXT2_INDEX_FL) ||
	    !ext2fs_has_feature_dir_index(d->f->m->fs->super))
		return false;
	return lblk == 0 || (!le32(b) && rec_len(b, d->bs) == d->bs);
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
		if ((err = dir_map(d, (uint32_t)b, (uint32_t)(nblocks - b),
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
			if (!dx_internal(d, (uint32_t)(block + i), b) &&
			    !csum_once(d, pblk[i], false, b))
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

static struct dir dir_of(e2map_file_t *f)
{
	uint32_t fl = f->inode->i_flags;

	return (struct dir){ f, f->m->bs,
		ext2fs_has_feature_metadata_csum(f->m->fs->super),
		(fl & EXT4_ENCRYPT_FL) && (fl & EXT4_CASEFOLD_FL), NULL };
}

/* __ext4_find_entry: 0 and *INO, or -ENOENT, or the error. */
int e2map__find_entry(e2map_file_t *dir, const struct e2map_name *n,
		      uint32_t *ino)
{
	e2map_t *m = dir->m;
	struct dir d = dir_of(dir);
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

/*
 * ext4_readdir over BUF (SIZE bytes): CB for each entry in use but "."
 * and "..", up to the first entry failing ext4_check_dir_entry, where the
 * kernel goes on with the next block.
 */
static int iterate_buf(const struct dir *d, const unsigned char *buf,
		       size_t size, e2map__dirent_cb cb, void *payload)
{
	size_t off = 0;
	int err;

	while (off + 8 <= size) {
		const unsigned char *de = buf + off;
		struct e2map_name n = { (const char *)de + 8, de[6] };

		if (!entry_ok(d, de, off, size))
			return 0;
		off += rec_len(de, d->bs);
		if (!le32(de) || (n.len == 1 && n.s[0] == '.') ||
		    (n.len == 2 && n.s[0] == '.' && n.s[1] == '.'))
			continue;
		/* Names getdents refuses (verify_dirent_name): none listed. */
		if (!n.len || memchr(n.s, '/', n.len) || memchr(n.s, 0, n.len))
			continue;
		if ((err = cb(le32(de), &n, payload)) != 0)
			return err;
	}
	return 0;
}


int e2map__dirblock_iterate(e2map_file_t *dir, uint32_t lblk, uint64_t pblk,
			    const unsigned char *b, e2map__dirent_cb cb,
			    void *payload)
{
	struct dir d = dir_of(dir);

	/* htree index blocks carry no dirent tail (is_dx_internal_node);
	 * without metadata_csum there is nothing to verify or remember. */
	if (d.csum && !dx_internal(&d, lblk, b) &&
	    !csum_once(&d, pblk, false, b))
		return e2map__fail(dir->m, -EBADMSG, "directory %u: block %u "
				   "checksum does not match", dir->ino, lblk);
	return iterate_buf(&d, b, d.bs, cb, payload);
}

int e2map__inline_dir_iterate(e2map_file_t *dir, e2map__dirent_cb cb,
			      void *payload)
{
	struct dir d = dir_of(dir);
	int err;

	err = iterate_buf(&d, (const unsigned char *)dir->inode->i_block + 4,
			  56, cb, payload);
	if (err || dir->inline_size <= 60)
		return err;
	return iterate_buf(&d, dir->raw + dir->inline_value,
			   dir->inline_size - 60, cb, payload);
}

/*
 * For the dentry index (dcache.c): CB(INO, NAME) for every entry
 * ext4_search_dir could match, in the order the linear scan meets them.
 * Only a directory the linear scan alone searches (no htree, no casefold,
 * no encryption, not inline) and only when it is clean -- every block
 * mapped, read, its checksum good, every entry a lookup could match
 * passing ext4_check_dir_entry -- for then the first entry of a name is
 * what every lookup of that name answers, and an absent name is -ENOENT.
 * Otherwise -EAGAIN: lookups must scan, and fail where the scan fails.
 */
static int list_block(const struct dir *d, const unsigned char *b,
		      e2map__dirent_cb cb, void *payload)
{
	size_t off = 0;
	uint32_t rlen;
	int err;

	while (off + 8 < d->bs) {
		const unsigned char *de = b + off;
		struct e2map_name n = { (const char *)de + 8, de[6] };

		if (off + 8 + de[6] <= d->bs && le32(de) && de[6]) {
			if (!entry_ok(d, de, off, d->bs))
				return -EAGAIN;
			if ((err = cb(le32(de), &n, payload)) != 0)
				return err;
		}
		if ((rlen = rec_len(de, d->bs)) == 0)
			return -EAGAIN;
		off += rlen;
	}
	return 0;
}

static bool linear_only(const e2map_file_t *f)
{
	uint32_t fl = f->inode->i_flags;

	if (f->src == SRC_INLINE ||
	    (fl & (EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL)))
		return false;
	return !(fl & EXT2_INDEX_FL) ||
	       !ext2fs_has_feature_dir_index(f->m->fs->super);
}

int e2map__dir_list_linear(e2map_file_t *dir, e2map__dirent_cb cb,
			   void *payload)
{
	struct dir d = dir_of(dir);
	uint64_t nblocks = dir->size / d.bs, lblk, pblk;
	uint32_t hole;
	int err = 0;

	if (!linear_only(dir) || nblocks > E2MAP_MAX_BLOCKS)
		return -EAGAIN;
	for (lblk = 0; lblk < nblocks && !err; lblk++) {
		if (dir_map(&d, (uint32_t)lblk, (uint32_t)(nblocks - lblk),
			    &pblk, &hole) < 0)
			return -EAGAIN;
		if (!pblk) {	/* the hole's end (a hole is never empty) */
			lblk += (hole ? hole : 1) - 1;
			continue;
		}
		if (e2map__read_block(dir->m, pblk, dir->buf) < 0 ||
		    !csum_once(&d, pblk, false, dir->buf))
			return -EAGAIN;
		err = list_block(&d, dir->buf, cb, payload);
	}
	return err;
}

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
};

/* ext4_htree_store_dirent, into an array sorted when the fill ends. */
static int rd_store(struct rd *r, uint32_t hash, uint32_t minor,
		    const unsigned char *de)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct rd_ent *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	if (r->used + de[6] > r->room) {
		size_t room = 2 * r->room + 256 + de[6];
		char *s = realloc(r->names, room);

		if (!s)
			return -ENOMEM;
		r->names = s;
		r->room = room;
	}
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
	const struct ext2_super_block *sb = r->d.f->m->fs->super;
	ext2_dirhash_t h, mi;

	if (ext2fs_dirhash2((int)r->version, (const char *)de + 8, de[6],
			    r->d.cf, r->d.cf ? EXT4_CASEFOLD_FL : 0,
			    sb->s_hash_seed, &h, &mi))
		return DX_BAD;
	*hash = h == 0xfffffffe ? 0xfffffffc : h;
	*minor = mi;
	return 0;
}

/* htree_dirblock_to_tree over BUF: entries from (START, SMINOR) on. */
static int rd_block(struct rd *r, const unsigned char *buf, size_t size,
		    uint32_t start, uint32_t sminor, size_t *count)
{
	size_t off = 0;
	size_t top = size - dir_rec_len(0, !r->d.csum && r->d.hash_in_dirent);
	uint32_t hash, minor;
	int err;

	for (; off < top; off += rec_len(buf + off, r->d.bs)) {
		const unsigned char *de = buf + off;

		if (!entry_ok(&r->d, de, off, size))
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

static int rd_emit(struct rd *r, const char *name, size_t len, uint32_t ino,
		   uint8_t ftype)
{
	struct e2map_dirent de = { ino, rd_dtype(r, ftype), name, len };

	if (!rd_name_ok(name, len))
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
	for (i = 0; i < r->n && !err; i++)
		err = rd_emit(r, r->names + r->v[i].name, r->v[i].len,
			      r->v[i].ino, r->v[i].ftype);
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
	for (; !err && off + 8 <= size; off += rec_len(buf + off, r->d.bs)) {
		if (!entry_ok(&r->d, buf + off, off, size))
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
	else if ((err = read_dirblock(&r->d, 0, DIRENT_HTREE, b)) == 0)
		err = rd_block(r, b, r->d.bs, 0, 0, &count);
	return err ? err : rd_flush(r);
}

/* "." and ".." from the htree root, as the first fill stores them. */
static int rd_dots(struct rd *r, const unsigned char *root, uint32_t start,
		   size_t *count)
{
	size_t dotdot = rec_len(root, r->d.bs);
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
	if ((err = dx_probe(&r->d, fr, &levels, NULL, &hash)) < 0)
		return err;
	r->version = fr[0].b[28];
	if (r->version <= EXT2_HASH_TEA && hash_unsigned(sb))
		r->version += EXT2_HASH_LEGACY_UNSIGNED;
	if ((err = rd_dots(r, fr[0].b, start, count)) < 0)
		return err;
	do {
		err = read_dirblock(&r->d, dx_block(&fr[levels],
						    fr[levels].at),
				    DIRENT_HTREE, leaf);
		if (err || (err = rd_block(r, leaf, r->d.bs, start, 0,
					   count)) < 0)
			return err;
		hash = ~0U;
		if ((more = dx_next(&r->d, fr, levels, 1, &hash)) < 0)
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

/* One block of the linear readdir: entries up to the first bad one. */
static int rd_linear_block(struct rd *r, const unsigned char *b,
			   uint64_t left)
{
	size_t off = 0, size = left < r->d.bs ? (size_t)left : r->d.bs;
	int err;

	while (off < size && off + 8 <= r->d.bs) {
		const unsigned char *de = b + off;

		if (!entry_ok(&r->d, de, off, r->d.bs))
			return 0;	/* on to the next block */
		off += rec_len(de, r->d.bs);
		if (le32(de) && (err = rd_emit(r, (const char *)de + 8, de[6],
					       le32(de), de[7])) != 0)
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
		if (!r->d.csum || csum_once(&r->d, run.pblk, false, f->buf))
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
	if ((err = rd_emit(r, ".", 1, f->ino, EXT2_FT_DIR)) == 0)
		err = rd_emit(r, "..", 2, le32(buf), EXT2_FT_DIR);
	for (; !err && off + 8 <= size; ) {
		const unsigned char *de = buf + off;

		if (!entry_ok(&r->d, de, off, size))
			break;
		off += rec_len(de, r->d.bs);
		if (le32(de))
			err = rd_emit(r, (const char *)de + 8, de[6], le32(de),
				      de[7]);
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

int e2map_readdir(e2map_file_t *f, e2map_dirent_cb cb, void *payload)
{
	struct rd r = { .cb = cb, .payload = payload };
	const struct ext2_super_block *sb;
	int err = DX_BAD;

	if (!f || !cb)
		return -EINVAL;
	if (!LINUX_S_ISDIR(f->inode->i_mode))
		return e2map__fail(f->m, -ENOTDIR, "inode %u: not a directory",
				   f->ino);
	if (f->inode->i_flags & EXT4_ENCRYPT_FL)
		return e2map__fail(f->m, -ENOKEY, "directory %u: encrypted "
				   "(no-key names are not listed)", f->ino);
	sb = f->m->fs->super;
	r.d = dir_of(f);
	if ((f->inode->i_flags & EXT4_CASEFOLD_FL) &&
	    !(r.d.cf = ext2fs_load_nls_table(sb->s_encoding)))
		return e2map__fail(f->m, -EINVAL, "unknown filename encoding "
				   "%u", sb->s_encoding);
	r.version = sb->s_def_hash_version;
	if (r.version <= EXT2_HASH_TEA && hash_unsigned(sb))
		r.version += EXT2_HASH_LEGACY_UNSIGNED;
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

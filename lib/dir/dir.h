/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The directory layer: entries as ext4_check_dir_entry checks them and
 * their checksums (entry.c), the one directory hash (hash.c), name lookup
 * in linear and htree directories (namei.c) and ext4_readdir's listing
 * (readdir.c), the names of large directories kept between calls
 * (dcache.c), path lookup from a spec to an inode (lookup.c) and the
 * names fscrypt shows without a key (crypt.c).
 */
#ifndef E2MAP_DIR_H
#define E2MAP_DIR_H

#include "inode.h"

/* The longest name an entry holds (EXT4_NAME_LEN). */
#define E2MAP_NAME_LEN 255

/* A name inside a directory: not NUL-terminated. */
struct e2map_name {
	const char *s;
	unsigned len;
	/* A long no-key name, as fscrypt_match_name takes it without the
	 * key: S is the ciphertext's first 149 bytes, DIGEST the SHA-256 of
	 * the rest, and the htree is probed with HASH, not with S's hash. */
	const unsigned char *digest;
	uint32_t hash;
};
/* NAME (LEN bytes) is "." or "..". */
static inline bool e2map__is_dot(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') ||
	       (len == 2 && name[0] == '.' && name[1] == '.');
}
/* hash.c: the hash VERSION (an htree root's, or s_def_hash_version) as
 * the mount uses it: signed or unsigned as ext4_hash_info_init decides. */
unsigned e2map__hash_version(const struct ext2_super_block *sb,
			     unsigned version);
/* hash.c: __ext4fs_dirhash of NAME under VERSION (from
 * e2map__hash_version), casefolded first where CF (the directory's
 * encoding) is set, the end-of-directory marker kept free; -EINVAL where
 * the name cannot be hashed. */
int e2map__dirhash(const struct ext2_super_block *sb, unsigned version,
		   const struct ext2fs_nls_table *cf, const char *name,
		   unsigned len, uint32_t *hash, uint32_t *minor);

/* namei.c: __ext4_find_entry, 0 and *INO, or -ENOENT, or the error. */
int e2map__find_entry(e2map_file_t *dir, const struct e2map_name *n,
		      uint32_t *ino);
/* A name's entry for iterate.c: inode INO is called NAME. */
typedef int (*e2map__dirent_cb)(uint32_t ino, const struct e2map_name *name,
				void *payload);

/* entry.c: ext4_rec_len_from_disk, the entry DE's rec_len in a block of
 * BS bytes (65535 or 0 in a 64 KiB block: the whole block) */
uint32_t e2map__rec_len(const unsigned char *de, uint32_t bs);

/*
 * slack.c: the names directory DIR still holds where no live entry is
 * (in a live entry's rec_len slack, or a block's first entry with its
 * inode cleared), in linear, htree (every leaf) and inline directories:
 * CB for each, a non-zero return stopping and returned.  INO is the
 * entry's (0: cleared), TYPE its file-type byte, PBLK the block (0: the
 * inline area, i_block then system.data) and OFF the entry's offset in
 * it; INO_LOST where the inode field was overwritten (by an index block's
 * last pair).  A block that cannot be mapped or read is passed over.
 */
struct e2map__slack {
	uint32_t ino;
	const char *name;
	unsigned len;
	unsigned type;
	uint64_t pblk;
	uint32_t off;
	bool ino_lost;		/* its inode field overwritten: INO is 0 */
};
typedef int (*e2map__slack_cb)(const struct e2map__slack *s, void *payload);
int e2map__dir_slack(e2map_file_t *dir, e2map__slack_cb cb, void *payload);

/* readdir.c: getdents(2)'s listing (e2map_file_readdir's contract, the file
 * layer's) */
int e2map__readdir(e2map_file_t *f, e2map_dirent_cb cb, void *payload);

int e2map__no_entry(e2map_file_t *dir, const struct e2map_name *n);
/* The names a linear-only, clean directory holds, in scan order (for
 * dcache.c); -EAGAIN for any other directory. */
int e2map__dir_list_linear(e2map_file_t *dir, e2map__dirent_cb cb,
			   void *payload);

/* lookup.c, for tree walks: NAME in the open DIR, whose ancestors from
 * the root are CHAIN[0..N), checked as lstat(2) of DIR/NAME; or in two
 * halves, the entry's inode number found, then what it names checked */
int e2map__lookup_child(e2map_file_t *dir, const ext2_ino_t *chain, size_t n,
			const struct e2map_name *name, e2map_file_t **out);
int e2map__find_child(e2map_file_t *dir, const struct e2map_name *name,
		      uint32_t *ino);
int e2map__check_child(e2map_file_t *dir, const ext2_ino_t *chain, size_t n,
		       uint32_t ino, e2map_file_t **out);

/* dcache.c: 1 and *INO, 0 (no such name), or -EAGAIN: search the directory */
int e2map__dcache_find(e2map_file_t *dir, const struct e2map_name *n,
		       uint32_t *ino);
void e2map__dcache_free(e2map_t *m);

/*
 * lookup.c: "<INO>" or a path (a final symlink followed when FOLLOW) to
 * its inode; *PARENT is the directory it was found in (0: none)
 */
int e2map__lookup(e2map_t *m, const char *path, bool follow, ext2_ino_t *ino,
		  ext2_ino_t *parent);
/* lookup.c: PATH's inode as a path call reaches it (FOLLOW: a final
 * symlink followed), loaded and checked; no open, no stat. */
int e2map__lookup_inode(e2map_t *m, const char *path, bool follow,
			e2map_file_t **out);
/*
 * lookup.c: readlink(2) of symlink F, malloc'd and NUL-terminated, its
 * length in *LEN (ext4_get_link: at most a block less one byte); for an
 * encrypted one the no-key target (e2map__crypt_symlink), *TARGET NULL
 * where e2map does not make it.
 */
int e2map__read_link(e2map_file_t *f, char **target, size_t *len);

/* crypt.c: fscrypt without keys */
int e2map__crypt_dir_info(e2map_file_t *dir);
bool e2map__crypt_permitted(e2map_file_t *parent, e2map_file_t *child);
int e2map__crypt_open(e2map_file_t *f, e2map_file_t *parent);
int e2map__crypt_nokey_name(const char *name, unsigned len,
			    unsigned char *disk, struct e2map_name *n);
/* The no-key name getdents gives ciphertext NAME (LEN bytes) with
 * dirhash HASH, MINOR into OUT (E2MAP_NOKEY_NAME_MAX + 1 bytes); its
 * length, or -EUCLEAN for a name too short to be ciphertext. */
#define E2MAP_NOKEY_NAME_MAX 252
/* Whether ciphertext NAME can have a no-key name: "." or "..", or at
 * least an AES block (FSCRYPT_FNAME_MIN_MSG_LEN). */
bool e2map__crypt_name_ok(const char *name, unsigned len);
int e2map__crypt_disk_to_usr(uint32_t hash, uint32_t minor, const char *name,
			     unsigned len, char *out);
/* The no-key target of encrypted symlink F from its data (MAX bytes),
 * malloc'd into *TARGET, its length in *LEN. */
int e2map__crypt_symlink(e2map_file_t *f, const unsigned char *caddr,
			 size_t max, char **target, size_t *len);

#endif /* E2MAP_DIR_H */

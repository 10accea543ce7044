/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fscrypt as a mount without keys sees it: the encryption context xattr
 * ("c", index 9) read as ext4_xattr_get does, the policy checks of
 * fscrypt_policy_from_context / fscrypt_supported_policy, no-key names
 * (base64url of the ciphertext name) for lookups, and the open-time
 * answers: -ENOKEY for an encrypted file, -EPERM for a policy mismatch.
 */
#include "dir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define INDEX_ENCRYPTION 9
#define CTX_MAX 40		/* sizeof(union fscrypt_context) */
#define CTX_V1 1
#define CTX_V2 2
#define COMPAT_STABLE_INODES 0x0800
/* struct fscrypt_nokey_name: dirhash[2], bytes[149], sha256[32] */
#define NOKEY_BYTES 8
#define NOKEY_SHA 157
#define NOKEY_MAX 189
#define NOKEY_MAX_ENCODED 252
/* policy flags */
#define PAD_MASK 0x03
#define DIRECT_KEY 0x04
#define IV_INO_LBLK_64 0x08
#define IV_INO_LBLK_32 0x10

/* ext4_get_context: the context bytes, or -errno. */
static int get_context(e2map_file_t *f, unsigned char ctx[CTX_MAX])
{
	return (int)e2map__xattr_get(f, INDEX_ENCRYPTION, "c", 1, ctx, CTX_MAX);
}

/* fscrypt_policy_from_context: version and size must agree. */
static bool context_ok(const unsigned char *ctx, int size)
{
	return (ctx[0] == CTX_V1 && size == 28) ||
	       (ctx[0] == CTX_V2 && size == 40);
}

/* fscrypt_valid_enc_modes_v1 / _v2 */
static bool modes_ok(unsigned c, unsigned n, bool v2)
{
	if ((c == 1 && n == 4) || (c == 5 && n == 6) || (c == 9 && n == 9))
		return true;
	return v2 && ((c == 1 && n == 10) || (c == 7 && n == 8));
}

/* supported_direct_key_modes: one mode with a 32-byte IV for both. */
static bool direct_key_ok(unsigned c, unsigned n)
{
	return c == n && (c == 9 || c == 10);
}

/* fscrypt_supported_policy */
static bool policy_supported(const e2map_file_t *f, const unsigned char *ctx)
{
	unsigned c = ctx[1], n = ctx[2], fl = ctx[3], log2 = ctx[4];
	bool stable = f->m->fs->super->s_feature_compat & COMPAT_STABLE_INODES;

	if (!modes_ok(c, n, ctx[0] == CTX_V2))
		return false;
	if ((fl & DIRECT_KEY) && !direct_key_ok(c, n))
		return false;
	if (ctx[0] == CTX_V1)
		return !(fl & ~(PAD_MASK | DIRECT_KEY)) &&
		       !(f->inode->i_flags & EXT4_CASEFOLD_FL);
	if (fl & ~(PAD_MASK | DIRECT_KEY | IV_INO_LBLK_64 | IV_INO_LBLK_32))
		return false;
	if (!!(fl & DIRECT_KEY) + !!(fl & IV_INO_LBLK_64) +
	    !!(fl & IV_INO_LBLK_32) > 1)
		return false;
	if (log2 && (log2 < 9 || log2 > f->m->bits))
		return false;
	if ((fl & (IV_INO_LBLK_64 | IV_INO_LBLK_32)) && !stable)
		return false;
	return !ctx[5] && !ctx[6] && !ctx[7];
}

/*
 * fscrypt_get_encryption_info(dir, true), as a lookup or readdir asks it:
 * only a context that cannot be read at all is an error.
 */
int e2map__crypt_dir_info(e2map_file_t *dir)
{
	unsigned char ctx[CTX_MAX];
	int r;

	if (!(dir->inode->i_flags & EXT4_ENCRYPT_FL))
		return 0;
	r = get_context(dir, ctx);
	if (r == -ERANGE)
		return 0;
	return r < 0 ? e2map__fail(dir->m, r, "inode %u: no encryption "
				   "context", dir->ino) : 0;
}

/* fscrypt_get_encryption_info on a mount with no keys: 0 or -errno. */
static int get_info(e2map_file_t *f)
{
	unsigned char ctx[CTX_MAX];
	int r;

	if ((r = get_context(f, ctx)) < 0)
		return e2map__fail(f->m, r, "inode %u: no encryption context",
				   f->ino);
	if (!context_ok(ctx, r) || !policy_supported(f, ctx))
		return e2map__fail(f->m, -EINVAL, "inode %u: unsupported "
				   "encryption policy", f->ino);
	return 0;
}

/* fscrypt_require_key on a mount with no keys. */
static int require_key(e2map_file_t *f)
{
	int err;

	if (!(f->inode->i_flags & EXT4_ENCRYPT_FL))
		return 0;
	if ((err = get_info(f)) < 0)
		return err;
	return e2map__fail(f->m, -ENOKEY, "inode %u is encrypted (no key)",
			   f->ino);
}

/* fscrypt_get_policy: the policy part of the context (no nonce). */
static int get_policy(e2map_file_t *f, unsigned char ctx[CTX_MAX])
{
	int r;

	if (!(f->inode->i_flags & EXT4_ENCRYPT_FL))
		return -ENODATA;
	if ((r = get_context(f, ctx)) < 0)
		return r;
	return context_ok(ctx, r) ? (ctx[0] == CTX_V1 ? 12 : 24) : -EINVAL;
}

/* fscrypt_has_permitted_context */
bool e2map__crypt_permitted(e2map_file_t *parent, e2map_file_t *child)
{
	uint16_t mode = child->inode->i_mode;
	unsigned char a[CTX_MAX], b[CTX_MAX];
	int la, lb;

	if (!LINUX_S_ISREG(mode) && !LINUX_S_ISDIR(mode) &&
	    !LINUX_S_ISLNK(mode))
		return true;
	if (!(parent->inode->i_flags & EXT4_ENCRYPT_FL))
		return true;
	if (!(child->inode->i_flags & EXT4_ENCRYPT_FL))
		return false;
	if ((la = get_policy(parent, a)) < 0 || (lb = get_policy(child, b)) < 0)
		return false;
	return la == lb && !memcmp(a, b, (size_t)la);
}

/*
 * The open itself: ext4_dir_open reads a directory's context,
 * fscrypt_file_open wants the key of a file, then the parent's policy.
 * PARENT is NULL when the file was opened by number.
 */
int e2map__crypt_open(e2map_file_t *f, e2map_file_t *parent)
{
	int err;

	if (LINUX_S_ISDIR(f->inode->i_mode))
		return e2map__crypt_dir_info(f);
	if ((err = require_key(f)) < 0)
		return err;
	if (parent && !e2map__crypt_permitted(parent, f))
		return e2map__fail(f->m, -EPERM, "inode %u: inconsistent "
				   "encryption context", f->ino);
	return 0;
}

/* fscrypt_base64url_decode: -1 on a bad character or leftover bits. */
static int base64url_decode(const char *s, unsigned len, unsigned char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	uint32_t ac = 0;
	int bits = 0, n = 0;
	unsigned i;

	for (i = 0; i < len; i++) {
		const char *p = s[i] ? strchr(tab, s[i]) : NULL;

		if (!p)
			return -1;
		ac = (ac << 6) | (uint32_t)(p - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(ac >> bits);
		}
	}
	return (ac & ((1U << bits) - 1)) ? -1 : n;
}

/* fscrypt_base64url_encode, without padding; the length written. */
static size_t base64url_encode(const unsigned char *in, size_t len, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	uint32_t ac = 0;
	size_t i, n = 0;
	int bits = 0;

	for (i = 0; i < len; i++) {
		ac = (ac << 8) | in[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[n++] = tab[(ac >> bits) & 0x3f];
		}
	}
	if (bits)
		out[n++] = tab[(ac << (6 - bits)) & 0x3f];
	return n;
}

/*
 * fscrypt_setup_filename without the key: what the no-key name NAME (LEN
 * bytes) stands for, into *N, whose bytes DISK (at least NOKEY_MAX bytes)
 * holds: the whole ciphertext, or, for the long form, its first 149
 * bytes, the SHA-256 of the rest and the dirhash.  0, or -ENOENT for a
 * name no entry can match.
 */
int e2map__crypt_nokey_name(const char *name, unsigned len,
			    unsigned char *disk, struct e2map_name *n)
{
	unsigned char raw[NOKEY_MAX + 3];
	int k;

	if (len > NOKEY_MAX_ENCODED)
		return -ENOENT;
	k = base64url_decode(name, len, raw);
	if (k < NOKEY_BYTES + 1 || (k > NOKEY_SHA && k != NOKEY_MAX))
		return -ENOENT;
	memcpy(disk, raw, (size_t)k);
	*n = (struct e2map_name){ (const char *)disk + NOKEY_BYTES,
				  (unsigned)k - NOKEY_BYTES, NULL, 0 };
	if (k == NOKEY_MAX) {
		n->len = NOKEY_SHA - NOKEY_BYTES;
		n->digest = disk + NOKEY_SHA;
		n->hash = ext2fs_le32_to_cpu(*(const uint32_t *)disk);
	}
	return 0;
}

/*
 * fscrypt_fname_disk_to_usr without the key: the no-key name of the
 * ciphertext NAME (LEN bytes) into OUT (NOKEY_MAX_ENCODED + 1 bytes, NUL
 * ended): base64url of struct fscrypt_nokey_name, the dirhash (HASH and
 * MINOR, or zeroes when HASH is 0) then the ciphertext, past 149 bytes
 * its first 149 and the SHA-256 of the rest.  "." and ".." stay as they
 * are.  Returns the length, or -EUCLEAN for a name shorter than an AES
 * block (FSCRYPT_FNAME_MIN_MSG_LEN).
 */
bool e2map__crypt_name_ok(const char *name, unsigned len)
{
	return len >= 16 || e2map__is_dot(name, len);
}

int e2map__crypt_disk_to_usr(uint32_t hash, uint32_t minor, const char *name,
			     unsigned len, char *out)
{
	unsigned char raw[NOKEY_MAX];
	struct e2map_sha256 s;
	size_t n;

	if (!e2map__crypt_name_ok(name, len))
		return -EUCLEAN;
	if (e2map__is_dot(name, len)) {
		memcpy(out, name, len);
		out[len] = '\0';
		return (int)len;
	}
	if (!hash)
		minor = 0;
	memcpy(raw, &(uint32_t){ ext2fs_cpu_to_le32(hash) }, 4);
	memcpy(raw + 4, &(uint32_t){ ext2fs_cpu_to_le32(minor) }, 4);
	if (len <= NOKEY_SHA - NOKEY_BYTES) {
		memcpy(raw + NOKEY_BYTES, name, len);
		n = NOKEY_BYTES + len;
	} else {
		memcpy(raw + NOKEY_BYTES, name, NOKEY_SHA - NOKEY_BYTES);
		e2map__sha256_init(&s);
		e2map__sha256_update(&s, name + (NOKEY_SHA - NOKEY_BYTES),
				     len - (NOKEY_SHA - NOKEY_BYTES));
		e2map__sha256_final(&s, raw + NOKEY_SHA);
		n = NOKEY_MAX;
	}
	n = base64url_encode(raw, n, out);
	out[n] = '\0';
	return (int)n;
}

/*
 * fscrypt_get_symlink without the key, on the link's data CADDR (MAX
 * bytes: i_block, or its block): fscrypt_get_encryption_info(inode,
 * false) must find a valid, supported policy (-EINVAL), the stored
 * length must be non-zero and fit (-EUCLEAN); the target is then the
 * no-key name with no dirhash (fscrypt_fname_disk_to_usr(inode, 0, 0)).
 */
int e2map__crypt_symlink(e2map_file_t *f, const unsigned char *caddr,
			 size_t max, char **target, size_t *len)
{
	unsigned char ctx[CTX_MAX];
	char out[E2MAP_NOKEY_NAME_MAX + 1];
	size_t clen;
	int r;

	*target = NULL;
	*len = 0;
	if ((r = get_context(f, ctx)) < 0 || !context_ok(ctx, r) ||
	    !policy_supported(f, ctx))
		return e2map__fail(f->m, -EINVAL, "inode %u: bad encryption "
				   "context", f->ino);
	clen = max >= 3 ? le16(caddr) : 0;
	/* A stored length of 1 or 2 would read as "." or "..": the kernel
	 * refuses below an AES block before it looks. */
	if (clen < 16 || clen + 2 > max)
		return e2map__fail(f->m, -EUCLEAN, "inode %u: bad encrypted "
				   "symlink", f->ino);
	r = e2map__crypt_disk_to_usr(0, 0, (const char *)caddr + 2,
				     (unsigned)clen, out);
	if (!(*target = strndup(out, (size_t)r)))
		return -ENOMEM;
	*len = (size_t)r;
	return 0;
}

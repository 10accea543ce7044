/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A file's digests as hashdeep, md5sum and sha256sum make them on the
 * mount: over the bytes read(2) returns, so over zeroes for holes and
 * unwritten ranges and nothing past EOF, through the one read path
 * (e2map_file_pread), and OpenSSL's EVP digests, all fed from one buffer.
 */
#include "file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

/* libcrypto, loaded by the first digest asked for (base/dl.c says why). */
#define EVP_FNS(X) \
	X(EVP_DigestFinal_ex) \
	X(EVP_DigestInit_ex) \
	X(EVP_DigestUpdate) \
	X(EVP_MD_CTX_free) \
	X(EVP_MD_CTX_new) \
	X(EVP_md5) \
	X(EVP_sha1) \
	X(EVP_sha256)
static struct evp_fns { EVP_FNS(E2MAP_DL_SLOT) } evp;
#define SYM(f) E2MAP_DL_SYM(struct evp_fns, f)
static const struct e2map_dlsym evp_syms[] = { EVP_FNS(SYM) };
#undef SYM
static struct e2map_dlib evp_lib = {
	.what = "a digest", .soname = E2MAP_SO_LIBCRYPTO, .package = "libssl3",
	.syms = evp_syms, .count = sizeof(evp_syms) / sizeof(evp_syms[0]),
	.table = &evp,
};

/* Large enough that a contiguous extent is one read from the image. */
#define DIGEST_BUF (1u << 20)

static const struct {
	unsigned bit;
	const char *name;
	size_t len;
} algs_known[] = {
	{ E2MAP_DIGEST_MD5, "md5", 16 },
	{ E2MAP_DIGEST_SHA1, "sha1", 20 },
	{ E2MAP_DIGEST_SHA256, "sha256", 32 },
};
#define NALGS (sizeof(algs_known) / sizeof(algs_known[0]))
#define ALL_ALGS (E2MAP_DIGEST_MD5 | E2MAP_DIGEST_SHA1 | E2MAP_DIGEST_SHA256)

static const EVP_MD *evp_of(unsigned bit)
{
	switch (bit) {
	case E2MAP_DIGEST_MD5: return evp.EVP_md5();
	case E2MAP_DIGEST_SHA1: return evp.EVP_sha1();
	default: return evp.EVP_sha256();
	}
}

static unsigned char *slot(struct e2map_digest *d, unsigned bit)
{
	switch (bit) {
	case E2MAP_DIGEST_MD5: return d->md5;
	case E2MAP_DIGEST_SHA1: return d->sha1;
	default: return d->sha256;
	}
}

struct digests {
	EVP_MD_CTX *ctx[NALGS];
	unsigned char *buf;
};

static void digests_free(struct digests *ds)
{
	for (size_t i = 0; i < NALGS; i++)
		if (ds->ctx[i])
			evp.EVP_MD_CTX_free(ds->ctx[i]);
	free(ds->buf);
}

/* A context for each digest asked for; libcrypto failing is memory. */
static int digests_init(struct digests *ds, unsigned algs)
{
	memset(ds, 0, sizeof(*ds));
	if (!(ds->buf = malloc(DIGEST_BUF)))
		return -ENOMEM;
	for (size_t i = 0; i < NALGS; i++) {
		if (!(algs & algs_known[i].bit))
			continue;
		if (!(ds->ctx[i] = evp.EVP_MD_CTX_new()) ||
		    !evp.EVP_DigestInit_ex(ds->ctx[i],
					   evp_of(algs_known[i].bit), NULL))
			return -ENOMEM;
	}
	return 0;
}

static int digests_update(struct digests *ds, size_t n)
{
	for (size_t i = 0; i < NALGS; i++)
		if (ds->ctx[i] && !evp.EVP_DigestUpdate(ds->ctx[i], ds->buf, n))
			return -ENOMEM;
	return 0;
}

static int digests_final(struct digests *ds, struct e2map_digest *out)
{
	for (size_t i = 0; i < NALGS; i++) {
		if (!ds->ctx[i])
			continue;
		if (!evp.EVP_DigestFinal_ex(ds->ctx[i],
					slot(out, algs_known[i].bit), NULL))
			return -ENOMEM;
		out->algs |= algs_known[i].bit;
	}
	return 0;
}

/* Every byte to EOF, as a read(2) loop gets them: the first error stops. */
static int read_all(e2map__pread_fn pread, void *src, struct digests *ds)
{
	int64_t off = 0, n;
	int err;

	while ((n = pread(src, ds->buf, DIGEST_BUF, (uint64_t)off)) > 0) {
		if ((err = digests_update(ds, (size_t)n)) < 0)
			return err;
		off += n;
	}
	return n < 0 ? (int)n : 0;
}

int e2map__digest(e2map__pread_fn pread, void *src, unsigned algs,
		  struct e2map_digest *out)
{
	struct digests ds;
	int err;

	if (!E2MAP__OUT_OK(out, E2MAP_DIGEST_VERSION) || !algs ||
	    (algs & ~ALL_ALGS))
		return -EINVAL;
	out->algs = 0;
	if ((err = e2map__dlib_load(&evp_lib)) < 0)
		return err;
	if ((err = digests_init(&ds, algs)) == 0 &&
	    (err = read_all(pread, src, &ds)) == 0)
		err = digests_final(&ds, out);
	digests_free(&ds);
	if (err < 0)
		out->algs = 0;
	return err;
}

static int64_t file_pread(void *f, void *buf, uint64_t len, uint64_t off)
{
	return e2map_file_pread(f, buf, (size_t)len, (int64_t)off);
}

int e2map_file_digest(e2map_file_t *f, unsigned algs, struct e2map_digest *out)
{
	return f ? e2map__digest(file_pread, f, algs, out) : -EINVAL;
}

int e2map_digest_hex(const struct e2map_digest *d, unsigned alg, char *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *v;
	size_t i, k;

	if (!d || !out)
		return -EINVAL;
	for (k = 0; k < NALGS && algs_known[k].bit != alg; k++)
		;
	if (k == NALGS || !(d->algs & alg))
		return -EINVAL;
	v = slot((struct e2map_digest *)d, alg);
	for (i = 0; i < algs_known[k].len; i++) {
		out[2 * i] = hex[v[i] >> 4];
		out[2 * i + 1] = hex[v[i] & 15];
	}
	out[2 * i] = '\0';
	return (int)(2 * i);
}

const char *e2map_digest_name(unsigned alg)
{
	for (size_t i = 0; i < NALGS; i++)
		if (algs_known[i].bit == alg)
			return algs_known[i].name;
	return NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_inode_xattrs and e2map_inode_getxattr against llistxattr/lgetxattr on
 * the kernel's mount, as recorded by scripts/record/xattr.sh: for every
 * path, the same names in the same order with the same values or errors
 * (or the listing's error), and the same answers for names no listing
 * shows (a prefix alone, system.data, absent ACLs, unknown prefixes, a
 * name past 255 bytes).
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "fixture.h"

/* Records in the recording's own form: NUL-ended. */
struct text {
	char *s;
	size_t len, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = 2 * (t->len + n + 1);
		t->s = realloc(t->s, t->cap);
		cr_assert(t->s);
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len++] = '\0';
}

static void put_value(struct text *t, const unsigned char *v, size_t n,
		      int err)
{
	static const char hex[] = "0123456789abcdef";
	char *rec;
	size_t i;

	if (err) {
		char e[40];

		snprintf(e, sizeof(e), "E %s", calls_errname(err));
		put(t, e, strlen(e));
		return;
	}
	cr_assert((rec = malloc(2 * n + 3)));
	memcpy(rec, "V ", 2);
	for (i = 0; i < n; i++) {
		rec[2 + 2 * i] = hex[v[i] >> 4];
		rec[3 + 2 * i] = hex[v[i] & 15];
	}
	put(t, rec, 2 + 2 * n);
	free(rec);
}

static void put_name(struct text *t, const char *tag, const char *name)
{
	char rec[300];

	snprintf(rec, sizeof(rec), "%s%s", tag, name);
	put(t, rec, strlen(rec));
}

static int add_xattr(const struct e2map_xattr *x, void *payload)
{
	cr_assert_eq(strlen(x->name), x->name_len);
	put_name(payload, "N ", x->name);
	put_value(payload, x->value, x->value_len, x->err);
	return 0;
}

/*
 * getxattr as a caller does it: the size, then the value; by path, and by
 * number where lstat gives one (an encrypted symlink's may fail).
 */
static void probe(e2map_t *m, const char *path, const char *name,
		  struct text *t)
{
	int64_t n = e2map_path_lgetxattr(m, path, name, NULL, 0);
	unsigned char *v = NULL;
	struct e2map_stat st = E2MAP_STAT_INIT;

	if (!e2map_path_lstat(m, path, &st))
		cr_expect_eq(e2map_inode_getxattr(m, st.ino, name, NULL, 0), n,
			     "%s %s: by number otherwise", path, name);
	if (n > 0) {
		cr_assert((v = malloc((size_t)n)));
		cr_assert_eq(e2map_path_lgetxattr(m, path, name, v, (size_t)n - 1),
			     -ERANGE, "%s: a short buffer fits", name);
		n = e2map_path_lgetxattr(m, path, name, v, (size_t)n);
	}
	put_name(t, "G ", name);
	put_value(t, v, n > 0 ? (size_t)n : 0, n < 0 ? (int)n : 0);
	free(v);
}

/* What e2map answers for PATH, the probes taken from the recording. */
static void answers(e2map_t *m, const char *path, const char *probes,
		    const char *pend, struct text *t)
{
	char rec[64];
	int err;

	err = e2map_path_lxattrs(m, path, add_xattr, t);
	if (err) {
		snprintf(rec, sizeof(rec), "L %s", calls_errname(err));
		put(t, rec, strlen(rec));
		return;
	}
	for (; probes < pend; probes += strlen(probes) + 1)
		if (!strncmp(probes, "G ", 2))
			probe(m, path, probes + 2, t);
}

/* N bytes of records for a message: NULs as '|', at most 200 bytes. */
static char *shown(const char *s, size_t n)
{
	static __thread char b[2][204];
	static __thread int which;
	char *o = b[which ^= 1];
	size_t i;

	for (i = 0; i < n && i < 200; i++)
		o[i] = s[i] ? s[i] : '|';
	strcpy(o + i, n > 200 ? "..." : "");
	return o;
}

/* IMG (unpacked) against DIR/NAME.xattr(.gz). */
static void compare_image(const char *img, const char *dir, const char *name)
{
	char path[4096], *text;
	size_t len, at = 0, end, paths = 0;
	e2map_t *m;

	snprintf(path, sizeof(path), "%s/%s.xattr", dir, name);
	cr_assert((text = calls_read_file(path, &len)), "no %s(.gz)", path);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s: %s", name,
		     e2map_errmsg(NULL));
	while (at < len) {
		struct text got = { 0 };
		const char *p = text + at + 2;

		cr_assert(!strncmp(text + at, "P ", 2), "%s: bad record", path);
		at += strlen(text + at) + 1;
		for (end = at; end < len && strncmp(text + end, "P ", 2);)
			end += strlen(text + end) + 1;
		answers(m, p, text + at, text + end, &got);
		cr_expect(got.len == end - at && !memcmp(got.s, text + at,
							  got.len),
			  "%s: %s: xattrs otherwise than on the mount:\n"
			  "  kernel %s\n  e2map  %s", name, p,
			  shown(text + at, end - at), shown(got.s, got.len));
		free(got.s);
		at = end;
		paths++;
	}
	cr_assert_gt(paths, 0);
	e2map_close(m);
	free(text);
}

static void compare(const char *name)
{
	char *img = fixture_image(name);

	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
	compare_image(img, fixture_testdata(), name);
	fixture_remove(img);
}

/* Every corpus image the kernel mounted and record/xattr.sh recorded. */
static void corpus(void)
{
	char dir[4096], src[8192], line[512], name[256];
	int images = 0;
	FILE *v;

	snprintf(dir, sizeof(dir), "%s/corpus", fixture_testdata());
	snprintf(src, sizeof(src), "%s/verdicts", dir);
	cr_assert((v = fopen(src, "r")));
	while (fgets(line, sizeof(line), v)) {
		char rec[8192], *img;
		FILE *probe;

		if (sscanf(line, "%255[^\t]\tmounted", name) != 1 ||
		    !strstr(line, "\tmounted\t"))
			continue;
		snprintf(rec, sizeof(rec), "%s/%s.xattr.gz", dir, name);
		if (!(probe = fopen(rec, "r")))
			continue;
		fclose(probe);
		cr_assert_eq(fixture_corpus_find(name, src, sizeof(src)), 0);
		cr_assert((img = fixture_decompress(src)));
		compare_image(img, dir, name);
		fixture_remove(img);
		images++;
	}
	fclose(v);
	cr_assert_gt(images, 90);
}

TestSuite(xattr, .timeout = 60);

Test(xattr, corpus, .timeout = 600) { corpus(); }
Test(xattr, every_kind_4k) { compare("xattr-4k"); }
Test(xattr, damaged_blocks_1k) { compare("xattr-1k"); }
Test(xattr, crypt_4k) { compare("crypt-4k"); }
Test(xattr, corrupt_4k) { compare("corrupt-4k"); }
Test(xattr, crafted_4k) { compare("crafted-4k"); }
Test(xattr, dirty_async_1k) { compare("dirty-async-1k"); }
Test(xattr, dirty_csum_4k) { compare("dirty-csum-4k"); }
Test(xattr, dirty_ext3_1k) { compare("dirty-ext3-1k"); }
Test(xattr, dirty_ext4_1k) { compare("dirty-ext4-1k"); }
Test(xattr, dirty_ext4_4k) { compare("dirty-ext4-4k"); }
Test(xattr, dirty_fc_1k) { compare("dirty-fc-1k"); }
Test(xattr, dirty_fc_4k) { compare("dirty-fc-4k"); }
Test(xattr, dirty_fc_badfirst_4k) { compare("dirty-fc-badfirst-4k"); }
Test(xattr, dirty_fc_badlast_4k) { compare("dirty-fc-badlast-4k"); }
Test(xattr, dirty_fc_inline_4k) { compare("dirty-fc-inline-4k"); }
Test(xattr, ext2_1k) { compare("ext2-1k"); }
Test(xattr, ext2_4k) { compare("ext2-4k"); }
Test(xattr, ext3_1k) { compare("ext3-1k"); }
Test(xattr, ext3_2k) { compare("ext3-2k"); }
Test(xattr, ext4_1k) { compare("ext4-1k"); }
Test(xattr, ext4_2k) { compare("ext4-2k"); }
Test(xattr, ext4_4k) { compare("ext4-4k"); }
Test(xattr, ext4_bigalloc) { compare("ext4-bigalloc"); }
Test(xattr, ext4_deep) { compare("ext4-deep"); }
Test(xattr, ext4_ea_inode) { compare("ext4-ea_inode"); }
Test(xattr, ext4_inline) { compare("ext4-inline"); }
Test(xattr, ext4_links) { compare("ext4-links"); }
Test(xattr, ext4_mixed) { compare("ext4-mixed"); }
Test(xattr, ext4_names) { compare("ext4-names"); }
Test(xattr, ext4_no64bit_nocsum) { compare("ext4-no64bit-nocsum"); }
Test(xattr, ext4_noextents) { compare("ext4-noextents"); }
Test(xattr, ext4_nohuge_1k) { compare("ext4-nohuge-1k"); }
Test(xattr, ext4_nohuge) { compare("ext4-nohuge"); }
Test(xattr, hash_neither_1k) { compare("hash-neither-1k"); }
Test(xattr, hash_signed_1k) { compare("hash-signed-1k"); }
Test(xattr, linear_1k) { compare("linear-1k"); }
Test(xattr, linear_nocsum_1k) { compare("linear-nocsum-1k"); }
Test(xattr, mount_bbitmap_in_itable) { compare("mount-bbitmap-in-itable"); }
Test(xattr, mount_itable_moved) { compare("mount-itable-moved"); }
Test(xattr, readdir_1k) { compare("readdir-1k"); }
Test(xattr, readdir_nocsum_1k) { compare("readdir-nocsum-1k"); }
Test(xattr, sample) { compare("sample"); }
Test(xattr, special_1k) { compare("special-1k"); }
Test(xattr, times_4k) { compare("times-4k"); }
Test(xattr, times128_1k) { compare("times128-1k"); }
Test(xattr, times_noextra_1k) { compare("times-noextra-1k"); }
Test(xattr, zone_1k_flex) { compare("zone-1k-flex"); }
Test(xattr, zone_4k) { compare("zone-4k"); }
Test(xattr, zone_bigalloc) { compare("zone-bigalloc"); }
Test(xattr, zone_ext3) { compare("zone-ext3"); }
Test(xattr, zone_meta_first) { compare("zone-meta-first"); }
Test(xattr, zone_meta) { compare("zone-meta"); }
Test(xattr, zone_noflex) { compare("zone-noflex"); }
Test(xattr, zone_sparse2) { compare("zone-sparse2"); }

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_file_readdir against getdents64 on the kernel's mount, as recorded by
 * scripts/record/readdir.sh: for every directory, the same entries (".",
 * ".." and the names, with inode numbers and d_type) in the same order,
 * and the same error where the kernel's listing failed.
 */
#include <criterion/criterion.h>

#include <e2map.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "fixture.h"

/* A listing, in the recording's own form: NUL-ended records. */
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

static int add_entry(const struct e2map_dirent *de, void *payload)
{
	char rec[300];
	int n = snprintf(rec, sizeof(rec), "%llu %u ",
			 (unsigned long long)de->ino, de->type);

	memcpy(rec + n, de->name, de->len);
	put(payload, rec, (size_t)n + de->len);
	return 0;
}

/* What e2map lists for DIR: the records after its "D" record. */
static void listing(e2map_t *m, const char *dir, struct text *t)
{
	e2map_file_t *f;
	char rec[64];
	int err = e2map_file_open(m, dir, &f);

	if (!err) {
		err = e2map_file_readdir(f, add_entry, t);
		e2map_file_close(f);
	}
	if (err) {
		snprintf(rec, sizeof(rec), "E %s", calls_errname(-err));
		put(t, rec, strlen(rec));
	}
}

static void compare(const char *name)
{
	char path[4096], *text, *img = fixture_image(name);
	size_t len, at = 0, end, dirs = 0;
	e2map_t *m;

	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
	snprintf(path, sizeof(path), "%s/%s.readdir", fixture_testdata(), name);
	cr_assert((text = calls_read_file(path, &len)), "no %s(.gz)", path);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", e2map_errmsg(NULL));
	while (at < len) {
		struct text got = { 0 };
		const char *dir = text + at + 2;

		cr_assert(!strncmp(text + at, "D ", 2), "%s: bad record", path);
		for (end = at + strlen(text + at) + 1;
		     end < len && strncmp(text + end, "D ", 2);)
			end += strlen(text + end) + 1;
		listing(m, dir, &got);
		at += strlen(text + at) + 1;
		cr_expect(got.len == end - at && !memcmp(got.s, text + at,
							  got.len),
			  "%s: %s listed otherwise than on the mount", name,
			  dir);
		free(got.s);
		at = end;
		dirs++;
	}
	cr_assert_gt(dirs, 0);
	e2map_close(m);
	fixture_remove(img);
	free(text);
}

TestSuite(readdir, .timeout = 60);

Test(readdir, ext4_4k_hash_order) { compare("ext4-4k"); }
Test(readdir, ext4_1k) { compare("ext4-1k"); }
Test(readdir, ext2_block_order) { compare("ext2-1k"); }
Test(readdir, inline_dirs) { compare("ext4-inline"); }
Test(readdir, odd_names) { compare("ext4-names"); }
Test(readdir, damaged_linear) { compare("linear-1k"); }
Test(readdir, signed_hash) { compare("hash-signed-1k"); }
Test(readdir, corrupt_4k) { compare("corrupt-4k"); }
Test(readdir, crafted_4k) { compare("crafted-4k"); }
Test(readdir, ext2_4k) { compare("ext2-4k"); }
Test(readdir, ext3_1k) { compare("ext3-1k"); }
Test(readdir, ext3_2k) { compare("ext3-2k"); }
Test(readdir, ext4_2k) { compare("ext4-2k"); }
Test(readdir, ext4_bigalloc) { compare("ext4-bigalloc"); }
Test(readdir, ext4_deep) { compare("ext4-deep"); }
Test(readdir, ext4_ea_inode) { compare("ext4-ea_inode"); }
Test(readdir, ext4_links) { compare("ext4-links"); }
Test(readdir, ext4_mixed) { compare("ext4-mixed"); }
Test(readdir, ext4_no64bit_nocsum) { compare("ext4-no64bit-nocsum"); }
Test(readdir, ext4_noextents) { compare("ext4-noextents"); }
Test(readdir, ext4_nohuge) { compare("ext4-nohuge"); }
Test(readdir, ext4_nohuge_1k) { compare("ext4-nohuge-1k"); }
Test(readdir, hash_neither_1k) { compare("hash-neither-1k"); }
Test(readdir, linear_nocsum_1k) { compare("linear-nocsum-1k"); }
Test(readdir, special_1k) { compare("special-1k"); }
Test(readdir, zone_1k_flex) { compare("zone-1k-flex"); }
Test(readdir, zone_4k) { compare("zone-4k"); }
Test(readdir, zone_bigalloc) { compare("zone-bigalloc"); }
Test(readdir, zone_ext3) { compare("zone-ext3"); }
Test(readdir, zone_meta) { compare("zone-meta"); }
Test(readdir, zone_meta_first) { compare("zone-meta-first"); }
Test(readdir, zone_noflex) { compare("zone-noflex"); }
Test(readdir, zone_sparse2) { compare("zone-sparse2"); }
Test(readdir, htree_bad_checksums) { compare("readdir-1k"); }
Test(readdir, htree_broken_root_and_names) { compare("readdir-nocsum-1k"); }

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_statfs against statfs(2) on the kernel's mount: every
 * testdata/NAME.statfs (scripts/record/statfs.sh: mount -o
 * loop,ro,noload, or loop,ro where noload is not taken) holds the
 * kernel's answer for testdata/NAME.img.gz, whose sha256 it names.  Each
 * field e2map reports is compared and named when it differs: type, bsize,
 * blocks (f_blocks: the block count less ext4_calculate_overhead, or a
 * bigalloc superblock's s_overhead_clusters), files, ffree, bfree, bavail
 * (the reserves taken off) and namelen; and the same through `e2map
 * mount`, as df reads it there.
 *
 * The meta_bg images of scripts/gen/mkmetabg.sh (s_first_meta_bg 0 to 3,
 * 1 and 4 KiB blocks, 32 and 64-byte descriptors, ext2, bigalloc, and a
 * recorded overhead the kernel ignores) must all be recorded.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <e2map.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "calls.h"
#include "fixture.h"

struct recording {
	char name[256];		/* NAME of NAME.statfs; "" = none found */
	bool corpus;		/* in testdata/corpus, of an e2fsprogs image */
};

static int cmp_names(const void *a, const void *b)
{
	const struct recording *x = a, *y = b;

	return x->corpus != y->corpus ? x->corpus - y->corpus :
	       strcmp(x->name, y->name);
}

static void free_params(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

/* The NAME.statfs files of DIR (CORPUS: testdata/corpus) onto V. */
static size_t add_dir(const char *dir, bool corpus, struct recording **vp,
		      size_t n, size_t *capp)
{
	struct recording *v = *vp, *nv;
	size_t cap = *capp;
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)) != NULL) {
		char *dot = strstr(de->d_name, ".statfs");

		if (!dot || strcmp(dot, ".statfs") ||
		    (size_t)(dot - de->d_name) >= sizeof(v->name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(nv = realloc(v, cap * sizeof(*v))))
				break;
			v = nv;
		}
		v[n].corpus = corpus;
		snprintf(v[n++].name, sizeof(v->name), "%.*s",
			 (int)(dot - de->d_name), de->d_name);
	}
	if (d)
		closedir(d);
	*vp = v;
	*capp = cap;
	return n;
}

static struct criterion_test_params recordings(void)
{
	struct recording *v = NULL, *nv;
	size_t n = 0, cap = 0;
	char corpus[4096];

	snprintf(corpus, sizeof(corpus), "%s/corpus", fixture_testdata());
	n = add_dir(fixture_testdata(), false, &v, n, &cap);
	n = add_dir(corpus, true, &v, n, &cap);
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	nv = cr_calloc(n ? n : 1, sizeof(*nv));
	if (n)
		memcpy(nv, v, n * sizeof(*v));
	free(v);
	return cr_make_param_array(struct recording, nv, n ? n : 1,
				   free_params);
}

ParameterizedTestParameters(statfs, image)
{
	return recordings();
}

ParameterizedTestParameters(statfs, fuse)
{
	return recordings();
}

/* The fields of a recording that e2map_statfs reports. */
struct want {
	uint64_t type, bsize, blocks, files, ffree, bfree, bavail, namelen;
	unsigned seen;		/* a bit a field */
	char sha[65];
};

static const struct field {
	const char *name;
	size_t off;
} fields[] = {
	{ "type", offsetof(struct want, type) },
	{ "bsize", offsetof(struct want, bsize) },
	{ "blocks", offsetof(struct want, blocks) },
	{ "files", offsetof(struct want, files) },
	{ "ffree", offsetof(struct want, ffree) },
	{ "bfree", offsetof(struct want, bfree) },
	{ "bavail", offsetof(struct want, bavail) },
	{ "namelen", offsetof(struct want, namelen) },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static void parse(const char *path, char *text, struct want *w)
{
	char *save = NULL, *line, key[32], *end;
	unsigned long long val = 0;
	int at;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *sha = strstr(line, " sha256 ");

		if (!strncmp(line, "# image: ", 9) && sha &&
		    strspn(sha + 8, "0123456789abcdef") == 64)
			snprintf(w->sha, sizeof(w->sha), "%.64s", sha + 8);
		if (line[0] == '#' || !line[0])
			continue;
		/* Unsigned, in full: a wrapped f_blocks is above 2^63. */
		cr_assert(sscanf(line, "%31s %n", key, &at) == 1 &&
			  (val = strtoull(line + at, &end, 0), end > line + at) &&
			  !*end, "%s: malformed line: %s", path, line);
		for (size_t i = 0; i < NFIELDS; i++)
			if (!strcmp(key, fields[i].name)) {
				*(uint64_t *)((char *)w + fields[i].off) = val;
				w->seen |= 1u << i;
			}
	}
	for (size_t i = 0; i < NFIELDS; i++)
		cr_assert(w->seen & (1u << i), "%s: no %s line", path,
			  fields[i].name);
	cr_assert(w->sha[0], "%s: no \"# image: NAME.img sha256 HEX\" line",
		  path);
}

static char *img;

static void remove_scratch(void)
{
	fixture_remove(img);
	img = NULL;
}

/* Recording R read into W, and its image unpacked into img (its digest
 * the recorded one). */
static void load(const struct recording *r, struct want *w)
{
	char path[2048], src[4096], sha[65], *text;

	cr_assert(r->name[0], "no %s/*.statfs (scripts/record/statfs.sh)",
		  fixture_testdata());
	snprintf(path, sizeof(path), "%s/%s%s.statfs", fixture_testdata(),
		 r->corpus ? "corpus/" : "", r->name);
	cr_assert((text = calls_read_file(path, NULL)), "cannot read %s", path);
	parse(path, text, w);
	free(text);
	if (!r->corpus)
		img = fixture_image(r->name);
	else if (fixture_corpus_find(r->name, src, sizeof(src)) == 0)
		img = fixture_decompress(src);
	cr_assert(img, "%s: no image %s.img.gz", r->name, r->name);
	cr_assert(fixture_sha256(img, sha) == 0, "sha256sum %s failed", img);
	cr_assert(!strcmp(sha, w->sha), "%s: the image is not the one recorded "
		  "(sha256 %s, recorded %s)", r->name, sha, w->sha);
}

static void compare(const char *name, const char *who, const struct want *w,
		    const uint64_t *got)
{
	for (size_t i = 0; i < NFIELDS; i++) {
		uint64_t want = *(const uint64_t *)((const char *)w +
						    fields[i].off);

		cr_expect(got[i] == want, "%s: %s: the kernel says %" PRIu64
			  ", %s %" PRIu64, name, fields[i].name, want, who,
			  got[i]);
	}
}

ParameterizedTest(struct recording *r, statfs, image, .timeout = 60,
		  .fini = remove_scratch)
{
	struct e2map_statfs st = E2MAP_STATFS_INIT;
	struct want w = { 0 };
	e2map_t *m = NULL;

	load(r, &w);
	cr_assert(e2map_open(img, NULL, &m) == 0, "e2map_open %s: %s", r->name,
		  e2map_errmsg(NULL));
	cr_assert(e2map_statfs(m, &st) == 0, "%s: e2map_statfs: %s", r->name,
		  e2map_errmsg(m));
	compare(r->name, "e2map", &w, (uint64_t[NFIELDS]){
		st.type, st.bsize, st.blocks, st.files, st.ffree, st.bfree,
		st.bavail, st.namelen });
	e2map_close(m);
}

/* What df reads through `e2map mount`: the same answers. */
ParameterizedTest(struct recording *r, statfs, fuse, .timeout = 60,
		  .fini = remove_scratch)
{
	char dir[] = "/tmp/e2map-statfs-XXXXXX";
	struct want w = { 0 };
	struct statfs sf;
	const char *why;
	pid_t pid;
	int err;

	load(r, &w);
	cr_assert(mkdtemp(dir));
	if ((why = fixture_fuse_mount(img, dir, "auto_unmount", &pid)) && strcmp(why, "timeout")) {
		rmdir(dir);
		cr_skip_test("%s", why);
	}
	cr_assert_null(why, "%s: the FUSE mount did not come up", r->name);
	err = statfs(dir, &sf);
	cr_expect_eq(fixture_fuse_unmount(dir, pid), 0, "%s: unmount", r->name);
	rmdir(dir);
	cr_assert_eq(err, 0, "%s: statfs on the FUSE mount", r->name);
	/* FUSE reports its own magic: the rest is e2map's. */
	compare(r->name, "e2map mount", &w, (uint64_t[NFIELDS]){
		w.type, (uint64_t)sf.f_bsize, sf.f_blocks, sf.f_files,
		sf.f_ffree, sf.f_bfree, sf.f_bavail, (uint64_t)sf.f_namelen });
}

/* The meta_bg layouts are recorded: a missing file would pass unnoticed. */
Test(statfs, meta_bg_recorded)
{
	static const char *const names[] = {
		"metabg-0-1k", "metabg-1-1k", "metabg-2-1k32", "metabg-3-1k",
		"metabg-1-4k", "metabg-2-ext2", "metabg-1-bigalloc",
		"metabg-0-bigalloc", "metabg-0-bigalloc-big", "ovh-bigalloc-rsv",
		"zone-meta",
		"zone-meta-first",
	};
	char path[2048];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.statfs", fixture_testdata(),
			 names[i]);
		cr_expect(access(path, R_OK) == 0, "no %s", path);
	}
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `e2map du` against GNU du on the kernel's mount, as recorded by
 * scripts/record/du.sh: for each recorded run the same stdout, the same
 * stderr (du's own words) and the same exit status.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calls.h"
#include "cli_run.h"
#include "fixture.h"

#define MAX_ARGS 16

/* "$ OPTS PATH<TAB>OUT<TAB>STATUS<TAB>ERR": ARGV for e2map, the sizes. */
static size_t parse_head(char *line, char *img, const char **argv,
			 size_t *out, int *status, size_t *err)
{
	char *tab = strchr(line, '\t'), *path, *tok, *save;
	size_t n = 0;

	cr_assert(tab && !strncmp(line, "$ ", 2), "bad record: %s", line);
	*tab = '\0';
	cr_assert_eq(sscanf(tab + 1, "%zu\t%d\t%zu", out, status, err), 3);
	path = strrchr(line, ' ');
	*path++ = '\0';
	argv[n++] = "du";
	for (tok = strtok_r(line + 2, " ", &save); tok && n < MAX_ARGS - 3;
	     tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n++] = img;
	argv[n++] = path;
	argv[n] = NULL;
	return n;
}

/* Stderr without e2map's own warning lines (a journal to recover),
 * which du on the mount has no counterpart for; in place. */
static void drop_warnings(struct cli_out *r)
{
	char *p = r->err, *nl;

	while ((p = strstr(p, "e2map: warning: ")) && (nl = strchr(p, '\n'))) {
		memmove(p, nl + 1, r->err + r->err_len - nl);
		r->err_len -= (size_t)(nl + 1 - p);
	}
}

/* Every recorded run of PATH (NAME.du) against e2map du on IMG. */
static void compare_file(const char *name, char *img, const char *path,
			 bool warnings)
{
	char *text;
	size_t len, at = 0, runs = 0;

	cr_assert((text = calls_read_file(path, &len)), "no %s(.gz)", path);
	while (at < len) {
		const char *argv[MAX_ARGS];
		char *nl = memchr(text + at, '\n', len - at), *head = text + at;
		size_t out, err, n;
		int status;
		struct cli_out r;

		cr_assert(nl, "%s: truncated", path);
		*nl = '\0';
		n = parse_head(head, img, argv, &out, &status, &err);
		at = (size_t)(nl - text) + 1;
		cr_assert_leq(at + out + err, len, "%s: truncated", path);
		cr_assert_eq(cli_run(argv, &r), 0);
		if (!warnings)
			drop_warnings(&r);
		cr_expect(r.out_len == out && !memcmp(r.out, text + at, out),
			  "%s: du %s %s: stdout differs:\n%s", name, argv[1],
			  argv[n - 1], r.out);
		cr_expect(r.err_len == err &&
			  !memcmp(r.err, text + at + out, err),
			  "%s: du %s: stderr differs:\n%s", name, argv[1], r.err);
		cr_expect_eq(r.status, status, "%s: du %s: status %d, not %d",
			     name, argv[1], r.status, status);
		cli_out_free(&r);
		at += out + err;
		runs++;
	}
	cr_assert_gt(runs, 0);
	free(text);
}

static void compare(const char *name)
{
	char path[4096], *img = fixture_image(name);

	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
	snprintf(path, sizeof(path), "%s/%s.du", fixture_testdata(), name);
	compare_file(name, img, path, true);
	fixture_remove(img);
}

TestSuite(du, .timeout = 120);

Test(du, corrupt_4k) { compare("corrupt-4k"); }
Test(du, crafted_4k) { compare("crafted-4k"); }
Test(du, crypt_4k) { compare("crypt-4k"); }
Test(du, ext2_1k) { compare("ext2-1k"); }
Test(du, ext2_4k) { compare("ext2-4k"); }
Test(du, ext3_1k) { compare("ext3-1k"); }
Test(du, ext3_2k) { compare("ext3-2k"); }
Test(du, ext4_1k) { compare("ext4-1k"); }
Test(du, ext4_2k) { compare("ext4-2k"); }
Test(du, ext4_4k) { compare("ext4-4k"); }
Test(du, ext4_bigalloc) { compare("ext4-bigalloc"); }
Test(du, ext4_deep) { compare("ext4-deep"); }
Test(du, ext4_ea_inode) { compare("ext4-ea_inode"); }
Test(du, ext4_inline) { compare("ext4-inline"); }
Test(du, ext4_links) { compare("ext4-links"); }
Test(du, ext4_mixed) { compare("ext4-mixed"); }
Test(du, ext4_names) { compare("ext4-names"); }
Test(du, ext4_no64bit_nocsum) { compare("ext4-no64bit-nocsum"); }
Test(du, ext4_noextents) { compare("ext4-noextents"); }
Test(du, ext4_nohuge) { compare("ext4-nohuge"); }
Test(du, ext4_nohuge_1k) { compare("ext4-nohuge-1k"); }
Test(du, hash_neither_1k) { compare("hash-neither-1k"); }
Test(du, hash_signed_1k) { compare("hash-signed-1k"); }
Test(du, linear_1k) { compare("linear-1k"); }
Test(du, linear_nocsum_1k) { compare("linear-nocsum-1k"); }
Test(du, readdir_1k) { compare("readdir-1k"); }
Test(du, readdir_nocsum_1k) { compare("readdir-nocsum-1k"); }
Test(du, special_1k) { compare("special-1k"); }
Test(du, zone_1k_flex) { compare("zone-1k-flex"); }
Test(du, zone_4k) { compare("zone-4k"); }
Test(du, zone_bigalloc) { compare("zone-bigalloc"); }
Test(du, zone_ext3) { compare("zone-ext3"); }
Test(du, zone_meta) { compare("zone-meta"); }
Test(du, zone_meta_first) { compare("zone-meta-first"); }
Test(du, zone_noflex) { compare("zone-noflex"); }
Test(du, zone_sparse2) { compare("zone-sparse2"); }

/*
 * The progress line: drawn on stderr when it is a terminal (a pty here,
 * stdout a pipe), wiped at the end; never with -q.
 */
Test(du, progress_on_a_terminal)
{
	char *img = fixture_image("ext4-4k"), *s;
	const char *argv[] = { "e2map", "du", "-s", img, NULL, NULL };
	size_t len;

	cr_assert(img);
	s = cli_run_pty_or_skip(argv, &len);
	cr_expect(strstr(s, "\re2map du: 0/") && strstr(s, " inodes (0%)"),
		  "no progress line: %s", s);
	cr_expect(len >= 4 && !strcmp(s + len - 4, "\r\033[K"),
		  "not wiped at the end: %s", s);
	free(s);
	argv[2] = "-sq";
	argv[3] = img;
	s = cli_run_pty_or_skip(argv, &len);
	cr_expect_eq(len, 0, "-q drew: %s", s);
	free(s);
	fixture_remove(img);
}

/*
 * The e2fsprogs corpus (testdata/corpus/NAME.du, recorded the same way on
 * the 85 mounted images record/du.sh could walk), encrypted directories
 * (no-key names) among them.
 */
Test(du, corpus_matches_the_mount, .timeout = 1800)
{
	char file[4096 + 512], **paths;
	int n, i, done = 0;

	n = fixture_corpus_list(&paths);
	cr_assert_geq(n, 113);
	for (i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/') + 1;
		char name[256], *img;
		FILE *f;

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."),
			 base);
		snprintf(file, sizeof(file), "%s/corpus/%s.du.gz",
			 fixture_testdata(), name);
		if (!(f = fopen(file, "r")))
			continue;
		fclose(f);
		cr_assert(img = fixture_decompress(paths[i]));
		file[strlen(file) - 3] = '\0';
		compare_file(name, img, file, false);
		fixture_remove(img);
		done++;
	}
	fixture_corpus_free(paths, n);
	cr_expect_geq(done, 85, "only %d corpus recordings", done);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scan records against the kernel's mount, as scripts/record/scan.sh
 * recorded it (NAME.scan: scripts/record/scan-kernel.py gives the format), held
 * to e2map_inode_record and the path table by scan_cmp.c; the body file,
 * PATH, csv, the table and the progress line of `e2map scan`; and the
 * e2fsprogs corpus through it.
 */
#include <criterion/criterion.h>

#include <jansson.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calls.h"
#include "cli_run.h"
#include "fixture.h"
#include "scan_cmp.h"
#include "scan_rec.h"

#include "e2map.h"

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay(const char *name)
{
	char *img = fixture_image(name), path[4096], *text = NULL;
	struct scan_diffs d = { name, NULL, 0, 20 };
	struct scan_kernel k;
	size_t len = 0;
	e2map_t *m;

	cr_assert(img, "cannot unpack testdata/%s.img.gz", name);
	snprintf(path, sizeof(path), "%s/%s.scan", fixture_testdata(), name);
	cr_assert_eq(scan_kernel_load(path, &k), 0, "cannot read %s(.gz)",
		     path);
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert(d.out = open_memstream(&text, &len));
	/* Clusters, and xattr values charged to their parents, are in
	 * st_blocks beside the data and the tree. */
	scan_compare(m, &k, !strstr(name, "bigalloc") &&
		     !strstr(name, "ea_inode"), &d);
	fclose(d.out);
	cr_expect_eq(d.n, 0, "%zu differences from the mount:\n%s", d.n,
		     text);
	free(text);
	e2map_close(m);
	scan_kernel_free(&k);
	fixture_remove(img);
}

TestSuite(scan, .timeout = 120);

Test(scan, corrupt_4k) { replay("corrupt-4k"); }
Test(scan, crafted_4k) { replay("crafted-4k"); }
Test(scan, ext2_1k) { replay("ext2-1k"); }
Test(scan, ext2_4k) { replay("ext2-4k"); }
Test(scan, ext3_1k) { replay("ext3-1k"); }
Test(scan, ext3_2k) { replay("ext3-2k"); }
Test(scan, ext4_1k) { replay("ext4-1k"); }
Test(scan, ext4_2k) { replay("ext4-2k"); }
Test(scan, ext4_4k) { replay("ext4-4k"); }
Test(scan, ext4_bigalloc) { replay("ext4-bigalloc"); }
Test(scan, ext4_deep) { replay("ext4-deep"); }
Test(scan, ext4_ea_inode) { replay("ext4-ea_inode"); }
Test(scan, ext4_inline) { replay("ext4-inline"); }
Test(scan, ext4_links) { replay("ext4-links"); }
Test(scan, ext4_mixed) { replay("ext4-mixed"); }
Test(scan, ext4_names) { replay("ext4-names"); }
Test(scan, ext4_no64bit_nocsum) { replay("ext4-no64bit-nocsum"); }
Test(scan, ext4_noextents) { replay("ext4-noextents"); }
Test(scan, ext4_nohuge) { replay("ext4-nohuge"); }
Test(scan, ext4_nohuge_1k) { replay("ext4-nohuge-1k"); }
Test(scan, hash_neither_1k) { replay("hash-neither-1k"); }
Test(scan, hash_signed_1k) { replay("hash-signed-1k"); }
Test(scan, iflags_4k) { replay("iflags-4k"); }
Test(scan, crypt_4k) { replay("crypt-4k"); }
Test(scan, linear_1k) { replay("linear-1k"); }
Test(scan, linear_nocsum_1k) { replay("linear-nocsum-1k"); }
Test(scan, mount_bbitmap_in_itable) { replay("mount-bbitmap-in-itable"); }
Test(scan, mount_itable_moved) { replay("mount-itable-moved"); }
Test(scan, readdir_1k) { replay("readdir-1k"); }
Test(scan, readdir_nocsum_1k) { replay("readdir-nocsum-1k"); }
Test(scan, sample) { replay("sample"); }
Test(scan, special_1k) { replay("special-1k"); }
Test(scan, times_4k) { replay("times-4k"); }
Test(scan, times128_1k) { replay("times128-1k"); }
Test(scan, times_noextra_1k) { replay("times-noextra-1k"); }
Test(scan, zone_1k_flex) { replay("zone-1k-flex"); }
Test(scan, zone_4k) { replay("zone-4k"); }
Test(scan, zone_bigalloc) { replay("zone-bigalloc"); }
Test(scan, zone_ext3) { replay("zone-ext3"); }
Test(scan, zone_meta) { replay("zone-meta"); }
Test(scan, zone_meta_first) { replay("zone-meta-first"); }
Test(scan, zone_noflex) { replay("zone-noflex"); }
Test(scan, zone_sparse2) { replay("zone-sparse2"); }

/* ---- the body file against one made from the mount's stat data ---- */

static const char *const recorded[] = {
	"corrupt-4k", "crafted-4k", "crypt-4k", "ext2-1k", "ext2-4k", "ext3-1k",
	"ext3-2k", "ext4-1k", "ext4-2k", "ext4-4k", "ext4-bigalloc",
	"ext4-deep", "ext4-ea_inode", "ext4-inline", "ext4-links",
	"ext4-mixed", "ext4-names", "ext4-no64bit-nocsum", "ext4-noextents",
	"ext4-nohuge", "ext4-nohuge-1k", "hash-neither-1k", "hash-signed-1k",
	"iflags-4k", "linear-1k", "linear-nocsum-1k", "mount-bbitmap-in-itable",
	"mount-itable-moved", "readdir-1k", "readdir-nocsum-1k", "sample",
	"special-1k", "times-4k", "times128-1k", "times-noextra-1k",
	"zone-1k-flex", "zone-4k", "zone-bigalloc", "zone-ext3",
	"zone-meta", "zone-meta-first", "zone-noflex", "zone-sparse2",
};

/* TSK's sanitizing, and | (the separator), as e2map(1) says. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '|')
			*s = '^';
}

static void mode_string(unsigned mode, char out[13])
{
	static const char types[] = "\001p\002c\004d\006b\010r\012l\014h";
	const char *t = strchr(types, (int)(mode >> 12));

	out[0] = out[2] = t ? t[1] : '-';
	if (out[2] == 'h')	/* fls: a socket's name type is "s" */
		out[0] = 's';
	out[1] = '/';
	for (int i = 0; i < 9; i++)
		out[3 + i] = (mode & (0400u >> i)) ? "rwxrwxrwx"[i] : '-';
	if (mode & 04000)
		out[5] = (mode & 0100) ? 's' : 'S';
	if (mode & 02000)
		out[8] = (mode & 010) ? 's' : 'S';
	if (mode & 01000)
		out[11] = (mode & 01) ? 't' : 'T';
	out[12] = '\0';
}

static long long seconds(const char *t)
{
	return strcmp(t, "-") ? strtoll(t, NULL, 10) : 0;
}

/* Whether both sides list the name of a body line: not an inode
 * without a name, nor one the mount does not show (scan_kernel_lists). */
static bool kernel_lists(const struct scan_kernel *k, const char *line)
{
	const char *name = line + 2;

	return name[0] != '<' && scan_kernel_lists(k, name,
						   strcspn(name, "|"));
}

/* The body lines of the mount: a line per name lstat reached. */
static void kernel_body(const struct scan_kernel *k, struct scan_lines *out)
{
	for (size_t i = 0; i < k->n; i++) {
		const struct scan_kinode *in = &k->v[i];
		char mode[13], *target = in->link ? strdup(in->link) : NULL;

		mode_string(in->st.mode, mode);
		if (target)
			sanitize(target);
		for (size_t j = 0; j < in->npaths; j++) {
			char *name = strdup(in->paths[j]), *line;

			if (!strcmp(name, "/")) {	/* fls lists no root */
				free(name);
				continue;
			}
			sanitize(name);
			cr_assert(asprintf(&line, "0|%s%s%s|%" PRIu64 "|%s|%u|%u|%"
					   PRIu64 "|%lld|%lld|%lld|%lld", name,
					   target ? " -> " : "",
					   target ? target : "", in->ino, mode,
					   in->st.uid, in->st.gid, in->st.size,
					   seconds(in->st.atime),
					   seconds(in->st.mtime),
					   seconds(in->st.ctime),
					   seconds(in->st.btime)) > 0);
			if (kernel_lists(k, line))
				scan_lines_add(out, line);
			else
				free(line);
			free(name);
		}
		free(target);
	}
}

static void e2map_body(const struct scan_kernel *k, const struct cli_out *r,
		       struct scan_lines *out)
{
	const char *at = r->out, *nl;

	for (; (nl = memchr(at, '\n', r->out + r->out_len - at)); at = nl + 1) {
		char *line = strndup(at, (size_t)(nl - at));

		if (kernel_lists(k, line))
			scan_lines_add(out, line);
		else
			free(line);
	}
	cr_assert_eq(at, r->out + r->out_len, "body ends without a newline");
}

static void write_lines(const char *path, const struct scan_lines *l)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	for (size_t i = 0; i < l->n; i++)
		fprintf(f, "%s\n", l->v[i]);
	cr_assert_eq(fclose(f), 0);
}

/* mactime -b of both files, where sleuthkit is installed: the same text. */
static void compare_mactime(const char *name, const struct scan_lines *want,
			    const struct scan_lines *got)
{
	char dir[] = "/tmp/e2map-body-XXXXXX", cmd[512];
	int st;

	if (system("command -v mactime >/dev/null 2>&1") != 0)
		return;
	cr_assert(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/want", dir);
	write_lines(cmd, want);
	snprintf(cmd, sizeof(cmd), "%s/got", dir);
	write_lines(cmd, got);
	snprintf(cmd, sizeof(cmd), "cd %s && mactime -b want -z UTC >want.t "
		 "&& mactime -b got -z UTC >got.t && cmp -s want.t got.t", dir);
	st = system(cmd);
	cr_expect_eq(st, 0, "%s: mactime's timelines differ (%s)", name, dir);
	if (st == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		cr_assert_eq(system(cmd), 0);
	}
}

static void compare_body(const char *name)
{
	const char *args[] = { "scan", "--format", "body", "-q", NULL, NULL };
	struct scan_lines want = { 0 }, got = { 0 };
	struct scan_kernel k;
	struct cli_out r;
	char path[4096], *img = fixture_image(name);
	size_t i;

	cr_assert(img);
	snprintf(path, sizeof(path), "%s/%s.scan", fixture_testdata(), name);
	cr_assert_eq(scan_kernel_load(path, &k), 0);
	args[4] = img;
	cr_assert_eq(cli_run(args, &r), 0, "E2MAP is not set");
	kernel_body(&k, &want);
	e2map_body(&k, &r, &got);
	scan_lines_sort(&want);
	scan_lines_sort(&got);
	cr_expect_eq(got.n, want.n, "%s: %zu body lines, the mount %zu", name,
		     got.n, want.n);
	for (i = 0; i < got.n && i < want.n; i++)
		if (strcmp(got.v[i], want.v[i])) {
			cr_expect_fail("%s: body line\n  %s\nthe mount's\n  %s",
				       name, got.v[i], want.v[i]);
			break;
		}
	if (i == got.n && got.n == want.n)
		compare_mactime(name, &want, &got);
	scan_lines_free(&want);
	scan_lines_free(&got);
	cli_out_free(&r);
	scan_kernel_free(&k);
	fixture_remove(img);
}

Test(scan, body_equals_the_mounts, .timeout = 600)
{
	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	for (size_t i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++)
		compare_body(recorded[i]);
}

/*
 * The body format is TSK's: on images TSK reads as the kernel does, the
 * lines are `fls -r -m /`'s, but for the inodes no name reaches (e2map
 * <INO>, fls $OrphanFiles).  Elsewhere TSK differs from the kernel (times
 * before 1970 or past 2038, slow symlinks' long targets, damaged inodes),
 * and body_equals_the_mounts holds e2map to the kernel.
 */
static void compare_fls(const char *name)
{
	const char *args[] = { "scan", "--format", "body", "-q", NULL, NULL };
	char *img = fixture_image(name), cmd[4096], *out = NULL;
	struct scan_lines want = { 0 }, got = { 0 };
	struct cli_out r;
	size_t len = 0, i;
	FILE *f;

	cr_assert(img);
	args[4] = img;
	cr_assert_eq(cli_run(args, &r), 0, "E2MAP is not set");
	/* 1: an inode the kernel refuses too (crafted-4k's /deep6) */
	cr_expect(r.status <= 1, "%s: %s", name, r.err);
	for (char *at = r.out, *nl; (nl = memchr(at, '\n', r.out + r.out_len -
						 at)); at = nl + 1)
		if (strncmp(at, "0|<", 3))
			scan_lines_add(&got, strndup(at, (size_t)(nl - at)));
	snprintf(cmd, sizeof(cmd), "fls -r -m / '%s'", img);
	cr_assert((f = popen(cmd, "r")));
	while (getline(&out, &len, f) > 0) {
		out[strcspn(out, "\n")] = '\0';
		if (!strstr(out, "/$OrphanFiles"))
			scan_lines_add(&want, strdup(out));
	}
	cr_expect_eq(pclose(f), 0, "%s: fls failed", name);
	free(out);
	scan_lines_sort(&want);
	scan_lines_sort(&got);
	cr_expect_eq(got.n, want.n, "%s: %zu lines, fls %zu", name, got.n,
		     want.n);
	for (i = 0; i < got.n && i < want.n; i++)
		if (strcmp(got.v[i], want.v[i])) {
			cr_expect_fail("%s: body line\n  %s\nfls's\n  %s", name,
				       got.v[i], want.v[i]);
			break;
		}
	scan_lines_free(&want);
	scan_lines_free(&got);
	cli_out_free(&r);
	fixture_remove(img);
}

Test(scan, body_equals_fls, .timeout = 600)
{
	static const char *const images[] = {
		"cf-1k", "crafted-4k", "dirty-async-1k", "dirty-fc-4k",
		"ext2-4k", "ext4-deep", "ext4-ea_inode", "ext4-mixed",
		"ext4-names", "ext4-nohuge-1k", "hash-signed-1k", "metabg-0-1k",
		"metabg-1-4k", "metabg-2-1k32", "metabg-3-1k", "sample",
		"special-1k", "xattr-1k", "xattr-4k",
	};

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	if (system("command -v fls >/dev/null 2>&1") != 0)
		cr_skip_test("fls (sleuthkit) is not installed");
	for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++)
		compare_fls(images[i]);
}

/* ---- the e2fsprogs corpus: every scan finishes, one record per inode ---- */

/* A failed record of one name: what a name whose lstat fails on its own
 * gets, after its inode's record. */
static bool name_record(json_t *doc)
{
	return !json_is_null(json_object_get(doc, "error")) &&
	       json_array_size(json_object_get(doc, "paths")) == 1;
}

/* Lines of jsonl from a scan of IMG: records in inode order, each inode
 * once but for failed records of one name each, the summary last,
 * counting the inodes and the records that failed. */
static void corpus_output(const char *path, const struct cli_out *r, int *bad)
{
	const char *at = r->out, *nl;
	uint64_t last = 0, errors = 0, records = 0;
	json_t *doc = NULL, *summary;

	for (; (nl = memchr(at, '\n', r->out + r->out_len - at)); at = nl + 1) {
		json_decref(doc);
		doc = json_loadb(at, (size_t)(nl - at), 0, NULL);
		cr_assert(doc, "%s: a line that is not JSON", path);
		if (json_object_get(doc, "summary"))
			break;
		uint64_t ino = json_integer_value(json_object_get(doc, "ino"));

		errors += !json_is_null(json_object_get(doc, "error"));
		if (ino == last && name_record(doc))
			continue;
		cr_expect_gt(ino, last, "%s: <%" PRIu64 "> twice or out of order",
			     path, ino);
		last = ino;
		records++;
	}
	summary = doc ? json_object_get(doc, "summary") : NULL;
	if (!summary || nl + 1 != r->out + r->out_len) {
		cr_log_error("%s: no summary at the end (exit %d): %s", path,
			     r->status, r->err);
		(*bad)++;
	} else if ((uint64_t)json_integer_value(json_object_get(summary,
		   "errors")) != errors || r->status != (errors ? 1 : 0) ||
		   (uint64_t)json_integer_value(json_object_get(summary,
		   "inodes")) != records) {
		cr_log_error("%s: %" PRIu64 " errors, exit %d", path, errors,
			     r->status);
		(*bad)++;
	}
	json_decref(doc);
}

/* Refused at open: one line, nothing on stdout, exit 1. */
static bool refused(const struct cli_out *r)
{
	const char *e = r->err, *nl;

	while (!strncmp(e, "e2map: warning: ", 16) && (nl = strchr(e, '\n')))
		e = nl + 1;
	nl = strchr(e, '\n');
	return r->status == 1 && !r->out_len && !strncmp(e, "e2map: ", 7) &&
	       nl && !nl[1];
}

/*
 * One record per name: every name the kernel's readdir gave (lstat's
 * success or errno, testdata/corpus/NAME.scan) is in a record's paths,
 * and no other; a name whose lstat failed is in a failed record of the
 * same errno: the inode's own (a bad checksum), or one of the name
 * alone where the inode answers by number (the htree probe misses the
 * name, a directory above it, another encryption policy).
 */
struct rec_name {
	char *path;
	int err;		/* positive errno where it failed */
};

static int by_rec_path(const void *a, const void *b)
{
	return strcmp(((const struct rec_name *)a)->path,
		      ((const struct rec_name *)b)->path);
}

/* Every path of every record of R's JSON lines, sorted. */
static size_t record_names(const struct cli_out *r, struct rec_name **out)
{
	const char *at = r->out, *nl;
	struct rec_name *v = NULL;
	size_t n = 0, cap = 0;

	for (; (nl = memchr(at, '\n', r->out + r->out_len - at)); at = nl + 1) {
		json_t *doc = json_loadb(at, (size_t)(nl - at), 0, NULL);
		json_t *ps = doc ? json_object_get(doc, "paths") : NULL, *p;
		json_t *e = doc ? json_object_get(doc, "error") : NULL;
		int err = (int)json_integer_value(json_object_get(e, "errno"));
		size_t i;

		json_array_foreach(ps, i, p) {
			const char *s = json_string_value(json_object_get(p,
								 "path"));

			if (!s)	/* a name not UTF-8: "path_hex" */
				continue;
			/* doubling: under ASan each realloc copies */
			if (n == cap)
				cr_assert((v = realloc(v, (cap = cap * 2 + 64) *
						       sizeof(*v))));
			v[n++] = (struct rec_name){ strdup(s), err };
		}
		json_decref(doc);
	}
	if (n)	/* qsort of a NULL array is undefined, even empty */
		qsort(v, n, sizeof(*v), by_rec_path);
	*out = v;
	return n;
}

/* The names the mount listed (lstat's success or failure), sorted. */
static size_t kernel_names(const struct scan_kernel *k, struct rec_name **out)
{
	struct rec_name *v = calloc(k->np + k->nfail + 1, sizeof(*v));
	size_t n = 0, i;

	cr_assert(v);
	for (i = 0; i < k->np; i++)
		v[n++] = (struct rec_name){ k->p[i].path, 0 };
	for (i = 0; i < k->nfail; i++)
		if (!k->fail[i].dir)
			v[n++] = (struct rec_name){ k->fail[i].path,
						    k->fail[i].err };
	qsort(v, n, sizeof(*v), by_rec_path);
	*out = v;
	return n;
}

/* Both sorted lists walked side by side: the first difference said. */
static size_t names_differ(const char *name, struct rec_name *want,
			   size_t nw, struct rec_name *got, size_t ng)
{
	size_t i = 0, j = 0, differ = 0;

	while (i < nw || j < ng) {
		int c = i == nw ? 1 : j == ng ? -1 :
			strcmp(want[i].path, got[j].path);

		/* A name lstat reaches is in its inode's record, which may
		 * have failed by number (FIEMAP on a damaged tree). */
		if (c == 0 && (!want[i].err || got[j].err == want[i].err)) {
			i++, j++;
			continue;
		}
		if (!differ++)
			cr_log_info("%s: %s %s (%d, the mount's %d)", name,
				    c <= 0 ? want[i].path : got[j].path,
				    c < 0 ? "is in no record" :
				    c > 0 ? "is a name the mount does not list" :
				    "is in a record of another errno",
				    c < 0 ? 0 : got[j].err,
				    c > 0 ? 0 : want[i].err);
		i += c <= 0;
		j += c >= 0;
	}
	return differ;
}

static void check_names(const char *name, const struct cli_out *r,
			int *bad)
{
	char file[4096];
	struct scan_kernel k;
	struct rec_name *got, *want;
	size_t ng, nw, differ;

	snprintf(file, sizeof(file), "%s/corpus/%s.scan", fixture_testdata(),
		 name);
	if (scan_kernel_load(file, &k) < 0)
		return;		/* the kernel did not mount it */
	ng = record_names(r, &got);
	nw = kernel_names(&k, &want);
	differ = names_differ(name, want, nw, got, ng);
	if (differ && ++*bad)
		cr_log_error("%s: %zu names of %zu differ from the mount's",
			     name, differ, nw);
	for (size_t i = 0; i < ng; i++)
		free(got[i].path);
	free(got);
	free(want);
	scan_kernel_free(&k);
}

Test(scan, corpus_scans_finish, .timeout = 1800)
{
	const char *args[] = { "scan", "--format", "jsonl", "-q", NULL, NULL };
	char **paths;
	int n, i, bad = 0, opened = 0;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	n = fixture_corpus_list(&paths);
	cr_assert_geq(n, 113, "only %d corpus images found", n);
	for (i = 0; i < n; i++) {
		char *img = fixture_decompress(paths[i]);
		struct cli_out r;

		cr_assert(img, "cannot unpack %s", paths[i]);
		args[4] = img;
		cr_assert_eq(cli_run(args, &r), 0, "%s: cannot run", paths[i]);
		if (!refused(&r)) {
			char nm[256];
			const char *base = strrchr(paths[i], '/') + 1;

			snprintf(nm, sizeof(nm), "%.*s",
				 (int)strcspn(base, "."), base);
			corpus_output(paths[i], &r, &bad);
			check_names(nm, &r, &bad);
			opened++;
		}
		cli_out_free(&r);
		fixture_remove(img);
	}
	fixture_corpus_free(paths, n);
	cr_expect_eq(bad, 0, "%d of %d images failed", bad, n);
	cr_expect_gt(opened, 90);
}

/* ---- the command line: PATH, csv, table, the progress line ---- */

static void run_scan(const char *const *args, struct cli_out *r)
{
	if (cli_run(args, r) < 0)
		cr_skip_test("E2MAP is not set (run through make check)");
}

/* Whether the kernel names INO at PATH or under it. */
static bool kernel_under(const struct scan_kinode *in, const char *path)
{
	size_t n = strlen(path);

	if (!strcmp(path, "/"))
		return in->npaths > 0;
	for (size_t i = 0; i < in->npaths; i++)
		if (!strcmp(in->paths[i], path) ||
		    (!strncmp(in->paths[i], path, n) && in->paths[i][n] == '/'))
			return true;
	return false;
}

/* The inodes scan PATH lists are those the mount names under PATH. */
static void scan_under(const char *name, const char *path)
{
	const char *args[] = { "scan", "--format", "csv", "-q", NULL, NULL,
			       NULL };
	struct scan_kernel k;
	struct cli_out r;
	char file[4096], *img = fixture_image(name);
	size_t want = 0, got = 0;
	const char *at;

	cr_assert(img);
	snprintf(file, sizeof(file), "%s/%s.scan", fixture_testdata(), name);
	cr_assert_eq(scan_kernel_load(file, &k), 0);
	args[4] = img;
	args[5] = path;
	run_scan(args, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	for (size_t i = 0; i < k.n; i++)
		want += kernel_under(&k.v[i], path);
	/* Each record starts a CRLF line with its inode number. */
	for (at = strstr(r.out, "\r\n"); at; at = strstr(at + 2, "\r\n")) {
		uint64_t ino = strtoull(at + 2, NULL, 10);
		const struct scan_kinode *in = scan_kernel_find(&k, ino);

		if (!at[2])
			break;
		cr_expect(in && kernel_under(in, path), "%s: <%" PRIu64 "> is "
			  "not under %s", name, ino, path);
		got++;
	}
	cr_expect_eq(got, want, "%s %s: %zu records, the mount names %zu",
		     name, path, got, want);
	cli_out_free(&r);
	scan_kernel_free(&k);
	fixture_remove(img);
}

Test(scan, path_selects_what_is_under_it)
{
	scan_under("ext4-names", "/deep/d0/d1");
	scan_under("ext4-names", "/bad");
	scan_under("ext4-links", "/");
}

Test(scan, path_that_is_missing_fails)
{
	const char *args[] = { "scan", NULL, "/no/such", NULL };
	char *img = fixture_image("ext4-names");
	struct cli_out r;

	args[1] = img;
	run_scan(args, &r);
	cr_expect_eq(r.status, 1);
	cr_expect_eq(r.out_len, 0);
	cr_expect(strstr(r.err, "e2map: scan: ") &&
		  strstr(r.err, "/no/such: No such file or directory"), "%s",
		  r.err);
	cli_out_free(&r);
	fixture_remove(img);
}

/* RFC 4180: a field, quoted or not, from *P; *P then at , or CRLF. */
static char *csv_field(const char **p)
{
	const char *s = *p;
	char *out = malloc(strlen(s) + 1), *o = out;

	cr_assert(out);
	if (*s == '"') {
		for (s++; *s && !(s[0] == '"' && s[1] != '"'); s++) {
			if (s[0] == '"')
				s++;
			*o++ = *s;
		}
		s += *s == '"';
	} else {
		while (*s && *s != ',' && *s != '\r')
			*o++ = *s++;
	}
	*o = '\0';
	*p = s;
	return out;
}

/* The paths field: names split at LF, each \xHH a byte. */
static size_t csv_paths(const char *field, char **v, size_t max)
{
	size_t n = 0;
	char *copy = strdup(field), *save, *tok;

	for (tok = strtok_r(copy, "\n", &save); tok && n < max;
	     tok = strtok_r(NULL, "\n", &save)) {
		char *o = tok, *s = tok;
		unsigned c;

		v[n] = o;
		while (*s) {
			if (s[0] == '\\' && s[1] == 'x' &&
			    sscanf(s + 2, "%2x", &c) == 1) {
				*o++ = (char)c;
				s += 4;
			} else {
				*o++ = *s++;
			}
		}
		*o = '\0';
		v[n] = strdup(v[n]);
		n++;
	}
	free(copy);
	return n;
}

/* Every row has the header's 25 fields; paths decode to the mount's. */
Test(scan, csv_rows_decode_to_the_mounts_names)
{
	const char *args[] = { "scan", "--format", "csv", "-q", NULL, NULL };
	char *img = fixture_image("ext4-names"), file[4096], *names[64];
	struct scan_kernel k;
	struct cli_out r;
	const char *p;
	size_t rows = 0;

	snprintf(file, sizeof(file), "%s/ext4-names.scan", fixture_testdata());
	cr_assert_eq(scan_kernel_load(file, &k), 0);
	args[4] = img;
	run_scan(args, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	p = strstr(r.out, "\r\n");
	cr_assert(p && !strncmp(r.out, "ino,type,mode,", 14));
	for (p += 2; *p; p += 2, rows++) {
		char *f[25];
		int i;

		for (i = 0; i < 25; i++) {
			f[i] = csv_field(&p);
			cr_assert(i == 24 ? !strncmp(p, "\r\n", 2) : *p == ',',
				  "row %zu: field %d ends at '%.10s'", rows, i,
				  p);
			p += i < 24;
		}
		const struct scan_kinode *in =
			scan_kernel_find(&k, strtoull(f[0], NULL, 10));
		size_t n = csv_paths(f[24], names, 64);

		qsort(names, n, sizeof(*names), by_str);
		if (in) {
			cr_expect_eq(n, in->npaths, "<%s>", f[0]);
			for (size_t j = 0; j < n && j < in->npaths; j++)
				cr_expect_str_eq(names[j], in->paths[j]);
			cr_expect_eq(strtoull(f[7], NULL, 10), in->st.size);
		}
		for (size_t j = 0; j < n; j++)
			free(names[j]);
		for (i = 0; i < 25; i++)
			free(f[i]);
	}
	cr_expect_gt(rows, 200);
	cli_out_free(&r);
	scan_kernel_free(&k);
	fixture_remove(img);
}

/* The table: a header, a line per inode and per further name, a summary. */
Test(scan, table_lists_every_name_and_sums_up)
{
	const char *args[] = { "scan", NULL, NULL };
	char *img = fixture_image("corrupt-4k");
	struct cli_out r;

	args[1] = img;
	run_scan(args, &r);
	cr_expect_eq(r.status, 1, "a damaged inode: exit 1");
	cr_expect(!strncmp(r.out, "     INO TYPE      MODE  LINKS", 30));
	cr_expect(strstr(r.out, " /leaf_magic  error: Filesystem metadata is "
			 "corrupted (inode 12: "), "%s", r.out);
	cr_expect(strstr(r.out, "\nnaive") == NULL);
	cr_expect(strstr(r.out, "  naive backup copies"));
	cr_expect(strstr(r.out, "most fragmented (FIEMAP extents, on disk):"));
	cli_out_free(&r);
	fixture_remove(img);
}

/* Drawn on stderr when it is a terminal (stdout a pipe), wiped; -q: none. */
Test(scan, progress_on_a_terminal)
{
	char *img = fixture_image("ext4-4k"), *s;
	const char *argv[] = { "e2map", "scan", "--format", "body", NULL,
			       NULL, NULL };
	size_t len;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	argv[4] = "-q";
	argv[5] = img;
	s = cli_run_pty_or_skip(argv, &len);
	cr_expect_eq(len, 0, "-q drew: %s", s);
	free(s);
	argv[4] = img;
	argv[5] = NULL;
	s = cli_run_pty_or_skip(argv, &len);
	cr_expect(strstr(s, "\re2map scan: 0/") && strstr(s, " inodes (0%)"),
		  "no progress line: %s", s);
	cr_expect(strstr(s, "\r\033[K") && strstr(s, "inodes, 0 errors"),
		  "not wiped before the summary: %s", s);
	free(s);
	fixture_remove(img);
}

/*
 * The corpus recordings (testdata/corpus/NAME.scan, the 98 images the
 * kernel mounts) against e2map's records.  st_blocks is not held to the
 * tree blocks there: corrupted images carry i_blocks that lie.  One
 * image differs, for a reason e2map(1) states:
 */
static const struct {
	const char *name, *why;
} corpus_known[] = {
	/* a record opens by number: no parent policy to mismatch (EPERM) */
	{ "f_bad_encryption", "the kernel's Operation not permitted" },
};

/* Every difference of NAME is the known one, or there is none. */
static bool corpus_diff_ok(const char *name, const char *text, size_t n)
{
	const char *why = NULL, *line;

	for (size_t i = 0; i < sizeof(corpus_known) / sizeof(*corpus_known); i++)
		if (!strcmp(corpus_known[i].name, name))
			why = corpus_known[i].why;
	if (!n)
		return !why;
	if (!why)
		return false;
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		const char *at = strstr(line, why), *nl = strchr(line, '\n');

		if (!nl || !at || at > nl)
			return false;
	}
	return true;
}

Test(scan, corpus_recordings_match, .timeout = 1800)
{
	char dir[4096], file[4096 + 512], **paths, *text = NULL;
	int n, i, replayed = 0, bad = 0;

	snprintf(dir, sizeof(dir), "%s/corpus", fixture_testdata());
	n = fixture_corpus_list(&paths);
	cr_assert_geq(n, 113);
	for (i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/') + 1;
		char name[256];
		struct scan_kernel k;
		struct scan_diffs d = { NULL, NULL, 0, 5 };
		size_t len = 0;
		char *img;
		e2map_t *m;

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
		snprintf(file, sizeof(file), "%s/%s.scan", dir, name);
		if (scan_kernel_load(file, &k) < 0)
			continue;	/* the kernel did not mount it */
		cr_assert(img = fixture_decompress(paths[i]));
		cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", name);
		d.name = name;
		cr_assert(d.out = open_memstream(&text, &len));
		scan_compare(m, &k, false, &d);
		fclose(d.out);
		if (!corpus_diff_ok(name, text, d.n)) {
			cr_log_error("%s: %zu differences:\n%s", name, d.n, text);
			bad++;
		}
		free(text);
		text = NULL;
		e2map_close(m);
		scan_kernel_free(&k);
		fixture_remove(img);
		replayed++;
	}
	fixture_corpus_free(paths, n);
	cr_expect_geq(replayed, 98, "only %d corpus recordings", replayed);
	cr_expect_eq(bad, 0, "%d of %d corpus images differ", bad, replayed);
}

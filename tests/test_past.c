/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The past of an image (e2map/past.h, scan -d): deleted names held to the
 * generator's ground truth (testdata/past-*.past.jsonl.gz: every name
 * e2map finds is one the generator removed, or an htree split's old copy
 * of a live name) and to The Sleuth Kit's recordings
 * (scripts/record/tsk.sh: NAME.fls.gz, NAME.ils.gz): every deleted name
 * fls -d finds, e2map finds (but for the exceptions below, each with its
 * reason), and every inode ils lists, e2map lists with the same fields.
 * No corpus image crashes the walks (their slack is anything).
 */
#include <criterion/criterion.h>
#include <e2map.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

TestSuite(past, .timeout = 120);

/* Names fls reports that e2map does not, as fls reports them; ALT, what
 * e2map reports instead (NULL: nothing, or an old copy of a live entry). */
static const struct {
	const char *image, *path, *alt, *why;
} exceptions[] = {
	{ "r_inline_xattr", "/file1|2", "/file1|0", "in a dx root just past "
	  "its hash/block pairs, the old entry's inode field is the last "
	  "pair's block number: fls takes it for the inode, e2map says 0 "
	  "(unknown)" },
	{ "f_uninit_bad_free_inodes", "/Documentation/Changes|4", NULL, "the "
	  "same, and the name is live: e2map calls it an old copy" },
	{ "f_uninit_set_inode_not_set", "/Documentation/Changes|4", NULL,
	  "the same" },
	{ "f_many_subdirs", "/many_subdirs/<|732", NULL, "a hash/block pair "
	  "of an htree index block read as an entry (a dir type by chance)" },
	{ "f_many_subdirs", "/htree_eq_1/\xf0|752", NULL, "the same" },
};

/* A sorted set of "PATH|INO" keys. */
struct keys {
	char **v;
	size_t n, cap;
};

static void keys_add(struct keys *k, char *s)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		cr_assert((k->v = realloc(k->v, k->cap * sizeof(*k->v))));
	}
	k->v[k->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool keys_has(const struct keys *k, const char *s)
{
	return k->n && bsearch(&s, k->v, k->n, sizeof(*k->v), cmp_str);
}

static void keys_free(struct keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i]);
	free(k->v);
}

/* TSK's body sanitizing: control bytes, DEL and | as ^. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '|')
			*s = '^';
}

struct found {
	struct keys keys;
	size_t names, copies;
	/* the manifest's removed names and inodes in use, or NULL */
	json_t *truth, *inuse;
	size_t wrong_state;
};

/* The state the manifest gives: free where no file holds the inode at
 * the end; else linked after a rename, reallocated after an unlink. */
static void check_state(struct found *f, const char *key,
			const struct e2map_deleted_name *d)
{
	const char *how = json_string_value(json_object_get(f->truth, key));
	char ino[32];
	enum e2map_inode_state want;

	snprintf(ino, sizeof(ino), "%llu", (unsigned long long)d->ino);
	if (!how)
		return;		/* counted as unexplained */
	if (!json_object_get(f->inuse, ino))
		want = E2MAP_INODE_UNALLOCATED;
	else
		want = !strcmp(how, "rename") ? E2MAP_INODE_LINKED :
		       E2MAP_INODE_REALLOCATED;
	if (d->state == want)
		return;
	f->wrong_state++;
	cr_log_error("%s: %s, the manifest says %s", key,
		     e2map_inode_state_name(d->state),
		     e2map_inode_state_name(want));
}

static int on_name(const struct e2map_deleted_name *d, void *payload)
{
	struct found *f = payload;
	const char *dir = d->dir_path ? d->dir_path : "<?>";
	size_t dlen = d->dir_path && d->dir_path_len == 1 ? 0 : strlen(dir);
	char *key;

	f->names++;
	if (d->live_copy) {
		f->copies++;
		return 0;
	}
	cr_assert(asprintf(&key, "%.*s/%.*s", (int)dlen, dir,
			   (int)d->name_len, d->name) > 0);
	sanitize(key + dlen);
	cr_assert((key = realloc(key, strlen(key) + 24)));
	sprintf(key + strlen(key), "|%llu", (unsigned long long)d->ino);
	if (f->truth)
		check_state(f, key, d);
	keys_add(&f->keys, key);
	return 0;
}

static void find_names(e2map_t *m, struct found *f)
{
	cr_assert_eq(e2map_deleted_names(m, NULL, on_name, f), 0, "%s",
		     e2map_errmsg(m));
	if (f->keys.n)
		qsort(f->keys.v, f->keys.n, sizeof(*f->keys.v), cmp_str);
}

static FILE *gz_open(const char *path)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", path);
	return popen(cmd, "r");
}

static bool excepted(const char *image, const char *key,
		     const struct found *f)
{
	for (size_t i = 0; i < sizeof(exceptions) / sizeof(*exceptions); i++)
		if (!strcmp(image, exceptions[i].image) &&
		    !strcmp(key, exceptions[i].path)) {
			cr_expect(!exceptions[i].alt ||
				  keys_has(&f->keys, exceptions[i].alt),
				  "%s: no %s", image, exceptions[i].alt);
			return true;
		}
	return false;
}

/*
 * fls's deleted names in recording REC against F: each found, but for the
 * exceptions and for fls's names of no known type ("-/" lines: hash/block
 * pairs of index blocks read as entries, which e2map's type check
 * refuses).  Returns fls's count; *MISSED what e2map lacks unexcused.
 */
static size_t check_fls(const char *image, const char *rec,
			const struct found *f, size_t *garbage, size_t *missed)
{
	FILE *p = gz_open(rec);
	char *line = NULL;
	size_t cap = 0, n = 0;
	ssize_t len;

	cr_assert(p);
	*missed = *garbage = 0;
	while ((len = getline(&line, &cap, p)) > 0) {
		char *f1, *f2, *f3, *mark, key[8192];

		if (line[0] == '#' || !(f1 = strchr(line, '|')) ||
		    !(f2 = strchr(f1 + 1, '|')) || !(f3 = strchr(f2 + 1, '|')))
			continue;
		*f2 = *f3 = '\0';
		if ((mark = strstr(f1 + 1, " (deleted")))
			*mark = '\0';
		n++;
		if (f3[1] == '-') {
			(*garbage)++;
			continue;
		}
		snprintf(key, sizeof(key), "%s|%s", f1 + 1, f2 + 1);
		if (!keys_has(&f->keys, key) && !excepted(image, key, f)) {
			(*missed)++;
			cr_log_error("%s: fls finds %s, e2map does not", image,
				     key);
		}
	}
	free(line);
	pclose(p);
	return n;
}

/* ---- free inodes against ils ---- */

struct inodes {
	struct e2map_free_inode *v;
	size_t n, cap;
};

static int on_free(const struct e2map_free_inode *fi, void *payload)
{
	struct inodes *in = payload;

	if (in->n == in->cap) {
		in->cap = in->cap ? 2 * in->cap : 64;
		cr_assert((in->v = realloc(in->v, in->cap * sizeof(*in->v))));
	}
	in->v[in->n++] = *fi;
	return 0;
}

static const struct e2map_free_inode *find_ino(const struct inodes *in,
					       unsigned long long ino)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->v[i].ino == ino)
			return &in->v[i];
	return NULL;
}

/* ils's "ino|f|uid|gid|mtime|atime|ctime|crtime|mode|nlink|size". */
static size_t check_ils(const char *image, const char *rec,
			const struct inodes *in, size_t *wrong)
{
	FILE *p = gz_open(rec);
	char *line = NULL;
	size_t cap = 0, n = 0;

	cr_assert(p);
	*wrong = 0;
	while (getline(&line, &cap, p) > 0) {
		unsigned long long ino, mt, at, ct, crt, size;
		unsigned uid, gid, mode, nlink;
		const struct e2map_free_inode *fi;
		char alloc;

		if (sscanf(line, "%llu|%c|%u|%u|%llu|%llu|%llu|%llu|%o|%u|%llu",
			   &ino, &alloc, &uid, &gid, &mt, &at, &ct, &crt,
			   &mode, &nlink, &size) != 11)
			continue;
		n++;
		fi = find_ino(in, ino);
		if (fi && fi->inode.uid == uid && fi->inode.gid == gid &&
		    (unsigned long long)fi->inode.mtime.sec == mt &&
		    (unsigned long long)fi->inode.atime.sec == at &&
		    (unsigned long long)fi->inode.ctime.sec == ct &&
		    (fi->inode.mode & 07777) == mode &&
		    fi->inode.links == nlink && fi->inode.size == size)
			continue;
		(*wrong)++;
		cr_log_error("%s: ils lists <%llu>, e2map %s", image, ino,
			     fi ? "with other fields" : "does not");
	}
	free(line);
	pclose(p);
	return n;
}

/* IMG (the image NAME) against the recordings DIR/NAME.{fls,ils}.gz. */
static void check_image(const char *img, const char *name, const char *dir,
			const char *label)
{
	char fls[PATH_MAX], ils[PATH_MAX];
	size_t nfls, nils, garbage, missed, wrong;
	struct inodes in = { 0 };
	struct found f = { 0 };
	e2map_t *m;

	snprintf(fls, sizeof(fls), "%s/%s.fls.gz", dir, name);
	snprintf(ils, sizeof(ils), "%s/%s.ils.gz", dir, name);
	if (e2map_open(img, "unmountable", &m) < 0)
		return;		/* e2map refuses it: no walk to make */
	find_names(m, &f);
	cr_assert_eq(e2map_free_inodes(m, on_free, &in), 0, "%s", name);
	if (access(fls, R_OK) == 0) {
		nfls = check_fls(name, fls, &f, &garbage, &missed);
		cr_expect_eq(missed, 0, "%s: %zu of fls's %zu names missed",
			     name, missed, nfls);
		if (nfls || f.names)
			cr_log_info("%s %s: e2map %zu names (%zu old copies "
				    "of live ones), fls %zu (%zu of no type)",
				    label, name, f.names, f.copies, nfls,
				    garbage);
	}
	if (access(ils, R_OK) == 0) {
		nils = check_ils(name, ils, &in, &wrong);
		cr_expect_eq(wrong, 0, "%s: %zu of ils's %zu inodes differ",
			     name, wrong, nils);
	}
	keys_free(&f.keys);
	free(in.v);
	e2map_close(m);
}

/* ---- scan -d --format body against fls -m ---- */

/* LINE without its newline and, where ALL is false, its last field. */
static char *cut_line(const char *line, bool all)
{
	char *s = strndup(line, strcspn(line, "\n")), *bar;

	cr_assert(s);
	if (!all && (bar = strrchr(s, '|')))
		bar[1] = '\0';
	return s;
}

/*
 * Each deleted line fls writes, e2map's scan -d --format body writes the
 * same: name, mark, inode, mode, owner, size, times.  Where fls writes a
 * creation time of 0 (ext3: TSK reads i_crtime on ext4 only), the
 * kernel's birth time e2map gives may differ.
 */
static void body_as_fls(const char *img, const char *rec)
{
	const char *e2map = getenv("E2MAP");
	struct keys whole = { 0 }, cut = { 0 };
	char cmd[PATH_MAX * 2], *line = NULL;
	size_t cap = 0, n = 0, differ = 0;
	FILE *p;

	if (!e2map)
		return;		/* the library's checks above still ran */
	snprintf(cmd, sizeof(cmd), "'%s' scan -d -q --format body '%s'",
		 e2map, img);
	cr_assert((p = popen(cmd, "r")));
	while (getline(&line, &cap, p) > 0) {
		if (!strstr(line, " (deleted"))
			continue;
		keys_add(&whole, cut_line(line, true));
		keys_add(&cut, cut_line(line, false));
	}
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	qsort(whole.v, whole.n, sizeof(*whole.v), cmp_str);
	qsort(cut.v, cut.n, sizeof(*cut.v), cmp_str);
	cr_assert((p = gz_open(rec)));
	while (getline(&line, &cap, p) > 0) {
		char *all = cut_line(line, true), *some = cut_line(line, false);
		bool zero = !strcmp(all + strlen(some), "0");

		/* "-/": no type, an index block's pairs (check_fls) */
		if (line[0] != '#' && !strstr(line, "|-/") && ++n &&
		    !keys_has(&whole, all) && !(zero && keys_has(&cut, some))) {
			differ++;
			cr_log_error("fls's line %s is not e2map's", all);
		}
		free(all);
		free(some);
	}
	pclose(p);
	free(line);
	cr_expect_eq(differ, 0, "%s: %zu of fls's %zu lines differ", rec,
		     differ, n);
	keys_free(&whole);
	keys_free(&cut);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* scan -d --format jsonl: a record per name and per free inode, each
 * name with its state, and the summary's counts. */
static void jsonl_counts(const char *img, size_t names, size_t inodes)
{
	const char *e2map = getenv("E2MAP");
	char cmd[PATH_MAX * 2], *line = NULL, want[128];
	size_t cap = 0, n = 0, i = 0, states = 0;
	bool summary = false;
	FILE *p;

	if (!e2map)
		return;
	snprintf(cmd, sizeof(cmd), "'%s' scan -d -q --format jsonl '%s'",
		 e2map, img);
	snprintf(want, sizeof(want), "\"deleted_names\":%zu,\"free_inodes\""
		 ":%zu,", names, inodes);
	cr_assert((p = popen(cmd, "r")));
	while (getline(&line, &cap, p) > 0) {
		n += starts(line, "{\"deleted\":\"name\",");
		i += starts(line, "{\"deleted\":\"inode\",");
		states += strstr(line, "\"inode_state\":\"") != NULL;
		summary |= strstr(line, want) != NULL;
	}
	free(line);
	cr_assert_eq(pclose(p), 0);
	cr_expect_eq(n, names, "%zu name records, %zu names", n, names);
	cr_expect_eq(states, names);
	cr_expect_eq(i, inodes, "%zu inode records, %zu inodes", i, inodes);
	cr_expect(summary, "no summary with %s", want);
}

/* ---- the generated images' ground truth ---- */

/*
 * The manifest's removed names ("DIR/NAME|INO": how) and the inodes in use
 * at the end (files not deleted, directories not removed) into INUSE.
 */
static json_t *removed_names(const char *name, json_t *inuse)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	json_t *set = json_object();
	FILE *p;

	snprintf(path, sizeof(path), "%s/%s.past.jsonl.gz", fixture_testdata(),
		 name);
	cr_assert((p = gz_open(path)));
	while (getline(&line, &cap, p) > 0) {
		json_t *o = json_loads(line, 0, NULL);
		const char *kind = json_string_value(json_object_get(o, "kind"));
		char key[1024];

		if (kind && !strcmp(kind, "name")) {
			const char *dir = json_string_value(
				json_object_get(o, "dir"));
			snprintf(key, sizeof(key), "%s/%s|%lld",
				 dir && strcmp(dir, "/") ? dir : "",
				 json_string_value(json_object_get(o, "name")),
				 json_integer_value(json_object_get(o, "ino")));
			json_object_set(set, key, json_object_get(o, "how"));
		} else if (kind && (!strcmp(kind, "file") ||
				    !strcmp(kind, "dir"))) {
			const char *fate = json_string_value(
				json_object_get(o, "fate"));

			snprintf(key, sizeof(key), "%lld", json_integer_value(
				json_object_get(o, "ino")));
			if (fate && strcmp(fate, "deleted") &&
			    strcmp(fate, "removed"))
				json_object_set_new(inuse, key, json_true());
		}
		json_decref(o);
	}
	free(line);
	pclose(p);
	cr_assert(json_object_size(set) > 0, "%s: no removed names", name);
	return set;
}

static void generated(const char *name)
{
	char *img = fixture_image(name), rec[PATH_MAX];
	json_t *inuse = json_object(), *truth = removed_names(name, inuse);
	struct found f = { .truth = truth, .inuse = inuse };
	struct inodes in = { 0 };
	size_t unexplained = 0, inodes = 0;
	e2map_t *m;

	cr_assert(img, "%s", name);
	snprintf(rec, sizeof(rec), "%s/%s.fls.gz", fixture_testdata(), name);
	cr_assert_eq(access(rec, R_OK), 0, "%s: no TSK recording", rec);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", name);
	find_names(m, &f);
	cr_expect_eq(f.wrong_state, 0, "%s: %zu states differ from the "
		     "manifest's", name, f.wrong_state);
	for (size_t i = 0; i < f.keys.n; i++)
		if (!json_object_get(truth, f.keys.v[i])) {
			unexplained++;
			cr_log_error("%s: %s was never removed", name,
				     f.keys.v[i]);
		}
	cr_expect_eq(unexplained, 0, "%s", name);
	cr_expect(f.keys.n > 0, "%s: no deleted name found", name);
	e2map_close(m);
	check_image(img, name, fixture_testdata(), "generated");
	body_as_fls(img, rec);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", name);
	cr_assert_eq(e2map_free_inodes(m, on_free, &in), 0);
	e2map_close(m);
	for (size_t k = 0; k < in.n; k++)
		inodes += in.v[k].kind == E2MAP_FREE_INODE;
	jsonl_counts(img, f.names, inodes);
	free(in.v);
	keys_free(&f.keys);
	json_decref(truth);
	json_decref(inuse);
	fixture_remove(img);
}

Test(past, generated_1k) { generated("past-1k"); }
Test(past, generated_csum_4k) { generated("past-csum-4k"); }
Test(past, generated_ext3_1k) { generated("past-ext3-1k"); }
Test(past, generated_fc_4k) { generated("past-fc-4k"); }
Test(past, generated_inline_4k) { generated("past-inline-4k"); }

/* Every corpus image: the walks finish, and match TSK where recorded. */
Test(past, corpus_against_tsk, .timeout = 300)
{
	char **paths, dir[PATH_MAX];
	int n = fixture_corpus_list(&paths);

	cr_assert(n > 0);
	snprintf(dir, sizeof(dir), "%s/corpus", fixture_testdata());
	for (int i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/') + 1;
		char name[256], *img;

		snprintf(name, sizeof(name), "%.*s",
			 (int)strcspn(base, "."), base);
		if (!(img = fixture_decompress(paths[i])))
			continue;
		check_image(img, name, dir, "corpus");
		fixture_remove(img);
	}
	fixture_corpus_free(paths, n);
}

/* ---- inline and linear slack, made without the kernel ---- */

struct want {
	const char *path;
	uint64_t ino, block;	/* block: 0 inline, 1 any block */
	bool found;
};

static int on_want(const struct e2map_deleted_name *d, void *payload)
{
	struct want *w = payload;
	char path[512];

	snprintf(path, sizeof(path), "%s/%.*s", d->dir_path ? d->dir_path :
		 "?", (int)d->name_len, d->name);
	for (; w->path; w++)
		if (!strcmp(path, w->path) && d->ino == w->ino &&
		    (w->block ? d->block != 0 : d->block == 0))
			w->found = true;
	return 0;
}

static uint64_t ino_of(e2map_t *m, const char *path)
{
	struct e2map_stat st = E2MAP_STAT_INIT;

	cr_assert_eq(e2map_path_lstat(m, path, &st), 0, "%s", path);
	return st.ino;
}

/*
 * libext2fs's unlink (debugfs) removes an entry as kernels before 5.13
 * did: merged into the one before, or its inode cleared when it comes
 * first, the name left.  An inline directory (i_block) and a linear one
 * of the same image, each with one of each.
 */
Test(past, inline_and_linear_slack)
{
	char dir[] = "/tmp/e2map-past-XXXXXX", cmd[1024], img[256];
	struct want want[] = { { "/d/f2", 0, 0, false },
			       { "/d/f1", 0, 0, false },
			       { "/big/g05", 0, 1, false },
			       { NULL, 0, 0, false } };
	e2map_t *m;

	cr_assert(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/i.img", dir);
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p s/d s/big && "
		 "for i in 1 2 3; do echo x > s/d/f$i; done && "
		 "for i in $(seq -w 1 40); do echo y > s/big/g$i; done && "
		 "mkfs.ext4 -q -F -O inline_data,^has_journal -b 4096 -N 128 "
		 "-d s i.img 2M >/dev/null 2>&1", dir);
	if (system(cmd) != 0)
		cr_skip_test("mkfs.ext4 -d with inline_data failed here");
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	want[0].ino = ino_of(m, "/d/f2");
	want[2].ino = ino_of(m, "/big/g05");
	e2map_close(m);
	snprintf(cmd, sizeof(cmd), "cd %s && for p in /d/f2 /big/g05 /d/f1; "
		 "do debugfs -w -R \"unlink $p\" i.img >/dev/null 2>&1 || "
		 "exit 1; done", dir);
	cr_assert_eq(system(cmd), 0, "debugfs unlink failed");
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert_eq(e2map_deleted_names(m, NULL, on_want, want), 0);
	for (struct want *w = want; w->path; w++)
		cr_expect(w->found, "%s <%llu> not found", w->path,
			  (unsigned long long)w->ino);
	e2map_close(m);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* The house rule for callbacks (tests/test_api.c): what the callback
 * stops with comes back unchanged, after one call. */
static int stop_with, stop_calls;

static int stop_name(const struct e2map_deleted_name *d, void *payload)
{
	(void)d, (void)payload;
	return stop_calls++, stop_with;
}

static int stop_inode(const struct e2map_free_inode *fi, void *payload)
{
	(void)fi, (void)payload;
	return stop_calls++, stop_with;
}

Test(past, callbacks_stop_and_hand_back)
{
	static const int stops[] = { 7, -ENOENT, E2MAP_EUSER, E2MAP_SKIP };
	char *img = fixture_image("past-1k");
	e2map_t *m;

	cr_assert(img);
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	for (size_t s = 0; s < sizeof(stops) / sizeof(*stops); s++) {
		stop_with = stops[s];
		stop_calls = 0;
		cr_expect_eq(e2map_deleted_names(m, NULL, stop_name, NULL),
			     stops[s]);
		cr_expect_eq(stop_calls, 1);
		stop_calls = 0;
		cr_expect_eq(e2map_free_inodes(m, stop_inode, NULL), stops[s]);
		cr_expect_eq(stop_calls, 1);
	}
	cr_expect_eq(e2map_deleted_names(NULL, NULL, stop_name, NULL),
		     -EINVAL);
	cr_expect_eq(e2map_free_inodes(m, NULL, NULL), -EINVAL);
	e2map_close(m);
	fixture_remove(img);
}

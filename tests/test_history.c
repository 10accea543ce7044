/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal's past (e2map_inode_history, e2map_dir_history) and the
 * recovery of deleted files (e2map_recover_plan), held to the generator's
 * ground truth (scripts/gen/mkpast.sh: testdata/past-*.img.gz and their
 * NAME.past.jsonl.gz): every deleted file's inode, size and mode is found
 * in some version; a file called complete has the very bytes the
 * generator wrote (sha256); a partial file's recovered blocks are its
 * own (the generator's per-block pattern); no file with a block the
 * image gives to another inode now is complete; every deleted file none
 * of whose blocks was reused is complete.  Then hostile journals made
 * from one of them: errors or skips, never a crash (ASan runs these).
 */
#include <criterion/criterion.h>

#include <e2map.h>
#include <jansson.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_run.h"
#include "fixture.h"
#include "sha256.h"

struct truth {
	json_t **v;
	size_t n;
	uint64_t bs;
};

static void load_truth(const char *name, struct truth *t)
{
	char src[512], line[1 << 16];
	char *path;
	FILE *f;
	json_error_t e;

	snprintf(src, sizeof(src), "%s/%s.past.jsonl.gz", fixture_testdata(),
		 name);
	cr_assert((path = fixture_decompress(src)), "%s", src);
	cr_assert((f = fopen(path, "r")));
	*t = (struct truth){ 0 };
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_loads(line, 0, &e);

		cr_assert(o, "%s: %s", src, e.text);
		t->v = realloc(t->v, (t->n + 1) * sizeof(*t->v));
		cr_assert(t->v);
		t->v[t->n++] = o;
	}
	fclose(f);
	fixture_remove(path);
	cr_assert(t->n > 1);
	t->bs = (uint64_t)json_integer_value(json_object_get(t->v[0],
							     "block_size"));
	cr_assert(t->bs >= 1024);
}

static void free_truth(struct truth *t)
{
	for (size_t i = 0; i < t->n; i++)
		json_decref(t->v[i]);
	free(t->v);
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static uint64_t num(const json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

static bool deleted_file(const json_t *o)
{
	return !strcmp(str(o, "kind"), "file") &&
	       !strcmp(str(o, "fate"), "deleted");
}

/* ---- history ---- */

struct want {
	const json_t *f;
	bool found;
};

static int match_version(const struct e2map_version *v, void *arg)
{
	struct want *w = arg;
	const json_t *gen = json_object_get(w->f, "gen");

	if (v->size == num(w->f, "size") && v->mode == num(w->f, "mode") &&
	    (!json_is_integer(gen) ||
	     v->generation == (uint32_t)json_integer_value(gen)) &&
	    v->links && !(v->flags & E2MAP_COPY_DISK))
		w->found = true;
	return 0;
}

struct want_name {
	const char *name;
	uint64_t ino;
	bool found, now;
};

static int match_name(const struct e2map_dir_name *d, void *arg)
{
	struct want_name *w = arg;

	if (d->ino == w->ino && !strcmp(d->name, w->name)) {
		w->found = true;
		w->now |= d->now != 0;
	}
	return 0;
}

/* The live directories a name record's directory still is. */
static bool dir_live(const struct truth *t, uint64_t ino)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(str(t->v[i], "kind"), "dir") &&
		    num(t->v[i], "ino") == ino)
			return !strcmp(str(t->v[i], "fate"), "live");
	return false;
}

/* ---- recovery ---- */

struct counts {
	unsigned complete, partial, overwritten, none, wanted;
};

/* Block LBLK of a partial file is the generator's for PATH there. */
static bool own_block(const char *path, uint64_t lblk, const char *b)
{
	char head[3][600];

	snprintf(head[0], sizeof(head[0]), "%s block %" PRIu64 "\n", path, lblk);
	snprintf(head[1], sizeof(head[1]), "%s%" PRIu64 " block 0\n", path, lblk);
	snprintf(head[2], sizeof(head[2]), "%s-%" PRIu64 " block 0\n", path, lblk);
	for (int i = 0; i < 3; i++)
		if (!strncmp(b, head[i], strlen(head[i])))
			return true;
	return false;
}

static void check_partial(struct e2map_recover_plan *p, const json_t *f,
			  uint64_t bs)
{
	const char *path = str(f, "path");
	char *buf = malloc(bs);

	cr_assert(buf);
	if (strstr(path, "random")) {	/* no pattern to hold it to */
		free(buf);
		return;
	}
	for (size_t i = 0; i < p->nranges; i++) {
		const struct e2map_recover_range *r = &p->ranges[i];

		for (uint64_t k = 0; k < r->count && !r->overwritten; k++) {
			uint64_t off = (r->lblk + k) * bs;

			if (off >= p->size)
				break;
			cr_assert_gt(e2map_recover_pread(p, buf, bs, off), 0);
			cr_expect(own_block(path, r->lblk + k, buf),
				  "%s: recovered block %" PRIu64 " (at %" PRIu64
				  ") is not its own: %.40s", path, r->lblk + k,
				  r->pblk + k, buf);
		}
	}
	free(buf);
}

static void plan_sha256(struct e2map_recover_plan *p, char hex[65])
{
	static char buf[1 << 16];
	struct sha256 h;
	uint64_t off = 0;
	int64_t n;

	sha256_init(&h);
	while ((n = e2map_recover_pread(p, buf, sizeof(buf), off)) > 0) {
		sha256_update(&h, buf, (size_t)n);
		off += (uint64_t)n;
	}
	cr_assert_geq(n, 0);
	cr_assert_eq(off, p->size);
	sha256_final(&h, hex);
}

static void check_recovery(e2map_journal_t *j, const struct truth *t,
			   const json_t *f, struct counts *c)
{
	struct e2map_recover_plan *p;
	uint64_t reused = num(f, "reused_blocks");
	char hex[65];
	int err = e2map_recover_plan(j, num(f, "ino"), &p);

	cr_assert_eq(err, 0, "%s <%" PRIu64 ">: %d", str(f, "path"),
		     num(f, "ino"), err);
	if (!reused && p->state != E2MAP_RECOVER_COMPLETE)
		c->wanted++;	/* asserted zero below, with the names */
	cr_expect(reused == 0 || p->state != E2MAP_RECOVER_COMPLETE,
		  "%s: %" PRIu64 " blocks reused, yet complete",
		  str(f, "path"), reused);
	switch (p->state) {
	case E2MAP_RECOVER_COMPLETE:
		c->complete++;
		plan_sha256(p, hex);
		cr_expect_str_eq(hex, str(f, "sha256"), "%s: wrong bytes",
				 str(f, "path"));
		break;
	case E2MAP_RECOVER_PARTIAL:
		c->partial++;
		check_partial(p, f, t->bs);
		break;
	case E2MAP_RECOVER_OVERWRITTEN:
		c->overwritten++;
		break;
	default:
		c->none++;
	}
	if (!reused && p->state != E2MAP_RECOVER_COMPLETE)
		cr_log_warn("%s: not reused, yet %s", str(f, "path"),
			    e2map_recover_state_name(p->state));
	e2map_recover_free(p);
}

static void past_image(const char *name)
{
	struct truth t;
	struct counts c = { 0 };
	e2map_journal_t *j;
	char *img;
	e2map_t *m;
	unsigned files = 0, names = 0;

	load_truth(name, &t);
	cr_assert((img = fixture_image(name)), "%s", name);
	cr_assert_eq(e2map_open(img, NULL, &m), 0, "%s", e2map_errmsg(NULL));
	cr_assert_eq(e2map_journal_open(m, &j), 0, "%s", e2map_errmsg(m));
	for (size_t i = 1; i < t.n; i++) {
		const json_t *o = t.v[i];

		if (deleted_file(o)) {
			struct want w = { o, false };

			files++;
			cr_assert_eq(e2map_inode_history(j, num(o, "ino"),
						match_version, &w), 0);
			cr_expect(w.found, "%s: %s <%" PRIu64 ">: no version "
				  "with its size and mode", name,
				  str(o, "path"), num(o, "ino"));
			check_recovery(j, &t, o, &c);
		} else if (!strcmp(str(o, "kind"), "name") &&
			   !strcmp(str(o, "how"), "unlink") &&
			   dir_live(&t, num(o, "dir_ino"))) {
			struct want_name w = { str(o, "name"), num(o, "ino"),
					       false, false };

			names++;
			cr_assert_eq(e2map_dir_history(j, num(o, "dir_ino"),
						       match_name, &w), 0);
			cr_expect(w.found && !w.now, "%s: %s/%s (<%" PRIu64
				  ">) not among the directory's removed "
				  "names", name, str(o, "dir"), w.name, w.ino);
		}
	}
	cr_log_info("%s: %u deleted files: %u complete, %u partial, %u "
		    "overwritten, %u none; %u removed names", name, files,
		    c.complete, c.partial, c.overwritten, c.none, names);
	cr_expect_gt(files, 50);
	cr_expect_gt(names, 10);
	/* Every file none of whose blocks is anyone's now is recovered. */
	cr_expect_eq(c.wanted, 0, "%s: %u files not reused, not complete",
		     name, c.wanted);
	e2map_journal_close(j);
	e2map_close(m);
	fixture_remove(img);
	free_truth(&t);
}

TestSuite(history, .timeout = 120);

Test(history, csum_4k) { past_image("past-csum-4k"); }
Test(history, ext4_1k) { past_image("past-1k"); }
Test(history, ext3_1k) { past_image("past-ext3-1k"); }
Test(history, inline_4k) { past_image("past-inline-4k"); }
Test(history, fast_commit_4k) { past_image("past-fc-4k"); }

/* A live inode is not deleted: recovery says so, by number too. */
Test(history, live_inode_is_refused)
{
	e2map_journal_t *j;
	struct e2map_recover_plan *p = NULL;
	char *img = fixture_image("past-1k");
	e2map_t *m;

	cr_assert(img);
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert_eq(e2map_journal_open(m, &j), 0);
	cr_expect_eq(e2map_recover_plan(j, 2, &p), -EEXIST);
	cr_expect_null(p);
	cr_expect_eq(e2map_recover_plan(j, 1u << 30, &p), -ESTALE);
	cr_expect_eq(e2map_inode_history(j, 0, match_version, NULL), -ESTALE);
	e2map_journal_close(j);
	e2map_close(m);
	fixture_remove(img);
}

/* ---- the CLI: what it writes ---- */

static const json_t *file_of(const struct truth *t, uint64_t ino)
{
	for (size_t i = 1; i < t->n; i++)
		if (deleted_file(t->v[i]) && num(t->v[i], "ino") == ino)
			return t->v[i];
	return NULL;
}

/* Where DIR's filesystem keeps holes: a probe file with one. */
static bool holes_kept(const char *dir)
{
	char path[600];
	off_t hole;
	int fd;

	snprintf(path, sizeof(path), "%s/probe", dir);
	cr_assert((fd = open(path, O_RDWR | O_CREAT, 0600)) >= 0);
	cr_assert_eq(pwrite(fd, "x", 1, 1 << 20), 1);
	hole = lseek(fd, 0, SEEK_HOLE);
	close(fd);
	unlink(path);
	return hole == 0;
}

/* O's sha256 and md5 are those of the file recover wrote. */
static void check_recovered_digests(const json_t *o)
{
	char hex[65], cmd[700], md5[40] = "";
	FILE *p;

	cr_assert_eq(fixture_sha256(str(o, "file"), hex), 0);
	cr_expect_str_eq(str(o, "sha256"), hex, "%s", str(o, "file"));
	snprintf(cmd, sizeof(cmd), "md5sum < '%s'", str(o, "file"));
	cr_assert((p = popen(cmd, "r")) != NULL);
	cr_expect_eq(fscanf(p, "%32s", md5), 1);
	pclose(p);
	cr_expect_str_eq(str(o, "md5"), md5, "%s", str(o, "file"));
}

/*
 * recover --all writes each complete file with the generator's bytes, a
 * sparse one with its holes, and names the old path from the directory's
 * history; --hash's digests are those of the bytes it wrote (sha256 the
 * test's own, md5 coreutils' md5sum).
 */
Test(history, cli_recover_all_writes_the_bytes)
{
	char dir[] = "/tmp/e2map-recover-XXXXXX", dest[600];
	char *img = fixture_image("past-inline-4k");
	unsigned complete = 0, named = 0;
	struct cli_out r;
	struct truth t;
	const char *line;

	cr_assert(img && mkdtemp(dir));
	snprintf(dest, sizeof(dest), "%s/out", dir);
	load_truth("past-inline-4k", &t);
	if (cli_run((const char *[]){ "recover", "--all", "--format", "jsonl",
				      "--hash", "sha256,md5", img, dest,
				      NULL }, &r) < 0)
		cr_skip_test("E2MAP is not set (run through make check)");
	cr_assert_eq(r.status, 0, "%s", r.err);
	for (line = r.out; *line; line = strchr(line, '\n') + 1) {
		json_t *o = json_loadb(line, strcspn(line, "\n"), 0, NULL);
		const json_t *f = o ? file_of(&t, num(o, "ino")) : NULL;
		char hex[65];

		cr_assert(o, "%s", line);
		if (json_is_string(json_object_get(o, "file")))
			check_recovered_digests(o);
		if (f && !strcmp(str(o, "state"), "complete")) {
			complete++;
			cr_assert_eq(fixture_sha256(str(o, "file"), hex), 0);
			cr_expect_str_eq(hex, str(f, "sha256"), "%s",
					 str(f, "path"));
			named += !strcmp(str(o, "path"), str(f, "path"));
		}
		if (f && !strcmp(str(f, "path"), "/files/sparse") &&
		    holes_kept(dir)) {
			int fd = open(str(o, "file"), O_RDONLY);

			cr_assert(fd >= 0);
			cr_expect_eq(lseek(fd, 0, SEEK_HOLE), 4096);
			close(fd);
		}
		json_decref(o);
	}
	cr_expect_gt(complete, 100);
	cr_expect_gt(named, complete / 2, "%u of %u named", named, complete);
	cli_out_free(&r);
	free_truth(&t);
	fixture_remove(img);
	snprintf(dest, sizeof(dest), "rm -rf %s", dir);
	cr_assert_eq(system(dest), 0);
}

/* ---- hostile journals ---- */

/*
 * An image in memory with its journal's blocks found through the
 * blockmap (inode 8's runs), so each case damages the log in place and
 * writes the result to a scratch file.
 */
struct jimg {
	unsigned char *b;
	size_t size;
	uint64_t bs, *jblk;	/* journal block -> device block */
	uint64_t njblk;
	uint32_t first, last, incompat;
};

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* The filesystem's block size, from its superblock's s_log_block_size. */
static uint64_t t_bs(const unsigned char *img)
{
	const unsigned char *p = img + 1024 + 24;

	return 1024u << (p[0] | p[1] << 8);
}

static unsigned char *jb(struct jimg *ji, uint64_t k)
{
	return ji->b + ji->jblk[k] * ji->bs;
}

static void load_jimg(const char *name, struct jimg *ji)
{
	char *img = fixture_image(name);
	e2map_blockmap_t *bm;
	e2map_t *m;
	FILE *f;

	cr_assert(img);
	*ji = (struct jimg){ 0 };
	cr_assert_eq(e2map_open(img, NULL, &m), 0);
	cr_assert_eq(e2map_blockmap_build(m, &bm), 0);
	for (size_t i = 0; i < e2map_blockmap_count(bm); i++) {
		const struct e2map_owner *o = e2map_blockmap_get(bm, i);

		if (o->kind != E2MAP_OWNER_JOURNAL)
			continue;
		if (o->lblk + o->count > ji->njblk) {
			ji->jblk = realloc(ji->jblk, (o->lblk + o->count) *
					   sizeof(*ji->jblk));
			cr_assert(ji->jblk);
			ji->njblk = o->lblk + o->count;
		}
		for (uint64_t k = 0; k < o->count; k++)
			ji->jblk[o->lblk + k] = o->start + k;
	}
	e2map_blockmap_free(bm);
	e2map_close(m);
	cr_assert((f = fopen(img, "rb")));
	fseek(f, 0, SEEK_END);
	ji->size = (size_t)ftell(f);
	rewind(f);
	cr_assert((ji->b = malloc(ji->size)));
	cr_assert_eq(fread(ji->b, 1, ji->size, f), ji->size);
	fclose(f);
	fixture_remove(img);
	ji->bs = t_bs(ji->b);
	cr_assert_geq(ji->njblk, 1024);
	cr_assert_eq(get32(jb(ji, 0)), 0xc03b3998u);
	ji->last = get32(jb(ji, 0) + 16);
	ji->first = get32(jb(ji, 0) + 20);
	ji->incompat = get32(jb(ji, 0) + 40);
	cr_assert(ji->last <= ji->njblk && ji->first);
}

/* The size of a tag (no UUID), as the journal's features make it. */
static size_t tag_size(const struct jimg *ji)
{
	if (ji->incompat & 0x10)
		return 16;
	return (ji->incompat & 0x2 ? 12 : 8) + (ji->incompat & 0x8 ? 2 : 0);
}

/* FN on each tag of each descriptor of the log area. */
static unsigned each_tag(struct jimg *ji,
			 void (*fn)(struct jimg *ji, unsigned char *tag))
{
	size_t ts = tag_size(ji), p;
	unsigned n = 0;

	for (uint64_t k = ji->first; k < ji->last; k++) {
		unsigned char *b = jb(ji, k);

		if (get32(b) != 0xc03b3998u || get32(b + 4) != 1)
			continue;
		for (p = 12; p + ts <= ji->bs; ) {
			unsigned flags = b[p + 6] << 8 | b[p + 7];

			fn(ji, b + p);
			n++;
			p += ts + (flags & 2 ? 0 : 16);
			if (flags & 8)
				break;
		}
	}
	return n;
}

static void tag_past_device(struct jimg *ji, unsigned char *tag)
{
	(void)ji;
	put32(tag, 0xfffffff0u);
}

/* Never the last, the UUID never given: the tags run over what follows. */
static void tag_runs_on(struct jimg *ji, unsigned char *tag)
{
	(void)ji;
	tag[6] = 0;
	tag[7] = 2;
}

/* What a reader of the damaged image gets: errors or answers, no crash. */
struct seen {
	unsigned calls;
};

static int count_version(const struct e2map_version *v, void *arg)
{
	(void)v;
	((struct seen *)arg)->calls++;
	return 0;
}

static int count_name(const struct e2map_dir_name *d, void *arg)
{
	cr_assert_eq(strlen(d->name), d->len);
	((struct seen *)arg)->calls++;
	return 0;
}

static int recover_some(uint64_t ino, void *arg)
{
	e2map_journal_t *j = arg;
	struct e2map_recover_plan *p;
	static char buf[1 << 16];

	if (e2map_recover_plan(j, ino, &p) == 0) {
		for (uint64_t off = 0; off < p->size && off < (1u << 20);
		     off += sizeof(buf))
			cr_assert_geq(e2map_recover_pread(p, buf, sizeof(buf),
							  off), 0);
		e2map_recover_free(p);
	}
	return 0;
}

/* Write the damaged image, read its past every way; 0 or the open's error. */
static int exercise(const struct jimg *ji, struct e2map_journal_info *in)
{
	char path[] = "/tmp/e2map-hist-XXXXXX";
	struct seen s = { 0 };
	e2map_journal_t *j;
	e2map_t *m;
	int fd = mkstemp(path), err;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, ji->b, ji->size), (ssize_t)ji->size);
	close(fd);
	cr_assert_eq(e2map_open(path, NULL, &m), 0);
	if ((err = e2map_journal_open(m, &j)) < 0) {
		cr_expect(strlen(e2map_errmsg(m)) > 0);
		e2map_close(m);
		unlink(path);
		return err;
	}
	e2map_journal_info(j, in);
	cr_expect_leq(in->copies, ji->last);
	for (uint64_t ino = 1; ino < 64; ino++)
		e2map_inode_history(j, ino, count_version, &s);
	e2map_dir_history(j, 2, count_name, &s);
	e2map_dir_history(j, 12, count_name, &s);
	e2map_deleted_inodes(j, recover_some, j);
	e2map_journal_close(j);
	e2map_close(m);
	unlink(path);
	return 0;
}

static void free_jimg(struct jimg *ji)
{
	free(ji->b);
	free(ji->jblk);
}

Test(history, tags_past_the_device_are_skipped)
{
	struct e2map_journal_info in, clean;
	struct jimg ji;

	load_jimg("past-1k", &ji);
	cr_assert_eq(exercise(&ji, &clean), 0);
	cr_assert_gt(each_tag(&ji, tag_past_device), 10);
	cr_assert_eq(exercise(&ji, &in), 0);
	cr_expect_gt(in.past_device, 10);
	cr_expect_eq(in.copies, 0, "%" PRIu64 " copies kept", in.copies);
	free_jimg(&ji);
}

Test(history, descriptors_that_run_on_are_cut)
{
	struct e2map_journal_info in;
	struct jimg ji;

	load_jimg("past-1k", &ji);
	cr_assert_gt(each_tag(&ji, tag_runs_on), 10);
	cr_assert_eq(exercise(&ji, &in), 0);
	cr_expect_gt(in.stale_tags, 0);
	free_jimg(&ji);
}

/* Every block of the log a descriptor of one transaction, tags to the
 * inode table: a log that never ends, read once. */
Test(history, every_block_a_descriptor)
{
	struct e2map_journal_info in;
	struct jimg ji;
	uint32_t seq;

	load_jimg("past-ext3-1k", &ji);
	seq = get32(jb(&ji, 0) + 24);
	for (uint64_t k = ji.first; k < ji.last; k++) {
		unsigned char *b = jb(&ji, k);

		memset(b, 0, ji.bs);
		put32(b, 0xc03b3998u);
		put32(b + 4, 1);
		put32(b + 8, seq);
		for (size_t p = 12; p + 8 <= ji.bs; p += 8) {
			put32(b + p, (uint32_t)(k % 64) + 5);
			b[p + 7] = 2;
		}
	}
	cr_assert_eq(exercise(&ji, &in), 0);
	cr_expect_eq(in.copies, 0);
	free_jimg(&ji);
}

/* Revoke blocks whose counts lie (past the block, or huge). */
Test(history, revoke_counts_that_lie)
{
	struct e2map_journal_info in;
	struct jimg ji;
	unsigned n = 0;

	load_jimg("past-1k", &ji);
	for (uint64_t k = ji.first; k < ji.last; k++) {
		unsigned char *b = jb(&ji, k);

		if (get32(b) != 0xc03b3998u || get32(b + 4) != 2)
			continue;
		put32(b + 4, 5);
		put32(b + 12, n++ % 2 ? 0xffffffffu : (uint32_t)ji.bs + 4);
		for (size_t p = 16; p + 4 <= ji.bs; p += 4)
			put32(b + p, (uint32_t)(p % 97));
	}
	cr_assert_gt(n, 2);
	cr_assert_eq(exercise(&ji, &in), 0);
	cr_expect_geq(in.bad_blocks, n);
	free_jimg(&ji);
}

/* Random bytes, then random headers too, all over the log. */
static void random_log(const char *name)
{
	struct e2map_journal_info in;
	struct jimg ji;
	uint64_t x = 22;

	load_jimg(name, &ji);
	for (int round = 0; round < 2; round++) {
		for (uint64_t k = ji.first; k < ji.last; k++) {
			unsigned char *b = jb(&ji, k);

			for (size_t p = 0; p < ji.bs; p += 8) {
				x = x * 6364136223846793005ull +
				    1442695040888963407ull;
				memcpy(b + p, &x, 8);
			}
			if (round && (x >> 40) % 2) {
				put32(b, 0xc03b3998u);
				put32(b + 4, (uint32_t)(x >> 20) % 6);
				put32(b + 8, (uint32_t)(x >> 50) % 8);
			}
		}
		cr_assert_eq(exercise(&ji, &in), 0);
	}
	free_jimg(&ji);
}

Test(history, random_logs_csum) { random_log("past-csum-4k"); }
Test(history, random_logs_ext3) { random_log("past-ext3-1k"); }

Test(history, a_bad_journal_superblock_is_an_error)
{
	struct e2map_journal_info in;
	struct jimg ji;

	load_jimg("past-1k", &ji);
	put32(jb(&ji, 0) + 20, 0);	/* s_first */
	cr_expect_lt(exercise(&ji, &in), 0);
	free_jimg(&ji);
}

/* Every corpus image whose journal opens (128-byte inodes, damaged logs
 * of the e2fsprogs tests): its past read every way, no crash. */
Test(history, corpus_journals)
{
	char **paths;
	int n = fixture_corpus_list(&paths), opened = 0;

	cr_assert_geq(n, 0);
	for (int i = 0; i < n; i++) {
		struct seen s = { 0 };
		e2map_journal_t *j;
		char *img = fixture_decompress(paths[i]);
		e2map_t *m;

		cr_assert(img);
		if (e2map_open(img, "unmountable", &m) == 0) {
			if (e2map_journal_open(m, &j) == 0) {
				opened++;
				for (uint64_t ino = 1; ino < 32; ino++)
					e2map_inode_history(j, ino,
							    count_version, &s);
				e2map_dir_history(j, 2, count_name, &s);
				e2map_deleted_inodes(j, recover_some, j);
				e2map_journal_close(j);
			}
			e2map_close(m);
		}
		fixture_remove(img);
	}
	fixture_corpus_free(paths, n);
	cr_expect_gt(opened, 5, "%d corpus journals opened", opened);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_diff held to the generator's ground truth (scripts/gen/mkdiff.sh:
 * testdata/diff-NAME-{a,b}.img.gz, B a copy of A changed through the
 * kernel, and NAME.changes.jsonl.gz, the changes it made): every change
 * is reported with its kind, no untouched inode is, the data ranges
 * cover what each data op touched; with --bytes the ranges found
 * rewritten in place are those a compare of the two mounts found
 * (NAME.cmp.gz); the paths reported are those rsync -n -i -c itemizes
 * between the two mounts (NAME.rsync.gz), but for the names under a moved
 * directory (below); the bytes to copy cover every byte the compare
 * found different.  Then the hostile pairs and the callback convention.
 */
#include <criterion/criterion.h>

#include <e2map.h>
#include <jansson.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "fixture.h"

/* ---- what e2map_diff handed on, kept ---- */

struct got {
	uint64_t ino;
	uint32_t change;
	char *path_a, *path_b;
	uint64_t size_a, size_b;
	uint32_t mode_a, mode_b;
	struct e2map_diff_range *r;
	size_t nr;
};

struct gots {
	struct got *v;
	size_t n;
	struct e2map_diff_summary sum;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int keep(const struct e2map_diff_entry *e, void *payload)
{
	struct gots *g = payload;
	struct got *x;

	g->v = realloc(g->v, (g->n + 1) * sizeof(*g->v));
	cr_assert(g->v);
	x = &g->v[g->n++];
	x->ino = e->ino;
	x->change = e->change;
	x->path_a = dup_or_null(e->path_a);
	x->path_b = dup_or_null(e->path_b);
	x->size_a = e->st_a.size;
	x->size_b = e->st_b.size;
	x->mode_a = e->st_a.mode;
	x->mode_b = e->st_b.mode;
	x->nr = e->nranges;
	x->r = NULL;
	if (e->nranges) {
		x->r = malloc(e->nranges * sizeof(*x->r));
		cr_assert(x->r);
		memcpy(x->r, e->ranges, e->nranges * sizeof(*x->r));
	}
	cr_assert(!(e->change & E2MAP_DIFF_ERROR), "inode %" PRIu64 ": %s",
		  e->ino, e->detail);
	return 0;
}

/* keep, errors allowed (a damaged pair). */
static int keep_any(const struct e2map_diff_entry *e, void *payload)
{
	struct gots *g = payload;

	g->v = realloc(g->v, (g->n + 1) * sizeof(*g->v));
	cr_assert(g->v);
	memset(&g->v[g->n], 0, sizeof(g->v[g->n]));
	g->v[g->n].ino = e->ino;
	g->v[g->n++].change = e->change;
	return 0;
}

static void gots_free(struct gots *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].path_a);
		free(g->v[i].path_b);
		free(g->v[i].r);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

static const struct got *find(const struct gots *g, uint64_t ino)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].ino == ino)
			return &g->v[i];
	return NULL;
}

/* ---- the pair and its truth ---- */

struct pair {
	char *a, *b;
	e2map_t *ma, *mb;
	json_t **v;
	size_t n;
	uint64_t bs;
	char name[64];
};

static char *gz_to_tmp(const char *name, const char *suffix)
{
	char src[512];

	snprintf(src, sizeof(src), "%s/%s%s", fixture_testdata(), name,
		 suffix);
	return fixture_decompress(src);
}

static void load(struct pair *p, const char *name)
{
	char img[80], line[1 << 16];
	json_error_t e;
	char *path;
	FILE *f;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(img, sizeof(img), "%s-a", name);
	cr_assert((p->a = fixture_image(img)), "%s", img);
	snprintf(img, sizeof(img), "%s-b", name);
	cr_assert((p->b = fixture_image(img)), "%s", img);
	cr_assert_eq(e2map_open(p->a, NULL, &p->ma), 0, "%s", p->a);
	cr_assert_eq(e2map_open(p->b, NULL, &p->mb), 0, "%s", p->b);
	cr_assert((path = gz_to_tmp(name, ".changes.jsonl.gz")));
	cr_assert((f = fopen(path, "r")));
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_loads(line, 0, &e);

		cr_assert(o, "%s: %s", name, e.text);
		p->v = realloc(p->v, (p->n + 1) * sizeof(*p->v));
		cr_assert(p->v);
		p->v[p->n++] = o;
	}
	fclose(f);
	fixture_remove(path);
	cr_assert(p->n > 1);
	p->bs = (uint64_t)json_integer_value(json_object_get(p->v[0],
							     "block_size"));
}

static void unload(struct pair *p)
{
	e2map_close(p->ma);
	e2map_close(p->mb);
	fixture_remove(p->a);
	fixture_remove(p->b);
	for (size_t i = 0; i < p->n; i++)
		json_decref(p->v[i]);
	free(p->v);
}

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static uint64_t ino_of(const json_t *o)
{
	return (uint64_t)json_integer_value(json_object_get(o, "ino"));
}

static void run_diff(struct pair *p, unsigned flags, struct gots *g)
{
	struct e2map_diff_opts o = { E2MAP_DIFF_OPTS_VERSION, 0, NULL };
	int err;

	memset(g, 0, sizeof(*g));
	g->sum.version = E2MAP_DIFF_SUMMARY_VERSION;
	o.flags = flags;
	err = e2map_diff(p->ma, p->mb, &o, keep, g, &g->sum);
	cr_assert_eq(err, 0, "%s: %d %s", p->name, err,
		     e2map_errmsg(p->ma));
}

/* ---- the checks ---- */

/* The bit each op must set. */
static uint32_t op_bit(const char *op)
{
	static const struct { const char *op; uint32_t bit; } t[] = {
		{ "add", E2MAP_DIFF_ADDED }, { "delete", E2MAP_DIFF_DELETED },
		{ "rename", E2MAP_DIFF_RENAMED },
		{ "link_add", E2MAP_DIFF_LINKS },
		{ "link_remove", E2MAP_DIFF_LINKS },
		{ "type", E2MAP_DIFF_TYPE }, { "chmod", E2MAP_DIFF_MODE },
		{ "chown", E2MAP_DIFF_OWNER }, { "touch", E2MAP_DIFF_TIMES },
		{ "xattr", E2MAP_DIFF_XATTR },
		{ "append", E2MAP_DIFF_SIZE | E2MAP_DIFF_DATA },
		{ "overwrite", E2MAP_DIFF_DATA }, { "punch", E2MAP_DIFF_DATA },
		{ "fallocate", E2MAP_DIFF_DATA },
		{ "write_unwritten", E2MAP_DIFF_DATA },
		{ "truncate", E2MAP_DIFF_SIZE },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(op, t[i].op))
			return t[i].bit;
	return 0;
}

/*
 * A later op on the same inode may undo what an earlier one shows (a file
 * deleted after its chmod, a number reused by a new file after): the
 * inode's last fate decides.
 */
static bool superseded(const struct pair *p, size_t i)
{
	uint64_t ino = ino_of(p->v[i]);

	for (size_t j = 0; j < p->n; j++) {
		const char *op = str(p->v[j], "op");

		if (j != i && ino_of(p->v[j]) == ino &&
		    !strcmp(str(p->v[j], "kind"), "change") &&
		    (!strcmp(op, "delete") || !strcmp(op, "type") ||
		     !strcmp(op, "add")) && strcmp(op, str(p->v[i], "op")))
			return true;
	}
	return false;
}

static bool covered(const struct got *x, uint64_t off, uint64_t len,
		    uint64_t bs)
{
	uint64_t from = off / bs * bs, to = (off + len + bs - 1) / bs * bs;

	while (from < to) {
		size_t i;

		for (i = 0; i < x->nr; i++)
			if (x->r[i].offset <= from &&
			    from < x->r[i].offset + x->r[i].length)
				break;
		if (i == x->nr)
			return false;
		from = x->r[i].offset + x->r[i].length;
	}
	return true;
}

/* Data ops whose every touched block is mapped in A or B afterwards. */
static bool data_op(const json_t *c)
{
	const char *op = str(c, "op");

	return !strcmp(op, "append") || !strcmp(op, "overwrite") ||
	       !strcmp(op, "punch") || !strcmp(op, "fallocate") ||
	       !strcmp(op, "write_unwritten");
}

static void check_change(const struct pair *p, const struct gots *g,
			 size_t i)
{
	const json_t *c = p->v[i], *r;
	const struct got *x = find(g, ino_of(c));
	uint32_t bit = op_bit(str(c, "op"));
	size_t k;

	if (!strcmp(str(c, "op"), "dir_entries") || superseded(p, i))
		return;
	cr_assert(x, "%s: %s %s (inode %" PRIu64 ") not reported", p->name,
		  str(c, "op"), str(c, "path"), ino_of(c));
	cr_assert(bit, "%s: unknown op %s", p->name, str(c, "op"));
	cr_assert((x->change & bit) == bit, "%s: %s %s: change 0x%x lacks "
		  "0x%x", p->name, str(c, "op"), str(c, "path"), x->change,
		  bit);
	if (!data_op(c))
		return;
	json_array_foreach(json_object_get(c, "ranges"), k, r) {
		uint64_t off = (uint64_t)json_integer_value(
			json_array_get(r, 0));
		uint64_t len = (uint64_t)json_integer_value(
			json_array_get(r, 1));

		cr_assert(covered(x, off, len, p->bs), "%s: %s %s [%" PRIu64
			  ", +%" PRIu64 ") not covered by its %zu ranges",
			  p->name, str(c, "op"), str(c, "path"), off, len,
			  x->nr);
	}
}

static bool changed_ino(const struct pair *p, uint64_t ino)
{
	for (size_t i = 1; i < p->n; i++)
		if (!strcmp(str(p->v[i], "kind"), "change") &&
		    ino_of(p->v[i]) == ino)
			return true;
	return false;
}

static void check_truth(const struct pair *p, const struct gots *g)
{
	size_t changes = 0, unchanged = 0;

	for (size_t i = 1; i < p->n; i++) {
		const char *kind = str(p->v[i], "kind");

		if (!strcmp(kind, "change")) {
			check_change(p, g, i);
			changes++;
		} else if (!strcmp(kind, "unchanged") &&
			   !changed_ino(p, ino_of(p->v[i]))) {
			cr_assert(!find(g, ino_of(p->v[i])), "%s: unchanged "
				  "%s (inode %" PRIu64 ") reported", p->name,
				  str(p->v[i], "path"), ino_of(p->v[i]));
			unchanged++;
		}
	}
	cr_assert(changes > 20 && unchanged > 20, "%s: %zu, %zu", p->name,
		  changes, unchanged);
	/* Every inode reported is one the generator touched. */
	for (size_t i = 0; i < g->n; i++)
		cr_assert(changed_ino(p, g->v[i].ino), "%s: inode %" PRIu64
			  " (%s) reported, the generator did not touch it",
			  p->name, g->v[i].ino,
			  g->v[i].path_b ? g->v[i].path_b : g->v[i].path_a);
}

/* ---- --bytes against the compare of the two mounts ---- */

/* Files whose only data op is an overwrite in place. */
static bool only_overwritten(const struct pair *p, uint64_t ino)
{
	bool over = false;

	for (size_t i = 1; i < p->n; i++) {
		const json_t *c = p->v[i];

		if (ino_of(c) != ino || strcmp(str(c, "kind"), "change"))
			continue;
		if (!strcmp(str(c, "op"), "overwrite"))
			over = true;
		else if (data_op(c) || !strcmp(str(c, "op"), "truncate") ||
			 !strcmp(str(c, "op"), "type") ||
			 !strcmp(str(c, "op"), "delete") ||
			 !strcmp(str(c, "op"), "add"))
			return false;
	}
	return over;
}

/* Files whose data ops all write bytes: overwrites and appends. */
static bool only_written(const struct pair *p, uint64_t ino)
{
	bool any = false;

	for (size_t i = 1; i < p->n && ino; i++) {
		const json_t *c = p->v[i];
		const char *op = str(c, "op");

		if (ino_of(c) != ino || strcmp(str(c, "kind"), "change"))
			continue;
		if (!strcmp(op, "overwrite") || !strcmp(op, "append"))
			any = true;
		else if (data_op(c) || !strcmp(op, "truncate") ||
			 !strcmp(op, "type") || !strcmp(op, "delete") ||
			 !strcmp(op, "add"))
			return false;
	}
	return any;
}

static uint64_t ino_named(const struct pair *p, const char *path)
{
	for (size_t i = 1; i < p->n; i++)
		if (!strcmp(str(p->v[i], "path"), path))
			return ino_of(p->v[i]);
	return 0;
}

/* X's same_mapping_changed ranges, clipped to EOF, as "OFF LEN;...". */
static void changed_text(const struct got *x, char *out, size_t size)
{
	size_t at = 0;

	out[0] = 0;
	for (size_t i = 0; i < x->nr; i++) {
		uint64_t off = x->r[i].offset, end = off + x->r[i].length;

		if (x->r[i].kind != E2MAP_DIFF_R_SAME_CHANGED)
			continue;
		end = end < x->size_b ? end : x->size_b;
		at += (size_t)snprintf(out + at, size - at, "%" PRIu64
				       " %" PRIu64 ";", off, end - off);
	}
}

/*
 * Each byte written in place or appended is in a range a copy moves
 * (zeroes a punch, fallocate or truncate made are not copied: not here).
 */
static void check_copied(const struct pair *p, const struct gots *g,
			 const char *path, uint64_t off, uint64_t len)
{
	const struct got *x = find(g, ino_named(p, path));
	struct got c;

	cr_assert(x, "%s: %s not reported", p->name, path);
	c = *x;
	c.r = malloc((x->nr + 1) * sizeof(*c.r));
	cr_assert(c.r);
	c.nr = 0;
	for (size_t i = 0; i < x->nr; i++)
		if (x->r[i].kind == E2MAP_DIFF_R_ADDED ||
		    x->r[i].kind == E2MAP_DIFF_R_MOVED ||
		    x->r[i].kind == E2MAP_DIFF_R_WRITTEN ||
		    x->r[i].kind == E2MAP_DIFF_R_SAME_CHANGED)
			c.r[c.nr++] = x->r[i];
	cr_assert(covered(&c, off, len, p->bs), "%s: %s [%" PRIu64 ", +%"
		  PRIu64 ") differs, no copied range holds it", p->name, path,
		  off, len);
	free(c.r);
}

static void check_cmp(const struct pair *p, const struct gots *g)
{
	char line[4096], want[4096] = "", got[4096], cur[4096] = "";
	char *path = gz_to_tmp(p->name, ".cmp.gz");
	size_t checked = 0;
	FILE *f = path ? fopen(path, "r") : NULL;

	cr_assert(f, "%s", p->name);
	/* Lines are grouped by path: close a path's list at the next. */
	for (;;) {
		char *sp = NULL, name[4096] = "";
		unsigned long long off = 0, len = 0;
		bool eof = !fgets(line, sizeof(line), f);

		if (!eof) {
			line[strcspn(line, "\n")] = 0;
			sp = strrchr(line, ' ');
			cr_assert(sp && sp > line);
			*sp = 0;
			len = strtoull(sp + 1, NULL, 10);
			sp = strrchr(line, ' ');
			cr_assert(sp);
			*sp = 0;
			off = strtoull(sp + 1, NULL, 10);
			snprintf(name, sizeof(name), "%s", line);
		}
		if (cur[0] && (eof || strcmp(name, cur))) {
			uint64_t ino = ino_named(p, cur);
			const struct got *x = find(g, ino);

			if (ino && only_overwritten(p, ino)) {
				cr_assert(x, "%s: %s not reported", p->name,
					  cur);
				changed_text(x, got, sizeof(got));
				cr_assert_str_eq(got, want, "%s: %s", p->name,
						 cur);
				checked++;
			}
			want[0] = 0;
		}
		if (eof)
			break;
		snprintf(cur, sizeof(cur), "%s", name);
		if (only_written(p, ino_named(p, name)))
			check_copied(p, g, name, off, len);
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "%llu %llu;", off, len);
	}
	fclose(f);
	fixture_remove(path);
	cr_assert(checked >= 3, "%s: %zu files compared", p->name, checked);
}

/* ---- the paths rsync itemizes ---- */

struct names {
	char **v;
	size_t n;
};

static void names_add(struct names *s, const char *p, size_t len)
{
	s->v = realloc(s->v, (s->n + 1) * sizeof(*s->v));
	cr_assert(s->v);
	s->v[s->n] = strndup(p, len);
	cr_assert(s->v[s->n++]);
}

static bool names_has(const struct names *s, const char *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], p))
			return true;
	return false;
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int name_cb(const char *path, size_t len, void *payload)
{
	names_add(payload, path, len);
	return 0;
}

/* "/path" of each itemized line, " -> target", " => link" and "/" cut. */
static void load_rsync(const struct pair *p, struct names *r)
{
	char line[4096], *path = gz_to_tmp(p->name, ".rsync.gz"), *cut;
	FILE *f = path ? fopen(path, "r") : NULL;

	cr_assert(f, "%s", p->name);
	while (fgets(line, sizeof(line), f)) {
		char *s = line + 12, full[4200];
		size_t len;

		line[strcspn(line, "\n")] = 0;
		if (strlen(line) <= 12)
			continue;
		if ((cut = strstr(s, " -> ")) || (cut = strstr(s, " => ")))
			*cut = 0;
		len = strlen(s);
		while (len && s[len - 1] == '/')
			s[--len] = 0;
		if (!strcmp(s, "."))
			len = 0;
		snprintf(full, sizeof(full), "/%s", len ? s : "");
		names_add(r, full, strlen(full));
	}
	fclose(f);
	fixture_remove(path);
}

/* All names of X in A and B. */
static void all_names(const struct pair *p, e2map_paths_t *pa,
		      e2map_paths_t *pb, const struct got *x,
		      struct names *out)
{
	(void)p;
	if (!(x->change & E2MAP_DIFF_ADDED) || (x->change & E2MAP_DIFF_TYPE))
		cr_assert_eq(e2map_paths_foreach(pa, x->ino, name_cb, out), 0);
	if (!(x->change & E2MAP_DIFF_DELETED) || (x->change & E2MAP_DIFF_TYPE))
		cr_assert_eq(e2map_paths_foreach(pb, x->ino, name_cb, out), 0);
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

/*
 * rsync lists every name under a moved directory as deleted and new;
 * e2map reports the directory, whose inode moved (its children's inodes
 * are untouched: the same number, generation and bytes).
 */
static bool in_moved_dir(const struct gots *g, const struct names *moved,
			 const char *path)
{
	(void)g;
	for (size_t i = 0; i < moved->n; i++)
		if (under(path, moved->v[i]))
			return true;
	return false;
}

static bool is_dir(uint64_t mode_bits)
{
	return (mode_bits & 0170000) == 0040000;
}

static void check_rsync(const struct pair *p, const struct gots *g)
{
	struct names r = { 0 }, ours = { 0 }, moved = { 0 };
	e2map_paths_t *pa, *pb;

	load_rsync(p, &r);
	cr_assert_eq(e2map_paths_build(p->ma, &pa), 0);
	cr_assert_eq(e2map_paths_build(p->mb, &pb), 0);
	for (size_t i = 0; i < g->n; i++) {
		const struct got *x = &g->v[i];
		struct names mine = { 0 };
		bool seen = false;

		all_names(p, pa, pb, x, &mine);
		for (size_t k = 0; k < mine.n; k++) {
			names_add(&ours, mine.v[k], strlen(mine.v[k]));
			seen |= names_has(&r, mine.v[k]);
			if ((x->change & E2MAP_DIFF_RENAMED) &&
			    (is_dir(x->mode_a) || is_dir(x->mode_b)))
				names_add(&moved, mine.v[k],
					  strlen(mine.v[k]));
		}
		/* Every change here is one rsync sees (fallocate moves the
		 * mtime too), but for the names under a moved directory. */
		if (!seen)
			cr_assert(mine.n && in_moved_dir(g, &moved, mine.v[0]),
				  "%s: %s (inode %" PRIu64 ", change 0x%x) not "
				  "itemized by rsync", p->name,
				  mine.n ? mine.v[0] : "?", x->ino, x->change);
		names_free(&mine);
	}
	for (size_t i = 0; i < r.n; i++)
		cr_assert(names_has(&ours, r.v[i]) ||
			  in_moved_dir(g, &moved, r.v[i]),
			  "%s: rsync itemizes %s, e2map diff does not",
			  p->name, r.v[i]);
	names_free(&r);
	names_free(&ours);
	names_free(&moved);
	e2map_paths_free(pa);
	e2map_paths_free(pb);
}

/*
 * Only a file or a directory in B has ranges: a symlink, a device or a
 * deleted inode has no data to copy (an entry once carried the ranges of
 * the inode before it).
 */
static void check_unmapped(const struct gots *g)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct got *x = &g->v[i];

		if (is_dir(x->mode_b) || (x->mode_b & 0170000) == 0100000)
			continue;
		cr_assert(x->nr == 0 && !(x->change & E2MAP_DIFF_DATA),
			  "inode %" PRIu64 " (mode 0%o): %zu ranges", x->ino,
			  (unsigned)x->mode_b, x->nr);
	}
}

static void check_pair_all(const char *name)
{
	struct pair p;
	struct gots g, gb;

	load(&p, name);
	run_diff(&p, 0, &g);
	check_truth(&p, &g);
	check_rsync(&p, &g);
	check_unmapped(&g);
	cr_assert(g.sum.files == g.n && g.sum.copy_bytes > 0 &&
		  g.sum.unchecked_bytes > 0 && g.sum.allocated_a > 0 &&
		  g.sum.apparent_b >= g.sum.allocated_b);
	run_diff(&p, E2MAP_DIFF_BYTES, &gb);
	check_truth(&p, &gb);
	check_cmp(&p, &gb);
	cr_assert_eq(gb.sum.unchecked_bytes, 0);
	cr_assert(gb.sum.copy_bytes <= g.sum.copy_bytes);
	gots_free(&g);
	gots_free(&gb);
	unload(&p);
}

Test(diff, pair_4k) { check_pair_all("diff-4k"); }
Test(diff, pair_1k) { check_pair_all("diff-1k"); }
Test(diff, pair_bigalloc) { check_pair_all("diff-bigalloc"); }
Test(diff, pair_inline) { check_pair_all("diff-inline"); }
Test(diff, pair_ext3) { check_pair_all("diff-ext3"); }

/* ---- hostile pairs, the image against itself, the call's contract ---- */

static e2map_t *open_image(const char *name, char **path)
{
	e2map_t *m;

	cr_assert((*path = fixture_image(name)), "%s", name);
	cr_assert_eq(e2map_open(*path, NULL, &m), 0, "%s", name);
	return m;
}

static int count_cb(const struct e2map_diff_entry *e, void *payload)
{
	(void)e;
	++*(int *)payload;
	return 0;
}

static int diff_count(e2map_t *a, e2map_t *b, unsigned flags, int *n)
{
	struct e2map_diff_opts o = { E2MAP_DIFF_OPTS_VERSION, 0, NULL };

	o.flags = flags;
	*n = 0;
	return e2map_diff(a, b, &o, count_cb, n, NULL);
}

Test(diff, itself_reports_nothing)
{
	char *pa;
	e2map_t *a = open_image("diff-4k-b", &pa);
	struct e2map_diff_summary s = E2MAP_DIFF_SUMMARY_INIT;
	struct e2map_diff_opts o = E2MAP_DIFF_OPTS_INIT;
	int n = 0;

	o.flags = E2MAP_DIFF_BYTES;
	cr_assert_eq(e2map_diff(a, a, &o, count_cb, &n, &s), 0);
	cr_assert_eq(n, 0);
	cr_assert(s.files == 0 && s.copy_bytes == 0 &&
		  s.inodes_differing == 0 && s.inodes_walked == 0);
	cr_assert(s.apparent_a == s.apparent_b && s.allocated_a > 0);
	e2map_close(a);
	fixture_remove(pa);
}

Test(diff, other_filesystems_refused)
{
	char *p4, *p1, *pi;
	e2map_t *a = open_image("diff-4k-a", &p4);
	e2map_t *k1 = open_image("diff-1k-a", &p1);
	e2map_t *in = open_image("diff-inline-a", &pi);
	int n;

	/* Unrelated: each mkfs gave its own UUID. */
	cr_assert_eq(diff_count(a, in, 0, &n), -EINVAL);
	cr_assert(strstr(e2map_errmsg(a), "UUIDs differ"), "%s",
		  e2map_errmsg(a));
	cr_assert_eq(n, 0);
	/* Block sizes: refused even when forced. */
	cr_assert_eq(diff_count(a, k1, E2MAP_DIFF_FORCE, &n), -EINVAL);
	cr_assert(strstr(e2map_errmsg(a), "block sizes differ"), "%s",
		  e2map_errmsg(a));
	/* Forced, one geometry: compared, nothing crashes, much differs. */
	cr_assert_eq(diff_count(a, in, E2MAP_DIFF_FORCE, &n), 0);
	cr_assert(n > 10);
	e2map_close(a);
	e2map_close(k1);
	e2map_close(in);
	fixture_remove(p4);
	fixture_remove(p1);
	fixture_remove(pi);
}

/* Where debugfs puts inode INO of IMG: byte offset, or -1. */
static long long inode_offset(const char *img, unsigned ino, unsigned bs)
{
	char cmd[600], line[256];
	long long blk = -1, off = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "debugfs -R 'imap <%u>' '%s' 2>/dev/null",
		 ino, img);
	if (!(p = popen(cmd, "r")))
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " located at block %lld, offset %llx", &blk,
			   &off) == 2)
			break;
	pclose(p);
	return blk < 0 ? -1 : blk * bs + off;
}

/* A copy of NAME with inodes 12 on scribbled over. */
static char *scribbled(const char *name, unsigned bs, char **orig)
{
	char *copy;
	long long at;
	FILE *f;

	cr_assert((*orig = fixture_image(name)));
	cr_assert((copy = fixture_image(name)));
	at = inode_offset(copy, 12, bs);
	if (at < 0)
		cr_skip_test("debugfs cannot locate inode 12 of %s", name);
	cr_assert((f = fopen(copy, "r+b")));
	cr_assert_eq(fseek(f, at, SEEK_SET), 0);
	for (unsigned i = 0; i < 2 * bs; i++)
		fputc((int)((i * 2654435761u) >> 13) & 0xff, f);
	fclose(f);
	return copy;
}

static int checked_cb(const struct e2map_diff_entry *e, void *payload)
{
	(void)payload;
	cr_assert(e->ino > 0);
	cr_assert(!e->err || (e->change & E2MAP_DIFF_ERROR));
	cr_assert(e->detail);
	for (size_t i = 0; i < e->nranges; i++)
		cr_assert(e->ranges[i].length > 0);
	return 0;
}

static void corrupt_pair(const char *name, unsigned bs)
{
	char *orig, *bad = scribbled(name, bs, &orig);
	struct e2map_diff_opts o = E2MAP_DIFF_OPTS_INIT;
	e2map_t *a, *b;
	int err;

	cr_assert_eq(e2map_open(orig, NULL, &a), 0);
	if ((err = e2map_open(bad, NULL, &b)) == 0) {
		o.flags = E2MAP_DIFF_BYTES;
		err = e2map_diff(a, b, &o, checked_cb, NULL, NULL);
		cr_assert(err == 0 || (err < 0 && *e2map_errmsg(a)), "%d", err);
		err = e2map_diff(b, a, &o, checked_cb, NULL, NULL);
		cr_assert(err <= 0);
		e2map_close(b);
	} else {
		cr_assert(err < 0 && *e2map_errmsg(NULL));
	}
	e2map_close(a);
	fixture_remove(orig);
	fixture_remove(bad);
}

Test(diff, corrupt_inodes_no_crash)
{
	corrupt_pair("diff-4k-b", 4096);
	corrupt_pair("corpus/e2fsprogs/f_badinode", 1024);
}

/* debugfs -w (and FLAGS) runs REQ on IMG. */
static void debugfs_w(const char *img, const char *flags, const char *req)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "debugfs %s -w -R '%s' '%s' >/dev/null 2>&1",
		 flags, req, img);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Extent node BLK of IMG: depth DEPTH, N index entries all at CHILD. */
static void put_index(FILE *f, unsigned blk, unsigned depth, unsigned n,
		      unsigned child)
{
	unsigned char node[4096] = { 0x0a, 0xf3 };

	node[2] = n & 0xff;
	node[3] = n >> 8;
	node[4] = 340 & 0xff;
	node[5] = 340 >> 8;
	node[6] = depth;
	for (unsigned i = 0; i < n && depth; i++) {
		unsigned char *e = node + 12 + 12 * i;

		e[0] = i & 0xff;
		e[1] = i >> 8;
		memcpy(e + 4, &child, 4);	/* little-endian hosts */
	}
	cr_assert_eq(fseek(f, (long)blk * 4096, SEEK_SET), 0);
	cr_assert_eq(fwrite(node, 1, sizeof(node), f), sizeof(node));
}

/* Inode 12 of IMG made an extent root of DEPTH with one entry at BLK. */
static void set_root(const char *img, unsigned depth, unsigned blk)
{
	static const char *const fields[] = { "block[0] 0x0001f30a",
		"block[1] 0x%x", "block[2] 0", "block[3] 0", "block[4] %u",
		"block[5] 0" };
	char req[80], arg[64];

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		snprintf(arg, sizeof(arg), fields[i],
			 i == 1 ? 0x4u | depth << 16 : blk);
		snprintf(req, sizeof(req), "sif <12> %s", arg);
		debugfs_w(img, "", req);
	}
}

/*
 * Equal inodes whose extent trees are hostile, the image against itself:
 * an index block that points at itself (it recursed until the stack
 * overflowed), and a chain of index blocks each pointing 340 times at
 * the next (340^4 reads: a hang).  Blocks 4000-4005 of diff-4k-a are
 * free.
 */
Test(diff, hostile_trees_end, .timeout = 30)
{
	char *p = fixture_image("diff-4k-a");
	e2map_t *m;
	FILE *f;
	int n;

	cr_assert(p);
	cr_assert((f = fopen(p, "r+b")));
	put_index(f, 4000, 1, 1, 4000);
	for (unsigned d = 4; d >= 1; d--)
		put_index(f, 4005 - d, d, 340, 4006 - d);
	put_index(f, 4005, 0, 0, 0);
	fclose(f);
	set_root(p, 2, 4000);
	cr_assert_eq(e2map_open(p, NULL, &m), 0);
	cr_assert_eq(diff_count(m, m, 0, &n), 0);
	e2map_close(m);
	set_root(p, 5, 4001);
	cr_assert_eq(e2map_open(p, NULL, &m), 0);
	cr_assert_eq(diff_count(m, m, 0, &n), 0);
	e2map_close(m);
	fixture_remove(p);
}

/* IMG's inode 36 (/docs/f05) mapping blocks 1100-3999 four times over, its
 * i_size 1 TiB; touched to MTIME. */
static void map_again(const char *img, const char *mtime)
{
	unsigned char root[60] = { 0x0a, 0xf3, 4, 0, 4, 0 };
	long long at = inode_offset(img, 36, 4096);
	char req[80];
	FILE *f;

	cr_assert(at > 0);
	for (unsigned k = 0; k < 4; k++) {
		unsigned char *e = root + 12 + 12 * k;
		unsigned lblk = k * 2900, pblk = 1100;

		memcpy(e, &lblk, 4);	/* little-endian hosts */
		e[4] = 2900 & 0xff;
		e[5] = 2900 >> 8;
		memcpy(e + 8, &pblk, 4);
	}
	cr_assert((f = fopen(img, "r+b")));
	cr_assert_eq(fseek(f, (long)at + 0x28, SEEK_SET), 0);
	cr_assert_eq(fwrite(root, 1, sizeof(root), f), sizeof(root));
	fclose(f);
	debugfs_w(img, "-n", "sif <36> size 0x10000000000");
	snprintf(req, sizeof(req), "sif <36> mtime %s", mtime);
	debugfs_w(img, "", req);
}

/*
 * --bytes reads no more of one inode than the device holds: a tree
 * mapping the same blocks again and again (up to 2^32 blocks of them)
 * would read for hours.  What is left is same_mapping_unchecked.
 */
Test(diff, bytes_read_at_most_the_device)
{
	char *pa = fixture_image("diff-4k-a"), *pb = fixture_image("diff-4k-a");
	struct e2map_diff_summary s = E2MAP_DIFF_SUMMARY_INIT;
	struct e2map_diff_opts o = E2MAP_DIFF_OPTS_INIT;
	e2map_t *a, *b;
	int n = 0;

	cr_assert(pa && pb);
	map_again(pa, "0x6553f20c");
	map_again(pb, "0x6553f20d");
	cr_assert_eq(e2map_open(pa, NULL, &a), 0);
	cr_assert_eq(e2map_open(pb, NULL, &b), 0);
	o.flags = E2MAP_DIFF_BYTES;
	cr_assert_eq(e2map_diff(a, b, &o, count_cb, &n, &s), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(s.unchecked_bytes, (4 * 2900 - 4096) * 4096ull);
	e2map_close(a);
	e2map_close(b);
	fixture_remove(pa);
	fixture_remove(pb);
}

/*
 * Blocks A maps and B does not: punched below B's EOF, removed past it,
 * one stretch split at B's EOF block.  B: /docs/f05 (six blocks) cut to
 * its first extent block and an i_size of 10000, by debugfs.
 */
Test(diff, punched_below_eof_removed_past)
{
	char *pa, *pb = fixture_image("diff-4k-a");
	e2map_t *a = open_image("diff-4k-a", &pa), *b;
	struct e2map_diff_opts o = E2MAP_DIFF_OPTS_INIT;
	struct gots g = { 0 };

	debugfs_w(pb, "", "sif <36> size 10000");
	debugfs_w(pb, "", "sif <36> block[4] 1");
	cr_assert_eq(e2map_open(pb, NULL, &b), 0);
	g.sum.version = E2MAP_DIFF_SUMMARY_VERSION;
	cr_assert_eq(e2map_diff(a, b, &o, keep, &g, &g.sum), 0);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.v[0].nr, 3);
	cr_assert(g.v[0].r[1].kind == E2MAP_DIFF_R_PUNCHED &&
		  g.v[0].r[1].offset == 4096 && g.v[0].r[1].length == 8192);
	cr_assert(g.v[0].r[2].kind == E2MAP_DIFF_R_REMOVED &&
		  g.v[0].r[2].offset == 12288 &&
		  g.v[0].r[2].length == 12288);
	gots_free(&g);
	e2map_close(a);
	e2map_close(b);
	fixture_remove(pa);
	fixture_remove(pb);
}

/*
 * A slot past a group's itable_unused is no inode, even with the bytes of
 * one: A's group 0 counts one inode fewer (760 unused, by debugfs), so
 * /special/acl-keep (265), in equal table blocks, is added in B.
 */
Test(diff, itable_unused_counts)
{
	char *pa = fixture_image("diff-4k-a"), *pb;
	e2map_t *a, *b = open_image("diff-4k-a", &pb);
	struct e2map_diff_opts o = E2MAP_DIFF_OPTS_INIT;
	struct gots g = { 0 };

	cr_assert(pa);
	debugfs_w(pa, "", "set_bg 0 itable_unused 760");
	debugfs_w(pa, "", "set_bg 0 checksum calc");
	cr_assert_eq(e2map_open(pa, NULL, &a), 0);
	g.sum.version = E2MAP_DIFF_SUMMARY_VERSION;
	cr_assert_eq(e2map_diff(a, b, &o, keep_any, &g, &g.sum), 0);
	cr_assert_eq(g.n, 1, "%zu entries", g.n);
	cr_assert(g.v[0].ino == 265 && (g.v[0].change & E2MAP_DIFF_ADDED),
		  "inode %" PRIu64 " 0x%x", g.v[0].ino, g.v[0].change);
	gots_free(&g);
	e2map_close(a);
	e2map_close(b);
	fixture_remove(pa);
	fixture_remove(pb);
}

static int stop_cb(const struct e2map_diff_entry *e, void *payload)
{
	int *calls = payload;

	(void)e;
	calls[0]++;
	return calls[1];
}

Test(diff, callback_and_versions)
{
	char *pa, *pb;
	e2map_t *a = open_image("diff-1k-a", &pa);
	e2map_t *b = open_image("diff-1k-b", &pb);
	struct e2map_diff_opts o = E2MAP_DIFF_OPTS_INIT;
	struct e2map_diff_summary s = E2MAP_DIFF_SUMMARY_INIT;
	const int stops[] = { 7, -EIO, E2MAP_EUSER };
	int calls[2];

	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		calls[0] = 0;
		calls[1] = stops[i];
		cr_assert_eq(e2map_diff(a, b, &o, stop_cb, calls, &s),
			     stops[i]);
		cr_assert_eq(calls[0], 1);
	}
	o.version = 99;
	cr_assert_eq(e2map_diff(a, b, &o, stop_cb, calls, NULL), -EINVAL);
	o.version = E2MAP_DIFF_OPTS_VERSION;
	s.version = 99;
	cr_assert_eq(e2map_diff(a, b, &o, stop_cb, calls, &s), -EINVAL);
	cr_assert_eq(s.files, 0);
	cr_assert_eq(e2map_diff(a, NULL, &o, stop_cb, calls, NULL), -EINVAL);
	cr_assert_str_eq(e2map_diff_kind_name(E2MAP_DIFF_R_SAME_UNCHECKED),
			 "same_mapping_unchecked");
	cr_assert_str_eq(e2map_diff_change_name(E2MAP_DIFF_XATTR), "xattr");
	cr_assert_null(e2map_diff_change_name(3));
	e2map_close(a);
	e2map_close(b);
	fixture_remove(pa);
	fixture_remove(pb);
}

/* The CLI's jsonl: a line per inode, the summary last; PATH narrows it. */
Test(diff, cli_jsonl_and_path)
{
	char *pa = fixture_image("diff-ext3-a");
	char *pb = fixture_image("diff-ext3-b");
	struct cli_out r, rp;
	const char *args[] = { "diff", "--format", "jsonl", pa, pb, NULL,
			       NULL };
	char *last;
	size_t lines = 0;

	cr_assert(pa && pb);
	cr_assert_eq(cli_run(args, &r), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	for (char *s = r.out; (s = strchr(s, '\n')); s++)
		lines++;
	cr_assert(lines > 20);
	r.out[r.out_len - 1] = 0;
	last = strrchr(r.out, '\n');
	cr_assert(last && !strncmp(last + 1, "{\"summary\":{\"files\":", 20),
		  "%s", last);
	cr_assert_eq((size_t)strtoull(last + 21, NULL, 10), lines - 1);
	args[5] = "/special";
	cr_assert_eq(cli_run(args, &rp), 0);
	cr_assert_eq(rp.status, 0, "%s", rp.err);
	/* Each inode with a name under /special (a hard link's other names
	 * in /docs or /src), none only elsewhere. */
	cr_assert(strstr(rp.out, "\"/special/") && !strstr(rp.out, "\"/media/")
		  && rp.out_len < r.out_len / 2, "%s", rp.out);
	cli_out_free(&r);
	cli_out_free(&rp);
	fixture_remove(pa);
	fixture_remove(pb);
}

/* The leaf block under PATH's one-level extent tree, by debugfs; or 0. */
static uint64_t leaf_block(const char *img, const char *path)
{
	char cmd[600], line[256];
	unsigned long long lo, hi, pblk = 0;
	unsigned l0, l1, e0, e1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "debugfs -R 'ex %s' '%s' 2>/dev/null",
		 path, img);
	if (!(p = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " %u/ %u %u/ %u %llu - %llu %llu", &l0, &l1,
			   &e0, &e1, &lo, &hi, &pblk) == 7 && l0 == 0 &&
		    l1 == 1)
			break;
	pclose(p);
	return l0 == 0 && l1 == 1 ? pblk : 0;
}

/*
 * An extent leaf changed under an inode whose bytes did not: the inode
 * is still compared (its leaf read in both), and reported alone.
 */
Test(diff, leaf_changed_under_an_equal_inode)
{
	char *pa, *pb = fixture_image("diff-4k-a");
	e2map_t *a = open_image("diff-4k-a", &pa), *b;
	struct e2map_stat st = E2MAP_STAT_INIT;
	struct gots g = { 0 };
	struct e2map_diff_opts o = E2MAP_DIFF_OPTS_INIT;
	uint64_t leaf = leaf_block(pb, "/special/frag-b");
	unsigned char start[4];
	FILE *f;

	if (!leaf)
		cr_skip_test("debugfs cannot show /special/frag-b's leaf");
	/* The second extent's start block, one further on. */
	cr_assert((f = fopen(pb, "r+b")));
	cr_assert_eq(fseek(f, (long)(leaf * 4096 + 12 + 12 + 8), SEEK_SET), 0);
	cr_assert_eq(fread(start, 1, 4, f), 4);
	start[0]++;
	cr_assert_eq(fseek(f, (long)(leaf * 4096 + 12 + 12 + 8), SEEK_SET), 0);
	cr_assert_eq(fwrite(start, 1, 4, f), 4);
	fclose(f);
	cr_assert_eq(e2map_open(pb, NULL, &b), 0);
	cr_assert_eq(e2map_path_stat(a, "/special/frag-b", &st), 0);
	g.sum.version = E2MAP_DIFF_SUMMARY_VERSION;
	cr_assert_eq(e2map_diff(a, b, &o, keep_any, &g, &g.sum), 0);
	cr_assert_eq(g.n, 1, "%zu entries", g.n);
	cr_assert_eq(g.v[0].ino, st.ino);
	cr_assert(g.v[0].change & (E2MAP_DIFF_DATA | E2MAP_DIFF_ERROR),
		  "0x%x", g.v[0].change);
	gots_free(&g);
	e2map_close(a);
	e2map_close(b);
	fixture_remove(pa);
	fixture_remove(pb);
}

/* ---- every option and format of the CLI ---- */

static struct cli_out diff_cli(const char *const *args, int status)
{
	struct cli_out r;

	cr_assert_eq(cli_run(args, &r), 0);
	cr_assert_eq(r.status, status, "%s: %s", args[1], r.err);
	return r;
}

/* The count of lines holding NEEDLE. */
static size_t lines_with(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *l = s; *l; l = strchr(l, '\n') + 1) {
		const char *end = strchr(l, '\n');

		if (!end)
			break;
		n += memmem(l, (size_t)(end - l), needle, strlen(needle)) != NULL;
	}
	return n;
}

/*
 * table and csv name the inodes jsonl names: a table line per inode, csv
 * a row per range (at least one per inode).
 */
Test(diff, table_and_csv_are_jsonl)
{
	char *pa = fixture_image("diff-4k-a"), *pb = fixture_image("diff-4k-b");
	struct cli_out j, t, c;
	json_t *sum;
	const char *last;
	size_t files;

	cr_assert(pa && pb);
	j = diff_cli((const char *[]){ "diff", "--format", "jsonl", pa, pb,
				       NULL }, 0);
	t = diff_cli((const char *[]){ "diff", pa, pb, NULL }, 0);
	c = diff_cli((const char *[]){ "diff", "--format", "csv", pa, pb,
				       NULL }, 0);
	j.out[j.out_len - 1] = 0;
	last = strrchr(j.out, '\n') + 1;
	cr_assert((sum = json_loads(last, 0, NULL)), "%s", last);
	files = (size_t)json_integer_value(json_object_get(
		json_object_get(sum, "summary"), "files"));
	cr_assert_gt(files, 20);
	/* The table: a header, a line per inode, the summary line. */
	cr_expect(strstr(t.out, "INODE CHANGE"), "%s", t.out);
	cr_expect(strstr(t.out, "files touched"), "%s", t.out);
	for (const char *l = j.out; l < last; l = strchr(l, '\n') + 1) {
		json_t *o = json_loadb(l, strcspn(l, "\n"), 0, NULL);
		const char *path = str(o, "path");
		char want[4200];

		cr_assert(o, "%.*s", (int)strcspn(l, "\n"), l);
		if (*path) {
			snprintf(want, sizeof(want), " %s", path);
			cr_expect_geq(lines_with(t.out, want), 1, "table: %s",
				      path);
			cr_expect_geq(lines_with(c.out, path), 1, "csv: %s",
				      path);
		}
		json_decref(o);
	}
	json_decref(sum);
	cli_out_free(&j);
	cli_out_free(&t);
	cli_out_free(&c);
	fixture_remove(pa);
	fixture_remove(pb);
}

/* PART's first sector in the sfdisk dump of DISK ("gpt.img2 : start="). */
static long long part_start(const char *dir, const char *disk, int part)
{
	char path[4096], line[512], want[64];
	long long start = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%.*s.sfdisk", dir,
		 (int)strcspn(disk, "."), disk);
	snprintf(want, sizeof(want), "%s%d : start=", disk, part);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			start = strtoll(line + strlen(want), NULL, 10);
	fclose(f);
	return start;
}

/*
 * A partition against the same filesystem as a bare image, by number and
 * by byte offset, on either side, and through an E01: nothing changed.
 */
Test(diff, partitions_and_offsets_of_either_side)
{
	const char *dir = getenv("E2MAP_DISKS");
	char disk[4096], bare[4096], off[32];
	long long start;
	struct cli_out r;

	if (!dir)
		cr_skip_test("E2MAP_DISKS is not set (run through make check)");
	snprintf(disk, sizeof(disk), "%s/gpt.img", dir);
	snprintf(bare, sizeof(bare), "%s/gpt-p2.img", dir);
	if ((start = part_start(dir, "gpt.img", 2)) <= 0)
		cr_skip_test("no gpt.sfdisk (make builds tests/disks)");
	snprintf(off, sizeof(off), "%lld", start * 512);
	r = diff_cli((const char *[]){ "diff", "--partition-a", "2", disk,
				       bare, NULL }, 0);
	cr_expect(strstr(r.out, "0 files touched"), "%s", r.out);
	cli_out_free(&r);
	r = diff_cli((const char *[]){ "diff", "--partition-b", "2", bare,
				       disk, NULL }, 0);
	cr_expect(strstr(r.out, "0 files touched"), "%s", r.out);
	cli_out_free(&r);
	r = diff_cli((const char *[]){ "diff", "--offset-a", off,
				       "--offset-b", off, disk, disk, NULL },
		     0);
	cr_expect(strstr(r.out, "0 files touched"), "%s", r.out);
	cli_out_free(&r);
	/* Through a container: E01's partition 3 is gpt-p3.img. */
	snprintf(disk, sizeof(disk), "%s/gpt.E01", dir);
	snprintf(bare, sizeof(bare), "%s/gpt-p3.img", dir);
	r = diff_cli((const char *[]){ "diff", "--partition-a", "3", disk,
				       bare, NULL }, 0);
	cr_expect(strstr(r.out, "0 files touched"), "%s", r.out);
	cli_out_free(&r);
	snprintf(disk, sizeof(disk), "%s/gpt.img", dir);
	/* Partition 1 holds no ext filesystem: one clear line. */
	r = diff_cli((const char *[]){ "diff", "--partition-a", "1",
				       "--partition-b", "2", disk, disk,
				       NULL }, 1);
	cr_expect(strstr(r.err, "not an ext2/3/4 filesystem"), "%s", r.err);
	cli_out_free(&r);
}

/*
 * --atime: an access time moved (debugfs on a scratch copy) is a change
 * only with --atime; --replay and --unmountable reach both sides.
 */
Test(diff, atime_replay_unmountable)
{
	char *pa = fixture_image("diff-4k-a"), *pb = fixture_image("diff-4k-a");
	char cmd[9000], *dirty = fixture_image("dirty-ext4-4k");
	char path[4096], *bad;
	struct cli_out r;

	cr_assert(pa && pb && dirty);
	snprintf(cmd, sizeof(cmd), "debugfs -w -R 'sif /docs atime "
		 "20200101000000' '%s' >/dev/null 2>&1", pb);
	if (system(cmd) != 0)
		cr_skip_test("no debugfs");
	r = diff_cli((const char *[]){ "diff", pa, pb, NULL }, 0);
	cr_expect(strstr(r.out, "0 files touched"), "%s", r.out);
	cli_out_free(&r);
	r = diff_cli((const char *[]){ "diff", "--atime", "--format", "jsonl",
				       pa, pb, NULL }, 0);
	cr_expect(strstr(r.out, "\"path\":\"/docs\"") &&
		  strstr(r.out, "\"times\""), "%s", r.out);
	cr_expect(strstr(r.out, "\"files\":1,"), "%s", r.out);
	cli_out_free(&r);
	r = diff_cli((const char *[]){ "diff", "--replay", dirty, dirty,
				       NULL }, 0);
	cr_expect(strstr(r.out, "0 files touched"), "%s", r.out);
	cli_out_free(&r);
	snprintf(path, sizeof(path), "%s/corpus/e2fsprogs/f_illitable.img.gz",
		 fixture_testdata());
	cr_assert((bad = fixture_decompress(path)));
	r = diff_cli((const char *[]){ "diff", bad, bad, NULL }, 1);
	cr_expect(strstr(r.err, "Inode table"), "%s", r.err);
	cli_out_free(&r);
	/* Read past the refusal, the bad table is an error record. */
	r = diff_cli((const char *[]){ "diff", "--unmountable", bad, bad,
				       NULL }, 0);
	cr_expect(strstr(r.out, "...E ") && strstr(r.out, "- (Filesystem "
		  "metadata is corrupted: group 0: bad inode table)"), "%s",
		  r.out);
	cli_out_free(&r);
	fixture_remove(pa);
	fixture_remove(pb);
	fixture_remove(dirty);
	fixture_remove(bad);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map scan --hash and --format dfxml: a regular file's digests
 * (e2map_file_digest over what read(2) returns) and an inode's byte runs
 * (e2map_file_walk, the mapping walk FIEMAP and seek answer from), and
 * DFXML as fiwalk writes it, so that the DFXML tools read it as they read
 * fiwalk's: a fileobject per name, its byte runs in the disk (the
 * partition's or --offset's start added), fill='0' for what reads as
 * zeroes (holes, unwritten extents), type='resident' for inline data.
 */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int scan_parse_digests(const char *arg, void *field)
{
	static const unsigned bits[] = { E2MAP_DIGEST_MD5, E2MAP_DIGEST_SHA1,
					 E2MAP_DIGEST_SHA256 };
	unsigned algs = 0;
	const char *p = arg;

	while (*p) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < 3; i++) {
			const char *name = e2map_digest_name(bits[i]);

			if (strlen(name) == n && !memcmp(p, name, n))
				break;
		}
		if (i == 3)
			return -EINVAL;
		algs |= bits[i];
		p += n;
		if (*p == ',' && !*++p)
			return -EINVAL;		/* "md5," */
	}
	if (!algs)
		return -EINVAL;
	*(unsigned *)field = algs;
	return 0;
}

int scan_parse_size(const char *arg, void *field)
{
	int64_t v;

	if (e2map_parse_bytes(arg, &v) < 0 || v < 0)
		return -EINVAL;
	*(uint64_t *)field = (uint64_t)v;
	return 0;
}

/* ---- what one open of the inode gives ---- */

static bool joins(const struct e2map_run *a, const struct e2map_run *b)
{
	bool fill_a = a->kind == E2MAP_RUN_HOLE ||
		      a->kind == E2MAP_RUN_UNWRITTEN;
	bool fill_b = b->kind == E2MAP_RUN_HOLE ||
		      b->kind == E2MAP_RUN_UNWRITTEN;

	if (a->lblk + a->nblk != b->lblk)
		return false;
	if (fill_a || fill_b)
		return fill_a && fill_b;
	return a->kind == E2MAP_RUN_DATA && b->kind == E2MAP_RUN_DATA &&
	       a->pblk + a->nblk == b->pblk;
}

static int add_run(const struct e2map_run *run, void *payload)
{
	struct scan_extra *x = payload;

	if (x->nruns && joins(&x->runs[x->nruns - 1], run)) {
		x->runs[x->nruns - 1].nblk += run->nblk;
		return 0;
	}
	if (x->nruns == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 16;
		struct e2map_run *v = realloc(x->runs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		x->runs = v;
		x->cap = cap;
	}
	x->runs[x->nruns++] = *run;
	return 0;
}

static int walk_runs(e2map_file_t *f, const struct e2map_record *r,
		     struct scan_extra *x)
{
	uint64_t nblk = (r->st.size + x->bsize - 1) / x->bsize;
	int err;

	if (!nblk)
		return 0;
	err = e2map_file_walk(f, 0, nblk, add_run, x);
	if (err == -ENOMEM)
		return err;
	x->map_err = err;
	return 0;
}

static void hash_file(e2map_t *m, e2map_file_t *f, uint64_t size,
		      struct scan_extra *x)
{
	x->d = (struct e2map_digest)E2MAP_DIGEST_INIT;
	if (x->hash_max && size > x->hash_max) {
		x->hash_err = -EFBIG;
		snprintf(x->hash_why, sizeof(x->hash_why),
			 "larger than the hash-max limit, not read");
		return;
	}
	x->hash_err = e2map_file_digest(f, x->algs, &x->d);
	x->hashed = x->hash_err == 0;
	if (x->hash_err)
		snprintf(x->hash_why, sizeof(x->hash_why), "%s",
			 e2map_errmsg(m));
}

/* PATH as open(2) of it reaches it: the parent's checks (a file that is
 * not encrypted in an encrypted directory is EPERM) are the name's, not
 * the inode's alone. */
static int open_named(e2map_t *m, const char *path, size_t len,
		      e2map_file_t **f)
{
	char *p = strndup(path, len);
	int err;

	if (!p)
		return -ENOMEM;
	err = e2map_file_open_flags(m, p, E2MAP_O_NOFOLLOW, f);
	free(p);
	return err;
}

int scan_extra_fill(e2map_t *m, const struct e2map_record *r,
		    const char *path, size_t len, struct scan_extra *x)
{
	bool reg = S_ISREG(r->st.mode), hash = x->algs && reg;
	/* A damaged map lists what lies before the damage, as FIEMAP does. */
	bool runs = x->want_runs && (r->flags & E2MAP_REC_MAPPED);
	e2map_file_t *f;
	int err;

	x->hashed = false;
	x->hash_err = x->map_err = 0;
	x->hash_why[0] = '\0';
	x->nruns = 0;
	/* An EA inode holds an xattr value: no open reaches it. */
	if ((!hash && !runs) || !path || (r->flags & E2MAP_REC_EA_INODE) ||
	    !(r->flags & E2MAP_REC_STAT))
		return 0;
	if ((err = open_named(m, path, len, &f)) < 0) {
		if (!hash)
			return err == -ENOMEM ? err : 0;
		x->hash_err = err;
		snprintf(x->hash_why, sizeof(x->hash_why), "%s",
			 e2map_errmsg(m));
		return err == -ENOMEM ? err : 0;
	}
	if (runs)
		err = walk_runs(f, r, x);
	if (!err && hash)
		hash_file(m, f, r->st.size, x);
	e2map_file_close(f);
	return err == -ENOMEM || x->hash_err == -ENOMEM ? -ENOMEM : 0;
}

void scan_extra_free(struct scan_extra *x)
{
	free(x->runs);
	x->runs = NULL;
	x->nruns = x->cap = 0;
}

/* ---- DFXML ---- */

/*
 * Text as fiwalk writes it: the XML specials as entities, UTF-8 as it
 * is, and each byte that is not UTF-8 or is a control byte (which XML 1.0
 * cannot carry) as \xHH; the backslash too, so that no name reads as
 * another (fiwalk leaves it).
 */
static void xml_text(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = cmd_utf8_len(u + i, len - i);
		if (n == 1 && (u[i] < 0x20 || u[i] == 0x7f || u[i] == '\\'))
			n = 0;
		if (!n) {
			printf("\\x%02X", u[i++]);
			continue;
		}
		if (n > 1) {
			fwrite(u + i, 1, n, stdout);
			i += n;
			continue;
		}
		switch (u[i++]) {
		case '&': fputs("&amp;", stdout); break;
		case '<': fputs("&lt;", stdout); break;
		case '>': fputs("&gt;", stdout); break;
		case '\'': fputs("&apos;", stdout); break;
		case '"': fputs("&quot;", stdout); break;
		default: putchar(u[i - 1]);
		}
	}
}

void scan_dfxml_head(e2map_t *m, const char *image)
{
	struct e2map_statfs sfs = E2MAP_STATFS_INIT;
	uint64_t off = e2map_disk_offset(m);

	e2map_statfs(m, &sfs);
	printf("<?xml version='1.0' encoding='UTF-8'?>\n"
	       "<dfxml xmlns='http://www.forensicswiki.org/wiki/Category:"
	       "Digital_Forensics_XML'\n"
	       "  xmlns:dc='http://purl.org/dc/elements/1.1/'\n"
	       "  version='1.0'>\n"
	       "  <metadata>\n    <dc:type>Disk Image</dc:type>\n"
	       "  </metadata>\n"
	       "  <creator version='1.0'>\n    <program>e2map</program>\n"
	       "    <version>%s</version>\n  </creator>\n"
	       "  <source>\n    <image_filename>", e2map_version(NULL, NULL,
							     NULL));
	xml_text(image, strlen(image));
	printf("</image_filename>\n  </source>\n"
	       "  <volume offset='%" PRIu64 "'>\n"
	       "    <partition_offset>%" PRIu64 "</partition_offset>\n"
	       "    <block_size>%" PRIu32 "</block_size>\n"
	       "    <ftype_str>ext4</ftype_str>\n", off, off, sfs.bsize);
}

void scan_dfxml_tail(void)
{
	fputs("  </volume>\n</dfxml>\n", stdout);
}

/* TSK's TSK_FS_META_TYPE_ENUM and its name type letters. */
static int meta_type(uint32_t mode, char *name_type)
{
	static const struct { uint32_t fmt; int meta; char name; } t[] = {
		{ S_IFREG, 1, 'r' }, { S_IFDIR, 2, 'd' }, { S_IFIFO, 3, 'p' },
		{ S_IFCHR, 4, 'c' }, { S_IFBLK, 5, 'b' }, { S_IFLNK, 6, 'l' },
		{ S_IFSOCK, 8, 's' },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if ((mode & S_IFMT) == t[i].fmt) {
			*name_type = t[i].name;
			return t[i].meta;
		}
	*name_type = '-';
	return 0;
}

/* fiwalk's ISO 8601, to the second, in UTC. */
static void xml_time(const char *tag, const struct e2map_timespec *t)
{
	time_t sec = (time_t)t->sec;
	struct tm tm;
	char buf[64];

	if (!gmtime_r(&sec, &tm))
		return;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("      <%s>%s</%s>\n", tag, buf, tag);
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static void xml_run(const struct scan_extra *x, const struct e2map_run *run,
		    uint64_t size)
{
	uint64_t from = run->lblk * x->bsize;
	uint64_t len = min64(run->nblk * x->bsize, size - from);
	uint64_t fs = run->pblk * x->bsize;

	printf("       <byte_run file_offset='%" PRIu64 "'", from);
	if (run->kind == E2MAP_RUN_INLINE)
		printf(" fs_offset='0' img_offset='0' len='%" PRIu64
		       "' type='resident'/>\n", size);
	else if (run->kind == E2MAP_RUN_DATA)
		printf(" fs_offset='%" PRIu64 "' img_offset='%" PRIu64
		       "' len='%" PRIu64 "'/>\n", fs, fs + x->disk_off, len);
	else
		printf(" fill='0' len='%" PRIu64 "'/>\n", len);
}

static void xml_runs(const struct scan_item *it)
{
	const struct scan_extra *x = it->x;
	uint64_t size = it->r->st.size;
	size_t i;

	if (!x->nruns)
		return;
	puts("      <byte_runs>");
	for (i = 0; i < x->nruns; i++)
		if (x->runs[i].lblk * x->bsize < size)
			xml_run(x, &x->runs[i], size);
	puts("      </byte_runs>");
}

static void xml_hashes(const struct scan_item *it)
{
	const struct scan_extra *x = it->x;
	char hex[65];

	for (unsigned bit = 1; bit <= E2MAP_DIGEST_SHA256; bit <<= 1)
		if (x->hashed && e2map_digest_hex(&x->d, bit, hex) > 0)
			printf("      <hashdigest type='%s'>%s</hashdigest>\n",
			       e2map_digest_name(bit), hex);
}

/* The kernel's answer where the record or a read failed, as a comment:
 * the schema has no element for it. */
static void xml_error(const char *what, int err, const char *detail)
{
	const char *name = strerrorname_np(-err);

	printf("      <!-- %s error: %s", what, name ? name : "unknown");
	if (detail && *detail && !strstr(detail, "--")) {
		putchar(' ');
		xml_text(detail, strlen(detail));
	}
	puts(" -->");
}

static void xml_stat(const struct e2map_record *r, int meta)
{
	const struct e2map_stat *st = &r->st;

	printf("      <filesize>%" PRIu64 "</filesize>\n"
	       "      <alloc>1</alloc>\n      <used>1</used>\n"
	       "      <inode>%" PRIu64 "</inode>\n"
	       "      <meta_type>%d</meta_type>\n", st->size, r->ino, meta);
	if (!(r->flags & E2MAP_REC_STAT))
		return;
	printf("      <mode>%u</mode>\n      <nlink>%" PRIu32 "</nlink>\n"
	       "      <uid>%" PRIu32 "</uid>\n      <gid>%" PRIu32 "</gid>\n",
	       (unsigned)(st->mode & 07777), st->nlink, st->uid, st->gid);
	xml_time("mtime", &st->mtime);
	xml_time("ctime", &st->ctime);
	xml_time("atime", &st->atime);
	if (st->mask & E2MAP_STAT_CRTIME)
		xml_time("crtime", &st->crtime);
}

static uint64_t next_id;

static void fileobject(const struct scan_item *it, size_t i)
{
	const struct e2map_record *r = it->r;
	char nt;
	int meta = meta_type(r->st.mode, &nt);

	fputs("    <fileobject>\n      <filename>", stdout);
	/* fiwalk's names are relative to the root: "dir/file". */
	xml_text(it->path[i] + 1, it->len[i] - 1);
	printf("</filename>\n      <partition>1</partition>\n"
	       "      <id>%" PRIu64 "</id>\n      <name_type>%c</name_type>\n",
	       ++next_id, nt);
	xml_stat(r, meta);
	if (r->err)
		xml_error("inode", r->err, it->detail);
	if (it->x) {
		xml_runs(it);
		if (it->x->map_err)
			xml_error("map", it->x->map_err, NULL);
		if (it->x->hash_err)
			xml_error("read", it->x->hash_err, it->x->hash_why);
		xml_hashes(it);
	}
	puts("    </fileobject>");
}

/* A deleted name, or a free inode no such name reaches, as fiwalk lists
 * it: the name unallocated, the inode's fields as its table holds them
 * now (fiwalk reads them through the same name). */
int scan_dfxml_past(const char *path, size_t len, uint64_t ino, char nt,
		    const struct e2map_past_inode *in)
{
	char unused;
	int meta = meta_type(in->mode, &unused);
	struct e2map_timespec dtime = { .sec = in->dtime };

	fputs("    <fileobject>\n      <filename>", stdout);
	xml_text(path + 1, len - 1);
	printf("</filename>\n      <partition>1</partition>\n"
	       "      <id>%" PRIu64 "</id>\n      <name_type>%c</name_type>\n"
	       "      <filesize>%" PRIu64 "</filesize>\n"
	       "      <unalloc>1</unalloc>\n      <%s>1</%s>\n"
	       "      <inode>%" PRIu64 "</inode>\n"
	       "      <meta_type>%d</meta_type>\n", ++next_id, nt, in->size,
	       in->mode ? "used" : "unused", in->mode ? "used" : "unused",
	       ino, meta);
	printf("      <mode>%u</mode>\n      <nlink>%u</nlink>\n"
	       "      <uid>%" PRIu32 "</uid>\n      <gid>%" PRIu32 "</gid>\n",
	       (unsigned)(in->mode & 07777), (unsigned)in->links, in->uid,
	       in->gid);
	if (in->mode) {
		xml_time("mtime", &in->mtime);
		xml_time("ctime", &in->ctime);
		xml_time("atime", &in->atime);
		if (in->has_crtime)
			xml_time("crtime", &in->crtime);
		if (in->dtime)
			xml_time("dtime", &dtime);
	}
	puts("    </fileobject>");
	return ferror(stdout) ? -EIO : 0;
}

/* A fileobject per name, the root's and nameless inodes' aside, as
 * fiwalk lists names (without its "." and ".." entries). */
int scan_dfxml_item(const struct scan_item *it)
{
	for (size_t i = 0; i < it->n; i++)
		if (it->len[i] > 1 && it->path[i][0] == '/')
			fileobject(it, i);
	return ferror(stdout) ? -EIO : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading NAME.scan (scripts/record/scan-kernel.py's format): one record a line,
 * tab-separated, paths with \xHH escapes.
 */
#include "scan_rec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"

static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	unsigned c;

	if (!out)
		return NULL;
	while (*s) {
		if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &c) == 1) {
			*o++ = (char)c;
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

static int grow(void **v, size_t n, size_t *cap, size_t elem)
{
	void *nv;

	if (n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 64;
	if (!(nv = realloc(*v, *cap * elem)))
		return -1;
	*v = nv;
	return 0;
}

static int by_ino_path(const void *a, const void *b)
{
	const struct scan_kpath *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int parse_inode(const char *line, struct scan_kinode *in)
{
	struct scan_kstat *s = &in->st;

	memset(in, 0, sizeof(*in));
	return sscanf(line, "I\t%" SCNu64 "\t%o\t%u\t%u\t%u\t%" SCNu64 "\t%"
		      SCNu64 "\t%" SCNu64 "\t%31s\t%31s\t%31s\t%31s", &in->ino,
		      &s->mode, &s->nlink, &s->uid, &s->gid, &s->size,
		      &s->blocks, &s->rdev, s->atime, s->mtime, s->ctime,
		      s->btime) == 12 ? 0 : -1;
}

static int parse_map(const char *line, struct scan_kernel *k)
{
	struct scan_kmap m;
	uint64_t ino;
	struct scan_kinode *in;

	if (sscanf(line, "M\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64
		   "\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64, &ino,
		   &m.written, &m.unwritten, &m.holes, &m.past_eof, &m.mapped,
		   &m.cold, &m.warm) != 8 || !k->n || k->v[k->n - 1].ino != ino)
		return -1;
	in = &k->v[k->n - 1];
	in->map = m;
	in->has_map = true;
	return 0;
}

/* "E INO ERRNO" or "L INO TARGET": of the inode just read. */
static int parse_after(const char *line, struct scan_kernel *k)
{
	struct scan_kinode *in = k->n ? &k->v[k->n - 1] : NULL;
	const char *tab = strchr(line + 2, '\t');

	if (!in || !tab || strtoull(line + 2, NULL, 10) != in->ino)
		return -1;
	if (line[0] == 'E')
		in->err = atoi(tab + 1);
	else if (!(in->link = unescape(tab + 1)))
		return -1;
	return 0;
}

/* "B INO N", after all the inodes: debugfs's extents on disk. */
static int parse_disk(const char *line, struct scan_kernel *k)
{
	uint64_t ino, n;
	struct scan_kinode *in;

	if (sscanf(line, "B\t%" SCNu64 "\t%" SCNu64, &ino, &n) != 2 ||
	    !(in = (struct scan_kinode *)scan_kernel_find(k, ino)))
		return -1;
	in->has_disk = true;
	in->disk_extents = n;
	return 0;
}

/* "C INO": an encrypted directory, after its I line. */
static int parse_crypt_dir(const char *line, struct scan_kernel *k)
{
	struct scan_kinode *in = k->n ? &k->v[k->n - 1] : NULL;

	if (!in || strtoull(line + 2, NULL, 10) != in->ino)
		return -1;
	in->crypt_dir = true;
	return 0;
}

static int parse_line(char *line, struct scan_kernel *k, size_t *cap,
		      size_t *pcap, size_t *fcap)
{
	char *tab;

	switch (line[0]) {
	case '#':
	case '\0':
		return 0;
	case 'P':
		if (grow((void **)&k->p, k->np, pcap, sizeof(*k->p)) ||
		    !(tab = strchr(line + 2, '\t')))
			return -1;
		k->p[k->np].ino = strtoull(line + 2, NULL, 10);
		if (!(k->p[k->np].path = unescape(tab + 1)))
			return -1;
		k->np++;
		return 0;
	case 'I':
		if (grow((void **)&k->v, k->n, cap, sizeof(*k->v)) ||
		    parse_inode(line, &k->v[k->n]) < 0)
			return -1;
		k->n++;
		return 0;
	case 'M':
		return parse_map(line, k);
	case 'E':
	case 'L':
		return parse_after(line, k);
	case 'B':
		return parse_disk(line, k);
	case 'C':
		return parse_crypt_dir(line, k);
	case 'D':
	case 'X':
		if (grow((void **)&k->fail, k->nfail, fcap, sizeof(*k->fail)) ||
		    !(tab = strchr(line + 2, '\t')))
			return -1;
		k->fail[k->nfail].dir = line[0] == 'D';
		k->fail[k->nfail].err = atoi(line + 2);
		if (!(k->fail[k->nfail].path = unescape(tab + 1)))
			return -1;
		k->nfail++;
		return 0;
	}
	return -1;
}

/* Each inode's paths: its run of the sorted P lines. */
static int attach_paths(struct scan_kernel *k)
{
	size_t i, j = 0;

	qsort(k->p, k->np, sizeof(*k->p), by_ino_path);
	for (i = 0; i < k->n; i++) {
		struct scan_kinode *in = &k->v[i];

		size_t end;

		while (j < k->np && k->p[j].ino < in->ino)
			j++;
		for (end = j; end < k->np && k->p[end].ino == in->ino; end++)
			;
		/* Its own run's size: the rest of the table per inode would
		 * ask for gigabytes on a large directory tree. */
		in->npaths = 0;
		if (!(in->paths = malloc((end - j + 1) * sizeof(char *))))
			return -1;
		while (j < end)
			in->paths[in->npaths++] = k->p[j++].path;
	}
	return 0;
}

int scan_kernel_load(const char *file, struct scan_kernel *k)
{
	size_t len, cap = 0, pcap = 0, fcap = 0;
	char *text = calls_read_file(file, &len), *line, *save = NULL;
	int err = 0;

	memset(k, 0, sizeof(*k));
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save))
		err = parse_line(line, k, &cap, &pcap, &fcap);
	free(text);
	if (!err)
		err = attach_paths(k);
	return err;
}

const struct scan_kinode *scan_kernel_find(const struct scan_kernel *k,
					   uint64_t ino)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].ino == ino)
			return &k->v[mid];
		if (k->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void scan_kernel_free(struct scan_kernel *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		free(k->v[i].paths);
		free(k->v[i].link);
	}
	for (i = 0; i < k->np; i++)
		free(k->p[i].path);
	for (i = 0; i < k->nfail; i++)
		free(k->fail[i].path);
	free(k->v);
	free(k->p);
	free(k->fail);
	memset(k, 0, sizeof(*k));
}

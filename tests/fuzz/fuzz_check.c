/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the input is an image.  It is opened through libext2fs
 * from a memory-backed file and every inode goes through the check walk
 * (e2map_inode_check, as `e2map check`), the path table is built and read
 * and a few path lookups run, so any crash, hang or out-of-bounds read in
 * the mapping, directory or lookup code shows.  Each file opened is also
 * read (as `e2map cat`, its first MiB and its last 64 KiB).  A dirty
 * journal is also replayed (the "replay" option: the log, then the fast
 * commits, into memory) and the recovered image walked the same way.
 * The journal's past is read too (e2map_journal_open: every descriptor
 * anywhere in the log area), as `e2map history` and `e2map recover --all`
 * read it: a damaged log's lying tags and counts go through it.  And
 * what `scan -d` reads: the names in every directory's slack (lying
 * rec_len and name_len) and the free inodes.
 */
#include <e2map.h>

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAD (256 << 20)

static int count_path(const char *path, size_t len, void *payload)
{
	(void)path;
	*(size_t *)payload += len;
	return 0;
}

/* Read F's head and tail: a huge sparse size must not make a slow input. */
static void read_some(e2map_file_t *f)
{
	static unsigned char buf[65536];
	struct e2map_stat st = E2MAP_STAT_INIT;
	int64_t off = 0, n;

	while (off < (1 << 20) &&
	       (n = e2map_file_pread(f, buf, sizeof(buf), off)) > 0)
		off += n;
	if (e2map_file_stat(f, &st) == 0 && st.size > sizeof(buf))
		e2map_file_pread(f, buf, sizeof(buf),
				 (int64_t)(st.size - sizeof(buf)));
	e2map_file_read(f, buf, sizeof(buf));
}

static int visit(e2map_t *m, const struct e2map_inode *in, void *payload)
{
	struct e2map_check_stats st = E2MAP_CHECK_STATS_INIT;
	e2map_file_t *f;
	size_t total = 0;

	if (in->err)
		return 0;
	e2map_inode_check(m, in->ino, &st);
	if (e2map_file_open_ino(m, in->ino, &f) == 0) {
		read_some(f);
		e2map_file_close(f);
	}
	if (payload)
		e2map_paths_foreach(payload, in->ino, count_path, &total);
	return 0;
}

/* Names that exercise the lookup: found, missing, nested, through links. */
static const char *const paths[] = {
	"/lost+found", "/a", "/dir/sub/file", "/test/root/x", "/link/x",
	"/lost+found/../lost+found/.",
};

static void lookups(e2map_t *m)
{
	struct e2map_check_stats st = E2MAP_CHECK_STATS_INIT;
	e2map_file_t *f;
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (e2map_file_open(m, paths[i], &f))
			continue;
		e2map_file_check(f, &st);
		read_some(f);
		e2map_file_close(f);
	}
}

static int count_version(const struct e2map_version *v, void *arg)
{
	(void)v;
	++*(size_t *)arg;
	return 0;
}

static int count_name(const struct e2map_dir_name *d, void *arg)
{
	*(size_t *)arg += d->len;
	return 0;
}

/* A few deleted inodes recovered, their first MiB read. */
static int recover_one(uint64_t ino, void *arg)
{
	static unsigned char buf[65536];
	struct e2map_recover_plan *p;
	uint64_t off;

	if (e2map_recover_plan(arg, ino, &p) == 0) {
		for (off = 0; off < p->size && off < (1u << 20);
		     off += sizeof(buf))
			e2map_recover_pread(p, buf, sizeof(buf), off);
		e2map_recover_free(p);
	}
	return ino > 64;
}

/* The journal's past: every copy it holds, read as history and recovery. */
static void past(e2map_t *m)
{
	e2map_journal_t *j;
	size_t n = 0;
	uint64_t ino;

	if (e2map_journal_open(m, &j))
		return;
	for (ino = 1; ino <= 16; ino++)
		e2map_inode_history(j, ino, count_version, &n);
	e2map_dir_history(j, 2, count_name, &n);
	e2map_deleted_inodes(j, recover_one, j);
	e2map_journal_close(j);
}

static int count_deleted(const struct e2map_deleted_name *d, void *arg)
{
	*(size_t *)arg += d->name_len + d->dir_path_len;
	return 0;
}

static int count_free(const struct e2map_free_inode *f, void *arg)
{
	*(size_t *)arg += f->inode.size != 0;
	return 0;
}

/* What scan -d reads: every directory's slack, every free inode. */
static void deleted(e2map_t *m, const e2map_paths_t *p)
{
	size_t n = 0;

	e2map_deleted_names(m, p, count_deleted, &n);
	e2map_free_inodes(m, count_free, &n);
}

static void walk(const char *path, const char *options)
{
	e2map_paths_t *p = NULL;
	e2map_t *m;

	if (e2map_open(path, options, &m))
		return;
	e2map_paths_build(m, &p);
	e2map_scan(m, visit, p);
	if (p)
		deleted(m, p);
	e2map_paths_free(p);
	lookups(m);
	if (!options)
		past(m);
	e2map_close(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	e2map_t *m;

	if (fd < 0 && (fd = memfd_create("e2map-fuzz", 0)) < 0)
		return 0;
	/*
	 * Mutations change the length; a sparse tail keeps such inputs past
	 * the "image shorter than the filesystem" refusal, into the walk.
	 */
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size ||
	    ftruncate(fd, (off_t)size > PAD ? (off_t)size : PAD))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	walk(path, NULL);
	walk(path, "replay");
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The public header compiles alone, with no warning, as C89, C11 and
 * C++98 (-pedantic): every type and function of it is used below, in code
 * valid in all three (declarations first, no // comments, no casts).
 */
#include <e2map.h>

static int on_run(const struct e2map_run *run, void *payload)
{
	return run->kind == E2MAP_RUN_INLINE && payload != 0;
}

static int on_inode(e2map_t *m, const struct e2map_inode *in, void *payload)
{
	return m != 0 && in->err != 0 && payload != 0;
}

int main(void)
{
	e2map_t *m = 0;
	e2map_file_t *f = 0;
	struct fiemap fm;
	struct e2map_stat st;
	struct e2map_statfs sfs;
	struct e2map_check_stats cs;
	struct e2map_record rec;
	struct e2map_digest dg = E2MAP_DIGEST_INIT;
	char link[8], hex[65];
	e2map_run_cb run_cb = on_run;
	e2map_scan_cb scan_cb = on_inode;
	struct e2map_disk *disk = 0;
	const struct e2map_partition *part = 0;
	int err = e2map_open("x", 0, &m), major, minor, patch;

	/* Before C99 there is no E2MAP_..._INIT: the version by hand. */
	st.version = E2MAP_STAT_VERSION;
	sfs.version = E2MAP_STATFS_VERSION;
	cs.version = E2MAP_CHECK_STATS_VERSION;
	rec.version = E2MAP_RECORD_VERSION;
	if (e2map_version(&major, &minor, &patch)[0] != E2MAP_VERSION[0] ||
	    major != E2MAP_VERSION_MAJOR || minor < 0 || patch < 0)
		return E2MAP_EUSER != E2MAP_SKIP;
	if (err == 0 && e2map_file_open(m, "/x", &f) == 0) {
		e2map_file_lseek(f, 0, E2MAP_SEEK_DATA);
		fm.fm_extent_count = 0;
		e2map_file_fiemap(f, &fm);
		e2map_file_stat(f, &st);
		e2map_file_walk(f, 0, 1, run_cb, 0);
		e2map_file_check(f, &cs);
		if (e2map_file_digest(f, E2MAP_DIGEST_MD5, &dg) == 0)
			e2map_digest_hex(&dg, E2MAP_DIGEST_MD5, hex);
		(void)e2map_digest_name(E2MAP_DIGEST_SHA256);
		e2map_file_close(f);
	}
	if (err == 0 && e2map_file_open_ino(m, 2, &f) == 0)
		e2map_file_close(f);
	if (err == 0) {
		e2map_statfs(m, &sfs);
		e2map_scan(m, scan_cb, 0);
		e2map_blocks_read(m);
		e2map_path_lstat(m, "/x", &st);
		e2map_inode_stat(m, 2, &st);
		(void)e2map_inode_readlink(m, 12, link, sizeof(link));
		e2map_inode_record(m, 2, &rec);
		(void)(st.mask & E2MAP_STAT_CRTIME);
	}
	if (e2map_disk_read("x", &disk) == 0 && disk->count)
		part = &disk->partitions[0];
	if (part && part->number && part->fstype[0])
		err = 1;
	e2map_disk_free(disk);
	e2map_free(0);
	(void)e2map_strerror(err);
	(void)e2map_errmsg(m);
	e2map_close(m);
	return err == 0 ? 0 : 1;
}

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
	char link[8];
	e2map_run_cb run_cb = on_run;
	e2map_scan_cb scan_cb = on_inode;
	int err = e2map_open("x", 0, &m);

	if (err == 0 && e2map_file_open(m, "/x", &f) == 0) {
		e2map_lseek(f, 0, E2MAP_SEEK_DATA);
		fm.fm_extent_count = 0;
		e2map_fiemap(f, &fm);
		e2map_file_stat(f, &st);
		e2map_walk(f, 0, 1, run_cb, 0);
		e2map_file_check(f, &cs);
		e2map_file_close(f);
	}
	if (err == 0 && e2map_file_open_ino(m, 2, &f) == 0)
		e2map_file_close(f);
	if (err == 0) {
		e2map_statfs(m, &sfs);
		e2map_scan(m, scan_cb, 0);
		e2map_blocks_read(m);
		e2map_lstat(m, "/x", &st);
		e2map_stat_ino(m, 2, &st);
		(void)e2map_readlink_ino(m, 12, link, sizeof(link));
		e2map_inode_record(m, 2, &rec);
		(void)(st.mask & E2MAP_STAT_CRTIME);
	}
	(void)e2map_strerror(err);
	(void)e2map_errmsg(m);
	e2map_close(m);
	return err == 0 ? 0 : 1;
}

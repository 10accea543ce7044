/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening an image: a read-only libext2fs handle (never EXT2_FLAG_RW, so
 * unix_io opens the file O_RDONLY), the geometry checks the kernel makes
 * at mount, the per-filesystem size limits, and what a reader should be
 * warned of (a mounted image, a journal that needs recovery).
 */
#include "mount.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <et/com_err.h>

/*
 * What the image is, before libext2fs reads it: it must exist and be
 * seekable (a pipe would be read once, then answer nothing), and an
 * --offset must leave something of a regular file to read.
 */
static int check_file(const char *image, uint64_t offset, struct stat *st)
{
	if (stat(image, st) < 0)
		return e2map__fail(NULL, -errno, "%s", "");
	if (S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode))
		return e2map__fail(NULL, -ESPIPE, "the image must be a "
				   "seekable file");
	if (S_ISREG(st->st_mode) && offset && offset >= (uint64_t)st->st_size)
		return e2map__fail(NULL, -EINVAL, "offset past the end of the "
				   "image (%" PRIu64 " bytes)",
				   (uint64_t)st->st_size);
	return 0;
}

/* The kernel refuses a filesystem larger than its device ("bad geometry"). */
static int check_geometry(e2map_t *m, const struct stat *st, uint64_t offset)
{
	uint64_t need = ext2fs_blocks_count(m->fs->super) * (uint64_t)m->bs;

	if (!S_ISREG(st->st_mode))
		return 0;
	if ((uint64_t)st->st_size < offset ||
	    ((uint64_t)st->st_size - offset) / 512 * 512 < need)
		return e2map__fail(NULL, -EUCLEAN,
				   "truncated image: the filesystem needs %" PRIu64
				   " bytes, the image holds %" PRIu64, need,
				   (uint64_t)st->st_size - offset);
	return 0;
}

/* The three placements ext4_check_descriptors checks, in its order. */
static const char *const desc_what[] = {
	"Block bitmap", "Inode bitmap", "Inode table"
};

/*
 * One group of ext4_check_descriptors (fs/ext4/super.c, 6.18) on a
 * read-only mount: each bitmap, and the whole inode table, inside
 * [FIRST, LAST].  Its other complaints (a placement over the superblock
 * or the descriptors, a descriptor checksum) refuse read-write mounts only.
 * The end of the table wraps as the kernel's unsigned sum does.
 */
static int check_group(e2map_t *m, dgrp_t g, uint64_t first, uint64_t last)
{
	uint64_t loc[3] = { ext2fs_block_bitmap_loc(m->fs, g),
			    ext2fs_inode_bitmap_loc(m->fs, g),
			    ext2fs_inode_table_loc(m->fs, g) };
	int i;

	for (i = 0; i < 3; i++) {
		uint64_t end = loc[i] + (i == 2 ? m->itb - 1 : 0);

		if (loc[i] < first || end > last)
			return e2map__fail(NULL, -EUCLEAN, "%s for group %u "
					   "not in group (block %" PRIu64 "): "
					   "group descriptors corrupted, the "
					   "kernel refuses to mount",
					   desc_what[i], g, loc[i]);
	}
	return 0;
}

/*
 * ext4_check_descriptors: with flex_bg a group's metadata may lie anywhere
 * from the first data block to the end of the filesystem; without it,
 * inside the group (the last group ends with the filesystem).  Range
 * checks only: nothing per block, so opening costs the same on any size.
 */
static int check_descriptors(e2map_t *m)
{
	struct ext2_super_block *sb = m->fs->super;
	bool flex = ext2fs_has_feature_flex_bg(sb);
	uint64_t first = sb->s_first_data_block, last;
	uint64_t end = ext2fs_blocks_count(sb) - 1;
	dgrp_t g, n = m->fs->group_desc_count;
	int err;

	for (g = 0; g < n; g++) {
		last = flex || g == n - 1 ? end :
		       first + EXT2_BLOCKS_PER_GROUP(sb) - 1;
		if ((err = check_group(m, g, first, last)) < 0)
			return err;
		if (!flex)
			first += EXT2_BLOCKS_PER_GROUP(sb);
	}
	return 0;
}

/*
 * ext4_inode_info_init: with extra_isize, the sizes the superblock asks
 * every large inode to keep must fit in the inode's room past 128 bytes.
 */
static int check_extra_isize(e2map_t *m)
{
	struct ext2_super_block *sb = m->fs->super;	/* libext2fs: no const */
	unsigned room = EXT2_INODE_SIZE(sb) - EXT2_GOOD_OLD_INODE_SIZE;

	if (EXT2_INODE_SIZE(sb) <= EXT2_GOOD_OLD_INODE_SIZE ||
	    !ext2fs_has_feature_extra_isize(sb))
		return 0;
	if (sb->s_want_extra_isize > room)
		return e2map__fail(NULL, -EINVAL, "bad s_want_extra_isize: %u: "
				   "the kernel refuses to mount it",
				   sb->s_want_extra_isize);
	if (sb->s_min_extra_isize > room)
		return e2map__fail(NULL, -EINVAL, "bad s_min_extra_isize: %u: "
				   "the kernel refuses to mount it",
				   sb->s_min_extra_isize);
	return 0;
}

/*
 * Refusals the kernel makes at mount time, so that e2map does not answer
 * for an image no mount could serve: a block size above the page size
 * (ext4_load_super), extra inode sizes that do not fit
 * (ext4_inode_info_init), a casefold filename encoding it does not know
 * (ext4_encoding_init), and group descriptors whose bitmaps or inode table
 * lie outside the filesystem (ext4_check_descriptors).  Metadata over
 * metadata is the system zone's refusal (syszone.c), made after the root
 * inode's (check_root).
 */
static int check_mountable(e2map_t *m)
{
	long page = sysconf(_SC_PAGESIZE);
	int err;

	if (page > 0 && m->bs > (unsigned long)page)
		return e2map__fail(NULL, -EINVAL, "block size %u: the kernel "
				   "mounts block sizes up to the page size, %ld",
				   m->bs, page);
	if ((err = check_extra_isize(m)) < 0)
		return err;
	/* ext4_encoding_init: casefolding needs an encoding the kernel has. */
	if (ext2fs_has_feature_casefold(m->fs->super) &&
	    !ext2fs_load_nls_table(m->fs->super->s_encoding))
		return e2map__fail(NULL, -EINVAL, "unknown filename encoding "
				   "%u: the kernel refuses to mount it",
				   m->fs->super->s_encoding);
	return check_descriptors(m);
}

/*
 * __ext4_fill_super's last refusal: the root inode, got as a special
 * inode (a free one is corrupt, not stale), must be a directory with
 * blocks and a size.
 */
static int check_root(e2map_t *m)
{
	e2map_file_t *f;
	bool bad;
	int err;

	if ((err = e2map__iget_how(m, EXT2_ROOT_INO, E2MAP_IGET_NAME, &f)) < 0)
		return e2map__fail(NULL, err, "get root inode failed (%s): the "
				   "kernel refuses to mount it", e2map_errmsg(m));
	bad = !LINUX_S_ISDIR(f->inode->i_mode) || !f->size ||
	      !ext2fs_get_stat_i_blocks(m->fs, EXT2_INODE(f->inode));
	e2map__iput(f);
	if (bad)
		return e2map__fail(NULL, -EUCLEAN, "corrupt root inode, run "
				   "e2fsck: the kernel refuses to mount it");
	return 0;
}

/*
 * ERR, a refusal of the kernel's mount: the open's failure, unless the
 * caller asked to read past it ("unmountable").  Then the first one is
 * kept for e2map_image_state and e2map_image_refusal, and the open goes
 * on.
 */
static int refusal(e2map_t *m, const struct e2map_options *o, int err)
{
	if (err >= 0 || !o->unmountable || err == -ENOMEM)
		return err;
	if (!m->refused) {
		m->refused = err;
		snprintf(m->refusal, sizeof(m->refusal), "%s",
			 *e2map_errmsg(NULL) ? e2map_errmsg(NULL)
					     : e2map_strerror(err));
	}
	e2map__set_open_error("%s", "");
	return 0;
}

/* ext2fs_open2's refusals, worded for the one who gave the image. */
static int open_error(errcode_t code)
{
	if (code == EXT2_ET_BAD_MAGIC)
		return e2map__fail(NULL, -EUCLEAN, "not an ext2/3/4 filesystem");
	if (code == EXT2_ET_SHORT_READ)
		return e2map__fail(NULL, -EUCLEAN, "not an ext2/3/4 filesystem "
				   "(the image ends before its superblock)");
	return e2map__errcode(NULL, code, NULL);
}

/*
 * The kernel refuses a filesystem larger than its device ("bad
 * geometry"): a partition's device is the partition, a container's its
 * media.
 */
static int check_window(e2map_t *m, const struct e2map_window *w)
{
	uint64_t blocks = ext2fs_blocks_count(m->fs->super);

	if (w->size / m->bs >= blocks)
		return 0;
	if (w->partition)
		return e2map__fail(NULL, -EUCLEAN, "partition %u: bad geometry: "
				   "block count %" PRIu64 " exceeds size of "
				   "device (%" PRIu64 " blocks): the kernel "
				   "refuses to mount it", w->partition, blocks,
				   w->size / m->bs);
	return e2map__fail(NULL, -EUCLEAN, "truncated image: the filesystem "
			   "needs %" PRIu64 " bytes, the %s image holds %" PRIu64,
			   blocks * (uint64_t)m->bs, w->format, w->size);
}

/* e2map__io_manager's io_options for window W. */
static void window_opts(const struct e2map_window *w, char *buf, size_t len)
{
	snprintf(buf, len, "offset=%" PRIu64 "&size=%" PRIu64, w->offset,
		 w->size);
}

static int open_fs(const char *image, const struct e2map_options *o,
		   const struct e2map_window *w, e2map_t *m)
{
	char io_opts[64] = "";
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP;
	errcode_t code;

	if (w->own)
		window_opts(w, io_opts, sizeof(io_opts));
	else if (o->offset)
		snprintf(io_opts, sizeof(io_opts), "offset=%" PRIu64, o->offset);
	code = ext2fs_open2(image, io_opts, flags, 0, 0,
			    w->own ? e2map__io_manager : unix_io_manager,
			    &m->fs);
	if (code) {
		m->fs = NULL;
		return open_error(code);
	}
	m->disk_offset = w->own ? w->offset : o->offset;
	if (!w->own && !o->nomap)
		e2map__bcache_map(m);
	m->bs = m->fs->blocksize;
	m->bits = 10 + m->fs->super->s_log_block_size;
	/* s_itb_per_group: ext4_block_group_meta_init divides, no rounding. */
	m->itb = m->fs->super->s_inodes_per_group /
		 (m->bs / EXT2_INODE_SIZE(m->fs->super));
	return 0;
}

static void set_limits(e2map_t *m)
{
	bool huge = ext2fs_has_feature_huge_file(m->fs->super);

	m->s_maxbytes = e2map__max_size(m->bits, huge);
	m->s_bitmap_maxbytes = e2map__max_bitmap_size(m->bits, huge);
}

/* OPTIONS, with the partition chosen for it: its sibling handles
 * (parscan.c) open the same one without choosing again. */
static char *options_for(const char *options, const struct e2map_window *w,
			 const struct e2map_options *o)
{
	char *s;

	if (!w->partition || o->partition)
		return strdup(options ? options : "");
	if (asprintf(&s, "%s%spartition=%u", options ? options : "",
		     options && *options ? "," : "", w->partition) < 0)
		return NULL;
	return s;
}

/*
 * A handle on the filesystem W finds in IMAGE, every mount check made;
 * the root's waits when the journal is to be replayed first (EARLY), as
 * the kernel's does.
 */
static int open_handle(const char *image, const char *options,
		       const struct e2map_options *o,
		       const struct e2map_window *w, const struct stat *st,
		       bool early, e2map_t **out)
{
	e2map_t *m;
	int err;

	*out = NULL;
	if (!(m = calloc(1, sizeof(*m))) || !(m->image = strdup(image)) ||
	    !(m->options = options_for(options, w, o))) {
		if (m)
			free(m->image);
		free(m);
		return -ENOMEM;
	}
	m->warm = o->warm;
	m->image_dev = st->st_dev;
	m->image_ino = st->st_ino;
	if ((err = open_fs(image, o, w, m)) < 0 ||
	    (err = refusal(m, o, w->own ? check_window(m, w)
					: check_geometry(m, st, o->offset))) < 0 ||
	    (err = refusal(m, o, check_mountable(m))) < 0) {
		e2map_close(m);
		return err;
	}
	set_limits(m);
	/* __ext4_fill_super gets the root before it builds the system zone:
	 * the root's block references are checked against none. */
	if ((err = early ? 0 : refusal(m, o, check_root(m))) == 0 &&
	    (err = e2map__zone_setup(m)) < 0) {
		/* Past a refused zone: only the range part of block checks. */
		e2map__zone_free(m);
		err = refusal(m, o, err);
	}
	/* The inodes got so far were checked against a zone not yet built. */
	e2map__icache_free(m);
	if (err < 0) {
		e2map_close(m);
		return err;
	}
	*out = m;
	return 0;
}

/*
 * The fast commits, applied by libext2fs to a scratch handle whose writes
 * land in the overlay *OV (in memory: the media has no write path), which
 * then holds the log's blocks and every block the replay changed.
 */
static int replay_fc(const char *image, const struct e2map_window *w,
		     struct e2map_overlay **ov, const struct e2map_fc *fc)
{
	char io_opts[64];
	ext2_filsys fs;
	errcode_t code;
	int err;

	window_opts(w, io_opts, sizeof(io_opts));
	e2map__overlay_writable(*ov, true);
	e2map__io_hand_overlay(*ov);
	*ov = NULL;
	code = ext2fs_open2(image, io_opts, EXT2_FLAG_64BITS |
			    EXT2_FLAG_SKIP_MMP, 0, 0, e2map__io_manager, &fs);
	e2map__io_hand_overlay(NULL);
	if (code)
		return open_error(code);
	/* Not at ext2fs_open2: that would open the media for writing. */
	fs->flags |= EXT2_FLAG_RW | EXT2_FLAG_MASTER_SB_ONLY;
	err = e2map__fc_replay(fs, fc);
	*ov = e2map__io_take_overlay(fs->io);
	ext2fs_free(fs);
	return err;
}

/*
 * replay: the journal is read as the kernel reads it at mount, through
 * the filesystem as it lies; then the handle is opened again through e2map's io
 * manager with the recovered blocks laid over the image, so that the
 * superblock, the descriptors and everything after are the recovered
 * ones.  The kernel's read-write mount then clears needs_recovery: so
 * does the handle, in memory.
 */
static int replay(const char *image, const char *options,
		  const struct e2map_options *o, const struct e2map_window *w,
		  const struct stat *st, e2map_t **mp)
{
	struct e2map_window rw = *w;
	struct e2map_overlay *ov;
	struct e2map_fc *fc;
	size_t n;
	int err;

	err = e2map__journal_replay(*mp, &ov, &fc);
	/* Nothing to replay: the root the early handle left unchecked. */
	if (err == 0 && !ov)
		err = refusal(*mp, o, check_root(*mp));
	if (err < 0 || !ov) {
		if (err < 0) {
			e2map_close(*mp);
			*mp = NULL;
		}
		return err;
	}
	e2map_close(*mp);
	*mp = NULL;
	rw.own = true;
	if (fc) {
		err = replay_fc(image, &rw, &ov, fc);
		e2map__fc_free(fc);
		if (err < 0) {
			e2map__overlay_free(ov);
			return err;
		}
	}
	n = e2map__overlay_count(ov);
	e2map__io_hand_overlay(ov);
	err = open_handle(image, options, o, &rw, st, false, mp);
	e2map__io_hand_overlay(NULL);	/* not taken when the open failed early */
	if (err < 0)
		return err;
	ext2fs_clear_feature_journal_needs_recovery((*mp)->fs->super);
	(*mp)->replayed = n;
	return 0;
}

int e2map_open(const char *image, const char *options, e2map_t **out)
{
	struct e2map_options o;
	struct e2map_window w;
	struct stat st;
	e2map_t *m;
	int err;

	*out = NULL;
	e2map__set_open_error("%s", "");
	/* Without it, com_err names every libext2fs code "Unknown code". */
	initialize_ext2_error_table();
	if ((err = e2map__parse_options(options, &o)) < 0 ||
	    (err = check_file(image, o.offset, &st)) < 0 ||
	    (err = e2map__window_resolve(image, &o, &w)) < 0 ||
	    (err = open_handle(image, options, &o, &w, &st, o.replay, &m)) < 0)
		return err;
	if (o.replay && (err = replay(image, options, &o, &w, &st, &m)) < 0)
		return err;
	*out = m;
	return 0;
}

void e2map_close(e2map_t *m)
{
	if (!m)
		return;
	/* ext2fs_free, not ext2fs_close: nothing may ever be flushed. */
	if (m->fs)
		ext2fs_free(m->fs);
	e2map__zone_free(m);
	e2map__bcache_free(m);
	e2map__icache_free(m);
	e2map__dcache_free(m);
	e2map__blkset_free(&m->dir_ok);
	if (m->span_fd > 0)
		close(m->span_fd - 1);
	free(m->image);
	free(m->options);
	free(m);
}

/*
 * The mount table is read at each call, not at open: a long-lived handle
 * should learn that someone mounted its image since.  libext2fs matches
 * block devices and loop devices backed by the image file.
 */
int e2map_image_state(e2map_t *m)
{
	int flags = 0, mf = 0;
	errcode_t code;

	if (!m)
		return -EINVAL;
	if (ext2fs_has_feature_journal_needs_recovery(m->fs->super))
		flags |= E2MAP_IMAGE_NEEDS_RECOVERY;
	if (m->refused)
		flags |= E2MAP_IMAGE_UNMOUNTABLE;
	code = ext2fs_check_mount_point(m->image, &mf, NULL, 0);
	if (code)
		return e2map__errcode(m, code, "reading the mount table");
	if (mf & EXT2_MF_MOUNTED)
		flags |= E2MAP_IMAGE_MOUNTED;
	return flags;
}

int e2map_image_refusal(const e2map_t *m, const char **why)
{
	if (why)
		*why = m && m->refused ? m->refusal : "";
	return m ? m->refused : -EINVAL;
}

/* The kernel's reserve (ext4_calculate_resv_clusters): none without
 * extents, else 2% of the clusters, at most 4096. */
static uint64_t resv_clusters(const ext2_filsys fs)
{
	uint64_t c = ext2fs_blocks_count(fs->super) >> fs->cluster_ratio_bits;

	if (!ext2fs_has_feature_extents(fs->super))
		return 0;
	return c / 50 < 4096 ? c / 50 : 4096;
}

/*
 * The mount's free counters start as the groups' sums
 * (ext4_percpu_param_init: the descriptors, not the bitmaps), no cluster
 * dirty on a fresh mount; ext4_statfs takes from the free blocks those
 * reserved for root and its own reserve.
 */
static void free_counts(e2map_t *m, struct e2map_statfs *st)
{
	ext2_filsys fs = m->fs;
	uint64_t clusters = 0, reserved;

	st->ffree = 0;
	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		st->ffree += ext2fs_bg_free_inodes_count(fs, g);
		clusters += ext2fs_bg_free_blocks_count(fs, g);
	}
	st->bfree = clusters << fs->cluster_ratio_bits;
	reserved = ext2fs_r_blocks_count(fs->super) +
		   (resv_clusters(fs) << fs->cluster_ratio_bits);
	st->bavail = st->bfree < reserved ? 0 : st->bfree - reserved;
}

int e2map_statfs(e2map_t *m, struct e2map_statfs *st)
{
	struct ext2_super_block *sb;
	uint64_t overhead;
	int err;

	if (!m || !E2MAP__OUT_OK(st, E2MAP_STATFS_VERSION))
		return -EINVAL;
	sb = m->fs->super;
	/*
	 * __ext4_fill_super: s_overhead_clusters is taken on bigalloc alone
	 * (elsewhere the count is quick, so it is redone at every mount)
	 * and only when it is not above the block count; else counted.  The
	 * mount keeps the answer (sbi->s_overhead): so does the handle, for
	 * the FUSE mount's statfs calls.
	 */
	if (!m->overhead) {
		overhead = sb->s_overhead_clusters;
		if (overhead > ext2fs_blocks_count(sb) ||
		    !ext2fs_has_feature_bigalloc(sb))
			overhead = 0;
		overhead *= EXT2FS_CLUSTER_RATIO(m->fs);
		if (!overhead && (err = e2map__overhead(m->fs, &overhead)) < 0)
			return e2map__fail(m, err, "counting the overhead");
		m->overhead = overhead;
	}
	overhead = m->overhead;
	st->type = EXT2_SUPER_MAGIC;
	st->bsize = m->bs;
	st->blocks = ext2fs_blocks_count(sb) - overhead;
	st->files = sb->s_inodes_count;
	st->namelen = EXT2_NAME_LEN;
	free_counts(m, st);
	return 0;
}

uint64_t e2map_disk_offset(const e2map_t *m)
{
	return m ? m->disk_offset : 0;
}

uint64_t e2map_blocks_read(const e2map_t *m)
{
	return m ? m->blocks_read : 0;
}

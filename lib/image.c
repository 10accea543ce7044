/*
 * Opening an image: options, a read-only libext2fs handle (never
 * EXT2_FLAG_RW, so unix_io opens the file O_RDONLY), the geometry checks
 * the kernel makes at mount, and the per-filesystem size limits.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <et/com_err.h>

struct options {
	uint64_t offset;
	bool warm;
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return (errno || *end) ? -EINVAL : 0;
}

static int parse_option(const char *opt, struct options *o)
{
	if (!strncmp(opt, "offset=", 7))
		return parse_u64(opt + 7, &o->offset);
	if (!strcmp(opt, "cache=cold") || !strcmp(opt, "cache=warm")) {
		o->warm = opt[6] == 'w';
		return 0;
	}
	return -EINVAL;
}

static int parse_options(const char *options, struct options *o)
{
	char buf[256], *tok, *save = NULL;

	memset(o, 0, sizeof(*o));
	if (!options || !*options)
		return 0;
	if (strlen(options) >= sizeof(buf))
		return e2map__fail(NULL, -EINVAL, "options too long");
	strcpy(buf, options);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (parse_option(tok, o) < 0)
			return e2map__fail(NULL, -EINVAL,
					   "unknown or bad option '%s'", tok);
	return 0;
}

/* The kernel refuses a filesystem larger than its device ("bad geometry"). */
static int check_geometry(e2map_t *m, const char *image, uint64_t offset)
{
	struct stat st;
	uint64_t need = ext2fs_blocks_count(m->fs->super) * (uint64_t)m->bs;

	if (stat(image, &st) < 0)
		return e2map__fail(NULL, -errno, "%s", image);
	if (!S_ISREG(st.st_mode))
		return 0;
	if ((uint64_t)st.st_size < offset ||
	    ((uint64_t)st.st_size - offset) / 512 * 512 < need)
		return e2map__fail(NULL, -EUCLEAN,
				   "truncated image: the filesystem needs %" PRIu64
				   " bytes, the image holds %" PRIu64, need,
				   (uint64_t)st.st_size - offset);
	return 0;
}

/*
 * Refusals the kernel makes at mount time, so that e2map does not answer
 * for an image no mount could serve: a block size above the page size
 * (ext4_load_super), and group descriptors whose bitmaps or inode table
 * lie outside the filesystem or over its metadata (ext4_check_descriptors;
 * libext2fs's ext2fs_check_desc makes the same placement checks), and a
 * casefold filename encoding it does not know (ext4_encoding_init).
 */
static int check_mountable(e2map_t *m)
{
	long page = sysconf(_SC_PAGESIZE);
	errcode_t code;

	if (page > 0 && m->bs > (unsigned long)page)
		return e2map__fail(NULL, -EINVAL, "block size %u: the kernel "
				   "mounts block sizes up to the page size, %ld",
				   m->bs, page);
	/* ext4_encoding_init: casefolding needs an encoding the kernel has. */
	if (ext2fs_has_feature_casefold(m->fs->super) &&
	    !ext2fs_load_nls_table(m->fs->super->s_encoding))
		return e2map__fail(NULL, -EINVAL, "unknown filename encoding "
				   "%u: the kernel refuses to mount it",
				   m->fs->super->s_encoding);
	if ((code = ext2fs_check_desc(m->fs)) != 0)
		return e2map__fail(NULL, -EUCLEAN, "group descriptors "
				   "corrupted (the kernel refuses to mount): %s",
				   error_message(code));
	return 0;
}

static int open_fs(const char *image, const struct options *o, e2map_t *m)
{
	char io_opts[64] = "";
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP;
	errcode_t code;

	if (o->offset)
		snprintf(io_opts, sizeof(io_opts), "offset=%" PRIu64, o->offset);
	code = ext2fs_open2(image, io_opts, flags, 0, 0, unix_io_manager,
			    &m->fs);
	if (code) {
		m->fs = NULL;
		return e2map__errcode(NULL, code, image);
	}
	m->bs = m->fs->blocksize;
	m->bits = 10 + m->fs->super->s_log_block_size;
	return 0;
}

static void set_limits(e2map_t *m)
{
	bool huge = ext2fs_has_feature_huge_file(m->fs->super);

	m->s_maxbytes = e2map__max_size(m->bits, huge);
	m->s_bitmap_maxbytes = e2map__max_bitmap_size(m->bits, huge);
}

int e2map_open(const char *image, const char *options, e2map_t **out)
{
	struct options o;
	e2map_t *m;
	int err;

	*out = NULL;
	e2map__set_open_error("%s", "");
	/* Without it, com_err names every libext2fs code "Unknown code". */
	initialize_ext2_error_table();
	if ((err = parse_options(options, &o)) < 0)
		return err;
	if (!(m = calloc(1, sizeof(*m))))
		return -ENOMEM;
	m->warm = o.warm;
	if ((err = open_fs(image, &o, m)) < 0 ||
	    (err = check_geometry(m, image, o.offset)) < 0 ||
	    (err = check_mountable(m)) < 0) {
		e2map_close(m);
		return err;
	}
	set_limits(m);
	if ((err = e2map__zone_setup(m)) < 0) {
		e2map_close(m);
		return err;
	}
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
	e2map__blkset_free(&m->dir_ok);
	free(m);
}

/* ext4_inode_block_valid's range part: data lies past the first data block. */
bool e2map__block_valid(const e2map_t *m, uint64_t pblk, uint64_t count)
{
	uint64_t total = ext2fs_blocks_count(m->fs->super);

	return pblk > m->fs->super->s_first_data_block &&
	       pblk + count >= pblk && pblk + count <= total;
}

int e2map__read_block(e2map_t *m, uint64_t pblk, void *buf)
{
	errcode_t code;

	if (pblk >= ext2fs_blocks_count(m->fs->super))
		return e2map__fail(m, -EUCLEAN, "block %" PRIu64
				   " is outside the filesystem", pblk);
	m->blocks_read++;
	code = io_channel_read_blk64(m->fs->io, pblk, 1, buf);
	if (code)
		return e2map__errcode(m, code, "reading a metadata block");
	return 0;
}

uint64_t e2map_blocks_read(const e2map_t *m)
{
	return m ? m->blocks_read : 0;
}

/* ext4_bg_num_gdb: descriptor blocks kept in group G. */
static uint64_t group_desc_blocks(ext2_filsys fs, dgrp_t g, bool has_super)
{
	uint32_t per = EXT2_DESC_PER_BLOCK(fs->super), first;

	if (!ext2fs_has_feature_meta_bg(fs->super) ||
	    g < fs->super->s_first_meta_bg)
		return has_super ? fs->desc_blocks : 0;
	first = g / per * per;
	return g == first || g == first + 1 || g == first + per - 1;
}

/*
 * ext4_calculate_overhead for filesystems whose superblock does not record
 * it: blocks before the first group, each group's metadata, the journal.
 * (For bigalloc the kernel counts clusters exactly; this counts blocks.)
 */
static uint64_t calculate_overhead(ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	uint64_t itb = ((uint64_t)sb->s_inodes_per_group * EXT2_INODE_SIZE(sb) +
			fs->blocksize - 1) / fs->blocksize;
	uint64_t total = sb->s_first_data_block;
	struct ext2_inode j;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		bool sup = ext2fs_bg_has_super(fs, g);

		total += sup + group_desc_blocks(fs, g, sup) +
			 (sup ? sb->s_reserved_gdt_blocks : 0) + itb + 2;
	}
	if (ext2fs_has_feature_journal(sb) && sb->s_journal_inum &&
	    !ext2fs_read_inode(fs, sb->s_journal_inum, &j))
		total += EXT2_I_SIZE(&j) / fs->blocksize;
	return total;
}

int e2map_statfs(e2map_t *m, struct e2map_statfs *st)
{
	struct ext2_super_block *sb;
	uint64_t overhead;

	if (!m || !st)
		return -EINVAL;
	sb = m->fs->super;
	overhead = (uint64_t)sb->s_overhead_clusters *
		   EXT2FS_CLUSTER_RATIO(m->fs);
	if (!overhead)
		overhead = calculate_overhead(m->fs);
	st->type = EXT2_SUPER_MAGIC;
	st->bsize = m->bs;
	st->blocks = ext2fs_blocks_count(sb) - overhead;
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The disk layer: the image handle (struct e2map, what a mounted
 * superblock is to the kernel) and what reads blocks for the layers
 * above -- the block cache, the system zone's queries and the group
 * layout.  Building the zone reads the journal inode, so it lives in
 * mount/; here it is only asked.
 */
#ifndef E2MAP_DISK_H
#define E2MAP_DISK_H

#include "media.h"

#include <sys/stat.h>

/* A range of the system zone (block_validity.c). */
struct e2map_zone {
	uint64_t start, count;
};
struct e2map_zones {
	struct e2map_zone *v;
	size_t n, cap;
	size_t hint;		/* last search's answer: a guess, checked */
};

struct e2map {
	struct e2map_err err;		/* first: base/errors.c writes it */
	ext2_filsys fs;
	char *image;			/* the path given to e2map_open */
	char *options;			/* its OPTIONS, for sibling handles */
	struct e2map_zones zone;	/* metadata: valid for no inode */
	struct e2map_zones jzone;	/* journal blocks: valid for it only */
	uint32_t bs;
	unsigned bits;
	uint32_t itb;			/* inode table blocks per group */
	uint64_t s_maxbytes;		/* extent-mapped inodes (spec §6) */
	uint64_t s_bitmap_maxbytes;	/* block-mapped inodes */
	bool warm;			/* cache=warm */
	size_t replayed;		/* blocks journal recovery laid over */
	uint64_t blocks_read;		/* metadata blocks read from the image */
	uint64_t disk_offset;		/* the filesystem's first byte in the disk */
	uint64_t overhead;		/* statfs's, in blocks, once counted; 0: not yet */
	int refused;			/* unmountable: the mount's -errno; 0: it mounts */
	char refusal[256];		/* and the kernel's reason, in e2map's words */
	struct blkset dir_ok;		/* directory blocks whose checksum passed */
	dgrp_t itable_ahead;		/* inode tables prefetched below this group */
	/* What a mount keeps between calls, made on first use (each is
	 * bounded whatever the image's size): */
	struct e2map_bcache *bcache;	/* blocks (bcache.c) */
	/* A raw image's bytes where they lie (bcache.c): mapped read-only,
	 * [0, map_len) of the file; NULL: none. */
	const unsigned char *map;
	size_t map_len;
	size_t page;			/* the page size, for madvise */
	uint64_t map_ahead_lo, map_ahead_hi;	/* blocks last read ahead */
	struct e2map_icache *icache;	/* checked inodes (inode/iget.c) */
	bool one_pass;			/* a whole-image pass's work: each inode
					 * is got once, none is worth keeping */
	void *spare_inode;		/* the memory of the pass's last inode */
	struct e2map_dcache *dcache;	/* large directories' names (dir/dcache.c) */
	/* file/read.c: the bare raw image opened again for copies without a
	 * buffer, the descriptor plus one (0: not opened yet, -1: none), and
	 * its size. */
	int span_fd;
	uint64_t span_end;
	dev_t image_dev;		/* the image e2map_open stat'ed */
	ino_t image_ino;
};

_Static_assert(offsetof(struct e2map, err) == 0,
	       "base/errors.c writes a handle's detail through its first member");

/* bcache.c: block PBLK into BUF, through the image's block cache */
int e2map__read_block(e2map_t *m, uint64_t pblk, void *buf);
/* Block PBLK where it lies in the mapped image, else read into BUF (a
 * block): valid while M is open and BUF untouched; NULL and *ERR on
 * failure.  A whole-image pass reads the inode tables so, uncopied. */
const unsigned char *e2map__read_block_at(e2map_t *m, uint64_t pblk,
					  unsigned char *buf, int *err);
/* LEN bytes at OFF of block PBLK (OFF + LEN within the block) */
int e2map__read_part(e2map_t *m, uint64_t pblk, size_t off, size_t len,
		     void *buf);
/* Blocks [PBLK, PBLK + COUNT) are about to be read in order: a hint. */
void e2map__read_ahead(e2map_t *m, uint64_t pblk, uint64_t count);
/* Blocks [PBLK, PBLK + COUNT) will be read soon, in no set order: ask the
 * media to start reading them now (posix_fadvise on a raw image). */
void e2map__prefetch(e2map_t *m, uint64_t pblk, uint64_t count);
void e2map__bcache_free(e2map_t *m);
/* Read the image, a raw file, where it lies: a speed-up only, nothing
 * changes when it cannot be had. */
void e2map__bcache_map(e2map_t *m);
/* The very file e2map_open found at m->image, opened again (a daemon may
 * have changed directory, the name been reused): its fd and *ST, or
 * -errno (-ESTALE: another file now). */
int e2map__reopen_image(const e2map_t *m, struct stat *st);

/* zone.c: ext4_inode_block_valid's range part: past the first data
 * block, inside the filesystem. */
bool e2map__block_valid(const e2map_t *m, uint64_t pblk, uint64_t count);
/* zone.c: ext4_inode_block_valid for inode INO: also clear of the system
 * zone (its own journal zone aside). */
bool e2map__zone_valid(e2map_t *m, ext2_ino_t ino, uint64_t pblk,
		       uint64_t count);
void e2map__zone_free(e2map_t *m);

/* group.c: ext4_bg_num_gdb, descriptor blocks kept in group G */
uint64_t e2map__bg_num_gdb(ext2_filsys fs, dgrp_t g);
/* group.c: the metadata at group G's start (ext4_num_base_meta_blocks),
 * in blocks, and its parts in *OUT (NULL: not wanted): a superblock copy
 * at the group's first block, then descriptors, then reserved GDT. */
struct e2map_group {
	uint64_t super, gdt, reserved;
};
uint64_t e2map__group_base(ext2_filsys fs, dgrp_t g, struct e2map_group *out);
/* group.c: ext4_calculate_overhead, in blocks, into *BLOCKS (statfs's
 * f_blocks is the block count less this, unless a bigalloc superblock
 * records s_overhead_clusters); 0 or -ENOMEM */
int e2map__overhead(ext2_filsys fs, uint64_t *blocks);

#endif /* E2MAP_DISK_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The media handle as io_media.c (raw files, the choice of format) and
 * container.c (E01, VMDK, VHD, QCOW through the libyal libraries) share it.
 */
#ifndef E2MAP_CONTAINER_H
#define E2MAP_CONTAINER_H

#include "media.h"

#include <stdbool.h>
#include <sys/types.h>

struct e2map_media {
	const struct media_ops *ops;
	void *h;			/* the library's handle */
	void *pool;			/* VMDK: its extent, opened by us */
	int fd;				/* raw: the file */
	uint64_t size;
};

/* The bytes a format is told by: the file's first and last ones. */
struct media_sig {
	unsigned char head[64];
	unsigned char tail[1024];
	size_t nhead, ntail;
};

/*
 * One format: its name; MAYBE, a test of the signature bytes that every
 * file of the format passes (its library's own CHECK is the judge, and
 * loading the library costs more than the answer on a raw image); LOAD,
 * its library; CHECK (1: this format), open, read, close.
 */
struct media_ops {
	const char *name;
	bool (*maybe)(const struct media_sig *sig);
	int (*load)(void);
	int (*check)(const char *path);
	int (*open)(struct e2map_media *md, const char *path);
	ssize_t (*pread)(struct e2map_media *md, void *buf, size_t len,
			 uint64_t off);
	void (*close)(struct e2map_media *md);
};

/* container.c: the container formats, in the order they are tried. */
extern const struct media_ops e2map__containers[];
extern const size_t e2map__ncontainers;

#endif /* E2MAP_CONTAINER_H */

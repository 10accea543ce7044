/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dl.c: libarchive (e2map tar) and libfuse3 (e2map mount), loaded by the
 * command that needs them, not by every run: together with what they bring
 * (libxml2, ICU, libstdc++, nettle, the compressors) they cost a `seek` on
 * a raw image more start-up than its answer (issue 24).  Their functions
 * are called through the tables AR and FU, filled once by cmd_dl_load.
 */
#ifndef E2MAP_CMD_DL_H
#define E2MAP_CMD_DL_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 35
#endif
#include <archive.h>
#include <archive_entry.h>
#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stddef.h>

#define AR_FNS(X) \
	X(archive_entry_acl_add_entry) \
	X(archive_entry_copy_hardlink) \
	X(archive_entry_copy_pathname) \
	X(archive_entry_free) \
	X(archive_entry_new) \
	X(archive_entry_set_atime) \
	X(archive_entry_set_ctime) \
	X(archive_entry_set_gid) \
	X(archive_entry_set_mode) \
	X(archive_entry_set_mtime) \
	X(archive_entry_set_nlink) \
	X(archive_entry_set_rdev) \
	X(archive_entry_set_size) \
	X(archive_entry_set_symlink) \
	X(archive_entry_set_uid) \
	X(archive_entry_sparse_add_entry) \
	X(archive_entry_xattr_add_entry) \
	X(archive_errno) \
	X(archive_error_string) \
	X(archive_set_error) \
	X(archive_write_close) \
	X(archive_write_data) \
	X(archive_write_finish_entry) \
	X(archive_write_free) \
	X(archive_write_header) \
	X(archive_write_new) \
	X(archive_write_open2) \
	X(archive_write_set_bytes_per_block) \
	X(archive_write_set_format_option) \
	X(archive_write_set_format_pax)
#define FU_FNS(X) \
	X(fuse_add_direntry) \
	X(fuse_add_direntry_plus) \
	X(fuse_daemonize) \
	X(fuse_opt_free_args) \
	X(fuse_remove_signal_handlers) \
	X(fuse_reply_attr) \
	X(fuse_reply_buf) \
	X(fuse_reply_entry) \
	X(fuse_reply_err) \
	X(fuse_reply_lseek) \
	X(fuse_reply_open) \
	X(fuse_reply_readlink) \
	X(fuse_reply_statfs) \
	X(fuse_reply_xattr) \
	X(fuse_session_destroy) \
	X(fuse_session_loop) \
	X(fuse_session_mount) \
	X(fuse_session_new) \
	X(fuse_session_unmount) \
	X(fuse_set_signal_handlers)

#define CMD_DL_SLOT(f) __typeof__(f) *f;
extern struct ar_fns { AR_FNS(CMD_DL_SLOT) } ar;
extern struct fu_fns { FU_FNS(CMD_DL_SLOT) } fu;

struct cmd_dlsym {
	const char *name;
	size_t off;
};
struct cmd_dlib {
	const char *soname, *package;
	const struct cmd_dlsym *syms;
	size_t count;
	void *table;
	bool loaded;
};
extern struct cmd_dlib cmd_dl_archive, cmd_dl_fuse;

/* 0 once LIB is loaded; else "e2map: CMD: needs ..." printed, exit 1. */
int cmd_dl_load(struct cmd_dlib *lib, const char *cmd);

#endif /* E2MAP_CMD_DL_H */

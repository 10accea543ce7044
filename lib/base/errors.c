/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one error border of libe2map: com_err codes from libext2fs become
 * negative errnos here, and the detail of the last failure is kept on the
 * image handle (or, for a failed e2map_open, per thread).  The handle's
 * layout is the disk layer's: this one knows only that it starts with
 * its struct e2map_err (disk.h asserts it).
 */
#include "base.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <et/com_err.h>

static _Thread_local char open_errmsg[256];

int e2map__fail(e2map_t *m, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (m)
		vsnprintf(((struct e2map_err *)m)->msg, sizeof(open_errmsg), fmt, ap);
	else
		vsnprintf(open_errmsg, sizeof(open_errmsg), fmt, ap);
	va_end(ap);
	return err;
}

void e2map__set_open_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(open_errmsg, sizeof(open_errmsg), fmt, ap);
	va_end(ap);
}

/* libext2fs codes with a kernel errno; other com_err codes become -EIO. */
static const struct {
	errcode_t code;
	int err;
} code_table[] = {
	{ EXT2_ET_BAD_MAGIC, -EUCLEAN },
	{ EXT2_ET_SB_CSUM_INVALID, -EBADMSG },
	{ EXT2_ET_INODE_CSUM_INVALID, -EBADMSG },
	{ EXT2_ET_DIR_CSUM_INVALID, -EBADMSG },
	{ EXT2_ET_EXTENT_CSUM_INVALID, -EBADMSG },
	{ EXT2_ET_EXT_ATTR_CSUM_INVALID, -EBADMSG },
	{ EXT2_ET_BAD_DESC_SIZE, -EUCLEAN },
	{ EXT2_ET_CORRUPT_SUPERBLOCK, -EUCLEAN },
	{ EXT2_ET_FILESYSTEM_CORRUPTED, -EUCLEAN },
	{ EXT2_ET_DIR_CORRUPTED, -EUCLEAN },
	{ EXT2_ET_INODE_CORRUPTED, -EUCLEAN },
	{ EXT2_ET_SHORT_READ, -EUCLEAN },
	{ EXT2_ET_GDESC_BAD_BLOCK_MAP, -EUCLEAN },
	{ EXT2_ET_GDESC_BAD_INODE_MAP, -EUCLEAN },
	{ EXT2_ET_GDESC_BAD_INODE_TABLE, -EUCLEAN },
	{ EXT2_ET_BAD_INODE_NUM, -ENOENT },
	{ EXT2_ET_BAD_BLOCK_NUM, -EUCLEAN },
	{ EXT2_ET_UNSUPP_FEATURE, -EOPNOTSUPP },
	{ EXT2_ET_RO_UNSUPP_FEATURE, -EOPNOTSUPP },
	{ EXT2_ET_REV_TOO_HIGH, -EOPNOTSUPP },
	{ EXT2_ET_FILE_NOT_FOUND, -ENOENT },
	{ EXT2_ET_NO_DIRECTORY, -ENOTDIR },
	{ EXT2_ET_SYMLINK_LOOP, -ELOOP },
	{ EXT2_ET_NO_MEMORY, -ENOMEM },
};

/*
 * Turn a libext2fs result into -errno; raw errnos pass through.  The
 * detail is WHAT (may be NULL) and, for a com_err code, its text: a raw
 * errno's text is what e2map_strerror says already.
 */
int e2map__errcode(e2map_t *m, errcode_t code, const char *what)
{
	bool raw = code > 0 && code < 4096;
	int err = raw ? -(int)code : -EIO;
	size_t i;

	for (i = 0; i < sizeof(code_table) / sizeof(code_table[0]); i++)
		if (code_table[i].code == code)
			err = code_table[i].err;
	if (raw)
		return e2map__fail(m, err, "%s", what ? what : "");
	return e2map__fail(m, err, "%s%s%s", what ? what : "",
			   what ? ": " : "", error_message(code));
}

const char *e2map_strerror(int err)
{
	if (err == -EUCLEAN)
		return "Filesystem metadata is corrupted";
	if (err == -EBADMSG)
		return "Filesystem metadata checksum is bad";
	return strerror(err < 0 ? -err : err);
}

const char *e2map_errmsg(const e2map_t *m)
{
	return m ? ((const struct e2map_err *)m)->msg : open_errmsg;
}

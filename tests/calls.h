/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The .calls format: a recorded sequence of open/lseek/FS_IOC_FIEMAP calls
 * and the kernel's answers, executed against the kernel (a mounted tree) or
 * against libe2map (an image) and printed identically for both, so that a
 * recording replays as a line-by-line comparison.  Also the .golden format
 * (CLI output recorded from xfs_io/filefrag) and its replay through the CLI.
 *
 *   open PATH = RET                  RET 0 or -ENAME; starts a new handle
 *   open-nofollow PATH = RET         the same with O_NOFOLLOW
 *   lseek OFFSET WHENCE = RET        WHENCE SET CUR END DATA HOLE or a number
 *   fiemap START LENGTH FLAGS COUNT = RET FLAGS_OUT MAPPED
 *   ext LOGICAL PHYSICAL LENGTH FLAGS
 *
 * Decimal numbers, 0x%x flags, LENGTH "max" for ~0ULL, errno by name.  ext
 * lines follow a fiemap: min(MAPPED, COUNT) of them when COUNT > 0, none
 * when MAPPED is still the 0xdeadbeef preset (struct not copied back).
 * Calls after an open that failed, or before any open, print "= SKIP".
 * In PATH, '\\', '#', '=' and control bytes are written \xNN.  Lines whose
 * first non-blank byte is '#', and text from " #" on, are comments.
 *
 * `open` is open(2): a final symlink is followed (absolute targets from the
 * mount's root, RESOLVE_IN_ROOT, as e2map resolves them from the image's).
 * Recordings made before that (no "# calls-format: 2" line) opened every
 * path with O_NOFOLLOW: calls_replay replays their `open` as open-nofollow.
 *
 * Golden entries: "$ ARGV\tNBYTES\tEXIT\tERRBYTES\n" then NBYTES of
 * stdout and ERRBYTES of stderr; ARGV is the e2map command line split on
 * single spaces, the token IMAGE standing for the image path.  stdout,
 * stderr and the exit status must be the tool's, byte for byte.  Older
 * recordings have no ERRBYTES (and no stderr): then stderr is not compared.
 */
#ifndef E2MAP_TESTS_CALLS_H
#define E2MAP_TESTS_CALLS_H

#include <stddef.h>
#include <stdint.h>

#define CALLS_MAPPED_PRESET 0xdeadbeefU
#define CALLS_PATH_MAX 4096

enum calls_op { CALLS_OPEN = 1, CALLS_LSEEK, CALLS_FIEMAP };

/* The header line of recordings whose `open` follows a final symlink. */
#define CALLS_FORMAT_LINE "# calls-format: 2"

struct calls_call {
	enum calls_op op;
	char path[CALLS_PATH_MAX];	/* open: decoded path */
	int nofollow;			/* open: O_NOFOLLOW (open-nofollow) */
	int64_t offset;			/* lseek */
	int whence;
	uint64_t start, length;		/* fiemap */
	uint32_t flags, count;
};

/* A growable NUL-terminated text buffer. */
struct calls_buf {
	char *s;
	size_t len, cap;
};
void calls_buf_add(struct calls_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void calls_buf_addn(struct calls_buf *b, const void *p, size_t n);
void calls_buf_free(struct calls_buf *b);

/*
 * Parse one line.  Returns 1 and fills C for a call (any "= ..." result is
 * ignored), 0 for a line to skip (blank, comment, ext), -1 when malformed
 * (a message goes to ERR).
 */
int calls_parse(const char *line, struct calls_call *c, char *err,
		size_t errlen);

/* The call part of C's line, "open /a = " style, without the result. */
void calls_format_call(struct calls_buf *b, const struct calls_call *c);
/* A result: the number, or -ENAME for a negative errno. */
void calls_format_ret(struct calls_buf *b, int64_t ret);

/* "ENXIO" for ENXIO, "E123" for unknown numbers. */
const char *calls_errname(int err);

struct calls_backend;
/*
 * Kernel: openat2(ROOT, path, O_RDONLY, RESOLVE_IN_ROOT) on an existing
 * mount (O_NOFOLLOW added for open-nofollow).
 */
int calls_kernel_new(const char *root, struct calls_backend **out);
/*
 * Kernel, fresh mount per open: umount MNT, mount -o loop,ro[,noload] IMG
 * MNT (noload decided once by trying it first), then open.
 */
int calls_kernel_remount_new(const char *img, const char *mnt,
			     struct calls_backend **out);
/* libe2map: e2map_open(IMAGE, OPTIONS), e2map_file_open per open. */
int calls_e2map_new(const char *image, const char *options,
		    struct calls_backend **out);
/* Closes handles; the remount backend unmounts. */
void calls_backend_free(struct calls_backend *b);

/*
 * Mount IMG read-only on MNT (loop device, mount(2) with FSTYPE and DATA,
 * e.g. "noload"), run ARGV with the caller's stdout, unmount.  With PATH,
 * every "@" in ARGV stands for PATH as open(2) finds it on the mount with
 * the mount as "/" (absolute symlinks inside the image):
 * /proc/self/fd/CALLS_FRESH_FD, or MNT/PATH when that lookup fails (and
 * fails the same way from the host's root).  Returns the command's exit
 * status, or -errno when the mount or unmount failed, -EXDEV when PATH's
 * failure cannot be reproduced.
 */
#define CALLS_FRESH_FD 9
int calls_fresh_run(const char *img, const char *mnt, const char *fstype,
		    const char *data, const char *path, char *const argv[]);

/* Execute C and append its result line(s), newline-terminated, to OUT. */
void calls_exec(struct calls_backend *b, const struct calls_call *c,
		struct calls_buf *out);

/*
 * Replay the recorded .calls text FILE (named NAME for messages) through
 * B; without CALLS_FORMAT_LINE, its opens are open-nofollow.  Returns the number of differing calls (0 = all equal), or -1 on a
 * parse error; the first difference (NAME:LINE, expected and got) and a
 * count go to REPORT.  MAX_REPORT limits how many differences are described.
 */
int calls_replay(struct calls_backend *b, const char *name, const char *text,
		 struct calls_buf *report, int max_report);

/*
 * Replay the .golden text through the CLI binary E2MAP with IMAGE for the
 * IMAGE token.  Returns the number of differing entries, -1 on a format
 * error; the differences go to REPORT.
 */
int calls_golden_replay(const char *e2map, const char *image, const char *name,
			const char *text, size_t len, struct calls_buf *report,
			int max_report);

/*
 * Whole file into a NUL-terminated malloc'd buffer; NULL on error.  When
 * PATH is missing, PATH.gz is read through gzip instead.
 */
char *calls_read_file(const char *path, size_t *len);

#endif

/*
 * The e2map command-line front end: the command table row, the commands,
 * and the helpers they share (number parsing, opening, the one-line error,
 * the JSON writer).  Each command calls the library in the same order the
 * reference tool calls the kernel (spec §10), through one file handle.
 */
#ifndef E2MAP_CMD_H
#define E2MAP_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <e2map.h>
#include <jansson.h>

/* Exit statuses: 1 = the library (or a file) failed, 2 = bad usage. */
#define CMD_EXIT_FAIL 1
#define CMD_EXIT_USAGE 2

struct e2map_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* returns the exit status */
	const char *args;			/* usage line after the name */
	const char *oneline;
	void (*help)(void);			/* sentence, examples, flags */
};

/* main.c */
const struct e2map_cmd *cmd_find(const char *name);

/* The commands: argv[0] is the command name. */
int cmd_check(int argc, char **argv);
int cmd_fiemap(int argc, char **argv);
int cmd_filefrag(int argc, char **argv);
int cmd_seek(int argc, char **argv);
void check_help(void);
void fiemap_help(void);
void filefrag_help(void);
void seek_help(void);

/* util.c */
/* "usage: e2map NAME ARGS" on stderr; returns CMD_EXIT_USAGE. */
int cmd_usage(const char *name);
/* "e2map: NAME: FMT" on stderr, one line; returns CMD_EXIT_USAGE. */
int cmd_usage_error(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "e2map: WHAT: strerror(err) (detail)" on stderr; returns CMD_EXIT_FAIL. */
int cmd_fail(const char *what, int err, const char *detail);
/* As cmd_fail for a file: WHAT is "CMD: IMAGE:PATH". */
int cmd_fail_file(const char *cmd, const char *image, const char *path,
		  int err, const e2map_t *m);
/* After getopt's '?': "e2map: NAME: invalid option '-x'", usage; 2. */
int cmd_bad_option(const char *name, char **argv);
/* "e2map: FMT" on stderr, one line, for a failure that has no errno. */
void cmd_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * xfs_io's cvtnum: strtoll in base 0 (0x.., 0..), then at most one unit
 * letter, case-insensitive: b = 4096 (xfs_io's block on a non-XFS file),
 * s = 512, k m g t p e = powers of 1024.  Digits beyond the range of
 * int64_t saturate at INT64_MAX (strtoll, as xfs_io); a sign, a unit that
 * overflows, or anything else is rejected: 0, or -EINVAL / -ERANGE.
 */
int cmd_parse_num(const char *s, int64_t *out);
/* A plain non-negative decimal int (for counts such as -n). */
int cmd_parse_count(const char *s, int *out);

/* Options every image command takes (long options). */
struct cmd_common {
	const char *offset;	/* --offset BYTES, as typed */
	bool json;		/* --json */
};
/* getopt_long codes for the long options; above any short option char. */
enum { OPT_JSON = 0x100, OPT_OFFSET, OPT_HELP };

/*
 * Open IMAGE with "offset=N" when --offset was given.  On failure prints
 * the error and returns CMD_EXIT_FAIL (or CMD_EXIT_USAGE for a bad
 * --offset); 0 on success.
 */
int cmd_open_image(const char *cmd, const struct cmd_common *co,
		   const char *image, e2map_t **out);
/* Open PATH in M; prints the error and returns CMD_EXIT_FAIL on failure. */
int cmd_open_file(const char *cmd, e2map_t *m, const char *image,
		  const char *path, e2map_file_t **out);

/*
 * json.c: --json documents are built with jansson (CLI only; the library
 * does not depend on it).  The rules of e2map(1), JSON OUTPUT, live here:
 * an integer above 2^53-1 becomes a decimal string, a name that is not
 * valid UTF-8 gets U+FFFD for each invalid byte and a KEY_hex sibling.
 * A value that cannot be built (no memory) fails the document at print.
 */
json_t *cmd_json_u64(uint64_t v);
/* OBJ[KEY] = VALUE (VALUE's reference is taken). */
void cmd_json_set(json_t *obj, const char *key, json_t *value);
void cmd_json_append(json_t *array, json_t *value);
/* OBJ[KEY] = NAME (LEN bytes), and OBJ[KEY_hex] when it is not UTF-8. */
void cmd_json_set_name(json_t *obj, const char *key, const char *name,
		       size_t len);
/* {"logical","physical","length","flags","flag_names"}: bytes, names. */
json_t *cmd_json_extent(const struct fiemap_extent *e);
/* {"errno":N,"name":"ENAME","message":"...","detail":"..."} for -ERR. */
json_t *cmd_json_error(int err, const char *detail);
/* DOC on stdout, one line; releases DOC.  0, -ENOMEM or -EIO. */
int cmd_json_print(json_t *doc);
/*
 * One document too long to hold: the members of HEAD, then "KEY":[ with
 * each ITEM (FIRST: no comma before it), then "]" and TAIL's members; each
 * call releases its value.  0, -ENOMEM or -EIO.
 */
int cmd_json_stream_begin(json_t *head, const char *key);
int cmd_json_stream_item(json_t *item, bool first);
int cmd_json_stream_end(json_t *tail);

#endif /* E2MAP_CMD_H */

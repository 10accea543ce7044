/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The e2map command-line front end: the command table row, the context
 * the dispatcher hands a command, the commands, and the helpers they
 * share (number parsing, opening, the one-line error, the JSON writer).
 * Each command calls the library in the same order the reference tool
 * calls the kernel (spec §10), through one file handle.
 *
 * The files call one way only, down: main.c (the table, the dispatcher)
 * calls the commands and the helpers, the commands call the helpers,
 * open.c calls parse.c and util.c, parse.c calls util.c, scan_out.c calls
 * json.c and util.c, and util.c, json.c and progress.c call nothing of
 * the CLI's.  So parse.c and util.c link without the rest (the parser's
 * test, tests/test_cli_parse.c).
 */
#ifndef E2MAP_CMD_H
#define E2MAP_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <e2map.h>
#include <jansson.h>

/* Exit statuses: 1 = the library (or a file) failed, 2 = bad usage. */
#define CMD_EXIT_FAIL 1
#define CMD_EXIT_USAGE 2

struct cmd_ctx;

/*
 * A row's flags: what the dispatcher opens before the command runs (git's
 * RUN_SETUP, xfs_io's command flags) and closes after it, whatever it
 * returns.  CMD_NEEDS_IMAGE: operand 0 is IMAGE, opened by cmd_open_image
 * with --offset, --partition and --replay.  CMD_NEEDS_FILE: that, and
 * operand 1 is the one PATH, opened by cmd_tool_open with --no-follow and
 * the mirrored tool's messages.  A command of several PATHs opens them
 * itself; one that reads a disk, not a filesystem (partitions), has
 * neither flag.
 */
#define CMD_NEEDS_IMAGE 0x1u
#define CMD_NEEDS_FILE (0x2u | CMD_NEEDS_IMAGE)
/* The image stays open for as long as the user likes (mount): read with
 * pread, never mapped, so that a file cut short meanwhile is EIO, not
 * SIGBUS (e2map_open's "nomap"). */
#define CMD_LONG_LIVED 0x4u

/*
 * A command's row (main.c): what `e2map help` lists and dispatch calls.
 * Its options, operands and help text are its spec, kept beside the code
 * that reads them (cmd_<name>.c); the shared parser (parse.c) reads the
 * command line, prints the usage line and the help from that one spec.
 */
struct e2map_cmd {
	const char *name;
	int (*fn)(struct cmd_ctx *ctx);	/* returns the exit status */
	const char *oneline;			/* e2map help's list */
	const struct cmd_spec *spec;
	unsigned flags;				/* CMD_NEEDS_* */
};

/* What the parser does with an option, in command-line order. */
enum cmd_opt_action {
	CMD_OPT_TRUE,		/* bool FIELD = true */
	CMD_OPT_COUNT,		/* int FIELD += 1: -v -v, -vv */
	CMD_OPT_BITS,		/* unsigned FIELD |= VALUE */
	CMD_OPT_SET,		/* int FIELD = VALUE: the last one given wins */
	CMD_OPT_STRING,		/* const char *FIELD = the argument, as typed */
	CMD_OPT_CHOICE,		/* int FIELD = the argument's index in CHOICES */
	CMD_OPT_PARSE,		/* PARSE(the argument or NULL, &FIELD) */
};

/*
 * One row of a command's option table (48 rows at most), written with
 * designated initializers.  FIELD is an offsetof in the struct the
 * command hands the parser, or, with COMMON, in its struct cmd_common;
 * the option takes an argument when it has ARG or CHOICES (a group of
 * short flags, -sav, and repeats are getopt's).  A rejected argument is "e2map: CMD: invalid WHAT 'ARG'"
 * (CMD_OPT_PARSE) or "e2map: CMD: invalid --LONG 'ARG': not one of A, B"
 * (CMD_OPT_CHOICE), exit 2.  Options of one non-zero GROUP are shown as
 * one "[-a|-b]" in the usage line, "-a|-b" when REQUIRED: then one of
 * them must be given, else the usage line, exit 2.
 */
struct cmd_option {
	char short_name;		/* 'v'; 0: a long option only */
	const char *long_name;		/* "json"; NULL: a short option only */
	const char *help;		/* the help line; "\n" goes on under it */
	enum cmd_opt_action action;
	size_t field;
	const char *arg;		/* its argument's name in help; NULL: none */
	unsigned value;			/* CMD_OPT_BITS, CMD_OPT_SET */
	const char *const *choices;	/* CMD_OPT_CHOICE: NULL-terminated */
	/* CMD_OPT_PARSE: 0, or < 0 for "invalid WHAT 'ARG'" */
	int (*parse)(const char *arg, void *field);
	const char *what;
	unsigned char group;		/* 1..31; 0: none */
	bool required;
	bool common;
};

/*
 * Everything `e2map help CMD`, `CMD --help` and a usage error print:
 * "usage: e2map NAME OPTIONS OPERANDS", ABOUT, the option lines, NOTES.
 * --help (and -h, unless an option takes it) is every command's, never
 * listed in the usage line; a lone -h is help even where -h is taken.
 */
struct cmd_spec {
	const struct cmd_option *options;	/* ends with CMD_OPT_END */
	const char *operands;		/* "IMAGE PATH [OFFSET [LENGTH]]" */
	int min_operands, max_operands;	/* max < 0: no limit */
	const char *about;		/* what it does, examples */
	const char *notes;		/* after the option lines; or NULL */
	/*
	 * The struct the options' FIELDs are in (0: none), as it is before
	 * the parse: DEFAULTS, or zeroes.  The dispatcher makes it.
	 */
	size_t opts_size;
	const void *defaults;
	/*
	 * Or NULL.  After the parse and before anything is opened: the usage
	 * errors the table cannot say (an operand's syntax, options that
	 * exclude each other), so that they come before an open's errors as
	 * they always did.  CMD_PARSED to go on, else the exit status.
	 */
	int (*check)(struct cmd_ctx *ctx);
	/* Or NULL: frees what CHECK left in the options struct. */
	void (*free_opts)(void *opts);
};

/* The options several commands take, each in its CMD_OPT_* row. */
struct cmd_common {
	const char *offset;	/* --offset BYTES, as typed */
	const char *partition;	/* --partition N, as typed */
	bool replay;		/* --replay: answers after journal recovery */
	bool unmountable;	/* --unmountable: read past the mount's refusal */
	bool nomap;		/* CMD_LONG_LIVED: e2map_open's "nomap" */
	bool json;		/* --json */
	bool why;		/* --why: e2map's detail after a tool's error */
	bool nofollow;		/* --no-follow: open PATH with O_NOFOLLOW */
	bool quiet;		/* -q, --quiet: no progress bar */
	int format;		/* --format: the index in its choices */
};

/* The common options' rows, each setting its struct cmd_common member. */
#define CMD_COMMON(member) .common = true, \
	.field = offsetof(struct cmd_common, member)
#define CMD_OPT_JSON(schema) \
	{ .long_name = "json", .action = CMD_OPT_TRUE, CMD_COMMON(json), \
	  .help = schema }
#define CMD_OPT_WHY(tool) \
	{ .long_name = "why", .action = CMD_OPT_TRUE, CMD_COMMON(why), \
	  .help = "after " tool "'s error message, e2map's detail line" }
#define CMD_OPT_OFFSET \
	{ .long_name = "offset", .arg = "BYTES", .action = CMD_OPT_STRING, \
	  CMD_COMMON(offset), .help = "the filesystem starts at BYTES in IMAGE" }
#define CMD_OPT_PARTITION \
	{ .long_name = "partition", .arg = "N", .action = CMD_OPT_STRING, \
	  CMD_COMMON(partition), .help = "the filesystem is partition N of " \
	  "the disk IMAGE holds\n(see e2map partitions)" }
#define CMD_OPT_REPLAY \
	{ .long_name = "replay", .action = CMD_OPT_TRUE, CMD_COMMON(replay), \
	  .help = "answer as after journal recovery (a read-write mount's\n" \
	  "replay, into memory: the image is not written)" }
#define CMD_OPT_UNMOUNTABLE \
	{ .long_name = "unmountable", .action = CMD_OPT_TRUE, \
	  CMD_COMMON(unmountable), .help = "read an image the kernel refuses " \
	  "to mount: answers are\ne2map's, beyond the kernel (a warning says " \
	  "why)" }
#define CMD_OPT_NOFOLLOW \
	{ .long_name = "no-follow", .action = CMD_OPT_TRUE, \
	  CMD_COMMON(nofollow), .help = "a symlink as PATH is not followed: " \
	  "ELOOP, as O_NOFOLLOW" }
#define CMD_OPT_QUIET \
	{ .short_name = 'q', .long_name = "quiet", .action = CMD_OPT_TRUE, \
	  CMD_COMMON(quiet), .help = "no progress bar" }
/* --format X, X one of CHOICES (NULL-terminated); co.format its index. */
#define CMD_OPT_FORMAT(choices_, help_) \
	{ .long_name = "format", .choices = (choices_), \
	  .action = CMD_OPT_CHOICE, CMD_COMMON(format), .help = (help_) }
/* --format of the commands that list ranges (blockmap, unallocated). */
enum cmd_range_format { CMD_RANGES_TABLE, CMD_RANGES_CSV, CMD_RANGES_JSONL };
extern const char *const cmd_range_formats[];
#define CMD_OPT_RANGE_FORMAT \
	CMD_OPT_FORMAT(cmd_range_formats, "table (default), csv (RFC 4180) " \
		       "or jsonl\n(one JSON object a range; e2map(1), JSON " \
		       "OUTPUT)")
#define CMD_OPT_END { .short_name = 0 }

struct cmd_operands {
	int n;
	char **v;
};

/*
 * What the dispatcher (main.c) hands a command: the options its spec
 * parsed, its operands, and what its row's flags had opened.
 */
struct cmd_ctx {
	void *opts;			/* its spec's options struct, or NULL */
	struct cmd_common co;
	struct cmd_operands ops;
	const char *image, *path;	/* ops.v[0], ops.v[1], where opened */
	e2map_t *m;			/* CMD_NEEDS_IMAGE */
	e2map_file_t *f;		/* CMD_NEEDS_FILE */
};

/*
 * main.c: the whole CLI on ARGV (ARGV[1] the command), its exit status.
 * e2map.c's main() calls it; so does the test runner, in a forked child.
 */
int cmd_main(int argc, char **argv);

/* The commands. */
int cmd_blockmap(struct cmd_ctx *ctx);
int cmd_cat(struct cmd_ctx *ctx);
int cmd_check(struct cmd_ctx *ctx);
int cmd_diff(struct cmd_ctx *ctx);
int cmd_du(struct cmd_ctx *ctx);
int cmd_extract(struct cmd_ctx *ctx);
int cmd_fiemap(struct cmd_ctx *ctx);
int cmd_history(struct cmd_ctx *ctx);
int cmd_filefrag(struct cmd_ctx *ctx);
int cmd_mount(struct cmd_ctx *ctx);
int cmd_owner(struct cmd_ctx *ctx);
int cmd_partitions(struct cmd_ctx *ctx);
int cmd_recover(struct cmd_ctx *ctx);
int cmd_scan(struct cmd_ctx *ctx);
int cmd_seek(struct cmd_ctx *ctx);
int cmd_tar(struct cmd_ctx *ctx);
int cmd_unallocated(struct cmd_ctx *ctx);
extern const struct cmd_spec blockmap_spec, cat_spec, check_spec, du_spec, extract_spec,
	fiemap_spec,
	filefrag_spec, mount_spec, owner_spec, partitions_spec, scan_spec, seek_spec, tar_spec,
	unallocated_spec, history_spec, recover_spec, diff_spec;

/*
 * parse.c: the one option parser (getopt_long over the table of C's
 * spec).  ARGV[0] is the command's name.  Sets the options in OPTS and CO
 * and the operands in *OPS; returns CMD_PARSED to go on, else the exit
 * status after printing what was wrong (2) or the help (0).
 */
#define CMD_PARSED (-1)
int cmd_parse(const struct e2map_cmd *c, int argc, char **argv, void *opts,
	      struct cmd_common *co, struct cmd_operands *ops);
/* The usage line, ABOUT, the option lines and NOTES, on stdout. */
void cmd_help(const struct e2map_cmd *c);
/* A plain non-negative decimal int, for counts such as -n (an int *). */
int cmd_parse_count(const char *arg, void *field);

/* util.c: e2map's own errors, one line each, control bytes escaped */
/* "e2map: NAME: FMT" on stderr, one line; returns CMD_EXIT_USAGE. */
int cmd_usage_error(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "e2map: WHAT: e2map_strerror(err) (detail)"; returns CMD_EXIT_FAIL. */
int cmd_fail(const char *what, int err, const char *detail);
/* As cmd_fail for a file: WHAT is "CMD: IMAGE:PATH", both escaped. */
int cmd_fail_file(const char *cmd, const char *image, const char *path,
		  int err, const e2map_t *m);
/* "e2map: FMT" on stderr, one line, for a failure that has no errno. */
void cmd_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * S with control bytes written C-style (\t \n \r \\, others \xNN), for
 * e2map's own messages; one of four static buffers, reused in turn.
 */
const char *cmd_esc(const char *s);
/*
 * coreutils' quoting of file names in messages (shell-escape style):
 * bare when nothing needs quoting (unless ALWAYS), "..." around a name
 * whose only trouble is a ', else '...' with '\'' for a ' and $'\ooo'
 * for bytes that are not printable.  COLON: a ':' needs quoting too, as
 * in quotef (the FILE: REASON messages of cat).
 */
void cmd_put_quoted(FILE *out, const char *s, size_t len, bool always,
		    bool colon);
/* Room for NEED elements of ELEM bytes in *V (capacity *CAP, doubled as
 * it grows): 0 or -ENOMEM, *V kept. */
int cmd_grow(void **v, size_t *cap, size_t need, size_t elem);
/* util.c: S as a CSV field, quoted as RFC 4180 asks where it holds a
 * comma, a quote, CR or LF */
void cmd_csv_text(const char *s);
/* util.c: "<N>" as debugfs spells an inode: N; 0 for anything else */
uint64_t cmd_ino_operand(const char *s);
/* strerror(-err): the tools' words (not e2map_strerror's). */
const char *cmd_tool_strerror(int err);
/* With --why: "e2map: CMD: IMAGE:PATH: REASON (detail)" on stderr. */
void cmd_why(const struct cmd_common *co, const char *cmd, const char *image,
	     const char *path, int err, const e2map_t *m);

/*
 * open.c: the opens the dispatcher and the commands make.  Open IMAGE
 * with "offset=N" when --offset was given ("partition=N" for
 * --partition, "replay" for --replay), then warn once on stderr when it
 * is mounted or its journal needs recovery.  On failure prints "e2map:
 * CMD: IMAGE: REASON" and returns CMD_EXIT_FAIL (or CMD_EXIT_USAGE for a
 * bad --offset); 0 on success.
 */
int cmd_open_image(const char *cmd, const struct cmd_common *co,
		   const char *image, e2map_t **out);
/*
 * Open PATH in M as the tool CMD mirrors opens it ("filefrag": open(2);
 * else xfs_io: stat(2), then open(2)), a final symlink followed unless
 * --no-follow, and on failure print that tool's message (and, with --why,
 * e2map's detail line).  Returns 0, or the tool's exit status (xfs_io 1,
 * filefrag the errno).  "<INO>", which no tool takes, fails with e2map's
 * own line and 1.
 */
int cmd_tool_open(const char *cmd, const struct cmd_common *co, e2map_t *m,
		  const char *image, const char *path, e2map_file_t **out);

/*
 * progress.c: "e2map CMD: DONE/TOTAL UNIT (P%)[, BYTES], RATE/s, ETA T"
 * redrawn on stderr while a whole-image command works: only when stderr
 * is a terminal, not with --quiet, and not when STREAMS (the command
 * prints as it goes) and stdout is a terminal too.  _end wipes the line.
 */
struct cmd_progress {
	bool on, drawn;
	const char *cmd, *unit;
	uint64_t total, done, bytes, ticks;
	int64_t start, last;		/* CLOCK_MONOTONIC, ns */
};
void cmd_progress_start(struct cmd_progress *p, const char *cmd,
			const char *unit, uint64_t total, bool quiet,
			bool streams);
/* N more UNITs done (and BYTES more bytes, shown when any were counted). */
/* cmd_progress_start with the inodes in use as the total when PATH is the
 * root (or NULL: the whole image); for a subtree, no total (0): a count. */
void cmd_progress_inodes(struct cmd_progress *p, e2map_t *m, const char *cmd,
			 const char *unit, const char *path, bool quiet,
			 bool streams);
void cmd_progress_add(struct cmd_progress *p, uint64_t n, uint64_t bytes);
void cmd_progress_draw(struct cmd_progress *p);
void cmd_progress_end(struct cmd_progress *p);
/* The line for P after ELAPSED_NS, into BUF; snprintf's result. */
int cmd_progress_format(char *buf, size_t size, const struct cmd_progress *p,
			int64_t elapsed_ns);

/*
 * json.c: --json documents are built with jansson (CLI only; the library
 * does not depend on it).  The rules of e2map(1), JSON OUTPUT, live here:
 * an integer above 2^53-1 becomes a decimal string, a name that is not
 * valid UTF-8 gets U+FFFD for each invalid byte and a KEY_hex sibling.
 * A value that cannot be built (no memory) fails the document at print.
 */
json_t *cmd_json_u64(uint64_t v);
/* The largest integer a JSON reader's double holds exactly: 2^53 - 1. */
#define JSON_MAX_SAFE 9007199254740991ULL
/* Length of the well-formed UTF-8 sequence at S (N > 0 bytes), or 0. */
size_t cmd_utf8_len(const unsigned char *s, size_t n);
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
/*
 * One JSON Lines record written straight into a buffer, then stdout: for
 * streams of a record per inode, where building jansson documents was
 * most of the time.  The same text as the documents would give (jansson
 * writes what needs escaping: names that are not printable ASCII, and
 * every sub-document given as a json_t).  _begin opens the record, _open
 * and _close a member object or array (KEY NULL inside an array), _end
 * closes and writes it: 0, -ENOMEM or -EIO.
 */
#define CMD_JL_DEPTH 8
struct outbuf {
	char *s;
	size_t len, cap;
};
struct cmd_jline {
	struct outbuf b;
	unsigned depth, count[CMD_JL_DEPTH];
	bool failed;
};
void cmd_jl_begin(struct cmd_jline *l);
void cmd_jl_open(struct cmd_jline *l, const char *key, char bracket);
void cmd_jl_close(struct cmd_jline *l, char bracket);
void cmd_jl_i64(struct cmd_jline *l, const char *key, int64_t v);
/* cmd_json_u64's rule: a decimal string past 2^53-1. */
void cmd_jl_u64(struct cmd_jline *l, const char *key, uint64_t v);
/* LITERAL as it is: true, false, null, or a quoted constant. */
void cmd_jl_const(struct cmd_jline *l, const char *key, const char *literal);
/* TEXT: printable ASCII without quote or backslash (a type name). */
void cmd_jl_string(struct cmd_jline *l, const char *key, const char *text);
/* V written by jansson (its reference is taken). */
void cmd_jl_json(struct cmd_jline *l, const char *key, json_t *v);
int cmd_jl_end(struct cmd_jline *l);
void cmd_jl_free(struct cmd_jline *l);
/* V's compact text (JSON_ENCODE_ANY) appended to B; releases V.  0 or
 * -ENOMEM. */
int cmd_json_dump_to(struct outbuf *b, json_t *v);

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

/*
 * scan_out.c: e2map scan's records, one format each.  An item is a record
 * with its inode's paths (PATH[i], LEN[i] bytes) and the detail of its
 * error; M answers readlink for body's "NAME -> TARGET".
 */
enum scan_format { SCAN_TABLE, SCAN_JSONL, SCAN_CSV, SCAN_BODY,
		   SCAN_TIMESKETCH, SCAN_DFXML };
/*
 * scan_dfxml.c: what a record does not hold, from one open of its inode
 * (the library's calls): --hash's digests of a regular file (ALGS asked;
 * HASHED, or HASH_ERR the open's or read's errno and HASH_WHY its
 * reason) and, for DFXML, the mapping runs of a regular file or
 * directory (RUNS, clipped to i_size, contiguous ones joined; MAP_ERR
 * where the walk failed after them).
 */
struct scan_extra {
	unsigned algs;
	uint64_t hash_max;	/* --hash-max: larger files -EFBIG; 0: none */
	bool want_runs;
	bool hashed;
	int hash_err;
	char hash_why[256];
	struct e2map_digest d;
	struct e2map_run *runs;
	size_t nruns, cap;
	int map_err;
	uint32_t bsize;
	uint64_t disk_off;
};
struct scan_item {
	const struct e2map_record *r;
	const char *const *path;
	const size_t *len;
	size_t n;
	const char *detail;
	const struct scan_extra *x;	/* NULL: no --hash, not DFXML */
};
/* 0, or -ENOMEM; X's per-record fields for R (through M), for an inode
 * named PATH (LEN bytes; NULL: no name): what a tool on the mount
 * reaches, opening it by that name. */
int scan_extra_fill(e2map_t *m, const struct e2map_record *r,
		    const char *path, size_t len, struct scan_extra *x);
void scan_extra_free(struct scan_extra *x);
/* "md5,sha1" into *(unsigned *)FIELD: E2MAP_DIGEST_* bits; -EINVAL. */
int scan_parse_digests(const char *arg, void *field);
/* BYTES (e2map_parse_bytes's syntax) into *(uint64_t *)FIELD; -EINVAL. */
int scan_parse_size(const char *arg, void *field);
/* DFXML's document head (IMAGE as given) and end; items go between. */
void scan_dfxml_head(e2map_t *m, const char *image);
void scan_dfxml_tail(void);
int scan_dfxml_item(const struct scan_item *it);
/* scan_jsonl.c: one record's line; 0, -ENOMEM or -EIO. */
int scan_jsonl_item(const struct scan_item *it);
int scan_dfxml_past(const char *path, size_t len, uint64_t ino, char nt,
		    const struct e2map_past_inode *in);
/* "regular", "directory", "symlink", "fifo", "socket", "chardev"... */
const char *scan_type_name(uint32_t mode);
void scan_print_head(enum scan_format fmt, unsigned algs);
/* 0, or -ENOMEM / -EIO (jsonl). */
int scan_print_item(enum scan_format fmt, e2map_t *m,
		    const struct scan_item *it);

/* scan_out.c, for scan_past.c: TSK's mode string ("r/rrw-r--r--", the
 * type letter from MODE) and a body name, sanitized as TSK does. */
void scan_body_mode(uint32_t mode, char out[13]);
void scan_body_name(const char *s, size_t len);

/*
 * scan_past.c: scan -d's records of the past in FMT, after the live
 * ones: the deleted names (e2map_deleted_names, names from PATHS), then
 * the free inodes and orphans; UNDER (a directory's first path; NULL:
 * the whole image) keeps the names in it and below, and no inodes.
 * COUNT is what was printed.  0, or the library's -errno, or -EIO.
 */
struct scan_past_count {
	uint64_t names, inodes, orphans;
};
int scan_past_print(enum scan_format fmt, e2map_t *m,
		    const e2map_paths_t *paths, const char *under,
		    struct scan_past_count *count);

#endif /* E2MAP_CMD_H */

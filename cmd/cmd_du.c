/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map du: GNU du's output from the image, as `du` prints it on the
 * kernel's mount: "SIZE<TAB>PATH" per directory (and per file with -a)
 * after what is under it, sizes in KiB rounded up (-h: du's human form,
 * -b: bytes of apparent size), du's complaints on stderr and exit 1.
 * --written sums the bytes of written data instead: what a sparse-aware
 * copy reads.
 */
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

struct du_run {
	bool all, summarize, human, bytes;
	long max_depth;			/* -1: no limit */
	enum e2map_du_size size;
	bool quiet;
	bool failed;
	struct cmd_progress progress;
};

enum { OPT_APPARENT = 0x200, OPT_WRITTEN, OPT_QUIET };

void du_help(void)
{
	fputs(
"Prints what GNU du prints on the mounted image, from the image: for PATH\n"
"(default /) and every directory under it, after its contents, the space\n"
"it and everything under it take, in KiB rounded up, and the path.  Files\n"
"of several links count once.  du's messages for what cannot be read go\n"
"to stderr and the exit status is 1.\n"
"\n"
"Examples:\n"
"  e2map du -sh evidence.img\n"
"  e2map du -a --written evidence.img /home\n"
"\n"
"  -a                every file too, not only directories\n"
"  -s                only the total for PATH\n"
"  -d, --max-depth N print nothing deeper than N below PATH\n"
"  -h                du's human-readable sizes (1.5K, 12M)\n"
"  -b                apparent sizes in bytes (--apparent-size, unit 1)\n"
"  --apparent-size   sum st_size, not the blocks allocated\n"
"  --written         sum the bytes of written data (holes and unwritten\n"
"                    extents excluded): what a sparse-aware copy reads\n"
"  -q, --quiet       no progress line on a terminal\n"
"  --offset BYTES    the filesystem starts at that byte of IMAGE\n", stdout);
}

/* du -h: gnulib's human_readable, base 1024, autoscaled, rounded up. */
static void human(char *buf, size_t size, uint64_t v)
{
	static const char units[] = "KMGTPEZY";
	uint64_t div = 1, amt, rem, x;
	unsigned __int128 r10;
	int e = 0;

	if (v < 1024) {
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return;
	}
	while (v / div >= 1024) {
		div *= 1024;
		e++;
	}
	amt = v / div;
	rem = v % div;
	if (amt < 10) {
		r10 = (unsigned __int128)rem * 10;
		x = amt * 10 + (uint64_t)(r10 / div) + (r10 % div != 0);
		if (x < 100) {
			snprintf(buf, size, "%llu.%llu%c",
				 (unsigned long long)(x / 10),
				 (unsigned long long)(x % 10), units[e - 1]);
			return;
		}
		amt = 10;
		rem = 0;
	}
	amt += rem != 0;
	if (amt == 1024 && e < 8)	/* rounded up into the next unit */
		snprintf(buf, size, "1.0%c", units[e]);
	else
		snprintf(buf, size, "%llu%c", (unsigned long long)amt,
			 units[e - 1]);
}

static void print_size(const struct du_run *run, uint64_t v)
{
	char buf[32];

	if (run->human)
		human(buf, sizeof(buf), v);
	else if (run->bytes)
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	else
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)(v / 1024 + (v % 1024 != 0)));
	fputs(buf, stdout);
}

static bool shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("%+,-./:=@_", c));
}

/* A byte the shell-escape style writes as $'\ooo' (C locale). */
static bool shell_odd(unsigned char c)
{
	return c < 0x20 || c >= 0x7f;
}

/*
 * coreutils' quoting of file names in messages (shell-escape style):
 * bare when nothing needs quoting (unless ALWAYS), "..." around a name
 * whose only trouble is a ', else '...' with '\'' for a ' and $'\ooo'
 * for bytes that are not printable.
 */
static void put_quoted(FILE *out, const char *s, size_t len, bool always)
{
	bool safe = true, odd = false, dq_bad = false;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		safe &= shell_safe(c);
		odd |= shell_odd(c);
		dq_bad |= c && strchr("\"$`\\!", c) != NULL;
	}
	if (safe && (!always || len)) {
		fprintf(out, always ? "'%.*s'" : "%.*s", (int)len, s);
		return;
	}
	if (!odd && !dq_bad && memchr(s, '\'', len)) {
		fprintf(out, "\"%.*s\"", (int)len, s);
		return;
	}
	fputc('\'', out);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\'')
			fputs("'\\''", out);
		else if (shell_odd(c))
			fprintf(out, "'$'\\%03o''", c);
		else
			fputc(c, out);
	}
	fputc('\'', out);
}

/* du's words for what went wrong (du.c's process_file). */
static void complain(const struct e2map_du_entry *e)
{
	fflush(stdout);		/* du writes both unbuffered in order */
	fputs("du: ", stderr);
	if (e->what == E2MAP_DU_CANNOT_ACCESS)
		fputs("cannot access ", stderr);
	else if (e->what == E2MAP_DU_CANNOT_READ_DIR)
		fputs("cannot read directory ", stderr);
	put_quoted(stderr, e->path, e->len,
		   e->what != E2MAP_DU_READ_ERROR);
	fprintf(stderr, ": %s\n", cmd_tool_strerror(e->err));
}

static int on_entry(const struct e2map_du_entry *e, void *payload)
{
	struct du_run *run = payload;

	if (e->err) {
		cmd_progress_end(&run->progress);
		complain(e);
		run->failed = true;
		return 0;
	}
	cmd_progress_add(&run->progress, 1, 0);
	if (e->depth > 0 && (run->max_depth >= 0 &&
			     e->depth > run->max_depth))
		return 0;
	if (e->depth > 0 && !e->dir && !run->all)
		return 0;
	cmd_progress_end(&run->progress);
	print_size(run, e->bytes);
	putchar('\t');
	fwrite(e->path, 1, e->len, stdout);
	putchar('\n');
	return 0;
}

static int parse_opts(int argc, char **argv, struct du_run *run,
		      struct cmd_common *co)
{
	static const struct option longopts[] = {
		{ "apparent-size", no_argument, NULL, OPT_APPARENT },
		{ "written", no_argument, NULL, OPT_WRITTEN },
		{ "max-depth", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c, n;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+asd:hbq", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': run->all = true; break;
		case 's': run->summarize = true; break;
		case 'h': run->human = true; run->bytes = false; break;
		case 'b': run->bytes = true; run->human = false;
			  run->size = E2MAP_DU_APPARENT; break;
		case 'q': run->quiet = true; break;
		case OPT_APPARENT: run->size = E2MAP_DU_APPARENT; break;
		case OPT_WRITTEN: run->size = E2MAP_DU_WRITTEN; break;
		case OPT_OFFSET: co->offset = optarg; break;
		case OPT_HELP: return du_help(), 0;
		case 'd':
			if (cmd_parse_count(optarg, &n) < 0)
				return cmd_usage_error("du", "invalid maximum "
						       "depth '%s'",
						       cmd_esc(optarg));
			run->max_depth = n;
			break;
		default: return cmd_bad_option("du", argv);
		}
	}
	if (run->all && run->summarize)
		return cmd_usage_error("du", "cannot both summarize and show "
				       "all entries");
	if (run->summarize)
		run->max_depth = 0;
	return argc - optind == 1 || argc - optind == 2 ? -1 : cmd_usage("du");
}

int cmd_du(int argc, char **argv)
{
	struct du_run run = { .max_depth = -1 };
	struct cmd_common co = { 0 };
	struct e2map_statfs sf;
	const char *path;
	e2map_t *m;
	int status = parse_opts(argc, argv, &run, &co), err;

	if (status >= 0)
		return status;
	path = argc - optind == 2 ? argv[optind + 1] : "/";
	if ((status = cmd_open_image("du", &co, argv[optind], &m)))
		return status;
	if (e2map_statfs(m, &sf) == 0)
		cmd_progress_start(&run.progress, "du", "inodes",
				   sf.files - sf.ffree, run.quiet,
				   run.all || !run.summarize);
	err = e2map_du(m, path, run.size, on_entry, &run);
	cmd_progress_end(&run.progress);
	if (err < 0)
		status = cmd_fail("du", err, e2map_errmsg(m));
	e2map_close(m);
	return status ? status : run.failed ? CMD_EXIT_FAIL : 0;
}

/*
 * Helpers every command shares: xfs_io-style number parsing, the one-line
 * error printer ("e2map: WHAT: REASON (detail)", style guide §4), usage
 * lines from the command table, and opening an image and a file in it.
 */
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* xfs_io gives a non-XFS ("foreign") file these unit sizes (init_cvtnum). */
#define CVT_BLOCKSIZE 4096
#define CVT_SECTSIZE 512

int cmd_usage(const char *name)
{
	const struct e2map_cmd *c = cmd_find(name);

	if (c)
		fprintf(stderr, "usage: e2map %s %s\n", c->name, c->args);
	return CMD_EXIT_USAGE;
}

int cmd_usage_error(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "e2map: %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CMD_EXIT_USAGE;
}

int cmd_bad_option(const char *name, char **argv)
{
	/* optopt holds a short option's letter; a long one is in argv. */
	if (optopt > 0 && optopt < 0x100)
		cmd_usage_error(name, "invalid option or missing argument: "
				"'-%c'", optopt);
	else
		cmd_usage_error(name, "invalid option or missing argument: "
				"'%s'", argv[optind - 1]);
	return cmd_usage(name);
}

void cmd_errorf(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);		/* keep stdout's lines before the error */
	fputs("e2map: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cmd_fail(const char *what, int err, const char *detail)
{
	if (detail && *detail)
		cmd_errorf("%s: %s (%s)", what, e2map_strerror(err), detail);
	else
		cmd_errorf("%s: %s", what, e2map_strerror(err));
	return CMD_EXIT_FAIL;
}

int cmd_fail_file(const char *cmd, const char *image, const char *path,
		  int err, const e2map_t *m)
{
	char what[4096];

	snprintf(what, sizeof(what), "%s: %s:%s", cmd, image, path);
	return cmd_fail(what, err, m ? e2map_errmsg(m) : NULL);
}

/* The multiplier for a unit letter, or 0 when it is not one. */
static int64_t unit_size(int c)
{
	static const char units[] = "kmgtpe";
	const char *p;

	switch (tolower(c)) {
	case 'b':
		return CVT_BLOCKSIZE;
	case 's':
		return CVT_SECTSIZE;
	}
	p = c ? strchr(units, tolower(c)) : NULL;
	return p ? (int64_t)1 << (10 * (p - units + 1)) : 0;
}

int cmd_parse_num(const char *s, int64_t *out)
{
	char *end;
	long long v;
	int64_t unit = 1;

	/* strtoll would skip blanks and accept a sign: xfs_io's "-5" is an
	 * option, and a negative offset is never meaningful here. */
	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	/* Out of range saturates at LLONG_MAX, as in xfs_io: such an
	 * offset is past any end of file and answers EOF there too. */
	v = strtoll(s, &end, 0);
	if (*end) {
		if (end[1] || !(unit = unit_size((unsigned char)*end)))
			return -EINVAL;
	}
	if (v > INT64_MAX / unit)
		return -ERANGE;
	*out = v * unit;
	return 0;
}

int cmd_parse_count(const char *s, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int cmd_open_image(const char *cmd, const struct cmd_common *co,
		   const char *image, e2map_t **out)
{
	char opts[64] = "";
	char what[4096];
	int64_t off;
	int err;

	if (co->offset) {
		if (cmd_parse_num(co->offset, &off) < 0)
			return cmd_usage_error(cmd, "invalid --offset '%s'",
					       co->offset);
		snprintf(opts, sizeof(opts), "offset=%lld", (long long)off);
	}
	err = e2map_open(image, opts[0] ? opts : NULL, out);
	if (err < 0) {
		snprintf(what, sizeof(what), "%s: %s", cmd, image);
		return cmd_fail(what, err, e2map_errmsg(NULL));
	}
	return 0;
}

int cmd_open_file(const char *cmd, const struct cmd_common *co, e2map_t *m,
		  const char *image, const char *path, e2map_file_t **out)
{
	int err = e2map_file_open_flags(m, path, co->nofollow ?
					E2MAP_O_NOFOLLOW : 0, out);

	if (err < 0)
		return cmd_fail_file(cmd, image, path, err, m);
	return 0;
}

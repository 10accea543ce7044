/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Numbers with units and e2map_open's option string.  One parser serves
 * the library's "offset=" and every number the CLI reads (offsets,
 * lengths, --offset), so the two cannot drift apart: xfs_io's cvtnum
 * syntax, which is what the CLI's users type for the mirrored commands.
 */
#include "base.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* xfs_io gives a non-XFS ("foreign") file these unit sizes (init_cvtnum). */
#define CVT_BLOCKSIZE 4096
#define CVT_SECTSIZE 512

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

int e2map_parse_bytes(const char *s, int64_t *out)
{
	char *end;
	long long v;
	int64_t unit = 1;

	/* strtoll would skip blanks and accept a sign: xfs_io's "-5" is an
	 * option, and a negative offset is never meaningful here. */
	if (!s || !out || !isdigit((unsigned char)s[0]))
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

/* partition=N: a partition number as the kernel gives it, from 1. */
static int parse_partition(const char *s, struct e2map_options *o)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v == 0 || v > 65535)
		return -EINVAL;
	o->partition = (unsigned)v;
	return 0;
}

static int parse_option(const char *opt, struct e2map_options *o)
{
	int64_t v;

	if (!strncmp(opt, "offset=", 7)) {
		if (e2map_parse_bytes(opt + 7, &v) < 0)
			return -EINVAL;
		o->offset = (uint64_t)v;
		return 0;
	}
	if (!strncmp(opt, "partition=", 10))
		return parse_partition(opt + 10, o);
	if (!strcmp(opt, "replay")) {
		o->replay = true;
		return 0;
	}
	if (!strcmp(opt, "unmountable")) {
		o->unmountable = true;
		return 0;
	}
	if (!strcmp(opt, "nomap")) {
		o->nomap = true;
		return 0;
	}
	if (!strcmp(opt, "cache=cold") || !strcmp(opt, "cache=warm")) {
		o->warm = opt[6] == 'w';
		return 0;
	}
	return -EINVAL;
}

int e2map__parse_options(const char *options, struct e2map_options *o)
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

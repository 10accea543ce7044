/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one option parser of every command, and the usage line and help
 * text, all read from the command's table (struct cmd_spec, cmd.h): what
 * the parser takes and what the help says cannot drift apart.  getopt_long
 * does the reading (combined short flags as -ar, --long=ARG, unambiguous
 * prefixes of long names, options after the operands, "--"); getopt says
 * nothing itself (opterr is 0): e2map's one line says what was wrong.
 */
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTIONS 48
/* getopt_long's code for long option I: above every short option char. */
#define LONG_CODE(i) (0x100 + (i))
#define HELP_CODE LONG_CODE(MAX_OPTIONS)
#define HELP_COLUMN 19		/* where an option's help text starts */

/* A command's table as getopt_long takes it. */
struct getopt_table {
	char shorts[2 * MAX_OPTIONS + 2];
	struct option longs[MAX_OPTIONS + 2];
};

/* A line being put together; what does not fit is cut. */
struct text {
	char s[512];
	size_t n;
};

static void add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->s + t->n, sizeof(t->s) - t->n, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->n += (size_t)n < sizeof(t->s) - t->n ? (size_t)n
							 : sizeof(t->s) - 1 - t->n;
}

static bool is_end(const struct cmd_option *o)
{
	return !o->short_name && !o->long_name;
}

static bool takes_arg(const struct cmd_option *o)
{
	return o->arg || o->choices;
}

static bool short_taken(const struct cmd_option *o, char c)
{
	for (; !is_end(o); o++)
		if (o->short_name == c)
			return true;
	return false;
}

/* -h is help too, unless the command gives it a meaning of its own. */
static int build_getopt(const struct cmd_option *opts, struct getopt_table *t)
{
	size_t s = 0, l = 0;

	for (int i = 0; !is_end(&opts[i]); i++) {
		if (i == MAX_OPTIONS)
			return -E2BIG;
		if (opts[i].short_name) {
			t->shorts[s++] = opts[i].short_name;
			if (takes_arg(&opts[i]))
				t->shorts[s++] = ':';
		}
		if (opts[i].long_name)
			t->longs[l++] = (struct option){ opts[i].long_name,
				takes_arg(&opts[i]) ? required_argument
						    : no_argument,
				NULL, LONG_CODE(i) };
	}
	if (!short_taken(opts, 'h'))
		t->shorts[s++] = 'h';
	t->shorts[s] = '\0';
	t->longs[l++] = (struct option){ "help", no_argument, NULL, HELP_CODE };
	t->longs[l] = (struct option){ NULL, 0, NULL, 0 };
	return 0;
}

/* The row getopt_long's CODE stands for; NULL for help or a bad option. */
static const struct cmd_option *option_of(const struct cmd_option *opts,
					  int code)
{
	if (code >= LONG_CODE(0) && code < HELP_CODE)
		return &opts[code - LONG_CODE(0)];
	for (; !is_end(opts); opts++)
		if (opts->short_name == code)
			return opts;
	return NULL;
}

/* As typed on the command line: "-n COUNT"; with BOTH "-q, --quiet". */
static void spec_of(const struct cmd_option *o, bool both, struct text *t)
{
	t->n = 0;
	t->s[0] = '\0';
	if (o->short_name)
		add(t, "-%c", o->short_name);
	if (o->long_name && (both || !o->short_name))
		add(t, "%s--%s", t->n ? ", " : "", o->long_name);
	if (o->arg)
		add(t, " %s", o->arg);
	for (int i = 0; !o->arg && o->choices && o->choices[i]; i++)
		add(t, "%s%s", i ? "|" : " ", o->choices[i]);
}

static int usage(const struct e2map_cmd *c);

/* After getopt's '?': "e2map: NAME: invalid option ...", the usage. */
static int bad_option(const struct e2map_cmd *c, char **argv)
{
	/* optopt holds a short option's letter; a long one is in argv. */
	if (optopt > 0 && optopt < LONG_CODE(0))
		cmd_usage_error(c->name, "invalid option or missing argument: "
				"'-%c'", optopt);
	else
		cmd_usage_error(c->name, "invalid option or missing argument: "
				"'%s'", cmd_esc(argv[optind - 1]));
	return usage(c);
}

/* --format ARG: ARG's index in the choices, or the usage error. */
static int choose(const char *cmd, const struct cmd_option *o,
		  const char *arg, int *field)
{
	struct text list = { .n = 0 };

	for (int i = 0; o->choices[i]; i++) {
		if (!strcmp(o->choices[i], arg)) {
			*field = i;
			return CMD_PARSED;
		}
		add(&list, "%s%s", i ? ", " : "", o->choices[i]);
	}
	if (o->long_name)
		return cmd_usage_error(cmd, "invalid --%s '%s': not one of %s",
				       o->long_name, cmd_esc(arg), list.s);
	return cmd_usage_error(cmd, "invalid -%c '%s': not one of %s",
			       o->short_name, cmd_esc(arg), list.s);
}

/* Do what row O says with ARG; CMD_PARSED, or the usage error's status. */
static int apply(const char *cmd, const struct cmd_option *o,
		 const char *arg, void *opts, struct cmd_common *co)
{
	void *field = (o->common ? (char *)co : (char *)opts) + o->field;

	switch (o->action) {
	case CMD_OPT_TRUE: *(bool *)field = true; break;
	case CMD_OPT_COUNT: ++*(int *)field; break;
	case CMD_OPT_BITS: *(unsigned *)field |= o->value; break;
	case CMD_OPT_SET: *(int *)field = (int)o->value; break;
	case CMD_OPT_STRING: *(const char **)field = arg; break;
	case CMD_OPT_CHOICE: return choose(cmd, o, arg, field);
	case CMD_OPT_PARSE:
		if (o->parse(arg, field) < 0)
			return cmd_usage_error(cmd, "invalid %s '%s'", o->what,
					       cmd_esc(arg));
		break;
	}
	return CMD_PARSED;
}

/* Was one option of every required group given (SEEN: group bits)? */
static bool required_given(const struct cmd_option *o, unsigned seen)
{
	for (; !is_end(o); o++)
		if (o->required && !(seen & (1u << o->group)))
			return false;
	return true;
}

static bool operands_fit(const struct cmd_spec *sp, int n)
{
	return n >= sp->min_operands &&
	       (sp->max_operands < 0 || n <= sp->max_operands);
}

int cmd_parse(const struct e2map_cmd *c, int argc, char **argv, void *opts,
	      struct cmd_common *co, struct cmd_operands *ops)
{
	const struct cmd_option *o;
	struct getopt_table t;
	unsigned seen = 0;
	int code, status;

	if (build_getopt(c->spec->options, &t) < 0)
		return cmd_fail(c->name, -E2BIG, "options table");
	/* A lone -h is help, even where -h means more (seek's hole). */
	if (argc == 2 && !strcmp(argv[1], "-h"))
		return cmd_help(c), 0;
	opterr = 0;
	optind = 0;	/* 0, not 1: glibc and musl then forget a last parse */
	while ((code = getopt_long(argc, argv, t.shorts, t.longs, NULL)) != -1) {
		o = option_of(c->spec->options, code);
		if (code == HELP_CODE || (code == 'h' && !o))
			return cmd_help(c), 0;
		if (!o)
			return bad_option(c, argv);
		status = apply(c->name, o, optarg, opts, co);
		if (status != CMD_PARSED)
			return status;
		seen |= 1u << o->group;
	}
	ops->n = argc - optind;
	ops->v = argv + optind;
	if (!required_given(c->spec->options, seen) ||
	    !operands_fit(c->spec, ops->n))
		return usage(c);
	return CMD_PARSED;
}

/* One "[-x]", or a group's "[-a|-b]" ("-a|-b" when required); the next. */
static const struct cmd_option *usage_item(FILE *out,
					   const struct cmd_option *o)
{
	bool bare = o->group && o->required;
	unsigned char group = o->group;
	struct text spec;

	fputs(bare ? " " : " [", out);
	do {
		spec_of(o, false, &spec);
		fputs(spec.s, out);
		o++;
		if (group && o->group == group && !is_end(o))
			fputc('|', out);
	} while (group && o->group == group && !is_end(o));
	if (!bare)
		fputc(']', out);
	return o;
}

static void print_usage(FILE *out, const struct e2map_cmd *c)
{
	const struct cmd_option *o = c->spec->options;

	fprintf(out, "usage: e2map %s", c->name);
	while (!is_end(o))
		o = usage_item(out, o);
	if (c->spec->operands[0])
		fprintf(out, " %s", c->spec->operands);
	fputc('\n', out);
}

/* "usage: e2map NAME OPTIONS OPERANDS" on stderr. */
static int usage(const struct e2map_cmd *c)
{
	print_usage(stderr, c);
	return CMD_EXIT_USAGE;
}

/* "  SPEC   HELP", HELP's further lines under its first. */
static void option_line(const char *spec, const char *help)
{
	const char *nl;

	if (!help)
		help = "";
	if (strlen(spec) < HELP_COLUMN - 3)
		printf("  %-*s", HELP_COLUMN - 2, spec);
	else
		printf("  %s\n%*s", spec, HELP_COLUMN, "");
	for (; (nl = strchr(help, '\n')); help = nl + 1)
		printf("%.*s\n%*s", (int)(nl - help), help, HELP_COLUMN, "");
	printf("%s\n", help);
}

void cmd_help(const struct e2map_cmd *c)
{
	const struct cmd_option *o = c->spec->options;
	struct text spec;

	print_usage(stdout, c);
	printf("\n%s\n", c->spec->about);
	for (; !is_end(o); o++) {
		spec_of(o, true, &spec);
		option_line(spec.s, o->help);
	}
	option_line(short_taken(c->spec->options, 'h') ? "--help"
						       : "-h, --help",
		    "this help");
	if (c->spec->notes)
		fputs(c->spec->notes, stdout);
}

int cmd_parse_count(const char *arg, void *field)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)arg[0]))
		return -EINVAL;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (*end || errno || v > INT_MAX)
		return -EINVAL;
	*(int *)field = (int)v;
	return 0;
}

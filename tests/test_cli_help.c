/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The usage line of every command is said in four places: the parser's
 * usage error, `e2map help CMD` (and `CMD --help`, `CMD -h`), the man
 * page's SYNOPSIS and the README's command-line block.  The first two are
 * built from one table (cmd/parse.c); these tests hold the other two to
 * them, for every command `e2map help` lists.
 */
#include <criterion/criterion.h>

#include "cli_run.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMMANDS 32

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc((size_t)n + 1);
	cr_assert(s);
	s[fread(s, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return s;
}

static void run_ok(const char *const *args, struct cli_out *r)
{
	if (cli_run(args, r) < 0)
		cr_skip_test("E2MAP is not set (run through make check)");
}

/* The names `e2map help` lists, "  NAME  summary" after "Commands:". */
static int command_names(char names[][32])
{
	struct cli_out r;
	const char *p;
	int n = 0;

	run_ok((const char *[]){ "help", NULL }, &r);
	cr_assert_eq(r.status, 0);
	p = strstr(r.out, "Commands:\n");
	cr_assert(p, "%s", r.out);
	for (p = strchr(p, '\n') + 1; !strncmp(p, "  ", 2) && n < MAX_COMMANDS;
	     p = strchr(p, '\n') + 1) {
		sscanf(p, "%31s", names[n]);
		n++;
	}
	cli_out_free(&r);
	cr_assert_geq(n, 5, "too few commands listed");
	return n;
}

/* "usage: e2map NAME SYNOPSIS\n..." -> "NAME SYNOPSIS", malloc'd. */
static char *usage_of(const char *help)
{
	size_t len = strcspn(help, "\n");

	cr_assert(!strncmp(help, "usage: e2map ", 13), "%s", help);
	return strndup(help + 13, len - 13);
}

static void put(char *out, size_t *n, size_t size, char c)
{
	if (*n + 1 < size)
		out[(*n)++] = c;
	out[*n] = '\0';
}

/*
 * One troff line of the synopsis as text: .B and .I join their arguments
 * with a blank, .RB, .IR, .BR and the like (two letters) without one;
 * "..." is one argument, \- a minus.
 */
static void render(const char *line, char *out, size_t *n, size_t size)
{
	size_t mlen = strcspn(line, " \n");
	bool alternate = mlen == 3;	/* ".RB" */
	const char *p = line + mlen;
	int args = 0;

	while (*p && *p != '\n') {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		if (args++ && !alternate)
			put(out, n, size, ' ');
		bool quoted = *p == '"';
		for (p += quoted; *p && *p != '\n' &&
		     (quoted ? *p != '"' : *p != ' '); p++) {
			if (p[0] == '\\' && p[1] == '-')
				p++;
			put(out, n, size, *p);
		}
		p += quoted && *p == '"';
	}
}

/* The man page's SYNOPSIS entry for NAME, as text: "NAME [-q] IMAGE". */
static void man_synopsis(const char *man, const char *name, char *out,
			 size_t size)
{
	char head[128];
	const char *p;
	size_t n = 0;

	snprintf(head, sizeof(head), "\n.B e2map %.64s\n", name);
	p = strstr(man, head);
	cr_assert(p, "no synopsis for %s in cmd/e2map.1", name);
	n = (size_t)snprintf(out, size, "%s", name);
	for (p += strlen(head); *p == '.' && strncmp(p, ".br", 3) &&
	     strncmp(p, ".SH", 3); p = strchr(p, '\n') + 1) {
		put(out, &n, size, ' ');
		render(p, out, &n, size);
	}
}

static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* The line at P with its runs of blanks squeezed to one. */
static void squeeze(const char *p, char *out, size_t size)
{
	size_t n = 0;

	for (; *p && *p != '\n' && n + 1 < size; p++)
		if (*p != ' ' || (n && out[n - 1] != ' '))
			out[n++] = *p;
	out[n] = '\0';
}

/* Does a line of TEXT, blanks squeezed, start with "e2map " USAGE? */
static bool readme_has(const char *text, const char *usage)
{
	char want[1024], line[1024];
	size_t len;

	snprintf(want, sizeof(want), "e2map %s", usage);
	len = strlen(want);
	for (const char *p = text; p; p = next_line(p)) {
		squeeze(p, line, sizeof(line));
		if (!strncmp(line, want, len) && (!line[len] || line[len] == ' '))
			return true;
	}
	return false;
}

TestSuite(cli_help, .timeout = 30);

Test(cli_help, help_and_dash_dash_help_say_the_same)
{
	char names[MAX_COMMANDS][32];
	int n = command_names(names);

	for (int i = 0; i < n; i++) {
		struct cli_out a, b, c;

		run_ok((const char *[]){ "help", names[i], NULL }, &a);
		run_ok((const char *[]){ names[i], "--help", NULL }, &b);
		run_ok((const char *[]){ names[i], "-h", NULL }, &c);
		cr_assert_eq(a.status, 0, "%s: %s", names[i], a.err);
		cr_assert_eq(b.status, 0, "%s: %s", names[i], b.err);
		cr_assert_eq(c.status, 0, "%s: %s", names[i], c.err);
		cr_assert_str_eq(a.out, b.out, "%s", names[i]);
		cr_assert_str_eq(a.out, c.out, "%s", names[i]);
		cr_assert_str_empty(b.err);
		free(usage_of(a.out));
		cli_out_free(&a);
		cli_out_free(&b);
		cli_out_free(&c);
	}
}

Test(cli_help, a_usage_error_prints_the_help_s_usage_line)
{
	char names[MAX_COMMANDS][32];
	int n = command_names(names);

	for (int i = 0; i < n; i++) {
		struct cli_out a, b;
		char *usage, want[1024];
		size_t len;

		run_ok((const char *[]){ "help", names[i], NULL }, &a);
		run_ok((const char *[]){ names[i], "--no-such-option", NULL },
		       &b);
		usage = usage_of(a.out);
		snprintf(want, sizeof(want), "\nusage: e2map %s\n", usage);
		len = strlen(want);
		cr_assert_eq(b.status, 2);
		cr_assert(b.err_len >= len &&
			  !strcmp(b.err + b.err_len - len, want), "%s: %s",
			  names[i], b.err);
		free(usage);
		cli_out_free(&a);
		cli_out_free(&b);
	}
}

Test(cli_help, man_page_synopsis_is_the_usage_line)
{
	char names[MAX_COMMANDS][32], syn[1024];
	char *man = read_text("cmd/e2map.1");
	int n = command_names(names);

	if (!man)
		cr_skip_test("cmd/e2map.1 not found (run from the tree)");
	for (int i = 0; i < n; i++) {
		struct cli_out a;
		char *usage;

		run_ok((const char *[]){ "help", names[i], NULL }, &a);
		usage = usage_of(a.out);
		man_synopsis(man, names[i], syn, sizeof(syn));
		cr_assert_str_eq(syn, usage);
		free(usage);
		cli_out_free(&a);
	}
	free(man);
}

Test(cli_help, readme_command_line_is_the_usage_line)
{
	char names[MAX_COMMANDS][32];
	char *readme = read_text("README.md");
	int n = command_names(names);

	if (!readme)
		cr_skip_test("README.md not found (run from the tree)");
	for (int i = 0; i < n; i++) {
		struct cli_out a;
		char *usage;

		run_ok((const char *[]){ "help", names[i], NULL }, &a);
		usage = usage_of(a.out);
		cr_assert(readme_has(readme, usage), "README.md has no "
			  "line \"e2map %s\"", usage);
		free(usage);
		cli_out_free(&a);
	}
	free(readme);
}

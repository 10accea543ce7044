/*
 * A tiny streaming JSON writer for --json: the caller opens and closes
 * objects and arrays, this file places the commas and escapes strings,
 * so no command formats JSON by hand.
 */
#include "cmd.h"

#include <inttypes.h>

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
	j->after_key = false;
}

/* Before any value or key: a comma unless it is the first at its level. */
static void separate(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	j->need_comma[j->depth] = true;
}

static void open_level(struct json *j, char c)
{
	separate(j);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_level(struct json *j, char c)
{
	if (j->depth > 0)
		j->depth--;
	fputc(c, j->out);
}

void json_begin_object(struct json *j)
{
	open_level(j, '{');
}

void json_end_object(struct json *j)
{
	close_level(j, '}');
}

void json_begin_array(struct json *j)
{
	open_level(j, '[');
}

void json_end_array(struct json *j)
{
	close_level(j, ']');
}

static void put_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);	/* UTF-8 passes through unchanged */
	}
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	separate(j);
	put_escaped(j->out, key);
	fputc(':', j->out);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	separate(j);
	put_escaped(j->out, s);
}

void json_u64(struct json *j, uint64_t v)
{
	separate(j);
	fprintf(j->out, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	separate(j);
	fprintf(j->out, "%" PRId64, v);
}

void json_null(struct json *j)
{
	separate(j);
	fputs("null", j->out);
}

void json_finish(struct json *j)
{
	fputc('\n', j->out);
}

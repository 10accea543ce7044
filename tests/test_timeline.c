/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan --format timesketch against the mount: for every name lstat
 * reaches on the kernel's mount (scripts/record/scan.sh), one event per
 * time statx gives (mtime, atime, ctime, btime where there is one), with
 * plaso's description, the time in microseconds and its nanoseconds; and
 * nothing else for those names.  The datetime text is held to Python's
 * datetime by python/tests/test_formats.py.
 */
#include <criterion/criterion.h>

#include <jansson.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_run.h"
#include "fixture.h"
#include "scan_cmp.h"
#include "scan_rec.h"

/* "PATH|DESC|USEC|NSEC" of a kernel time "SEC.NSEC" ("-": none). */
static void kernel_event(struct scan_lines *e, const char *path,
			 const char *desc, const char *t)
{
	long long sec;
	unsigned nsec;
	char *line;

	if (!strcmp(t, "-"))
		return;
	cr_assert_eq(sscanf(t, "%lld.%u", &sec, &nsec), 2, "time %s", t);
	cr_assert(asprintf(&line, "%s|%s|%lld|%u", path, desc,
			   sec * 1000000 + nsec / 1000, nsec) > 0);
	scan_lines_add(e, line);
}

static void kernel_events(const struct scan_kernel *k, struct scan_lines *e)
{
	for (size_t i = 0; i < k->n; i++) {
		const struct scan_kinode *in = &k->v[i];

		for (size_t j = 0; j < in->npaths; j++) {
			const char *p = in->paths[j];

			if (!scan_kernel_lists(k, p, strlen(p)))
				continue;
			kernel_event(e, p, "Content Modification Time",
				     in->st.mtime);
			kernel_event(e, p, "Last Access Time", in->st.atime);
			kernel_event(e, p, "Metadata Modification Time",
				     in->st.ctime);
			kernel_event(e, p, "Creation Time", in->st.btime);
		}
	}
}

/* The event's name as bytes: filename_hex where the name is not UTF-8. */
static char *event_name(json_t *ev)
{
	const char *hex = json_string_value(json_object_get(ev, "filename_hex"));
	char *raw;

	if (!hex)
		return strdup(json_string_value(json_object_get(ev, "filename")));
	raw = calloc(1, strlen(hex) / 2 + 1);
	cr_assert(raw);
	for (size_t i = 0; hex[2 * i]; i++)
		cr_assert_eq(sscanf(hex + 2 * i, "%2hhx",
				    (unsigned char *)&raw[i]), 1);
	return raw;
}

static void e2map_events(const struct scan_kernel *k, const char *out,
			 struct scan_lines *e)
{
	const char *at = out, *nl;

	for (; (nl = strchr(at, '\n')); at = nl + 1) {
		json_error_t jerr;
		json_t *ev = json_loadb(at, (size_t)(nl - at), 0, &jerr);
		char *name, *line;

		cr_assert(ev, "not JSON: %.*s", (int)(nl - at), at);
		cr_assert(json_is_string(json_object_get(ev, "message")) &&
			  json_is_string(json_object_get(ev, "datetime")));
		name = event_name(ev);
		if (scan_kernel_lists(k, name, strlen(name))) {
			cr_assert(asprintf(&line, "%s|%s|%" JSON_INTEGER_FORMAT
					   "|%" JSON_INTEGER_FORMAT, name,
					   json_string_value(json_object_get(
						ev, "timestamp_desc")),
					   json_integer_value(json_object_get(
						ev, "timestamp")),
					   json_integer_value(json_object_get(
						ev, "nanoseconds"))) > 0);
			scan_lines_add(e, line);
		}
		free(name);
		json_decref(ev);
	}
	cr_assert_eq(*at, '\0', "the events end without a newline");
}

/* NAME's events from IMG against the mount's, recorded in SCAN. */
static void compare(const char *name, const char *scan, const char *img)
{
	const char *args[] = { "scan", "--format", "timesketch", "-q", img,
			       NULL };
	struct scan_lines want = { 0 }, got = { 0 };
	struct scan_kernel k;
	struct cli_out r;
	size_t i;

	cr_assert_eq(scan_kernel_load(scan, &k), 0, "%s", scan);
	cr_assert_eq(cli_run(args, &r), 0, "E2MAP is not set");
	kernel_events(&k, &want);
	e2map_events(&k, r.out ? r.out : "", &got);
	scan_lines_sort(&want);
	scan_lines_sort(&got);
	cr_expect_eq(got.n, want.n, "%s: %zu events, the mount %zu", name,
		     got.n, want.n);
	for (i = 0; i < got.n && i < want.n; i++)
		if (strcmp(got.v[i], want.v[i])) {
			cr_expect_fail("%s: event\n  %s\nthe mount's\n  %s", name,
				       got.v[i], want.v[i]);
			break;
		}
	scan_lines_free(&want);
	scan_lines_free(&got);
	cli_out_free(&r);
	scan_kernel_free(&k);
}

static void compare_testdata(const char *name)
{
	char scan[4096], *img = fixture_image(name);

	cr_assert(img);
	snprintf(scan, sizeof(scan), "%s/%s.scan", fixture_testdata(), name);
	compare(name, scan, img);
	fixture_remove(img);
}

TestSuite(timeline, .timeout = 300);

Test(timeline, timesketch_events_are_the_mounts_times)
{
	static const char *const images[] = {
		"ext4-4k", "ext4-1k", "ext2-1k", "ext3-1k", "ext4-names",
		"ext4-links", "crypt-4k", "corrupt-4k", "special-1k",
		"times-4k", "times128-1k", "times-noextra-1k", "linear-1k",
	};

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	for (size_t i = 0; i < sizeof(images) / sizeof(*images); i++)
		compare_testdata(images[i]);
}

/* Every corpus image the kernel mounted and scripts/record/scan.sh
 * recorded (testdata/corpus/NAME.scan). */
Test(timeline, corpus_events_are_the_mounts_times, .timeout = 1200)
{
	char **paths, scan[4096];
	int n, done = 0;

	if (!getenv("E2MAP"))
		cr_skip_test("E2MAP is not set (run through make check)");
	n = fixture_corpus_list(&paths);
	cr_assert_gt(n, 0);
	for (int i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/') + 1;
		char *img;

		snprintf(scan, sizeof(scan), "%s/corpus/%.*s.scan",
			 fixture_testdata(), (int)strcspn(base, "."), base);
		if (access(scan, F_OK) && (strcat(scan, ".gz"),
					   access(scan, F_OK)))
			continue;	/* the kernel did not mount it */
		scan[strlen(scan) - (strstr(scan, ".gz") ? 3 : 0)] = '\0';
		cr_assert((img = fixture_decompress(paths[i])), "%s", paths[i]);
		compare(base, scan, img);
		fixture_remove(img);
		done++;
	}
	fixture_corpus_free(paths, n);
	cr_expect_geq(done, 98, "only %d recorded corpus images", done);
}

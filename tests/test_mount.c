/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map_open against the kernel's verdict on mounting the same image
 * (scripts/record/verdict.sh: testdata/corpus/verdicts for the e2fsprogs
 * corpus, testdata/mount-verdicts for scripts/gen/mkmount.sh's images): an
 * image the kernel mounts opens, one it refuses is refused -- and where
 * the kernel names a descriptor placement or the system zone, with the
 * kernel's errno and e2map's message carrying the kernel's words.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2map.h"
#include "fixture.h"

/* Kernel refusals e2map does not reproduce, and why. */
static const char *const not_reproduced[] = {
	"f_bad_fname",	/* casefold needs CONFIG_UNICODE: this kernel's limit */
};

static bool skipped(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(not_reproduced) / sizeof(*not_reproduced); i++)
		if (!strcmp(name, not_reproduced[i]))
			return true;
	return false;
}

static int errno_of(const char *name)
{
	static const struct { const char *name; int err; } t[] = {
		{ "EUCLEAN", EUCLEAN }, { "EINVAL", EINVAL },
		{ "EBADMSG", EBADMSG }, { "EIO", EIO },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++)
		if (!strcmp(name, t[i].name))
			return t[i].err;
	return 0;
}

/*
 * The part of the kernel's LINES e2map must repeat: a placement
 * ext4_check_descriptors refuses, the system zone's failure, the
 * journal's overlap, the root inode's or the extra inode sizes' fault.  Empty when the kernel names none.
 */
static void kernel_words(const char *lines, char *out, size_t len)
{
	static const char *const pat[] = {
		("(Block bitmap|Inode bitmap|Inode table) for group [0-9]+ "
		 "not in group \\(block [0-9]+\\)"),
		"blocks [0-9]+-[0-9]+ from inode overlap system zone",
		"failed to initialize system zone \\(-?[0-9]+\\)",
		"corrupt root inode, run e2fsck",
		"get root inode failed",
		"bad s_(want|min)_extra_isize: [0-9]+",
	};
	regmatch_t mt;
	regex_t re;
	size_t i;

	*out = '\0';
	for (i = 0; i < sizeof(pat) / sizeof(*pat) && !*out; i++) {
		cr_assert_eq(regcomp(&re, pat[i], REG_EXTENDED), 0);
		if (!regexec(&re, lines, 1, &mt, 0))
			snprintf(out, len, "%.*s", (int)(mt.rm_eo - mt.rm_so),
				 lines + mt.rm_so);
		regfree(&re);
	}
}

/*
 * An image e2map_open refused with ERR and MSG opens with "unmountable"
 * wherever libext2fs can read it, its refusal ERR in the same words.
 */
static void check_past_refusal(const char *name, const char *img, int err,
			       const char *msg, int *bad)
{
	const char *why = NULL;
	e2map_t *m = NULL;
	int again = e2map_open(img, "unmountable", &m);

	if (again < 0) {
		/* libext2fs's own refusals come before any of the kernel's. */
		if (again != err && ++*bad)
			cr_log_error("%s: unmountable: %d, not %d", name, again,
				     err);
		return;
	}
	if ((e2map_image_refusal(m, &why) != err || strcmp(why, msg) ||
	     !(e2map_image_state(m) & E2MAP_IMAGE_UNMOUNTABLE)) && ++*bad)
		cr_log_error("%s: unmountable: refusal %d \"%s\", not %d \"%s\"",
			     name, e2map_image_refusal(m, NULL), why, err, msg);
	e2map_close(m);
}

/* One verdict line: NAME, mounted|refused, then errno and lines. */
static void check_verdict(char *line, const char *img_path, int *bad)
{
	char *name = strtok(line, "\t"), *verdict = strtok(NULL, "\t");
	char *err_name = strtok(NULL, "\t"), *lines = strtok(NULL, "\n");
	char *img = fixture_decompress(img_path), words[256], msg[256];
	e2map_t *m = NULL;
	int err;

	cr_assert(img, "%s: cannot unpack %s", name, img_path);
	err = e2map_open(img, NULL, &m);
	snprintf(msg, sizeof(msg), "%s", e2map_errmsg(NULL));
	e2map_close(m);
	if (err < 0)
		check_past_refusal(name, img, err, msg, bad);
	fixture_remove(img);
	if (!strcmp(verdict, "mounted")) {
		if (err < 0 && ++*bad)
			cr_log_error("%s: the kernel mounts it, e2map_open: %d "
				     "(%s)", name, err, msg);
		return;
	}
	kernel_words(lines ? lines : "", words, sizeof(words));
	/* Superblock-level refusals (EINVAL) are libext2fs's: any errno. */
	if ((*words ? err != -errno_of(err_name) : err >= 0) && ++*bad)
		cr_log_error("%s: the kernel refuses it (%s), e2map_open: %d "
			     "(%s)", name, err_name, err, msg);
	else if (*words && !strstr(msg, words) && ++*bad)
		cr_log_error("%s: the kernel says \"%s\", e2map: \"%s\"", name,
			     words, msg);
}

/* Runs check_verdict over FILE's lines; IMAGE finds NAME's image. */
static int check_file(const char *file,
		      int (*image)(const char *name, char *out, size_t len))
{
	char line[4096], path[4096], name[256];
	int bad = 0, n = 0;
	FILE *f = fopen(file, "r");

	cr_assert(f, "cannot read %s", file);
	while (fgets(line, sizeof(line), f)) {
		if (*line == '#' || sscanf(line, "%255[^\t]", name) != 1 ||
		    skipped(name))
			continue;
		cr_assert_eq(image(name, path, sizeof(path)), 0,
			     "no image for %s", name);
		check_verdict(line, path, &bad);
		n++;
	}
	fclose(f);
	cr_expect_eq(bad, 0, "%d of %d images differ from the kernel", bad, n);
	return n;
}

static int testdata_image(const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s.img.gz", fixture_testdata(), name);
	return 0;
}

Test(mount, corpus_verdicts_are_the_kernels, .timeout = 600)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/corpus/verdicts", fixture_testdata());
	cr_expect_geq(check_file(file, fixture_corpus_find), 112);
}

/*
 * Descriptors over other metadata (refused or not by the system zone, in
 * the kernel's insertion order), and the journal's part of the zone.
 */
Test(mount, crafted_verdicts_are_the_kernels, .timeout = 120)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/mount-verdicts", fixture_testdata());
	cr_expect_eq(check_file(file, testdata_image), 11);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe: run a .calls query list against the kernel or libe2map and print
 * the answers in the .calls format (tests/calls.h).  Input lines may carry
 * recorded results and ext lines; those are ignored, so a recording replays
 * as it is.
 *
 *   probe --kernel MNTDIR                  < in > out   (existing mount)
 *   probe --kernel-remount IMG MNTDIR      < in > out   (fresh mount per open)
 *   probe --image IMG [--options OPTS]     < in > out   (libe2map)
 *   probe --replay FILE.calls --image IMG [--options OPTS]
 *   probe --golden FILE.golden --image IMG --e2map BINARY
 *   probe --fresh IMG MNTDIR FSTYPE DATA CMD [ARG...]
 *   probe --fresh-at IMG MNTDIR FSTYPE DATA PATH CMD [ARG...]
 *   probe --scan FILE.scan --image IMG [--no-meta]
 *                               (scan records against the kernel's, with
 *                               scan_cmp.c; --no-meta: bigalloc, ea_inode)
 *
 * --replay and --golden compare and print the differences; exit 1 when
 * any.  --kernel-remount mounts through mount(2) (a read-only autoclear
 * loop device, blkid's type), as mount -o loop,ro[,noload] does; set
 * CALLS_MOUNT8=1 to run mount(8)/umount(8) instead.  --fresh runs CMD on a
 * fresh read-only loop mount of IMG (mount(2) with FSTYPE and DATA, "" for
 * none) and exits with CMD's status, or 125 when the mount failed.
 * --fresh-at gives CMD, for each "@" argument, PATH as open(2) finds it
 * with the mount as the root (calls_fresh_run: /proc/self/fd/9 names it;
 * an absolute symlink stays inside the image); 125 also when a lookup
 * failing there would not fail the same way from the host's root.
 */
#include "calls.h"
#include "scan_cmp.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2map.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: probe --kernel MNTDIR < in > out\n"
		"       probe --kernel-remount IMG MNTDIR < in > out\n"
		"       probe --image IMG [--options OPTS] < in > out\n"
		"       probe --replay FILE.calls --image IMG [--options OPTS]\n"
		"       probe --golden FILE.golden --image IMG --e2map BIN\n"
		"       probe --fresh IMG MNTDIR FSTYPE DATA CMD [ARG...]\n"
		"       probe --fresh-at IMG MNTDIR FSTYPE DATA PATH CMD "
		"[ARG...]\n"
		"       probe --scan FILE.scan --image IMG [--no-meta]\n");
	exit(2);
}

static int run_stdin(struct calls_backend *b)
{
	char line[CALLS_PATH_MAX + 256];
	struct calls_buf out = { 0 };
	struct calls_call c;
	char err[128];
	int lineno = 0, bad = 0, r;

	while (fgets(line, sizeof(line), stdin)) {
		lineno++;
		r = calls_parse(line, &c, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "probe: stdin:%d: %s\n", lineno, err);
			bad = 1;
			continue;
		}
		if (r == 0)
			continue;
		out.len = 0;
		calls_exec(b, &c, &out);
		fwrite(out.s, 1, out.len, stdout);
		fflush(stdout);
	}
	calls_buf_free(&out);
	return bad;
}

static int replay(struct calls_backend *b, const char *file)
{
	struct calls_buf rep = { 0 };
	char *text = calls_read_file(file, NULL);
	int r;

	if (!text) {
		fprintf(stderr, "probe: %s: %s\n", file, strerror(errno));
		return 2;
	}
	r = calls_replay(b, file, text, &rep, 20);
	if (rep.len)
		fputs(rep.s, stdout);
	free(text);
	calls_buf_free(&rep);
	return r == 0 ? 0 : 1;
}

static int golden(const char *file, const char *image, const char *e2map)
{
	struct calls_buf rep = { 0 };
	size_t len;
	char *text = calls_read_file(file, &len);
	int r;

	if (!text) {
		fprintf(stderr, "probe: %s: %s\n", file, strerror(errno));
		return 2;
	}
	r = calls_golden_replay(e2map, image, file, text, len, &rep, 20);
	if (rep.len)
		fputs(rep.s, stdout);
	free(text);
	calls_buf_free(&rep);
	return r == 0 ? 0 : 1;
}

/* --scan: the differences from the kernel's recording, 1 when any. */
static int scan(const char *file, const char *image, bool meta)
{
	struct scan_diffs d = { file, stdout, 0, 20 };
	struct scan_kernel k;
	e2map_t *m;
	int err;

	if (scan_kernel_load(file, &k) < 0) {
		fprintf(stderr, "probe: %s: cannot read it\n", file);
		return 2;
	}
	if ((err = e2map_open(image, NULL, &m)) < 0) {
		fprintf(stderr, "probe: %s: %s\n", image, e2map_strerror(err));
		scan_kernel_free(&k);
		return 2;
	}
	scan_compare(m, &k, meta, &d);
	e2map_close(m);
	scan_kernel_free(&k);
	return d.n ? 1 : 0;
}

/* --fresh, --fresh-at: A is IMG MNTDIR FSTYPE DATA. */
static int fresh(char **a, const char *path, char **cmd)
{
	int r = calls_fresh_run(a[0], a[1], a[2], a[3], path, cmd);

	if (r == -EXDEV) {
		fprintf(stderr, "probe: %s: the lookup fails inside the mount "
			"but not the same way from the host's root\n", path);
		return 125;
	}
	if (r < 0) {
		fprintf(stderr, "probe: mount %s on %s: %s\n", a[0], a[1],
			strerror(-r));
		return 125;
	}
	return r;
}

int main(int argc, char **argv)
{
	const char *kernel = NULL, *image = NULL, *options = NULL,
		   *remount_img = NULL, *replay_file = NULL,
		   *golden_file = NULL, *e2map_bin = NULL;
	struct calls_backend *b = NULL;
	int i, err, r;

	if (argc >= 7 && strcmp(argv[1], "--fresh") == 0)
		return fresh(argv + 2, NULL, argv + 6);
	if (argc >= 8 && strcmp(argv[1], "--fresh-at") == 0)
		return fresh(argv + 2, argv[6], argv + 7);
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "--no-meta"))) &&
	    !strcmp(argv[1], "--scan") && !strcmp(argv[3], "--image"))
		return scan(argv[2], argv[4], argc == 5);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (i + 1 >= argc)
			usage();
		if (strcmp(a, "--kernel") == 0) {
			kernel = argv[++i];
		} else if (strcmp(a, "--kernel-remount") == 0) {
			if (i + 2 >= argc)
				usage();
			remount_img = argv[++i];
			kernel = argv[++i];
		} else if (strcmp(a, "--image") == 0) {
			image = argv[++i];
		} else if (strcmp(a, "--options") == 0) {
			options = argv[++i];
		} else if (strcmp(a, "--replay") == 0) {
			replay_file = argv[++i];
		} else if (strcmp(a, "--golden") == 0) {
			golden_file = argv[++i];
		} else if (strcmp(a, "--e2map") == 0) {
			e2map_bin = argv[++i];
		} else {
			usage();
		}
	}
	if (golden_file) {
		if (!image || !e2map_bin || kernel || replay_file)
			usage();
		return golden(golden_file, image, e2map_bin);
	}
	if (!!kernel == !!image)
		usage();
	if (remount_img)
		err = calls_kernel_remount_new(remount_img, kernel, &b);
	else if (kernel)
		err = calls_kernel_new(kernel, &b);
	else
		err = calls_e2map_new(image, options, &b);
	if (err < 0) {
		fprintf(stderr, "probe: %s: %s\n", image ? image : kernel,
			image ? e2map_strerror(err) : strerror(-err));
		return 2;
	}
	r = replay_file ? replay(b, replay_file) : run_stdin(b);
	calls_backend_free(b);
	return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scratch images for the tests: never the files in testdata/ themselves. */
#include "fixture.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *fixture_testdata(void)
{
	const char *d = getenv("E2MAP_TESTDATA");

	return d && *d ? d : "testdata";
}

static char *scratch(void)
{
	char tmpl[] = "/tmp/e2map-test-XXXXXX";
	int fd = mkstemp(tmpl);

	if (fd < 0)
		return NULL;
	close(fd);
	return strdup(tmpl);
}

static int run(const char *cmd)
{
	return system(cmd) == 0 ? 0 : -1;
}

char *fixture_image(const char *name)
{
	char cmd[8192];
	char *path = scratch();

	if (!path)
		return NULL;
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s/%s.img.gz' > '%s'",
		 fixture_testdata(), name, path);
	if (run(cmd) < 0) {
		fixture_remove(path);
		return NULL;
	}
	return path;
}

char *fixture_decompress(const char *src)
{
	char cmd[8192];
	char *path = scratch();
	size_t n = strlen(src);
	const char *tool = "cat";

	if (!path)
		return NULL;
	if (n > 3 && !strcmp(src + n - 3, ".gz"))
		tool = "gzip -dc";
	else if (n > 4 && !strcmp(src + n - 4, ".bz2"))
		tool = "bzip2 -dc";
	snprintf(cmd, sizeof(cmd), "%s '%s' > '%s'", tool, src, path);
	if (run(cmd) < 0) {
		fixture_remove(path);
		return NULL;
	}
	return path;
}

char *fixture_slice(const char *src, long long offset, long long len,
		    long long prefix_zeroes)
{
	char cmd[8192];
	char *path = scratch();

	if (!path)
		return NULL;
	snprintf(cmd, sizeof(cmd), "{ head -c %lld /dev/zero; tail -c +%lld "
		 "'%s' | head -c %lld; } > '%s'", prefix_zeroes, offset + 1,
		 src, len, path);
	if (run(cmd) < 0) {
		fixture_remove(path);
		return NULL;
	}
	return path;
}

void fixture_remove(char *path)
{
	if (path)
		unlink(path);
	free(path);
}

int fixture_sha256(const char *path, char out[65])
{
	char cmd[8192];
	FILE *p;
	int ok;

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	if (!(p = popen(cmd, "r")))
		return -1;
	ok = fscanf(p, "%64s", out) == 1 && strlen(out) == 64;
	return (pclose(p) == 0 && ok) ? 0 : -1;
}

/* ---- the e2fsprogs corpus ---- */

#define CORPUS_MAX_DIRS 16

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Splits $E2MAP_CORPUS into DIRS from index N; returns the new count. */
static int env_corpus_dirs(const char *env, const char **dirs, int n,
			   int max, const char **missing)
{
	static char copy[4096];
	char *save = NULL, *d;

	snprintf(copy, sizeof(copy), "%s", env);
	for (d = strtok_r(copy, ":", &save); d && n < max;
	     d = strtok_r(NULL, ":", &save)) {
		if (!is_dir(d) && !*missing)
			*missing = d;
		dirs[n++] = d;
	}
	return n;
}

int fixture_corpus_dirs(const char **dirs, int max, const char **missing)
{
	static char shipped[1024];
	const char *env = getenv("E2MAP_CORPUS");
	const char *shared = "../shared/corpus/e2fsprogs";
	int n = 0;

	*missing = NULL;
	snprintf(shipped, sizeof(shipped), "%s/corpus/e2fsprogs",
		 fixture_testdata());
	if (!is_dir(shipped))
		*missing = shipped;
	if (max > 0)
		dirs[n++] = shipped;
	if (env && *env && strcmp(env, "none"))
		return env_corpus_dirs(env, dirs, n, max, missing);
	if ((!env || !*env) && n < max && is_dir(shared))
		dirs[n++] = shared;
	return n;
}

/* Length of NAME in "NAME.img", "NAME.img.gz" or "NAME.img.bz2"; 0 else. */
static size_t corpus_name_len(const char *file)
{
	static const char *const ext[] = { ".img", ".img.gz", ".img.bz2" };
	size_t n = strlen(file), i, e;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		e = strlen(ext[i]);
		if (n > e && !strcmp(file + n - e, ext[i]))
			return n - e;
	}
	return 0;
}

/* Whether one of PATHS[0..N) is already image NAME (LEN bytes). */
static int corpus_has(char **paths, int n, const char *name, size_t len)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/') + 1;

		if (corpus_name_len(base) == len && !strncmp(base, name, len))
			return 1;
	}
	return 0;
}

/* Adds DIR's images not seen yet to *PATHS; returns the new count. */
static int corpus_add_dir(const char *dir, char ***paths, int n)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char buf[4096];
	size_t len;

	while (d && (de = readdir(d)) != NULL) {
		len = corpus_name_len(de->d_name);
		if (!len || corpus_has(*paths, n, de->d_name, len))
			continue;
		snprintf(buf, sizeof(buf), "%s/%s", dir, de->d_name);
		*paths = realloc(*paths, (n + 1) * sizeof(**paths));
		(*paths)[n++] = strdup(buf);
	}
	if (d)
		closedir(d);
	return n;
}

static int cmp_base(const void *a, const void *b)
{
	return strcmp(strrchr(*(char *const *)a, '/'),
		      strrchr(*(char *const *)b, '/'));
}

int fixture_corpus_list(char ***paths)
{
	const char *dirs[CORPUS_MAX_DIRS], *missing;
	int nd = fixture_corpus_dirs(dirs, CORPUS_MAX_DIRS, &missing);
	int i, n = 0;

	*paths = NULL;
	if (missing)
		return -1;
	for (i = 0; i < nd; i++)
		n = corpus_add_dir(dirs[i], paths, n);
	if (n)
		qsort(*paths, n, sizeof(**paths), cmp_base);
	return n;
}

void fixture_corpus_free(char **paths, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

int fixture_corpus_find(const char *name, char *out, size_t len)
{
	static const char *const ext[] = { ".img.gz", ".img.bz2", ".img" };
	const char *dirs[CORPUS_MAX_DIRS], *missing;
	int nd = fixture_corpus_dirs(dirs, CORPUS_MAX_DIRS, &missing);
	struct stat st;
	int i;
	size_t e;

	for (i = 0; i < nd; i++)
		for (e = 0; e < sizeof(ext) / sizeof(ext[0]); e++) {
			snprintf(out, len, "%s/%s%s", dirs[i], name, ext[e]);
			if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
				return 0;
		}
	return -1;
}

const char *fixture_fuse_mount(const char *img, const char *dir,
			       const char *opts, pid_t *pid)
{
	const char *bin = getenv("E2MAP");
	struct stat top, in;

	*pid = 0;
	if (!bin)
		return "E2MAP is not set (run through make check)";
	if (access("/dev/fuse", R_OK | W_OK) ||
	    system("command -v fusermount3 >/dev/null 2>&1"))
		return "no /dev/fuse or fusermount3 (Debian's fuse3)";
	if (stat(dir, &top) < 0 || (*pid = fork()) < 0)
		return "stat or fork failed";
	if (*pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (opts)
			execl(bin, bin, "mount", "-f", "-o", opts, img, dir,
			      (char *)NULL);
		else
			execl(bin, bin, "mount", "-f", img, dir, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		if (stat(dir, &in) == 0 && in.st_dev != top.st_dev)
			return NULL;
		if (waitpid(*pid, NULL, WNOHANG) == *pid) {
			*pid = 0;
			return "e2map mount failed here (FUSE refused?)";
		}
		usleep(10000);
	}
	return "timeout";
}

int fixture_fuse_unmount(const char *dir, pid_t pid)
{
	char cmd[4200];
	int status, err;

	snprintf(cmd, sizeof(cmd), "fusermount3 -u %s", dir);
	err = system(cmd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		err = -1;
	return err ? -1 : 0;
}

/* Scratch images for the tests: never the files in testdata/ themselves. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

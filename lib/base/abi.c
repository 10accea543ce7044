/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the public header promises of the library as a whole: the version
 * it was built as (a program may run with a newer one than it was built
 * against), and one way to free what a call hands over.
 */
#include <stdlib.h>

#include "base.h"

const char *e2map_version(int *major, int *minor, int *patch)
{
	if (major)
		*major = E2MAP_VERSION_MAJOR;
	if (minor)
		*minor = E2MAP_VERSION_MINOR;
	if (patch)
		*patch = E2MAP_VERSION_PATCH;
	return E2MAP_VERSION;
}

/* The library's allocator, whatever the caller's is (a Python binding's,
 * a debug malloc linked into the program). */
void e2map_free(void *p)
{
	free(p);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Libraries loaded when an image needs them.  Linking libewf, libvmdk,
 * libvhdi, libqcow and OpenSSL's libcrypto into every process cost a
 * `seek` on a raw image more than its answer did (issue 24: the dynamic
 * loader and the kernel mapping them, before main); a raw image needs none
 * of them, so each is opened by its soname the first time a container's
 * signature or a digest asks for it, and its functions are found once.
 */
#include "base.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* One lock for every library: loads are rare (once each per process) and
 * parscan's workers may open container media at once. */
static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;

static int dl_resolve(struct e2map_dlib *l, void *h)
{
	for (size_t i = 0; i < l->count; i++) {
		void *p = dlsym(h, l->syms[i].name);

		if (!p) {
			snprintf(l->why, sizeof(l->why), "%s has no %s (%s too "
				 "old?)", l->soname, l->syms[i].name,
				 l->package);
			return -ENOTSUP;
		}
		/* POSIX: a function's address survives the trip through
		 * void *, so the typed slot gets dlsym's bytes. */
		memcpy((char *)l->table + l->syms[i].off, &p, sizeof(p));
	}
	return 1;
}

static int dl_open(struct e2map_dlib *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	const char *why;

	if (!h) {
		why = dlerror();
		snprintf(l->why, sizeof(l->why), "%s", why ? why : l->soname);
		return -ENOTSUP;
	}
	/* Kept open for the process's life: the table points into it. */
	return dl_resolve(l, h);
}

int e2map__dlib_load(struct e2map_dlib *l)
{
	int r;

	pthread_mutex_lock(&dl_lock);
	if (!l->state)
		l->state = dl_open(l);
	r = l->state;
	pthread_mutex_unlock(&dl_lock);
	if (r > 0)
		return 0;
	return e2map__fail(NULL, r, "%s needs %s (Debian package %s): %s",
			   l->what, l->soname, l->package, l->why);
}

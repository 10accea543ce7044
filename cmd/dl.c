/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libarchive and libfuse3 on demand: dl.h says why. */
#include "cmd.h"
#include "dl.h"

#include <dlfcn.h>
#include <string.h>

struct ar_fns ar;
struct fu_fns fu;

#define SYM(f) { #f, offsetof(struct ar_fns, f) },
static const struct cmd_dlsym ar_syms[] = { AR_FNS(SYM) };
#undef SYM
#define SYM(f) { #f, offsetof(struct fu_fns, f) },
static const struct cmd_dlsym fu_syms[] = { FU_FNS(SYM) };
#undef SYM

struct cmd_dlib cmd_dl_archive = {
	E2MAP_SO_LIBARCHIVE, "libarchive13", ar_syms,
	sizeof(ar_syms) / sizeof(ar_syms[0]), &ar, false,
};
struct cmd_dlib cmd_dl_fuse = {
	E2MAP_SO_FUSE3, "libfuse3-3", fu_syms,
	sizeof(fu_syms) / sizeof(fu_syms[0]), &fu, false,
};

int cmd_dl_load(struct cmd_dlib *l, const char *cmd)
{
	void *h, *p;
	const char *why;

	if (l->loaded)
		return 0;
	if (!(h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL))) {
		why = dlerror();
		cmd_errorf("%s: needs %s (Debian package %s): %s", cmd,
			   l->soname, l->package, why ? why : "not found");
		return CMD_EXIT_FAIL;
	}
	for (size_t i = 0; i < l->count; i++) {
		if (!(p = dlsym(h, l->syms[i].name))) {
			cmd_errorf("%s: %s has no %s (%s too old?)", cmd,
				   l->soname, l->syms[i].name, l->package);
			return CMD_EXIT_FAIL;
		}
		/* POSIX: a function's address survives the trip through
		 * void *, so the typed slot gets dlsym's bytes. */
		memcpy((char *)l->table + l->syms[i].off, &p, sizeof(p));
	}
	l->loaded = true;
	return 0;
}

# SPDX-License-Identifier: GPL-2.0-or-later
# e2map: libe2map + the e2map CLI.  GNU Make.
#   make            build lib/libe2map.a lib/libe2map.so cmd/e2map e2map.pc
#   make run        build and run e2map on the bundled sample image
#   make test       install what is missing, build, run every test
#   make SANITIZE=address,undefined BUILD=build/san check
#   make DEVELOPER=1 ...   warnings are errors (-Werror): development and CI
#   make check CHECK_FILTER='!(replay/image)'   a subset (Criterion's --filter)
#   make check-kernel   live differential run against the kernel (root)
#   make check-fresh    make run + make test in a fresh debootstrapped Debian (root)

# The first rule below is the included config's: `make` alone means all.
.DEFAULT_GOAL := all

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

BUILD ?= .
CC ?= cc
CFLAGS ?= -O2 -g
# One version, the header's; in 0.x each minor step may break the ABI, so
# it is part of the soname (libe2map.so.0.2).
VERSION := $(shell sed -n 's/^\#define E2MAP_VERSION "\(.*\)"/\1/p' lib/include/e2map/common.h)
SOVERSION := $(word 1,$(subst ., ,$(VERSION))).$(word 2,$(subst ., ,$(VERSION)))

# -Werror only where the code's authors answer for every warning: a
# packager's compiler or flags may warn where ours do not.
ifneq ($(filter-out 0,$(DEVELOPER)),)
WERROR := -Werror
endif

ifdef SANITIZE
SAN := -fsanitize=$(SANITIZE) -fno-sanitize-recover=$(SANITIZE) -fno-omit-frame-pointer
endif

# Every library's flags (EXT2_*: libext2fs, libcom_err, libblkid, and the
# headers and sonames of the libyal media readers and libcrypto, loaded on
# demand, LIB_LOAD_CFLAGS; JANSSON_*: the CLI's JSON; ARCHIVE_CFLAGS,
# FUSE_CFLAGS and CLI_LOAD_CFLAGS: tar's and mount's libraries, loaded on
# demand) come
# from pkg-config through an included makefile.  It is made
# before anything else, after scripts/deps.sh has installed what is
# missing; GNU make then restarts with the answers.  Asking pkg-config as
# the Makefile is parsed would ask before the install (the first `make
# run` on a fresh machine failed for want of blkid.h).
CONFIG := $(BUILD)/config.mk
ifneq ($(filter-out clean uninstall deps check-fresh,$(or $(MAKECMDGOALS),all)),)
include $(CONFIG)
endif
$(CONFIG): scripts/config.sh scripts/deps.sh
	@mkdir -p $(dir $@)
	scripts/config.sh > $@.tmp && mv $@.tmp $@
# e2map_check_all's workers are POSIX threads.
LIB_LIBS = $(EXT2_LIBS) -pthread

ALL_CFLAGS = $(CPPFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Wextra $(WERROR) \
	-fPIC $(SAN) $(CFLAGS) -MMD -MP
LIB_CFLAGS = $(ALL_CFLAGS) -pthread -fvisibility=hidden $(EXT2_CFLAGS) \
	$(LIB_LOAD_CFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)

OBJ := $(BUILD)/obj

# lib/ is one folder a layer, bottom-up.  A layer's files are compiled
# with the include directories of the layers it may use and no other, so
# an include of a header above (or beside) it does not compile: the
# compiler keeps the direction (docs/layout.md).  mount/ and file/ both
# stand on dir/ and do not see each other; passes/ sees both.
LAYERS := base media disk inode dir mount file passes
SEES_base := base
SEES_media := $(SEES_base) media
SEES_disk := $(SEES_media) disk
SEES_inode := $(SEES_disk) inode
SEES_dir := $(SEES_inode) dir
SEES_mount := $(SEES_dir) mount
SEES_file := $(SEES_dir) file
SEES_passes := $(SEES_dir) mount file passes
# The public header, for every layer, the CLI and the tests.
PUBLIC_INC := -Ilib/include
# The public headers of a layer's calls refuse (#error) a layer below it:
# E2MAP_SEES_<LAYER> says which it may call.
upper = $(subst a,A,$(subst b,B,$(subst c,C,$(subst d,D,$(subst e,E,$(subst f,F,$(subst i,I,$(subst k,K,$(subst l,L,$(subst m,M,$(subst n,N,$(subst o,O,$(subst p,P,$(subst r,R,$(subst s,S,$(subst t,T,$(subst u,U,$(1))))))))))))))))))
layer_inc = $(foreach l,$(SEES_$(1)),-iquote lib/$(l)) $(PUBLIC_INC) \
	-DE2MAP_IN_LIB $(foreach l,$(filter $(LAYERS),$(SEES_$(1))),-DE2MAP_SEES_$(call upper,$(l)))
# Above every layer (tests, fuzzers): all of them, as a user of the API.
ALL_LAYERS_INC := $(foreach l,$(LAYERS),-iquote lib/$(l)) $(PUBLIC_INC)
LIB_SRCS := $(sort $(foreach l,$(LAYERS),$(wildcard lib/$(l)/*.c)) \
	$(wildcard lib/mount/fc/*.c))
LIB_HDRS := $(wildcard lib/include/*.h lib/*/*.h lib/mount/fc/*.h)
# ar keeps one member a name: two lib/ files of one name would lose one.
LIB_DUPS := $(sort $(foreach f,$(notdir $(LIB_SRCS)),$(if $(filter-out 1,$(words $(filter %/$(f),$(LIB_SRCS)))),$(f))))
$(if $(LIB_DUPS),$(error lib/: two files named $(LIB_DUPS): ar would keep one))
CMD_SRCS := $(sort $(wildcard cmd/*.c))
TEST_SRCS := $(sort $(wildcard tests/test_*.c))
TESTLIB_SRCS := $(sort $(filter-out tests/probe.c tests/headertest.c $(TEST_SRCS), $(wildcard tests/*.c)))

LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(OBJ)/%.o)
TEST_OBJS := $(TEST_SRCS:%.c=$(OBJ)/%.o)
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(OBJ)/%.o)

LIBA := $(BUILD)/lib/libe2map.a
LIBSO := $(BUILD)/lib/libe2map.so
E2MAP := $(BUILD)/cmd/e2map
PROBE := $(BUILD)/tests/probe
RUNNER := $(BUILD)/tests/runner
PC := $(BUILD)/e2map.pc

# The Python binding: the package python/e2map, and beside its modules the
# cffi extension (API mode: python/build_ffi.py says why) linked to
# libe2map.so.  In another BUILD the modules are copied there, so that
# PYTHONPATH=$(BUILD)/python imports that build's extension.
PY_SRCS := $(sort $(wildcard python/e2map/*.py python/e2map/*/*.py)) python/e2map/py.typed
ifeq ($(abspath $(BUILD)),$(abspath .))
PYDIR := python
PY_COPIES :=
else
PYDIR := $(BUILD)/python
PY_COPIES := $(PY_SRCS:python/%=$(PYDIR)/%)
endif
PY_EXT_SO := $(PYDIR)/e2map/_native$(PY_EXT)
PYTHONDIR ?= $(PREFIX)/lib/$(PY_VER)/dist-packages

.PHONY: python check-python all build run test check check-layers check-install check-kernel check-replay check-fresh install uninstall clean deps fuzz-smoke fuzz-seeds fuzz-disk-smoke fuzz-fc-smoke tsan-smoke bench FORCE
all: $(LIBA) $(LIBSO) $(E2MAP) $(PC) python

# Objects depend on the flags that built them: another CC, CFLAGS or
# DEVELOPER rebuilds them rather than mixing flavours in one BUILD.
FLAGS_STAMP := $(OBJ)/.flags
FLAGS_NOW = $(CC) $(LIB_CFLAGS)
ifneq ($(FLAGS_NOW),$(file <$(FLAGS_STAMP)))
$(shell mkdir -p $(OBJ))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif
$(FLAGS_STAMP):
	$(shell mkdir -p $(OBJ))$(file >$@,$(FLAGS_NOW))

define layer_rule
$$(OBJ)/lib/$(1)/%.o: lib/$(1)/%.c $$(FLAGS_STAMP)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LIB_CFLAGS) $(call layer_inc,$(1)) -c -o $$@ $$<
endef
$(foreach l,$(LAYERS),$(eval $(call layer_rule,$(l))))
# The fast-commit replay is the mount layer's, in a folder of its own.
SEES_mount/fc := $(SEES_mount) mount/fc
$(eval $(call layer_rule,mount/fc))

$(OBJ)/cmd/%.o: cmd/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(JANSSON_CFLAGS) $(ARCHIVE_CFLAGS) $(FUSE_CFLAGS) \
		$(CLI_LOAD_CFLAGS) $(PUBLIC_INC) -c -o $@ $<

$(OBJ)/tests/%.o: tests/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(JANSSON_CFLAGS) $(ARCHIVE_CFLAGS) $(FUSE_CFLAGS) \
		$(LIB_LOAD_CFLAGS) $(CLI_LOAD_CFLAGS) $(ALL_LAYERS_INC) -Itests -c -o $@ $<

$(LIBA): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(LIBSO): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libe2map.so.$(SOVERSION) $(ALL_LDFLAGS) -o $@ $^ $(LIB_LIBS)

$(E2MAP): $(CMD_OBJS) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CMD_OBJS) $(LIBA) $(LIB_LIBS) $(JANSSON_LIBS)

# The runner and the probe hold the whole CLI but its main() (cmd/e2map.c):
# the parser's tests call parse.c directly, and tests/cli_run.c runs most
# command lines (the recorded ones of tests/golden.c too, for the probe in
# scripts/check/kernel.sh) in a forked child rather than exec'ing the binary.
CMD_RUNNER_OBJS := $(filter-out $(OBJ)/cmd/e2map.o,$(CMD_OBJS))
$(RUNNER): $(TEST_OBJS) $(TESTLIB_OBJS) $(CMD_RUNNER_OBJS) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lcriterion $(LIB_LIBS) $(JANSSON_LIBS) -lutil

$(PROBE): $(OBJ)/tests/probe.o $(TESTLIB_OBJS) $(CMD_RUNNER_OBJS) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIB_LIBS) $(JANSSON_LIBS)

python: $(PY_EXT_SO) $(PY_COPIES)

$(PYDIR)/e2map/%: python/e2map/%
	@mkdir -p $(dir $@)
	cp $< $@

$(OBJ)/python/_native.c: python/build_ffi.py
	@mkdir -p $(dir $@)
	$(PYTHON) $< $@

# cffi's generated C is not ours to keep free of warnings: no -Werror.
# RUNPATH (not RPATH) to the installed library, so that LD_LIBRARY_PATH
# (the tests') picks the build's; the soname link lets it be found there.
$(PY_EXT_SO): $(OBJ)/python/_native.c $(LIBSO)
	@mkdir -p $(dir $@)
	ln -sf libe2map.so $(BUILD)/lib/libe2map.so.$(SOVERSION)
	$(CC) -shared -fPIC $(SAN) $(CPPFLAGS) $(CFLAGS) $(PUBLIC_INC) $(PY_CFLAGS) \
		$(ALL_LDFLAGS) -o $@ $< -L$(BUILD)/lib -le2map \
		-Wl,--enable-new-dtags,-rpath,$(LIBDIR)

# Regenerated every time: PREFIX and LIBDIR may differ from the last run.
$(PC): lib/e2map.pc.in Makefile FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@EXT2_LIBS@|$(strip $(EXT2_STATIC_LIBS))|' $< > $@

# The public header must stand alone under strict C89, C11 and C++98, and
# so must each of its parts.
HEADERTEST_WARN := -pedantic -Wall -Wextra -Werror $(PUBLIC_INC) -fsyntax-only
HEADER_PARTS := $(notdir $(wildcard lib/include/e2map/*.h))
$(BUILD)/tests/headertest.ok: tests/headertest.c $(wildcard lib/include/*.h lib/include/e2map/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c89 $(HEADERTEST_WARN) -Wstrict-prototypes $<
	$(CC) -std=c11 $(HEADERTEST_WARN) -Wstrict-prototypes $<
	$(CXX) -x c++ -std=c++98 $(HEADERTEST_WARN) $<
	@for h in $(HEADER_PARTS); do \
		echo "#include <e2map/$$h>" | $(CC) -std=c89 $(HEADERTEST_WARN) -x c - && \
		echo "#include <e2map/$$h>" | $(CXX) -std=c++98 $(HEADERTEST_WARN) -x c++ - || \
		{ echo "headertest: <e2map/$$h> alone fails" >&2; exit 1; }; \
	done
	@touch $@

deps:
	@scripts/deps.sh

run: deps all
	scripts/run-sample.sh $(E2MAP)

# Whole disks and containers for tests/test_disks.c, made at test time
# (a few seconds; a tool missing leaves files out, and their tests skip).
DISKS := $(abspath $(BUILD)/tests/disks)
$(DISKS)/.done: scripts/gen/mkdisks.sh scripts/lib/gen.sh
	rm -rf $(DISKS) && mkdir -p $(DISKS)
	scripts/gen/mkdisks.sh $(DISKS) >/dev/null || \
		echo "mkdisks.sh failed: tests/test_disks.c skips what is missing"
	@touch $@

# Each lib/ object calls only into the layers it may use, no circle among
# lib/ or cmd/ files, no source over 800 lines (scripts/check/layers.py).
check-layers: all
	scripts/check/layers.py $(OBJ) $(foreach l,$(LAYERS),$(l)='$(SEES_$(l))')

# Everything check runs, built but not run: CI's other compilers and levels.
build: all $(PROBE) $(RUNNER)

check: all check-layers $(PROBE) $(RUNNER) $(BUILD)/tests/headertest.ok $(DISKS)/.done
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	E2MAP_DISKS=$(DISKS) \
	E2MAP=$(abspath $(E2MAP)) PROBE=$(abspath $(PROBE)) $(RUNNER) --jobs 2 \
		$(if $(CHECK_FILTER),--filter '$(CHECK_FILTER)')

# The binding's pytest suite, on this build's library and extension.
# Under the sanitizers the interpreter is not instrumented: their
# runtimes are preloaded, and Python's own allocations are not leak-checked.
# Every sixth recording there: the C suite replays them all under the
# sanitizers, and the binding's own paths are all in the sample.
ifdef SAN
PY_SAN_ENV := LD_PRELOAD="$(shell $(CC) -print-file-name=libasan.so) $(shell $(CC) -print-file-name=libubsan.so)" \
	ASAN_OPTIONS=detect_leaks=0 E2MAP_PY_SAMPLE=$${E2MAP_PY_SAMPLE:-6}
endif
check-python: all $(DISKS)/.done
	$(PY_SAN_ENV) LD_LIBRARY_PATH=$(abspath $(BUILD)/lib) E2MAP_DISKS=$(DISKS) \
	PYTHONPATH=$(abspath $(PYDIR)) E2MAP=$(abspath $(E2MAP)) \
	$(PYTHON) -m pytest -q -p no:cacheprovider python/tests $(PYTEST_ARGS)

test: deps
	$(MAKE) check
	$(MAKE) check-python
	$(MAKE) check-install

# make install into a scratch DESTDIR, then build against it with pkg-config.
INSTALL_ROOT = $(abspath $(BUILD)/tests/install-root)
check-install: all
	rm -rf $(INSTALL_ROOT)
	$(MAKE) install DESTDIR=$(INSTALL_ROOT)
	DESTDIR=$(INSTALL_ROOT) PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) \
	INCLUDEDIR=$(INCLUDEDIR) PKGCONFIGDIR=$(PKGCONFIGDIR) BINDIR=$(BINDIR) \
	PYTHONDIR=$(PYTHONDIR) PYTHON=$(PYTHON) \
	CC='$(CC)' CXX='$(CXX)' scripts/check/install.sh '$(SAN)'
	rm -rf $(INSTALL_ROOT)

check-kernel: all $(PROBE)
	E2MAP=$(abspath $(E2MAP)) PROBE=$(abspath $(PROBE)) scripts/check/kernel.sh $(CHECK_KERNEL_IMAGES)

# --replay against the kernel's journal recovery on random dirty images.
check-replay: all $(PROBE)
	E2MAP=$(abspath $(E2MAP)) PROBE=$(abspath $(PROBE)) scripts/check/replay.sh $(CHECK_REPLAY_IMAGES)

# The README's two commands, each once, in a minbase Debian 12 root made by
# debootstrap from a clean clone of HEAD (root; see scripts/check/fresh.sh).
# Nothing is built here: the point is what a fresh machine builds.
check-fresh:
	scripts/check/fresh.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(E2MAP) $(DESTDIR)$(BINDIR)/e2map
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libe2map.a
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/libe2map.so.$(SOVERSION)
	ln -sf libe2map.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libe2map.so
	install -m 644 lib/include/e2map.h $(DESTDIR)$(INCLUDEDIR)/e2map.h
	install -d $(DESTDIR)$(INCLUDEDIR)/e2map
	install -m 644 lib/include/e2map/*.h $(DESTDIR)$(INCLUDEDIR)/e2map/
	install -m 644 $(PC) $(DESTDIR)$(PKGCONFIGDIR)/e2map.pc
	install -m 644 cmd/e2map.1 $(DESTDIR)$(MANDIR)/man1/e2map.1
	install -d $(DESTDIR)$(PYTHONDIR)/e2map $(DESTDIR)$(PYTHONDIR)/e2map/fleet
	install -m 644 $(filter-out python/e2map/fleet/%,$(PY_SRCS)) $(DESTDIR)$(PYTHONDIR)/e2map/
	$(if $(filter python/e2map/fleet/%,$(PY_SRCS)),install -m 644 $(filter python/e2map/fleet/%,$(PY_SRCS)) $(DESTDIR)$(PYTHONDIR)/e2map/fleet/)
	install -m 755 $(PY_EXT_SO) $(DESTDIR)$(PYTHONDIR)/e2map/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/e2map $(DESTDIR)$(LIBDIR)/libe2map.a \
		$(DESTDIR)$(LIBDIR)/libe2map.so $(DESTDIR)$(LIBDIR)/libe2map.so.$(SOVERSION) \
		$(DESTDIR)$(INCLUDEDIR)/e2map.h $(DESTDIR)$(PKGCONFIGDIR)/e2map.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(subst lib/include/,,$(wildcard lib/include/e2map/*.h))) \
		$(DESTDIR)$(MANDIR)/man1/e2map.1
	rm -rf $(DESTDIR)$(PYTHONDIR)/e2map

clean:
	rm -rf $(OBJ) $(CONFIG) build $(LIBA) $(LIBSO) $(E2MAP) $(PC) $(BUILD)/tests/probe \
		$(BUILD)/tests/runner $(BUILD)/tests/headertest.ok $(INSTALL_ROOT) \
		$(DISKS)

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(TESTLIB_OBJS:.o=.d)

# libFuzzer targets (clang).  The library is compiled once for the three,
# instrumented for coverage and sanitized, file by file so that make -j
# spreads it; each harness links its own libFuzzer main.
FUZZ_SAN := address,undefined
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -fno-sanitize-recover=undefined \
	$(EXT2_CFLAGS) $(LIB_LOAD_CFLAGS) $(ALL_LAYERS_INC)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/fuzz/%.o)
$(OBJ)/fuzz/%.o: %.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c -o $@ $<
FUZZ_LINK = clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN)

# Over the check walk.  fuzz-smoke: one minute.
FUZZ := $(BUILD)/tests/fuzz/fuzz_check
$(FUZZ): tests/fuzz/fuzz_check.c $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_LINK) -o $@ $^ $(LIB_LIBS)

FUZZ_SEEDS := $(BUILD)/tests/fuzz/seeds
fuzz-seeds:
	@mkdir -p $(FUZZ_SEEDS)
	scripts/fuzz/seeds.sh $(FUZZ_SEEDS)

fuzz-smoke: $(FUZZ) fuzz-seeds
	@mkdir -p testdata/fuzz
	$(FUZZ) -max_total_time=$${FUZZ_SECONDS:-60} -timeout=10 -rss_limit_mb=2048 \
		-max_len=4194304 $(FUZZ_SEEDS) testdata/fuzz

# libFuzzer target over the layers under the image (disks, containers).
FUZZ_DISK := $(BUILD)/tests/fuzz/fuzz_disk
FUZZ_DISK_SEEDS := $(BUILD)/tests/fuzz/disk-seeds
$(FUZZ_DISK): tests/fuzz/fuzz_disk.c $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_LINK) -o $@ $^ $(LIB_LIBS)

fuzz-disk-smoke: $(FUZZ_DISK)
	scripts/fuzz/disk-seeds.sh $(FUZZ_DISK_SEEDS)
	@mkdir -p testdata/fuzz-disk
	$(FUZZ_DISK) -max_total_time=$${FUZZ_SECONDS:-60} -timeout=10 \
		-rss_limit_mb=2048 -max_len=2097152 $(FUZZ_DISK_SEEDS) \
		testdata/fuzz-disk

# libFuzzer target over the fast-commit replay: its input is a dirty
# image's fast-commit area (testdata's dirty-fc-4k is the rest).
FUZZ_FC := $(BUILD)/tests/fuzz/fuzz_fc
FUZZ_FC_BASE := $(abspath $(BUILD)/tests/fuzz/fc-base.img)
FUZZ_FC_SEEDS := $(BUILD)/tests/fuzz/fc-seeds
$(FUZZ_FC): tests/fuzz/fuzz_fc.c $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_LINK) -DFC_BASE='"$(FUZZ_FC_BASE)"' -o $@ $^ $(LIB_LIBS)

fuzz-fc-smoke: $(FUZZ_FC)
	scripts/fuzz/fc-seeds.sh $(FUZZ_FC_BASE) $(FUZZ_FC_SEEDS)
	@mkdir -p testdata/fuzz-fc
	$(FUZZ_FC) -max_total_time=$${FUZZ_SECONDS:-60} -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 $(FUZZ_FC_SEEDS) testdata/fuzz-fc

# e2map_check_all's threads under ThreadSanitizer (Criterion's runner
# cannot start under it, so the CLI runs check -j4 over the images).
tsan-smoke:
	$(MAKE) SANITIZE=thread BUILD=build/tsan all
	scripts/check/tsan-smoke.sh build/tsan/cmd/e2map

# Root; BENCH_CACHE, BENCH_SIZE=large, BENCH_RUNS...: see scripts/bench/bench.sh.
bench: all
	@scripts/deps.sh bench
	E2MAP=$(abspath $(E2MAP)) scripts/bench/bench.sh
	E2MAP=$(abspath $(E2MAP)) scripts/bench/extract.sh
	E2MAP=$(abspath $(E2MAP)) scripts/bench/fuse.sh
	E2MAP=$(abspath $(E2MAP)) scripts/bench/owner.sh
	E2MAP=$(abspath $(E2MAP)) scripts/bench/past.sh
	E2MAP=$(abspath $(E2MAP)) scripts/bench/diff.sh
	E2MAP=$(abspath $(E2MAP)) scripts/bench/shapes.sh

FORCE:

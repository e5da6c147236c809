# pgarena: GNU make + pkg-config. `make` builds build/pgarena; `make check` installs what is
# missing, builds a normal and an ASan+UBSan binary, starts a scratch PostgreSQL and runs
# every test; `make demo` runs a short real benchmark against a scratch server.

CC      ?= cc
PKGS    := libpq jansson zlib openssl
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0)

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Werror
CPPFLAGS_ALL = -Isrc -Ibuild/gen -D_GNU_SOURCE -DPGARENA_VERSION='"$(VERSION)"' \
               $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS_ALL = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
# The engine's event wait: epoll on Linux; `make EVWAIT=poll` takes poll/ppoll, as other POSIX
# systems do (src/engine/evwait.h).
ifeq ($(EVWAIT),poll)
CPPFLAGS_ALL += -DPGARENA_EVWAIT_POLL
endif

# Two variants share the sources: release (build/) and sanitized (build/asan/). The release
# build also takes the CPPFLAGS, CFLAGS and LDFLAGS given (a package build's hardening flags).
REL_CFLAGS  := -std=c11 -O2 -g $(WARN) $(CPPFLAGS) $(CFLAGS)
ASAN_CFLAGS := -std=c11 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
               -fno-sanitize-recover=undefined $(WARN)

LIB_SRC  := $(sort $(shell find src -name '*.c' ! -path src/main.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))

REL_OBJ  := $(LIB_SRC:%.c=build/obj/%.o)
ASAN_OBJ := $(LIB_SRC:%.c=build/asan/obj/%.o)

.PHONY: all asan unit poll windows windows-tests check demo clean format deps fuzz install uninstall unit-check deb docs FORCE
all: build/pgarena

# The options only one workload takes are rows of its folder's options.def; cli/options.def
# includes them all through this file (each folder's, sorted). It is checked on every make and
# rewritten only when the list of folders changes, so that a folder without options.def
# recompiles nothing more; every compile waits for it (a fresh tree has no .d files yet). Its
# temporary file is the shell's own: make check's Windows step runs two makes at once, each
# checking it.
WORKLOAD_OPTIONS := build/gen/workload_options.def
WORKLOAD_OPTION_DEFS := $(sort $(wildcard src/workload/*/options.def))

$(WORKLOAD_OPTIONS): FORCE
	@mkdir -p $(dir $@)
	@{ echo '/* Made by the Makefile from every src/workload/NAME/options.def: do not edit. */'; \
	   for f in $(WORKLOAD_OPTION_DEFS); do \
	       d=$${f%/options.def}; echo "WORKLOAD_FOLDER(\"$${d#src/workload/}\")"; \
	       echo "#include \"$${f#src/}\""; \
	   done; } >$@.tmp.$$$$ && \
	 if cmp -s $@.tmp.$$$$ $@; then rm -f $@.tmp.$$$$; else mv $@.tmp.$$$$ $@; fi

build/obj/%.o: %.c | $(WORKLOAD_OPTIONS)
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -MMD -MP -c $< -o $@

build/asan/obj/%.o: %.c | $(WORKLOAD_OPTIONS)
	@mkdir -p $(dir $@)
	@echo "CC (asan) $<"
	@$(CC) $(ASAN_CFLAGS) $(CPPFLAGS_ALL) -MMD -MP -c $< -o $@

build/libpgarena.a: $(REL_OBJ)
	@rm -f $@; ar rcs $@ $^

build/asan/libpgarena.a: $(ASAN_OBJ)
	@rm -f $@; ar rcs $@ $^

build/pgarena: build/obj/src/main.o build/libpgarena.a
	@echo "LD $@"
	@$(CC) $(REL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_ALL)

build/asan/pgarena: build/asan/obj/src/main.o build/asan/libpgarena.a
	@echo "LD $@"
	@$(CC) $(ASAN_CFLAGS) -o $@ $^ $(LIBS_ALL)

asan: build/asan/pgarena

# Unit tests (cmocka): one binary per tests/unit/test_*.c, in both variants.
build/tests/%: tests/unit/%.c build/libpgarena.a
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -Itests/unit $(shell pkg-config --cflags cmocka) -o $@ $^ \
	    $(LIBS_ALL) $(shell pkg-config --libs cmocka)

# The engine's tests run the client state machine against the scripted fake connection.
ENGINE_TEST_DEPS := tests/unit/fake_pg.c tests/unit/fake_pg.h tests/unit/engine_fixture.h
build/tests/test_engine_%: tests/unit/test_engine_%.c $(ENGINE_TEST_DEPS) build/libpgarena.a
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -Itests/unit $(shell pkg-config --cflags cmocka) -o $@ \
	    $(filter %.c %.a,$^) \
	    $(LIBS_ALL) $(shell pkg-config --libs cmocka)

build/asan/tests/test_engine_%: tests/unit/test_engine_%.c $(ENGINE_TEST_DEPS) build/asan/libpgarena.a
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(ASAN_CFLAGS) $(CPPFLAGS_ALL) -Itests/unit $(shell pkg-config --cflags cmocka) -o $@ \
	    $(filter %.c %.a,$^) \
	    $(LIBS_ALL) $(shell pkg-config --libs cmocka)

build/asan/tests/%: tests/unit/%.c build/asan/libpgarena.a
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(ASAN_CFLAGS) $(CPPFLAGS_ALL) -Itests/unit $(shell pkg-config --cflags cmocka) -o $@ $^ \
	    $(LIBS_ALL) $(shell pkg-config --libs cmocka)

UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/tests/%) $(UNIT_SRC:tests/unit/%.c=build/asan/tests/%)
unit: $(UNIT_BIN) build/tests/mkcapture build/tests/binclient build/tests/syncclient build/tests/copyfailclient build/gen_docs

# The poll variant (build/poll/): the release build with the engine's event wait on poll/ppoll
# in place of epoll, its pgarena and the engine's fake-driver tests. Only src/engine/ reads the
# define, so the other objects are the release build's.
POLL_ENGINE := $(filter src/engine/%,$(LIB_SRC))
POLL_OBJ := $(filter-out $(POLL_ENGINE:%.c=build/obj/%.o),$(REL_OBJ)) \
            $(POLL_ENGINE:%.c=build/poll/obj/%.o)
POLL_TESTS := $(patsubst tests/unit/%.c,build/poll/tests/%,$(wildcard tests/unit/test_engine_*.c))

build/poll/obj/%.o: %.c | $(WORKLOAD_OPTIONS)
	@mkdir -p $(dir $@)
	@echo "CC (poll) $<"
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -DPGARENA_EVWAIT_POLL -MMD -MP -c $< -o $@

build/poll/libpgarena.a: $(POLL_OBJ)
	@rm -f $@; ar rcs $@ $^

build/poll/pgarena: build/obj/src/main.o build/poll/libpgarena.a
	@echo "LD $@"
	@$(CC) $(REL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_ALL)

build/poll/tests/test_engine_%: tests/unit/test_engine_%.c $(ENGINE_TEST_DEPS) build/poll/libpgarena.a
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -Itests/unit $(shell pkg-config --cflags cmocka) -o $@ \
	    $(filter %.c %.a,$^) \
	    $(LIBS_ALL) $(shell pkg-config --libs cmocka)

poll: build/poll/pgarena $(POLL_TESTS)

# make windows: build/win64/pgarena.exe and build/pgarena-VERSION-win64.zip, cross-built with
# mingw-w64 against the official Windows build of libpq; tools/win64/deps.sh fetches and
# checks the inputs (cached in WIN64_CACHE, outside the clone). src/os/ and the WSAPoll
# backend of the event wait are the Windows-only sources; os/compat_win.h fills the gaps of
# mingw-w64's C library.
WIN64_CACHE ?= $(HOME)/.cache/pgarena-win64
WIN64_ROOT  := $(WIN64_CACHE)/root
WIN64_CC    := x86_64-w64-mingw32-gcc
WIN64_CFLAGS := -std=c11 -O2 $(WARN) -Isrc -Ibuild/gen -I$(WIN64_ROOT)/include -D_GNU_SOURCE \
                -D__USE_MINGW_ANSI_STDIO=1 -D_POSIX_THREAD_SAFE_FUNCTIONS=200112L \
                -include os/compat_win.h -DPGARENA_VERSION='"$(VERSION)"'
WIN64_LIBS  := -L$(WIN64_ROOT)/lib $(WIN64_ROOT)/bin/libpq.dll -static-libgcc -Wl,-Bstatic \
               -ljansson -lz -lpthread -Wl,-Bdynamic -lws2_32 -liphlpapi -lbcrypt -ladvapi32 -lshell32
WIN64_OBJ   := $(LIB_SRC:%.c=build/win64/obj/%.o) build/win64/obj/src/main.o
WIN64_ZIP   := build/pgarena-$(VERSION)-win64.zip

build/win64/obj/%.o: %.c | $(WORKLOAD_OPTIONS)
	@mkdir -p $(dir $@)
	@echo "CC (win64) $<"
	@$(WIN64_CC) $(WIN64_CFLAGS) -MMD -MP -c $< -o $@

build/win64/pgarena.exe: $(WIN64_OBJ)
	@echo "LD $@"
	@$(WIN64_CC) -o $@ $^ $(WIN64_LIBS)

$(WIN64_ZIP): build/win64/pgarena.exe tools/win64/pack.sh tools/win64/README-windows.txt \
              tools/win64/NOTICES.txt LICENSE
	@sh tools/win64/pack.sh $@ build/win64/pgarena.exe $(WIN64_ROOT)

windows:
	@sh tools/win64/deps.sh $(WIN64_CACHE)
	@$(MAKE) --no-print-directory $(WIN64_ZIP)

# The engine's fake-driver tests as Windows programs (the WSAPoll backend), run under Wine by
# tests/integration/test_windows.sh.
WIN64_TESTS := $(patsubst tests/unit/%.c,build/win64/tests/%.exe,$(wildcard tests/unit/test_engine_*.c))

build/win64/tests/test_engine_%.exe: tests/unit/test_engine_%.c $(ENGINE_TEST_DEPS) \
                                     $(filter-out build/win64/obj/src/main.o,$(WIN64_OBJ))
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(WIN64_CC) $(WIN64_CFLAGS) -Itests/unit -o $@ $(filter %.c %.o,$^) -lcmocka $(WIN64_LIBS)

windows-tests:
	@sh tools/win64/deps.sh $(WIN64_CACHE)
	@$(MAKE) --no-print-directory $(WIN64_TESTS)

# Test tools (tests/tools/): mkcapture writes replay captures for the integration tests;
# binclient, syncclient and copyfailclient are libpq applications sending binary parameters,
# statements sharing a Sync and COPYs they fail (the recording proxy's tests).
build/tests/mkcapture: tests/tools/mkcapture.c build/libpgarena.a
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -o $@ $^ $(LIBS_ALL)

build/tests/binclient build/tests/syncclient build/tests/copyfailclient: build/tests/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -o $@ $^ $(LIBS_ALL)

# The release build's unit tests alone (no server needed): the Debian package's test step.
unit-check: $(UNIT_SRC:tests/unit/%.c=build/tests/%)
	@for t in $^; do $$t >/dev/null 2>&1 || { echo "FAIL $$t"; exit 1; }; done; \
	    echo "$(words $^) unit test programs passed"

# make docs: what is written from src/cli/options.def (and the workloads' options.def) besides the parsers and --help (the man
# page's options, the bash completion, the README's synopsis), by tools/gen_docs; all three
# are committed, and tests/integration/test_docs.sh fails when one is stale.
build/gen_docs: tools/gen_docs.c src/cli/options.def src/cli/commands.def $(WORKLOAD_OPTIONS) \
                $(WORKLOAD_OPTION_DEFS) build/libpgarena.a
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -o $@ tools/gen_docs.c build/libpgarena.a $(LIBS_ALL)

docs: build/gen_docs
	./build/gen_docs man docs/pgarena.1.in >docs/pgarena.1.tmp && mv docs/pgarena.1.tmp docs/pgarena.1
	./build/gen_docs completion completion/pgarena.bash.in >completion/pgarena.bash.tmp && \
	    mv completion/pgarena.bash.tmp completion/pgarena.bash
	./build/gen_docs readme README.md >README.md.tmp && mv README.md.tmp README.md

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the man page, the bash completion.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL ?= install

install: build/pgarena
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 build/pgarena $(DESTDIR)$(BINDIR)/pgarena
	$(INSTALL) -m 644 docs/pgarena.1 $(DESTDIR)$(MANDIR)/man1/pgarena.1
	$(INSTALL) -m 644 completion/pgarena.bash $(DESTDIR)$(BASHCOMPDIR)/pgarena

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pgarena $(DESTDIR)$(MANDIR)/man1/pgarena.1 \
	    $(DESTDIR)$(BASHCOMPDIR)/pgarena

# The Debian package (debian/), written beside this tree as dpkg-buildpackage does; too
# slow for make check. Needs debhelper: apt-get install -y debhelper devscripts.
deb:
	dpkg-buildpackage -us -uc -b

deps:
	@sh tests/ensure-deps.sh

# The servers of other majors (tools/pg/versions.sh, cached in PGARENA_PG_CACHE or its
# default) are fetched when missing; quiet when cached, one line for a major not to be had.
check:
	@sh tests/ensure-deps.sh
	@$(MAKE) --no-print-directory all asan unit poll
	@sh tools/win64/check-prep.sh $(WIN64_CACHE) $(CURDIR)/build/win64/wineprefix
	@sh tools/pg/versions.sh fetch
	@bash tests/run-all.sh

demo:
	@sh tests/ensure-deps.sh
	@$(MAKE) --no-print-directory all
	./build/pgarena run --local -T 10 -c 4 -j 2 -w tpcb-like -o build/demo-result.json

# libFuzzer targets (clang): tests/fuzz/fuzz_NAME.c over the library built with the fuzzer's
# coverage and ASan+UBSan. `make fuzz` runs each for FUZZ_SECONDS from its seed corpus
# tests/fuzz/corpus_NAME (tests/fuzz/run.sh); a finding (crash-*, leak-*, timeout-*, oom-*)
# is written to build/fuzz/findings/ and make fails.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_TARGETS := script result cli logread record
FUZZ_CFLAGS := -std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
               -fno-sanitize-recover=undefined $(WARN)
FUZZ_OBJ := $(LIB_SRC:%.c=build/fuzz/obj/%.o)
FUZZ_BIN := $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)

build/fuzz/obj/%.o: %.c | $(WORKLOAD_OPTIONS)
	@mkdir -p $(dir $@)
	@echo "CC (fuzz) $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(CPPFLAGS_ALL) -MMD -MP -c $< -o $@

build/fuzz/libpgarena.a: $(FUZZ_OBJ)
	@rm -f $@; ar rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c build/fuzz/libpgarena.a
	@echo "LD $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(CPPFLAGS_ALL) -o $@ $^ $(LIBS_ALL)

# The command-line target's dictionary: every option of every command, from the one option
# table (cli/opts.h), plus the values kept by hand.
build/fuzz/gen_cli_dict: tests/fuzz/gen_cli_dict.c build/libpgarena.a
	@mkdir -p $(dir $@)
	@$(CC) $(REL_CFLAGS) $(CPPFLAGS_ALL) -o $@ $^ $(LIBS_ALL)

build/fuzz/cli.dict: build/fuzz/gen_cli_dict tests/fuzz/cli-values.dict
	@{ cat tests/fuzz/cli-values.dict; ./build/fuzz/gen_cli_dict; } >$@

fuzz:
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: needs clang: apt-get install -y clang"; exit 1; }
	@$(MAKE) --no-print-directory $(FUZZ_BIN) build/fuzz/cli.dict
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

format:
	clang-format -i $$(find src tests -name '*.[ch]')

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)

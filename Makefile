# coax: build, test, bench. `make help` lists the targets.
#
# Every engine/FOLDER/*.c goes into libcoax except the command (engine/cli/);
# adding a file needs no change here. The README's "Layout" section says what
# each folder holds and which folders it may include (spec/layout.lua checks).
# build/coax.so is engine/lua/ over libcoax, for the stock interpreter. C
# tests are spec/c/test_*.c, one binary each; busted specs are spec/*_spec.lua.

CC      ?= cc
# Lua 5.4.4 (Debian 12's liblua5.4) overflows the C stack on deeply nested
# coroutine.close (fixed in 5.4.6); the sandbox bounds that nesting, so any
# 5.4 works, but a fixed Lua is preferred where pkg-config finds one.
LUA_PKG ?= $(firstword $(foreach p,lua5.4 lua-5.4 lua54,$(shell pkg-config --atleast-version=5.4.6 $(p) \
             2>/dev/null && echo $(p))) lua5.4)
PKGS    := $(LUA_PKG) libpcre2-8 libcurl libidn2
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter
DEFS    := -D_POSIX_C_SOURCE=200809L $(EXTRA_DEFS)
INC     := -Iengine/include -Iengine $(shell pkg-config --cflags $(PKGS))
LIBS    := $(shell pkg-config --libs $(PKGS)) -lm
# Hidden by default: libcoax.so exports the functions coax.h marks COAX_API
# and nothing else, and coax.so luaopen_coax alone (spec/surface_spec.lua).
ALL_CFLAGS = $(WARN) $(DEFS) $(INC) $(CFLAGS) -fPIC -fvisibility=hidden

B       ?= build
ENGINE  := $(wildcard engine/*/*.c)
CLI_SRC := $(wildcard engine/cli/*.c)
LUA_SRC := $(wildcard engine/lua/*.c)
LIB_SRC := $(filter-out $(CLI_SRC) $(LUA_SRC),$(ENGINE))
LIB_OBJ := $(LIB_SRC:engine/%.c=$(B)/obj/%.o)
CLI_OBJ := $(CLI_SRC:engine/%.c=$(B)/obj/%.o)
LUA_OBJ := $(LUA_SRC:engine/%.c=$(B)/obj/%.o)
TESTS   := $(patsubst spec/c/%.c,$(B)/%,$(wildcard spec/c/test_*.c))
EXAMPLES := $(patsubst examples/%.c,$(B)/examples/%,$(wildcard examples/*.c))

.PHONY: all test deps asan valgrind bench conformance clean help

all: $(B)/libcoax.a $(B)/libcoax.so $(B)/coax $(B)/coax.so

# Each object depends on the headers it includes (-MMD writes the list),
# and on this file, where its flags are.
$(B)/obj/%.o: engine/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(LUA_OBJ:.o=.d) $(TESTS:=.d)

$(B)/libcoax.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The shared library has a SONAME (libcoax.so.MAJOR; 0 while the version is
# 0.x) and a versioned file name, with the two links a loader and a linker
# look for.
VERSION := $(shell sed -n 's/^\#define COAX_VERSION "\(.*\)"/\1/p' engine/include/coax.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
$(B)/libcoax.so: $(B)/libcoax.so.$(VERSION)
	ln -sf libcoax.so.$(VERSION) $(B)/libcoax.so.$(SOMAJOR)
	ln -sf libcoax.so.$(SOMAJOR) $@

$(B)/libcoax.so.$(VERSION): $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libcoax.so.$(SOMAJOR) -o $@ $^ $(LIBS)

$(B)/coax: $(CLI_OBJ) $(B)/libcoax.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(B)/libcoax.a $(LIBS)

# The Lua module takes Lua's symbols from the interpreter that loads it.
# --exclude-libs keeps libcoax.a's COAX_API functions out of its exports
# (luaopen_coax is the module's one), so the module's calls stay in its own
# copy even in a host that also links a libcoax.so, of another version say.
$(B)/coax.so: $(LUA_OBJ) $(B)/libcoax.a
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,--exclude-libs,ALL -o $@ $(LUA_OBJ) $(B)/libcoax.a \
	  $(shell pkg-config --libs libpcre2-8 libcurl libidn2) -lm

$(B)/test_%: spec/c/test_%.c $(B)/libcoax.a
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(B)/libcoax.a $(LIBS)

# The examples are built like a host builds them (the public header only)
# and run by spec/examples_spec.lua.
$(B)/examples/%: examples/%.c $(B)/libcoax.a engine/include/coax.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) -Iengine/include $(CFLAGS) -o $@ $< $(B)/libcoax.a $(LIBS)

test: all $(TESTS) $(EXAMPLES)
	@B=$(B) spec/run

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer, in
# a build folder of its own. The busted specs load the instrumented module
# into the stock lua5.4, so the ASan runtime is preloaded; leaks are checked
# in the C tests and CLI runs, where every allocation is coax's.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
asan:
	$(MAKE) --no-print-directory B=build/asan CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" all $(patsubst $(B)/%,build/asan/%,$(TESTS) $(EXAMPLES))
	B=build/asan ASAN_PRELOAD=$$($(CC) -print-file-name=libasan.so) \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 spec/run

valgrind: all $(TESTS) $(EXAMPLES)
	@B=$(B) VALGRIND=1 spec/run

# JSON Schema conformance. `make conformance` prints passed/total for every
# draft of spec/json-schema-test-suite, required and optional, and the
# output tests (output-tests/, flag/basic/detailed text), and never fails;
# drafts that pass completely also run in `make test` (the COMPLETE list in
# spec/c/test_schema_suite.c).
conformance: $(B)/test_schema_suite
	@$(B)/test_schema_suite --report

# Example conformance. `make example-conformance` prints, per
# draft, how many JSON-Schema-Test-Suite schemas with at least one valid
# test get a generated example (coax_example) that validates; never fails.
# Every draft is complete, so spec/c/test_example_suite.c also runs in
# `make test`.
.PHONY: example-conformance
example-conformance: $(B)/test_example_suite
	@$(B)/test_example_suite --report

# ---- generated tables -------------------------------------------------------
# `make tables` regenerates every generated file of the engine (each says so
# in its first lines, and only these may pass the 1,000 lines spec/layout.lua
# allows a file). Each generator writes beside its table first, so one that
# fails leaves the committed table as it was.
#   engine/schema/meta.c              the official meta-schemas (schemas/meta/)
#                                     as C strings: schemas/meta/embed.lua
#                                     (`make meta` alone)
#   engine/base/unicode_nfc_tables.h  NFC decompositions, compositions, combining
#                                     classes and case folding, from Python's
#                                     unicodedata: bench/extract/gen_unicode_nfc.py
#   engine/tokens/unicode.c           the token estimator's character classes and
#   engine/tokens/weights.c           its fitted weights, from Node's Unicode tables
#                                     and the exact tokenizers: bench/tokens/
#                                     (installs them from npm; the fit assembles a
#                                     corpus and wants 8 GB); the classes come
#                                     first, and the library is rebuilt with them
#                                     before the fit splits the corpus
.PHONY: tables meta tables-nfc tables-tokens
tables: meta tables-nfc tables-tokens

meta:
	lua5.4 schemas/meta/embed.lua > engine/schema/meta.c.new
	mv engine/schema/meta.c.new engine/schema/meta.c

tables-nfc:
	python3 bench/extract/gen_unicode_nfc.py > engine/base/unicode_nfc_tables.h.new
	mv engine/base/unicode_nfc_tables.h.new engine/base/unicode_nfc_tables.h

tables-tokens:
	@$(MAKE) --no-print-directory -C bench tokens-unicode
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -C bench tokens-fit

# ---- fuzzing ----------------------------------------------------------------
# `make fuzz` builds the libFuzzer harnesses (spec/fuzz/fuzz_*.c, one a file)
# and the library with clang, -fsanitize=fuzzer,address,undefined, into
# build/fuzz; writes seed corpora from the specs' fixtures into
# build/fuzz/seeds (spec/fuzz/seeds.lua) beside the committed hand-picked
# seeds (spec/fuzz/seeds/NAME); then runs each harness for FUZZ_SECONDS
# (default 60; `make fuzz FUZZ_SECONDS=600`), one after the other. New
# corpus entries stay in build/fuzz/corpus/NAME across runs. A crash stops
# the run and leaves its input in build/fuzz/crash-NAME-*: add it to
# spec/fixtures/fuzz/ with a test in the ordinary suite, then fix it.
# FUZZ_ONLY=repair runs one harness. Not part of `make test` or .ci/run.
# ASan keeps freed memory instead of returning it to the system: on a loaded
# machine its madvise calls stalled for over 10 s, which libFuzzer reported
# as timeouts of inputs that run in 0.2 s.
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_MAXLEN  ?= 16384
FUZZ_ONLY    ?=
FZ           := build/fuzz
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_NAMES   := $(patsubst spec/fuzz/fuzz_%.c,%,$(wildcard spec/fuzz/fuzz_*.c))
FUZZ_RUN     := $(if $(FUZZ_ONLY),$(FUZZ_ONLY),$(FUZZ_NAMES))

.PHONY: fuzz fuzz-build
fuzz-build:
	$(MAKE) --no-print-directory B=$(FZ) CC=$(FUZZ_CC) CFLAGS="$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link" $(FZ)/libcoax.a
	$(MAKE) --no-print-directory $(FUZZ_NAMES:%=$(FZ)/fuzz_%)

$(FZ)/fuzz_%: spec/fuzz/fuzz_%.c spec/fuzz/fuzz.h $(FZ)/libcoax.a
	$(FUZZ_CC) $(WARN) $(DEFS) $(INC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FZ)/libcoax.a $(LIBS)

fuzz: all fuzz-build
	@lua5.4 spec/fuzz/seeds.lua $(FZ)/seeds $(B)
	@for n in $(FUZZ_RUN); do \
	  mkdir -p $(FZ)/corpus/$$n $(FZ)/seeds/$$n spec/fuzz/seeds/$$n; \
	  echo "fuzz $$n: $(FUZZ_SECONDS) s"; \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=allocator_release_to_os_interval_ms=-1 \
	  $(FZ)/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=$(FUZZ_MAXLEN) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -dict=spec/fuzz/json.dict -artifact_prefix=$(FZ)/crash-$$n- \
	    $(FZ)/corpus/$$n $(FZ)/seeds/$$n spec/fuzz/seeds/$$n > $(FZ)/$$n.log 2>&1 \
	    || { tail -n 60 $(FZ)/$$n.log; echo "fuzz $$n: FAILED (log: $(FZ)/$$n.log)"; exit 1; }; \
	  grep -E '^stat::number_of_executed_units|^Done' $(FZ)/$$n.log | tr '\n' ' '; echo; \
	done

deps:
	@sh .ci/deps

bench: all
	@$(MAKE) --no-print-directory -C bench

# ---- install ----------------------------------------------------------------
# `make install PREFIX=/opt/coax` builds a tree for that prefix (the engine
# finds its scripts in PREFIX/share/coax/lua by default) and installs the
# command, the libraries with a pkg-config file, the header, the Lua module
# and the scripts, the schemas (PREFIX/share/coax/schemas) and the example
# recipes beside the scripts (share/coax/lua/recipes: their ../../schemas is
# the installed schemas). DESTDIR is honoured, for packagers.
PREFIX  ?= /usr/local
LUA_CMOD ?= $(PREFIX)/lib/lua/5.4
LUA_LMOD ?= $(PREFIX)/share/coax/lua
IB       := build/prefix$(subst /,_,$(PREFIX))
install:
	$(MAKE) --no-print-directory B=$(IB) EXTRA_DEFS='-DCOAX_SHARE_DIR=\"$(PREFIX)/share/coax/lua\"' all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 755 $(IB)/coax $(DESTDIR)$(PREFIX)/bin/coax
	install -m 644 $(IB)/libcoax.a $(DESTDIR)$(PREFIX)/lib/libcoax.a
	install -m 755 $(IB)/libcoax.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libcoax.so.$(VERSION)
	ln -sf libcoax.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libcoax.so.$(SOMAJOR)
	ln -sf libcoax.so.$(SOMAJOR) $(DESTDIR)$(PREFIX)/lib/libcoax.so
	install -m 644 engine/include/coax.h $(DESTDIR)$(PREFIX)/include/coax.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' coax.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/coax.pc
	$(MAKE) --no-print-directory B=$(IB) install-lua
	install -d $(DESTDIR)$(PREFIX)/share/coax/schemas $(DESTDIR)$(LUA_LMOD)/recipes
	install -m 644 schemas/*.json $(DESTDIR)$(PREFIX)/share/coax/schemas/
	install -m 644 lua/recipes/*.* $(DESTDIR)$(LUA_LMOD)/recipes/

# The Lua module and the runtime scripts (also LuaRocks' install target).
install-lua:
	install -d $(DESTDIR)$(LUA_CMOD) $(DESTDIR)$(LUA_LMOD)/coax/agents
	install -m 755 $(B)/coax.so $(DESTDIR)$(LUA_CMOD)/coax.so
	install -m 644 lua/coax/*.lua $(DESTDIR)$(LUA_LMOD)/coax/
	install -m 644 lua/coax/agents/*.lua $(DESTDIR)$(LUA_LMOD)/coax/agents/

clean:
	rm -rf build

help:
	@echo "make          build build/libcoax.a, libcoax.so, coax, coax.so"
	@echo "make test     C tests and busted specs; ends with 'N passed, N failed'"
	@echo "make asan     the same under ASan + UBSan"
	@echo "make valgrind C tests and CLI runs under memcheck"
	@echo "make fuzz     libFuzzer harnesses, FUZZ_SECONDS (60) each; FUZZ_ONLY=NAME for one"
	@echo "make bench    benchmarks beside peer libraries (installs peers from npm)"
	@echo "make deps     install the Debian packages coax needs"
	@echo "make install  PREFIX=/usr/local: command, libraries, pkg-config, header, Lua module, scripts"
	@echo "make conformance  JSON-Schema-Test-Suite counts per draft (never fails)"
	@echo "make example-conformance  generated examples that validate, per draft (never fails)"
	@echo "make tables   regenerate the engine's generated tables (meta-schemas: make meta; NFC data;"
	@echo "              token classes and weights: node, npm, 8 GB)"

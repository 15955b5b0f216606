# coax: build, test, bench. `make help` lists the targets.
#
# Every engine/FOLDER/*.c goes into libcoax except the command (engine/cli/);
# adding a file needs no change here. The README's "Layout" section says what
# each folder holds and which folders it may include (spec/layout.lua checks).
# build/coax.so is engine/lua/ over libcoax, for the stock interpreter. C
# tests are spec/c/test_*.c, one binary each; busted specs are spec/*_spec.lua.

CC      ?= cc
# The engine's Lua is its own (engine/vendor/, the "Lua hosts" block below);
# a system Lua is only what the Lua modules for host interpreters build on.
PKGS    := libpcre2-8 libcurl libidn2
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter
DEFS    := -D_POSIX_C_SOURCE=200809L $(EXTRA_DEFS)
INC     := -Iengine/include -Iengine -Iengine/vendor/lua/src $(shell pkg-config --cflags $(PKGS))
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
# ---- the engine's own Lua (engine/vendor/README.md) -------------------------
# Lua 5.4.7 and lua-cjson, compiled into libcoax with hidden symbols, so
# libcoax.so exports no lua_* and a host's own Lua never mixes with it.
VENDOR_SRC := $(filter-out %/lua.c %/luac.c,$(wildcard engine/vendor/lua/src/*.c)) \
              $(wildcard engine/vendor/cjson/*.c)
VENDOR_OBJ := $(VENDOR_SRC:engine/%.c=$(B)/obj/%.o)
LIB_OBJ    += $(VENDOR_OBJ)
VENDOR_CFLAGS = -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -Iengine/vendor/lua/src $(CFLAGS) \
                -fPIC -fvisibility=hidden -w
$(B)/obj/vendor/%.o: engine/vendor/%.c
	@mkdir -p $(dir $@)
	$(CC) $(VENDOR_CFLAGS) -MMD -MP -c $< -o $@
# -----------------------------------------------------------------------------
TESTS   := $(patsubst spec/c/%.c,$(B)/%,$(wildcard spec/c/test_*.c))
EXAMPLES := $(patsubst examples/%.c,$(B)/examples/%,$(wildcard examples/*.c))

.PHONY: all test deps asan valgrind bench conformance clean help

all: $(B)/libcoax.a $(B)/libcoax.so $(B)/coax $(B)/coax.so

# Each object depends on the headers it includes (-MMD writes the list),
# and on this file, where its flags are.
$(B)/obj/%.o: engine/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TESTS:=.d)

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

# ---- Lua hosts ---------------------------------------------------------------
# The Lua module for each host Lua: build/lua/HOST/coax.so for LuaJIT and Lua
# 5.1 to 5.4 (`make lua-hosts`); build/coax.so is the one for the system's
# Lua 5.4 (every busted spec loads it). A module is the binding (the
# library's engine/script/lib*.c and engine/lua/*.c) compiled against that
# host's headers (engine/script/compat.h bridges the versions), over one
# prelinked engine object: `ld -r` of libcoax's objects with the engine's own
# Lua, then every symbol the engine's Lua and its 5.4 build of the binding
# define made local. So the host-compiled binding's lua_* calls go to the
# host's Lua when the module loads, the engine's were bound to its own Lua
# inside `ld -r`, and the two copies of lcoax_* never meet. The module
# exports luaopen_coax only.
LUA_PKG    ?= lua5.4
HOSTS      := 5.1 5.2 5.3 5.4 luajit
HOST_PKG_5.1 := lua5.1
HOST_PKG_5.2 := lua5.2
HOST_PKG_5.3 := lua5.3
HOST_PKG_5.4 := $(LUA_PKG)
HOST_PKG_luajit := luajit
HOST_INC_5.1 = $(shell pkg-config --cflags $(HOST_PKG_5.1))
HOST_INC_5.2 = $(shell pkg-config --cflags $(HOST_PKG_5.2))
HOST_INC_5.3 = $(shell pkg-config --cflags $(HOST_PKG_5.3))
HOST_INC_5.4 = $(shell pkg-config --cflags $(HOST_PKG_5.4))
HOST_INC_luajit = $(shell pkg-config --cflags $(HOST_PKG_luajit))
# LuaRocks builds build/lua/rock/coax.so for the Lua it runs: the rockspec
# passes that Lua's headers (LUA_INCDIR), the binding is compiled against
# them, and build/lua/rock/incdir remembers which, so a rock for another Lua
# rebuilds it. build/coax.so stays the one for the system's 5.4.
LUA_INCDIR ?=
HOST_INC_rock = -I$(LUA_INCDIR)
ifneq ($(LUA_INCDIR),)
$(shell mkdir -p $(B)/lua/rock && (echo '$(LUA_INCDIR)' | cmp -s - $(B)/lua/rock/incdir || echo '$(LUA_INCDIR)' > $(B)/lua/rock/incdir))
endif
HOST_SRC   := $(wildcard engine/script/lib*.c) $(LUA_SRC)
HOST_LIBS  := $(shell pkg-config --libs libpcre2-8 libcurl libidn2) -lm
PRIVATE_OBJ = $(VENDOR_OBJ) $(filter $(B)/obj/script/lib%.o,$(LIB_OBJ))

$(B)/lua/engine.o: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(LD) -r -o $@.tmp $(LIB_OBJ)
	nm -g --defined-only $(PRIVATE_OBJ) | awk 'NF == 3 { print $$3 }' | sort -u > $@.private
	objcopy --localize-symbols=$@.private $@.tmp $@
	@rm -f $@.tmp

define HOST_RULES
$(B)/lua/$(1)/obj/%.o: engine/%.c $(if $(filter rock,$(1)),$(B)/lua/rock/incdir)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(WARN) $$(DEFS) -Iengine/include -Iengine $$(HOST_INC_$(1)) $$(shell pkg-config --cflags $$(PKGS)) \
	  $$(CFLAGS) -fPIC -MMD -MP -c $$< -o $$@
$(B)/lua/$(1)/coax.so: $(HOST_SRC:engine/%.c=$(B)/lua/$(1)/obj/%.o) $(B)/lua/engine.o
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -shared -Wl,--version-script=engine/lua/exports.map -o $$@ $$^ $$(HOST_LIBS)
-include $(HOST_SRC:engine/%.c=$(B)/lua/$(1)/obj/%.d)
endef
$(foreach h,$(HOSTS) $(if $(LUA_INCDIR),rock),$(eval $(call HOST_RULES,$(h))))

$(B)/coax.so: $(B)/lua/5.4/coax.so
	cp $< $@

.PHONY: lua-hosts
lua-hosts: $(HOSTS:%=$(B)/lua/%/coax.so)
# -----------------------------------------------------------------------------

$(B)/test_%: spec/c/test_%.c $(B)/libcoax.a
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(B)/libcoax.a $(LIBS)

# The examples are built like a host builds them (the public header only)
# and run by spec/examples_spec.lua.
$(B)/examples/%: examples/%.c $(B)/libcoax.a engine/include/coax.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) -Iengine/include $(CFLAGS) -o $@ $< $(B)/libcoax.a $(LIBS)

test: all lua-hosts $(TESTS) $(EXAMPLES)
	@B=$(B) spec/run

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer, in
# a build folder of its own. The busted specs load the instrumented module
# into the stock lua5.4, so the ASan runtime is preloaded; leaks are checked
# in the C tests and CLI runs, where every allocation is coax's.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
asan:
	$(MAKE) --no-print-directory B=build/asan CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" all lua-hosts $(patsubst $(B)/%,build/asan/%,$(TESTS) $(EXAMPLES))
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
#   engine/tokens/weights.c           its fitted weights, and
#   engine/tokens/runs.c              the exact tokens of runs of one punctuation
#                                     mark, from Node's Unicode tables
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
	@$(MAKE) --no-print-directory -C bench tokens-runs
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
	$(MAKE) --no-print-directory B=$(IB) EXTRA_DEFS='-DCOAX_SHARE_DIR=\"$(PREFIX)/share/coax/lua\"' lua-hosts
	for v in 5.1 5.2 5.3; do \
	  install -d $(DESTDIR)$(PREFIX)/lib/lua/$$v && install -m 755 $(IB)/lua/$$v/coax.so $(DESTDIR)$(PREFIX)/lib/lua/$$v/coax.so; \
	done
	install -d $(DESTDIR)$(PREFIX)/share/coax/schemas $(DESTDIR)$(LUA_LMOD)/recipes
	install -m 644 schemas/*.json $(DESTDIR)$(PREFIX)/share/coax/schemas/
	install -m 644 lua/recipes/*.* $(DESTDIR)$(LUA_LMOD)/recipes/

# The Lua module and the runtime scripts (also LuaRocks' install target).
# `make install` also puts the module for each other host Lua where that
# Lua's package.cpath looks (PREFIX/lib/lua/5.1, 5.2, 5.3); LuaJIT looks in
# 5.1's folder too, and loads the module built for 5.1 (hosts_spec).
LUA_MODULE ?= $(B)/coax.so
install-lua: $(LUA_MODULE)
	install -d $(DESTDIR)$(LUA_CMOD) $(DESTDIR)$(LUA_LMOD)/coax/agents
	install -m 755 $(LUA_MODULE) $(DESTDIR)$(LUA_CMOD)/coax.so
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
	@echo "make lua-hosts  build/lua/{5.1,5.2,5.3,5.4,luajit}/coax.so, the module for each host Lua"
	@echo "make install  PREFIX=/usr/local: command, libraries, pkg-config, header, Lua module, scripts"
	@echo "make conformance  JSON-Schema-Test-Suite counts per draft (never fails)"
	@echo "make example-conformance  generated examples that validate, per draft (never fails)"
	@echo "make tables   regenerate the engine's generated tables (meta-schemas: make meta; NFC data;"
	@echo "              token classes and weights: node, npm, 8 GB)"

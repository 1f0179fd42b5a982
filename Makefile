# ringsim — build, test, demo and benchmark.
#
#   make            build ./ringsim
#   make demo       install missing packages (as root), build, run the demo, draw charts
#   make test       install missing packages (as root), build, run every test
#   make asan       the whole test suite under AddressSanitizer + UBSan
#   make tsan       the tests that run two threads, under ThreadSanitizer
#   make valgrind   unit and command-line tests under valgrind memcheck
#   make bench      placement and simulation benchmarks (figures, not pass/fail);
#                   CACHESIM=/path/to/cachesim adds libCacheSim's LRU as a yardstick
#   make fuzz       libFuzzer harnesses under ASan + UBSan, FUZZ_SECONDS each (default 60)
#   make docs       regenerate the generated parts of the documentation
#   make install    PREFIX=/usr/local DESTDIR=
#   make clean
#
# Quiet by default; V=1 shows every command. OPT/DEBUG/WARN/SAN may be overridden.

VERSION   := $(shell cat VERSION 2>/dev/null || echo unknown)
PREFIX    ?= /usr/local
BINDIR     = $(PREFIX)/bin
DATADIR    = $(PREFIX)/share/ringsim
BUILD     ?= build/release
BIN       ?= ./ringsim

CC        ?= cc
OPT       ?= -O2
DEBUG     ?= -g
WARN      ?= -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
             -Wpointer-arith -Wvla -Wformat -Wformat-security -Wundef
SAN       ?=
# Link-time optimisation for ./ringsim: the per-request path crosses the
# models' files (client -> net -> node -> fifo), and LTO inlines across
# them. Objects stay "fat", so the test binaries link them without it.
# LTO= turns it off (the sanitizer, valgrind and fuzz builds do).
LTO       ?= -flto=auto -ffat-lto-objects
PKGS      := gsl yaml-0.1 sqlite3 libcrypto zlib libxxhash

# Recursive (=) so pkg-config runs only when a recipe needs it, after `deps`.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_CFLAGS = $(shell pkg-config --cflags cmocka 2>/dev/null)
TEST_LIBS  = $(shell pkg-config --libs cmocka 2>/dev/null)

ALL_CFLAGS = -std=c11 -pthread -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L $(OPT) $(LTO) $(DEBUG) \
             $(WARN) $(SAN) -I. -MMD -MP -DRINGSIM_VERSION='"$(VERSION)"' \
             $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)
ALL_LIBS   = $(PKG_LIBS) -lm -pthread $(LIBS)

ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n'
endif

# The library: engine, models, placement, results, plots. The command line
# (sim/cli/) is linked into the binary only.
LIB_SRCS  := $(sort $(wildcard sim/*.c models/*.c models/placement/*.c output/*.c plots/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CLI_SRCS  := $(sort $(wildcard sim/cli/*.c))
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/%.o)
LIB       := $(BUILD)/libringsim.a
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
MODEL_SRCS := $(sort $(wildcard tests/model/test_*.c))
MODEL_BINS := $(MODEL_SRCS:tests/model/%.c=$(BUILD)/tests/model/%)
TESTLIB_SRCS := $(sort $(wildcard tests/support/support_*.c))
TESTLIB_OBJS := $(TESTLIB_SRCS:tests/support/%.c=$(BUILD)/tests/support/%.o)
FUZZ_NAMES := $(sort $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/tests/unit/test_fuzz_%)
FUZZ_SECONDS ?= 60
BENCH_SRCS := $(sort $(wildcard tests/bench/*.c))
BENCH_BINS := $(BENCH_SRCS:tests/bench/%.c=$(BUILD)/bench/%)

.SECONDARY:
.PHONY: all deps demo test check-deps test-run asan tsan tsan-run valgrind bench install uninstall fuzz fuzz-bins \
        clean noopt unit-bins model-bins help docs

all: $(BIN)

help:
	@sed -n '2,15p' Makefile | sed 's/^# \{0,1\}//'

# --- packages -------------------------------------------------------------
# Installs what is missing when run as root; otherwise prints the command.
deps:
	@sh tests/deps.sh

# Every object waits for this check (order-only: it never forces a rebuild),
# so a machine without the libraries' headers hears what to install rather
# than a compiler error about a missing header.
check-deps:
	@pkg-config --exists $(PKGS) 2>/dev/null || { \
	    missing=""; for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	    echo "make: missing the development files of:$${missing:- pkg-config itself}" >&2; \
	    echo "make: run 'make deps' (as root it installs them with apt-get; otherwise it prints the command)" >&2; \
	    exit 1; }

$(LIB_OBJS) $(CLI_OBJS) $(TESTLIB_OBJS): | check-deps

# --- build ----------------------------------------------------------------
$(BUILD)/%.o: %.c
	$(say) CC $<
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJS)
	$(say) AR $@
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/ringsim: $(CLI_OBJS) $(LIB)
	$(say) LINK $@
	$(Q)$(CC) $(ALL_LDFLAGS) $(if $(LTO),$(OPT) -flto=auto) -o $@ $(CLI_OBJS) $(LIB) $(ALL_LIBS)

ifeq ($(BIN),./ringsim)
$(BIN): $(BUILD)/ringsim
	@cp $< $@.tmp && mv -f $@.tmp $@
endif

$(BUILD)/tests/support/%.o: tests/support/%.c
	$(say) CC $<
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(if $(LTO),-fno-lto) $(TEST_CFLAGS) -Itests/support -c -o $@ $<

# unit tests (tests/unit: fast, no whole simulations) and model tests
# (tests/model: whole simulations against closed forms and incidents)
define test_bin_rule
$$(BUILD)/tests/$(1)/%: tests/$(1)/%.c $$(LIB) $$(TESTLIB_OBJS)
	$$(say) CC $$<
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(ALL_CFLAGS) $$(if $$(LTO),-fno-lto) $$(TEST_CFLAGS) -Itests/support $$(ALL_LDFLAGS) -o $$@ $$< \
	    $$(TESTLIB_OBJS) $$(LIB) $$(TEST_LIBS) $$(ALL_LIBS)
endef
$(eval $(call test_bin_rule,unit))
$(eval $(call test_bin_rule,model))

# the fuzz harnesses without libFuzzer: replay their corpus and crash
# reproducers in `make test` (tests/fuzz/driver.c prints TAP)
$(BUILD)/tests/unit/test_fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(LIB)
	$(say) CC $<
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(if $(LTO),-fno-lto) $(ALL_LDFLAGS) -DFUZZ_NAME='"$*"' -o $@ tests/fuzz/driver.c $< \
	    $(LIB) $(ALL_LIBS)

# the harnesses with libFuzzer (make fuzz; BUILD=build/fuzz, CC=clang)
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB)
	$(say) CC $<
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer,address,undefined $(ALL_LDFLAGS) -o $@ $< \
	    $(LIB) $(ALL_LIBS)

$(BUILD)/bench/%: tests/bench/%.c $(LIB)
	$(say) CC $<
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(ALL_LIBS)

unit-bins: $(UNIT_BINS) $(FUZZ_REPLAY)
model-bins: $(MODEL_BINS)

# --- tests ----------------------------------------------------------------
# `test` re-enters make after `deps` so pkg-config sees freshly installed packages.
test: deps
	@$(MAKE) --no-print-directory test-run

test-run: $(BIN) $(UNIT_BINS) $(FUZZ_REPLAY) $(MODEL_BINS)
	@sh tests/run.sh --bin $(BIN) --unit $(BUILD)/tests/unit --unit $(BUILD)/tests/model $(TESTS)

asan: deps
	@$(MAKE) --no-print-directory BUILD=build/asan BIN=build/asan/ringsim LTO= \
	    OPT=-O1 SAN='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' \
	    RINGSIM_SANITIZED=1 test-run

# ThreadSanitizer over what runs two threads (the helper that draws ahead,
# sim/ahead.c): its unit tests, the model tests that compare runs with and
# without it, and the interruption tests. A race fails.
tsan: deps
	@TSAN_OPTIONS='halt_on_error=1 abort_on_error=1' $(MAKE) --no-print-directory \
	    BUILD=build/tsan BIN=build/tsan/ringsim LTO= OPT=-O1 \
	    SAN='-fsanitize=thread -fno-omit-frame-pointer' RINGSIM_SANITIZED=1 tsan-run

TSAN_TESTS := test_ahead test_helper test_interrupt
tsan-run: $(BIN) $(BUILD)/tests/unit/test_ahead $(BUILD)/tests/model/test_helper \
          $(BUILD)/tests/model/test_interrupt
	@sh tests/run.sh --bin $(BIN) --unit $(BUILD)/tests/unit --unit $(BUILD)/tests/model \
	    $(TSAN_TESTS)

# Under valgrind memcheck: every unit test (tests/unit holds no whole
# simulations), and the check and ring command-line tests through a
# valgrind wrapper. The model tests and the other command-line tests run
# whole simulations, fifty times slower under valgrind: `make asan` covers
# them. VALGRIND_CLI picks other command-line test files by name.
VG = valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
VALGRIND_CLI ?= check.sh ring.sh
valgrind: deps
	@$(MAKE) --no-print-directory BUILD=build/valgrind BIN=build/valgrind/ringsim OPT=-O1 LTO= \
	    build/valgrind/ringsim unit-bins
	@printf '#!/bin/sh\nexec %s "%s/build/valgrind/ringsim" "$$@"\n' '$(VG)' "$$(pwd)" \
	    >build/valgrind/ringsim-vg && chmod +x build/valgrind/ringsim-vg
	@sh tests/run.sh --bin build/valgrind/ringsim-vg --unit build/valgrind/tests/unit \
	    --wrap '$(VG)' --cli-files '$(VALGRIND_CLI)'

# libFuzzer, with ASan and UBSan: each harness of tests/fuzz/ for
# FUZZ_SECONDS (default 60) from its seed corpus; a crash is saved under
# build/fuzz/crashes/ and fails the target (copy it into
# tests/fuzz/regress/NAME/ with the fix: `make test` replays it).
fuzz-bins: $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

fuzz:
	@RINGSIM_EXTRA_PKGS="clang libclang-rt-14-dev" sh tests/deps.sh
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang OPT=-O1 LTO= \
	    SAN='-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all' fuzz-bins
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

noopt:
	@$(MAKE) --no-print-directory OPT=-O0 LTO=

bench: deps
	@$(MAKE) --no-print-directory $(BIN) $(BENCH_BINS)
	@sh tests/bench/run.sh --bin $(BIN) --bench $(BUILD)/bench

# --- demo -----------------------------------------------------------------
demo: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh tests/demo.sh $(BIN)

# --- docs -----------------------------------------------------------------
# Rewrites, from the code, the parts of the documentation between their
# <!-- NAME:begin --> and <!-- NAME:end --> markers, and nothing else: the
# scenario schema (scenarios/README.md), the results database reference
# (output/README.md) and every --help (sim/cli/README.md). The tests fail
# while a committed part differs from what this writes.
docs: $(BIN)
	@sh tests/docs/docs.sh --bin $(BIN) write

# --- install --------------------------------------------------------------
install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/plots $(DESTDIR)$(DATADIR)/scenarios
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/ringsim
	install -m 644 plots/*.gp $(DESTDIR)$(DATADIR)/plots/
	cp -R scenarios/. $(DESTDIR)$(DATADIR)/scenarios/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ringsim
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build ringsim

-include $(shell find build -name '*.d' 2>/dev/null)

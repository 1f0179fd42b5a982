#!/bin/sh
# The build's check of the libraries (make check-deps, which every object
# waits for): with all of them present it passes silently; with one
# missing it fails, names it, and says to run `make deps`, before any
# compiler error about a missing header.
. "$(dirname "$0")/lib.sh"

if ! command -v make >/dev/null 2>&1 || [ ! -f Makefile ]; then
    echo "ok 1 # SKIP no make or no Makefile here"
    echo "1..1"
    exit 0
fi

# a make of its own, not a part of the make running the tests
unset MAKEFLAGS MFLAGS MAKELEVEL

expect_exit 0 "check-deps passes with the libraries installed" make -s --no-print-directory check-deps
expect_eq "$(cat "$T/err")" "" "check-deps says nothing when all is there"

expect_exit 2 "check-deps fails when a library is missing" \
    make -s --no-print-directory check-deps PKGS="gsl ringsim-no-such-library"
expect_match "missing the development files of: ringsim-no-such-library$" "$T/err" \
    "it names the missing library, and only it"
expect_match "run 'make deps'" "$T/err" "it says how to install what is missing"

# an object's build waits for the check: nothing is compiled without the libraries
expect_exit 2 "building refuses before compiling" \
    make -s --no-print-directory BUILD="$T/build" PKGS="ringsim-no-such-library" "$T/build/sim/util.o"
ok "$([ ! -e "$T/build/sim/util.o" ]; echo $?)" "no object was written"
expect_match "make deps" "$T/err" "the refusal says to run make deps"

finish

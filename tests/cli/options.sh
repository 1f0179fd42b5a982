#!/bin/sh
# The option syntax every subcommand shares (sim/cli/README.md, "Conventions"):
# an option that takes no value, given one (--force=1), is refused as such, not
# as an unknown option.
. "$(dirname "$0")/lib.sh"
S=tests/data/minimal.yaml
printf 'x\n' >"$T/x.db"

# no_value NAME REGEX CMD...: exit 2, and the message names the option
no_value() {
    what=$1 re=$2
    shift 2
    expect_exit 2 "$what: exit 2" "$RINGSIM" "$@"
    expect_match "$re" "$T/err" "$what: says it takes no value"
}

# --- an option without a value, given one -------------------------------------------
for f in --force --quiet --no-progress --help --metrics; do
    no_value "run $f=1" "^ringsim run: $f takes no value, got $f=1; write $f alone$" run "$S" "$f=1"
done
for f in --force --quiet --no-progress --list --help; do
    no_value "sweep $f=1" "^ringsim sweep: $f takes no value, got $f=1; write $f alone$" \
        sweep "$S" --seeds 2 -o "$T/s.db" "$f=1"
done
for f in --force --schema --help; do
    no_value "check $f=1" "^ringsim check: $f takes no value, got $f=1; write $f alone$" check "$S" "$f=1"
done
for f in --csv --json --help; do
    no_value "report $f=1" "^ringsim report: $f takes no value, got $f=1; write $f alone$" report "$T/x.db" "$f=1"
done
for f in --sweep --help; do
    no_value "plot $f=1" "^ringsim plot: $f takes no value, got $f=1; write $f alone$" plot "$T/x.db" "$f=1"
done
for f in --json --help; do
    no_value "ring $f=1" "^ringsim ring: $f takes no value, got $f=1; write $f alone$" ring "$f=1"
done
no_value "merge --help=1" "^ringsim merge: --help takes no value, got --help=1; write --help alone$" \
    merge "$T/out.db" "$T/x.db" --help=1
no_value "run --force= (empty)" "^ringsim run: --force takes no value" run "$S" --force=
expect_exit 2 "run --list=1 (a sweep option): unknown to run" "$RINGSIM" run "$S" --list=1
expect_match "^ringsim run: unknown option --list=1" "$T/err" "run --list=1: says unknown"
finish

#!/bin/sh
# The option syntax every subcommand shares (sim/cli/README.md, "Conventions"):
# an option that takes no value, given one (--force=1), is refused as such, not
# as an unknown option; an empty value for an option that takes one is refused,
# naming the option (exit 2); "--" ends the options of every command that takes files.
. "$(dirname "$0")/lib.sh"
S=tests/data/minimal.yaml
export RINGSIM_PLOTS="${RINGSIM_TOP:-$(pwd)}/plots"
printf 'x\n' >"$T/x.db"
"$RINGSIM" run "$S" -o "$T/r.db" --quiet

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

# --- a missing value: the same message in every subcommand ---------------------------
# (plot said "missing value after --by", check "missing value after --set")
expect_exit 2 "run --seed (no value)" "$RINGSIM" run "$S" --seed
expect_match '^ringsim run: --seed needs a value$' "$T/err" "run: names the option"
expect_exit 2 "sweep --vary (no value)" "$RINGSIM" sweep "$S" --vary
expect_match '^ringsim sweep: --vary needs a value$' "$T/err" "sweep: names the option"
for o in --set --seed; do
    expect_exit 2 "check $o (no value)" "$RINGSIM" check "$S" "$o"
    expect_match "^ringsim check: $o needs a value$" "$T/err" "check $o: names the option"
done
for o in --by --metric --baseline; do
    expect_exit 2 "report $o (no value)" "$RINGSIM" report "$T/r.db" "$o"
    expect_match "^ringsim report: $o needs a value$" "$T/err" "report $o: names the option"
done
for o in --run -d --dir --format --by --metric; do
    expect_exit 2 "plot $o (no value)" "$RINGSIM" plot "$T/r.db" "$o"
    expect_match "^ringsim plot: $o needs a value$" "$T/err" "plot $o: names the option"
done
expect_exit 2 "ring --count (no value)" "$RINGSIM" ring --count
expect_match '^ringsim ring: --count needs a value$' "$T/err" "ring: names the option"
# --NAME=VALUE for every long option of plot and check
expect_exit 0 "check --set=PATH=VALUE --seed=N" "$RINGSIM" check "$S" --set=routing.vnodes=8 --seed=3
expect_exit 2 "plot -d=DIR: a short option takes its value as the next argument" \
    "$RINGSIM" plot "$T/r.db" -d="$T/p"
expect_match '^ringsim plot: unknown option -d=' "$T/err" "plot -d=DIR: unknown option"

# --- sweep --list: each command is the sweep without --list, -o and -j, in any form ---
expect_exit 0 "sweep --list with -o, --output=, -j, --jobs=" "$RINGSIM" sweep "$S" --seeds 2 \
    -o "$T/a.db" --output="$T/l.db" -j 2 --jobs=3 --list --threads 1 --metric=hit_rate
expect_eq "$(sed -n 1p "$T/out")" "0 $RINGSIM sweep $S --seeds 2 --threads 1 --metric=hit_rate --shard 0/2 -o $T/l.db.part-0" \
    "the command keeps the other options as given and drops -o, --output, -j, --jobs and --list"

# --- "--": the end of the options ------------------------------------------------------
# (every command refused it as an unknown option, so a file whose name starts with -
# could not be named at all but as ./-x)
mkdir "$T/d"
cp "$S" "$T/d/-m.yaml"
cp "$T/r.db" "$T/d/-r.db"
top=$(pwd)
cd "$T/d" || exit 1
expect_exit 0 "run -o x.db -- -m.yaml" "$RINGSIM" run --quiet -o x.db -- -m.yaml
expect_eq "$(sqlite3 x.db 'SELECT count(*) FROM runs')" 1 "run --: the scenario after it ran"
expect_exit 2 "run -- x -o y: after --, -o is a second file" "$RINGSIM" run -- -m.yaml -o y.db
expect_match '^ringsim run: one scenario at a time \(got -m.yaml and -o\)' "$T/err" \
    "run --: says so"
expect_exit 0 "check -- -m.yaml" "$RINGSIM" check -- -m.yaml
expect_match '^ok: ' "$T/out" "check --: ok"
expect_exit 2 "check -m.yaml without --" "$RINGSIM" check -m.yaml
expect_match '^ringsim check: unknown option -m.yaml' "$T/err" "an option without --"
expect_exit 0 "report --metric hit_rate --csv -- -r.db" "$RINGSIM" report --metric hit_rate \
    --csv -- -r.db
expect_match '^minimal,1,hit_rate,' "$T/out" "report --: the database after it"
if command -v gnuplot >/dev/null 2>&1; then
    expect_exit 0 "plot -d p -- -r.db" "$RINGSIM" plot -d p -- -r.db
    [ -f p/index.html ]; ok $? "plot --: drawn"
else
    _n=$((_n + 1)); echo "ok $_n - plot -- # SKIP gnuplot is not installed"
fi
expect_exit 0 "merge -- -all.db -r.db x.db" "$RINGSIM" merge -- -all.db -r.db x.db
expect_eq "$(sqlite3 ./-all.db 'SELECT count(*) FROM runs')" 2 "merge --: both merged"
expect_exit 2 "merge -all.db without --" "$RINGSIM" merge -all.db x.db
expect_exit 0 "sweep --seeds 2 -j 2 -o -s.db -- -m.yaml" "$RINGSIM" sweep --seeds 2 -j 2 \
    -o -s.db --no-progress -- -m.yaml
expect_eq "$(sqlite3 ./-s.db 'SELECT count(*) FROM runs')" 2 "sweep --: both seeds"
# --list: "--" and the scenario after the options each command adds
expect_exit 0 "sweep --list -- -m.yaml" "$RINGSIM" sweep --seeds 2 -o l.db --list -- -m.yaml
expect_eq "$(sed -n 2p "$T/out")" "1 $RINGSIM sweep --seeds 2 --shard 1/2 -o l.db.part-1 -- -m.yaml" \
    "sweep --list: -- and the scenario last"
cut -d' ' -f2- "$T/out" | sh >/dev/null 2>&1
ok $? "the listed commands run"
expect_exit 0 "merge the parts" "$RINGSIM" merge l.db l.db.part-0 l.db.part-1
# a second "--" is a file name
expect_exit 2 "run -- -- (a file named --)" "$RINGSIM" run -- --
expect_match '^--: ' "$T/err" "run -- --: the file -- is read"
cd "$top" || exit 1

# --- an empty value for an option that takes one -------------------------------------
# empty EXPECTED CMD...: exit 2, and the message names the option ($4 onward is argv)
empty() {
    re=$1
    shift
    expect_exit 2 "$* (an empty value): exit 2" "$RINGSIM" "$@"
    expect_match "$re" "$T/err" "$*: names the option"
}
for o in -o --output --set --seed --threads; do
    empty "^ringsim run: $o needs a value, got \"\"$" run "$S" "$o" ""
done
empty '^ringsim run: --seed needs a value, got ""$' run "$S" --seed=
empty '^ringsim run: --output needs a value, got ""$' run "$S" --output=
for o in -o --vary --seeds -j --jobs --shard --metric; do
    empty "^ringsim sweep: $o needs a value, got \"\"$" sweep "$S" --seeds 2 "$o" ""
done
empty '^ringsim sweep: --vary needs a value, got ""$' sweep "$S" --vary= -o "$T/s.db"
for o in --set --seed; do
    empty "^ringsim check: $o needs a value, got \"\"$" check "$S" "$o" ""
    empty "^ringsim check: $o needs a value, got \"\"$" check "$S" "$o="
done
for o in --by --metric --baseline; do
    empty "^ringsim report: $o needs a value, got \"\"$" report "$T/x.db" "$o" ""
    empty "^ringsim report: $o needs a value, got \"\"$" report "$T/x.db" "$o="
done
# of a real database: --by= was taken as a path and refused later as one no run has
empty '^ringsim report: --by needs a value, got ""$' report "$T/r.db" --by=
for o in --run -d --dir --format --by --metric; do
    empty "^ringsim plot: $o needs a value, got \"\"$" plot "$T/x.db" "$o" ""
done
for o in --run --dir --format --by --metric; do
    empty "^ringsim plot: $o needs a value, got \"\"$" plot "$T/x.db" "$o="
done
for o in --algo --hash --vnodes --nodes --to --keys --start --count --weights --load-factor \
    --point-format --node-key --table-size --keys-file; do
    empty "^ringsim ring: $o:? " ring "$o="
done
# a bad --seed is named as the user wrote it, not as the --set it stands for
for c in run check; do
    expect_exit 2 "$c --seed abc" "$RINGSIM" $c "$S" --seed abc
    expect_match '^--seed abc: seed: expected a non-negative integer, got "abc"$' "$T/err" \
        "$c: the message names --seed abc"
done
expect_exit 2 "run --set seed=abc" "$RINGSIM" run "$S" --set seed=abc
expect_match '^--set seed=abc: seed: ' "$T/err" "--set seed=abc stays --set"
# the one exception: --key '' is the empty key, a key like any other
expect_exit 0 "ring --key '' looks up the empty key" "$RINGSIM" ring --key '' --count 10 --json
finish

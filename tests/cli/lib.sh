# lib.sh — TAP helpers for the command-line tests (sourced by tests/cli/*.sh).
#
#   ok COND_STATUS "name"            # ok if the status is 0
#   expect_exit CODE "name" cmd...   # runs cmd, checks its exit code
#   expect_match REGEX FILE "name"   # grep -E REGEX FILE
#   expect_eq GOT WANT "name"
#   finish                           # prints the plan; exit status = failures
# $RINGSIM is the binary under test; $T a scratch directory removed at exit.
set -u
RINGSIM=${RINGSIM:-./ringsim}
T=$(mktemp -d "${TMPDIR:-/tmp}/ringsim-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
_n=0
_fail=0

ok() {
    _n=$((_n + 1))
    if [ "$1" = 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _fail=$((_fail + 1)); fi
}

# expect_exit CODE NAME CMD... — output goes to $T/out and $T/err
expect_exit() {
    want=$1 name=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" = "$want" ]; then
        ok 0 "$name"
    else
        ok 1 "$name (exit $got, wanted $want)"
        sed 's/^/#   out: /' "$T/out" | head -10 | cut -c 1-300
        sed 's/^/#   err: /' "$T/err" | head -10 | cut -c 1-300
    fi
}

expect_match() {
    if grep -Eq -- "$1" "$2"; then
        ok 0 "$3"
    else
        ok 1 "$3 (no /$1/ in $2)"
        sed 's/^/#   /' "$2" | head -10 | cut -c 1-300
    fi
}

expect_eq() {
    if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3 (got '$1', wanted '$2')"; fi
}

finish() {
    echo "1..$_n"
    [ $_fail = 0 ]
}

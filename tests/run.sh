#!/bin/sh
# The one test runner: every unit-test binary (cmocka, TAP output) and every
# command-line test script (tests/cli/*.sh, TAP output). Counts each test case
# and ends with the line CI reads:  N passed, N failed
#
#   sh tests/run.sh --bin ./ringsim --unit DIR [--unit DIR]... [--wrap CMD]
#                   [--unit-only] [--cli-only] [--cli-files "a.sh b.sh"] [-j N] [PATTERN...]
# --unit names a folder of test binaries (unit tests, model tests; files of
# the same name in two folders are two files, each with its own results); a
# PATTERN selects files whose name contains it; --cli-files names the
# command-line test files to run (default: all; a name or a path). -j N runs
# N files at once (default 2, or $RINGSIM_TEST_JOBS), the longest first, a
# new one as soon as one ends. Selecting nothing is an error (exit 2), not a
# pass.
# One file, e.g.:
#   sh tests/run.sh --bin ./ringsim --cli-only --cli-files ring.sh
#   sh tests/run.sh --unit build/release/tests/model --unit-only test_health
set -u
# (internal) one file, run by the pool below: --one "INDEX KIND PATH"
if [ "${1:-}" = --one ]; then
    idx=${2%% *} rest=${2#* }
    kind=${rest%% *} path=${rest#* }
    name=$idx-$(basename "$path")
    (
        cd "$RUN_TOP" || exit 1
        if [ "$kind" = unit ]; then
            CMOCKA_MESSAGE_OUTPUT=TAP $RUN_WRAP "$path"
        else
            sh "$path"
        fi
    ) >"$RUN_OUT/$name.tap" 2>&1
    echo $? >"$RUN_OUT/$name.rc"
    exit 0
fi
bin=./ringsim units="" cli_files="" wrap="" unit_only=0 cli_only=0 jobs=${RINGSIM_TEST_JOBS:-2}
pats=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --unit) units="$units $2"; shift 2 ;;
        --cli-files) cli_files=$2; shift 2 ;;
        --wrap) wrap=$2; shift 2 ;;
        --unit-only) unit_only=1; shift ;;
        --cli-only) cli_only=1; shift ;;
        -j) jobs=$2; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) pats="$pats $1"; shift ;;
    esac
done
case "$jobs" in
    ''|*[!0-9]*|0)
        echo "tests/run.sh: -j (or RINGSIM_TEST_JOBS): expected a positive number of files at once, got \"$jobs\"" >&2
        exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
case "$bin" in /*) ;; *) bin="$top/${bin#./}" ;; esac
[ -n "$units" ] || units=build/release/tests/unit
export RINGSIM="$bin" RINGSIM_TOP="$top"
out=$(mktemp -d "${TMPDIR:-/tmp}/ringsim-test.XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM

selected() {
    [ -z "$pats" ] && return 0
    for p in $pats; do case "$1" in *"$p"*) return 0 ;; esac; done
    return 1
}

list="$out/list"
: >"$list"
if [ $cli_only = 0 ]; then
    for unit in $units; do
        case "$unit" in /*) ;; *) unit="$top/$unit" ;; esac
        for t in "$unit"/test_*; do
            [ -x "$t" ] || continue
            case "$t" in *.d|*.o) continue ;; esac
            selected "$(basename "$t")" && echo "unit $t" >>"$list"
        done
    done
fi
if [ $unit_only = 0 ]; then
    names=""
    for f in $cli_files; do
        b=$(basename "$f")
        if [ ! -f "$here/cli/$b" ] || [ "$b" = lib.sh ]; then
            echo "tests/run.sh: --cli-files: no test file $b in tests/cli" >&2
            exit 2
        fi
        names="$names $b"
    done
    for t in "$here"/cli/*.sh; do
        [ -f "$t" ] || continue
        [ "$(basename "$t")" = lib.sh ] && continue
        if [ -n "$cli_files" ]; then
            case " $names " in *" $(basename "$t") "*) ;; *) continue ;; esac
        fi
        selected "$(basename "$t")" && echo "cli $t" >>"$list"
    done
fi
if [ ! -s "$list" ]; then
    echo "tests/run.sh: no test file selected (patterns:${pats:- none}; see --help)" >&2
    exit 2
fi

# A pool of $jobs runners: a file starts as soon as one finishes. The
# longest files start first (so the pool ends together; measured, with and
# without the sanitizers), then the other command-line files, then the rest.
# A name missing here only costs time. Each file's TAP goes to
# $out/<I>-<name>.tap and its exit code to .rc, I its line in the list (two
# --unit folders may hold files of the same name).
long="test_migration test_incidents test_transitions test_bounded run.sh test_health
      test_replicas test_mechanisms ring.sh test_models test_engine"
awk -v long="$long" 'BEGIN { n = split(long, a, /[ \n]+/); for (i = 1; i <= n; i++) r[a[i]] = i }
    { f = $0; sub(/.*\//, "", f); k = (f in r) ? r[f] : (/^cli / ? 100 : 200)
      printf "%d\t%d\t%d %s\n", k, NR, NR, $0 }' "$list" | sort -n -k1,1 -k2,2 | cut -f3- >"$out/order"
RUN_TOP=$top RUN_OUT=$out RUN_WRAP=$wrap \
    xargs -d '\n' -P "$jobs" -n 1 sh "$here/run.sh" --one <"$out/order"

passed=0 failed=0 idx=0
while read -r kind path; do
    idx=$((idx + 1))
    name=$(basename "$path")
    log="$out/$idx-$name.tap" rc=$(cat "$out/$idx-$name.rc" 2>/dev/null || echo 99)
    [ -f "$log" ] || echo "not ok - $name did not run (its runner stopped before it)" >"$log"
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        f=1   # crashed or exited non-zero without reporting a failure
        echo "not ok - $name exited with status $rc" >>"$log"
    fi
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$f" = 0 ]; then
        printf '%-34s %4d passed\n' "$name" "$p"
    else
        printf '%-34s %4d passed, %d FAILED\n' "$name" "$p" "$f"
        grep -v '^ok ' "$log" | sed 's/^/    /' | head -60
    fi
done <"$list"
echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

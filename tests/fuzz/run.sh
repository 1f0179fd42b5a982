#!/bin/sh
# Runs each libFuzzer harness (build/fuzz/fuzz/fuzz_NAME) for SECONDS from its
# seed corpus (tests/fuzz/corpus/NAME, never written) and a working corpus
# (build/fuzz/corpus/NAME), then prints its executions and coverage. A
# crash is saved as build/fuzz/crashes/NAME-*; the script then fails.
#
#   sh tests/fuzz/run.sh SECONDS NAME...
set -u
secs=$1
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rc=0
for name in "$@"; do
    bin=build/fuzz/fuzz/fuzz_$name
    work=build/fuzz/corpus/$name
    crashes=build/fuzz/crashes
    mkdir -p "$work" "$crashes"
    log=build/fuzz/$name.log
    echo "fuzz $name: ${secs}s from tests/fuzz/corpus/$name ($(ls tests/fuzz/corpus/$name | wc -l) seeds)"
    "$bin" -max_total_time="$secs" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$crashes/$name-" -print_final_stats=1 \
        "$work" "tests/fuzz/corpus/$name" >"$log" 2>&1
    st=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
    ft=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')
    corp=$(ls "$work" | wc -l)
    if [ "$st" = 0 ]; then
        echo "fuzz $name: ok: ${execs:-?} executions, coverage ${cov:-?} edges (${ft:-?} features), corpus $corp"
    else
        rc=1
        echo "fuzz $name: FAILED (exit $st) after ${execs:-?} executions; the input and the report:"
        ls "$crashes"/"$name"-* 2>/dev/null | sed 's/^/  /'
        grep -E 'ERROR|SUMMARY|runtime error|abort|failed' "$log" | head -20 | sed 's/^/  /'
        echo "  (full log: $log; add the input to tests/fuzz/regress/$name/ with the fix)"
    fi
done
exit $rc

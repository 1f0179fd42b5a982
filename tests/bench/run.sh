#!/bin/sh
# The `make bench` driver: prints figures, never pass/fail.
#
#   sh tests/bench/run.sh --bin ./ringsim --bench build/release/bench [SECTION...]
#
# Sections run in the order of $sections below; name some to run only those.
# To add one: write a function section_NAME that prints its own heading, and
# add NAME to $sections. A section that lacks what it needs says so and is
# skipped; the driver fails only when a benchmark itself fails.
set -u
bin=./ringsim bench=build/release/bench only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --bench) bench=$2; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) only="$only $1"; shift ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 1
sections="placement ring_cli sim"
status=0

heading() {
    echo
    echo "== $1 =="
}

# seconds since the epoch with fractions (date +%s.%N on GNU systems)
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# --- placement: every benchmark binary in $bench (bench_place, bench_hash, ...)
section_placement() {
    heading "placement (tests/bench/*.c)"
    found=0
    for b in "$bench"/bench_*; do
        [ -x "$b" ] || continue
        found=1
        echo
        echo "-- $(basename "$b")"
        "$b" || { echo "bench: $(basename "$b") failed" >&2; status=1; }
    done
    [ $found = 1 ] || echo "skipped: no benchmark binaries in $bench"
}

# --- ring_cli: the static analysis at scale (target: under 3 s)
section_ring_cli() {
    heading "ringsim ring: 1,000,000 keys, 10 -> 11 nodes, 1000 vnodes, xxh64"
    if [ ! -x "$bin" ]; then
        echo "skipped: $bin is not built"
        return
    fi
    ten=n1,n2,n3,n4,n5,n6,n7,n8,n9,n10
    t0=$(now)
    if "$bin" ring --count 1000000 --vnodes 1000 --hash xxh64 --nodes "$ten" \
        --to "$ten,n11" --json >"${TMPDIR:-/tmp}/ringsim-bench-ring.$$"; then
        t1=$(now)
        echo "wall time: $(elapsed "$t0" "$t1") s"
        sed -n 's/.*"moved":\([0-9]*\).*"moved_fraction":\([0-9.e-]*\).*/keys moved: \1 (fraction \2)/p' \
            "${TMPDIR:-/tmp}/ringsim-bench-ring.$$"
    else
        echo "bench: ringsim ring failed" >&2
        status=1
    fi
    rm -f "${TMPDIR:-/tmp}/ringsim-bench-ring.$$"
}

# --- sim: whole-simulation speed (needs scenarios/bench.yaml)
# --- sim: scenarios/bench.yaml (60 M requests; targets: >= 3 M simulated
# requests/s on one thread, <= 1 GiB peak memory). ringsim itself reports
# requests per wall second and its peak resident memory (getrusage).
section_sim() {
    heading "simulation: scenarios/bench.yaml (1M keys, Zipf 0.99, 10 nodes, 100k QPS, 600 s)"
    if [ ! -f scenarios/bench.yaml ]; then
        echo "skipped: scenarios/bench.yaml does not exist"
        return
    fi
    out="${TMPDIR:-/tmp}/ringsim-bench-sim.$$.db"
    log="${TMPDIR:-/tmp}/ringsim-bench-sim.$$.log"
    t0=$(now)
    if "$bin" run scenarios/bench.yaml -o "$out" --no-progress >"$log" 2>&1; then
        echo "wall time: $(elapsed "$t0" "$(now)") s (including setup and writing the database)"
        sed -n 's/^ringsim: \([0-9]*\) requests in \([0-9.]*\) s wall (\([0-9.]*\) M simulated requests\/s), peak memory \(.*\)$/simulated requests: \1\nsimulated requests per second: \3 M\npeak memory: \4/p' "$log"
        grep -E "hit rate|peak db" "$log" | sed 's/^ */result: /'
    else
        cat "$log" >&2
        echo "bench: ringsim run scenarios/bench.yaml failed" >&2
        status=1
    fi
    rm -f "$out" "$log"
}

for s in $sections; do
    if [ -n "$only" ]; then
        case " $only " in *" $s "*) ;; *) continue ;; esac
    fi
    "section_$s"
done
exit $status

#!/bin/sh
# The `make bench` driver: prints figures, never pass/fail.
#
#   sh tests/bench/run.sh --bin ./ringsim --bench build/release/bench [SECTION...]
#
# Sections: placement, ring_cli, sim, instructions, trace (the instructions
# section needs valgrind; the trace section a few GB free in TMPDIR for its
# 1.4 GB trace and the replay's temporary file). With CACHESIM=/path/to/cachesim
# (libCacheSim's simulator, built from its sources; or `cachesim` on the
# PATH) the sim section also runs libCacheSim's LRU after each simulation run
# and prints the simulation's speed over it.
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
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) only="$only $1"; shift ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 1
sections="placement ring_cli sim instructions trace"
status=0

heading() {
    echo
    echo "== $1 =="
}

# seconds since the epoch with fractions (date +%s.%N on GNU systems)
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# ratio A B DIGITS: A / B with that many decimals
ratio() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { printf "%." d "f", a / b }'; }

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
# --- sim: scenarios/bench.yaml (60 M requests; targets: >= 0.25 of the bare
# LRU's requests per second measured right after it, <= 1 GiB peak memory).
# ringsim itself reports requests per wall second and its peak resident
# memory (getrusage).
section_sim() {
    heading "simulation: scenarios/bench.yaml (1M keys, Zipf 0.99, 10 nodes, 100k QPS, 600 s)"
    if [ ! -f scenarios/bench.yaml ]; then
        echo "skipped: scenarios/bench.yaml does not exist"
        return
    fi
    sim_rate_1="" sim_rate_2="" sim_requests="" lru_rates="" cs_rate_1="" cs_rate_2=""
    min_rate_1="" min_rate_2=""
    cachesim_setup
    for threads in 1 2; do
        echo
        if [ $threads = 1 ]; then
            echo "-- --threads 1: everything on one thread"
        else
            echo "-- --threads 2: a helper thread draws the random streams ahead (sim/ahead.h)"
        fi
        sim_once $threads || { cachesim_cleanup; return; }
        eval "sim_rate_$threads=\$sim_rate sim_cpu_rate_$threads=\$sim_cpu_rate"
        lru_rate=""
        bare_lru "$sim_requests"
        eval "lru_rate_$threads=\$lru_rate"
        min_rate=""
        minimal_model "$sim_requests"
        eval "min_rate_$threads=\$min_rate"
        cs_rate=""
        cachesim_once
        eval "cs_rate_$threads=\$cs_rate"
    done
    echo
    bare_lru_ratios
    cachesim_cleanup
}

# sim_once THREADS: one run of the bench; sets sim_rate and sim_requests.
sim_once() {
    out="${TMPDIR:-/tmp}/ringsim-bench-sim.$$.db"
    log="${TMPDIR:-/tmp}/ringsim-bench-sim.$$.log"
    t0=$(now)
    sim_rate="" sim_cpu_rate=""
    if cpu_time "$log.cpu" "$bin" run scenarios/bench.yaml -o "$out" --no-progress \
        --threads "$1" >"$log" 2>&1; then
        echo "wall time: $(elapsed "$t0" "$(now)") s (including setup and writing the database)"
        sim_rate=$(rate_of "$log")
        sim_requests=$(sed -n 's/^ringsim: \([0-9]*\) requests in.*/\1/p' "$log")
        sim_cpu_rate=$(cpu_rate "$log" "$log.cpu")
        [ -n "$sim_cpu_rate" ] && echo "simulated requests per CPU second: $sim_cpu_rate M"
        sed -n 's/^ringsim: \([0-9]*\) requests in \([0-9.]*\) s wall (\([0-9.]*\) M simulated requests\/s), peak memory \(.*\)$/simulated requests: \1\nsimulated requests per second: \3 M\npeak memory: \4/p' "$log"
        grep -E "hit rate|peak db" "$log" | sed 's/^ */result: /'
        rm -f "$out" "$log" "$log.cpu"
        return 0
    fi
    cat "$log" >&2
    echo "bench: ringsim run scenarios/bench.yaml --threads $1 failed" >&2
    status=1
    rm -f "$out" "$log" "$log.cpu"
    return 1
}

# bare_lru N: the yardstick, right after each simulation run (the same
# machine in the same state: a shared machine's speed drifts over minutes,
# so each run gets its own): an exact bare LRU (tests/bench/lru_ref.c)
# replaying N requests of a Zipf 0.99 trace over 1 M objects with 100,000
# items. Sets lru_rate.
bare_lru() {
    if [ ! -x "$bench/lru_ref" ] || [ -z "$1" ]; then
        echo "bare LRU: skipped (needs $bench/lru_ref and the simulation's figure)"
        return
    fi
    lru_log="${TMPDIR:-/tmp}/ringsim-bench-lru.$$.log"
    if "$bench/lru_ref" "$1" 1000000 0.99 100000 >"$lru_log" 2>&1; then
        lru_rate=$(sed -n 's/^bare LRU requests per second: \([0-9.]*\) M.*/\1/p' "$lru_log")
        echo "bare LRU right after it, $1 requests (Zipf 0.99, 1 M objects, 100,000 items):" \
            "$lru_rate M requests per second"
        lru_rates="$lru_rates $lru_rate"
    else
        cat "$lru_log" >&2
        echo "bench: lru_ref failed" >&2
        status=1
    fi
    rm -f "$lru_log"
}

# minimal_model N: the second yardstick, right after the bare LRU: the least
# a simulation of bench.yaml's cluster must do (tests/bench/floor.c: the
# same arrivals, keys, ring, node and database queues, LRUs and fills, and
# nothing else), N requests. Sets min_rate.
minimal_model() {
    if [ ! -x "$bench/floor" ] || [ -z "$1" ]; then
        echo "minimal model: skipped (needs $bench/floor and the simulation's figure)"
        return
    fi
    min_log="${TMPDIR:-/tmp}/ringsim-bench-floor.$$.log"
    if "$bench/floor" "$1" >"$min_log" 2>&1; then
        min_rate=$(sed -n 's/^minimal model requests per second: \([0-9.]*\) M.*/\1/p' "$min_log")
        echo "minimal model of the same cluster right after it (tests/bench/floor.c), $1" \
            "requests: $min_rate M requests per second;" \
            "$(sed -n 's/^minimal model: .*, \(hit rate .*\)$/\1/p' "$min_log")"
    else
        cat "$min_log" >&2
        echo "bench: floor failed" >&2
        status=1
    fi
    rm -f "$min_log"
}

# bare_lru_ratios: each simulation run's speed over the bare LRU's right
# after it, a ratio that moves far less across machines than either figure
# (and over libCacheSim's, with libCacheSim's over the bare LRU's, when
# cachesim ran); and how far the two bare LRU figures lie apart (the
# machine's drift during the bench).
bare_lru_ratios() {
    for threads in 1 2; do
        eval "r=\${sim_rate_$threads:-} l=\${lru_rate_$threads:-} c=\${cs_rate_$threads:-}"
        eval "m=\${min_rate_$threads:-}"
        [ -n "$r" ] || continue
        if [ -n "$l" ]; then
            echo "simulation / bare LRU, --threads $threads:" \
                "$(ratio "$r" "$l" 3) ($r M / $l M requests per second)"
        fi
        if [ -n "$m" ]; then
            line="simulation / minimal model, --threads $threads: $(ratio "$r" "$m" 2)"
            line="$line ($r M / $m M requests per second)"
            [ -n "$l" ] && line="$line; minimal model / bare LRU: $(ratio "$m" "$l" 3)"
            echo "$line"
        fi
        # libCacheSim's LRU right after the bare LRU (cachesim_once), when it ran
        if [ -n "$c" ]; then
            line="simulation / libCacheSim's LRU, --threads $threads: $(ratio "$r" "$c" 2)"
            line="$line ($r M / $c M requests per second)"
            [ -n "$l" ] && line="$line; libCacheSim's LRU / bare LRU: $(ratio "$c" "$l" 3)"
            echo "$line"
        fi
    done
    # shellcheck disable=SC2086 # the list of figures, split on purpose
    set -- $lru_rates
    [ $# = 2 ] && echo "the two bare LRU runs: $1 M and $2 M requests per second" \
        "($(awk -v a="$1" -v b="$2" 'BEGIN { d = a > b ? a / b : b / a; printf "%.0f", (d - 1) * 100 }')%" \
        "apart: the machine's speed drifted that much during the bench)"
}

# cachesim_setup: libCacheSim's own simulator, when there is one: $CACHESIM,
# or `cachesim` on the PATH (libCacheSim is not packaged: build it from its
# sources). It replays an LRU over a trace of the same kind as the bare
# LRU's (gen_trace: Zipf 0.99 over 1 M objects, oracleGeneral, 20 M
# requests), sizes ignored, 100,000 items; the figure is its own
# "throughput" line. Sets cachesim (the binary or ""), cs_dir (its folder,
# removed by cachesim_cleanup) and cs_trace.
cachesim_setup() {
    cachesim=${CACHESIM:-$(command -v cachesim 2>/dev/null || true)}
    cs_trace="" cs_dir=""
    if [ -z "$cachesim" ] || [ ! -x "$cachesim" ]; then
        echo "libCacheSim: not compared (build its cachesim from libCacheSim's sources, then" \
            "make bench CACHESIM=/path/to/cachesim)"
        cachesim=""
        return
    fi
    if [ ! -x "$bench/gen_trace" ]; then
        echo "libCacheSim: not compared (needs $bench/gen_trace for its trace)"
        cachesim=""
        return
    fi
    # its own folder: cachesim writes a results file beside the trace
    if ! cs_dir=$(mktemp -d "${TMPDIR:-/tmp}/ringsim-bench-cachesim.XXXXXX"); then
        echo "libCacheSim: not compared (no temporary folder for its trace)"
        cachesim_cleanup
        return
    fi
    cs_trace="$cs_dir/trace.bin"
    if ! "$bench/gen_trace" "$cs_trace" 20000000 1000000 0.99 100000 >/dev/null; then
        echo "libCacheSim: not compared (gen_trace could not write its trace)"
        cachesim_cleanup
    fi
}

# cachesim_cleanup: removes cachesim_setup's folder; libCacheSim is then not
# compared (cachesim_once does nothing) until the next cachesim_setup.
cachesim_cleanup() {
    if [ -n "$cs_dir" ]; then
        rm -rf "$cs_dir"
    fi
    cachesim="" cs_trace="" cs_dir=""
}

# cachesim_once: libCacheSim's LRU right after a simulation run; sets cs_rate.
# A cachesim that fails or prints no figure is reported, not fatal: it is a
# comparison, not part of ringsim.
cachesim_once() {
    [ -n "$cachesim" ] || return 0
    cs_log="$cs_dir/cachesim.log"
    (cd "$cs_dir" && "$cachesim" "$cs_trace" oracleGeneral lru 100000 \
        --ignore-obj-size=1 --num-thread=1) >"$cs_log" 2>&1
    cs_status=$?
    cs_rate=$(sed -n 's/.*throughput \([0-9.]*\) MQPS.*/\1/p' "$cs_log" | tail -n 1)
    if [ -n "$cs_rate" ]; then
        echo "libCacheSim's cachesim LRU after it, 20 M requests of the same kind (100,000" \
            "items, sizes ignored): $cs_rate M requests per second"
    else
        echo "libCacheSim: $cachesim printed no throughput (exit status $cs_status):" \
            "$(tail -n 1 "$cs_log")"
    fi
}

# --- instructions: what a request costs, counted rather than timed. valgrind's
# cachegrind counts the instructions executed and simulates a fixed cache
# (32 KiB 8-way first level, 8 MiB 16-way last level, 64-byte lines), so these
# figures move by a few tenths of a percent from run to run and not with the
# machine's speed or its neighbours' load: the work a request does.
# Setup is taken out by difference: bench.yaml cut to 12 s minus the same cut
# to 2 s is 1 M requests in steady state; the bare LRU replaying its trace 3
# times minus once is 2 × 200,000 requests of replay alone. Then the
# simulation's functions that execute most per request (cg_diff, cg_annotate).
section_instructions() {
    heading "instructions per request (valgrind cachegrind: counted, not timed)"
    if ! command -v valgrind >/dev/null 2>&1 || ! command -v cg_diff >/dev/null 2>&1 \
        || [ ! -x "$bin" ] || [ ! -x "$bench/lru_ref" ] || [ ! -f scenarios/bench.yaml ]; then
        echo "skipped: needs valgrind (cg_diff, cg_annotate), $bin and $bench/lru_ref"
        return
    fi
    dir=$(mktemp -d "${TMPDIR:-/tmp}/ringsim-bench-cg.XXXXXX") || return
    cg="valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64"
    # cg_run OUT CMD...: CMD under cachegrind, its counts in OUT.cg and its output in OUT.log
    cg_run() {
        out=$1
        shift
        $cg --cachegrind-out-file="$out.cg" "$@" >"$out.log" 2>&1 && return 0
        cat "$out.log" >&2
        echo "bench: $(basename "$1") under cachegrind failed" >&2
        status=1 cg_ok=0
        return 1
    }
    cg_ok=1
    for d in 2 12; do
        sed "s/^duration: .*/duration: ${d}s/" scenarios/bench.yaml >"$dir/b$d.yaml"
        cg_run "$dir/sim$d" "$bin" run "$dir/b$d.yaml" -o "$dir/b$d.db" --no-progress \
            --threads 1 || break
    done
    for r in 1 3; do
        [ $cg_ok = 1 ] || break
        cg_run "$dir/lru$r" "$bench/lru_ref" 200000 1000000 0.99 100000 1 "$r" || break
    done
    have_floor=0
    if [ -x "$bench/floor" ] && [ $cg_ok = 1 ]; then
        have_floor=1
        for r in 1 3; do
            cg_run "$dir/floor$r" "$bench/floor" "${r}000000" || { have_floor=0; break; }
        done
    fi
    if [ $cg_ok = 0 ]; then
        rm -rf "$dir"
        return
    fi
    n2=$(sed -n 's/^ringsim: \([0-9]*\) requests in.*/\1/p' "$dir/sim2.log")
    n12=$(sed -n 's/^ringsim: \([0-9]*\) requests in.*/\1/p' "$dir/sim12.log")
    # per request between two runs: the difference of a cachegrind total / of the requests
    per() { # LOG_A LOG_B REQUESTS WHAT
        awk -v what="$4" -v n="$3" '
            index($0, what) { v = $0; sub(/.*: */, "", v); sub(/ .*/, "", v); gsub(/,/, "", v); x[FILENAME] = v }
            END { for (f in x) if (f == ARGV[1]) a = x[f]; else b = x[f]
                  v = (b - a) / n; printf "%.1f", (v > 0 ? v : 0) }' "$1" "$2"
    }
    sn=$((n12 - n2))
    si=$(per "$dir/sim2.log" "$dir/sim12.log" "$sn" "I   refs:")
    sd=$(per "$dir/sim2.log" "$dir/sim12.log" "$sn" "D1  misses:")
    sl=$(per "$dir/sim2.log" "$dir/sim12.log" "$sn" "LLd misses:")
    li=$(per "$dir/lru1.log" "$dir/lru3.log" 400000 "I   refs:")
    ld=$(per "$dir/lru1.log" "$dir/lru3.log" 400000 "D1  misses:")
    ll=$(per "$dir/lru1.log" "$dir/lru3.log" 400000 "LLd misses:")
    echo "simulation ($sn requests past the first 2 s): $si instructions, $sd first-level and $sl" \
        "last-level data misses a request"
    echo "bare LRU (400,000 requests of replay): $li instructions, $ld first-level and $ll last-level" \
        "data misses a request"
    echo "simulation / bare LRU: $(ratio "$si" "$li" 1) times" \
        "the instructions, $(ratio "$sd" "$ld" 1) times the" \
        "first-level misses"
    if [ $have_floor = 1 ]; then
        mi=$(per "$dir/floor1.log" "$dir/floor3.log" 2000000 "I   refs:")
        md=$(per "$dir/floor1.log" "$dir/floor3.log" 2000000 "D1  misses:")
        ml=$(per "$dir/floor1.log" "$dir/floor3.log" 2000000 "LLd misses:")
        echo "minimal model (tests/bench/floor.c, 2,000,000 requests): $mi instructions, $md" \
            "first-level and $ml last-level data misses a request"
        echo "simulation / minimal model: $(ratio "$si" "$mi" 2) times the instructions;" \
            "minimal model / bare LRU: $(ratio "$mi" "$li" 1) times"
    fi
    echo "where the simulation's instructions go (a request; source file: function, as inlined):"
    cg_diff "$dir/sim2.cg" "$dir/sim12.cg" >"$dir/diff.cg" 2>/dev/null &&
        cg_annotate --auto=no --show=Ir "$dir/diff.cg" 2>/dev/null |
        awk -v n="$sn" -v top="$top/" '
            /^-+$/ { dash++ } dash >= 5 && /^ *[0-9,]+ +\(/ && shown < 12 {
                v = $1; gsub(/,/, "", v); f = $NF; sub(top, "", f); sub(/^\.\//, "", f)
                printf "  %7.1f  %s\n", v / n, f; shown++ }'
    rm -rf "$dir"
}

# --- helpers for the trace section
# cpu_time FILE CMD...: runs CMD; with GNU time, its user + system seconds go to FILE
cpu_time() {
    f=$1
    shift
    if /usr/bin/time -f '%U %S' true >/dev/null 2>&1; then
        /usr/bin/time -o "$f" -f '%U %S' "$@"
    else
        : >"$f"
        "$@"
    fi
}
# M simulated requests per wall second, from ringsim's closing line in LOG
rate_of() {
    sed -n 's/^ringsim: .* (\([0-9.]*\) M simulated requests\/s).*/\1/p' "$1"
}
# M requests per CPU second, from ringsim's line in LOG and cpu_time's FILE
cpu_rate() {
    n=$(sed -n 's/^ringsim: \([0-9]*\) requests in.*/\1/p' "$1")
    [ -s "$2" ] && [ -n "$n" ] && awk -v n="$n" '{ printf "%.2f", n / ($1 + $2) / 1e6 }' "$2"
}
peak_of() {
    sed -n 's/^ringsim: .*peak memory \(.*\)$/\1/p' "$1"
}

# --- trace: the same cluster replaying a trace of the same size (60 M requests
# over 1 M objects, Zipf 0.99, 100,000 a second: libCacheSim's oracleGeneral
# format, written by gen_trace); its speed against the synthetic bench's (run
# here if the sim section did not), and its peak memory against a run of the
# trace's first 20 M requests: what grows is the distinct keys, not the requests.
section_trace() {
    heading "trace replay: 60 M requests over 1 M objects (Zipf 0.99), 10 nodes, as bench.yaml"
    gen=$bench/gen_trace
    if [ ! -x "$gen" ] || [ ! -f scenarios/bench.yaml ]; then
        echo "skipped: needs $gen and scenarios/bench.yaml"
        return
    fi
    dir=$(mktemp -d "${TMPDIR:-/tmp}/ringsim-bench-trace.XXXXXX") || return
    t0=$(now)
    if ! "$gen" "$dir/trace.bin" 60000000 1000000 0.99 100000; then
        echo "bench: gen_trace failed" >&2
        status=1
        rm -rf "$dir"
        return
    fi
    echo "trace written in $(elapsed "$t0" "$(now)") s: $(wc -c <"$dir/trace.bin") bytes"
    head -c 480000000 "$dir/trace.bin" >"$dir/first20m.bin"
    # bench.yaml with the trace instead of the synthetic workload; one second past
    # the trace's 600, so that its end is recorded
    sed -e '/^ *\(keys\|key_format\|popularity\|zipf_s\|qps\|write_ratio\):/d' \
        -e 's/^workload:$/workload:\n  trace: {path: trace.bin}/' -e 's/^duration: .*/duration: 601s/' \
        -e 's/^name: .*/name: bench-trace/' scenarios/bench.yaml >"$dir/trace.yaml"
    sed 's/trace.bin/first20m.bin/' "$dir/trace.yaml" >"$dir/first20m.yaml"
    for run in trace first20m; do
        t0=$(now)
        if ! cpu_time "$dir/$run.cpu" "$bin" run "$dir/$run.yaml" -o "$dir/$run.db" --no-progress \
            --threads 1 >"$dir/$run.log" 2>&1; then
            cat "$dir/$run.log" >&2
            echo "bench: ringsim run of the $run trace failed" >&2
            status=1
            rm -rf "$dir"
            return
        fi
        eval "${run}_wall=\$(elapsed \"\$t0\" \"\$(now)\")"
    done
    echo "replay wall time: $trace_wall s (including the first pass over the trace)"
    grep -E "hit rate  " "$dir/trace.log" | sed 's/^ */result: /'
    trace_rate=$(rate_of "$dir/trace.log")
    trace_cpu_rate=$(cpu_rate "$dir/trace.log" "$dir/trace.cpu")
    # against the synthetic bench on one thread, as both run here
    sim_rate=${sim_rate_1:-} sim_cpu_rate=${sim_cpu_rate_1:-}
    [ -n "$sim_rate" ] || sim_once 1 >/dev/null
    echo "simulated requests per second: trace $trace_rate M, synthetic $sim_rate M" \
        "(trace / synthetic: $(ratio "$trace_rate" "$sim_rate" 2))"
    if [ -n "$trace_cpu_rate" ] && [ -n "${sim_cpu_rate:-}" ]; then
        echo "per CPU second: trace $trace_cpu_rate M, synthetic $sim_cpu_rate M" \
            "(trace / synthetic: $(ratio "$trace_cpu_rate" "$sim_cpu_rate" 2))"
    fi
    for run in first20m trace; do
        keys=$(sqlite3 "$dir/$run.db" "SELECT detail FROM events WHERE kind = 'trace_end'" 2>/dev/null |
            sed -n 's/^\([0-9]*\) requests of \([0-9]*\) keys.*/\1 requests, \2 keys/p')
        echo "peak memory, $run: $(peak_of "$dir/$run.log") (${keys:-?})"
    done
    rm -rf "$dir"
}

for s in $sections; do
    if [ -n "$only" ]; then
        case " $only " in *" $s "*) ;; *) continue ;; esac
    fi
    "section_$s"
done
exit $status

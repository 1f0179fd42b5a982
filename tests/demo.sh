#!/bin/sh
# The demo behind `make demo`: the same scale-out (3 -> 4 cache nodes) on a
# hash ring and under mod-N, recorded into results/demo.db and drawn into
# results/demo/ (open results/demo/index.html). Takes a few seconds; run it
# again at will: it starts from a fresh database each time.
#
#   sh tests/demo.sh [RINGSIM_BINARY]      (default ./ringsim)
set -eu
bin=${1:-./ringsim}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# the chart scripts are found next to ./ringsim; for another binary, say where
: "${RINGSIM_PLOTS:=$top/plots}"
export RINGSIM_PLOTS
db=results/demo.db
out=results/demo
scenario=scenarios/demo.yaml

command -v sqlite3 >/dev/null 2>&1 || {
    echo "demo: needs the sqlite3 command (Debian/Ubuntu: apt-get install sqlite3)" >&2
    exit 1
}

mkdir -p results
rm -f "$db"
echo "ringsim demo: three cache nodes, a fourth joins at 30 s; 100,000 keys, 10,000 requests/s."
echo
echo "1. placement on a hash ring (512 virtual nodes per node)"
"$bin" run "$scenario" -o "$db" --quiet
echo "2. the same with mod-N placement (--set routing.algorithm=mod)"
"$bin" run "$scenario" -o "$db" --quiet --set routing.algorithm=mod
echo "3. charts"
"$bin" plot "$db" -d "$out" >/dev/null

# one line per run, from the summary table
reading() {
    sqlite3 -readonly "$db" "SELECT printf('%,d keys (%d%%) moved; hit rate fell to %.1f%% and was back in %s; the database peaked at %,d requests/s (%.0f%% busy, %,d errors).', keys_moved, round(100.0 * keys_moved / 100000), 100 * min_hit_rate, CASE WHEN recovery_s IS NULL THEN 'never' ELSE printf('%.0f s', recovery_s) END, CAST(peak_backend_qps AS INTEGER), 100 * peak_db_util, errors) FROM summary WHERE run_id = $1"
}
echo
echo "Results:  $top/$db"
echo "Charts:   $top/$out/index.html"
echo
echo "Reading:"
echo "  ring: $(reading 1)"
echo "  mod:  $(reading 2)"
echo "  Consistent hashing moves only the new node's share of the keys; mod-N moves"
echo "  almost all of them, and the refill exceeds the database's 5,000 requests/s."

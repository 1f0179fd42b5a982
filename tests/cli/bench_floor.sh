#!/bin/sh
# make bench's second yardstick, tests/bench/floor.c (the least a simulation
# of bench.yaml's cluster must do), models the same cluster as the
# simulator does on bench.yaml: the same hit rate within 0.015 over 5 s of
# traffic (both about 0.71: ten LRUs of 10,000 items, each over its tenth of
# 1 M Zipf 0.99 keys; measured 0.7074 against 0.7099). A floor that drops
# its fills gives 0.32, its invalidations 0.76, its LRU order (FIFO) 0.69.
# It finishes every request it starts, and repeats itself with the same
# seed. Its usage errors exit 2.
. "$(dirname "$0")/lib.sh"

cc=${CC:-cc}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "ok 1 # SKIP no C compiler"
    echo "1..1"
    exit 0
fi
expect_exit 0 "floor.c builds on its own" \
    "$cc" -O2 -std=c11 -Wall -Wextra -Werror -I. -o "$T/floor" tests/bench/floor.c -lm

expect_exit 0 "floor runs 500,000 requests" "$T/floor" 500000
cp "$T/out" "$T/floor1"
floor_hit=$(sed -n 's/^minimal model: .*hit rate \([0-9.]*\)$/\1/p' "$T/floor1")
expect_match "^minimal model requests per second: [0-9.]+ M" "$T/floor1" "it prints its speed"
"$T/floor" 500000 >"$T/floor2" 2>&1
expect_eq "$(sed -n 1p "$T/floor2")" "$(sed -n 1p "$T/floor1")" \
    "the same seed gives the same hit rate"

expect_exit 0 "the simulator runs bench.yaml for 5 s" \
    "$RINGSIM" run scenarios/bench.yaml --set duration=5s -o "$T/b.db" --quiet
sim_hit=$(sqlite3 "$T/b.db" "SELECT hit_rate FROM summary")
close=$(awk -v a="${floor_hit:-0}" -v b="${sim_hit:-1}" \
    'BEGIN { d = a - b; if (d < 0) d = -d; print (a > 0.5 && d <= 0.015) ? 0 : 1 }')
ok "$close" "floor's hit rate ($floor_hit) is the simulator's ($sim_hit) within 0.015"

expect_exit 2 "floor refuses 0 requests" "$T/floor" 0
expect_match "usage: floor" "$T/err" "and says how to call it"
finish

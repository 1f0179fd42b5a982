#!/bin/sh
# CLI tests: traces and traffic shapes — a trace's path taken from the
# scenario's folder, its errors (at load: FILE:LINE:COL; while the first pass
# reads it: the trace file and line), one trace replayed at two loads, the
# trace_end event, ramps and shift_popularity in the events table.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/sc/traces" "$T/elsewhere"
# 3 requests in each of 10 seconds over 4 keys, a set every 3rd request
i=0
while [ $i -lt 30 ]; do
    op=get
    [ $((i % 3)) = 2 ] && op=set
    echo "$((100 + i / 3)),user:$((i % 4)),$op,200"
    i=$((i + 1))
done >"$T/sc/traces/small.csv"
cat >"$T/sc/replay.yaml" <<'Y'
name: replay
duration: 30s
workload:
  trace: {path: traces/small.csv, format: csv}
nodes: [{id: A}, {id: B}]
Y

# --- the path: from the scenario's folder, whatever the working directory ---------
(cd "$T/elsewhere" && "$RINGSIM" check ../sc/replay.yaml) >"$T/out" 2>"$T/err"
ok $? "a relative trace path is taken from the scenario file's folder"
expect_eq "$(cat "$T/out")" "ok: replay" "check: ok"

expect_exit 0 "a trace replays" "$RINGSIM" run "$T/sc/replay.yaml" -o "$T/r.db" --quiet
expect_eq "$(sqlite3 "$T/r.db" 'SELECT sum(requests), sum(writes) FROM ticks')" "30|10" \
    "every request of the trace, its sets as writes"
expect_eq "$(sqlite3 "$T/r.db" 'SELECT requests FROM ticks WHERE t_s = 0')" 3 \
    "the first second of the trace is the first of the run"
expect_eq "$(sqlite3 "$T/r.db" "SELECT t_s || ' ' || detail FROM events WHERE kind = 'trace_end'")" \
    "10.0 30 requests of 4 keys replayed from $T/sc/traces/small.csv; no more requests to the end of the run" \
    "trace_end: when the trace's last second ends, with what was replayed"
expect_eq "$(sqlite3 "$T/r.db" 'SELECT count(*), sum(requests) FROM ticks WHERE t_s >= 10')" "20|0" \
    "the run goes on to duration after the trace"
expect_match "^    path: $T/sc/traces/small.csv\$" /dev/stdin "the effective scenario holds the absolute path" <<E
$(sqlite3 "$T/r.db" 'SELECT scenario_yaml FROM runs')
E

# --- one trace at two loads -------------------------------------------------------------
expect_exit 0 "time_scale 0.5" "$RINGSIM" run "$T/sc/replay.yaml" -o "$T/r.db" --quiet \
    --set workload.trace.time_scale=0.5
expect_eq "$(sqlite3 "$T/r.db" 'SELECT requests FROM ticks WHERE run_id = 2 AND t_s < 5')" \
    "$(printf '6\n6\n6\n6\n6')" "time_scale 0.5: twice the requests a second"
expect_eq "$(sqlite3 "$T/r.db" "SELECT t_s FROM events WHERE run_id = 2 AND kind = 'trace_end'")" \
    "5.0" "time_scale 0.5: the trace ends twice as early"

# --- errors at load: FILE:LINE:COL --------------------------------------------------------
sed 's/small.csv/none.csv/' "$T/sc/replay.yaml" >"$T/sc/missing.yaml"
expect_exit 2 "a missing trace: exit 2" "$RINGSIM" check "$T/sc/missing.yaml"
expect_eq "$(cat "$T/err")" \
    "$T/sc/missing.yaml:4:17: workload.trace.path: cannot read the trace \"traces/none.csv\" ($T/sc/traces/none.csv): No such file or directory" \
    "a missing trace: where, the path as written and as resolved, why"
printf 'name: x\nworkload:\n  qps: 100\n  trace: {path: traces/small.csv, format: csv}\nnodes: [{id: A}]\nevents: [{at: 1s, set_qps: 5}]\n' \
    >"$T/sc/refused.yaml"
expect_exit 2 "keys a trace replaces: exit 2" "$RINGSIM" check "$T/sc/refused.yaml"
expect_eq "$(wc -l <"$T/err")" 2 "one error each"
expect_match "^$T/sc/refused.yaml:3:3: workload.qps: does not apply with workload.trace" "$T/err" \
    "workload.qps refused at its key"
expect_match "^$T/sc/refused.yaml:6:19: events.0.set_qps: does not apply with workload.trace" \
    "$T/err" "set_qps refused at the event"

# --- errors while the trace is read: the trace file and line --------------------------------
printf '1,a,get\n2,b,fetch\n' >"$T/sc/traces/bad.csv"
sed 's/small.csv/bad.csv/' "$T/sc/replay.yaml" >"$T/sc/bad.yaml"
expect_exit 0 "check does not read the whole trace" "$RINGSIM" check "$T/sc/bad.yaml"
expect_exit 2 "a bad line: invalid input, exit 2 before anything is simulated" "$RINGSIM" run "$T/sc/bad.yaml" \
    -o "$T/bad.db" --quiet
expect_eq "$(cat "$T/err")" \
    "ringsim run: replay: $T/sc/traces/bad.csv:2:5: op: expected get, set or delete, got \"fetch\"" \
    "a bad line: the trace file, the line and what was expected"
expect_eq "$(sqlite3 "$T/bad.db" 'SELECT status FROM runs')" failed "recorded as failed"
printf 'time,key,op,size\n3,a,get\n3,b,set,12x\n' >"$T/sc/traces/bad.csv"
expect_exit 2 "a bad size: exit 2" "$RINGSIM" run "$T/sc/bad.yaml" -o "$T/bad2.db" --quiet
expect_match "bad.csv:3:9: size: expected bytes" "$T/err" "a bad size: its line and column"

# an oracle_general record: uint32 time, uint64 id, uint32 size, int64 next access (LE)
rec() { # time id (both < 256)
    printf "$(printf '\\%03o\\000\\000\\000\\%03o\\000\\000\\000\\000\\000\\000\\000' "$1" "$2")"
    printf '\000\000\000\000\377\377\377\377\377\377\377\377'
}
{ rec 7 1; rec 7 2; rec 8 1; } >"$T/sc/traces/t.bin"
expect_eq "$(wc -c <"$T/sc/traces/t.bin")" 72 "three oracle_general records"
printf 'name: bin\nduration: 5s\nworkload:\n  key_format: "obj-%%d"\n  trace: {path: traces/t.bin}\nnodes: [{id: A}]\noutput: {sample_requests: 1}\n' \
    >"$T/sc/bin.yaml"
expect_exit 0 "an oracle_general trace replays" "$RINGSIM" run "$T/sc/bin.yaml" -o "$T/b.db" --quiet
expect_eq "$(sqlite3 "$T/b.db" 'SELECT group_concat(key) FROM (SELECT key FROM requests ORDER BY t_ns)')" \
    "obj-1,obj-2,obj-1" "object ids named by key_format, in the trace's order"
head -c 60 "$T/sc/traces/t.bin" >"$T/sc/traces/cut.bin"
sed 's/t.bin/cut.bin/' "$T/sc/bin.yaml" >"$T/sc/cut.yaml"
expect_exit 2 "a truncated oracle_general trace: exit 2" "$RINGSIM" check "$T/sc/cut.yaml"
expect_match "^$T/sc/cut.yaml:5:17: workload.trace.path: the trace \"traces/cut.bin\" .* has 60 bytes, not a whole number of 24-byte oracle_general records: record 3 is truncated \(12 of 24 bytes\)" \
    "$T/err" "a truncated record: which, and how much of it is there"
{ rec 7 1; rec 9 2; rec 8 1; } >"$T/sc/traces/order.bin"
sed 's/t.bin/order.bin/' "$T/sc/bin.yaml" >"$T/sc/order.yaml"
expect_exit 2 "an oracle_general record out of time order: exit 2" "$RINGSIM" run \
    "$T/sc/order.yaml" -o "$T/order.db" --quiet
expect_match "order.bin: record 3 \(byte 48\): time 8 s is before the previous request's \(9 s\)" \
    "$T/err" "out of order: the record and its byte"

# --- shapes in the events table ---------------------------------------------------------------
cat >"$T/shapes.yaml" <<'Y'
name: shapes
duration: 20s
workload: {keys: 2000, qps: 1000, popularity: zipf, diurnal: {amplitude: 0.3, period: 10s}}
nodes: [{id: A}]
events:
  - {at: 5s, set_qps: {qps: 3000, over: 10s}}
  - {at: 10s, shift_popularity: {}}
Y
expect_exit 0 "a ramp, a cycle and a shift run" "$RINGSIM" run "$T/shapes.yaml" -o "$T/s.db" --quiet
expect_eq "$(sqlite3 "$T/s.db" "SELECT kind || ': ' || detail FROM events WHERE kind != 'epoch' ORDER BY t_s")" \
    "$(printf 'set_qps: 3000 requests per second in 10s (a ramp)\nshift_popularity: popularity ranks move to other keys (a new permutation)')" \
    "the events table says what changed"

finish

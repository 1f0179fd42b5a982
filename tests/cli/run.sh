#!/bin/sh
# CLI tests: ringsim run, sweep and merge — output, determinism, new run ids,
# replay from the database, interruption, errors that write nothing.
. "$(dirname "$0")/lib.sh"

S=$T/s.yaml
cat >"$S" <<'Y'
name: cli-run
duration: 20s
tick: 1s
workload: {keys: 20000, popularity: zipf, qps: 20000, write_ratio: 0.05}
routing: {algorithm: ring, vnodes: 64}
nodes: [{id: A}, {id: B}, {id: C}]
cache: {capacity_items: 3000}
events:
  - {at: 5s, add_node: {id: D}}
  - {at: 10s, slow_node: {id: A, factor: 30, for: 3s}}
Y

# everything but the wall-clock columns of runs
dump() {
    sqlite3 "$1" "SELECT name, seed, scenario_yaml, overrides, version, status FROM runs WHERE run_id=$2;
      SELECT * FROM ticks WHERE run_id=$2 ORDER BY t_s;
      SELECT * FROM node_ticks WHERE run_id=$2 ORDER BY t_s, node;
      SELECT * FROM events WHERE run_id=$2 ORDER BY rowid;
      SELECT * FROM params WHERE run_id=$2 ORDER BY rowid;
      SELECT * FROM summary WHERE run_id=$2;" | sed "s/^$2|//"
}

expect_exit 0 "run completes" "$RINGSIM" run "$S" -o "$T/a.db"
expect_match "hit rate" "$T/out" "run prints the summary"
expect_match "recorded in .*a.db \(run 1\)" "$T/out" "run says where it recorded"
expect_eq "$(sqlite3 "$T/a.db" 'SELECT count(*) FROM ticks')" 20 "one row per tick"
expect_eq "$(sqlite3 "$T/a.db" "SELECT status FROM runs")" complete "status complete"

"$RINGSIM" run "$S" -o "$T/b.db" --quiet >"$T/q" 2>&1
expect_eq "$(cat "$T/q")" "" "--quiet prints nothing"
dump "$T/a.db" 1 >"$T/a.dump"
dump "$T/b.db" 1 >"$T/b.dump"
cmp -s "$T/a.dump" "$T/b.dump"; ok $? "same scenario and seed: identical rows in every table"

"$RINGSIM" run "$S" -o "$T/c.db" --quiet --seed 7
dump "$T/c.db" 1 >"$T/c.dump"
cmp -s "$T/a.dump" "$T/c.dump"; [ $? != 0 ]; ok $? "another seed: different rows"
expect_eq "$(sqlite3 "$T/c.db" 'SELECT seed FROM runs')" 7 "--seed is recorded"
expect_eq "$(sqlite3 "$T/c.db" "SELECT path||'='||value FROM params")" "seed=7" "--seed is a param"

# a second run into the same file: new run id, run 1 untouched
"$RINGSIM" run "$S" -o "$T/a.db" --quiet --set routing.algorithm=mod
expect_eq "$(sqlite3 "$T/a.db" 'SELECT group_concat(run_id) FROM runs')" "1,2" "a new run gets run_id 2"
dump "$T/a.db" 1 >"$T/a1.dump"
cmp -s "$T/a.dump" "$T/a1.dump"; ok $? "run 1 is unchanged by run 2"
expect_eq "$(sqlite3 "$T/a.db" "SELECT value FROM params WHERE run_id=2 AND path='routing.algorithm'")" mod "--set is a param"
# common random numbers: the same requests in every tick under mod and ring
expect_eq "$(sqlite3 "$T/a.db" 'SELECT count(*) FROM ticks t1 JOIN ticks t2 ON t1.t_s=t2.t_s AND t2.run_id=2 WHERE t1.run_id=1 AND t1.requests=t2.requests')" 20 "mod and ring see the same requests"

# replay from the database alone
sqlite3 "$T/a.db" "SELECT scenario_yaml FROM runs WHERE run_id=2" >"$T/replay.yaml"
expect_exit 0 "the stored scenario runs" "$RINGSIM" run "$T/replay.yaml" -o "$T/r.db" --quiet
expect_eq "$(sqlite3 "$T/r.db" 'SELECT group_concat(hits) FROM ticks')" \
    "$(sqlite3 "$T/a.db" 'SELECT group_concat(hits) FROM ticks WHERE run_id=2')" "replay gives the same ticks"

# bad input: exit 2, nothing written
printf 'name: x\nnodes: [{id: A}]\nrouting: {vnodes: many}\n' >"$T/bad.yaml"
expect_exit 2 "invalid scenario exits 2" "$RINGSIM" run "$T/bad.yaml" -o "$T/bad.db"
expect_match "bad.yaml:3:[0-9]+: routing.vnodes: expected" "$T/err" "the error names file:line:col"
[ ! -e "$T/bad.db" ]; ok $? "an invalid scenario writes no database"
expect_exit 2 "bad --set exits 2" "$RINGSIM" run "$S" -o "$T/bad2.db" --set health.cooldown=soon
[ ! -e "$T/bad2.db" ]; ok $? "a bad --set writes no database"
expect_exit 2 "unknown option" "$RINGSIM" run "$S" --frobnicate
expect_exit 2 "no scenario" "$RINGSIM" run
expect_exit 2 "missing file" "$RINGSIM" run "$T/nope.yaml"
echo "not a database, just text, long enough for SQLite to look at it properly" >"$T/text.db"
expect_exit 1 "a file that is not a database: run fails" "$RINGSIM" run "$S" -o "$T/text.db"
expect_match "text.db" "$T/err" "and says which file"
expect_exit 0 "run --help" "$RINGSIM" run --help
expect_match "usage: ringsim run" "$T/out" "run --help shows usage"

# interruption: what was recorded is kept, status interrupted, exit 1
cat >"$T/long.yaml" <<'Y'
name: long
duration: 3000s
workload: {keys: 10000, qps: 50000}
nodes: [{id: A}, {id: B}]
cache: {service_time: 2us}
Y
"$RINGSIM" run "$T/long.yaml" -o "$T/long.db" --quiet &
pid=$!
i=0
while [ $i -lt 100 ]; do
    n=$(sqlite3 "$T/long.db" "SELECT count(*) FROM ticks" 2>/dev/null || echo 0)
    [ "${n:-0}" -gt 2 ] && break
    sleep 0.2
    i=$((i + 1))
done
kill -INT $pid
wait $pid
ok $([ $? = 1 ] && echo 0 || echo 1) "an interrupted run exits 1"
expect_eq "$(sqlite3 "$T/long.db" 'SELECT status FROM runs')" interrupted "its status is interrupted"
n=$(sqlite3 "$T/long.db" 'SELECT count(*) FROM ticks')
[ "$n" -gt 2 ] && [ "$n" -lt 3000 ]; ok $? "the ticks recorded before the interruption are kept ($n)"
expect_eq "$(sqlite3 "$T/long.db" 'SELECT count(*) FROM summary')" 1 "and summarised"

# sweep: results do not depend on -j; shards merge to the same thing
expect_exit 0 "sweep runs" "$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 -o "$T/s1.db"
expect_match "routing.vnodes=64 routing.algorithm=maglev" "$T/out" "sweep prints its table"
expect_eq "$(sqlite3 "$T/s1.db" 'SELECT count(*) FROM runs')" 8 "2 x 2 x 2 seeds = 8 runs"
expect_eq "$(sqlite3 "$T/s1.db" "SELECT count(DISTINCT seed) FROM runs")" 2 "two seeds"
expect_exit 0 "sweep -j 2" "$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 -j 2 -o "$T/s2.db"
for r in 1 5 8; do dump "$T/s1.db" $r; done >"$T/s1.dump"
for r in 1 5 8; do dump "$T/s2.db" $r; done >"$T/s2.dump"
cmp -s "$T/s1.dump" "$T/s2.dump"; ok $? "-j 2 records the same runs in the same order as -j 1"
"$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 --shard 0/2 -o "$T/h0.db" >/dev/null 2>&1
"$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 --shard 1/2 -o "$T/h1.db" >/dev/null 2>&1
expect_eq "$(sqlite3 "$T/h0.db" 'SELECT count(*) FROM runs')" 4 "a shard runs its share"
expect_exit 0 "merge" "$RINGSIM" merge "$T/all.db" "$T/h0.db" "$T/h1.db"
expect_eq "$(sqlite3 "$T/all.db" 'SELECT count(*) FROM runs')" 8 "merged shards hold every run"
expect_eq "$(sqlite3 "$T/all.db" 'SELECT sum(hits) FROM ticks')" "$(sqlite3 "$T/s1.db" 'SELECT sum(hits) FROM ticks')" "and the same ticks"
expect_exit 2 "sweep with a bad value runs nothing" "$RINGSIM" sweep "$S" --vary routing.vnodes=8,zero -o "$T/s3.db"
[ ! -e "$T/s3.db" ]; ok $? "no database for a sweep that did not start"
expect_exit 2 "sweep without -o" "$RINGSIM" sweep "$S" --vary routing.vnodes=8
expect_exit 2 "merge needs inputs" "$RINGSIM" merge "$T/x.db"
expect_exit 1 "merge of a missing file fails" "$RINGSIM" merge "$T/x.db" "$T/missing.db"
expect_exit 0 "sweep --help" "$RINGSIM" sweep --help
expect_exit 0 "merge --help" "$RINGSIM" merge --help
expect_exit 0 "ringsim --help" "$RINGSIM" --help
expect_match "sweep" "$T/out" "--help lists the commands"
expect_exit 0 "ringsim --version" "$RINGSIM" --version
expect_exit 2 "unknown command" "$RINGSIM" frob

# every scenario of the library loads
for f in "$RINGSIM_TOP"/scenarios/*.yaml "$RINGSIM_TOP"/scenarios/incidents/*.yaml; do
    expect_exit 0 "scenario $(basename "$f") loads" "$RINGSIM" check "$f"
done

finish

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

# the printed summary gives the seconds the summary table holds: with ticks
# shorter than a second they have fractions (they were rounded to whole
# seconds: a recovery of 3.25 s printed as 3 s, 8.5 s of overload as 8 s)
cat >"$T/frac.yaml" <<'Y'
name: frac
duration: 20500ms
tick: 250ms
warmup: 1s
workload: {keys: 5000, qps: 5000}
routing: {algorithm: ring, vnodes: 128}
nodes: [{id: A}, {id: B}, {id: C}]
cache: {capacity: 1GiB}
events:
  - {at: 6500ms, add_node: {id: D}}
Y
"$RINGSIM" run "$T/frac.yaml" -o "$T/frac.db" 2>/dev/null >"$T/frac.out"
rec=$(sqlite3 "$T/frac.db" 'SELECT recovery_s FROM summary')
case $rec in *.*) ok 0 "a recovery measured in ticks of 250 ms ($rec s)" ;; *) ok 1 "a recovery measured in ticks of 250 ms ($rec s)" ;; esac
expect_match "^  recovery +$rec s$" "$T/frac.out" "the printed recovery is the summary's ($rec s)"
"$RINGSIM" run "$T/frac.yaml" -o "$T/frac.db" --set tick=2s --set database.workers=1 \
    --set cache.capacity_items=10 >"$T/frac2.out" 2>/dev/null
over=$(sqlite3 "$T/frac.db" 'SELECT db_overload_s FROM summary WHERE run_id=2')
expect_eq "$over" 18.5 "overload in ticks after the warmup, the last 0.5 s long"
expect_match "^  db overloaded +18.5 s$" "$T/frac2.out" "the printed overload is the summary's (18.5 s)"

"$RINGSIM" run "$S" -o "$T/b.db" --quiet >"$T/q" 2>&1
expect_eq "$(cat "$T/q")" "" "--quiet prints nothing"
dump "$T/a.db" 1 >"$T/a.dump"
dump "$T/b.db" 1 >"$T/b.dump"
cmp -s "$T/a.dump" "$T/b.dump"; ok $? "same scenario and seed: identical rows in every table"

# the helper thread draws ahead and changes nothing
for n in 1 2; do
    "$RINGSIM" run "$S" -o "$T/t$n.db" --quiet --threads $n
    dump "$T/t$n.db" 1 >"$T/t$n.dump"
    cmp -s "$T/a.dump" "$T/t$n.dump"; ok $? "--threads $n: identical rows in every table"
done
expect_exit 2 "--threads 3 is bad usage" "$RINGSIM" run "$S" -o "$T/t3.db" --threads 3
expect_match "threads: expected an integer from 1 to 2, got \"3\"" "$T/err" "it says what --threads takes"
[ ! -e "$T/t3.db" ]; ok $? "and writes nothing"

"$RINGSIM" run "$S" -o "$T/c.db" --quiet --seed 7
dump "$T/c.db" 1 >"$T/c.dump"
# different rows, not merely a second run that wrote nothing
expect_eq "$(sqlite3 "$T/c.db" 'SELECT count(*) FROM ticks WHERE run_id=1' 2>&1)" 20 "another seed: every tick recorded"
[ -s "$T/c.dump" ] && ! cmp -s "$T/a.dump" "$T/c.dump"; ok $? "another seed: different rows"
expect_eq "$(sqlite3 "$T/c.db" 'SELECT seed FROM runs')" 7 "--seed is recorded"
expect_eq "$(sqlite3 "$T/c.db" "SELECT path||'='||value FROM params")" "seed=7" "--seed is a param"
# every long option with a value also takes --NAME=VALUE (run took only --set=; --seed=7
# was an unknown option, exit 2)
expect_exit 0 "--seed=7 --output=FILE --threads=1" "$RINGSIM" run "$S" --seed=7 --output="$T/c3.db" --quiet --threads=1
dump "$T/c3.db" 1 >"$T/c3.dump"
cmp -s "$T/c.dump" "$T/c3.dump"; ok $? "the same run as --seed 7"
expect_exit 2 "--seed= (an empty value) is checked as the file is" "$RINGSIM" run "$S" --seed= -o "$T/c4.db"
expect_exit 2 "run takes no --vary=" "$RINGSIM" run "$S" --vary=routing.vnodes=8 -o "$T/c4.db"
expect_match "unknown option --vary" "$T/err" "and names it"
"$RINGSIM" run "$S" -o "$T/c2.db" --quiet --seed 7 --set seed=8 --set routing.vnodes=10 \
    --set routing.vnodes=20
expect_eq "$(sqlite3 "$T/c2.db" "SELECT group_concat(path||'='||value, ' ') FROM params")" \
    "seed=8 routing.vnodes=20" "a path set twice: one params row, the value that applied"
expect_eq "$(sqlite3 "$T/c2.db" 'SELECT seed FROM runs')" 8 "the last seed applied"
"$RINGSIM" run "$S" -o "$T/c5.db" --quiet --set nodes.1.weight=3 --set nodes.01.weight=4
expect_eq "$(sqlite3 "$T/c5.db" "SELECT group_concat(path||'='||value, ' ') FROM params")" \
    "nodes.1.weight=4" "one path written two ways: one params row, as the run reads it"

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

# a duration that is not a whole number of ticks: the last tick is shorter,
# and its rates and shares are of its own length — a saturated database and
# node, whose backlog runs past the end, are busy at most 100% of it
cat >"$T/short.yaml" <<'Y'
name: short-tick
duration: 10500ms
tick: 2s
workload: {keys: 1000, qps: 3000}
nodes: [{id: A}]
cache: {prewarm: false, service_time: 500us, max_queue: 100000}
clients: {fill: none, timeout: 1h}
database: {workers: 1, service_time: 1ms, max_queue: 100000}
Y
"$RINGSIM" run "$T/short.yaml" -o "$T/short.db" --quiet
expect_eq "$(sqlite3 "$T/short.db" "SELECT group_concat(t_s, ' ') FROM ticks")" "0.0 2.0 4.0 6.0 8.0 10.0" \
    "ticks of 2 s over 10.5 s: six, the last one 0.5 s"
expect_eq "$(sqlite3 "$T/short.db" "SELECT round(db_util, 6), round(backend_qps) = round((db_reads + db_writes) / 0.5)
      FROM ticks WHERE t_s = 10")" "1.0|1" "the saturated database's last, shorter tick: util 100%, backend_qps per second of it"
expect_eq "$(sqlite3 "$T/short.db" "SELECT round(max(util), 6) FROM node_ticks")" "1.0" \
    "the saturated node's util is at most 100%"
expect_eq "$(sqlite3 "$T/short.db" "SELECT round(peak_db_util, 6) FROM summary")" "1.0" \
    "and so is the summary's peak_db_util"

# bad input: exit 2, nothing written
printf 'name: x\nnodes: [{id: A}]\nrouting: {vnodes: many}\n' >"$T/bad.yaml"
expect_exit 2 "invalid scenario exits 2" "$RINGSIM" run "$T/bad.yaml" -o "$T/bad.db"
expect_match "bad.yaml:3:[0-9]+: routing.vnodes: expected" "$T/err" "the error names file:line:col"
[ ! -e "$T/bad.db" ]; ok $? "an invalid scenario writes no database"
expect_exit 2 "bad --set exits 2" "$RINGSIM" run "$S" -o "$T/bad2.db" --set health.cooldown=soon
[ ! -e "$T/bad2.db" ]; ok $? "a bad --set writes no database"
expect_exit 2 "unknown option" "$RINGSIM" run "$S" --frobnicate
(cd "$T" && "$RINGSIM" run "$S" -o - >out 2>err); rc=$?
expect_eq "$rc" "2" "-o - is refused (a database, not standard output)"
[ ! -e "$T/-" ]; ok $? "and writes no file named -"
expect_match "name a file" "$T/err" "the refusal says what to give"
expect_exit 2 "no scenario" "$RINGSIM" run
expect_exit 2 "missing file" "$RINGSIM" run "$T/nope.yaml"
echo "not a database, just text, long enough for SQLite to look at it properly" >"$T/text.db"
expect_exit 1 "a file that is not a database: run fails" "$RINGSIM" run "$S" -o "$T/text.db"
expect_match "text.db" "$T/err" "and says which file"
expect_exit 0 "run --help" "$RINGSIM" run --help
expect_match "usage: ringsim run" "$T/out" "run --help shows usage"

# wait_ticks DB N STEP — waits (up to 100 steps of STEP seconds) until a run
# being recorded into DB has more than N ticks
wait_ticks() {
    i=0
    while [ $i -lt 100 ]; do
        n=$(sqlite3 "$1" "SELECT count(*) FROM ticks" 2>/dev/null || echo 0)
        [ "${n:-0}" -gt "$2" ] && return
        sleep "$3"
        i=$((i + 1))
    done
}

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
wait_ticks "$T/long.db" 2 0.2
kill -INT $pid
wait $pid
ok $([ $? = 1 ] && echo 0 || echo 1) "an interrupted run exits 1"
expect_eq "$(sqlite3 "$T/long.db" 'SELECT status FROM runs')" interrupted "its status is interrupted"
n=$(sqlite3 "$T/long.db" 'SELECT count(*) FROM ticks')
[ "$n" -gt 2 ] && [ "$n" -lt 3000 ]; ok $? "the ticks recorded before the interruption are kept ($n)"
expect_eq "$(sqlite3 "$T/long.db" 'SELECT count(*) FROM summary')" 1 "and summarised"
# the summary covers the recorded ticks: its busiest node's share is that of
# node_ticks (a signal lands within a tick, whose GETs are not recorded)
expect_eq "$(sqlite3 "$T/long.db" "SELECT abs(s.max_node_share - n.top) < 1e-12 FROM summary s,
      (SELECT max(g) * 1.0 / sum(g) AS top FROM (SELECT sum(requests) AS g FROM node_ticks
       GROUP BY node)) n")" 1 "an interrupted run's max_node_share is that of the recorded node_ticks"
# the printed summary says how much of the run it covers
"$RINGSIM" run "$T/long.yaml" -o "$T/long2.db" --no-progress >"$T/long2.out" 2>/dev/null &
pid=$!
wait_ticks "$T/long2.db" 2 0.2
kill -INT $pid
wait $pid
n=$(sqlite3 "$T/long2.db" 'SELECT count(*) FROM ticks')
expect_match "^long \(seed 1, $n of 3000 s simulated\)$" "$T/long2.out" \
    "an interrupted run's summary says how many simulated seconds it covers ($n of 3000)"

# sweep: results do not depend on -j; shards merge to the same thing
expect_exit 0 "sweep runs" "$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 -o "$T/s1.db"
expect_match "^  64 +maglev +2 " "$T/out" "sweep prints its table"
expect_eq "$(sqlite3 "$T/s1.db" 'SELECT count(*) FROM runs')" 8 "2 x 2 x 2 seeds = 8 runs"
expect_eq "$(sqlite3 "$T/s1.db" "SELECT count(DISTINCT seed) FROM runs")" 2 "two seeds"
expect_exit 0 "sweep -j 2" "$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 -j 2 -o "$T/s2.db"
for r in 1 5 8; do dump "$T/s1.db" $r; done >"$T/s1.dump"
for r in 1 5 8; do dump "$T/s2.db" $r; done >"$T/s2.dump"
cmp -s "$T/s1.dump" "$T/s2.dump"; ok $? "-j 2 records the same runs in the same order as -j 1"
"$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 -j 2 --threads 2 -o "$T/s4.db" >/dev/null 2>&1
for r in 1 5 8; do dump "$T/s4.db" $r; done >"$T/s4.dump"
cmp -s "$T/s1.dump" "$T/s4.dump"; ok $? "and so does -j 2 --threads 2"
"$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 --shard 0/2 -o "$T/h0.db" >/dev/null 2>&1
"$RINGSIM" sweep "$S" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev --seeds 2 --shard 1/2 -o "$T/h1.db" >/dev/null 2>&1
expect_eq "$(sqlite3 "$T/h0.db" 'SELECT count(*) FROM runs')" 4 "a shard runs its share"
expect_exit 0 "merge" "$RINGSIM" merge "$T/all.db" "$T/h0.db" "$T/h1.db"
expect_eq "$(sqlite3 "$T/all.db" 'SELECT count(*) FROM runs')" 8 "merged shards hold every run"
expect_eq "$(sqlite3 "$T/all.db" 'SELECT sum(hits) FROM ticks')" "$(sqlite3 "$T/s1.db" 'SELECT sum(hits) FROM ticks')" "and the same ticks"
expect_exit 0 "sweep --vary=, --seeds=, --jobs=, --output=" "$RINGSIM" sweep "$S" --vary=routing.vnodes=8,16 --seeds=2 --jobs=2 --output="$T/eq.db"
expect_eq "$(sqlite3 "$T/eq.db" "SELECT group_concat(overrides, ' ') FROM (SELECT overrides FROM runs ORDER BY overrides)")" \
    '["routing.vnodes=16","seed=1"] ["routing.vnodes=16","seed=2"] ["routing.vnodes=8","seed=1"] ["routing.vnodes=8","seed=2"]' \
    "its four runs"
expect_exit 0 "sweep --list drops --output= and --jobs=" "$RINGSIM" sweep "$S" --vary=routing.vnodes=8,16 --jobs=2 --output="$T/eq2.db" --list
expect_eq "$(grep -c -e '--output=\|--jobs=' "$T/out")" 0 "from the commands it prints"
expect_eq "$(grep -c -e '--vary=routing.vnodes=8,16 --shard' "$T/out")" 2 "and keeps the rest"
expect_exit 0 "sweep -o into a folder that does not exist yet" "$RINGSIM" sweep "$S" --seeds 2 -j 2 -o "$T/new/dir/s.db"
expect_eq "$(sqlite3 "$T/new/dir/s.db" 'SELECT count(*) FROM runs')" 2 "it is created and holds the runs"
expect_exit 2 "sweep with a bad value runs nothing" "$RINGSIM" sweep "$S" --vary routing.vnodes=8,zero -o "$T/s3.db"
[ ! -e "$T/s3.db" ]; ok $? "no database for a sweep that did not start"
expect_exit 2 "sweep without -o" "$RINGSIM" sweep "$S" --vary routing.vnodes=8
expect_exit 2 "merge needs inputs" "$RINGSIM" merge "$T/x.db"
expect_exit 2 "merge of a missing file is bad usage (exit 2, as run, report and plot)" "$RINGSIM" merge "$T/x.db" "$T/h0.db" "$T/missing.db"
expect_match "^ringsim merge: [^ ]*missing.db: cannot read: No such file or directory; nothing was merged" "$T/err" "it names the missing input"
[ ! -e "$T/x.db" ]; ok $? "and creates nothing"
# as run and sweep: OUT.db's folder is made when missing (merge once failed: unable to open)
expect_exit 0 "merge into a folder that does not exist yet" "$RINGSIM" merge "$T/newm/dir/m.db" "$T/h0.db" "$T/h1.db"
expect_eq "$(sqlite3 "$T/newm/dir/m.db" 'SELECT count(*) FROM runs')" 8 "it is created and holds the runs"
: >"$T/afile"
expect_exit 1 "merge under a file taken for a folder fails" "$RINGSIM" merge "$T/afile/m.db" "$T/h0.db"
expect_match "^ringsim merge: .*afile: exists and is not a folder" "$T/err" "and says why"
expect_exit 0 "sweep --help" "$RINGSIM" sweep --help
expect_exit 0 "merge --help" "$RINGSIM" merge --help
expect_exit 0 "ringsim --help" "$RINGSIM" --help
expect_match "sweep" "$T/out" "--help lists the commands"
expect_exit 0 "ringsim --version" "$RINGSIM" --version
expect_exit 2 "unknown command" "$RINGSIM" frob

# --- a bad value a later one of the same path replaces is still bad usage --------------
expect_exit 2 "run --set a=bad --set a=good is refused" "$RINGSIM" run "$S" \
    --set routing.vnodes=many --set routing.vnodes=20 -o "$T/over.db" --quiet
expect_match '^--set routing.vnodes=many: routing.vnodes: expected a positive integer, got "many" \(a later value' \
    "$T/err" "naming the option and what was expected"
expect_exit 2 "run --seed x --set seed=3 is refused" "$RINGSIM" run "$S" --seed x --set seed=3 \
    -o "$T/over.db" --quiet
expect_match '^--seed x: seed: expected a non-negative integer, got "x"' "$T/err" "naming --seed"
expect_exit 2 "check --set nodes.0.weight=0 --set nodes.00.weight=2 is refused" "$RINGSIM" check \
    "$S" --set nodes.0.weight=0 --set nodes.00.weight=2
expect_exit 2 "run -o - -o FILE is refused" "$RINGSIM" run "$S" -o - -o "$T/over.db" --quiet
[ ! -e "$T/over.db" ]; ok $? "and nothing is run"
expect_exit 2 "check --set routing.vnode=5 --set routing.vnode=6: an unknown key" "$RINGSIM" check \
    "$S" --set routing.vnode=5 --set routing.vnode=6
expect_eq "$(wc -l <"$T/err")" 1 "said once (the key is the first --set's)"
# the later value wins; a replaced value is checked alone, not against the rest
expect_exit 0 "check --set duration=4s --set duration=20s (4s alone ends before the events)" \
    "$RINGSIM" check "$S" --set duration=4s --set duration=20s
expect_exit 0 "check --set routing.vnodes=8 --set routing.vnodes=16: the later wins" \
    "$RINGSIM" check "$S" --set routing.vnodes=8 --set routing.vnodes=16

# --- no abort, no hang, nothing lost ------------------------------------------------------
# the processes whose parent is $1, and whether $1 runs (exists, not a zombie): from /proc
kids_of() {
    for f in /proc/[0-9]*/stat; do
        sed -n "s/^\([0-9]*\) (.*) [A-Za-z] $1 .*/\1/p" "$f" 2>/dev/null
    done
}
is_running() {
    sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null | grep -qv Z
}
cat >"$T/tiny.yaml" <<'Y'
name: tiny
duration: 3s
workload: {keys: 500, qps: 500}
nodes: [{id: A}, {id: B}]
Y
# two runs creating the same new database at once: both recorded
bad=0
i=0
while [ $i -lt 8 ]; do
    rm -f "$T/race.db"
    "$RINGSIM" run "$T/tiny.yaml" -o "$T/race.db" --quiet 2>"$T/race1.err" & p1=$!
    "$RINGSIM" run "$T/tiny.yaml" -o "$T/race.db" --quiet 2>"$T/race2.err" & p2=$!
    wait $p1 || bad=1
    wait $p2 || bad=1
    [ "$(sqlite3 "$T/race.db" "SELECT count(*) FROM runs WHERE status='complete'")" = 2 ] || bad=1
    [ $bad = 0 ] || { sed 's/^/#   /' "$T/race1.err" "$T/race2.err"; break; }
    i=$((i + 1))
done
ok $bad "two runs creating one new database at once both complete and are both recorded"

# two sweeps into the same -o at once: every run of both is kept
"$RINGSIM" sweep "$T/tiny.yaml" --seeds 4 -j 2 -o "$T/two.db" >"$T/sw1.out" 2>"$T/sw1.err" & p1=$!
"$RINGSIM" sweep "$T/tiny.yaml" --seeds 4 -j 2 -o "$T/two.db" >"$T/sw2.out" 2>"$T/sw2.err" & p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
expect_eq "$r1 $r2" "0 0" "two sweeps with one -o both exit 0"
expect_eq "$(sqlite3 "$T/two.db" "SELECT count(*) FROM runs WHERE status='complete'")" 8 "and all 8 runs are in it"
expect_eq "$(ls "$T" | grep -c 'two.db.part')" 0 "no part file is left"

# a run that does not complete makes the sweep exit 1, naming it
"$RINGSIM" sweep "$T/long.yaml" --vary cache.workers=1,2 -j 2 -o "$T/killed.db" >"$T/out" 2>"$T/err" & sp=$!
i=0
while [ $i -lt 100 ] && [ "$(kids_of $sp | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
victim=$(kids_of $sp | head -1)
kill -KILL $victim 2>/dev/null
sleep 0.5
kill -TERM $sp
wait $sp
ok $([ $? = 1 ] && echo 0 || echo 1) "a sweep with a run killed exits 1"
expect_match 'runs did not complete' "$T/err" "and says runs did not complete"
expect_match 'cache.workers=[12]: killed by signal 9' "$T/err" "naming the run and why"

# kill -9 of a sweep: its children end with it
"$RINGSIM" sweep "$T/long.yaml" --vary cache.workers=1,2 -j 2 -o "$T/orphan.db" >/dev/null 2>&1 & sp=$!
i=0
while [ $i -lt 100 ] && [ "$(kids_of $sp | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
kids=$(kids_of $sp | tr '\n' ' ')
kill -KILL $sp
wait $sp 2>/dev/null
i=0
while :; do
    alive=0
    for k in $kids; do is_running $k && alive=$((alive + 1)); done
    [ $alive = 0 ] || [ $i -ge 50 ] && break
    sleep 0.2
    i=$((i + 1))
done
expect_eq "$alive" 0 "kill -9 of a sweep ends its runs too (children: $kids)"
for k in $kids; do kill -KILL $k 2>/dev/null; done

# a reader holding a transaction for 12 s does not stop a run being recorded
# (a run ten times as long as long.yaml's, so that it is still going however
# long the wait for its first ticks took)
"$RINGSIM" run "$T/long.yaml" --set duration=30000s -o "$T/held.db" --quiet 2>"$T/held.err" & pid=$!
wait_ticks "$T/held.db" 2 0.2
(echo "BEGIN; SELECT count(*) FROM ticks;"; sleep 12; echo "COMMIT;") | sqlite3 "$T/held.db" >/dev/null
expect_eq "$(sqlite3 "$T/held.db" 'SELECT status FROM runs')" running "meanwhile the run is 'running'"
kill -INT $pid
wait $pid
expect_eq "$(sqlite3 "$T/held.db" 'SELECT status FROM runs')" interrupted "after a 12 s reader the run is still going (then interrupted), not failed"
if grep -q 'cannot' "$T/held.err"; then sed 's/^/#   /' "$T/held.err"; fi

# a run killed outright never reads as complete
"$RINGSIM" run "$T/long.yaml" -o "$T/k9.db" --quiet & pid=$!
wait_ticks "$T/k9.db" 0 0.1
kill -KILL $pid
wait $pid 2>/dev/null
expect_eq "$(sqlite3 "$T/k9.db" 'SELECT status FROM runs')" running "a run killed with -9 stays 'running'"

# SIGHUP (the terminal closed) interrupts a run like Ctrl-C
"$RINGSIM" run "$T/long.yaml" -o "$T/hup.db" --quiet 2>/dev/null & pid=$!
wait_ticks "$T/hup.db" 0 0.1
kill -HUP $pid
wait $pid
expect_eq "$(sqlite3 "$T/hup.db" 'SELECT status FROM runs')" interrupted "SIGHUP: status interrupted"

# a full disk: the run fails saying so. A small tmpfs in a private mount
# namespace (root, or an unprivileged user namespace); else a file size
# limit (ulimit -f, SIGXFSZ ignored), which the message names instead (the
# database then cannot grow by even the page its status needs: only the
# message is checked).
mkdir -p "$T/full"
if unshare -rm sh -c "mount -t tmpfs -o size=384k tmpfs '$T/full'" 2>/dev/null; then
    unshare -rm sh -c "mount -t tmpfs -o size=384k tmpfs '$T/full' &&
        '$RINGSIM' run '$T/long.yaml' -o '$T/full/x.db' --quiet --force 2>'$T/full.err';
        echo \$? >'$T/full.rc';
        sqlite3 '$T/full/x.db' 'SELECT status, error FROM runs' >'$T/full.rows' 2>&1"
    expect_match "^failed\|cannot .*: the disk is full \(.*x.db: database or disk is full\)" \
        "$T/full.rows" "out of disk space: status failed, and its error says the disk is full"
    expect_match "the run failed: cannot .*: the disk is full" "$T/full.err" "and so does the message"
else
    sh -c "trap '' XFSZ; ulimit -f 320; exec '$RINGSIM' run '$T/long.yaml' -o '$T/full/x.db' --quiet --force" \
        2>"$T/full.err"
    echo $? >"$T/full.rc"
    expect_match "the file size limit is reached \(.*x.db: " "$T/full.err" \
        "at the file size limit: the message says so (no tmpfs could be mounted)"
fi
expect_eq "$(cat "$T/full.rc")" 1 "out of space: the run exits 1"
# and without --force the estimate refuses it beforehand, naming the space
if unshare -rm true 2>/dev/null; then
    unshare -rm sh -c "mount -t tmpfs -o size=384k tmpfs '$T/full' &&
        '$RINGSIM' run '$T/long.yaml' -o '$T/full/y.db' --quiet 2>'$T/full2.err';
        echo \$? >'$T/full2.rc'"
    expect_eq "$(cat "$T/full2.rc")" 2 "a run bigger than the free space is refused beforehand"
    expect_match "cannot run: the results would take .* free where they go" "$T/full2.err" \
        "saying how much it would take and how much is free"
    # the same without -o: the default results/<name>.db, whose folder does not
    # exist yet, is judged by the space of the folder it will be made in (it
    # was not judged at all: the run started and failed with the disk full)
    rs=$(cd "$(dirname "$RINGSIM")" && pwd)/$(basename "$RINGSIM")
    unshare -rm sh -c "mount -t tmpfs -o size=384k tmpfs '$T/full' && cd '$T/full' &&
        '$rs' run '$T/long.yaml' --quiet 2>'$T/full3.err'; echo \$? >'$T/full3.rc'"
    expect_eq "$(cat "$T/full3.rc")" 2 "without -o, a run bigger than the free space is refused too"
    expect_match "cannot run: the results would take .* free where they go" "$T/full3.err" \
        "naming the space where results/ will be"
fi

# the estimate errs high: each run's peak memory is at most the estimate it was
# let through with, printed beside it (edge cases measured when the estimate
# missed them: local caches, sampled requests, many ticks, replicas, caches
# larger than the keyspace; each a few seconds at most)
if [ -z "${RINGSIM_SANITIZED:-}" ]; then
    cat >"$T/est.yaml" <<'Y'
name: est
duration: 5s
workload: {keys: 500000, qps: 200000}
cache: {capacity_items: 10, max_queue: 10, workers: 64}
database: {max_queue: 10, workers: 1000}
clients: {instances: 8, timeout: 1ms, local_cache: {capacity_items: 500000}}
nodes: [{id: A}, {id: B}, {id: C}]
Y
    for set in "routing.replicas=1" "output.sample_requests=1" "tick=1ms" \
        "cache.capacity_items=500000" "routing.replicas=3"; do
        "$RINGSIM" run "$T/est.yaml" --set "$set" -o "$T/est.db" --no-progress >/dev/null 2>"$T/err"
        peak=$(sed -n 's/^ringsim: .*peak memory \([0-9]*\) MiB (estimated \([0-9]*\) MiB)$/\1 \2/p' "$T/err")
        [ -n "$peak" ] && [ "${peak% *}" -le "${peak#* }" ]
        ok $? "peak memory within the estimate with $set (${peak:-no estimate printed})"
    done
fi

# a database this run would create, whose tables cannot even be written
# (a file size limit of 2 blocks): no empty file is left behind
rm -f "$T/tiny.db"
sh -c "trap '' XFSZ; ulimit -f 2; exec '$RINGSIM' run '$S' -o '$T/tiny.db' --quiet" 2>"$T/tiny.err"
expect_eq "$?" 1 "no room for the tables: the run exits 1"
[ ! -e "$T/tiny.db" ] && [ ! -e "$T/tiny.db-journal" ]; ok $? "and leaves no file it made"
# the same limit without the caller ignoring SIGXFSZ: ringsim ignores it itself, so the
# run still exits 1 and says why (the signal used to end it with status 153, silently)
sh -c "ulimit -f 2; exec '$RINGSIM' run '$S' -o '$T/tiny2.db' --quiet" 2>"$T/tiny2.err"
expect_eq "$?" 1 "at the file size limit with SIGXFSZ at its default: the run exits 1"
expect_match "^ringsim run: .*tiny2.db: " "$T/tiny2.err" "and says why, naming the database"

# a database that cannot be opened: the message says why, not only SQLite's
# "unable to open database file"
mkdir -p "$T/afolder"
expect_exit 1 "run -o FOLDER fails" "$RINGSIM" run "$S" -o "$T/afolder" --quiet
expect_match "afolder: cannot open: unable to open database file \(it is a folder, not a file\)$" \
    "$T/err" "saying it is a folder"
expect_exit 1 "merge into a folder fails" "$RINGSIM" merge "$T/afolder" "$T/h0.db"
expect_match "afolder: cannot open: .*\(it is a folder, not a file\)$" "$T/err" "saying so too"
long=$(printf '%0300d' 0)
expect_exit 1 "run -o with a file name of 300 bytes fails" "$RINGSIM" run "$S" -o "$T/$long.db" --quiet
expect_match "cannot open: unable to open database file \(File name too long\)$" "$T/err" \
    "saying the name is too long"
# a path longer than the system allows (past PATH_MAX): the message keeps its
# reason at the end, however long the path it names (it was cut at 512 or
# 1024 bytes, inside the path)
deep=$T
i=0
while [ $i -lt 25 ]; do deep="$deep/$(printf '%0200d' $i)"; i=$((i + 1)); done
for c in "run:$S -o $deep/x.db --quiet" "sweep:$S --seeds 1 -o $deep/x.db" "merge:$deep/x.db $T/h0.db" \
    "plot:$T/h0.db -d $deep/p"; do
    [ "${c%%:*}" = plot ] && ! command -v gnuplot >/dev/null 2>&1 && continue
    # shellcheck disable=SC2086 # the words of the command
    RINGSIM_PLOTS="$RINGSIM_TOP/plots" "$RINGSIM" ${c%%:*} ${c#*:} >/dev/null 2>"$T/err"
    expect_match ": cannot create: File name too long$" "$T/err" "${c%%:*} into a path of ${#deep} bytes: the reason is not cut off"
done
if unshare -rm true 2>/dev/null; then
    mkdir -p "$T/rofs"
    cp "$T/h0.db" "$T/rofs/old.db"
    unshare -rm sh -c "mount --bind '$T/rofs' '$T/rofs' && mount -o remount,ro,bind '$T/rofs' &&
        { '$RINGSIM' run '$S' -o '$T/rofs/new.db' --quiet; echo \$? >'$T/ro.rc'; } 2>'$T/ro.err';
        { '$RINGSIM' run '$S' -o '$T/rofs/old.db' --quiet; echo \$? >'$T/ro2.rc'; } 2>'$T/ro2.err'"
    expect_eq "$(cat "$T/ro.rc") $(cat "$T/ro2.rc")" "1 1" "runs into a read-only file system exit 1"
    expect_match "new.db: cannot open: .*\(no file can be made in its folder: Read-only file system\)$" \
        "$T/ro.err" "a new file: saying its folder is read-only (not 'No such file or directory')"
    expect_match "old.db: attempt to write a readonly database \(Read-only file system\)$" \
        "$T/ro2.err" "a file there already: saying why it is read-only"
    expect_eq "$(sqlite3 "$T/rofs/old.db" 'SELECT count(*) FROM runs')" 4 "which is unchanged"
fi

# -o '' would record nowhere: refused
expect_exit 2 "run -o '' is refused" "$RINGSIM" run "$S" -o ''
expect_match "^ringsim run: -o needs a value, got \"\"" "$T/err" "saying a file name is needed"
expect_exit 2 "sweep -o '' is refused" "$RINGSIM" sweep "$S" --seeds 2 -o ''
expect_exit 2 "merge into '' is refused" "$RINGSIM" merge '' "$T/h0.db"

# a sweep does not hold its combinations in memory: 30000 of them (each
# validated), this shard running one, in a few MiB (skipped under the
# sanitizers, whose allocator keeps freed memory in quarantine)
if [ -z "${RINGSIM_SANITIZED:-}" ]; then
    "$RINGSIM" sweep "$T/tiny.yaml" --vary routing.vnodes=$(seq -s, 1 300) \
        --vary cache.workers=$(seq -s, 1 100) --shard 0/30000 -o "$T/many.db" >/dev/null 2>"$T/err"
    mib=$(sed -n 's/^ringsim sweep: peak memory \([0-9]*\) MiB.*/\1/p' "$T/err")
    [ -n "$mib" ] && [ "$mib" -lt 40 ]; ok $? "a sweep of 30000 combinations needs little memory (${mib:-?} MiB)"
fi

# a path varied twice is refused
expect_exit 2 "a path varied twice is refused" "$RINGSIM" sweep "$S" --vary routing.vnodes=8,16 --vary routing.vnodes=32 -o "$T/twice.db"
expect_match 'routing.vnodes is already varied' "$T/err" "saying which"
[ ! -e "$T/twice.db" ]; ok $? "and nothing is written"

# merge: inputs are only read; the file at fault is named; the output under another name is refused
: >"$T/zero.db"
expect_exit 2 "merge of a 0-byte input is bad input (exit 2, as report and plot)" "$RINGSIM" merge "$T/m0.db" "$T/zero.db"
expect_match 'zero.db: not a ringsim results database' "$T/err" "it is not a ringsim database"
expect_eq "$(wc -c <"$T/zero.db" | tr -d ' ')" 0 "and it is still 0 bytes"
cp "$T/s1.db" "$T/broken.db"
sz=$(wc -c <"$T/broken.db")
dd if=/dev/zero of="$T/broken.db" bs=4096 seek=3 count=$(( (sz / 4096) - 4 )) conv=notrunc 2>/dev/null
sum_before=$(sum "$T/broken.db")
expect_exit 2 "merge of a damaged input is bad input (exit 2)" "$RINGSIM" merge "$T/m1.db" "$T/h0.db" "$T/broken.db"
expect_match "^ringsim merge: [^ ]*broken.db: " "$T/err" "the damaged input is named, not the output"
expect_eq "$(sum "$T/broken.db")" "$sum_before" "the damaged input is unchanged"
expect_eq "$(sqlite3 "$T/m1.db" 'SELECT count(*) FROM runs' 2>/dev/null || echo none)" none "nothing was merged"
cp "$T/h0.db" "$T/self.db"
(cd "$T" && "$RINGSIM" merge self.db ./self.db >out 2>err); rc=$?
expect_eq "$rc" 2 "merge out.db ./out.db is refused"
expect_eq "$(sqlite3 "$T/self.db" 'SELECT count(*) FROM runs')" 4 "and the file is unchanged"
ln -s self.db "$T/link.db"
expect_exit 2 "an input that is a link to the output is refused" "$RINGSIM" merge "$T/self.db" "$T/link.db"

# another program's database that claims user_version 1: not ringsim's
sqlite3 "$T/foreign.db" "CREATE TABLE runs(x); CREATE TABLE ticks(y); PRAGMA user_version=1;"
expect_exit 1 "run into a foreign database with user_version 1 fails" "$RINGSIM" run "$S" -o "$T/foreign.db"
expect_match 'foreign.db: not a ringsim results database \(no such' "$T/err" "saying it is not a ringsim database"
expect_exit 2 "merge of it is bad input (exit 2)" "$RINGSIM" merge "$T/m2.db" "$T/foreign.db"
expect_match 'foreign.db: not a ringsim results database' "$T/err" "saying so"

# the effective YAML keeps the file's order of events, so events.N names the
# same entry in a replay from the database as in the file (they run in time order)
cat >"$T/unsorted.yaml" <<'EOF'
name: unsorted
duration: 12s
workload: {keys: 1000, qps: 500}
nodes: [{id: A}, {id: B}, {id: C}]
events:
  - {at: 9s, remove_node: {id: A}}
  - {at: 2s, slow_node: {id: B, factor: 3, for: 1s}}
  - {at: 5s, add_node: {id: D}}
EOF
expect_exit 0 "a run of a file whose events are not in time order" \
    "$RINGSIM" run "$T/unsorted.yaml" -o "$T/unsorted.db" --quiet --set events.0.at=10s
sqlite3 "$T/unsorted.db" "SELECT scenario_yaml FROM runs" >"$T/unsorted_eff.yaml"
expect_eq "$(grep -A1 '^- at:' "$T/unsorted_eff.yaml" | grep -o 'remove_node\|slow_node\|add_node' | tr '\n' ' ')" \
    "remove_node slow_node add_node " "its effective YAML lists the events in the file's order"
expect_exit 0 "its replay with --set events.0.at=11s" \
    "$RINGSIM" run "$T/unsorted_eff.yaml" -o "$T/unsorted.db" --quiet --set events.0.at=11s
expect_eq "$(sqlite3 "$T/unsorted.db" "SELECT group_concat(run_id || ':' || t_s, ' ') FROM events WHERE kind = 'remove_node'")" \
    "1:10.0 2:11.0" "events.0 is the remove_node in the file and in the replay"
expect_eq "$(sqlite3 "$T/unsorted.db" "SELECT group_concat(run_id || ':' || t_s, ' ') FROM events WHERE kind = 'add_node'")" \
    "1:5.0 2:5.0" "and the other events stay where they were"

# hot-key detection costs what the reads cost, whatever its window: a window
# of 1 ns over 10^4 s is 10^13 windows, of which only those holding a read
# (at most 10^5 here) are looked at
cat >"$T/detect_ns.yaml" <<'EOF'
name: detect-ns
duration: 10000s
workload: {keys: 1000, qps: 10, popularity: zipf}
nodes: [{id: A}, {id: B}]
clients: {hot_key_detection: {threshold: 0.5, window: 1ns}}
EOF
timeout 120 "$RINGSIM" run "$T/detect_ns.yaml" -o "$T/detect_ns.db" --quiet --force 2>"$T/err"
expect_eq "$?" 0 "a 1 ns hot-key detection window over 10^4 s runs in the time of its reads"
expect_eq "$(sqlite3 "$T/detect_ns.db" "SELECT count(*) > 0 FROM events WHERE kind = 'hot_key_detected'")" 1 \
    "and detects: alone in its window, a read's key is hot"

# every scenario of the library loads
for f in "$RINGSIM_TOP"/scenarios/*.yaml "$RINGSIM_TOP"/scenarios/incidents/*.yaml; do
    expect_exit 0 "scenario $(basename "$f") loads" "$RINGSIM" check "$f"
done

finish

#!/bin/sh
# `ringsim sweep`, `merge` and `report` at their edges: a run whose process
# is killed outright, the seeds of a combination that varies the seed, a
# path or a value given twice, the last seed past the range, shards merged
# in any order reporting byte for byte alike, a merge that cannot finish
# (nothing of it stays), an input given twice, runs that repeat a seed, the
# messages (--vary values, cost refusals, damaged files, interrupted runs),
# an empty shard, --list. TAP.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1

cat >s.yaml <<'EOF'
name: audit
duration: 10s
workload: {keys: 2000, popularity: zipf, qps: 2000, write_ratio: 0.05}
routing: {algorithm: ring, vnodes: 64}
nodes: [{id: A}, {id: B}, {id: C}]
cache: {capacity_items: 500}
database: {workers: 2, service_time: 2ms}
events:
  - {at: 3s, add_node: {id: D}}
  - {at: 5s, slow_node: {id: A, factor: 50}}
EOF

# the first child process of $1 (a sweep's run), waiting up to 10 s for it
child_of() {
    i=0
    while [ $i -lt 100 ]; do
        c=$(pgrep -P "$1" | head -1)
        [ -n "$c" ] && { echo "$c"; return; }
        sleep 0.1
        i=$((i + 1))
    done
}

# --- a run killed outright (kill -9) -----------------------------------------------
"$RINGSIM" sweep s.yaml --set duration=100000s --seeds 1 -o killed.db >/dev/null 2>killed.err &
sp=$!
c=$(child_of $sp)
sleep 1.5
kill -9 "$c"
wait $sp
expect_eq "$?" 1 "a sweep whose run is killed outright exits 1"
expect_eq "$(sqlite3 killed.db 'SELECT status FROM runs')" failed "the run is recorded as failed, not running"
expect_match "killed by signal 9" killed.err "the sweep says how it ended"
sqlite3 killed.db 'SELECT error FROM runs' >killed.rows
expect_match "^killed by signal 9" killed.rows "and so does the run's error"
set -- killed.db.part-*
[ ! -e "$1" ]; ok $? "no part file is left, nor its -wal or -shm ($*)"

# merge copies a run still 'running' as it is, saying so
cp killed.db running.db
sqlite3 running.db "UPDATE runs SET status = 'running'"
expect_exit 0 "merge of a run still running" "$RINGSIM" merge mr.db running.db
expect_match "warning: running.db: run 1 \(audit\) is still 'running'" "$T/err" "warns, naming the input and the run"
expect_eq "$(sqlite3 mr.db 'SELECT status FROM runs')" running "and copies it as it is"

# --- the seeds of a combination: its own seed, seed + 1, ... ------------------------
expect_exit 0 "--vary seed=1,5 with --seeds 2" "$RINGSIM" sweep s.yaml --vary seed=1,5 --seeds 2 -o seeds.db
expect_eq "$(sqlite3 seeds.db 'SELECT group_concat(seed, " ") FROM (SELECT seed FROM runs ORDER BY run_id)')" \
    "1 2 5 6" "the combination seed=5 runs seeds 5 and 6 (not 1 and 2 again)"
expect_eq "$(sqlite3 seeds.db "SELECT count(*) FROM runs r JOIN params p USING (run_id)
                               WHERE p.path = 'seed' AND p.value <> r.seed")" 0 \
    "each run's params say the seed it ran"
expect_match "seed=6: hit" "$T/err" "and so do the progress lines"
expect_exit 2 "--vary seed=1,2 with --seeds 2 (seed 2 would run twice)" "$RINGSIM" sweep s.yaml \
    --vary seed=1,2 --seeds 2 -o overlap.db
expect_match "the seeds from 1 and from 2 overlap" "$T/err" "is refused, saying why"
[ ! -e overlap.db ]; ok $? "and nothing is run"

# --- a path varied twice under two spellings ----------------------------------------
expect_exit 2 "nodes.0.weight and nodes.00.weight are one path" "$RINGSIM" sweep s.yaml \
    --vary nodes.0.weight=1,2 --vary nodes.00.weight=3 -o twice.db
expect_match "nodes.00.weight is already varied by --vary nodes.0.weight=1,2" "$T/err" "saying which"
[ ! -e twice.db ]; ok $? "and nothing is run"

# --- a value given twice --------------------------------------------------------------
expect_exit 2 "routing.vnodes=32,32 is refused" "$RINGSIM" sweep s.yaml --vary routing.vnodes=32,32 -o dup.db
expect_match "routing.vnodes: the value 32 is given twice" "$T/err" "naming the path and the value"
expect_exit 2 "1e2 and 100 are one value of routing.vnodes" "$RINGSIM" sweep s.yaml --vary routing.vnodes=1e2,8,100 -o dup.db
expect_match "1e2 and 100 are the same value of routing.vnodes" "$T/err" "naming both"
[ ! -e dup.db ]; ok $? "and nothing is run"

# --- a bad value a later one replaces is still bad usage -----------------------------
expect_exit 2 "--set routing.vnodes=many before --vary routing.vnodes is refused" "$RINGSIM" sweep \
    s.yaml --set routing.vnodes=many --vary routing.vnodes=10,20 -o over.db
expect_match '^--set routing.vnodes=many: routing.vnodes: expected a positive integer, got "many" \(a later value of routing.vnodes replaces it' \
    "$T/err" "naming the option and what was expected"
expect_exit 2 "--set seed=x before --seeds is refused" "$RINGSIM" sweep s.yaml --set seed=x \
    --seeds 2 -o over.db
expect_match '^--set seed=x: seed: expected a non-negative integer' "$T/err" "naming it"
[ ! -e over.db ]; ok $? "and nothing is run"
expect_exit 2 "--shard twice, naming two shards, is refused" "$RINGSIM" sweep s.yaml \
    --vary routing.vnodes=10,20 --shard 0/2 --shard 1/2 -o over.db
expect_match '^ringsim sweep: --shard given twice \(0/2, then 1/2\)' "$T/err" "naming both"
expect_exit 2 "-o - before -o FILE is refused" "$RINGSIM" sweep s.yaml \
    --vary routing.vnodes=10,20 -o - -o over.db
expect_match '^ringsim sweep: -o -: a sweep writes a results database' "$T/err" "saying why"
[ ! -e over.db ]; ok $? "and nothing is run"
expect_exit 0 "--shard 0/2 and 2/2, one shard twice, is taken" "$RINGSIM" sweep s.yaml \
    --vary routing.vnodes=10,20 --shard 0/2 --shard 2/2 -o over.db --quiet
expect_eq "$(sqlite3 over.db 'SELECT overrides FROM runs')" '["routing.vnodes=10"]' "the shard 0/2"

# --- the last seed must fit ---------------------------------------------------------
expect_exit 2 "--set seed=2^63-1 --seeds 2 is refused before anything runs" "$RINGSIM" sweep s.yaml \
    --set seed=9223372036854775807 --seeds 2 -o big.db
expect_match "^ringsim sweep: --seeds 2: the seeds would run from 9223372036854775807 to 9223372036854775808" \
    "$T/err" "saying which seeds"
[ ! -e big.db ]; ok $? "and nothing is run"

# --- shards merged in any order report alike --------------------------------------------
GRID="--set duration=6s --set events.1.at=4s --vary routing.algorithm=ring,maglev --seeds 2"
for i in 0 1 2; do
    # shellcheck disable=SC2086
    "$RINGSIM" sweep s.yaml $GRID --shard $i/3 -o sh$i.db >/dev/null 2>&1 || echo "# shard $i failed"
done
expect_exit 0 "merge the shards in one order" "$RINGSIM" merge abc.db sh0.db sh1.db sh2.db
expect_exit 0 "and in another" "$RINGSIM" merge cba.db sh2.db sh1.db sh0.db
for f in csv json; do
    "$RINGSIM" report abc.db --$f >abc.$f 2>/dev/null
    "$RINGSIM" report cba.db --$f >cba.$f 2>/dev/null
    cmp -s abc.$f cba.$f
    ok $? "report --$f is byte for byte the same"
    diff abc.$f cba.$f | head -4 | cut -c 1-200 | sed 's/^/#   /'
done
expect_match '"seeds":\[1,2\]' abc.json "the seeds of a combination in order"
expect_eq "$(grep -o '"routing.algorithm":"[a-z]*"' abc.json | tr '\n' ' ')" \
    '"routing.algorithm":"maglev" "routing.algorithm":"ring" ' "text values in strcmp order"

# --- shards counted from 1 (1/N .. N/N, N/N being 0/N) ---------------------------------
# 1/2 + 2/2 merged hold the same runs as 0/2 + 1/2 merged and as the sweep
# unsharded: every table (run ids replaced by each run's seed and overrides,
# which name it; minus runs.started_at and wall_s) and the report
G1="--set duration=4s --set events.1.at=3s --vary routing.vnodes=16,64 --vary routing.algorithm=ring,jump --seeds 2"
# shellcheck disable=SC2086
{
    "$RINGSIM" sweep s.yaml $G1 -o whole.db >/dev/null 2>&1 || echo "# the unsharded sweep failed"
    for i in 0 1 2; do
        "$RINGSIM" sweep s.yaml $G1 --shard $i/2 -o s$i.db >/dev/null 2>&1 || echo "# shard $i/2 failed"
    done
}
expect_eq "$(sqlite3 s2.db 'SELECT group_concat(seed || overrides) FROM runs')" \
    "$(sqlite3 s0.db 'SELECT group_concat(seed || overrides) FROM runs')" "shard 2/2 runs what 0/2 runs"
expect_exit 0 "merge of shards 1/2 and 2/2" "$RINGSIM" merge one.db s1.db s2.db
expect_exit 0 "merge of shards 0/2 and 1/2" "$RINGSIM" merge zero.db s0.db s1.db
expect_eq "$(sqlite3 one.db 'SELECT count(*) FROM runs')" 8 "1/2 and 2/2 hold every run (8)"
tables() { # the tables of $1, each row keyed by its run's seed and overrides, sorted
    python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
key = {r: f"{s}|{o}" for r, s, o in db.execute("SELECT run_id, seed, overrides FROM runs")}
for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' "
                       "AND name NOT LIKE 'sqlite_%' ORDER BY name"):
    cols = [c[1] for c in db.execute(f"PRAGMA table_info({t})")
            if c[1] not in ("run_id", "started_at", "wall_s")]
    rows = []
    for row in db.execute(f"SELECT run_id, {', '.join(cols)} FROM {t}"):
        rows.append(repr((key.get(row[0], row[0]),) + tuple(row[1:])))
    print(t, len(rows))
    print("\n".join(sorted(rows)))
PY
}
tables whole.db >whole.tables
tables one.db >one.tables
tables zero.db >zero.tables
cmp -s one.tables whole.tables
ok $? "1/2 + 2/2 merged: every table as the unsharded sweep's"
diff one.tables whole.tables | head -4 | cut -c 1-200 | sed 's/^/#   /'
cmp -s zero.tables whole.tables
ok $? "0/2 + 1/2 merged: every table as the unsharded sweep's"
expect_match "^ticks [1-9]" whole.tables "(the tables hold rows)"
for f in csv json; do
    "$RINGSIM" report whole.db --$f >whole.$f 2>/dev/null
    "$RINGSIM" report one.db --$f >one.$f 2>/dev/null
    "$RINGSIM" report zero.db --$f >zero.$f 2>/dev/null
    cmp -s one.$f whole.$f && cmp -s zero.$f whole.$f
    ok $? "report --$f of 1/2 + 2/2, of 0/2 + 1/2 and of the whole sweep alike"
done
# shellcheck disable=SC2086
expect_exit 2 "--shard 3/2 is refused" "$RINGSIM" sweep s.yaml $G1 --shard 3/2 -o s3.db
expect_match "expected I from 0 to 2 \(shards counted from 0 or from 1; 2/2 is the shard 0/2\), got \"3\"" \
    "$T/err" "saying the range"
[ ! -e s3.db ]; ok $? "and writes nothing"

# --- a merge is all or nothing ----------------------------------------------------------
"$RINGSIM" merge all.db sh0.db >/dev/null 2>&1
before=$(sqlite3 all.db 'SELECT count(*) FROM runs')
# room for sh1.db's run, not for seeds.db's four as well
sz=$((($(wc -c <all.db) + $(wc -c <sh1.db)) / 1024 + 16))
sh -c "trap '' XFSZ; ulimit -f $sz; exec '$RINGSIM' merge all.db sh1.db seeds.db" >/dev/null 2>full.err
expect_eq "$?" 1 "a merge that runs out of room exits 1"
expect_eq "$(sqlite3 all.db 'SELECT count(*) FROM runs')" "$before" "and copies nothing, not even the input that fitted"
expect_match "nothing was merged" full.err "saying so"
expect_exit 2 "the same input twice is refused" "$RINGSIM" merge twice.db sh0.db ./sh0.db
expect_match "sh0.db and ./sh0.db are the same file" "$T/err" "saying so"
[ ! -e twice.db ]; ok $? "and nothing is written"
cp sh0.db copy.db
"$RINGSIM" merge rep.db sh0.db copy.db >/dev/null 2>&1
expect_exit 0 "report of runs that repeat a seed" "$RINGSIM" report rep.db
expect_match "repeats* a seed and the parameters of another run" "$T/err" "warns, without --baseline too"

# --- messages ---------------------------------------------------------------------------
expect_exit 2 "a bad --vary value" "$RINGSIM" sweep s.yaml --vary routing.vnodes=many,8 \
    --vary health.cooldown=1s,2s,3s -o bad.db
expect_match "^--vary routing.vnodes=many: routing.vnodes: expected" "$T/err" "is named as --vary"
expect_eq "$(grep -c 'routing.vnodes=many' "$T/err")" 1 "once, not once per combination"
expect_exit 2 "a combination that would take hours" "$RINGSIM" sweep s.yaml --set tick=60s \
    --vary duration=10m,30000h -o slow.db
expect_match "combination 2 of 2 \(duration=30000h\) would not run \(--force" "$T/err" \
    "is numbered from 1 and named by its values, with --force suggested"
expect_exit 2 "a combination past the clock's range" "$RINGSIM" sweep s.yaml --set tick=60s \
    --set cache.service_time=100000h --vary duration=10m,20m -o clock.db
expect_match "combination 1 of 2 \(duration=10m\) would not run$" "$T/err" "without --force suggested"
expect_eq "$(grep -c 'cannot run: simulated time could reach' "$T/err")" 1 \
    "the reason shared by both combinations is printed once"
# -j runs combinations at once: each fits the machine's memory, three together do
# not (each was judged alone, and three runs of half the memory each were let through)
mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null)
if [ -n "$mem_kb" ] && [ "$mem_kb" -lt 26000000 ]; then # keys of half the memory, at most 1e9
    half=$((mem_kb * 1024 / 28 / 2))
    expect_exit 0 "combinations of half the memory, one at a time" "$RINGSIM" sweep s.yaml \
        --vary workload.keys=$half,$((half + 1)),$((half + 2)) -j 1 --list -o mem.db
    expect_exit 2 "three at once are refused" "$RINGSIM" sweep s.yaml \
        --vary workload.keys=$half,$((half + 1)),$((half + 2)) -j 3 --list -o mem.db
    expect_match "cannot run: 3 runs at once \(-j\) could need about .* of memory, more than this machine's .*; lower -j to 1, or pass --force" \
        "$T/err" "naming -j and what would fit"
    expect_exit 0 "--force lets them through (the estimate is not exact)" "$RINGSIM" sweep s.yaml \
        --force --vary workload.keys=$half,$((half + 1)),$((half + 2)) -j 3 --list -o mem.db
    expect_match "^s.yaml: warning: the runs may run out of memory: 3 at once \(-j\) could need about .*lower -j to 1" \
        "$T/err" "--force: a warning instead"
    expect_exit 2 "a billion keys alone are refused" "$RINGSIM" sweep s.yaml \
        --vary workload.keys=1000000000,1000 --list -o mem.db
    expect_match "combination 1 of 2 \(workload.keys=1000000000\) would not run \(--force runs it anyway\)" \
        "$T/err" "one combination past memory, --force suggested"
    expect_exit 0 "and pass with --force" "$RINGSIM" sweep s.yaml --force \
        --vary workload.keys=1000000000,1000 --list -o mem.db
    expect_match "warning: the run may run out of memory" "$T/err" "with a warning"
else
    _n=$((_n + 1)); echo "ok $_n - runs at once within memory # SKIP this machine has the memory for a billion keys"
fi
cp sh0.db damaged.db
python3 -c "
f = open('damaged.db', 'r+b')
for page in (3, 5, 20):
    f.seek(4096 * page + 50); f.write(b'\x07' * 300)
"
expect_exit 2 "merge of a damaged file (bad input, exit 2)" "$RINGSIM" merge dm.db damaged.db
expect_eq "$(wc -l <"$T/err" | tr -d ' ')" 1 "one line of error"
expect_match "damaged.db: damaged" "$T/err" "naming the file"
"$RINGSIM" sweep s.yaml --set duration=100000s --seeds 1 -o int.db >/dev/null 2>int.err &
sp=$!
c=$(child_of $sp)
sleep 1.5
kill -INT $sp "$c"
wait $sp
expect_match "kept in int.db \(status interrupted\)" int.err "an interrupted run names the sweep's database"
if grep -q 'part-' int.err; then ok 1 "not its part file"; else ok 0 "not its part file"; fi
expect_eq "$(sqlite3 int.db 'SELECT status FROM runs')" interrupted "and is recorded as interrupted"

# --- an empty shard, --list -----------------------------------------------------------
expect_exit 0 "a shard with no runs" "$RINGSIM" sweep s.yaml --vary routing.vnodes=8,16 --shard 5/10 -o empty.db
expect_eq "$(wc -l <"$T/out" | tr -d ' ')" 1 "prints one line"
expect_match "^shard 5/10 has no runs" "$T/out" "saying the shard has none"
expect_exit 0 "and its database merges" "$RINGSIM" merge em.db empty.db
expect_exit 0 "--list of one run" "$RINGSIM" sweep s.yaml --seeds 1 -o one.db --list
expect_match "1 command, one run each \(1 combination x 1 seed\)" "$T/err" "in the singular"
expect_exit 2 "-o - is refused" "$RINGSIM" sweep s.yaml --seeds 1 -o - --list
expect_match "not standard output" "$T/err" "saying why"
expect_exit 0 "merge --help" "$RINGSIM" merge --help
expect_match "views, events, summary," "$T/out" "lists every table it copies"
expect_match "requests\)" "$T/out" "requests too"
finish

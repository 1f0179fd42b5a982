#!/bin/sh
# `ringsim report`: statistics per combination against values computed
# here by hand (python3: mean, sample sd, Student t from the tables), the
# JSON shape, the CSV columns, the runs_with counts, NULLs ("never"),
# paired differences from a baseline, the errors; and the closing table of
# `ringsim sweep` (one row per combination, the same numbers as report).
# TAP.
. "$(dirname "$0")/lib.sh"

cat >"$T/tiny.yaml" <<'EOF'
name: tiny
duration: 3s
workload: {keys: 500, qps: 500}
nodes: [{id: A}, {id: B}]
EOF
# --- a database with known summaries ----------------------------------------------
db="$T/known.db"
"$RINGSIM" run "$T/tiny.yaml" -o "$db" --quiet || echo "not ok - cannot make a database"
# cooldown 2s (seeds 1-4), 10s (seeds 1-4), 30s (seeds 1-3: a run is missing);
# columns: run_id seed cooldown cascade_removals recovery_s(NULL) min_hit_rate db_overload_s
rows="1 1 10s 0 10 0.75 0
2 2 10s 0 12 0.70 3
3 3 10s 29 NULL 0 150
4 4 10s 28 NULL 0 148
5 1 2s 39 NULL 0 150
6 2 2s 39 NULL 0 150
7 3 2s 40 NULL 0 149
8 4 2s 38 NULL 0 150
9 1 30s 0 10 0.8 0
10 2 30s 0 11 0.78 0
11 3 30s 2 13 0.5 8"
{
    echo "BEGIN; DELETE FROM runs; DELETE FROM params; DELETE FROM summary; DELETE FROM ticks;"
    echo "$rows" | while read -r id seed cd cas rec mh ov; do
        echo "INSERT INTO runs(run_id, name, seed, scenario_yaml, overrides, version, status)
              VALUES($id, 'cascade', $seed, '', '[]', 'x', 'complete');"
        echo "INSERT INTO params VALUES($id, 'routing.vnodes', '1000');"
        echo "INSERT INTO params VALUES($id, 'health.cooldown', '$cd');"
        echo "INSERT INTO params VALUES($id, 'seed', '$seed');"
        echo "INSERT INTO summary(run_id, cascade_removals, recovery_s, min_hit_rate, db_overload_s, hit_rate)
              VALUES($id, $cas, $rec, $mh, $ov, 0.9);"
    done
    # a run still recorded and one interrupted: left out
    echo "INSERT INTO runs(run_id, name, seed, status) VALUES(12, 'cascade', 5, 'running');"
    echo "INSERT INTO params VALUES(12, 'health.cooldown', '2s');"
    echo "INSERT INTO runs(run_id, name, seed, status) VALUES(13, 'cascade', 5, 'interrupted');"
    echo "INSERT INTO summary(run_id, cascade_removals) VALUES(13, 99);"
    echo "COMMIT;"
} | sqlite3 "$db"
echo "$rows" >"$T/rows"

M="--metric cascade_removals --metric recovery_s --metric min_hit_rate --metric db_overload_s"
# shellcheck disable=SC2086
expect_exit 0 "report --json" "$RINGSIM" report "$db" $M --json
cp "$T/out" "$T/json"
expect_match "2 runs left out: not complete \(running, interrupted\)" "$T/err" "runs that are not complete are left out, saying so"

# the statistics, recomputed here
cat >"$T/check.py" <<'EOF'
import json, sys, statistics as st
T = {1: 12.706204736174707, 2: 4.302652729749464, 3: 3.182446305284263}
rows = [l.split() for l in open(sys.argv[2])]
got = json.load(open(sys.argv[1]))
base = sys.argv[3] if len(sys.argv) > 3 else None
def col(cd, i):
    return {int(r[1]): (None if r[i] == 'NULL' else float(r[i])) for r in rows if r[2] == cd}
names = {'cascade_removals': 3, 'recovery_s': 4, 'min_hit_rate': 5, 'db_overload_s': 6}
def close(a, b):
    return a is None and b is None or (a is not None and b is not None and abs(a - b) <= 1e-9 * (1 + abs(b)))
def ci(xs):
    if len(xs) < 2:
        return None
    m, s = st.mean(xs), st.stdev(xs)
    h = T[len(xs) - 1] * s / len(xs) ** 0.5
    return [m - h, m + h]
bad = []
assert isinstance(got, list), "an array"
order = [g['params']['health.cooldown'] for g in got]
if order != ['2s', '10s', '30s']:
    bad.append('order %s' % order)
for g in got:
    for k in ('scenario', 'params', 'runs', 'metrics', 'runs_with'):
        if k not in g:
            bad.append('no %s' % k)
    cd = g['params']['health.cooldown']
    if set(g['params']) != {'health.cooldown'}:
        bad.append('params %s' % g['params'])
    if g['runs'] != len(col(cd, 3)):
        bad.append('%s runs %s' % (cd, g['runs']))
    for name, i in names.items():
        vals = col(cd, i)
        xs = [v for s, v in sorted(vals.items()) if v is not None]
        m = g['metrics'][name]
        if set(m) - {'diff'} != {'mean', 'ci95', 'min', 'max', 'n', 'nulls'}:
            bad.append('%s %s keys %s' % (cd, name, sorted(m)))
        want = {'mean': st.mean(xs) if xs else None, 'min': min(xs) if xs else None,
                'max': max(xs) if xs else None}
        for k, w in want.items():
            if not close(m[k], w):
                bad.append('%s %s %s: %s != %s' % (cd, name, k, m[k], w))
        w = ci(xs)
        if (w is None) != (m['ci95'] is None) or (w and not all(close(a, b) for a, b in zip(m['ci95'], w))):
            bad.append('%s %s ci95: %s != %s' % (cd, name, m['ci95'], w))
        if m['n'] != len(xs) or m['nulls'] != len(vals) - len(xs):
            bad.append('%s %s n/nulls %s %s' % (cd, name, m['n'], m['nulls']))
        if base:
            b = col(base, i)
            ds = [vals[s] - b[s] for s in sorted(vals) if s in b and vals[s] is not None and b[s] is not None]
            d = m['diff']
            if d['pairs'] != len(ds) or not close(d['mean'], st.mean(ds) if ds else None):
                bad.append('%s %s diff %s vs %s' % (cd, name, d, ds))
            w = ci(ds)
            if (w is None) != (d['ci95'] is None) or (w and not all(close(a, b) for a, b in zip(d['ci95'], w))):
                bad.append('%s %s diff ci95: %s != %s' % (cd, name, d['ci95'], w))
    want_with = {n: sum(1 for v in col(cd, names[n]).values() if v and v > 0)
                 for n in ('cascade_removals', 'db_overload_s')}
    if g['runs_with'] != want_with:
        bad.append('%s runs_with %s != %s' % (cd, g['runs_with'], want_with))
if bad:
    print('\n'.join(bad))
sys.exit(1 if bad else 0)
EOF
python3 "$T/check.py" "$T/json" "$T/rows" >"$T/bad" 2>&1
ok $? "mean, 95% CI, min, max, n, nulls and runs_with are those computed by hand"
sed 's/^/#   /' "$T/bad" | head -10
python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); sys.exit(0 if g[1]["runs_with"]["cascade_removals"] == 2 and g[1]["metrics"]["recovery_s"]["nulls"] == 2 else 1)' "$T/json"
ok $? "cooldown 10s: cascades in 2 of its 4 runs, never recovered in 2"
# runs_with counts cascades and overloads whichever metrics are asked for
expect_exit 0 "report --metric min_hit_rate --json" "$RINGSIM" report "$db" --metric min_hit_rate --json
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if [g["runs_with"] for g in a] == [g["runs_with"] for g in b] and all(set(g["runs_with"]) == {"cascade_removals", "db_overload_s"} and set(g["metrics"]) == {"min_hit_rate"} for g in a) else 1)' "$T/out" "$T/json"
ok $? "runs_with has the cascades and overloads with one other metric asked for, as with them"
expect_eq "$(grep -o '"runs_with":{[^}]*}' "$T/out" | sed 's/[0-9]//g' | sort -u)" \
    '"runs_with":{"cascade_removals":,"db_overload_s":}' \
    "runs_with by name whichever metric is asked for (text alike)"

# shellcheck disable=SC2086
expect_exit 0 "report --baseline --json" "$RINGSIM" report "$db" $M --baseline health.cooldown=2s --json
cp "$T/out" "$T/jsonb"
python3 "$T/check.py" "$T/jsonb" "$T/rows" 2s >"$T/bad" 2>&1
ok $? "paired differences from the baseline, by seed, are those computed by hand"
sed 's/^/#   /' "$T/bad" | head -10

# --- the table --------------------------------------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "report (table)" "$RINGSIM" report "$db" $M
expect_match "^$T/known.db: 11 complete runs of cascade in 3 combinations of health.cooldown; seeds 1-4$" "$T/out" "the heading counts runs and combinations"
expect_match "^the same in every run: routing.vnodes=1000$" "$T/out" "the parameters every run shares"
expect_match "^  health.cooldown  runs .*happened$" "$T/out" "cascade_removals has a happened column"
expect_match "^  10s +4 +14.25  \[-11.9[0-9], 40.4[0-9]\] +0 +29 +2/4$" "$T/out" "cascades in 2/4 runs at 10s, with mean, CI, min, max"
expect_match "^  health.cooldown  runs .*never$" "$T/out" "recovery_s has a never column"
expect_match "^  2s +4 +- +- +- +- +4/4$" "$T/out" "never recovered: no mean, 4/4 never"
expect_match "^  30s +3 " "$T/out" "a combination with three runs"
# shellcheck disable=SC2086
expect_exit 0 "report --baseline (table)" "$RINGSIM" report "$db" $M --baseline health.cooldown=2s
expect_match "^  2s +4 .* baseline +4$" "$T/out" "the baseline row says so"
expect_match "^  10s +4 +14.25 .* -24.75  \[" "$T/out" "a difference: 14.25 - 39"

# --- CSV --------------------------------------------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "report --csv" "$RINGSIM" report "$db" $M --csv
expect_eq "$(head -n 1 "$T/out" | tr -d '\r')" "scenario,health.cooldown,runs,metric,n,nulls,mean,ci95_lo,ci95_hi,min,max,runs_with" "the CSV columns"
expect_eq "$(wc -l <"$T/out" | tr -d ' ')" 13 "one row per combination and metric"
python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
r = [x for x in rows if x["health.cooldown"] == "10s" and x["metric"] == "recovery_s"][0]
assert r["n"] == "2" and r["nulls"] == "2" and r["mean"] == "11" and r["runs_with"] == "", r
r = [x for x in rows if x["health.cooldown"] == "10s" and x["metric"] == "cascade_removals"][0]
assert r["runs_with"] == "2" and r["min"] == "0" and r["max"] == "29", r
r = [x for x in rows if x["health.cooldown"] == "2s" and x["metric"] == "recovery_s"][0]
assert r["mean"] == "" and r["ci95_lo"] == "" and r["min"] == "", r
' "$T/out" 2>"$T/bad"
ok $? "CSV values: NULL is empty, runs_with only for what can happen"
sed 's/^/#   /' "$T/bad" | head -5
expect_exit 0 "report --csv --baseline" "$RINGSIM" report "$db" --metric hit_rate --csv --baseline health.cooldown=2s
expect_match "^scenario,health.cooldown,runs,metric,n,nulls,mean,ci95_lo,ci95_hi,min,max,runs_with,diff_mean,diff_ci95_lo,diff_ci95_hi,pairs" "$T/out" "with a baseline, the difference columns"
cp "$T/out" "$T/spaced.csv"
# --NAME=VALUE is the same (it was an unknown option, exit 2)
expect_exit 0 "report --metric=, --baseline=" "$RINGSIM" report "$db" --metric=hit_rate --csv --baseline=health.cooldown=2s
cmp -s "$T/out" "$T/spaced.csv"; ok $? "prints what the spaced form prints"
expect_exit 0 "report --by=" "$RINGSIM" report "$db" --by=seed --metric=cascade_removals --json
expect_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/out")" 4 "--by=seed: one combination per seed"

# --- grouping ---------------------------------------------------------------------
expect_exit 0 "report --by seed" "$RINGSIM" report "$db" --by seed --metric cascade_removals --json
expect_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/out")" 4 "--by seed: one combination per seed"
expect_match "health.cooldown also varies between the runs and is pooled" "$T/err" "saying what is pooled"
expect_exit 0 "report --by a fixed parameter" "$RINGSIM" report "$db" --by routing.vnodes --metric cascade_removals --json
expect_eq "$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); print(len(g), g[0]["runs"])' "$T/out")" "1 11" "one combination of every run"
# a run that does not override the parameter: its stored scenario's value
"$RINGSIM" run "$T/tiny.yaml" -o "$T/eff.db" --quiet
"$RINGSIM" run "$T/tiny.yaml" -o "$T/eff.db" --quiet --set health.cooldown=0s
"$RINGSIM" run "$T/tiny.yaml" -o "$T/eff.db" --quiet --set health.cooldown=5s
expect_exit 0 "report of runs with and without --set" "$RINGSIM" report "$T/eff.db" --metric hit_rate --json
expect_eq "$(python3 -c 'import json,sys; print(" ".join("%s:%d" % (g["params"]["health.cooldown"], g["runs"]) for g in json.load(open(sys.argv[1]))))' "$T/out")" "0s:2 5s:1" "a run without the --set joins the combination of its effective value"
# one value written two ways ("0" and "0s", "5000ms" and "5s") is one combination, and
# --baseline finds it written either way
"$RINGSIM" run "$T/tiny.yaml" -o "$T/eff.db" --quiet --set health.cooldown=0 --set seed=2
"$RINGSIM" run "$T/tiny.yaml" -o "$T/eff.db" --quiet --set health.cooldown=5000ms --set seed=2
expect_exit 0 "report of one value written two ways" "$RINGSIM" report "$T/eff.db" --metric hit_rate --json --baseline health.cooldown=0ms
expect_eq "$(python3 -c 'import json,sys; print(" ".join("%s:%d:%d" % (g["params"]["health.cooldown"], g["runs"], g["metrics"]["hit_rate"]["diff"]["pairs"]) for g in json.load(open(sys.argv[1]))))' "$T/out")" "0:3:2 5000ms:2:2" "0 and 0s are one combination, 5s and 5000ms another; --baseline 0ms is the first"
# one path written two ways (nodes.01.weight is nodes.1.weight, as the run reads it) is one
# --by path, for --by and --baseline written either way too
"$RINGSIM" run "$T/tiny.yaml" -o "$T/paths.db" --quiet --set nodes.01.weight=2
"$RINGSIM" run "$T/tiny.yaml" -o "$T/paths.db" --quiet --set nodes.1.weight=3
expect_exit 0 "report of one path written two ways" "$RINGSIM" report "$T/paths.db" --metric hit_rate --csv
expect_eq "$(head -1 "$T/out" | cut -d, -f1-3)" "scenario,nodes.1.weight,runs" "nodes.01.weight and nodes.1.weight are one column"
expect_eq "$(sed 1d "$T/out" | cut -d, -f2,3 | tr '\n' ' ')" "2,1 3,1 " "a combination per value"
expect_exit 0 "--by and --baseline with leading zeros" "$RINGSIM" report "$T/paths.db" --metric hit_rate --csv --by nodes.001.weight --baseline nodes.01.weight=2
expect_eq "$(sed 1d "$T/out" | cut -d, -f2,16 | tr -d '\r' | tr '\n' ' ')" "2,1 3,1 " "each paired with its baseline"

# --- errors -----------------------------------------------------------------------
expect_exit 2 "an unknown metric" "$RINGSIM" report "$db" --metric hit_rat
expect_match "hit_rat: not a column of the summary table; the metrics: requests, hit_rate" "$T/err" "names the metrics"
expect_exit 2 "a baseline value no run has" "$RINGSIM" report "$db" --baseline health.cooldown=99s
expect_match "no run has health.cooldown=99s \(its values: 2s, 10s, 30s\)" "$T/err" "names the values"
expect_exit 2 "a baseline that is not PATH=VALUE" "$RINGSIM" report "$db" --baseline health.cooldown
expect_exit 2 "--by a path no run has" "$RINGSIM" report "$db" --by health.cooldwn
expect_match "no run has health.cooldwn" "$T/err" "saying so"
expect_exit 2 "--csv and --json" "$RINGSIM" report "$db" --csv --json
expect_exit 2 "no database" "$RINGSIM" report
expect_exit 2 "a missing file is bad usage (exit 2, as run, check and plot)" "$RINGSIM" report "$T/missing.db"
expect_match "missing.db: cannot read" "$T/err" "saying so"
printf 'not a database' >"$T/text.db"
expect_exit 2 "a file that is not a database" "$RINGSIM" report "$T/text.db"
sqlite3 "$T/empty.db" "CREATE TABLE t(x)"
expect_exit 2 "a database that is not ringsim's" "$RINGSIM" report "$T/empty.db"
expect_match "not a ringsim results database" "$T/err" "saying so"
sqlite3 "$T/none.db" ".read /dev/null"
"$RINGSIM" run "$T/tiny.yaml" -o "$T/none.db" --quiet
sqlite3 "$T/none.db" "UPDATE runs SET status = 'interrupted'"
expect_exit 2 "no complete run" "$RINGSIM" report "$T/none.db"
expect_match "holds no complete run \(1 run left out: not complete \(interrupted\)\)" "$T/err" "saying why"
expect_exit 0 "report --help" "$RINGSIM" report --help
expect_match "^usage: ringsim report DB" "$T/out" "--help: usage"
expect_match "ringsim report results/cooldown.db" "$T/out" "--help: examples"

# --- the closing table of a sweep --------------------------------------------------
cat >"$T/s.yaml" <<'EOF'
name: sw
duration: 8s
workload: {keys: 4000, popularity: zipf, qps: 4000}
routing: {algorithm: ring, vnodes: 32}
nodes: [{id: A}, {id: B}, {id: C}]
cache: {capacity_items: 800}
events:
  - {at: 3s, add_node: {id: D}}
EOF
expect_exit 0 "a sweep with -j 2" "$RINGSIM" sweep "$T/s.yaml" --vary routing.vnodes=8,32,64 --vary routing.algorithm=ring,maglev --seeds 3 -j 2 --metric min_hit_rate --metric recovery_s -o "$T/sw.db"
cp "$T/out" "$T/sweep.out"
expect_eq "$(grep -c '^  [0-9]' "$T/sweep.out")" 12 "one row per combination and metric, each once"
expect_match "^min_hit_rate \(%\): lowest tick hit rate" "$T/sweep.out" "a table per metric"
expect_match "^  routing.vnodes routing.algorithm  runs +mean  95% CI +min +max" "$T/sweep.out" "its columns"
"$RINGSIM" report "$T/sw.db" --metric min_hit_rate --metric recovery_s >"$T/report.out" 2>/dev/null
grep '^  [0-9]' "$T/sweep.out" >"$T/a"
grep '^  [0-9]' "$T/report.out" >"$T/b"
cmp -s "$T/a" "$T/b"
ok $? "the sweep's rows are report's rows"
diff "$T/a" "$T/b" | head -5 | sed 's/^/#   /'
expect_exit 2 "sweep --metric with a name that is no column" "$RINGSIM" sweep "$T/s.yaml" --vary routing.vnodes=8 --metric bogus -o "$T/x.db"
[ ! -e "$T/x.db" ]; ok $? "and runs nothing"

# --- a run without hot-key detection joins the runs that set its default ------------
printf 'duration: 2s\nworkload: {keys: 1000, qps: 500}\nnodes: [{id: A}]\n' >"$T/hk.yaml"
"$RINGSIM" run "$T/hk.yaml" -o "$T/hk.db" --quiet >/dev/null 2>&1
"$RINGSIM" run "$T/hk.yaml" -o "$T/hk.db" --quiet --set clients.hot_key_detection.threshold=0 \
    >/dev/null 2>&1
expect_eq "$(sqlite3 "$T/hk.db" "SELECT count(*) FROM runs WHERE scenario_yaml LIKE
    '%hot_key_detection:%threshold: 0%window: 10s%replicas: 3%'")" 2 \
    "the effective scenario writes clients.hot_key_detection when detection is off"
expect_exit 0 "report --by clients.hot_key_detection.threshold" \
    "$RINGSIM" report "$T/hk.db" --by clients.hot_key_detection.threshold
expect_match '2 complete runs of hk in 1 combination' "$T/out" \
    "threshold 0 given and threshold 0 by default are one combination"

finish

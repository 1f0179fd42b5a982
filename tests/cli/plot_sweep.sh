#!/bin/sh
# `ringsim plot` on a sweep: one varied parameter (a chart per metric with
# 95% CI error bars), two (heat maps), the data files against
# `ringsim report --csv` of the same database, when a database is drawn as
# a sweep and when over time, the options and their errors, parameter
# values kept away from gnuplot's commands (TAP).
. "$(dirname "$0")/lib.sh"

TOP=${RINGSIM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export RINGSIM_PLOTS="$TOP/plots"
unset RINGSIM_GNUPLOT

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "1..0 # SKIP gnuplot is not installed (apt-get install gnuplot-nox)"
    exit 0
fi
is_png() { [ "$(od -An -c -N4 "$1" | tr -d ' ')" = '211PNG' ]; }
default_metrics="hit_rate min_hit_rate recovery_s peak_backend_qps peak_db_util db_overload_s cascade_removals stale_reads stale_overwrites errors"

# a small cluster that loses hit rate when D joins; the database is small
# enough to be overloaded in some runs
cat >"$T/s.yaml" <<'EOF'
name: sw
duration: 8s
workload: {keys: 4000, popularity: zipf, qps: 4000}
routing: {algorithm: ring, vnodes: 32}
nodes: [{id: A}, {id: B}, {id: C}]
cache: {capacity_items: 800}
database: {workers: 2, service_time: 2ms}
events:
  - {at: 3s, add_node: {id: D}}
EOF

# same_as_report DB DIR [--by PATH...]: every row of report --csv (every
# default metric) is in DIR/data/sweep-METRIC.tsv with the same numbers,
# and the data files hold no other combination. Prints the differences.
same_as_report() {
    db=$1 dir=$2
    shift 2
    "$RINGSIM" report "$db" --csv "$@" 2>/dev/null | tr -d '\r' >"$T/csv" || return 1
    # CSV: scenario,PATH[,PATH2],runs,metric,n,nulls,mean,ci95_lo,ci95_hi,min,max,runs_with
    awk -F, 'NR == 1 { np = NF - 11; next }
        { key = $2; if (np == 2) key = key "|" $3; o = np + 2
          printf "%s|%s|%s|%s|%s", $(o + 1), key, $o, $(o + 2), $(o + 3)
          for (i = o + 4; i <= NF; i++) printf "|%s", $i; print "" }' "$T/csv" | sort >"$T/want"
    : >"$T/got"
    for f in "$dir"/data/sweep-*.tsv; do
        m=${f##*/sweep-}
        m=${m%.tsv}
        case "$m" in metrics | axes | series) continue ;; esac
        # series x y runs n nulls mean lo hi min max runs_with cell value note xvalue yvalue
        awk -F'\t' -v m="$m" 'NR > 1 && $4 > 0 {
            key = $16; if ($17 != "") key = key "|" $17
            printf "%s|%s|%s|%s|%s", m, key, $4, $5, $6
            for (i = 7; i <= 12; i++) printf "|%s", ($i == "NaN" ? "" : $i); print "" }' "$f"
    done | sort >"$T/got"
    [ -s "$T/want" ] && cmp -s "$T/want" "$T/got" && return 0
    diff "$T/want" "$T/got" | head -8 | sed 's/^/#   /'
    return 1
}

# --- one parameter --------------------------------------------------------------------
db="$T/one.db"
expect_exit 0 "a sweep of one parameter" "$RINGSIM" sweep "$T/s.yaml" --vary routing.vnodes=8,32,160 --seeds 3 -j 2 -o "$db"
before=$(cksum <"$db")
expect_exit 0 "plot it" "$RINGSIM" plot "$db" -d "$T/p1"
expect_match "^$T/p1/index.html: 10 sweep charts of 9 runs in 3 combinations of routing.vnodes \(sweep-hit_rate.png, " "$T/out" "says what it drew"
expect_match "9 runs in 3 combinations: drawn as a sweep \(--run ID,... draws runs over time\)" "$T/err" "says why it drew a sweep"
bad=0
for m in $default_metrics; do
    { [ -s "$T/p1/sweep-$m.png" ] && is_png "$T/p1/sweep-$m.png"; } || { bad=1; echo "# no sweep-$m.png"; }
    [ -s "$T/p1/data/sweep-$m.tsv" ] || { bad=1; echo "# no data/sweep-$m.tsv"; }
    grep -q "<img src=\"sweep-$m.png\"" "$T/p1/index.html" || { bad=1; echo "# $m not in index.html"; }
done
ok $bad "a PNG, a data file and a place in index.html per metric of report"
[ ! -e "$T/p1/hit_rate.png" ]
ok $? "no chart over time"
same_as_report "$db" "$T/p1"
ok $? "the data behind the error bars are report --csv's means, CIs, min, max and runs_with"
expect_match '^x	number		3	routing.vnodes$' "$T/p1/data/sweep-axes.tsv" "the axis: a number"
expect_eq "$(cut -f 2,16 "$T/p1/data/sweep-min_hit_rate.tsv" | tr '\t\n' ': ')" "x:xvalue 8:8 32:32 160:160 " "points in order, at their values"
expect_eq "$(cksum <"$db")" "$before" "the database is unchanged"
# the table under each chart is report's
mean=$("$RINGSIM" report "$db" --metric min_hit_rate 2>/dev/null | awk '$1 == "160" { print $3 }')
expect_match "<td>160</td><td class=\"n\">3</td><td class=\"n\">$mean</td>" "$T/p1/index.html" "index.html's table has report's mean ($mean%)"

# chosen metrics, svg
expect_exit 0 "--metric twice, --format svg" "$RINGSIM" plot "$db" -d "$T/p1s" --metric cascade_removals --metric min_hit_rate --format svg
expect_match "2 sweep charts .*\(sweep-cascade_removals.svg, sweep-min_hit_rate.svg\)" "$T/out" "the two charts, in the order asked"
expect_match '</svg>' "$T/p1s/sweep-min_hit_rate.svg" "the SVG is complete"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$T/p1s/sweep-min_hit_rate.svg" "$T/p1s/sweep-cascade_removals.svg" 2>/dev/null
    ok $? "the SVGs are well-formed XML"
else
    _n=$((_n + 1)); echo "ok $_n - the SVGs are well-formed XML # SKIP no xmllint"
fi
expect_match 'routing.vnodes' "$T/p1s/sweep-min_hit_rate.svg" "the x axis is named by the parameter"
expect_match '95% CI' "$T/p1s/sweep-min_hit_rate.svg" "the legend names the error bars"
[ ! -e "$T/p1s/sweep-hit_rate.svg" ]
ok $? "and no other metric"
# cascade_removals: runs_with over each point ("k/n")
note=$(awk -F'\t' 'NR == 2 { print $15 }' "$T/p1s/data/sweep-cascade_removals.tsv")
echo "$note" | grep -Eq '^[0-9]+/3$'
ok $? "cascade_removals points carry k/n ($note)"
wanted=${note%%/*}
have=$("$RINGSIM" report "$db" --json --metric cascade_removals 2>/dev/null | grep -o '"runs_with":{"cascade_removals":[0-9]*' | head -1 | sed 's/.*://')
expect_eq "$wanted" "$have" "k is report's runs_with"

# --- two parameters: heat maps ---------------------------------------------------------
db2="$T/two.db"
expect_exit 0 "a sweep of two parameters" "$RINGSIM" sweep "$T/s.yaml" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,maglev,mod --seeds 2 -j 2 -o "$db2"
expect_exit 0 "plot it: heat maps" "$RINGSIM" plot "$db2" -d "$T/p2" --metric min_hit_rate --metric cascade_removals --metric recovery_s
expect_match "3 sweep charts of 12 runs in 6 combinations of routing.vnodes x routing.algorithm" "$T/out" "says what it drew"
bad=0
for m in min_hit_rate cascade_removals recovery_s; do
    is_png "$T/p2/sweep-$m.png" || bad=1
done
ok $bad "one heat map per metric"
same_as_report "$db2" "$T/p2" --metric min_hit_rate --metric cascade_removals --metric recovery_s
ok $? "the cells hold report --csv's numbers"
expect_eq "$(awk -F'\t' 'NR > 1 { print $2 $3 }' "$T/p2/data/sweep-min_hit_rate.tsv" | tr '\n' ' ')" "00 10 01 11 02 12 " "the grid, y-major"
expect_match '^y	category		3	routing.algorithm$' "$T/p2/data/sweep-axes.tsv" "the y axis: categories"
cells=$(awk -F'\t' 'NR > 1 { s = s $13 " " } END { print s }' "$T/p2/data/sweep-cascade_removals.tsv")
echo "$cells" | grep -Eq '^((0|50|100) ){6}$'
ok $? "cascade cells: the share of runs that cascaded, % ($cells)"
# --by chooses and orders the axes; the other parameter is pooled, saying so
expect_exit 0 "--by swaps the axes" "$RINGSIM" plot "$db2" -d "$T/p2b" --by routing.algorithm --by routing.vnodes --metric min_hit_rate
expect_match '^x	category		3	routing.algorithm$' "$T/p2b/data/sweep-axes.tsv" "x is the first --by"
expect_exit 0 "--by one of the two" "$RINGSIM" plot "$db2" -d "$T/p2c" --by routing.vnodes --metric min_hit_rate
expect_match "routing.algorithm also varies between the runs and is pooled" "$T/err" "says what is pooled"
expect_match "1 sweep chart of 12 runs in 2 combinations of routing.vnodes " "$T/out" "two points of six runs each"
same_as_report "$db2" "$T/p2c" --by routing.vnodes --metric min_hit_rate
ok $? "pooled, still report's numbers"

# --- sweep or runs over time ------------------------------------------------------------
expect_exit 0 "--run draws runs over time" "$RINGSIM" plot "$db" --run 1-3 -d "$T/t1"
[ -s "$T/t1/hit_rate.png" ] && [ ! -e "$T/t1/sweep-hit_rate.png" ]
ok $? "the time charts, no sweep chart"
"$RINGSIM" run "$T/s.yaml" -o "$T/pair.db" --quiet
"$RINGSIM" run "$T/s.yaml" -o "$T/pair.db" --quiet --set routing.algorithm=mod
expect_exit 0 "two runs with different --set" "$RINGSIM" plot "$T/pair.db" -d "$T/t2"
[ -s "$T/t2/hit_rate.png" ] && [ ! -e "$T/t2/sweep-hit_rate.png" ]
ok $? "are drawn over time, overlaid"
expect_exit 0 "unless --sweep" "$RINGSIM" plot "$T/pair.db" -d "$T/t3" --sweep --metric hit_rate
expect_match "1 sweep chart of 2 runs in 2 combinations of routing.algorithm" "$T/out" "then a sweep of two points"
expect_match '^x	category		2	routing.algorithm$' "$T/t3/data/sweep-axes.tsv" "categories along x"
expect_match '<td class="n">-</td>' "$T/t3/index.html" "one run per point: no CI, shown as -"

# --- errors ---------------------------------------------------------------------------
db3="$T/three.db"
"$RINGSIM" sweep "$T/s.yaml" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,mod --vary cache.capacity_items=400,800 --seeds 2 -j 2 -o "$db3" >/dev/null 2>&1
expect_exit 2 "three varied parameters" "$RINGSIM" plot "$db3" -d "$T/e1"
expect_match "3 parameters vary \(routing.vnodes, routing.algorithm, cache.capacity_items\); a sweep chart draws one \(error bars\) or two \(a heat map\): choose them with --by PATH" "$T/err" "says to choose with --by"
[ ! -e "$T/e1" ]
ok $? "and writes nothing"
"$RINGSIM" sweep "$T/s.yaml" --vary routing.vnodes=8,64 --vary routing.algorithm=ring,mod --vary cache.capacity_items=400,600,800 -j 2 -o "$T/three1.db" >/dev/null 2>&1
expect_exit 0 "three varied, one seed each: not clearly a sweep" "$RINGSIM" plot "$T/three1.db" -d "$T/e1b"
expect_match "3 parameters vary .*choose them with --by PATH.*; drawn over time" "$T/err" "drawn over time, saying how to draw a sweep"
[ -s "$T/e1b/hit_rate.png" ]
ok $? "the time charts"
expect_exit 0 "three, two chosen" "$RINGSIM" plot "$db3" -d "$T/e2" --by routing.vnodes --by cache.capacity_items --metric hit_rate
expect_exit 2 "--by three times" "$RINGSIM" plot "$db3" --by a --by b --by c
expect_match "at most two --by" "$T/err" "says at most two"
expect_exit 2 "--run with --sweep" "$RINGSIM" plot "$db" --run 1 --sweep
expect_match "give one or the other" "$T/err" "says so"
expect_exit 2 "--metric that is no column" "$RINGSIM" plot "$db" --metric bogus -d "$T/e3"
expect_match "--metric bogus: not a column of the summary table; the metrics: requests, hit_rate" "$T/err" "lists the metrics"
expect_exit 2 "--by that no run has" "$RINGSIM" plot "$db" --by nosuch.path -d "$T/e4"
expect_match "--by nosuch.path: no run has nosuch.path" "$T/err" "names it"
"$RINGSIM" sweep "$T/s.yaml" --seeds 2 -o "$T/seeds.db" >/dev/null 2>&1
expect_exit 2 "--sweep of runs where only the seed varies" "$RINGSIM" plot "$T/seeds.db" --sweep -d "$T/e5"
expect_match "no parameter varies between its runs \(but the seed\)" "$T/err" "says so"
expect_exit 0 "without --sweep they are drawn over time" "$RINGSIM" plot "$T/seeds.db" -d "$T/e6"
expect_exit 0 "help" "$RINGSIM" plot --help
expect_match "--by PATH" "$T/out" "--help: --by"
expect_match "drawn as a sweep when --sweep, --by or --metric" "$T/out" "--help: when a database is a sweep"

# --- parameter values are data, never gnuplot commands -----------------------------------
expect_exit 0 "a sweep over text full of gnuplot syntax" "$RINGSIM" sweep "$T/s.yaml" \
    --vary 'description=x"; system("touch pwned1"); print ",`touch pwned2`' --seeds 2 -o "$T/inj.db"
expect_exit 0 "plot it (svg)" "$RINGSIM" plot "$T/inj.db" -d "$T/inj" --format svg --metric hit_rate
expect_eq "$(find "$T" -name 'pwned*' | wc -l | tr -d ' ')" 0 "no command ran"
expect_match 'system\((&quot;|")touch pwned1' "$T/inj/sweep-hit_rate.svg" "the value is a tick label"
expect_match 'x&quot;; system' "$T/inj/index.html" "and escaped in index.html"

finish

#!/bin/sh
# `ringsim plot`: images, index.html, SVG, overlays, the database left
# untouched, scenario text kept away from gnuplot's commands, missing
# gnuplot, bad databases and run ids (TAP).
. "$(dirname "$0")/lib.sh"

TOP=${RINGSIM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export RINGSIM_PLOTS="$TOP/plots"
unset RINGSIM_GNUPLOT
charts="hit_rate backend_qps database transitions nodes"

sum() { cksum <"$1"; }
# is_png FILE: the PNG signature
is_png() { [ "$(od -An -c -N4 "$1" | tr -d ' ')" = '211PNG' ]; }
nonempty_all() { # nonempty_all DIR EXT
    for c in $charts; do [ -s "$1/$c$2" ] || return 1; done
}

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "1..0 # SKIP gnuplot is not installed (apt-get install gnuplot-nox)"
    exit 0
fi

# --- a small scenario, drawn ------------------------------------------------------
cat >"$T/small.yaml" <<'EOF'
name: small
description: Three nodes, a fourth joins, one is slow for a while.
duration: 20s
tick: 1s
workload: {keys: 5000, qps: 4000}
routing: {algorithm: ring, vnodes: 64}
nodes: [{id: A}, {id: B}, {id: C}]
database: {workers: 4, service_time: 2ms}
events:
  - {at: 6s, add_node: {id: D}}
  - {at: 10s, slow_node: {id: B, factor: 4, for: 4s}}
EOF
db="$T/small.db"
expect_exit 0 "run the small scenario (ring)" "$RINGSIM" run "$T/small.yaml" -o "$db" --quiet
expect_exit 0 "run it again with mod" "$RINGSIM" run "$T/small.yaml" -o "$db" --quiet \
    --set routing.algorithm=mod
before=$(sum "$db")

expect_exit 0 "plot --help exits 0" "$RINGSIM" plot --help
expect_match '^usage: ringsim plot DB' "$T/out" "--help: usage line"
expect_match 'ringsim plot results/so.db' "$T/out" "--help: examples"
expect_match 'gnuplot-nox' "$T/out" "--help: names the package"

expect_exit 0 "plot two runs" "$RINGSIM" plot "$db" -d "$T/png"
expect_match "$T/png/index.html" "$T/out" "prints where index.html is"
nonempty_all "$T/png" .png
ok $? "one non-empty PNG per chart"
ok_png=0
for c in $charts; do is_png "$T/png/$c.png" || ok_png=1; done
ok $ok_png "the images are PNG files"
[ -s "$T/png/index.html" ]
ok $? "index.html is not empty"
for f in runs.tsv ticks-1.tsv ticks-2.tsv nodes-1.tsv states-2.tsv events.tsv ejections.tsv; do
    [ -s "$T/png/data/$f" ] || { ok 1 "data file $f"; continue; }
done
ok 0 "the data files are written into DIR/data"
expect_eq "$(sum "$db")" "$before" "the database is byte-identical after plotting"
ls "$T"/small.db-* >/dev/null 2>&1
ok $((! $?)) "no journal or other file left next to the database"

# --- index.html --------------------------------------------------------------------
html="$T/png/index.html"
moved=$(sqlite3 "$db" "SELECT printf('%,d', keys_moved) FROM summary WHERE run_id = 2")
hit=$(sqlite3 "$db" "SELECT printf('%.2f', 100 * hit_rate) FROM summary WHERE run_id = 1")
expect_match ">$moved<" "$html" "index.html has the summary's keys moved ($moved)"
expect_match ">$hit<" "$html" "index.html has the summary's hit rate ($hit%)"
expect_match 'Peak backend load</td><td class="u">requests/s' "$html" "metrics have readable names and units"
for c in $charts; do
    grep -q "<img src=\"$c.png\"" "$html" || { ok 1 "index shows $c.png"; continue; }
done
ok 0 "index.html shows every chart"
if grep -Eiq 'https?://' "$html"; then ok 1 "index.html references nothing remote"; else
    ok 0 "index.html references nothing remote"; fi
if grep -Eiq '<script|<link|@import|url\(' "$html"; then ok 1 "index.html has no scripts or external styles"; else
    ok 0 "index.html has no scripts or external styles"; fi
expect_match 'routing.algorithm=mod' "$html" "index.html names the overridden parameter"
n_ej=$(sqlite3 "$db" "SELECT sum(instance_ejections) FROM summary")
expect_match ">$n_ej ejections? by single client instances or the coordinator \(the summary's instance_ejections" \
    "$html" "the ejection count says which ejections it counts ($n_ej)"

# --- the overlay ------------------------------------------------------------------
expect_match '^1	.*	run 1: routing.algorithm=ring$' "$T/png/data/runs.tsv" "run 1 labelled with its effective value"
expect_match '^2	.*	run 2: routing.algorithm=mod$' "$T/png/data/runs.tsv" "run 2 labelled with its override"
expect_match '	add D$' "$T/png/data/events.tsv" "the scenario event is in events.tsv, once"
expect_eq "$(grep -c 'add_node' "$T/png/data/events.tsv")" 1 "an event both runs share is drawn once"

# --- SVG ----------------------------------------------------------------------------
expect_exit 0 "--format svg" "$RINGSIM" plot "$db" -d "$T/svg" --format svg
nonempty_all "$T/svg" .svg
ok $? "one non-empty SVG per chart"
expect_match '</svg>' "$T/svg/hit_rate.svg" "the SVG is complete"
expect_match 'run 1: routing.algorithm=ring' "$T/svg/hit_rate.svg" "the SVG legend has run 1's label"
expect_match 'run 2: routing.algorithm=mod' "$T/svg/hit_rate.svg" "the SVG legend has run 2's label"
expect_match '<img src="nodes.svg"' "$T/svg/index.html" "index.html shows the SVGs"
if command -v xmllint >/dev/null 2>&1; then
    bad=0
    for c in $charts; do xmllint --noout "$T/svg/$c.svg" 2>/dev/null || bad=1; done
    ok $bad "the SVGs are well-formed XML"
else
    _n=$((_n + 1)); echo "ok $_n - the SVGs are well-formed XML # SKIP no xmllint"
fi

expect_exit 0 "--run 2 draws one run" "$RINGSIM" plot "$db" --run 2 -d "$T/one"
expect_eq "$(($(wc -l <"$T/one/data/runs.tsv")))" 2 "runs.tsv: header and one run"
expect_exit 0 "--run=1,2 and --format=png" "$RINGSIM" plot "$db" --run=1,2 --format=png -d "$T/two"

# default folder: results/plots/<db name>/ under the current directory
mkdir -p "$T/cwd"
(cd "$T/cwd" && "$RINGSIM" plot "$db" >/dev/null 2>&1)
[ -s "$T/cwd/results/plots/small/index.html" ]
ok $? "default DIR is results/plots/<db name without .db>/"

# --- scenario text never reaches gnuplot as a command ---------------------------------
# gnuplot runs in DIR/data: a relative "touch" would land there or below $T
cat >"$T/inject.yaml" <<'EOF'
name: "x'\"; system(\"touch pwned1\"); print \"<b>&amp;"
description: "`touch pwned2` <script>alert(1)</script> $(touch pwned3)"
duration: 20s
tick: 1s
workload: {keys: 2000, qps: 2000}
nodes:
  - {id: A}
  - {id: B}
  - {id: "C`touch${IFS}pwned4`"}
events:
  - {at: 5s, add_node: {id: "D'\";system(\"touch${IFS}pwned5\");\"", address: "`touch pwned6` \"q\""}}
  - {at: 10s, slow_node: {id: A, factor: 3, for: 5s}}
EOF
idb="$T/inject.db"
expect_exit 0 "run a scenario full of gnuplot and shell syntax" "$RINGSIM" run "$T/inject.yaml" \
    -o "$idb" --quiet --set 'nodes.1.address=`touch pwned7`"; system("touch pwned8")'
expect_exit 0 "plot it (png)" "$RINGSIM" plot "$idb" -d "$T/inj"
nonempty_all "$T/inj" .png
ok $? "every chart drawn"
expect_exit 0 "plot it (svg)" "$RINGSIM" plot "$idb" -d "$T/inj" --format svg
nonempty_all "$T/inj" .svg
ok $? "every SVG drawn"
expect_eq "$(find "$T" -name 'pwned*' | wc -l | tr -d ' ')" 0 "no command from the scenario ran"
expect_match 'system\(\\042touch pwned1\\042\)' "$T/inj/data/runs.tsv" "the name reached gnuplot as data"
expect_match 'system\(.touch pwned1.\)' "$T/inj/hit_rate.svg" "and is in the chart's title"
# double quotes travel as \042 (gnuplot's field would end at a raw one) and
# come out of gnuplot as double quotes, not as something else
expect_match 'x'"'"'\\042; system\(\\042touch pwned1\\042\)' "$T/inj/data/runs.tsv" \
    "a double quote is written as an octal escape in the data file"
expect_match 'x'"'"'(&quot;|"); system\((&quot;|")touch pwned1(&quot;|")\)' "$T/inj/hit_rate.svg" \
    "and drawn as a double quote"
expect_match "add D'\\\\042;system\\(\\\\042touch" "$T/inj/data/events.tsv" "event labels reached gnuplot as data"
expect_match '&lt;script&gt;alert' "$T/inj/index.html" "index.html escapes scenario text"
if grep -q '<script' "$T/inj/index.html"; then ok 1 "no markup from the scenario in index.html"; else
    ok 0 "no markup from the scenario in index.html"; fi
if awk -F'\t' 'NR > 1 && NF != 7 { bad = 1 } END { exit bad }' "$T/inj/data/runs.tsv"; then
    ok 0 "every runs.tsv row has 7 fields"; else ok 1 "every runs.tsv row has 7 fields"; fi

# backslashes are data too: gnuplot expands escapes in text fields, so
# "\n" must not become a line break nor "\y" vanish
cat >"$T/bs.yaml" <<'EOF'
name: 'say "hi" \n back\slash'
duration: 10s
tick: 1s
workload: {keys: 2000, qps: 2000}
nodes: [{id: A}, {id: B}]
events: [{at: 5s, add_node: {id: 'D"x\y'}}]
EOF
"$RINGSIM" run "$T/bs.yaml" -o "$T/bs.db" --quiet
expect_exit 0 "plot a scenario with quotes and backslashes (svg)" "$RINGSIM" plot "$T/bs.db" -d "$T/bs" --format svg
expect_match 'say (&quot;|")hi(&quot;|") \\n back\\slash<' "$T/bs/hit_rate.svg" "the title is the name as written"
expect_match 'D(&quot;|")x\\y' "$T/bs/hit_rate.svg" "and so is the event label"

# a run still being recorded is drawn as running, not as interrupted
cat >"$T/slow.yaml" <<'EOF'
name: slow
duration: 3000s
workload: {keys: 10000, qps: 50000}
nodes: [{id: A}, {id: B}]
EOF
"$RINGSIM" run "$T/slow.yaml" -o "$T/live.db" --quiet 2>/dev/null & pid=$!
i=0
while [ $i -lt 100 ]; do
    n=$(sqlite3 "$T/live.db" "SELECT count(*) FROM ticks" 2>/dev/null || echo 0)
    [ "${n:-0}" -gt 2 ] && break
    sleep 0.2
    i=$((i + 1))
done
expect_exit 0 "plot a run being recorded" "$RINGSIM" plot "$T/live.db" -d "$T/live"
expect_match '	run 1 \(running\)$' "$T/live/data/runs.tsv" "its label says running"
expect_match '<td>running</td>' "$T/live/index.html" "and so does index.html"
kill -INT $pid
wait $pid
expect_exit 0 "plot it once interrupted" "$RINGSIM" plot "$T/live.db" -d "$T/live"
expect_match '	run 1 \(interrupted\)$' "$T/live/data/runs.tsv" "then it says interrupted"

# --- gnuplot missing --------------------------------------------------------------
mkdir -p "$T/nobin"
ln -s "$(command -v sh)" "$T/nobin/sh"
before=$(sum "$db")
expect_exit 1 "no gnuplot in PATH exits 1" env PATH="$T/nobin" "$RINGSIM" plot "$db" -d "$T/nognu"
expect_match 'gnuplot not found in PATH' "$T/err" "says gnuplot is missing"
expect_match 'apt-get install gnuplot-nox' "$T/err" "names the package to install"
expect_eq "$(sum "$db")" "$before" "the database is byte-identical"
[ ! -e "$T/nognu" ]
ok $? "nothing written when gnuplot is missing"
expect_exit 1 "RINGSIM_GNUPLOT naming no program exits 1" env RINGSIM_GNUPLOT="$T/nope/gnuplot" \
    "$RINGSIM" plot "$db" -d "$T/nognu"
expect_match 'RINGSIM_GNUPLOT=.*not an executable' "$T/err" "says which setting is wrong"

# a gnuplot that fails: its message is shown
printf '#!/bin/sh\necho "line 1: the plot went wrong" >&2\nexit 1\n' >"$T/nobin/gnuplot"
chmod +x "$T/nobin/gnuplot"
expect_exit 1 "a failing gnuplot exits 1" env RINGSIM_GNUPLOT="$T/nobin/gnuplot" \
    "$RINGSIM" plot "$db" -d "$T/fail"
expect_match 'the plot went wrong' "$T/err" "shows what gnuplot said"
expect_exit 1 "chart scripts not found exits 1" env RINGSIM_PLOTS="$T/nobin" \
    "$RINGSIM" plot "$db" -d "$T/fail"
expect_match 'RINGSIM_PLOTS=.*chart scripts' "$T/err" "says where it looked"

# --- bad input ------------------------------------------------------------------------
expect_exit 2 "unknown run id exits 2" "$RINGSIM" plot "$db" --run 99 -d "$T/bad"
expect_match 'has no run 99 \(its runs: 1-2\)' "$T/err" "names the run and the ones there are"
expect_exit 2 "malformed --run exits 2" "$RINGSIM" plot "$db" --run 1,x
expect_exit 2 "bad --format exits 2" "$RINGSIM" plot "$db" --format jpg
expect_exit 2 "no database exits 2" "$RINGSIM" plot
expect_exit 2 "unknown option exits 2" "$RINGSIM" plot "$db" --colour
expect_exit 2 "missing file exits 2" "$RINGSIM" plot "$T/nope.db"
expect_match 'cannot read' "$T/err" "missing file: cannot read"
echo "not a database" >"$T/text.db"
expect_exit 2 "a text file exits 2" "$RINGSIM" plot "$T/text.db"
expect_match 'not a SQLite database' "$T/err" "text file: not a SQLite database"
sqlite3 "$T/other.db" "CREATE TABLE t(x)"
expect_exit 2 "another program's database exits 2" "$RINGSIM" plot "$T/other.db"
expect_match 'not a ringsim results database' "$T/err" "other database: not ringsim's"
sqlite3 "$db" .schema | grep -v sqlite_sequence | sqlite3 "$T/empty.db"
expect_exit 2 "a database without runs exits 2" "$RINGSIM" plot "$T/empty.db"
expect_match 'holds no runs' "$T/err" "empty database: holds no runs"
[ ! -e "$T/bad" ]
ok $? "nothing written on bad input"

# --- many runs: the last 8 by default ---------------------------------------------------
cat >"$T/tiny.yaml" <<'EOF'
name: tiny
duration: 5s
workload: {keys: 500, qps: 500}
nodes: [{id: A}, {id: B}]
EOF
i=1
while [ $i -le 9 ]; do
    "$RINGSIM" run "$T/tiny.yaml" -o "$T/many.db" --quiet --seed $i || break
    i=$((i + 1))
done
expect_exit 0 "plot a database of 9 runs" "$RINGSIM" plot "$T/many.db" -d "$T/many"
expect_match 'holds 9 runs; drawing the last 8 \(2-9\)' "$T/err" "says it draws the last 8"
expect_eq "$(($(wc -l <"$T/many/data/runs.tsv")))" 9 "runs.tsv: header and 8 runs"
expect_match '^2	.*	run 2: seed=2$' "$T/many/data/runs.tsv" "runs told apart by seed"
expect_exit 0 "--run 1-9 draws all 9" "$RINGSIM" plot "$T/many.db" --run 1-9 -d "$T/many9"
expect_eq "$(($(wc -l <"$T/many9/data/runs.tsv")))" 10 "runs.tsv: header and 9 runs"
# recovery_s is NULL without an event: nothing to recover from, not "never"
expect_match 'Recovery to baseline</td><td class="u">s</td><td class="n">no event</td>' \
    "$T/many/index.html" "a run without events: recovery 'no event'"
if grep -q '>never<' "$T/many/index.html"; then ok 1 "a run without events never says 'never'"; else
    ok 0 "a run without events never says 'never'"; fi

# --- a full disk ------------------------------------------------------------------
# gnuplot exits 0 with a part of an image when the disk fills up under it: the
# drawing fails saying the disk is full, removes the part, and leaves no
# index.html (not even an empty one); every image left is whole
if unshare -rm true 2>/dev/null; then
    mkdir -p "$T/fulldisk"
    bad=0 said=0
    # run inside the mount namespace: draw, then list what is left and the
    # images that do not end with a PNG's IEND chunk
    cat >"$T/full.sh" <<EOF
mount -t tmpfs -o size=\$1 tmpfs '$T/fulldisk' || exit 1
'$RINGSIM' plot '$T/small.db' -d '$T/fulldisk/p' >/dev/null 2>'$T/full.err'
echo \$? >'$T/full.rc'
ls '$T/fulldisk/p' >'$T/full.ls' 2>/dev/null
for f in '$T'/fulldisk/p/*.png; do
    [ -e "\$f" ] || continue
    [ "\$(tail -c 8 "\$f" | od -An -tx1 | tr -d ' \\n')" = 49454e44ae426082 ] || echo "\$f"
done >'$T/full.cut'
EOF
    for kb in 40 60 80 100 120 140 160 180; do
        unshare -rm sh "$T/full.sh" "${kb}k"
        rc=$(cat "$T/full.rc")
        [ "$rc" = 0 ] && continue
        [ "$rc" = 1 ] || { bad=1; echo "# ${kb}k: exit $rc"; }
        grep -q '^index.html$' "$T/full.ls" && { bad=1; echo "# ${kb}k: an index.html is left"; }
        [ -s "$T/full.cut" ] && { bad=1; echo "# ${kb}k: images cut short are left: $(cat "$T/full.cut")"; }
        grep -Eq "the disk is full|No space left on device" "$T/full.err" && said=$((said + 1))
        grep -Eq "the disk is full|No space left on device" "$T/full.err" || { bad=1; sed 's/^/# /' "$T/full.err"; }
    done
    ok $bad "a disk that fills up while drawing: exit 1, no index.html, no image cut short"
    [ $said -gt 0 ]; ok $? "and the message says the disk is full ($said sizes failed)"
fi

# --- interrupted ------------------------------------------------------------------
# Ctrl-C stops the drawing (its reads and gnuplot) and writes no index.html:
# the command says so and exits 1 (it was killed, exit 130, or with SIGINT
# ignored, as in a background job, drew everything and exited 0). A run of
# 60 nodes over 3000 ticks takes seconds to draw.
{ echo "name: wide"; echo "duration: 3000s"; echo "workload: {keys: 1000, qps: 5}"
  echo "health: {mode: off}"; echo "nodes:"
  i=0; while [ $i -lt 60 ]; do echo "  - {id: n$i}"; i=$((i + 1)); done; } >"$T/wide.yaml"
"$RINGSIM" run "$T/wide.yaml" -o "$T/wide.db" --quiet
for sig in INT TERM; do
    rm -rf "$T/wideplot"
    "$RINGSIM" plot "$T/wide.db" -d "$T/wideplot" >/dev/null 2>"$T/err" &
    pid=$!
    sleep 0.5
    kill -$sig $pid
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 $pid 2>/dev/null
    wait $pid
    expect_eq "$?" 1 "SIG$sig while drawing: exit 1, within seconds"
    expect_match "^ringsim plot: interrupted; (.*wideplot holds only the charts drawn before, and index.html was not written|nothing was written)$" \
        "$T/err" "saying what is left"
    [ ! -e "$T/wideplot/index.html" ]; ok $? "and no index.html"
done

finish

#!/bin/sh
# Exit codes, the same in every command: 0 success; 1 a run failed or was
# interrupted, or results could not be written; 2 bad usage or invalid
# input. Each command is given each kind of bad input: no arguments, an
# unknown option, an option without its value, a bad option value, a file
# that does not exist, a folder, a file it may not read, a name too long
# (one component past NAME_MAX, and a path past PATH_MAX), a file of the
# wrong kind (not YAML, not SQLite, SQLite without ringsim's tables, 0
# bytes), a damaged database, an invalid scenario: each is 2. A results
# database that cannot be written (a folder or another program's file in
# its place, the file size limit), or output that cannot (a full stdout),
# is 1. The table is in sim/cli/README.md.
# TAP.
. "$(dirname "$0")/lib.sh"

cd "$T" || exit 1
cat >good.yaml <<'EOF'
name: tiny
duration: 3s
workload: {keys: 500, qps: 200}
nodes: [{id: A}, {id: B}]
EOF
cat >bad.yaml <<'EOF'
name: tiny
duration: 3s
routing: {vnodes: many}
nodes: [{id: A}]
EOF
printf 'a: [unclosed\n' >notyaml.yaml
echo hello >notdb.txt
: >empty.db
sqlite3 plain.db "CREATE TABLE t(a); INSERT INTO t VALUES (1);"
mkdir adir
"$RINGSIM" run good.yaml -o good.db --quiet >/dev/null || echo "not ok - cannot make a database"
# damaged: the pages of the runs and summary tables overwritten
cp good.db damaged.db
for t in runs summary; do
    pg=$(sqlite3 good.db "SELECT rootpage FROM sqlite_master WHERE name = '$t'")
    python3 -c "
f = open('damaged.db', 'r+b'); f.seek(($pg - 1) * 4096); f.write(b'\x0d' + b'\xff' * 100)"
done
long=$(python3 -c "print('x' * 300)")                                # past NAME_MAX
deep="$T/$(python3 -c "print('/'.join(['d' * 200] * 25))")/f.db"     # past PATH_MAX
keys="--keys-file"

# t CODE NAME ARGS... : ringsim ARGS exits CODE
t() {
    code=$1 name=$2
    shift 2
    rm -rf out.db sw.db m.db plots
    expect_exit "$code" "$name: exit $code" "$RINGSIM" "$@"
}

# --- run, check, sweep: the scenario ------------------------------------------------
for cmd in run check sweep; do
    case $cmd in
        run) more="-o out.db --quiet" ;;
        check) more="" ;;
        sweep) more="--vary workload.keys=500,600 -o sw.db --quiet" ;;
    esac
    # shellcheck disable=SC2086
    {
        t 2 "$cmd without arguments" $cmd
        t 2 "$cmd unknown option" $cmd good.yaml --bogus $more
        t 2 "$cmd --set without a value" $cmd good.yaml $more --set
        t 2 "$cmd --set of a bad value" $cmd good.yaml --set routing.vnodes=many $more
        t 2 "$cmd --seed -3" $cmd good.yaml --seed -3 $more
        t 2 "$cmd of a missing scenario" $cmd nosuch.yaml $more
        t 2 "$cmd of a folder" $cmd adir $more
        t 2 "$cmd of a name too long" $cmd "$long.yaml" $more
        t 2 "$cmd of a path too long" $cmd "$deep" $more
        t 2 "$cmd of an invalid scenario" $cmd bad.yaml $more
        t 2 "$cmd of a file that is not YAML" $cmd notyaml.yaml $more
        t 2 "$cmd of an empty file" $cmd empty.db $more
        t 2 "$cmd of a scenario the cost estimate refuses" $cmd good.yaml \
            --set duration=2000h --set tick=1000s --set workload.qps=1000000 $more
    }
done
t 2 "run --threads 3" run good.yaml --threads 3 -o out.db
t 2 "sweep without --vary" sweep good.yaml -o sw.db
t 2 "sweep without -o" sweep good.yaml --vary workload.qps=100,200
t 2 "sweep --vary of a bad value" sweep good.yaml --vary routing.vnodes=a,b -o sw.db
t 2 "sweep --shard 3/2" sweep good.yaml --vary workload.qps=100,200 --shard 3/2 -o sw.db
t 2 "sweep --shard x" sweep good.yaml --vary workload.qps=100,200 --shard x -o sw.db
t 2 "sweep -j 0" sweep good.yaml --vary workload.qps=100,200 -j 0 -o sw.db
t 2 "sweep --seeds 0" sweep good.yaml --vary workload.qps=100,200 --seeds 0 -o sw.db
t 2 "sweep --metric nope" sweep good.yaml --vary workload.qps=100,200 --metric nope -o sw.db

# a trace whose content is malformed, found as a run starts: run exits 2, and
# so does a sweep whose runs failed only for it (each exits 2); a sweep with a
# run that failed otherwise exits 1
cat >trace.yaml <<'EOF'
name: traced
duration: 3s
workload: {trace: {path: good.csv, format: csv}}
nodes: [{id: A}]
EOF
printf 'time,key,op\n0,k1,get\n1,k2,get\n' >good.csv
printf 'garbage line\n' >bad.csv
t 2 "run of a malformed trace" run trace.yaml --set workload.trace.path=bad.csv -o out.db --quiet
expect_eq "$(sqlite3 out.db 'SELECT status FROM runs')" failed "(its run recorded as failed)"
t 2 "sweep of a malformed trace" sweep trace.yaml --set workload.trace.path=bad.csv \
    --vary routing.vnodes=8,16 -o sw.db --quiet
expect_match "2 of 2 runs did not complete" "$T/err" "(both runs failed)"
expect_match "failed for invalid input" "$T/err" "saying why"
t 2 "sweep of a good and a malformed trace" sweep trace.yaml \
    --vary workload.trace.path=good.csv,bad.csv -o sw.db --quiet
expect_eq "$(sqlite3 sw.db 'SELECT group_concat(status) FROM runs')" "complete,failed" \
    "(the good one complete)"
t 0 "sweep of a good trace" sweep trace.yaml --vary routing.vnodes=8,16 -o sw.db --quiet
# a database whose one run failed before its first tick: nothing to report or draw
"$RINGSIM" run trace.yaml --set workload.trace.path=bad.csv -o noticks.db --quiet 2>/dev/null
t 2 "report of runs none of which completed" report noticks.db
t 2 "plot of runs none of which recorded a tick" plot noticks.db -d plots
expect_match "recorded no ticks; nothing to draw" "$T/err" "saying so"

# --- run, sweep: a results database that cannot be written is 1 ------------------
for cmd in run sweep; do
    more=""
    [ $cmd = sweep ] && more="--vary workload.qps=100,200"
    # shellcheck disable=SC2086
    {
        t 1 "$cmd -o a folder" $cmd good.yaml $more -o adir --quiet
        t 1 "$cmd -o another program's database" $cmd good.yaml $more -o plain.db --quiet
        t 1 "$cmd -o a text file" $cmd good.yaml $more -o notdb.txt --quiet
        t 1 "$cmd -o a name too long" $cmd good.yaml $more -o "$long.db" --quiet
    }
done
(ulimit -f 40 && exec "$RINGSIM" run good.yaml -o "$T/full.db" --quiet >/dev/null 2>&1)
expect_eq $? 1 "run past the file size limit (a full disk): exit 1"

# --- ring ---------------------------------------------------------------------------
t 2 "ring unknown option" ring --bogus
t 2 "ring --algo without a value" ring --algo
t 2 "ring --algo nope" ring --algo nope
t 2 "ring --vnodes -1" ring --vnodes -1
t 2 "ring --count x" ring --count x
t 2 "ring a stray argument" ring foo
t 2 "ring --keys-file of a missing file" ring $keys nosuch.txt
t 2 "ring --keys-file of a folder" ring $keys adir
t 2 "ring --keys-file of a name too long" ring $keys "$long.txt"
t 2 "ring --keys-file of a path too long" ring $keys "$deep"

# --- merge, report, plot: the input database ----------------------------------------
for cmd in merge report plot; do
    pre="" post=""
    [ $cmd = merge ] && pre=m.db
    [ $cmd = plot ] && post="-d plots"
    # shellcheck disable=SC2086
    {
        t 2 "$cmd without arguments" $cmd
        t 2 "$cmd unknown option" $cmd $pre good.db --bogus
        t 2 "$cmd of a missing file" $cmd $pre nosuch.db $post
        t 2 "$cmd of a folder" $cmd $pre adir $post
        t 2 "$cmd of a file that is not SQLite" $cmd $pre notdb.txt $post
        t 2 "$cmd of a 0-byte file" $cmd $pre empty.db $post
        t 2 "$cmd of SQLite without ringsim's tables" $cmd $pre plain.db $post
        t 2 "$cmd of a damaged database" $cmd $pre damaged.db $post
        t 2 "$cmd of a name too long" $cmd $pre "$long.db" $post
        t 2 "$cmd of a path too long" $cmd $pre "$deep" $post
    }
done
t 0 "merge of a good database" merge m.db good.db
t 0 "report of a good database" report good.db
t 2 "report --metric nope" report good.db --metric nope
t 2 "report --csv --json" report good.db --csv --json
t 2 "plot --format gif" plot good.db --format gif
t 2 "plot --run 99" plot good.db --run 99 -d plots
t 2 "plot --run x" plot good.db --run x
t 2 "merge an input given twice" merge m.db good.db ./good.db
t 2 "merge the output as an input" merge good.db good.db
t 2 "merge into - (standard output), as run -o - and sweep -o -" merge - good.db
[ ! -e ./- ]; ok $? "(no file named - is made)"
t 2 "run -o -" run good.yaml -o -
t 2 "sweep -o -" sweep good.yaml --vary workload.keys=500,600 -o -
t 1 "merge into a folder" merge adir good.db
t 1 "merge into another program's database" merge plain.db good.db
t 1 "merge into a text file" merge notdb.txt good.db
t 1 "merge into a name too long" merge "$long.db" good.db
cp damaged.db dout.db
t 1 "merge into a damaged database" merge dout.db good.db
expect_match "^ringsim merge: dout.db: .*the database merged into is damaged" "$T/err" \
    "naming it, not the input"
cp damaged.db dout.db
t 1 "run into a damaged database" run good.yaml -o dout.db --quiet
expect_match "^ringsim run: dout.db: " "$T/err" "naming it"
t 1 "plot -d a file" plot good.db -d notdb.txt
t 2 "an unknown command" frob

# --- a database another process holds locked (past the 10 s wait): 1, not 2 -----------
# the file is not at fault; each command says it is locked
cp good.db locked.db
python3 -c "
import sqlite3, time, os
c = sqlite3.connect('locked.db', isolation_level=None)
c.execute('PRAGMA journal_mode=DELETE')
c.execute('BEGIN EXCLUSIVE')
c.execute('INSERT INTO params VALUES (999, \"x\", \"y\")')
open('locked.flag', 'w').close()
time.sleep(60)
" &
holder=$!
i=0
while [ ! -e locked.flag ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pids=""
for c in "run good.yaml -o locked.db --quiet" "merge lm.db locked.db" "report locked.db" \
         "plot locked.db -d lp"; do
    name=${c%% *}
    # shellcheck disable=SC2086
    ("$RINGSIM" $c >/dev/null 2>"lock-$name.err"; echo $? >"lock-$name.rc") &
    pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
for name in run merge report plot; do
    expect_eq "$(cat "lock-$name.rc")" 1 "$name of a database locked by another process: exit 1"
    expect_match "locked.db: cannot read it \(database is locked\)" "lock-$name.err" "saying it is locked"
done
[ ! -e lm.db ]; ok $? "(and merge wrote nothing)"

# --- a full stdout: the output is not all written, 1 in every command ----------------
for c in "run good.yaml -o $T/full-out.db" "check good.yaml" "ring --count 10" \
         "sweep good.yaml --vary workload.keys=500,600 --list -o $T/l.db" \
         "merge $T/full-m.db good.db" "report good.db" "--help" "run --help" "--version"; do
    if [ ! -w /dev/full ]; then
        _n=$((_n + 1)); echo "ok $_n - ${c%% *} into a full stdout # SKIP no /dev/full"
        continue
    fi
    # shellcheck disable=SC2086
    "$RINGSIM" $c >/dev/full 2>"$T/err"
    expect_eq $? 1 "ringsim $(echo "$c" | sed "s#$T/##g") into a full stdout (/dev/full): exit 1"
    expect_match 'stdout: ' "$T/err" "saying so"
done

# --- a file it may not read: as root, read as nobody ----------------------------------
cp good.db unread.db && cp good.yaml unread.yaml && echo key-1 >unread.txt
chmod 000 unread.db unread.yaml unread.txt
as=""
if [ "$(id -u)" = 0 ]; then
    chmod 755 "$T"
    if command -v setpriv >/dev/null 2>&1 \
        && setpriv --reuid=65534 --regid=65534 --clear-groups "$RINGSIM" --version >/dev/null 2>&1; then
        as="setpriv --reuid=65534 --regid=65534 --clear-groups"
    else
        as=skip
    fi
fi
for c in "run unread.yaml -o $T/nb.db --quiet" "check unread.yaml" \
         "sweep unread.yaml --vary workload.qps=1,2 -o $T/nb.db" "ring $keys unread.txt" \
         "merge $T/nbm.db unread.db" "report unread.db" "plot unread.db -d $T/nbp"; do
    if [ "$as" = skip ]; then
        _n=$((_n + 1)); echo "ok $_n - ${c%% *} of an unreadable file # SKIP root without setpriv"
        continue
    fi
    # shellcheck disable=SC2086
    expect_exit 2 "${c%% *} of a file it may not read: exit 2" $as "$RINGSIM" $c
    expect_match 'Permission denied' "$T/err" "saying why"
done
finish

#!/bin/sh
# Sweeps beyond one process: `ringsim sweep ... --list` (one self-contained
# command per run), examples/sweep_parallel.sh (GNU parallel, on this
# machine; also through its --sshlogin path with ":", this machine) and
# examples/sweep_slurm.sbatch (run here task by task, as a job array would)
# each give, once merged, the database a one-process sweep of the same grid
# writes: the same runs, params, ticks, node ticks, views, events and
# summaries, compared run by run by params and seed (run ids, started_at
# and wall_s aside). TAP.
. "$(dirname "$0")/lib.sh"

TOP=${RINGSIM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cat >"$T/s.yaml" <<'EOF'
name: par
duration: 8s
workload: {keys: 4000, popularity: zipf, qps: 4000, write_ratio: 0.05}
routing: {algorithm: ring, vnodes: 32}
nodes: [{id: A}, {id: B}, {id: C}]
cache: {capacity_items: 800}
events:
  - {at: 3s, add_node: {id: D}}
  - {at: 5s, slow_node: {id: A, factor: 30, for: 2s}}
EOF
GRID="--vary routing.vnodes=8,64 --vary health.cooldown=0s,5s --seeds 2"

# every table of a database, each row keyed by its run's params and seed
# instead of its run id, sorted; runs without run_id, started_at, wall_s
canon() {
    db=$1
    key="(SELECT group_concat(path || '=' || value, ' ') FROM
            (SELECT path, value FROM params p WHERE p.run_id = x.run_id ORDER BY path, value))
         || ' seed=' || (SELECT seed FROM runs r WHERE r.run_id = x.run_id)"
    for t in runs params ticks node_ticks views events summary; do
        cols=$(sqlite3 "$db" "SELECT group_concat(name, ', ') FROM pragma_table_info('$t')
                              WHERE name NOT IN ('run_id', 'started_at', 'wall_s')")
        sqlite3 -nullvalue NULL "$db" "SELECT '$t', $key, $cols FROM $t x ORDER BY 2, x.rowid"
    done | sort
}

# --- the one-process sweep ---------------------------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "a one-process sweep" "$RINGSIM" sweep "$T/s.yaml" $GRID -o "$T/one.db"
canon "$T/one.db" >"$T/one.canon"
expect_eq "$(grep -c '^runs|' "$T/one.canon")" 8 "it holds 8 runs"
[ "$(grep -c '^ticks|' "$T/one.canon")" -gt 50 ]; ok $? "and their ticks"

# --- --list ------------------------------------------------------------------------
cd "$T" || exit 1
# shellcheck disable=SC2086
expect_exit 0 "sweep --list" "$RINGSIM" sweep "$T/s.yaml" $GRID -j 2 -o "dir with space/l.db" --list
cp "$T/out" "$T/list"
expect_eq "$(wc -l <"$T/list" | tr -d ' ')" 8 "one line per run"
expect_eq "$(cut -d' ' -f1 "$T/list" | tr '\n' ' ')" "0 1 2 3 4 5 6 7 " "each line starts with its shard index"
expect_match "^3 $RINGSIM sweep $T/s.yaml --vary routing.vnodes=8,64 --vary health.cooldown=0s,5s --seeds 2 --shard 3/8 -o 'dir with space/l.db.part-3'$" "$T/list" "the command: the sweep as given, with --shard I/N and its own part file (quoted)"
if grep -q -- ' -j ' "$T/list"; then ok 1 "no -j in the commands"; else ok 0 "no -j in the commands"; fi
if grep -q -- '--list' "$T/list"; then ok 1 "no --list in the commands"; else ok 0 "no --list in the commands"; fi
expect_match "ringsim merge 'dir with space/l.db' 'dir with space/l.db.part-'\*" "$T/err" "stderr says how to merge"
[ ! -e "dir with space" ]; ok $? "--list runs nothing and writes nothing"
mkdir -p "dir with space"
bad=0
while read -r i cmd; do
    sh -c "$cmd" >/dev/null 2>&1 || bad=1
done <"$T/list"
ok $bad "each line runs on its own"
expect_exit 0 "merge the part files" "$RINGSIM" merge "$T/listed.db" "dir with space/l.db.part-"*
canon "$T/listed.db" >"$T/listed.canon"
cmp -s "$T/one.canon" "$T/listed.canon"
ok $? "the merged parts are the one-process sweep (runs, params, ticks, node ticks, views, events, summaries)"
diff "$T/one.canon" "$T/listed.canon" | head -5 | cut -c 1-200 | sed 's/^/#   /'
# twelve runs: part numbers padded to sort in run order
expect_exit 0 "sweep --list of 12 runs" "$RINGSIM" sweep s.yaml --vary routing.vnodes=8,16,32,64,128,256 --seeds 2 -o x.db --list
expect_match "^11 .* --shard 11/12 -o x.db.part-11$" "$T/out" "two-digit part numbers"
expect_match "^7 .* --shard 7/12 -o x.db.part-07$" "$T/out" "padded with zeros"
expect_exit 2 "--list with --shard is refused" "$RINGSIM" sweep s.yaml --vary routing.vnodes=8,64 --shard 0/2 -o x.db --list
expect_match "leave out --shard" "$T/err" "saying why"
expect_exit 2 "--list validates every combination first" "$RINGSIM" sweep s.yaml --vary routing.vnodes=8,zero -o x.db --list
[ ! -s "$T/out" ]; ok $? "and prints no command then"
cd "$TOP" || exit 1

# --- GNU parallel --------------------------------------------------------------------
if ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
    ok 1 "GNU parallel is installed (tests/deps.sh installs the Debian package parallel)"
    finish
    exit 1
fi
# shellcheck disable=SC2086
RINGSIM="$RINGSIM" JOBS=2 sh examples/sweep_parallel.sh "$T/par.db" "$T/s.yaml" $GRID >"$T/out" 2>"$T/err"
rc=$?
ok $rc "examples/sweep_parallel.sh runs the sweep with GNU parallel"
[ $rc = 0 ] || sed 's/^/#   err: /' "$T/err" | grep -v '^#   err: \[\|peak memory\|ringsim sweep: 1 runs' | head -5
canon "$T/par.db" >"$T/par.canon"
cmp -s "$T/one.canon" "$T/par.canon"
ok $? "its database is the one-process sweep's"
diff "$T/one.canon" "$T/par.canon" | head -5 | cut -c 1-200 | sed 's/^/#   /'
if ls "$T"/par.db.part-* >/dev/null 2>&1; then ok 1 "the part files are gone"; else ok 0 "the part files are gone"; fi
expect_match "^$T/par.db: 8 complete runs of par in 4 combinations of routing.vnodes x health.cooldown; seeds 1, 2$" "$T/out" "and it prints the report"
"$RINGSIM" report "$T/one.db" --json >"$T/r1" 2>/dev/null
"$RINGSIM" report "$T/par.db" --json >"$T/r2" 2>/dev/null
cmp -s "$T/r1" "$T/r2"; ok $? "report --json of the merged database is the one-process sweep's"

# through parallel's --sshlogin path, with ":" (this machine)
# shellcheck disable=SC2086
RINGSIM="$RINGSIM" HOSTS=: sh examples/sweep_parallel.sh "$T/ssh.db" "$T/s.yaml" $GRID >/dev/null 2>"$T/err"
ok $? "HOSTS=: (parallel --sshlogin :, --workdir)"
canon "$T/ssh.db" >"$T/ssh.canon"
cmp -s "$T/one.canon" "$T/ssh.canon"; ok $? "gives the same database"

# a failing run: exit 1, the part files kept
cat >"$T/bad.yaml" <<'EOF'
name: bad
duration: 3s
workload: {keys: 500, qps: 500}
nodes: [{id: A}, {id: B}]
EOF
# shellcheck disable=SC2086
RINGSIM="$RINGSIM" sh examples/sweep_parallel.sh "$T/b.db" "$T/bad.yaml" --vary routing.vnodes=8,zero >/dev/null 2>"$T/err"
expect_eq "$?" 2 "a sweep that does not validate: exit 2, nothing run"
touch "$T/c.db.part-0"
RINGSIM="$RINGSIM" sh examples/sweep_parallel.sh "$T/c.db" "$T/bad.yaml" --seeds 2 >/dev/null 2>"$T/err"
expect_eq "$?" 2 "part files of an earlier attempt: refused"
expect_match "c.db.part-0 exists" "$T/err" "naming them"
sh examples/sweep_parallel.sh --help >"$T/out"
expect_match "GNU parallel" "$T/out" "examples/sweep_parallel.sh --help"

# --- a Slurm job array, task by task -----------------------------------------------
cd "$T" || exit 1
# shellcheck disable=SC2086
"$RINGSIM" sweep "$T/s.yaml" $GRID -o slurm.db --list >slurm.jobs 2>/dev/null
# slurm_array MIN MAX: runs the tasks MIN..MAX of an array (SLURM_ARRAY_TASK_MIN
# = MIN), checks that each ran, and merges their parts into slurm.canon
slurm_array() {
    rm -f slurm.db slurm.db.part-*
    bad=0
    i=$1
    while [ $i -le $2 ]; do
        SLURM_ARRAY_TASK_MIN=$1 SLURM_ARRAY_TASK_ID=$i JOBS=slurm.jobs \
            sh "$TOP/examples/sweep_slurm.sbatch" >/dev/null 2>&1 || bad=1
        i=$((i + 1))
    done
    ok $bad "examples/sweep_slurm.sbatch, array $1-$2: every task runs its line"
    "$RINGSIM" merge slurm.db slurm.db.part-* >/dev/null
    canon slurm.db >slurm.canon
    cmp -s one.canon slurm.canon; ok $? "merged, the one-process sweep's database (array $1-$2)"
}
slurm_array 0 7
SLURM_ARRAY_TASK_ID=8 JOBS=slurm.jobs sh "$TOP/examples/sweep_slurm.sbatch" >/dev/null 2>"$T/err"
expect_eq "$?" 2 "a task with no line: exit 2"
SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_ID=8 JOBS=slurm.jobs sh "$TOP/examples/sweep_slurm.sbatch" \
    >/dev/null 2>"$T/err"
expect_eq "$?" 2 "an array 0-8 for 8 lines: task 8 is refused"
expect_match "submit with --array=0-7 or --array=1-8" "$T/err" "saying which arrays to use"
# an array counted from 1 (--array=1-8): task 8 runs line 0, every run once
slurm_array 1 8
SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_ID=9 JOBS=slurm.jobs sh "$TOP/examples/sweep_slurm.sbatch" \
    >/dev/null 2>"$T/err"
expect_eq "$?" 2 "past the last line in an array from 1: exit 2"
if JOBS=slurm.jobs sh "$TOP/examples/sweep_slurm.sbatch" >/dev/null 2>&1; then
    ok 1 "outside a job array: an error"
else
    ok 0 "outside a job array: an error"
fi
cd "$TOP" || exit 1

finish

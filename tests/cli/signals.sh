#!/bin/sh
# Ctrl-C and SIGTERM end a run promptly wherever it is: in a sparse run
# that only closes ticks, and in a long setup. What was recorded stays, with
# status interrupted.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1

# waits up to $2 seconds for pid $1; sets rc to its exit code, or "hung"
wait_for() {
    i=0
    while [ -r "/proc/$1/status" ] && ! grep -q '^State:.*Z' "/proc/$1/status"; do
        i=$((i + 1))
        [ $i -gt $(($2 * 10)) ] && { kill -9 "$1"; wait "$1"; rc=hung; return; }
        sleep 0.1
    done
    wait "$1"
    rc=$?
}

# interrupt DELAY SIGNAL ERRFILE COMMAND...: starts COMMAND (its stderr to
# ERRFILE), sends SIGNAL after DELAY seconds and waits for it (sets rc)
interrupt() {
    delay=$1 sig=$2 errf=$3
    shift 3
    "$@" 2>"$errf" &
    pid=$!
    sleep "$delay"
    kill "-$sig" $pid
    wait_for $pid 10
}

{ echo "name: sparse"; echo "duration: 10000000s"; echo "workload: {qps: 1e-9}"
  echo "health: {mode: off}"; echo "nodes:"
  i=0; while [ $i -lt 100 ]; do echo "  - {id: n$i}"; i=$((i + 1)); done; } >sparse.yaml

interrupt 1.5 INT sparse.err "$RINGSIM" run sparse.yaml -o sparse.db --quiet --force
expect_eq "$rc" 1 "Ctrl-C ends a sparse run of 10^7 s within seconds (exit 1)"
expect_eq "$(sqlite3 sparse.db 'SELECT status FROM runs')" interrupted "its status is interrupted"
ticks=$(sqlite3 sparse.db 'SELECT count(*) FROM ticks')
[ "$ticks" -gt 0 ] && [ "$ticks" -lt 10000000 ]
ok $? "the ticks closed before the signal are kept ($ticks)"
# no event ever happens in this run (the clock of events stays at 0): the
# time reached is the end of the last tick closed
expect_match "interrupted at t=$ticks\.000 s; the $ticks ticks recorded are kept" sparse.err \
    "the message gives the simulated time the ticks reached"

interrupt 1.5 TERM term.err "$RINGSIM" run sparse.yaml -o sparse.db --quiet --force
expect_eq "$rc" 1 "SIGTERM too"

# merge: a signal stops the copy and rolls it back; the database merged into
# is as it was, and the merge says so and exits 1 (it was killed: exit 130 or
# 143, or, with SIGINT ignored as in a background job, went on to the end)
"$RINGSIM" run sparse.yaml -o one.db --quiet --set duration=3s 2>/dev/null
before=$(sqlite3 one.db .dump | cksum)
interrupt 0.5 INT merge.err "$RINGSIM" merge one.db sparse.db
expect_eq "$rc" 1 "Ctrl-C during a merge: exit 1"
expect_match "^ringsim merge: interrupted; nothing was merged \(one.db is as it was\)$" merge.err \
    "saying nothing was merged"
expect_eq "$(sqlite3 one.db .dump | cksum)" "$before" "and the database merged into is unchanged"
interrupt 0.5 TERM merge2.err "$RINGSIM" merge new.db sparse.db
expect_eq "$rc" 1 "SIGTERM during a merge into a new file: exit 1"
expect_match "^ringsim merge: interrupted; nothing was merged \(new.db (was created and holds no runs|was not created)\)$" \
    merge2.err "saying what became of the file"
expect_eq "$(sqlite3 new.db 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" 0 "which holds no runs"
[ ! -e new.db-wal ] && [ ! -e new.db-shm ]; ok $? "and no -wal or -shm file is left beside it"

# two signals in a row (a second Ctrl-C, a supervisor's repeated SIGTERM): the
# second lands while the first's status is written, and must not kill the
# process then, leaving the run 'running'
"$RINGSIM" run sparse.yaml -o twice.db --quiet --force 2>twice.err &
pid=$!
sleep 1.5
kill -TERM $pid
kill -TERM $pid
sleep 0.01
kill -TERM $pid 2>/dev/null
wait_for $pid 10
expect_eq "$rc" 1 "two SIGTERMs: exit 1, not killed"
expect_eq "$(sqlite3 twice.db 'SELECT status FROM runs')" interrupted "and the run is interrupted"

# a setup that takes seconds: 20 million keys to place
printf 'name: big\nworkload: {keys: 20000000}\nnodes: [{id: A}]\n' >big.yaml
interrupt 1 INT big.err "$RINGSIM" run big.yaml -o big.db --quiet --force
expect_eq "$rc" 1 "Ctrl-C during the setup ends it too (exit 1)"
expect_match "interrupted while" big.err "saying it was interrupted in the setup"
expect_eq "$(sqlite3 big.db 'SELECT status FROM runs')" interrupted "recorded as interrupted"
finish

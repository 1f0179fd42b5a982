#!/bin/sh
# `ringsim check`: the ok line, exit codes, error messages with FILE:LINE:COL,
# --set and --seed, usage errors, --help and --schema.
. "$(dirname "$0")/lib.sh"

# --- valid scenarios ---------------------------------------------------------
for f in minimal full events; do
    expect_exit 0 "check $f.yaml exits 0" "$RINGSIM" check "tests/data/$f.yaml"
done
expect_exit 0 "check full.yaml" "$RINGSIM" check tests/data/full.yaml
expect_eq "$(cat "$T/out")" "ok: scale-out-3-to-4" "prints exactly one line: ok: NAME"
expect_eq "$(wc -c <"$T/err")" "0" "nothing on stderr when valid"
expect_exit 0 "name defaults to the file name" "$RINGSIM" check tests/data/minimal.yaml
expect_eq "$(cat "$T/out")" "ok: minimal" "ok: minimal"

# --- invalid files: every error, one per line, with positions ---------------------
cat >"$T/bad.yaml" <<'EOF'
name: bad
routing:
  vnodes: many
  vnode: 5
nodes:
  - {id: A}
  - {id: A}
events:
  - {at: 5s, remove_node: {id: C}}
EOF
expect_exit 2 "an invalid scenario exits 2" "$RINGSIM" check "$T/bad.yaml"
expect_eq "$(wc -c <"$T/out")" "0" "nothing on stdout when invalid"
expect_eq "$(wc -l <"$T/err")" "4" "one line per error, all of them"
expect_match "^$T/bad.yaml:3:11: routing.vnodes: expected a positive integer, got \"many\"$" \
    "$T/err" "type error at line:col of the value"
expect_match "^$T/bad.yaml:4:3: routing.vnode: unknown key \(expected one of: algorithm, hash, vnodes, .*\); did you mean vnodes\?$" \
    "$T/err" "unknown key with a suggestion"
expect_match "^$T/bad.yaml:7:10: nodes.1.id: duplicate node id \"A\" \(first at line 6\)$" \
    "$T/err" "duplicate node id"
expect_match "^$T/bad.yaml:9:32: events.0.remove_node.id: node \"C\" is not in the cluster at 5s$" \
    "$T/err" "event cross-check at the event's position"

printf 'nodes: [{id: A}\n' >"$T/syntax.yaml"
expect_exit 2 "a YAML syntax error exits 2" "$RINGSIM" check "$T/syntax.yaml"
expect_match "^$T/syntax.yaml:2:1: YAML syntax error: did not find expected ',' or ']'" \
    "$T/err" "YAML syntax error with its position"

printf 'nodes: [{id: A}]\ncache:\n  workers: 1\n  workers: 2\n' >"$T/dup.yaml"
expect_exit 2 "duplicate key exits 2" "$RINGSIM" check "$T/dup.yaml"
expect_match "^$T/dup.yaml:4:3: cache.workers: duplicate key \(first at line 3\)$" "$T/err" \
    "duplicate key at the second one"

: >"$T/empty.yaml"
expect_exit 2 "an empty file exits 2" "$RINGSIM" check "$T/empty.yaml"
expect_match "^$T/empty.yaml:1:1: the scenario is empty" "$T/err" "empty file message"

expect_exit 2 "a missing file exits 2" "$RINGSIM" check "$T/nope.yaml"
expect_eq "$(cat "$T/err")" "$T/nope.yaml: cannot read: No such file or directory" \
    "missing file: FILE: cannot read: reason"

# --- files that cannot be a scenario: refused at once, whatever they are ----------------
mkfifo "$T/fifo.yaml"
expect_exit 2 "a FIFO is refused at once (no writer: open would block)" \
    timeout 10 "$RINGSIM" check "$T/fifo.yaml"
expect_eq "$(cat "$T/err")" "$T/fifo.yaml: cannot read: not a regular file (a FIFO)" \
    "a FIFO: FILE: cannot read: not a regular file"
expect_exit 2 "a directory exits 2" "$RINGSIM" check tests/data
expect_eq "$(cat "$T/err")" "tests/data: cannot read: not a regular file (a directory)" \
    "a directory: not a regular file"
expect_exit 2 "a character device exits 2" timeout 10 "$RINGSIM" check /dev/zero
expect_eq "$(cat "$T/err")" "/dev/zero: cannot read: not a regular file (a character device)" \
    "/dev/zero: not a regular file (not read forever)"
# 16 MiB exactly is a scenario (a node and one long comment); one byte more is not
{ printf 'nodes: [{id: A}]\n#'; head -c $((16777216 - 19)) /dev/zero | tr '\0' x; echo; } \
    >"$T/16mib.yaml"
expect_eq "$(wc -c <"$T/16mib.yaml")" "16777216" "the test file is 16 MiB"
expect_exit 0 "a file of exactly 16 MiB is read" "$RINGSIM" check "$T/16mib.yaml"
printf ' ' >>"$T/16mib.yaml"
expect_exit 2 "16 MiB and one byte: exit 2" "$RINGSIM" check "$T/16mib.yaml"
expect_eq "$(cat "$T/err")" \
    "$T/16mib.yaml: too large: more than 16 MiB (16777216 bytes), the most a scenario may have" \
    "16 MiB + 1: too large, and the limit"

# --- free text that names files and fills rows is bounded ------------------------------
{ printf 'name: '; head -c 1000000 /dev/zero | tr '\0' n; printf '\nnodes: [{id: A}]\n'; } \
    >"$T/longname.yaml"
expect_exit 2 "a name of a million bytes exits 2" "$RINGSIM" check "$T/longname.yaml"
expect_match "^$T/longname.yaml:1:7: name: expected a string of at most 100 bytes \(this one has 1000000\), got \"n{79}\.\.\.\"$" \
    "$T/err" "a long name: where, the bound, and the value cut short"
expect_exit 2 "--set of a long node id exits 2" "$RINGSIM" check tests/data/minimal.yaml \
    --set "nodes.0.id=$(head -c 256 /dev/zero | tr '\0' i)"
expect_match 'nodes.0.id: expected a node id of at most 255 bytes \(this one has 256\)' \
    "$T/err" "a long node id by --set"

# --- keys that would do nothing, and placements a run could not build, are refused ----
cat >"$T/prewarm.yaml" <<'EOF'
nodes: [{id: A}]
events:
  - {at: 10s, add_node: {id: B, prewarm: true}}
EOF
expect_exit 2 "prewarm on an add_node event exits 2" "$RINGSIM" check "$T/prewarm.yaml"
expect_match "^$T/prewarm.yaml:3:33: events.0.add_node.prewarm: not allowed here: a node added by an event joins empty; prewarm applies only to the nodes present at time 0" \
    "$T/err" "prewarm on add_node: where and why"
cat >"$T/points.yaml" <<'EOF'
routing: {vnodes: 100000}
nodes: [{id: A, weight: 50}]
events:
  - {at: 10s, add_node: {id: B, weight: 30}}
  - {at: 20s, add_node: {id: C, weight: 30}}
EOF
expect_exit 2 "a later membership past the point limit exits 2" "$RINGSIM" check "$T/points.yaml"
expect_match "^$T/points.yaml:1:19: routing.vnodes: 3 nodes at 100000 vnodes make 11000000 ring points \(vnodes x weight each\), more than 10000000; lower vnodes or the weights \(the cluster at 20s, after events.1: add_node C\)$" \
    "$T/err" "the point limit: names the event that passes it"
expect_exit 2 "run refuses it too, before running" "$RINGSIM" run "$T/points.yaml" -o "$T/points.db" --quiet
expect_match "routing.vnodes: 3 nodes at 100000 vnodes" "$T/err" "run: the same message"
expect_exit 2 "bounded load_factor 5000 exits 2" "$RINGSIM" check tests/data/minimal.yaml \
    --set routing.algorithm=bounded --set routing.load_factor=5000
expect_match 'routing.load_factor: expected a number > 1 and <= 1000, got "5000"' "$T/err" \
    "load_factor 5000: the library's limit"

# --- what cannot be run: the run cost estimate after a successful load -----------------
# A duration past 300000h is the binder's error, at its position
printf 'nodes: [{id: A}]\nhealth:\n  retry_after: 300001h\n' >"$T/long-duration.yaml"
expect_exit 2 "a duration past 300000h exits 2" "$RINGSIM" check "$T/long-duration.yaml"
expect_eq "$(cat "$T/err")" \
    "$T/long-duration.yaml:3:16: health.retry_after: expected a duration > 0 and <= 300000h, got \"300001h\"" \
    "a duration past the bound: file:line:col and the bound"
# Durations in range whose combination passes the clock's range (these aborted runs)
printf 'nodes: [{id: A}]\ncache: {service_time: 100000h, max_queue: 1000}\n' >"$T/overflow1.yaml"
expect_exit 2 "a node queue past the clock's range exits 2" "$RINGSIM" check "$T/overflow1.yaml"
expect_match "^$T/overflow1.yaml: cannot run: simulated time could reach .* lower cache.service_time" \
    "$T/err" "clock overflow: names cache.service_time"
expect_eq "$(wc -c <"$T/out")" "0" "clock overflow: no ok line"
expect_exit 2 "--force does not make it runnable" "$RINGSIM" check "$T/overflow1.yaml" --force
printf 'nodes: [{id: A}]\ndatabase: {workers: 1, service_time: 1000h}\n' >"$T/overflow2.yaml"
expect_exit 2 "a database queue past the clock's range exits 2" "$RINGSIM" check "$T/overflow2.yaml"
expect_match "^$T/overflow2.yaml: cannot run: simulated time could reach .* lower database.service_time" \
    "$T/err" "clock overflow: names database.service_time"
# More memory than any machine this runs on has
expect_exit 2 "qps 1e15 exits 2" "$RINGSIM" check tests/data/minimal.yaml --set workload.qps=1e15
expect_match "^tests/data/minimal.yaml: cannot run: the run would need about .* of memory, more than this machine's .*; lower workload.qps.*, or pass --force to run it anyway \(it may run out of memory\)" \
    "$T/err" "qps 1e15: memory, the key, and --force"
# the estimate is not exact: --force accepts a run past memory, with a warning
expect_exit 0 "a billion keys with --force exits 0" "$RINGSIM" check tests/data/minimal.yaml \
    --set workload.keys=1000000000 --set workload.qps=1 --force
expect_eq "$(cat "$T/out")" "ok: minimal" "past memory with --force: ok: NAME"
expect_match "^tests/data/minimal.yaml: warning: the run may run out of memory: it would need about .* \(lower workload.keys" \
    "$T/err" "past memory with --force: the warning names the key"
mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null)
if [ -n "$mem_kb" ] && [ "$mem_kb" -lt 26000000 ]; then # 28 GB of key records
    expect_exit 2 "a billion keys exits 2" "$RINGSIM" check tests/data/minimal.yaml \
        --set workload.keys=1000000000
    expect_match "cannot run: the run would need about .* of memory, .*; lower workload.keys" \
        "$T/err" "a billion keys: names workload.keys"
else
    _n=$((_n + 1)); echo "ok $_n - a billion keys # SKIP this machine has the memory for it"
fi
# Slow or large: refused unless --force
cat >"$T/probe.yaml" <<'EOF'
health: {mode: central, probe_interval: 1ns}
nodes: [{id: A}, {id: B}, {id: C}]
EOF
expect_exit 2 "probing every nanosecond exits 2" "$RINGSIM" check "$T/probe.yaml"
expect_match "^$T/probe.yaml: cannot run: about .* events .*most of them health probes.*health.probe_interval, or pass --force" \
    "$T/err" "probe_interval 1ns: the events, the key and --force"
expect_exit 0 "probe_interval 1ns with --force exits 0" "$RINGSIM" check "$T/probe.yaml" --force
expect_eq "$(cat "$T/out")" "ok: probe" "--force: ok: NAME"
{ printf 'duration: 10000000s\nworkload: {qps: 1e-9}\nnodes:\n'
  i=0; while [ $i -lt 100 ]; do printf '  - {id: n%d}\n' $i; i=$((i + 1)); done; } >"$T/sparse.yaml"
expect_exit 2 "10^7 ticks of 100 nodes exits 2" "$RINGSIM" check "$T/sparse.yaml"
expect_match "^$T/sparse.yaml: cannot run: the results would take about .* rows\); raise tick" \
    "$T/err" "a billion rows: names tick"
expect_exit 0 "with --force exits 0" "$RINGSIM" check "$T/sparse.yaml" --force
expect_eq "$(cat "$T/out")" "ok: sparse" "sparse with --force: ok: NAME"

# --- --set and --seed ----------------------------------------------------------
expect_exit 0 "--set of a valid value" "$RINGSIM" check tests/data/minimal.yaml \
    --set routing.vnodes=512 --set health.cooldown=60s --seed 9
expect_eq "$(cat "$T/out")" "ok: minimal" "--set: still ok"
expect_exit 0 "--set name= changes the name" "$RINGSIM" check tests/data/minimal.yaml \
    --set name=renamed
expect_eq "$(cat "$T/out")" "ok: renamed" "ok line shows the overridden name"
expect_exit 2 "--set of a bad value exits 2" "$RINGSIM" check tests/data/minimal.yaml \
    --set routing.vnodes=many
expect_eq "$(cat "$T/err")" \
    '--set routing.vnodes=many: routing.vnodes: expected a positive integer, got "many"' \
    "--set error names the argument"
expect_exit 2 "--set of an unknown key exits 2" "$RINGSIM" check tests/data/minimal.yaml \
    --set routing.vnode=1
expect_match '^--set routing.vnode=1: routing.vnode: unknown key' "$T/err" "--set unknown key"
expect_exit 2 "--set past the last node exits 2" "$RINGSIM" check tests/data/full.yaml \
    --set nodes.7.weight=2
expect_match '^--set nodes.7.weight=2: nodes.7: no such entry \(entries are numbered 0 to 2\)$' \
    "$T/err" "--set index out of range names the range"
expect_exit 2 "--set without '=' exits 2" "$RINGSIM" check tests/data/minimal.yaml --set vnodes
expect_match '^--set vnodes: expected PATH=VALUE' "$T/err" "--set without '='"
expect_exit 2 "--seed with a bad number exits 2" "$RINGSIM" check tests/data/minimal.yaml \
    --seed abc
expect_match 'seed: expected a non-negative integer, got "abc"' "$T/err" "--seed is checked"

# --- usage ---------------------------------------------------------------------
expect_exit 2 "no file: exit 2" "$RINGSIM" check
expect_match 'missing the scenario file' "$T/err" "no file: says so"
expect_match '^usage: ringsim check' "$T/err" "no file: usage line"
expect_exit 2 "unknown option: exit 2" "$RINGSIM" check tests/data/minimal.yaml --frobnicate
expect_match "unknown option --frobnicate" "$T/err" "unknown option: names it"
expect_exit 2 "two files: exit 2" "$RINGSIM" check tests/data/minimal.yaml tests/data/full.yaml
expect_exit 2 "--set without a value: exit 2" "$RINGSIM" check tests/data/minimal.yaml --set
expect_exit 0 "--help exits 0" "$RINGSIM" check --help
expect_match '^usage: ringsim check SCENARIO.yaml' "$T/out" "--help: usage"
expect_match 'examples?:' "$T/out" "--help: an example"
expect_match 'ringsim check scenarios/.*--set routing.vnodes=' "$T/out" "--help: example with --set"

# --- the schema reference --------------------------------------------------------
expect_exit 0 "--schema exits 0" "$RINGSIM" check --schema
expect_match '^\| `vnodes` \| integer \| `160` \|' "$T/out" "--schema prints the tables"
awk '/^<!-- schema:begin -->$/{on=1; next} /^<!-- schema:end -->$/{on=0} on' \
    scenarios/README.md >"$T/readme-part"
if cmp -s "$T/out" "$T/readme-part"; then ok 0 "scenarios/README.md quotes --schema verbatim"
else ok 1 "scenarios/README.md quotes --schema verbatim"; fi

# --- keys that only some settings use say which, and the others change nothing -------
"$RINGSIM" check --schema >"$T/schema"
expect_match '^\| `gutter_nodes` .*`rehash` ignores it' "$T/schema" "gutter_nodes: rehash ignores it"
expect_match '^\| `gutter_ttl` .*`rehash` ignores it' "$T/schema" "gutter_ttl: rehash ignores it"
expect_match '^\| `fence_delay` .*`fencing: none` ignores it' "$T/schema" "fence_delay: fencing none ignores it"
expect_match '^\| `point_format` .*`ketama` ignores it' "$T/schema" "point_format: ketama ignores it"
expect_match '^\| `hash` .*`slots` ignores it' "$T/schema" "hash: slots ignores it"
expect_match '^\| `weight` .*ketama.*`mod`, `jump` and `slots` ignore it' "$T/schema" \
    "weight: which algorithms use it"
expect_match '^\| `node_key` .*`mod`, `jump` and `slots` ignore it' "$T/schema" \
    "node_key: which algorithms ignore it"
cat >"$T/ign.yaml" <<'EOF'
duration: 3s
workload: {keys: 2000, qps: 2000, write_ratio: 0.1}
nodes: [{id: A}, {id: B}]
events: [{at: 1s, add_node: {id: C}}]
EOF
ign_rows() {
    db=$T/ign-$1.db
    shift
    "$RINGSIM" run "$T/ign.yaml" -o "$db" --quiet "$@" >/dev/null 2>&1 || { echo "failed: $*"; return; }
    sqlite3 "$db" 'SELECT * FROM ticks; SELECT * FROM node_ticks;
        SELECT * FROM events; SELECT * FROM summary' | md5sum
}
base=$(ign_rows 0)
n=0
for set in health.gutter_nodes=3 health.gutter_ttl=1s routing.fence_delay=1s \
           "routing.algorithm=ketama --set routing.point_format=%s/%d" \
           "routing.algorithm=slots --set routing.hash=md5" \
           "routing.algorithm=mod --set nodes.0.weight=3" \
           "routing.algorithm=mod --set routing.node_key=address" \
           "routing.algorithm=jump --set routing.node_key=address" \
           "routing.algorithm=slots --set routing.node_key=address"; do
    n=$((n + 1))
    case $set in
    routing.algorithm=*) want=$(ign_rows b$n --set "${set%% *}") ;;
    *) want=$base ;;
    esac
    # shellcheck disable=SC2086
    expect_eq "$(ign_rows $n --set $set)" "$want" "--set $set changes nothing, as documented"
done

finish

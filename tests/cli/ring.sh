#!/bin/sh
# Command-line tests for `ringsim ring` (TAP).
. "$(dirname "$0")/lib.sh"

R="$RINGSIM ring"

# --- known answers (models/placement/README.md) -----------------------------
expect_exit 0 "ring 512 vnodes A,B,C -> A,B,C,D (json)" \
    $R --vnodes 512 --nodes A,B,C --to A,B,C,D --json
cp "$T/out" "$T/ka.json"
expect_match '"before":\{"A":33873,"B":33307,"C":32820\}' "$T/ka.json" "known answer: before"
expect_match '"after":\{"A":25451,"B":25627,"C":24193,"D":24729\}' "$T/ka.json" "known answer: after"
expect_match '"moved":24729,' "$T/ka.json" "known answer: moved 24729"
expect_match '"moved_between_old":0,' "$T/ka.json" "known answer: between old 0"
expect_match '^\{"algo":"ring","hash":"sha256","vnodes":512,' "$T/ka.json" "json starts with algo, hash, vnodes"
expect_match '"count":100000,' "$T/ka.json" "json has count"
expect_match '"max_over_avg_before":1\.016[0-9]*,"max_over_avg_after":1\.025' "$T/ka.json" "json has max/avg before and after"
expect_eq "$(wc -l <"$T/ka.json" | tr -d ' ')" 1 "json is one line"
if command -v python3 >/dev/null 2>&1; then
    python3 -m json.tool "$T/ka.json" >/dev/null 2>&1
    ok $? "json parses"
else
    echo "ok $((_n + 1)) - json parses # SKIP no python3"; _n=$((_n + 1))
fi

expect_exit 0 "mod A,B,C -> A,B,C,D" $R --algo mod --nodes A,B,C --to A,B,C,D --json
expect_match '"moved":75273,' "$T/out" "mod moves 75273"

expect_exit 0 "default table" $R --vnodes 512 --nodes A,B,C --to A,B,C,D
cp "$T/out" "$T/table"
expect_match '^  A +33873 +33\.87% +25451 +25\.45% +-8422 +512$' "$T/table" "table row A (and its 512 points)"
expect_match '^  D +- +- +24729 +24\.73% +\+24729 +512$' "$T/table" "table row D (new node)"
expect_match '^  moved +24729 +24\.73%' "$T/table" "table: moved with percent"
expect_match '^  moved +24729 +24\.73%   \(ideal for this change: 25\.00%\)' "$T/table" "table: the ideal share beside moved, named as such (a ring can move less)"
expect_match 'between old nodes +0 ' "$T/table" "table: moved between old nodes"
expect_match '^  max/avg +1\.0162 +1\.0251' "$T/table" "table: max/avg"
expect_match '^  max/min ' "$T/table" "table: max/min"
expect_match 'relative std +4\.42%' "$T/table" "table: theoretical spread 1/sqrt(512)"

# --- JSON is valid UTF-8 whatever the names: non-ASCII kept, control characters escaped ---
# ratios to 15 significant digits (six, as once, were off by up to 5e-6: 12/7 was 1.71429)
$R --count 7 --json >"$T/r7.json" 2>/dev/null
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); b = list(d["before"].values())
want = {"max_over_avg_before": max(b) * len(b) / sum(b), "max_over_min_before": max(b) / min(b)}
sys.exit(any(abs(d[k] - v) > 1e-12 * v for k, v in want.items()))' "$T/r7.json"
    ok $? "json ratios match the counts beside them to 1e-12 (7 keys: max/avg 12/7)"
else
    echo "ok $((_n + 1)) - json ratios # SKIP no python3"; _n=$((_n + 1))
fi
keys=$(printf 'cl\303\251-%%d-\342\234\223')
expect_exit 0 "a non-ASCII key pattern and node ids" \
    $R --keys "$keys" --nodes "$(printf 'n\303\2641,n2')" --count 50 --json
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["keys"]); print(d["nodes"][0])' \
        <"$T/out" >"$T/decoded" 2>"$T/pyerr"
    ok $? "non-ASCII: python json.load reads the output"
    expect_eq "$(sed -n 1p "$T/decoded")" "$keys" "non-ASCII: the key pattern comes back unchanged"
    expect_eq "$(sed -n 2p "$T/decoded")" "$(printf 'n\303\2641')" "non-ASCII: the node id comes back unchanged"
else
    for i in 1 2 3; do echo "ok $((_n + 1)) - non-ASCII json # SKIP no python3"; _n=$((_n + 1)); done
fi
expect_exit 2 "a key pattern with a byte that is not UTF-8 is refused (as in a scenario)" \
    $R --keys "$(printf 'k\377%%d')" --json
expect_eq "$(wc -c <"$T/out" | tr -d ' ')" 0 "not UTF-8: no JSON written"
expect_match '^ringsim ring: --keys: the value is not valid UTF-8$' "$T/err" "not UTF-8: says so"

# --- keys looked up by name: where a key lives, and where it goes -------------------
# A reference ring built in python from the convention alone (sha256 of "%s#%d", the
# first 8 digest bytes big-endian, points sorted by (position, id), a key's owner the
# first point at or after it), against ring's answers for a few keys.
if command -v python3 >/dev/null 2>&1; then
    expect_exit 0 "--key: JSON lookups" $R --vnodes 512 --nodes A,B,C --to A,B,C,D \
        --key user:42 --key key-000001 --key '' --key 'a b\c' --json
    python3 - "$T/out" >"$T/ref" 2>&1 <<'EOF'
import bisect, hashlib, json, sys
def pos(b): return int.from_bytes(hashlib.sha256(b).digest()[:8], 'big')
def ring(ids): return sorted((pos(('%s#%d' % (n, i)).encode()), n) for n in ids for i in range(512))
def owner(r, p):
    i = bisect.bisect_left(r, (p, ''))
    return r[i % len(r)][1]
before, after = ring('ABC'), ring('ABCD')
d = json.load(open(sys.argv[1]))
bad = 0
for l in d['lookups']:
    p = pos(l['key'].encode())
    want = (p, owner(before, p), None, owner(after, p))
    got = (l['position'], l['owner'], l['slot'], l['owner_after'])
    if got != want:
        bad += 1
        print('key %r: got %s, wanted %s' % (l['key'], got, want))
print('keys', [l['key'] for l in d['lookups']], 'bad', bad)
EOF
    expect_match "^keys \['user:42', 'key-000001', '', 'a b\\\\\\\\c'\] bad 0$" "$T/ref" \
        "four keys: position, owner and owner after as the convention gives them"
    expect_match '"lookups":\[\{"key":"user:42","position":[0-9]+,"owner":"[ABC]","slot":null,"owner_after":"[ABCD]"\},' \
        "$T/out" "lookups: key, position, owner, slot (null), owner_after, in this order"
    # every analysed key, one per line: the counts and the move are the known answers
    awk 'BEGIN { for (i = 0; i < 100000; i++) printf "key-%06d\n", i }' >"$T/keys.txt"
    expect_exit 0 "--keys-file of the 100000 analysed keys" $R --vnodes 512 --nodes A,B,C \
        --to A,B,C,D --keys-file "$T/keys.txt" --json
    python3 -c '
import json, sys
from collections import Counter
d = json.load(open(sys.argv[1]))
l = d["lookups"]
b = Counter(x["owner"] for x in l)
print(len(l), b["A"], b["B"], b["C"], sum(x["owner"] != x["owner_after"] for x in l),
      set(x["owner_after"] for x in l if x["owner"] != x["owner_after"]))' "$T/out" >"$T/counts"
    expect_eq "$(cat "$T/counts")" "100000 33873 33307 32820 24729 {'D'}" \
        "lookups of every key: 33873/33307/32820 before, 24729 move, all to D"
else
    for i in 1 2 3 4 5; do echo "ok $((_n + 1)) - lookups against a reference # SKIP no python3"; _n=$((_n + 1)); done
fi
expect_exit 0 "--key in the table" $R --vnodes 512 --nodes A,B,C --to A,B,C,D --key key-000001 --key user:42
expect_match '^  key +position +owner +after$' "$T/out" "table: the lookups' heading"
expect_match '^  key-000001 +[0-9]+  C +D   \(moves\)$' "$T/out" "table: key-000001 moves from C to D"
expect_match '^  user:42 +[0-9]+  C +C$' "$T/out" "table: user:42 stays on C"
expect_exit 0 "--key without --to" $R --key user:42 --json
expect_match '"lookups":\[\{"key":"user:42","position":[0-9]+,"owner":"[ABC]","slot":null,"owner_after":null\}\]\}$' \
    "$T/out" "without --to: owner_after is null, lookups end the object"
expect_exit 0 "slots: the slot" $R --algo slots --key foo --key '{user:42}.name' --json
expect_match '"key":"foo","position":12182,"owner":"C","slot":12182,' "$T/out" \
    "slots: foo is slot 12182 (as Redis's CLUSTER KEYSLOT), owned by C"
expect_exit 0 "slots: table" $R --algo slots --nodes A,B,C --to A,B,C,D --count 1000 --key foo
expect_match '^  key +slot +owner +after$' "$T/out" "slots: the table says slot"
expect_match '^  foo +12182  C +D   \(moves\)$' "$T/out" "slots: foo moves to D when it joins"
expect_match '^  A +[0-9]+ .* 5461 -> 4096$' "$T/out" "slots: each node's slots, before and after"
expect_exit 0 "ketama: points as the weights round" $R --algo ketama --weights A=2 --nodes A,B,C --to A,B --count 100
expect_match '^  A .* 240 -> 212$' "$T/out" "ketama: 4 x floor(2/4 x 40 x 3) points, then 4 x floor(2/3 x 40 x 2)"
expect_exit 0 "ring: weights round" $R --vnodes 10 --weights A=1.25,B=0.04 --nodes A,B,C --count 100
expect_match '^  A .* 13$' "$T/out" "ring: llround(10 x 1.25) = 13 points"
expect_match '^  B .* 1$' "$T/out" "ring: at least one point"
# keys are bytes: a NUL is not possible in argv, but invalid UTF-8, CR and empty lines are
printf 'a\r\n\n\377b\nlast' >"$T/odd.txt"
expect_exit 0 "odd keys from a file" $R --keys-file "$T/odd.txt" --json
if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(ascii([(l["key"], l.get("key_hex")) for l in d["lookups"]]))' "$T/out" >"$T/odd" 2>&1
    expect_eq "$(cat "$T/odd")" "[('a\r', None), ('', None), ('\ufffdb', 'ff62'), ('last', None)]" \
        "a CR is part of the key, an empty line the empty key, invalid UTF-8 has key_hex"
else
    echo "ok $((_n + 1)) - odd keys # SKIP no python3"; _n=$((_n + 1))
fi
expect_exit 0 "odd keys in the table" $R --keys-file "$T/odd.txt"
expect_match '^  a\\x0d +[0-9]+  [ABC]$' "$T/out" "table: a CR as \\x0d"
expect_match '^  "" +[0-9]+  [ABC]$' "$T/out" "table: the empty key as \"\""
expect_match '^  \\xffb +[0-9]+  [ABC]$' "$T/out" "table: a byte that is not UTF-8 as \\xff"
printf 'k1\nk2\n' | $R --keys-file - --key k3 --keys-file "$T/odd.txt" --count 10 --json >"$T/o" 2>"$T/e"
expect_match '"lookups":\[\{"key":"k1".*\{"key":"k2".*\{"key":"k3".*\{"key":"a\\r"' "$T/o" \
    "keys from stdin, --key and a file, in the order given"
# bounds: key length, line length, key count; a file with no newline stops at the first line
bad_lookup() { # bad_lookup "name" REGEX args...
    name=$1 re=$2
    shift 2
    expect_exit 2 "$name" timeout 60 $R --count 10 "$@"
    expect_match "$re" "$T/err" "$name: message"
}
bad_lookup "--key of 1025 bytes" '^ringsim ring: --key: a key of 1025 bytes, more than the 1024 a key may have$' \
    --key "$(head -c 1025 /dev/zero | tr '\0' k)"
head -c 1024 /dev/zero | tr '\0' k >"$T/long.txt"
expect_exit 0 "a line of 1024 bytes is a key" $R --count 10 --keys-file "$T/long.txt"
{ echo short; head -c 1025 /dev/zero | tr '\0' k; echo; } >"$T/long.txt"
bad_lookup "a line of 1025 bytes" "^ringsim ring: --keys-file $T/long.txt:2: a key of more than 1024 bytes" \
    --keys-file "$T/long.txt"
bad_lookup "/dev/zero (no newline)" '^ringsim ring: --keys-file /dev/zero:1: a key of more than 1024 bytes' \
    --keys-file /dev/zero
awk 'BEGIN { for (i = 0; i <= 1000000; i++) print i }' >"$T/many.txt"
bad_lookup "1000001 keys" "^ringsim ring: --keys-file $T/many.txt:1000001: more than 1000000 keys to look up" \
    --keys-file "$T/many.txt"
bad_lookup "a missing keys file" "^ringsim ring: --keys-file $T/none.txt: cannot read: No such file" \
    --keys-file "$T/none.txt"
bad_lookup "standard input twice" '^ringsim ring: --keys-file -: standard input can be read only once' \
    --keys-file - --keys-file -
bad_lookup "--key without a value" '^ringsim ring: --key needs a value' --key

# --- defaults and no --to ----------------------------------------------------
expect_exit 0 "defaults" $R --json
expect_match '"algo":"ring","hash":"sha256","vnodes":160,' "$T/out" "defaults: ring sha256 160"
expect_match '"nodes":\["A","B","C"\],"to":null' "$T/out" "defaults: nodes A,B,C, no --to"
expect_match '"count":100000' "$T/out" "defaults: 100000 keys"
expect_match '"moved":0,' "$T/out" "no --to: moved 0"
before=$(sed 's/.*"before":\({[^}]*}\).*/\1/' "$T/out")
after=$(sed 's/.*"after":\({[^}]*}\).*/\1/' "$T/out")
expect_eq "$after" "$before" "no --to: after equals before"
expect_exit 0 "table without --to" $R --count 1000
expect_match '^  node +keys +% +points$' "$T/out" "table without --to has one column of keys"

# --- every algorithm runs, and the consistent ones move only what they must --
for a in mod ring ketama jump rendezvous maglev bounded slots; do
    expect_exit 0 "$a: join" $R --algo $a --count 20000 --nodes A,B,C --to A,B,C,D --json
    expect_match "\"algo\":\"$a\"" "$T/out" "$a: json names the algorithm"
done
for a in ring ketama rendezvous slots; do
    $R --algo $a --count 20000 --nodes A,B,C,D --to A,B,D --json >"$T/o" 2>"$T/e"
    expect_match '"moved_between_old":0,"moved_to_new":0,' "$T/o" "$a: a leave moves only the leaver's keys"
done
$R --algo jump --count 20000 --nodes A,B,C,D --to A,B,C --json >"$T/o"
expect_match '"moved_between_old":0,' "$T/o" "jump: removing the last member moves only its keys"
$R --algo slots --count 20000 --nodes A,B,C --to A,B,C,D --json >"$T/o"
expect_match '"table_size":16384,"table_min":4096,"table_max":4096' "$T/o" "slots: the joiner takes an even share"
$R --algo maglev --count 20000 --nodes A,B,C --json >"$T/o"
expect_match '"table_min":21845,"table_max":21846' "$T/o" "maglev: floor/ceil of M/N entries"
$R --algo ketama --hash md5 --nodes s1,s2,s3 --json >"$T/o"
expect_match '"vnodes":160,' "$T/o" "ketama reports 160 points"
expect_match '"points_per_node":160,' "$T/o" "ketama: 160 points per node"

# --- options -------------------------------------------------------------------
expect_exit 0 "bounded caps" $R --algo bounded --load-factor 1.05 --vnodes 20 --count 30000 --nodes A,B,C --json
expect_match '"cap":10500,' "$T/out" "bounded: cap ceil(1.05 x 30000 / 3)"
expect_exit 0 "bounded cap of a decimal factor" $R --algo bounded --load-factor 1.1 --vnodes 64 \
    --nodes A,B,C,D --json
expect_match '"cap":27500,' "$T/out" "bounded: cap ceil(1.1 x 100000 / 4) = 27500, not 27501"
expect_match '"before":\{"A":27500,"B":27500,' "$T/out" "bounded: the full nodes hold the cap"
expect_exit 0 "an id holding '=' weighted" $R --weights 'a=b=2' --nodes 'a=b,B' --count 100 --json
expect_match '"weights":\{"a=b":2,"B":1\}' "$T/out" "--weights splits at the last '='"
expect_exit 0 "weights" $R --weights C=2 --nodes A,B,C --count 20000 --json
expect_match '"weights":\{"A":1,"B":1,"C":2\}' "$T/out" "weights reported"
expect_exit 0 "weights ignored by mod (note)" $R --algo mod --weights C=2 --count 1000
expect_match 'note: --weights is ignored by mod' "$T/err" "note on ignored weights"
expect_exit 0 "hex keys" $R --keys 'user:%x' --start 10 --count 5
expect_match 'keys: user:a \.\. user:e \(5\)' "$T/out" "keys rendered with %x from --start"
expect_exit 0 "--flag=value form" $R --algo=jump --count=100 --json
expect_match '"algo":"jump"' "$T/out" "--algo=jump"
expect_exit 0 "point format and node key" $R --point-format '%s-%03d' --node-key address \
    --nodes 'A@10.0.0.1:11211,B@10.0.0.2:11211' --count 1000 --json
expect_match '"node_key":"address"' "$T/out" "node key address"
# a --to entry without @ADDRESS keeps its address from --nodes (as add_node in a run):
# only the joiner takes keys, the same count as naming every address again
expect_exit 0 "--to inherits addresses" $R --node-key address --nodes A@h1,B@h2,C@h3 \
    --to A,B,C,D@h4 --count 10000 --json
expect_match '"moved":2888,"moved_between_old":0,' "$T/out" "--to A,B,C,D@h4 moves only D's keys"
expect_exit 0 "--to with every address" $R --node-key address --nodes A@h1,B@h2,C@h3 \
    --to A@h1,B@h2,C@h3,D@h4 --count 10000 --json
expect_match '"moved":2888,"moved_between_old":0,' "$T/out" "the same with every address given"
expect_exit 0 "--to with a new address" $R --node-key address --nodes A@h1,B@h2 \
    --to A@h9,B --count 10000 --json
expect_match '"moved_between_old":[1-9]' "$T/out" "a new address in --to moves keys between old nodes"
expect_exit 0 "slots json" $R --algo slots --hash md5 --vnodes 40 --count 100 --json
expect_match '^\{"algo":"slots","hash":"crc16","vnodes":null,' "$T/out" "slots: hash crc16, vnodes null"
expect_exit 0 "ketama json" $R --algo ketama --vnodes 40 --count 100 --json
expect_match '^\{"algo":"ketama","hash":"sha256","vnodes":160,' "$T/out" "ketama: vnodes 160, its points per node"
expect_exit 0 "table size" $R --algo maglev --table-size 251 --count 1000 --json
expect_match '"table_size":251,' "$T/out" "maglev table size"
expect_exit 0 "help" $R --help
expect_match 'Examples:' "$T/out" "help shows examples"
expect_match 'ringsim ring --vnodes 512 --nodes A,B,C --to A,B,C,D' "$T/out" "help shows the known-answer example"

# --- bad arguments: exit 2, a message naming the flag ---------------------------
bad() { # bad "name" REGEX args...
    name=$1 re=$2
    shift 2
    expect_exit 2 "$name" $R "$@"
    expect_match "$re" "$T/err" "$name: message"
}
bad "--keys with %s" '--keys: .*integer' --keys 'key-%s'
bad "--keys without a conversion" '--keys: .*no integer conversion' --keys 'key'
bad "--keys with two conversions" '--keys: .*more than one' --keys 'k%d-%d'
bad "--keys with %n" '--keys: ' --keys 'k%n'
bad "empty --nodes" '--nodes: .*empty' --nodes ''
bad "empty entry in --nodes" '--nodes: entry 2 is empty' --nodes 'A,,B'
bad "duplicate node" '--nodes: node "A" appears twice' --nodes A,B,A
bad "duplicate node in --to" '--to: node "B" appears twice' --to A,B,B
bad "weight 0" '--weights: A: expected a number > 0 and <= 1000000, got "0"' --weights A=0
bad "negative weight" '--weights: ' --weights A=-1
bad "weight of an unknown node" '--weights: node "Z" is not in --nodes or --to' --weights Z=2
bad "malformed weights" '--weights: entry "A" is not ID=WEIGHT' --weights A
bad "a node weighted twice" '--weights: node "A" is given twice' --weights A=2,B=1,A=3
bad "--start above the limit" '--start: expected an integer from 0 to 9223372035854775807' \
    --start 9223372036854775000
bad "--vnodes 0" '--vnodes: expected an integer from 1' --vnodes 0
bad "--vnodes many" '--vnodes: .*"many"' --vnodes many
# every value given is checked, a replaced one too (as run's --set)
bad "a bad --count a later one replaces" '--count: expected an integer .*"x"' --count x --count 10
expect_match 'the value --count x given above is replaced by a later --count' "$T/err" \
    "a replaced value's error says it was replaced"
bad "a bad --algo a later one replaces" '--algo: expected one of' --algo foo --algo ring
bad "a bad --nodes a later one replaces" '--nodes: node "A" appears twice' --nodes A,A --nodes A,B
bad "a bad --weights a later one replaces" '--weights: A: expected a number' --weights A=-1 --weights A=2
bad "a flag where a value should be" '--vnodes needs a value, got the option --count' --vnodes --count 10
bad "an empty --keys-file" '--keys-file needs a value .*got ""' --keys-file ''
expect_exit 0 "two good values: the later one wins" $R --count 5 --key a --count=7 --json
expect_match '"count":7,' "$T/out" "the later --count applies"
expect_exit 0 "a load factor an ulp above 1" $R --algo bounded --load-factor 1.0000000000000002 --count 100 --json
expect_match '"load_factor":1.0000000000000002,' "$T/out" "the JSON echoes the load factor exactly"
bad "unknown algo" '--algo: expected one of: mod, ring, .*, got "chord"' --algo chord
bad "unknown hash" '--hash: expected one of: sha256, md5, .*, got "sha1"' --hash sha1
bad "--count 0" '--count: expected an integer from 1' --count 0
bad "--count huge" '--count: ' --count 99999999999
bad "--start negative" '--start: ' --start -5
bad "--load-factor below 1" '--load-factor: expected a number > 1 and <= 1000' --load-factor 0.5
bad "--table-size not prime" '--table-size: expected a prime' --algo maglev --table-size 65536
bad "--point-format without %d" '--point-format: .*needs one %d' --point-format '%s'
bad "--node-key bad" '--node-key: expected one of: id, address, got "name"' --node-key name
bad "unknown option" "unknown option '--frobnicate'" --frobnicate 3
bad "missing value" '--count needs a value' --count
bad "positional argument" "unexpected argument 'A,B'" A,B
bad "duplicate address" '--nodes: B: address "x" is also node A.s \(with node_key: address' --node-key address --nodes 'A@x,B@x'
bad "an id with a space" '--nodes: entry 2: expected a node id \(non-empty, without spaces or commas\), got "B C"' --nodes 'A,B C'
bad "a weight of an id only in --to" '--weights: D: expected a number > 0' --to A,D --weights D=-1

# --- ring refuses exactly what a run cannot do: the verdict and the message of `check` ---
printf 'nodes: [{id: A}, {id: B}, {id: C}]\n' >"$T/abc.yaml"
# agree NAME PATH FLAG "SETS" RING-FLAGS...: check of nodes A,B,C (ring's default) with
# SETS, and ring with RING-FLAGS, exit alike; on failure ring's message after "FLAG: " is
# check's after "PATH: ".
agree() {
    name=$1 path=$2 flag=$3 sets=$4
    shift 4
    "$RINGSIM" check "$T/abc.yaml" $sets >"$T/c.out" 2>"$T/c.err"
    c=$?
    $R --count 100 "$@" >"$T/r.out" 2>"$T/r.err"
    r=$?
    expect_eq "$r" "$c" "$name: ring exits as check does ($c)"
    if [ "$c" != 0 ]; then
        cm=$(grep -F "$path: " "$T/c.err" | head -1 | sed "s/^.*$path: //")
        rm=$(grep -F "ringsim ring: $flag: " "$T/r.err" | head -1 | sed "s/^ringsim ring: $flag: //")
        [ -n "$cm" ]
        ok $? "$name: check says why"
        expect_eq "$rm" "$cm" "$name: ring says the same, naming $flag"
    fi
}
agree "load factor 5000" routing.load_factor --load-factor \
    "--set routing.algorithm=bounded --set routing.load_factor=5000" --algo bounded --load-factor 5000
agree "load factor 1" routing.load_factor --load-factor \
    "--set routing.algorithm=bounded --set routing.load_factor=1" --algo bounded --load-factor 1
agree "load factor just above 1" routing.load_factor --load-factor \
    "--set routing.algorithm=bounded --set routing.load_factor=1.001" --algo bounded --load-factor 1.001
agree "key format %o" workload.key_format --keys "--set workload.key_format=k%o" --keys 'k%o'
agree "key format with a length modifier" workload.key_format --keys \
    "--set workload.key_format=k%ld" --keys 'k%ld'
agree "key format %#x" workload.key_format --keys "--set workload.key_format=k%#x" --keys 'k%#x'
agree "maglev table 2^26 - 5" routing.table_size --table-size \
    "--set routing.algorithm=maglev --set routing.table_size=67108859" --algo maglev --table-size 67108859
agree "maglev table above the limit" routing.table_size --table-size \
    "--set routing.algorithm=maglev --set routing.table_size=16777259" --algo maglev --table-size 16777259
agree "maglev table smaller than the nodes" routing.table_size --table-size \
    "--set routing.algorithm=maglev --set routing.table_size=2" --algo maglev --table-size 2
agree "maglev table 3 for 3 nodes" routing.table_size --table-size \
    "--set routing.algorithm=maglev --set routing.table_size=3" --algo maglev --table-size 3
agree "too many ring points" routing.vnodes --vnodes \
    "--set routing.vnodes=1000000 --set nodes.0.weight=5 --set nodes.1.weight=4 --set nodes.2.weight=2" \
    --vnodes 1000000 --weights A=5,B=4,C=2
agree "a weight above the limit" nodes.1.weight "--weights: B" "--set nodes.1.weight=2e6" --weights B=2e6
bad "the membership after is checked too" \
    '^ringsim ring: --to: 11 nodes at 1000000 vnodes make 11000000 ring points' \
    --vnodes 1000000 --nodes A --to A,B,C,D,E,F,G,H,I,J,K

finish

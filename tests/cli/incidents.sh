#!/bin/sh
# The incident shelf, scenarios/incidents/: every file loads, opens with a
# comment that names the command reproducing it, every `ringsim run`
# command written in a comment still loads with its --set arguments, and a
# model test (tests/model/) runs the file and checks its figures; the
# scale-out incident, run both ways and drawn, carries its event marker and
# one label per algorithm (TAP).
. "$(dirname "$0")/lib.sh"

TOP=${RINGSIM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1

# The `ringsim run` commands of a file's comment, one per line, with their
# continuation lines joined and the leading "#" removed.
run_commands() {
    sed -n 's/^#//p' "$1" | awk '
        cont { line = line " " $0 }
        !cont && /^ *ringsim run / { line = $0 }
        { if (line != "" && / \\$/) { sub(/ \\$/, "", line); cont = 1; next } }
        line != "" { print line; line = ""; cont = 0 }'
}

for f in scenarios/incidents/*.yaml; do
    base=$(basename "$f")
    expect_exit 0 "$base loads" "$RINGSIM" check "$f"
    head -n 1 "$f" | grep -q '^# '; ok $? "$base opens with a comment"
    grep -Eq "^#.*ringsim (run|sweep) $f" "$f"; ok $? "$base: its comment says how to run it"
    grep -lqF "\"$f\"" tests/model/*.c; ok $? "$base: a model test checks its figures"
    run_commands "$f" >"$T/cmds"
    while read -r cmd; do
        # ringsim run FILE [-o DB] [--set P=V]... -> ringsim check FILE [--set P=V]...
        set -- $cmd
        shift 2
        file=$1
        shift
        args=""
        while [ $# -gt 0 ]; do
            case "$1" in
                -o) shift 2 ;;
                --set|--seed) args="$args $1 $2"; shift 2 ;;
                *) shift ;;
            esac
        done
        # shellcheck disable=SC2086
        expect_exit 0 "$base: ringsim run $file$args loads" "$RINGSIM" check "$file" $args
    done <"$T/cmds"
done

# --- the scale-out incident, both algorithms in one database, drawn ----------------
f=scenarios/incidents/scale_out_mod_vs_ring.yaml
db="$T/som.db"
expect_exit 0 "scale-out, ring" "$RINGSIM" run "$f" -o "$db" --quiet --set duration=45s
expect_exit 0 "scale-out, mod" "$RINGSIM" run "$f" -o "$db" --quiet --set duration=45s \
    --set routing.algorithm=mod
expect_eq "$(sqlite3 "$db" 'SELECT group_concat(keys_moved) FROM summary ORDER BY run_id')" \
    "24729,75273" "keys moved: the placement known answers"
if command -v gnuplot >/dev/null 2>&1; then
    export RINGSIM_PLOTS="$TOP/plots"
    expect_exit 0 "ringsim plot draws both runs" "$RINGSIM" plot "$db" -d "$T/plots"
    for c in hit_rate backend_qps database nodes; do
        [ -s "$T/plots/$c.png" ]; ok $? "$c.png is drawn"
    done
    expect_match "	add D$" "$T/plots/data/events.tsv" "the join is marked on the charts"
    expect_match "run 1: .*routing.algorithm=ring" "$T/plots/data/runs.tsv" "run 1 is labelled ring"
    expect_match "run 2: .*routing.algorithm=mod" "$T/plots/data/runs.tsv" "run 2 is labelled mod"
else
    echo "# gnuplot is not installed: the charts are not drawn"
fi
finish

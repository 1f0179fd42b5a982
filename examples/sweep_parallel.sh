#!/bin/sh
# sweep_parallel.sh — a ringsim sweep run by GNU parallel: on this machine's
# cores, or on several hosts over ssh; then merged into one database and
# reported.
#
#   examples/sweep_parallel.sh OUT.db SCENARIO.yaml SWEEP-OPTIONS...
#
#   examples/sweep_parallel.sh results/cooldown.db scenarios/incidents/slow_node_cascade.yaml \
#       --vary health.cooldown=0s,5s,10s,15s,30s --seeds 4
#   JOBS=8 examples/sweep_parallel.sh results/x.db S.yaml --vary routing.vnodes=8,160 --seeds 10
#   HOSTS=8/node1,8/node2,: examples/sweep_parallel.sh results/x.db S.yaml --vary ...
#
# What it does:
#   1. `ringsim sweep SCENARIO.yaml SWEEP-OPTIONS... -o OUT.db --list` writes
#      one line per run, "I COMMAND" (COMMAND runs just that run into
#      OUT.db.part-I); the sweep validates every combination first;
#   2. GNU parallel runs the commands (--halt soon,fail=1: the first that
#      fails stops new ones starting);
#   3. `ringsim merge OUT.db OUT.db.part-*` joins the part files in run order,
#      then deletes them;
#   4. `ringsim report OUT.db` prints the statistics per combination.
# The result is the database a one-process `ringsim sweep` of the same grid
# writes: the same runs, ticks and summaries (tests/cli/sweep_parallel.sh
# checks it).
#
# Environment:
#   RINGSIM  the ringsim binary (default: ./ringsim when it exists, else
#            ringsim from PATH); made absolute, so remote hosts run the same path
#   JOBS     commands at once on this machine (parallel -j; default: one per core)
#   HOSTS    run on these hosts instead: parallel's --sshlogin list, e.g.
#            "8/node1,8/node2" (8 at once on each), ":" for this machine. Every
#            host needs the same paths (a shared file system): the binary, the
#            scenario and the folder of OUT.db, which the commands run in.
#   PARALLEL_OPTS  more options for parallel, split at blanks (e.g.
#            "--progress"). Not --retries: a command run again appends its run
#            to its part file a second time; delete the part file of a failed
#            command before running it again.
#
# Exit: 0 merged and reported; 1 a run or the merge failed (the part files
# are kept: run the commands that failed again after deleting their part
# files, then merge); 2 bad usage or a sweep that does not validate.
set -u

usage() { sed -n '2,/^set -u$/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case "${1:-}" in -h | --help) usage; exit 0 ;; esac
if [ $# -lt 2 ]; then
    usage >&2
    exit 2
fi
out=$1
shift
if ! command -v parallel >/dev/null 2>&1 || ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
    echo "sweep_parallel.sh: GNU parallel is not installed (Debian/Ubuntu: apt-get install parallel)" >&2
    exit 2
fi
ringsim=${RINGSIM:-}
if [ -z "$ringsim" ]; then
    if [ -x ./ringsim ]; then ringsim=./ringsim; else ringsim=$(command -v ringsim) || ringsim=; fi
fi
if [ -z "$ringsim" ] || [ ! -x "$ringsim" ]; then
    echo "sweep_parallel.sh: no ringsim binary (set RINGSIM, or run from the source tree after make)" >&2
    exit 2
fi
case "$ringsim" in /*) ;; *) ringsim="$(cd "$(dirname "$ringsim")" && pwd)/$(basename "$ringsim")" ;; esac

# part files of an earlier attempt would get their runs twice
for f in "$out".part-*; do
    if [ -e "$f" ]; then
        echo "sweep_parallel.sh: $f exists (an earlier attempt?): merge it (ringsim merge $out $out.part-*) or delete it first" >&2
        exit 2
    fi
done

list=$(mktemp "${TMPDIR:-/tmp}/ringsim-sweep.XXXXXX") || exit 1
trap 'rm -f "$list"' EXIT
"$ringsim" sweep "$@" -o "$out" --list >"$list" || exit $?
n=$(wc -l <"$list" | tr -d ' ')
echo "sweep_parallel.sh: $n runs" >&2

set -- --will-cite --halt soon,fail=1
[ -n "${JOBS:-}" ] && set -- "$@" -j "$JOBS"
[ -n "${HOSTS:-}" ] && set -- "$@" --sshlogin "$HOSTS" --workdir "$PWD"
# shellcheck disable=SC2086
# each command's closing table (one run) is of no use here: the report is
if ! cut -d' ' -f2- "$list" | parallel "$@" ${PARALLEL_OPTS:-} >/dev/null; then
    echo "sweep_parallel.sh: a run failed; the part files written so far are kept ($out.part-*)" >&2
    exit 1
fi

# the part files in run order (their numbers are zero-padded)
parts=$(ls -d "$out".part-* 2>/dev/null | wc -l | tr -d ' ')
if [ "$parts" != "$n" ]; then
    echo "sweep_parallel.sh: $parts part files for $n runs; nothing merged" >&2
    exit 1
fi
"$ringsim" merge "$out" "$out".part-* >/dev/null || exit 1
rm -f "$out".part-*
"$ringsim" report "$out"

#!/bin/sh
# Checks the Debian packages ringsim needs to build, test and draw charts
# (and GNU parallel, which examples/sweep_parallel.sh and its test use).
# As root, installs the missing ones with apt-get; otherwise prints the exact
# command and fails. Set RINGSIM_NO_INSTALL=1 to only check.
set -u
need="gcc make pkg-config libgsl-dev libyaml-dev libsqlite3-dev libssl-dev zlib1g-dev \
libxxhash-dev libcmocka-dev gnuplot-nox sqlite3 parallel"
[ -n "${RINGSIM_EXTRA_PKGS:-}" ] && need="$need $RINGSIM_EXTRA_PKGS"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian system; make sure these (or your distribution's equivalents) are installed:" >&2
    echo "  $need" >&2
    exit 0
fi

missing=""
for p in $need; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
    case "$st" in
        *"ok installed") ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0

cmd="apt-get update && apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ] && [ -z "${RINGSIM_NO_INSTALL:-}" ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >/tmp/ringsim-apt.log 2>&1; then
        cat /tmp/ringsim-apt.log >&2
        echo "deps: apt-get failed; run as root: $cmd" >&2
        exit 1
    fi
    exit 0
fi
echo "deps: missing packages:$missing" >&2
echo "deps: install them with:  sudo sh -c '$cmd'" >&2
exit 1

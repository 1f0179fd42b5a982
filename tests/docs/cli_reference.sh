#!/bin/sh
# cli_reference.sh — prints the generated part of sim/cli/README.md: the
# text of `ringsim --help` and of every subcommand's --help, verbatim, as
# the binary prints them. The subcommands are read from the "commands:"
# list of `ringsim --help`, so a new subcommand appears here by itself.
#
#   sh tests/docs/cli_reference.sh [BIN]      (default ./ringsim)
#
# Exits non-zero, printing why on stderr, when a --help fails or prints
# nothing: a reference built from a broken binary is never written.
set -u
bin=${1:-./ringsim}
tmp=$(mktemp "${TMPDIR:-/tmp}/ringsim-cliref.XXXXXX")
trap 'rm -f "$tmp"' EXIT

# help NAME ARGS... — one section: the command's --help in a text block
help() {
    title=$1
    shift
    if ! "$bin" "$@" >"$tmp" 2>&1; then
        echo "cli_reference.sh: '$bin $*' failed" >&2
        exit 1
    fi
    if [ ! -s "$tmp" ]; then
        echo "cli_reference.sh: '$bin $*' printed nothing" >&2
        exit 1
    fi
    printf '### `%s`\n\n```text\n$ %s\n' "$title" "ringsim $*"
    cat "$tmp"
    printf '```\n\n'
}

help "ringsim" --help
cmds=$(awk '/^commands:$/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }' \
    "$tmp")
if [ -z "$cmds" ]; then
    echo "cli_reference.sh: no \"commands:\" list in '$bin --help'" >&2
    exit 1
fi
for c in $cmds; do
    help "ringsim $c" "$c" --help
done

#!/bin/sh
# The generated documentation is what the code generates: every part that
# tests/docs/docs.sh regenerates (the scenario schema, the results
# database reference, the command-line reference) must be committed as
# generated. On a difference: run `make docs` and commit the result.
# Also: the splicing touches nothing outside the markers, and refuses a
# file whose markers are missing or doubled; and every relative link of the
# Markdown files leads to a file that exists and, with #anchor, to one of
# its headings (GitHub's anchors: lower case, punctuation dropped, spaces
# to hyphens).
. "$(dirname "$0")/lib.sh"

top=$(pwd)
case "$RINGSIM" in /*) ;; *) RINGSIM="$top/${RINGSIM#./}" ;; esac
D="sh $top/tests/docs/docs.sh --bin $RINGSIM"

files=$($D list)
expect_eq "$(echo "$files" | wc -l | tr -d ' ')" "3" "three files have generated parts"
for f in $files; do
    if $D show "$f" >"$T/regen" 2>"$T/err"; then
        if cmp -s "$T/regen" "$f"; then
            ok 0 "$f is as generated"
        else
            ok 1 "$f is out of date: run 'make docs' and commit it"
            diff -u "$f" "$T/regen" | head -30 | sed 's/^/#   /'
        fi
    else
        ok 1 "$f: cannot regenerate"
        sed 's/^/#   /' "$T/err" | head -5
    fi
done

# every subcommand of `ringsim --help` has its section, with its --help text
for c in $("$RINGSIM" --help | awk '/^commands:$/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
    expect_match "^\\\$ ringsim $c --help\$" sim/cli/README.md "sim/cli/README.md has ringsim $c --help"
done

# splicing: only the part between the markers changes
mkdir -p "$T/w/scenarios" "$T/w/output" "$T/w/sim/cli"
for f in $files; do cp "$f" "$T/w/$f"; done
awk '/^<!-- schema:begin -->$/ {print; print "stale line"; skip=1; next}
     /^<!-- schema:end -->$/ {skip=0} !skip' scenarios/README.md >"$T/w/scenarios/README.md"
printf 'hand-written tail\n' >>"$T/w/scenarios/README.md"
(cd "$T/w" && $D show scenarios/README.md) >"$T/regen" 2>"$T/err"
expect_eq "$(grep -c '^stale line$' "$T/regen")" "0" "a stale generated part is replaced"
expect_eq "$(tail -n 1 "$T/regen")" "hand-written tail" "text after the end marker is kept"
head -n "$(grep -n '^<!-- schema:begin -->$' scenarios/README.md | cut -d: -f1)" \
    scenarios/README.md >"$T/head-want"
head -n "$(wc -l <"$T/head-want")" "$T/regen" >"$T/head-got"
if cmp -s "$T/head-want" "$T/head-got"; then ok 0 "text before the begin marker is kept"
else ok 1 "text before the begin marker is kept"; fi

grep -v '^<!-- metrics:end -->$' output/README.md >"$T/w/output/README.md"
if (cd "$T/w" && $D show output/README.md) >/dev/null 2>"$T/err"; then
    ok 1 "a file without its end marker is refused"
else
    ok 0 "a file without its end marker is refused"
fi
expect_match 'expected one line "<!-- metrics:begin -->"' "$T/err" "the refusal names the markers"

# links between the documents
slugs() {
    awk '/^#+ / { s = $0; sub(/^#+ +/, "", s); s = tolower(s)
                  gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s); print s }' "$1"
}
for md in $(find . -name '*.md' -not -path './build/*' -not -path './results/*' \
                -not -path './.git/*' | sort); do
    md=${md#./}
    dir=$(dirname "$md")
    : >"$T/bad"
    for link in $(grep -o '](\([^) ]*\))' "$md" | sed 's/^](//; s/)$//'); do
        case "$link" in http://* | https://* | mailto:*) continue ;; esac
        path=${link%%#*} anchor=
        case "$link" in *'#'*) anchor=${link#*#} ;; esac
        target=$md
        [ -n "$path" ] && target="$dir/$path"
        if [ ! -e "$target" ]; then
            echo "$link: no such file" >>"$T/bad"
        elif [ -n "$anchor" ] && ! slugs "$target" | grep -qxF -- "$anchor"; then
            echo "$link: no heading #$anchor in $target" >>"$T/bad"
        fi
    done
    if [ -s "$T/bad" ]; then
        ok 1 "links in $md lead somewhere"
        sed 's/^/#   /' "$T/bad" | head -10
    else
        ok 0 "links in $md lead somewhere"
    fi
done

finish

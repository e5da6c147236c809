# The documents made from src/cli/options.def (make docs: the man page, the bash completion,
# the README's synopsis) are committed: each must be what the table makes now, and every
# option of every command, as the table lists it (pgarena __options), must be in its
# command's --help, its man page section and its completion.

test_docs_are_not_stale() {
    top=$PGARENA_TEST_TOP
    gen=$top/build/gen_docs
    [ -x "$gen" ] || fail "no $gen (make unit builds it)"
    "$gen" man "$top/docs/pgarena.1.in" >man.out || fail "gen_docs man failed"
    cmp -s man.out "$top/docs/pgarena.1" || fail "docs/pgarena.1 is stale (make docs): $(diff "$top/docs/pgarena.1" man.out | head -20)"
    "$gen" completion "$top/completion/pgarena.bash.in" >comp.out || fail "gen_docs completion failed"
    cmp -s comp.out "$top/completion/pgarena.bash" || fail "completion/pgarena.bash is stale (make docs): $(diff "$top/completion/pgarena.bash" comp.out | head -20)"
    "$gen" readme "$top/README.md" >readme.out || fail "gen_docs readme failed"
    cmp -s readme.out "$top/README.md" || fail "README.md's synopsis is stale (make docs): $(diff "$top/README.md" readme.out | head -20)"
    grep -q '^<!-- synopsis -->$' "$top/README.md" || fail "README.md has no synopsis block"
}

test_every_option_in_help_man_and_completion() {
    top=$PGARENA_TEST_TOP
    pga __options
    [ "$RC" -eq 0 ] || fail "pgarena __options exited $RC"
    cp "$T/out" options.tsv
    [ "$(wc -l <options.tsv)" -ge 150 ] || fail "only $(wc -l <options.tsv) options: $(cat options.tsv)"
    # The man page's text, a section per command, with roff's escapes and fonts taken out.
    sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\&//g' "$top/docs/pgarena.1" |
        awk '/^\.S[SH] / { sec = $0; gsub(/^\.S[SH] +"?|"$/, "", sec); next } { print sec "\t" $0 }' >man.txt
    n=0
    while IFS=$'\t' read -r cmd long short listed; do
        [ "$listed" = alias ] && continue
        n=$((n + 1))
        key=${cmd// /-}
        if [ ! -f "help-$key" ]; then
            # shellcheck disable=SC2086 # cmd is one or two words
            pga $cmd --help
            [ "$RC" -eq 0 ] || fail "pgarena $cmd --help exited $RC"
            cp "$T/out" "help-$key"
            bash -c '. "$1"; _pgarena_options "$2"' _ "$top/completion/pgarena.bash" "$key" | tr ' ' '\n' >"comp-$key"
        fi
        grep -qx -- "$long" "comp-$key" || fail "the completion of pgarena $cmd misses $long"
        [ "$short" = - ] || grep -qx -- "$short" "comp-$key" || fail "the completion of pgarena $cmd misses $short"
        [ "$listed" = passed ] && continue # sweep's run options: run's help and section list them
        grep -qE -- "(^|[ ,[|])$long([] =,|]|$)" "help-$key" || fail "pgarena $cmd --help misses $long"
        [ "$short" = - ] || grep -qE -- "(^|[ ,[|])$short([] ,|]|$)" "help-$key" || fail "pgarena $cmd --help misses $short"
        awk -F'\t' -v s="pgarena $cmd" '$1 == s { print $2 }' man.txt | grep -qE -- "(^|[^A-Za-z0-9-])$long([^A-Za-z0-9-]|$)" ||
            fail "the man page's section pgarena $cmd misses $long"
    done <options.tsv
    [ "$n" -ge 150 ] || fail "only $n options checked"
    # The README's synopsis is pgarena --help's.
    pga --help
    sed -n '/^Usage:$/,/^$/p' "$T/out" | sed '1d;$d' >help-synopsis
    sed -n '/^<!-- synopsis -->$/,/^<!-- \/synopsis -->$/p' "$top/README.md" | sed '1,2d' | sed '$d' | sed '$d' >readme-synopsis
    diff help-synopsis readme-synopsis >syn.diff || fail "README.md's synopsis is not pgarena --help's: $(cat syn.diff)"
    for cmd in $(cut -f1 options.tsv | cut -d' ' -f1 | sort -u); do
        grep -q "^  pgarena $cmd " readme-synopsis || fail "README.md's synopsis misses $cmd"
    done
    echo "$n options checked"
}

# The README starts where a user starts, and links only to what exists.
test_readme_and_doc_links() {
    top=$PGARENA_TEST_TOP
    readme=$top/README.md
    [ "$(wc -l <"$readme")" -le 250 ] || fail "README.md has $(wc -l <"$readme") lines (at most 250)"
    head -n 60 "$readme" >first60
    grep -q 'make demo' first60 || fail "no make demo in the README's first 60 lines"
    grep -q 'make check' "$readme" || fail "no make check in the README (the CI's test command)"
    grep -qE '^pgarena (run|compare) ' first60 || fail "no pgarena run or compare command in the README's first 60 lines"
    for c in init run show compare report sweep replay history store check merge recover local; do
        grep -qE "^- \*\*$c\*\*: " "$readme" || fail "the README's tour misses $c"
        grep -qE "^ +\`pgarena $c |pgarena $c " "$readme" || fail "the README shows no pgarena $c example"
    done
    # Every relative link of the README and the guides resolves (anchors aside).
    n=0
    for f in "$readme" "$top"/docs/*.md "$top"/tests/README.md; do
        dir=$(dirname "$f")
        for link in $(grep -oE '\]\([^) ]+\)' "$f" | sed -E 's/^\]\(//; s/\)$//'); do
            case $link in http://* | https://* | mailto:* | '#'*) continue ;; esac
            n=$((n + 1))
            [ -e "$dir/${link%%#*}" ] || fail "${f#"$top"/}: the link $link leads nowhere"
        done
    done
    [ "$n" -ge 10 ] || fail "only $n relative links found"
    echo "$n links"
}

# Adding a workload is its folder and one line of src/workload/workloads.def: the example of
# examples/workload/kv/ dropped into a copy of the tree (its build/asan and build/gen copied
# too, so only what the change touches compiles) as src/workload/kv with the line W(kv), built,
# and run against the test server: init -w kv makes its table (-F, an init option of kv's own,
# its fillfactor), run -w kv -t N runs N transactions per client (each adds 1 to one key's
# value, so the values sum to them), and its result part summary.kv is in the file with its own
# figure (what the run added to the values: the transactions); the copy differs from the tree by
# the folder and the line alone.

test_example_workload_kv() {
    local top=$PGARENA_TEST_TOP tree db compiled
    # Outside $T: the teardown checks every *.json under $T, and the tree holds test fixtures.
    tree=$(mktemp -d /tmp/pgarena-kvtree-XXXXXX)
    LIB_CLEANUP="${LIB_CLEANUP:-}; rm -rf '$tree'"
    # The tree as committed and changed (not what git ignores), in a repository of its own to
    # see what the change adds.
    (cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -a -t "$tree")
    git -C "$tree" init -q
    git -C "$tree" add -A
    git -C "$tree" -c user.name=t -c user.email=t@t commit -qm tree
    mkdir -p "$tree/build/asan"
    cp -a "$top/build/asan/obj" "$top/build/asan/libpgarena.a" "$top/build/asan/pgarena" "$tree/build/asan/"
    # The workloads' options gathered (Makefile): kv has none, so it stays as it is.
    cp -a "$top/build/gen" "$tree/build/"

    cp -r "$top/examples/workload/kv" "$tree/src/workload/kv"
    echo 'W(kv)' >>"$tree/src/workload/workloads.def"
    [ "$(git -C "$tree" status --porcelain | sort)" = "$(printf ' M src/workload/workloads.def\n?? src/workload/kv/')" ] ||
        fail "the change is not the folder and workloads.def: $(git -C "$tree" status --porcelain)"
    [ "$(git -C "$tree" diff --numstat)" = "$(printf '1\t0\tsrc/workload/workloads.def')" ] ||
        fail "workloads.def changed by more than one added line: $(git -C "$tree" diff --numstat)"
    make -s -C "$tree" asan >"$T/make.out" 2>&1 || { cat "$T/make.out" >&2; fail "the tree with kv does not build"; }
    # Only the files that include workloads.def (through workload_int.h) and kv's compiled.
    compiled=$(grep -c '^CC ' "$T/make.out" || true)
    [ "$compiled" -le 12 ] || { cat "$T/make.out" >&2; fail "$compiled files compiled, not only what the change touches"; }
    grep -q '^CC (asan) src/workload/kv/kv.c$' "$T/make.out" || fail "kv.c did not compile"

    # shellcheck disable=SC2034 # pga runs $PGARENA
    PGARENA=$tree/build/asan/pgarena
    db=$(newdb pga_kv)
    pga init -w kv -s 2 -F 90 -q "$db"
    assert_rc 0
    [ "$(sql 'SELECT count(*) || $$ $$ || sum(v) FROM kv' "$db")" = "2000 0" ] || fail "init -w kv: the table"
    local relopts
    relopts=$(sql "SELECT reloptions FROM pg_class WHERE relname = 'kv'" "$db")
    [ "$relopts" = "{fillfactor=90}" ] || fail "init -w kv -F 90: kv's reloptions are '$relopts'"
    pga run -w kv -c 2 -t 25 -o kv.json "$db"
    assert_rc 0
    assert_out '^transactions: +50$'
    [ "$(sql "SELECT sum(v) FROM kv" "$db")" = 50 ] || fail "the values do not sum to the 50 transactions"
    [ "$(sql 'SELECT count(*) FROM kv WHERE v > 0' "$db")" -ge 2 ] || fail "one key updated only"
    pyjson kv.json 'd["summary"]["kv"] == {"rows": 2000, "added": 50} and d["workload"]["name"] == "kv"'
    pyjson kv.json 'd["summary"]["transactions"] == 50 and d["workload"]["scale"] == 2'
    pga show kv.json
    assert_rc 0
    assert_out '^transactions: +50$'
    # show prints a part's lines at RESULT_PLACE_SHOW_SUMMARY once report/ calls it there.
    if grep -q 'RESULT_PLACE_SHOW_SUMMARY' "$top"/src/report/*.c; then
        assert_out '^kv rows: +2000$'
        assert_out '^kv added: +50$'
    fi
    # Its refusals: another workload's table options, no table kv, and a table kv not its own.
    pga run -w kv --tables 2 -t 1 "$db"
    assert_rc 2
    assert_err "^pgarena: run: kv's table is sized by -s, not --tables or --table-size$"
    pga init -w kv -I dtg -q "$db"
    assert_rc 2
    assert_err "^pgarena: init: -I, -n, --foreign-keys, --unlogged-tables and the tablespaces are for pgbench's tables, not kv$"
    pga init -w kv -F 5 -q "$db"
    assert_rc 2
    assert_err "^pgarena: invalid value for -F: '5'"
    db=$(newdb pga_kv_other)
    pga run -w kv -t 1 "$db"
    assert_rc 2
    assert_err "^pgarena: run: no table kv here: run pgarena init -w kv first$"
    sql 'CREATE TABLE kv (a int)' "$db"
    pga init -w kv -q "$db"
    assert_rc 2
    assert_err "init: table kv exists and is not kv's \(k, v\): --force replaces it"
    pga init -w kv -q --force "$db"
    assert_rc 0
    [ "$(sql 'SELECT count(*) FROM kv' "$db")" = 1000 ] || fail "init --force did not replace kv"
}

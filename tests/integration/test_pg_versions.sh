# pgarena against each major of tools/pg/versions.sh (13, 14, 16, 17, 18 beside Debian's 15,
# which the other tests run on): the harness starts it (PGARENA_PG_MAJOR), init and a short run
# go through, and the result file says which server it was. One line per major: "major M: ok",
# or "major M: unavailable (WHY)" for one not fetched (no network: make check's fetch said why),
# which does not fail the test. One server at a time.

# pg_versions_each FUNCTION: FUNCTION MAJOR for each pinned major whose binaries are here.
pg_versions_each() {
    local major version why start
    chmod 755 "$T" # the servers run as postgres when we are root
    while read -r major version; do
        if ! why=$(sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" bindir "$major" 2>&1 >/dev/null); then
            echo "major $major: unavailable (${why#pg-versions: "$major" unavailable: })"
            continue
        fi
        start=$(date +%s%N)
        "$1" "$major"
        echo "major $major: ok ($version, $((($(date +%s%N) - start) / 1000000)) ms)"
    done < <(sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" list)
}

# The harness's server of MAJOR with pg_stat_statements preloaded as the tests do it (ALTER
# SYSTEM, halt, resume): init -s 1, a run of 100 transactions a client; the counts, the
# version and the server's statements in the result file.
pg_versions_run() {
    local m=$1 dir=$T/srv-$1 conn
    conn=$(PGARENA_PG_MAJOR=$m sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$dir") ||
        fail "major $m: the harness cannot start it"
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-harness.sh' stop '$dir'"
    [ "$(sql 'SHOW server_version_num' "$conn")" -ge "${m}0000" ] || fail "major $m: not its server"
    sql "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" "$conn"
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" halt "$dir"
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" resume "$dir"
    sql "CREATE EXTENSION pg_stat_statements" "$conn"
    pga init -s 1 "$conn"
    assert_rc 0
    pga run "$conn" -t 100 -c 2 -j 2 -o "r$m.json"
    assert_rc 0
    pyjson "r$m.json" "(d['complete'] and d['summary']['transactions'] > 0 and
        d['summary']['failed'] == 0 and d['server']['version'].split('.')[0] == '$m' and
        len(d['statements_server']) > 0)"
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" stop "$dir"
}

test_pg_versions_init_run() {
    pg_versions_each pg_versions_run
}

# pg-servers.sh's collector server of each major (stderr, csvlog and, from 15, jsonlog side by
# side, pg_stat_statements preloaded) is the version matrix's (test_version_matrix.sh).

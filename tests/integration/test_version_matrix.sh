# The version matrix (issue 48): on each major of tools/pg/versions.sh and Debian's 15, one
# collector server each (pg-servers.sh), in turn: pgarena init of pgbench's tables (scale 1,
# two partitions, foreign keys; on 18 also unlogged), a copy of the database, a replay capture
# around Debian's pgbench in each protocol, the server's stderr log prepared too, and a replay
# of the capture against the copy. One line a major: "major M: ok (N statements)", or
# "major M: unavailable (WHY)" for one not fetched, which does not fail the test.

matrix_major() { # MAJOR ("" for Debian's 15)
    local m=$1 name=${1:-15} dir=$T/srv-${1:-15} conn app n n_log
    conn=$(PGARENA_PG_MAJOR=$m sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$dir" collector) ||
        fail "major $name: pg-servers.sh cannot start it"
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$dir'"
    [ "$(sql 'SHOW server_version_num' "$conn")" -ge "${name}0000" ] || fail "major $name: not its server"
    sql "CREATE DATABASE app" "$conn"
    app="${conn% dbname=*} dbname=app"
    pga init -s 1 --partitions 2 --foreign-keys -q "$app"
    assert_rc 0
    [ "$(sql "SELECT count(*) FROM pgbench_accounts" "$app")" = 100000 ] || fail "major $name: pgbench_accounts"
    [ "$(sql "SELECT count(*) FROM pg_inherits WHERE inhparent = 'pgbench_accounts'::regclass" "$app")" = 2 ] ||
        fail "major $name: not two partitions"
    [ "$(sql "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = 'pgbench_history'::regclass" "$app")" -ge 1 ] ||
        fail "major $name: no foreign keys"
    if [ "$name" = 18 ]; then
        # 18 refuses an unlogged partitioned table: unlogged partitions of logged tables, as
        # pgbench 18 makes them, so that the foreign keys can be made too
        sql "CREATE DATABASE unlogged" "$conn"
        pga init -s 1 --partitions 2 --unlogged-tables --foreign-keys -q "${conn% dbname=*} dbname=unlogged"
        assert_rc 0
        [ "$(sql "SELECT string_agg(relname || '=' || relpersistence::text, ' ' ORDER BY relname) FROM pg_class
                  WHERE relname LIKE 'pgbench_%' AND relkind IN ('r', 'p')" "${conn% dbname=*} dbname=unlogged")" = \
          "pgbench_accounts=p pgbench_accounts_1=u pgbench_accounts_2=u pgbench_branches=p pgbench_history=p pgbench_tellers=p" ] ||
            fail "major 18: --unlogged-tables did not make the partitions unlogged"
        [ "$(sql "SELECT count(*) FROM pgbench_accounts" "${conn% dbname=*} dbname=unlogged")" = 100000 ] ||
            fail "major 18: unlogged pgbench_accounts"
    fi
    sql "CREATE DATABASE copy TEMPLATE app" "$conn"
    pga_bg replay capture "$conn" --seconds 600 -o "$T/$name.cap"
    for _ in $(seq 1 100); do
        grep -q "logging for" "$T/err" && break
        sleep 0.1
    done
    grep -q "logging for" "$T/err" || fail "major $name: replay capture did not start: $(cat "$T/err")"
    { "$PGBENCH" -n -M extended -t 50 -c 2 "$app" >"$T/pgbench.out" 2>&1 &&
        "$PGBENCH" -n -M prepared -t 50 -c 2 "$app" >>"$T/pgbench.out" 2>&1 &&
        "$PGBENCH" -n -M simple -t 20 -c 1 "$app" >>"$T/pgbench.out" 2>&1; } ||
        fail "major $name: pgbench failed: $(tail -3 "$T/pgbench.out")"
    # The collector writes behind: the capture ends once a statement sent after pgbench's
    # last is in the log, so every one of pgbench's is.
    sql "SELECT 'end of the matrix'" "$conn" >/dev/null
    for _ in $(seq 1 100); do
        grep -q "end of the matrix" "$dir"/log/postgresql.csv && break
        sleep 0.1
    done
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    pga replay show "$T/$name.cap"
    assert_rc 0
    assert_out "^ *skipped:? +[0-9]+ COPY FROM STDIN, [0-9]+ carrying a password, 0 unsupported"
    pga replay show --events "$T/$name.cap"
    n=$(grep -c '"event":"statement"' "$T/out")
    [ "$n" -ge $((7 * (50 * 2 + 50 * 2 + 20))) ] || fail "major $name: $n statements in the capture"
    # The stderr log of the same server gives the same statements.
    pga replay prepare "$dir/log/postgresql" -o "$T/$name.log.cap"
    assert_rc 0
    assert_out "^ *skipped:? +[0-9]+ COPY FROM STDIN, [0-9]+ carrying a password, 0 unsupported"
    pga replay show --events "$T/$name.log.cap"
    assert_rc 0
    # The log also holds the capture's own session (its reading of the log files, the
    # settings restored), which the capture leaves out.
    n_log=$(python3 - "$T/out" <<'PY2'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
own = {e["session"] for e in ev if e["event"] == "statement" and e["text"].startswith("ALTER SYSTEM RESET log_statement")}
assert len(own) == 1, own
print(sum(1 for e in ev if e["event"] == "statement" and e["session"] not in own))
PY2
) || fail "major $name: the stderr log's capture has no session of replay capture's"
    [ "$n_log" = "$n" ] || fail "major $name: $n_log statements from the stderr log, $n from the csvlog"
    pga replay run "$T/$name.cap" "$conn" --map-db app=copy --force -q -o "$T/r$name.json"
    assert_rc 0
    pyjson "$T/r$name.json" "d['replay']['statements'] == $n and d['replay']['sent'] == $n"
    pyjson "$T/r$name.json" 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["diverged"]["succeeded_now"] == 0'
    sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" stop "$dir"
    echo "major $name: ok ($n statements)"
}

test_version_matrix_replay() {
    local major why
    chmod 755 "$T" # the servers run as postgres when we are root
    while read -r major _; do
        if [ "$major" = 15 ]; then
            matrix_major ""
            continue
        fi
        if ! why=$(sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" bindir "$major" 2>&1 >/dev/null); then
            echo "major $major: unavailable (${why#pg-versions: "$major" unavailable: })"
            continue
        fi
        matrix_major "$major"
    done < <({ sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" list; echo "15 debian"; } | sort -n)
}

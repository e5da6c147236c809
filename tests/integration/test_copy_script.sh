# The COPY protocol in a script (issue 48 part 5): COPY ... FROM STDIN / TO STDOUT is refused
# at parse time in one line; one the parser could not see aborts its client, as pgbench does,
# instead of spinning; a server-side COPY runs. And a run that cannot make progress stops at
# the first SIGTERM with its result file. Judged by exit statuses, counts and the result file,
# never by how long anything took.

test_copy_script_refused_in_one_line() {
    printf 'BEGIN;\n\\set n 1\n  COPY pgbench_accounts FROM stdin;\nEND;\n' >in.sql
    pga run -f in.sql -T 5 "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err '^pgarena: in\.sql:3:3: COPY \.\.\. FROM STDIN is not supported in a script'
    printf 'SELECT 1 \\; copy (select 1 from t) to stdout with (format csv);\n' >out.sql
    pga run -f out.sql -T 5 "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err '^pgarena: out\.sql:1:13: COPY \.\.\. TO STDOUT is not supported in a script'
    # init -f runs its script through the same language: refused there too.
    pga init -f in.sql "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err 'in\.sql:3:3: COPY \.\.\. FROM STDIN'
}

# A COPY of a file on the server is a statement like any other, as in pgbench; the words
# STDIN and STDOUT in a string, a comment or a query do not make a COPY the client's.
test_copy_server_side_runs() {
    db=$(newdb pga_copy_srv)
    sql "CREATE TABLE t (a int)" "$db"
    cat >srv.sql <<'EOF'
-- COPY t FROM STDIN would be refused, but this is a comment
COPY t FROM '/dev/null';
COPY (SELECT a FROM t WHERE 'to stdout' <> '') TO '/dev/null';
EOF
    pga run -f srv.sql -c 2 -t 3 -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'd["complete"] is True and d["summary"]["transactions"] == 6 and d["summary"]["failed"] == 0'
}

# The COPY's words come from -D variables, so the parser sees no COPY: the server asks for
# rows. The client fails the COPY FROM STDIN (or drops a COPY TO STDOUT's rows), its
# transaction fails and it is aborted; the run ends by itself, incomplete, with its result.
test_copy_at_run_time_aborts_clients() {
    db=$(newdb pga_copy_rt)
    sql "CREATE TABLE t (a int); INSERT INTO t SELECT generate_series(1, 5000)" "$db"
    printf 'COPY t FROM :src;\n' >in.sql
    pga run -f in.sql -D src=STDIN -c 2 -t 50 -o in.json "$db"
    assert_rc 1
    assert_err '^pgarena: first failure: client [01] aborted at in\.sql:1: COPY \.\.\. FROM STDIN is not supported in a script'
    assert_err '^pgarena: 2 of 2 clients aborted'
    pyjson in.json 'd["complete"] is False and d["end_reason"] == "error"'
    pyjson in.json 'd["summary"]["transactions"] == 0 and d["summary"]["failed"] == 2 and d["summary"]["errors"]["other"] == 2'
    [ "$(sql "SELECT count(*) FROM t" "$db")" = 5000 ] || fail "rows were copied into t"
    # TO STDOUT inside a transaction and beside other statements: the rows are read and
    # dropped, the transaction rolled back.
    printf 'BEGIN;\nINSERT INTO t VALUES (0);\nSELECT 1 \\; COPY t TO :dst \\; SELECT 2;\nEND;\n' >out.sql
    pga run -f out.sql -D dst=STDOUT -c 2 -t 50 -o out.json "$db"
    assert_rc 1
    assert_err 'aborted at out\.sql:3: COPY \.\.\. TO STDOUT is not supported in a script'
    pyjson out.json 'd["end_reason"] == "error" and d["summary"]["failed"] == 2 and d["summary"]["transactions"] == 0'
    [ "$(sql "SELECT count(*) FROM t WHERE a = 0" "$db")" = 0 ] || fail "the aborted transactions were committed"
}

# A run whose one statement never ends makes no progress; the first SIGTERM stops it, and it
# writes its result. The process gets as long as it needs to end (a poll loop, not a bound).
test_sigterm_stops_run_without_progress() {
    db=$(newdb pga_copy_term)
    LIB_CLEANUP="${LIB_CLEANUP:-}; $PSQL -X -q -At '$db' -c \"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pga_no_progress%' AND pid <> pg_backend_pid()\""
    printf 'SELECT pg_sleep(3600) AS pga_no_progress;\n' >sleep.sql
    pga_bg run -f sleep.sql -c 1 -T 3600 -q -o r.json "$db"
    # The statement is running on the server: the run has started and cannot progress.
    for _ in $(seq 1 600); do
        n=$(sql "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(3600)%'" "$db")
        [ "$n" -ge 1 ] && break
        kill -0 $PID 2>/dev/null || break
        sleep 0.1
    done
    [ "$n" -ge 1 ] || { cat "$T/err"; fail "the run's statement never ran"; }
    kill -TERM $PID
    for _ in $(seq 1 1200); do
        kill -0 $PID 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 $PID 2>/dev/null; then
        kill -KILL $PID
        pga_wait || true
        fail "the run did not stop at the first SIGTERM"
    fi
    pga_wait
    assert_rc 1
    assert_err 'run cut short \(interrupted\)'
    pyjson r.json 'd["complete"] is False and d["end_reason"] == "interrupted" and d["summary"]["transactions"] == 0'
    [ ! -e r.json.journal ] || fail "the journal was left behind"
}

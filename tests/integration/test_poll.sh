# The engine's poll/ppoll event wait (make EVWAIT=poll; build/poll/pgarena): the runs the
# epoll build makes, against the same server, with the same counts and server-side effects.

POLL_PGARENA=$PGARENA_TEST_TOP/build/poll/pgarena
MKCAPTURE=$PGARENA_TEST_TOP/build/tests/mkcapture

poll_binary() {
    [ -x "$POLL_PGARENA" ] || make -s -C "$PGARENA_TEST_TOP" build/poll/pgarena >/dev/null ||
        fail "cannot build build/poll/pgarena"
}

# A closed-loop -t run of select-only (prepared), a paced -R run that writes, and a replay of
# two sessions: each counted to the transaction, each write seen on the server.
test_poll_backend_runs() {
    poll_binary
    db=$(pgbench_db pga_poll)
    PGARENA=$POLL_PGARENA pga run -w select-only -M prepared -c 4 -j 2 -t 50 -q -o sel.json "$db"
    assert_rc 0
    assert_out 'transactions: +200$'
    pyjson sel.json 'd["summary"]["transactions"] == 200 and d["summary"]["failed"] == 0'
    pyjson sel.json 'all(c["transactions"] == 50 for c in d["clients"])'
    PGARENA=$POLL_PGARENA pga run -w simple-update -R 200 -c 3 -j 1 -t 20 -q -o upd.json "$db"
    assert_rc 0
    pyjson upd.json 'd["summary"]["transactions"] == 60 and d["summary"]["failed"] == 0'
    [ "$(sql "SELECT count(*) FROM pgbench_history" "$db")" = 60 ] ||
        fail "the -R run's 60 transactions did not insert 60 history rows"
    [ -x "$MKCAPTURE" ] || make -s -C "$PGARENA_TEST_TOP" build/tests/mkcapture >/dev/null ||
        fail "cannot build tests/tools/mkcapture"
    sql "CREATE TABLE poll_log (s int, n int)" "$db"
    {
        for s in 0 1; do
            printf 'S\t%d\t%d\tpostgres\tpga_poll\n' $s $((s * 100))
            for n in 1 2 3 4 5; do
                printf 'Q\t%d\t%d\tsimple\t\t10\tok\t\t-1\t0\tINSERT INTO poll_log VALUES (%d, %d)\n' \
                    $s $((s * 100 + n * 1000)) $s $n
            done
            printf 'E\t%d\t%d\n' $s $((s * 100 + 9000))
        done
    } | "$MKCAPTURE" cap.pgc || fail "mkcapture failed"
    PGARENA=$POLL_PGARENA pga replay run cap.pgc "$db" --speed max -q -o rep.json
    assert_rc 0
    pyjson rep.json 'd["replay"]["sessions"] == 2 and d["replay"]["sent"] == 10'
    [ "$(sql "SELECT count(*) || ' ' || sum(n) FROM poll_log" "$db")" = "10 30" ] ||
        fail "the replay's 10 inserts are not all on the server"
}

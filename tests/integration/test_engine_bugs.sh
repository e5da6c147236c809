# Connections as libpq makes them and engine faults found in review (issue 12 items 1 and 6):
# each test failed before its fix. Tests that stop a server start one of their own.

own_server() {
    mkdir -p "$T/srv"
    chmod 755 "$T"
    OCONN=$(PGARENA_HARNESS_TCP_PORT=${1:-} sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$T/srv")
    LIB_CLEANUP='sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" stop "$T/srv"'
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A host list whose first host refuses: libpq moves on to the next one with a new socket
# (often with the same number), which the client must watch. It used to time out.
test_multihost_first_refuses() {
    port=$(free_port)
    own_server "$port"
    printf 'SELECT 1;\n' >s.sql
    pga run -f s.sql -c 2 -j 1 -T 2 -q -o r.json \
        "host=127.0.0.2,127.0.0.1 port=$port user=postgres dbname=postgres connect_timeout=5"
    assert_rc 0
    pyjson r.json 'd["summary"]["transactions"] > 0 and d["summary"]["failed"] == 0'
    # And the same list as a URI, with -C: every transaction connects through the list.
    pga run -f s.sql -c 1 -j 1 -t 20 -C -q -o r2.json \
        "postgresql://postgres@127.0.0.2:$port,127.0.0.1:$port/postgres"
    assert_rc 0
    pyjson r2.json 'd["summary"]["transactions"] == 20'
}

# A -t run whose server dies after one client finished used to wait forever: the lost
# clients were compared with all clients, not with those still running.
test_t_run_server_dies_after_one_client_finished() {
    own_server
    sql "CREATE TABLE done0 (n int)" "$OCONN"
    cat >s.sql <<'SQL'
\if :client_id = 0
INSERT INTO done0 VALUES (1);
\else
SELECT pg_sleep(0.2);
\endif
SQL
    pga_bg run -f s.sql -c 2 -j 2 -t 50 -q -o r.json "$OCONN"
    # Client 0's 50 short transactions are done once the server holds their 50 rows (the last
    # reply is in its socket before the halt closes it); client 1's take 10 s.
    for _ in $(seq 1 300); do
        [ "$(sql "SELECT count(*) FROM done0" "$OCONN")" = 50 ] && break
        kill -0 $PID 2>/dev/null || break
        sleep 0.1
    done
    n=$(sql "SELECT count(*) FROM done0" "$OCONN")
    [ "$n" = 50 ] || { cat "$T/err"; fail "client 0 did $n of its 50 transactions in 30 s"; }
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" halt "$T/srv"
    # Server-lost ends it about 10 s later; 40 s means it hangs (a margin no stall of this
    # machine's CPU comes near, where a hang waits for ever).
    for _ in $(seq 1 40); do
        kill -0 $PID 2>/dev/null || break
        sleep 1
    done
    if kill -0 $PID 2>/dev/null; then
        kill -9 $PID
        fail "the -t run still waits 40 s after its server died"
    fi
    pga_wait
    assert_rc 1
    assert_err 'server-lost'
    pyjson r.json 'd["end_reason"] == "server-lost" and d["summary"]["errors"]["connection"] >= 1'
    pyjson r.json 'd["clients"][0]["transactions"] == 50'
    pyjson r.json 'sum(c["failed"] for c in d["clients"]) == d["summary"]["failed"]'
}

# libpq's message for a lost connection spans lines ("server closed the connection
# unexpectedly\n\tThis probably means..."): the first-failure line stays one line.
test_first_failure_is_one_line() {
    own_server
    printf 'SELECT pg_sleep(0.05);\n' >s.sql
    pga_bg run -f s.sql -c 2 -j 1 -T 5 -q -o r.json "$OCONN"
    # Halted once both clients run their statements (a fixed sleep could halt a run still
    # connecting on a loaded machine: no first failure of a lost connection then).
    for _ in $(seq 1 300); do
        [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(0.05)%'" "$OCONN")" -ge 2 ] && break
        kill -0 $PID 2>/dev/null || break
        sleep 0.1
    done
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" halt "$T/srv"
    sleep 1
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" resume "$T/srv"
    pga_wait
    assert_rc 0
    pyjson r.json 'd["summary"]["errors"]["connection"] >= 1'
    assert_err '^pgarena: first failure: '
    if grep -vq '^pgarena: ' "$T/err"; then
        cat "$T/err"
        fail "a stderr line does not begin with 'pgarena: '"
    fi
}

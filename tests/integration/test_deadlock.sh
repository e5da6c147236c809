# Real deadlocks, as pgbench's own suite forces them: two clients take two advisory locks in
# opposite orders. The server detects each deadlock (deadlock_timeout lowered to 50 ms) and
# aborts one transaction; pgarena counts it as a deadlock and, with --max-tries, retries it.

dl_setup() {
    DB=$(newdb pga_deadlock)
    sql "CREATE TABLE dl_done (client int)" "$DB"
    cat >dl.sql <<'SQL'
\set first 1 + :client_id
\set second 2 - :client_id
BEGIN;
SELECT pg_advisory_xact_lock(:first);
SELECT pg_sleep(0.05);
SELECT pg_advisory_xact_lock(:second);
INSERT INTO dl_done VALUES (:client_id);
END;
SQL
    DLCONN="$DB options='-c deadlock_timeout=50'"
}

test_deadlock_counted_without_retries() {
    dl_setup
    before=$(sql "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()" "$DB")
    pga run -f dl.sql -c 2 -j 2 -t 10 -q -o r.json "$DLCONN"
    assert_rc 0
    pyjson r.json 'd["summary"]["errors"]["deadlock"] >= 1'
    pyjson r.json 'd["summary"]["failed"] == d["summary"]["errors"]["deadlock"]'
    pyjson r.json 'd["summary"]["retried"] == 0'
    pyjson r.json 'd["summary"]["transactions"] + d["summary"]["failed"] == 20'
    # Server side: the failed transactions were rolled back, the others left their row, and
    # the server saw the deadlocks.
    n=$(sql "SELECT count(*) FROM dl_done" "$DB")
    pyjson r.json "d['summary']['transactions'] == $n"
    want=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["errors"]["deadlock"])' r.json)
    # Backends publish their statistics when they exit, which may be a moment after the run.
    for _ in $(seq 1 50); do
        after=$(sql "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()" "$DB")
        [ $((after - before)) -ge "$want" ] && break
        sleep 0.1
    done
    [ $((after - before)) -ge "$want" ] || fail "server counted $((after - before)) deadlocks, pgarena $want"
}

test_deadlock_retried_with_max_tries() {
    dl_setup
    pga run -f dl.sql -c 2 -j 2 -t 10 --max-tries 50 -q -o r.json "$DLCONN"
    assert_rc 0
    # Every transaction ended well, some only after a retry with the same draws.
    pyjson r.json 'd["summary"]["transactions"] == 20 and d["summary"]["failed"] == 0'
    pyjson r.json 'd["summary"]["retried"] >= 1 and d["summary"]["retries"] >= d["summary"]["retried"]'
    pyjson r.json 'd["summary"]["errors"]["deadlock"] == 0'
    [ "$(sql "SELECT count(*) FROM dl_done" "$DB")" = 20 ] || fail "retried transactions left other than one row each"
    [ "$(sql "SELECT count(*) FROM dl_done GROUP BY client ORDER BY 1" "$DB" | tr '\n' ' ')" = "10 10 " ] ||
        fail "rows per client differ from 10 each"
}

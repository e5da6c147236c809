# replay run --order: the capture's real-time order across sessions (the default) against
# each session on its own clock (--order session); captures written with tests/tools/mkcapture,
# checked by counts (failures, waits), never by time.

MKCAPTURE=$PGARENA_TEST_TOP/build/tests/mkcapture

order_tool() {
    [ -x "$MKCAPTURE" ] || make -s -C "$PGARENA_TEST_TOP" build/tests/mkcapture >/dev/null ||
        fail "cannot build tests/tools/mkcapture"
}

# mkcapture's line of a statement: session, offset and duration (µs), text; it succeeded.
order_q() {
    printf 'Q\t%s\t%s\tsimple\t\t%s\tok\t\t-1\t0\t%s\n' "$@"
}

# Two sessions whose statements interleave in time (the lines in time order, as a capture
# holds them): session 0 sleeps (quickly, in the capture: it is the replay's sleep that makes
# session 1 run ahead), then creates a table; session 1 inserts into it just after, checks
# the row and drops the table. DUR: the statements' durations (µs), or -1 for a log of
# log_statement = 'all' alone (a statement's end is then its session's next line: session 0's
# SELECT 2 bounds its CREATE's).
interleaved_capture() {
    local d=$3
    {
        printf 'S\t0\t0\tpostgres\t%s\n' "$1"
        order_q 0 100 "$d" 'SELECT pg_sleep(2)'
        printf 'S\t1\t500\tpostgres\t%s\n' "$1"
        order_q 0 1000 "$d" 'CREATE TABLE o (a int)'
        order_q 0 1200 "$d" 'SELECT 2'
        order_q 1 2000 "$d" 'INSERT INTO o VALUES (1)'
        order_q 1 3000 "$d" 'SELECT 1 / count(*) FROM o'
        order_q 1 4000 "$d" 'DROP TABLE o'
        printf 'E\t1\t5000\n'
        printf 'E\t0\t6000\n'
    } | "$MKCAPTURE" "$2" || fail "mkcapture failed"
}

# With the capture's order the insert waits for the create, in every repetition, at --speed
# max, with the sessions on two threads, and from a capture without durations; on their own
# clocks it runs first and fails.
test_replay_order_interleaved() {
    order_tool
    newdb pga_rorder >/dev/null
    interleaved_capture pga_rorder il.pgc 100
    interleaved_capture pga_rorder il-log.pgc -1
    for k in 1 2 3 4; do
        jobs=1 cap=il.pgc
        [ "$k" -gt 1 ] && jobs=2
        [ "$k" -eq 4 ] && cap=il-log.pgc
        pga replay run $cap "$CONN" --speed max -j $jobs -q -o c$k.json
        assert_rc 0
        pyjson c$k.json 'd["summary"]["failed"] == 0 and d["replay"]["diverged"]["failed_now"] == 0'
        pyjson c$k.json 'd["replay"]["sent"] == 6 and d["replay"]["order"] == "capture"'
        pyjson c$k.json 'd["replay"]["order_waits"] >= 1 and d["replay"]["order_given_way"] == 0'
    done
    pga show c1.json
    assert_rc 0
    assert_out "order: +the capture's, across sessions: [1-9][0-9]* statements waited"
    pga replay run il.pgc "$CONN" --speed max --order session -q -o s.json
    assert_rc 0
    pyjson s.json 'd["replay"]["diverged"]["failed_now"] >= 1 and d["replay"]["order"] == "session"'
    pyjson s.json '"order_waits" not in d["replay"]'
    pyjson s.json 'any("42P01" in t["reason"] for t in d["replay"]["diverged"]["top"])'
    pga show s.json
    assert_out 'order: +each session on its own clock'
    pga replay run il.pgc "$CONN" --order sideways
    assert_rc 2
    assert_err "invalid value for --order: 'sideways' \(expected capture or session\)"
}

# The replay takes a lock in another order than its capture: session 1 (which logs in after
# session 0 took advisory lock 9) waits on the server for that lock, which session 0 gives up
# inside its transaction block only after it updated table g, so session 1's ALTER TABLE g
# comes after and waits for session 0's lock on g, while session 0's COMMIT waits in the order
# for that ALTER (a change of the schema, finished before it started in the
# capture): the order gives way once, counted, and the replay ends with both made.
test_replay_order_gives_way_to_a_lock() {
    order_tool
    db=$(newdb pga_rorder_lock)
    sql "CREATE TABLE g (id int PRIMARY KEY, v int); INSERT INTO g VALUES (1, 0)" "$db"
    {
        printf 'S\t0\t0\tpostgres\tpga_rorder_lock\n'
        order_q 0 50 10 'SELECT pg_advisory_lock(9)'
        printf 'S\t1\t70\tpostgres\tpga_rorder_lock\n'
        order_q 1 80 200 'SELECT pg_advisory_lock(9)'
        order_q 0 100 10 'BEGIN'
        order_q 0 200 10 'UPDATE g SET v = v + 1 WHERE id = 1'
        order_q 0 250 10 'SELECT pg_advisory_unlock(9)'
        order_q 1 300 10 'ALTER TABLE g ADD COLUMN w int'
        order_q 0 400 10 'COMMIT'
        order_q 1 500 10 'SELECT pg_advisory_unlock(9)'
        printf 'E\t0\t600\n'
        printf 'E\t1\t700\n'
    } | "$MKCAPTURE" lock.pgc || fail "mkcapture failed"
    pga replay run lock.pgc "$CONN" --speed max -q -o l.json
    assert_rc 0
    pyjson l.json 'd["summary"]["failed"] == 0 and d["replay"]["order_given_way"] == 1'
    pyjson l.json 'd["replay"]["sent"] == 8 and d["replay"]["diverged"]["failed_now"] == 0'
    pyjson l.json 'd["replay"]["order_waits"] >= 1'
    [ "$(sql 'SELECT v FROM g' "$db")" = 1 ] || fail "the update was not made"
    [ "$(sql "SELECT count(*) FROM pg_attribute WHERE attrelid = 'g'::regclass AND attname = 'w'" "$db")" = 1 ] ||
        fail "the ALTER TABLE was not made"
}

# The same cycle through a session-level advisory lock, which a session holds outside any
# transaction block: session 0 holds lock 7 (the replay differs from its capture, where the
# lock was free for session 1), session 1's pg_advisory_lock(7) waits for it on the server,
# and session 0's unlock waits in the order for session 1's CREATE TABLE, which comes after
# that lock: the order gives way once, counted, and both sessions end.
test_replay_order_gives_way_to_an_advisory_lock() {
    order_tool
    db=$(newdb pga_rorder_adv)
    {
        printf 'S\t0\t0\tpostgres\tpga_rorder_adv\n'
        order_q 0 100 10 'SELECT pg_advisory_lock(7)'
        printf 'S\t1\t150\tpostgres\tpga_rorder_adv\n'
        order_q 1 300 10 'SELECT pg_advisory_lock(7)'
        order_q 1 320 10 'CREATE TABLE adv_t (a int)'
        order_q 0 400 10 'SELECT pg_advisory_unlock(7)'
        order_q 1 500 10 'SELECT pg_advisory_unlock(7)'
        printf 'E\t0\t600\n'
        printf 'E\t1\t700\n'
    } | "$MKCAPTURE" adv.pgc || fail "mkcapture failed"
    pga replay run adv.pgc "$CONN" --speed max -q -o a.json
    assert_rc 0
    pyjson a.json 'd["summary"]["failed"] == 0 and d["replay"]["order_given_way"] == 1'
    pyjson a.json 'd["replay"]["sent"] == 5 and d["replay"]["sessions_failed"] == 0'
    [ "$(sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'" "$db")" = 0 ] ||
        fail "an advisory lock outlived the replay"
}

# (Fidelity, with this file's tools.) A statement that carried a value the capture's server
# generated (here a large object's OID, made in the capture and not on the target) fails now,
# and so does the rest of its transaction block (25P02): the divergence report names both
# for what they are, and a later failure of another kind keeps its own message.
test_replay_names_server_generated_values() {
    order_tool
    db=$(newdb pga_rgen)
    {
        printf 'S\t0\t0\tpostgres\tpga_rgen\n'
        order_q 0 100 10 'BEGIN'
        order_q 0 200 10 'SELECT lo_open(987654321, 262144)'
        order_q 0 300 10 'SELECT 1'
        order_q 0 400 10 'ROLLBACK'
        order_q 0 500 10 'SELECT 1 FROM no_such_table'
        printf 'E\t0\t600\n'
    } | "$MKCAPTURE" gen.pgc || fail "mkcapture failed"
    pga replay run gen.pgc "$CONN" --speed max -q -o g.json
    assert_rc 0
    pyjson g.json 'd["replay"]["diverged"]["failed_now"] == 3'
    pyjson g.json '{t["reason"]: t["count"] for t in d["replay"]["diverged"]["top"]} == {"failed now on a value the capture'"'"'s server generated (large object OID): large object 987654321 does not exist": 1, "failed now with 25P02: its transaction block was aborted by a failure on a value the capture'"'"'s server generated": 1, "failed now with 42P01: relation \"no_such_table\" does not exist": 1}'
}

# An application whose sessions update the same rows (pgbench tpcb-like, extended protocol,
# four clients on two branches' rows), captured through the server's log (milliseconds) and
# replayed with the defaults (speed 1, the capture's order) onto a copy made before it:
# every statement is sent, every outcome is the capture's, and the copy ends with the same
# balances and history as the original. (When every statement waited for what other sessions
# had finished before it, such a replay crawled: seconds per transaction.)
test_replay_order_contended_application() {
    chmod 755 "$T"
    srv=$T/srv
    rconn=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$srv" collector)
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$srv'"
    sql "CREATE DATABASE app" "$rconn"
    "$PGBENCH" -i -q -s 2 "${rconn% dbname=*} dbname=app" >/dev/null 2>&1 || fail "pgbench -i failed"
    sql "CREATE DATABASE app_copy TEMPLATE app" "$rconn"
    pga_bg replay capture "$rconn" --seconds 600 -o "$T/app.cap"
    for _ in $(seq 1 100); do
        grep -q "logging for" "$T/err" && break
        sleep 0.1
    done
    "$PGBENCH" -n -M extended -c 4 -j 2 -t 100 "${rconn% dbname=*} dbname=app" >"$T/pgbench.out" 2>&1 ||
        fail "pgbench failed: $(tail -3 "$T/pgbench.out")"
    # The collector writes behind: the capture ends once a statement sent after pgbench's
    # last is in the log, so every one of pgbench's is.
    sql "SELECT 'end of the application'" "$rconn" >/dev/null
    for _ in $(seq 1 100); do
        grep -q "end of the application" "$srv"/log/postgresql.csv && break
        sleep 0.1
    done
    kill -INT $PID
    pga_wait
    assert_rc 0
    pga replay run "$T/app.cap" "$rconn" --map-db app=app_copy --force -q -o "$T/r.json"
    assert_rc 0
    pyjson "$T/r.json" 'd["replay"]["statements"] >= 7 * 400 and d["replay"]["sent"] == d["replay"]["statements"]'
    pyjson "$T/r.json" 'd["summary"]["failed"] == 0 and d["replay"]["sessions_failed"] == 0'
    pyjson "$T/r.json" 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["diverged"]["succeeded_now"] == 0'
    pyjson "$T/r.json" 'd["replay"]["order"] == "capture"'
    # No statement waited for another session's: they change no schema and draw from no
    # sequence (only a session's start may wait, for what finished before its login).
    pyjson "$T/r.json" 'd["replay"]["order_waits"] <= d["replay"]["sessions"] and d["replay"]["order_given_way"] == 0'
    # How faithful the timing was: both durations, the share sent on time, and show's line.
    pyjson "$T/r.json" 'd["replay"]["captured_s"] > 0 and d["replay"]["replayed_s"] == d["summary"]["duration_s"]'
    pyjson "$T/r.json" '0 <= d["replay"]["on_time_share"] <= 1'
    pga show "$T/r.json"
    assert_out "^timing: +captured [0-9.]+ s, replayed [0-9.]+ s \([0-9.]+x\); [0-9.]+ % of statements sent within 1 ms of their schedule"
    q="SELECT (SELECT sum(abalance) FROM pgbench_accounts) || ' ' || (SELECT sum(bbalance) FROM pgbench_branches) || ' ' || (SELECT count(*) FROM pgbench_history)"
    orig=$(sql "$q" "${rconn% dbname=*} dbname=app")
    copy=$(sql "$q" "${rconn% dbname=*} dbname=app_copy")
    [ "$orig" = "$copy" ] || fail "the copy differs from the original: $copy, not $orig"
    [ "${orig##* }" = 400 ] || fail "pgbench's history holds ${orig##* } rows, not 400"
}

# Two sessions insert into a serial table inside their transaction blocks and send the ids
# back (as a log shows them): session 0 (slow in the replay: it sleeps first) drew id 1,
# session 1 id 2, OFF µs later. The order across sessions does not order statements inside
# blocks; the order of draws does, where the log can tell (OFF >= 1 ms). Args: DB OFF OUT.
draws_capture() {
    {
        printf 'H\ttime_resolution_us\t1000\n'
        printf 'S\t0\t0\tpostgres\t%s\n' "$1"
        printf 'S\t1\t100\tpostgres\t%s\n' "$1"
        order_q 0 1000 10 'BEGIN'
        order_q 0 1100 10 'SELECT pg_sleep(2)'
        order_q 0 2000 10 "INSERT INTO orders (note) VALUES ('a') RETURNING id"
        order_q 1 2100 10 'BEGIN'
        order_q 1 "$2" 10 "INSERT INTO orders (note) VALUES ('b') RETURNING id"
        order_q 1 5000 10 "INSERT INTO items VALUES (2, 'b')"
        order_q 1 5100 10 "UPDATE orders SET note = 'b2' WHERE id = 2"
        order_q 1 6000 10 'COMMIT'
        order_q 0 7000 10 "INSERT INTO items VALUES (1, 'a')"
        order_q 0 8000 10 'COMMIT'
        printf 'E\t1\t9000\n'
        printf 'E\t0\t9500\n'
    } | "$MKCAPTURE" "$3" || fail "mkcapture failed"
}

# The catalog is read from the target (-j 1), or from --reset-from's template (the rest).
test_replay_order_of_sequence_draws() {
    order_tool
    db=$(newdb pga_rdraws)
    tmpl=$(newdb pga_rdraws_t)
    for c in "$db" "$tmpl"; do
        sql "CREATE TABLE orders (id serial PRIMARY KEY, note text);
             CREATE TABLE items (order_id int REFERENCES orders, note text)" "$c"
    done
    draws_capture pga_rdraws 3000 apart.pgc
    draws_capture pga_rdraws 2500 within.pgc
    reset=
    for jobs in 1 2; do
        pga replay run apart.pgc "$CONN" --speed max -j $jobs $reset -q -o a$jobs.json
        assert_rc 0
        pyjson a$jobs.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["sent"] == 10'
        pyjson a$jobs.json 'd["replay"]["order_waits"] >= 1 and d["replay"]["order_given_way"] == 0'
        [ "$(sql "SELECT string_agg(id || note, ',' ORDER BY id) FROM orders" "$db")" = 1a,2b2 ] ||
            fail "the ids were not drawn in the capture's order (-j $jobs)"
        reset="--reset-from pga_rdraws_t"
    done
    # On their own clocks session 1 draws first: the ids it sends back name other rows.
    pga replay run apart.pgc "$CONN" --speed max --order session $reset -q -o s.json
    assert_rc 0
    pyjson s.json 'd["replay"]["diverged"]["failed_now"] == 3'
    # Within one millisecond the log cannot tell which drew first: not ordered, the replay
    # draws in another order, and the report says the failures come of a generated value.
    pga replay run within.pgc "$CONN" --speed max $reset -q -o w.json
    assert_rc 0
    pyjson w.json 'd["replay"]["diverged"]["failed_now"] == 3'
    pyjson w.json '{t["reason"]: t["count"] for t in d["replay"]["diverged"]["top"]} == {"failed now on a value the capture'"'"'s server generated (sequence value): insert or update on table \"items\" violates foreign key constraint \"items_order_id_fkey\"": 2, "failed now with 25P02: its transaction block was aborted by a failure on a value the capture'"'"'s server generated": 1}'
    # An insert that gives the sequence's column its value (sysbench's) draws nothing: session
    # 1's does not wait for session 0's, which comes after a sleep.
    {
        printf 'H\ttime_resolution_us\t1000\n'
        printf 'S\t0\t0\tpostgres\tpga_rdraws\n'
        printf 'S\t1\t100\tpostgres\tpga_rdraws\n'
        order_q 0 1000 10 'SELECT pg_sleep(2)'
        order_q 0 2000 10 "INSERT INTO orders (id, note) VALUES (10, 'x')"
        order_q 1 3000 10 "INSERT INTO orders (id, note) VALUES (11, 'y')"
        printf 'E\t0\t4000\n'
        printf 'E\t1\t4000\n'
    } | "$MKCAPTURE" given.pgc || fail "mkcapture failed"
    pga replay run given.pgc "$CONN" --speed max -q -o g.json
    assert_rc 0
    pyjson g.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["order_waits"] == 0'
    [ "$(sql "SELECT string_agg(id || note, ',' ORDER BY id) FROM orders WHERE id >= 10" "$db")" = 10x,11y ] ||
        fail "the inserts with their own ids were not both made"
}

# A wait for a draw that closes a cycle through a lock gives way: session 1 (in its block,
# holding the row of g that the replay let it take first) waits for session 0's earlier draw,
# which waits on the server for that row: the order gives way once, counted, and both draw.
test_replay_order_of_draws_gives_way() {
    order_tool
    db=$(newdb pga_rdraws_lock)
    sql "CREATE TABLE g (id int PRIMARY KEY, v int); INSERT INTO g VALUES (1, 0);
         CREATE TABLE orders (id serial PRIMARY KEY, note text)" "$db"
    {
        printf 'H\ttime_resolution_us\t1000\n'
        printf 'S\t0\t0\tpostgres\tpga_rdraws_lock\n'
        printf 'S\t1\t50\tpostgres\tpga_rdraws_lock\n'
        order_q 1 100 10 'BEGIN'
        order_q 0 500 10 'SELECT pg_sleep(1)'
        order_q 0 1000 10 "WITH u AS (UPDATE g SET v = v + 1 WHERE id = 1 RETURNING 1) INSERT INTO orders (note) SELECT 'a' FROM u"
        order_q 1 1500 10 'UPDATE g SET v = v + 10 WHERE id = 1'
        order_q 1 2000 1 "INSERT INTO orders (note) VALUES ('b')"
        order_q 1 2005 1 'COMMIT'
        printf 'E\t0\t3000\n'
        printf 'E\t1\t3000\n'
    } | "$MKCAPTURE" dlock.pgc || fail "mkcapture failed"
    pga replay run dlock.pgc "$CONN" --speed max -q -o dl.json
    assert_rc 0
    pyjson dl.json 'd["summary"]["failed"] == 0 and d["replay"]["order_given_way"] == 1'
    pyjson dl.json 'd["replay"]["sent"] == 6 and d["replay"]["diverged"]["failed_now"] == 0'
    [ "$(sql "SELECT string_agg(note, '' ORDER BY orders.id) || max(v) FROM orders, g" "$db")" = ba11 ] ||
        fail "the draws were not both made, session 1's first"
}

# replay of drivers' traffic: named statements prepared once per session and again after the
# session deallocated them (or used the name for another text), portals fetched in parts
# (folded into their first execute), PostgreSQL 18's log (tests/data/replay/d18.*); checked
# by counts, by what the statements wrote on the target and by the target's own log of the
# replay, never by time.

MKCAPTURE=$PGARENA_TEST_TOP/build/tests/mkcapture

drivers_tool() {
    [ -x "$MKCAPTURE" ] || make -s -C "$PGARENA_TEST_TOP" build/tests/mkcapture >/dev/null ||
        fail "cannot build tests/tools/mkcapture"
}

# mkcapture's line of a named statement of session 0 that succeeded: offset, name, text, $1.
drivers_named() {
    printf 'Q\t0\t%s\tnamed\t%s\t100\tok\t\t-1\t1\t%s\t%s\n' "$1" "$2" "$4" "$3"
}

drivers_simple() {
    printf 'Q\t0\t%s\tsimple\t\t100\tok\t\t-1\t0\t%s\n' "$1" "$2"
}

# One session: S_1 prepared and executed twice, deallocated, prepared with another text
# (an INSERT: the replay must run that text), DISCARD ALL, a third text; S_2 used for
# another text without a DEALLOCATE in the log (a driver's protocol Close is not logged);
# an unnamed statement; DEALLOCATE ALL.
drivers_capture() {
    {
        printf 'S\t0\t0\tpostgres\t%s\n' "$1"
        drivers_named 1000 S_1 'SELECT v FROM t WHERE id = $1' 1
        drivers_named 2000 S_1 'SELECT v FROM t WHERE id = $1' 2
        drivers_simple 3000 'DEALLOCATE "S_1"'
        drivers_named 4000 S_1 'INSERT INTO w VALUES ($1)' 10
        drivers_named 5000 S_1 'INSERT INTO w VALUES ($1)' 11
        drivers_simple 6000 'DISCARD ALL'
        drivers_named 7000 S_1 'INSERT INTO w VALUES ($1 + 100)' 12
        drivers_named 8000 S_2 'SELECT $1::int' 5
        drivers_named 9000 S_2 'INSERT INTO w VALUES ($1 + 1000)' 13
        printf 'Q\t0\t9500\tunnamed\t\t100\tok\t\t-1\t1\t14\tINSERT INTO w VALUES ($1 + 10000)\n'
        drivers_simple 9800 'DEALLOCATE ALL'
        printf 'E\t0\t10000\n'
    } | "$MKCAPTURE" "$2" || fail "mkcapture failed"
}

# The replay prepares each name again where the application did, runs each execute with its
# own text, and nothing fails (no 26000, no 42P05), in either order.
test_replay_drivers_prepare_again() {
    drivers_tool
    local db
    db=$(newdb pga_drivers)
    sql "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'x' FROM generate_series(1, 10) g; CREATE TABLE w (n int)" "$db"
    drivers_capture pga_drivers cap.pgc
    pga replay show cap.pgc
    assert_rc 0
    assert_out "^statements  11: 3 simple, 7 extended named, 1 extended unnamed;"
    assert_out "^named       7 executions of 2 names; a replay prepares 5 "
    assert_out "^portals     0 fetches"
    assert_out "^deallocate  1 DEALLOCATE name, 2 DEALLOCATE ALL or DISCARD ALL, 0 DISCARD PLANS"
    for order in capture session; do
        pga replay run cap.pgc "$db" --speed max --order $order -o r.json
        assert_rc 0
        assert_out "^named statements: +5 prepared"
        assert_out "^fidelity: +every outcome as in the capture"
        pyjson r.json 'd["replay"]["sent"] == 11 and d["summary"]["failed"] == 0'
        pyjson r.json 'd["replay"]["prepared"] == 5 and "portal_fetches" not in d["replay"]'
        pyjson r.json 'd["replay"]["diverged"]["failed_now"] == 0'
        [ "$(sql "SELECT string_agg(n::text, ',' ORDER BY n) FROM w" "$db")" = "10,11,112,1013,10014" ] ||
            fail "--order $order: the executes did not run their own texts: $(sql 'SELECT array_agg(n) FROM w' "$db")"
        sql "DELETE FROM w" "$db"
    done
}

# PostgreSQL 18's log of drivers' traffic (make-fixtures-18.sh) replayed onto a server of the
# test's own that logs every statement: no failure, the portal fetches folded and counted,
# the names prepared as the capture's show says; and the target's log, prepared in turn,
# holds each replayed statement with the capture's protocol, name, text and parameters.
test_replay_drivers_pg18_log() {
    mkdir -p "$T/srv"
    chmod 755 "$T"
    local oconn
    oconn=$(sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$T/srv")
    LIB_CLEANUP='sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" stop "$T/srv"'
    sql "CREATE DATABASE d18" "$oconn" >/dev/null
    pga init -s 1 -q "${oconn% dbname=*} dbname=d18"
    assert_rc 0
    for set in "logging_collector = on" "log_destination = 'csvlog'" "log_statement = 'all'" \
        "log_connections = on" "log_disconnections = on" "lc_messages = 'C'"; do
        sql "ALTER SYSTEM SET $set" "$oconn" >/dev/null
    done
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" halt "$T/srv"
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" resume "$T/srv"
    pga replay prepare "$PGARENA_TEST_TOP/tests/data/replay/d18.csv" -o cap.pgc
    assert_rc 0
    assert_out "unsupported parameters_cut: 1, e.g. SELECT length"
    assert_out "portal fetches folded into their portal's first execute: 3 "
    pga replay show cap.pgc
    assert_rc 0
    assert_out "^named       13 executions of 9 names; a replay prepares 11 "
    assert_out "^portals     3 fetches"
    assert_out "^deallocate  1 DEALLOCATE name, 2 DEALLOCATE ALL or DISCARD ALL, 1 DISCARD PLANS"
    pga replay show --events cap.pgc
    mv "$T/out" want.events
    pga replay run cap.pgc "$oconn" --map-db postgres=d18 --speed max -o r.json
    assert_rc 0
    assert_out "^named statements: +11 prepared .*; 3 portal fetches folded"
    pyjson r.json 'd["replay"]["sent"] == 26 and d["summary"]["failed"] == 0'
    pyjson r.json 'd["replay"]["prepared"] == 11 and d["replay"]["portal_fetches"] == 3'
    pyjson r.json '[u["kind"] for u in d["replay"]["unsupported"]] == ["parameters_cut"]'
    sleep 0.5 # the collector writes behind
    log=$(sql "SELECT pg_current_logfile('csvlog')" "$oconn")
    case "$log" in /*) ;; *) log="$T/srv/data/$log" ;; esac
    pga replay prepare "$log" -o replayed.pgc --database d18
    assert_rc 0
    pga replay show --events replayed.pgc
    python3 - want.events "$T/out" <<'PY' || fail "the replay did not send the capture's statements as they were sent"
import json, sys
# Sessions numbered by their first statement: the replay's own read of the target's catalog
# (replay/sequences.h) is a session of the log with no statement logged.
def statements(path):
    ev = [json.loads(l) for l in open(path)]
    ids = {}
    return [(ids.setdefault(e["session"], len(ids)), e["protocol"], e["name"], e["text"],
             e["params"]) for e in ev if e["event"] == "statement"]
want, got = statements(sys.argv[1]), statements(sys.argv[2])
if want != got:
    for w, g in zip(want, got):
        if w != g:
            print("capture:", w, "\nreplay: ", g, file=sys.stderr)
            break
    print(len(want), "statements in the capture,", len(got), "in the replay's log", file=sys.stderr)
    sys.exit(1)
PY
}

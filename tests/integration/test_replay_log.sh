# replay prepare and replay capture on real traffic: a server of the test's own writes
# stderr, csvlog and jsonlog at once (pg-servers.sh collector); pgbench in each protocol and
# psql running tests/data/replay/script.sql (errors, multi-line statements, a COPY, passwords)
# are prepared from each format, and the counts are checked against what was sent.

replay_server() { # [conf=NAME=VALUE...] -> $srv, $rconn
    chmod 755 "$T"
    srv=$T/srv
    rconn=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$srv" collector "$@")
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$srv'"
}

# Settings (ALTER SYSTEM statements) for the next phase, with the logs emptied.
replay_logging() {
    for s in "$@"; do sql "ALTER SYSTEM SET $s" "$rconn"; done
    sql "SELECT pg_reload_conf()" "$rconn" >/dev/null
    sleep 0.5
    for f in "$srv"/log/*; do : >"$f"; done
}

# pgbench -t 5 -c 2 in each protocol and the psql script; $T/tx.MODE: transactions done.
replay_traffic() {
    for m in simple extended prepared; do
        "$PGBENCH" -n -M $m -t 5 -c 2 "$rconn" >"$T/pgbench.out" 2>&1
        sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$T/pgbench.out" >"$T/tx.$m"
    done
    "$PSQL" -X -q -f "$PGARENA_TEST_TOP/tests/data/replay/script.sql" "$rconn" >/dev/null 2>&1 || true
    sleep 0.7 # the collector writes behind
}

# Two captures hold the same sessions, each with the same events in the same order (the
# collector may write messages of one millisecond in another order to each destination).
replay_same_sessions() {
    python3 - "$1" "$2" <<'PY'
import json, sys
def sessions(path):
    ev = [json.loads(l) for l in open(path)]
    ids = {e["session"]: e["log_id"] for e in ev if e["event"] == "start"}
    out = {}
    for e in ev:
        out.setdefault(ids[e["session"]], []).append({k: v for k, v in e.items() if k != "session"})
    return out
a, b = sessions(sys.argv[1]), sessions(sys.argv[2])
if a != b:
    print("captures differ:", sys.argv[1], sys.argv[2], file=sys.stderr)
    sys.exit(1)
PY
}

# Prepare each format of phase P and check the capture against what was sent.
replay_check_phase() {
    p=$1
    cp "$srv/log/postgresql" "$T/$p.log"
    cp "$srv/log/postgresql.csv" "$T/$p.csv"
    cp "$srv/log/postgresql.json" "$T/$p.jsonlog"
    gzip -k "$T/$p.log"
    for f in $p.log $p.csv $p.jsonlog $p.log.gz; do
        pga replay prepare "$T/$f" -o "$T/$f.cap"
        assert_rc 0
        assert_out "skipped: 0 COPY FROM STDIN, 0 carrying a password, 0 unsupported"
        assert_out "COPY FROM STDIN kept without their data: 1 \\(replay_t 1\\)"
        assert_out "kept with the password cut out: 3"
        ! grep -q sekrit "$T/out" "$T/err" || fail "a password in prepare's output"
        ! zcat "$T/$f.cap" | grep -aq sekrit || fail "a password in $f.cap"
        pga replay show --events "$T/$f.cap"
        assert_rc 0
        mv "$T/out" "$T/$f.events"
    done
    for f in $p.csv $p.jsonlog $p.log.gz; do
        replay_same_sessions "$T/$p.log.events" "$T/$f.events" || fail "$f gives another capture than $p.log"
    done
    python3 - "$T/$p.log.events" "$(cat "$T/tx.simple")" "$(cat "$T/tx.extended")" \
        "$(cat "$T/tx.prepared")" <<'PY' || fail "phase $p: the capture does not hold what was sent"
import collections, json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
tx = [int(x) for x in sys.argv[2:5]]
assert all(t == 10 for t in tx), tx
st = [e for e in ev if e["event"] == "statement"]
by = collections.Counter(e["protocol"] for e in st)
# psql's script: 18 statements kept (3 with their password cut out, a COPY FROM STDIN
# without its data); each pgbench run: 2
# set-up statements, 7 per transaction.
want = {"simple": 18 + 3 * 2 + 7 * tx[0], "extended-unnamed": 7 * tx[1], "extended-named": 7 * tx[2]}
assert dict(by) == want, (dict(by), want)
starts = [e for e in ev if e["event"] == "start"]
assert len(starts) == 1 + 3 * 3, len(starts)
failed = sorted(e["sqlstate"] for e in st if e["outcome"] == "error")
assert failed == ["22012", "42601", "42P01", "57014"], failed
named = [e for e in st if e["protocol"] == "extended-named" and e["params"]]
assert all(len(e["params"]) >= 1 and e["name"].startswith("P_") for e in named)
offsets = [e["offset_us"] for e in ev]
assert offsets == sorted(offsets)
PY
}

test_replay_prepare_traffic() {
    replay_server
    "$PGBENCH" -i -q -s 1 "$rconn" >/dev/null 2>&1
    replay_logging "log_line_prefix = '%m|%u|%d|%c|%e|'" "log_statement = 'all'" \
        "log_connections = on" "log_disconnections = on"
    replay_traffic
    replay_check_phase all
    # log_min_duration_statement alone, another prefix with the fields in another order.
    replay_logging "log_line_prefix = '%c %m %e user=%u db=%d '" "log_statement = 'none'" \
        "log_min_duration_statement = 0" "log_connections = off" "log_disconnections = off"
    replay_traffic
    replay_check_phase duration
    pga replay show "$T/duration.csv.cap"
    assert_rc 0
    assert_out "^sessions +10$"
    assert_out "UPDATE pgbench_accounts SET abalance = abalance \+ \\\$1 WHERE aid = \\\$2"
}

# The settings are as they were: nothing left in postgresql.auto.conf, logging off again.
replay_restored() {
    [ "$(sql "SELECT count(*) FROM pg_settings WHERE sourcefile LIKE '%auto.conf'" "$rconn")" = 0 ] ||
        fail "settings left in postgresql.auto.conf"
    [ "$(sql "SHOW log_statement" "$rconn")" = none ] || fail "log_statement not restored"
}

wait_capture_started() {
    for _ in $(seq 1 100); do
        grep -q "logging for" "$T/err" && return 0
        sleep 0.1
    done
    cat "$T/err"
    fail "replay capture did not start logging"
}

test_replay_capture() {
    replay_server
    "$PGBENCH" -i -q -s 1 "$rconn" >/dev/null 2>&1
    pga_bg replay capture "$rconn" --seconds 3 -o "$T/c.cap"
    wait_capture_started
    "$PGBENCH" -n -M prepared -T 1 -c 2 "$rconn" >"$T/pgbench.out" 2>&1
    tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$T/pgbench.out")
    pga_wait
    assert_rc 0
    replay_restored
    cp "$T/out" "$T/prepared.out"
    pga replay show --events "$T/c.cap"
    named=$(grep -c '"protocol":"extended-named"' "$T/out")
    [ "$named" -eq $((7 * tx)) ] || fail "$named named statements, pgbench sent $((7 * tx))"
    sysid=$(sql "SELECT system_identifier FROM pg_control_system()" "$rconn")
    pga replay show "$T/c.cap"
    assert_out "system_identifier $sysid, 127.0.0.1 port $(sql "SHOW port" "$rconn")"
    # Ctrl-C ends the capture early and restores the settings all the same.
    pga_bg replay capture "$rconn" --seconds 60 -o "$T/int.cap"
    wait_capture_started
    kill -INT $PID
    pga_wait
    assert_rc 0
    [ -f "$T/int.cap" ] || fail "no capture after Ctrl-C"
    replay_restored
    # Without superuser, the settings to make by hand and exit 2.
    sql "CREATE ROLE replay_plain LOGIN" "$rconn"
    pga replay capture "${rconn% user=*} user=replay_plain dbname=postgres" --seconds 1 -o "$T/x.cap"
    assert_rc 2
    assert_out "log_statement = 'all'"
    assert_err "^pgarena: replay capture: needs a superuser connection"
    # The harness's server runs without logging_collector.
    pga replay capture "$CONN" --seconds 1 -o "$T/x.cap"
    assert_rc 2
    assert_err "without logging_collector"
    [ ! -f "$T/x.cap" ] || fail "a capture written after a refusal"
}

# pgbench -M $1 -t $2 -c 2; prints the transactions done.
replay_pgbench() {
    "$PGBENCH" -n -M "$1" -t "$2" -c 2 "$rconn" >"$T/pgbench.out" 2>&1
    sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$T/pgbench.out"
}

# Rotate the server's log to a file of another name (log_filename has the second in it) and
# wait until the csvlog is written there.
replay_rotate() {
    local before
    before=$(sql "SELECT pg_current_logfile('csvlog')" "$rconn")
    sleep 1.1
    sql "SELECT pg_rotate_logfile()" "$rconn" >/dev/null
    for _ in $(seq 1 100); do
        [ "$(sql "SELECT pg_current_logfile('csvlog')" "$rconn")" != "$before" ] && return 0
        sleep 0.1
    done
    fail "the log did not rotate from $before"
}

# The server rotates during the capture all the same (log_rotation_size given on its command
# line outranks ALTER SYSTEM; pg_rotate_logfile between the phases): the capture holds every
# statement sent, each with its duration (log_duration), and says nothing is missing.
test_replay_capture_across_rotations() {
    replay_server conf=log_filename=pg-%H%M%S conf=log_rotation_size=100kB
    "$PGBENCH" -i -q -s 1 "$rconn" >/dev/null 2>&1
    pga_bg replay capture "$rconn" --seconds 300 -o "$T/rot.cap"
    wait_capture_started
    local tx_p tx_e tx_s
    tx_p=$(replay_pgbench prepared 150)
    replay_rotate
    tx_e=$(replay_pgbench extended 100)
    replay_rotate
    tx_s=$(replay_pgbench simple 100)
    sleep 1 # the collector writes behind
    kill -INT $PID
    pga_wait
    assert_rc 0
    ! grep -q "not whole" "$T/err" || fail "a whole capture said it was not: $(cat "$T/err")"
    replay_restored
    [ "$(ls "$srv"/log/pg-*.csv | wc -l)" -ge 3 ] || fail "the log did not rotate: $(ls "$srv/log")"
    pga replay show --events "$T/rot.cap"
    assert_rc 0
    python3 - "$T/out" "$tx_p" "$tx_e" "$tx_s" <<'PY' || fail "the capture does not hold what was sent"
import collections, json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
tx = [int(x) for x in sys.argv[2:5]]
assert tx == [300, 200, 200], tx
# The test's own psql (replay_rotate) aside,
st = [e for e in ev if e["event"] == "statement" and "_logfile(" not in e["text"]]
by = collections.Counter(e["protocol"] for e in st)
# 7 statements a transaction; pgbench's 2 set-up statements a run are simple.
want = {"extended-named": 7 * tx[0], "extended-unnamed": 7 * tx[1], "simple": 7 * tx[2] + 3 * 2}
assert dict(by) == want, (dict(by), want)
# log_duration: every statement has its duration, none of parse or bind taken for one.
assert all(e["duration_us"] >= 0 for e in st), [e for e in st if e["duration_us"] < 0][:3]
assert all(e["outcome"] == "ok" for e in st)
PY
    # prepare reads the rotated files in the order of their first entries, whatever the order
    # given; the same log twice, by two names or as two formats, is refused.
    ls "$srv"/log/pg-*.csv >"$T/files"
    pga replay prepare $(cat "$T/files") -o "$T/in-order.cap"
    assert_rc 0
    pga replay prepare $(sort -r "$T/files") -o "$T/reversed.cap"
    assert_rc 0
    pga replay show --events "$T/in-order.cap"
    mv "$T/out" "$T/in-order.events"
    pga replay show --events "$T/reversed.cap"
    cmp -s "$T/out" "$T/in-order.events" || fail "the logs given in reverse give another capture"
    first=$(head -1 "$T/files")
    cp "$first" "$T/copy.csv"
    pga replay prepare "$first" "$T/copy.csv" -o "$T/twice.cap"
    assert_rc 2
    assert_one_error_line
    assert_err "^pgarena: replay prepare: .* overlaps .*give each log once"
    grep -qF "$T/copy.csv" "$T/err" && grep -qF "$first" "$T/err" || fail "both logs not named"
    [ ! -f "$T/twice.cap" ] || fail "a capture written after a refusal"
    pga replay prepare "$first" "${first%.csv}.json" -o "$T/twice.cap"
    assert_rc 2
    assert_err "overlaps"
}

# A log file removed during the capture: the capture says in one line that it is not whole
# and how much is missing, keeps what it could read, and replay show says so too.
test_replay_capture_missing_file() {
    replay_server conf=log_filename=pg-%H%M%S
    "$PGBENCH" -i -q -s 1 "$rconn" >/dev/null 2>&1
    pga_bg replay capture "$rconn" --seconds 300 -o "$T/miss.cap"
    wait_capture_started
    local start tx
    start=$(sql "SELECT pg_current_logfile('csvlog')" "$rconn")
    replay_pgbench simple 10 >/dev/null
    replay_rotate
    rm -f "$start"
    tx=$(replay_pgbench simple 10)
    sleep 1
    kill -INT $PID
    pga_wait
    assert_rc 0
    assert_err "^replay capture: the capture is not whole: 1 log file\(s\) gone or cut short during it, at least [0-9]+ bytes of log missing"
    [ "$(grep -c "not whole" "$T/err")" = 1 ] || fail "not one line"
    replay_restored
    pga replay show --events "$T/miss.cap"
    # The test's own psql (replay_rotate) aside.
    n=$(grep '"event":"statement"' "$T/out" | grep -vc '_logfile(')
    [ "$n" -eq $((7 * tx + 2)) ] || fail "$n statements, the second run sent $((7 * tx + 2))"
    pga replay show "$T/miss.cap"
    assert_out "^missing +1 log file\(s\) gone or cut short during the capture, at least [0-9]+ bytes"
}

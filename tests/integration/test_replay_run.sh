# replay run: captures (written with tests/tools/mkcapture, or prepared from a real log when
# `replay prepare` is in the binary) replayed on copies made with --reset-from, checked on the
# target itself: every statement class ran there as often as in the capture.

MKCAPTURE=$PGARENA_TEST_TOP/build/tests/mkcapture

replay_tool() {
    [ -x "$MKCAPTURE" ] || make -s -C "$PGARENA_TEST_TOP" build/tests/mkcapture >/dev/null ||
        fail "cannot build tests/tools/mkcapture"
}

# A source database: a table of 100 rows.
replay_source() {
    local db
    db=$(newdb "$1")
    sql "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'x' FROM generate_series(1, 100) g; CREATE TABLE log (n int)" "$db"
    echo "$db"
}

# The capture most tests use: two sessions; simple, unnamed and named statements; a
# transaction block that writes; IN lists of several lengths; a statement that failed in the
# capture (and fails again) and a COPY FROM STDIN (skipped).
replay_capture() {
    local q=$'\t'
    {
        printf 'H\tskipped_secret\t1\n'
        printf 'S\t0\t0\tpostgres\t%s\n' "$1"
        printf 'Q\t0\t1000\tsimple\t\t100\tok\t\t-1\t0\tSELECT v FROM t WHERE id = 5\n'
        printf 'Q\t0\t2000\tsimple\t\t100\tok\t\t-1\t0\tBEGIN\n'
        printf 'Q\t0\t3000\tsimple\t\t100\tok\t\t-1\t0\tUPDATE t SET v = '"'"'y'"'"' WHERE id = 7\n'
        printf 'Q\t0\t3500\tsimple\t\t100\tok\t\t-1\t0\tINSERT INTO log VALUES (1)\n'
        printf 'Q\t0\t4000\tsimple\t\t100\tok\t\t-1\t0\tCOMMIT\n'
        printf 'Q\t0\t5000\tunnamed\t\t100\tok\t\t-1\t1\t42\tSELECT v FROM t WHERE id = $1\n'
        printf 'Q\t0\t6000\tnamed\ts1\t100\tok\t\t-1\t1\t3\tSELECT v FROM t WHERE id = $1\n'
        printf 'Q\t0\t7000\tnamed\ts1\t100\tok\t\t-1\t1\t4\tSELECT v FROM t WHERE id = $1\n'
        printf 'Q\t0\t8000\tsimple\t\t100\terror\t42P01\t-1\t0\tSELECT * FROM missing_table\n'
        printf 'Q\t0\t8500\tsimple\t\t100\tok\t\t-1\t0\tCOPY log FROM STDIN\n'
        printf 'Q\t0\t9000\tsimple\t\t100\tok\t\t-1\t0\tSELECT v\\n  FROM t WHERE id IN (1, 2, 3)\n'
        printf 'E\t0\t10000\n'
        printf 'S\t1\t2000\tpostgres\t%s\n' "$1"
        printf 'Q\t1\t2500\tsimple\t\t100\tok\t\t-1\t0\tSELECT id FROM t WHERE id IN (4)\n'
        printf 'Q\t1\t3000\tsimple\t\t100\tok\t\t-1\t0\tSELECT count(*) FROM t WHERE v = '"'"'x'"'"'\n'
        printf 'E\t1\t4000\n'
    } | "$MKCAPTURE" "$2" || fail "mkcapture failed"
}

# log_written LOG: once the server's other sessions have gone (their disconnections logged),
# a marker statement, and a wait (at most 60 s) until the collector has written it to LOG:
# all that came before is then in the file, however far behind a busy machine keeps it.
log_written() {
    for _ in $(seq 1 600); do
        [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()" "$OCONN")" = 0 ] && break
        sleep 0.1
    done
    sql "SELECT 'pga-log-written-marker'" "$OCONN" >/dev/null
    for _ in $(seq 1 600); do
        grep -q 'pga-log-written-marker' "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "the marker never reached the server's log $1"
}

# A server of the test's own ($OCONN) logging every statement to a csvlog, with the settings
# given besides.
replay_logging_server() {
    mkdir -p "$T/srv"
    chmod 755 "$T"
    OCONN=$(sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$T/srv")
    LIB_CLEANUP='sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" stop "$T/srv"'
    for set in "$@" "logging_collector = on" "log_destination = 'csvlog'" "log_statement = 'all'" \
        "log_connections = on" "log_disconnections = on"; do
        sql "ALTER SYSTEM SET $set" "$OCONN" >/dev/null
    done
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" halt "$T/srv"
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" resume "$T/srv"
}

# Every class of the result ran on the target as often as it succeeded in the replay
# (pg_stat_statements' texts brought to the class form: lists squashed, placeholders
# renumbered), and the statements that write took effect once per replay.
test_replay_run_classes_on_target() {
    replay_tool
    # pg_stat_statements for the classes; the log for the end-to-end part (replay_from_log).
    replay_logging_server "shared_preload_libraries = 'pg_stat_statements'"
    SRC="${OCONN% dbname=*} dbname=rsrc"
    sql "CREATE DATABASE rsrc" "$OCONN" >/dev/null
    sql "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'x' FROM generate_series(1, 100) g; CREATE TABLE log (n int)" "$SRC"
    sql "CREATE EXTENSION pg_stat_statements" "$OCONN" >/dev/null
    replay_capture rsrc cap.pgc
    for i in 1 2; do
        pga replay run cap.pgc "$OCONN" --map-db rsrc=rdst --reset-from rsrc -q -o r$i.json
        assert_rc 0
    done
    TCONN="${OCONN% dbname=*} dbname=rdst"
    sql "SELECT regexp_replace(query, '\\s+', ' ', 'g'), calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'rdst'" "$OCONN" >pgss.txt
    pyjson r2.json 'd["workload"]["name"] == "replay" and d["replay"]["sessions"] == 2'
    pyjson r2.json 'd["replay"]["statements"] == 13 and d["replay"]["sent"] == 12'
    pyjson r2.json 'd["replay"]["skipped"]["copy"] == 1 and d["replay"]["skipped"]["secret"] == 1'
    pyjson r2.json 'd["replay"]["transactions"] == 10'
    pyjson r2.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["diverged"]["succeeded_now"] == 0'
    pyjson r2.json 'd["summary"]["transactions"] + d["summary"]["failed"] == 12 and d["summary"]["failed"] == 1'
    pyjson r2.json 'd["options"]["clients"] == 2'
    python3 - r2.json pgss.txt <<'PY' || fail "classes differ from the target's pg_stat_statements"
import json, re, sys
d = json.load(open(sys.argv[1]))
want = {c["class"]: c["count"] - c["failed"] for c in d["summary"]["classes"] if c["count"] > c["failed"]}
got = {}
for line in open(sys.argv[2]):
    q, calls = line.rstrip("\n").rsplit("|", 1)
    q = re.sub(r"(?i)\b(IN) \((\$\d+(, )?)+\)", r"\1 ($0 /*, ... */)", " ".join(q.split()))
    n = iter(range(1, 1000))
    q = re.sub(r"\$\d+", lambda m: "$%d" % next(n), q)
    got[q] = got.get(q, 0) + int(calls)
# rdst is made anew for each replay (another database, other statistics): these are the last
# replay's.
missing = {k: v for k, v in want.items() if got.get(k) != v}
if missing or sum(want.values()) != sum(got.values()):
    print("want (per replay):", want, "\ntarget:", got, file=sys.stderr)
    sys.exit(1)
PY
    # Reset before each replay: the insert is there once, not twice.
    [ "$(sql 'SELECT count(*) FROM log' "$TCONN")" = 1 ] || fail "rdst was not reset from rsrc"
    [ "$(sql "SELECT v FROM t WHERE id = 7" "$TCONN")" = y ] || fail "the update did not run"
    pga show r2.json
    assert_rc 0
    assert_out '^statements: +11$'
    assert_out '^fidelity: +every outcome as in the capture'
    assert_out 'SELECT v FROM t WHERE id IN \(\$1 /\*, \.\.\. \*/\)'
    replay_from_log
}

# --read-only: the server refuses the writes, counted as skipped.read_only (and the rest of
# their block with them), not as divergences; the target is unchanged.
test_replay_run_read_only() {
    replay_tool
    replay_source pga_rsrc_ro >/dev/null
    replay_capture pga_rsrc_ro cap.pgc
    pga replay run cap.pgc "$CONN" --read-only -q -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["skipped"]["read_only"] == 2'
    pyjson r.json 'd["replay"]["diverged"]["failed_now"] == 0'
    [ "$(sql 'SELECT count(*) FROM log' "${CONN% dbname=*} dbname=pga_rsrc_ro")" = 0 ] ||
        fail "a write went through --read-only"
}

# The capture's own server (same system_identifier, address and port) is refused before
# anything runs; --force replays there; a session that cannot connect is counted, not fatal.
test_replay_run_own_server_and_failed_sessions() {
    replay_tool
    replay_source pga_rsrc_own >/dev/null
    sysid=$(sql "SELECT system_identifier FROM pg_control_system()")
    port=$(sql "SHOW port")
    addr=$(sql "SELECT coalesce(host(inet_server_addr()), current_setting('unix_socket_directories'))")
    {
        printf 'H\tsystem_identifier\t%s\nH\taddress\t%s\nH\tport\t%s\n' "$sysid" "${addr%%,*}" "$port"
        printf 'S\t0\t0\tpostgres\tpga_rsrc_own\n'
        printf 'Q\t0\t100\tsimple\t\t10\tok\t\t-1\t0\tSELECT 1\n'
        printf 'E\t0\t200\n'
        printf 'S\t1\t300\tpostgres\tpga_no_such_db\n'
        printf 'Q\t1\t400\tsimple\t\t10\tok\t\t-1\t0\tSELECT 2\n'
        printf 'E\t1\t500\n'
    } | "$MKCAPTURE" own.pgc
    pga replay run own.pgc "$CONN" -q -o r.json
    assert_rc 2
    assert_one_error_line
    assert_err "capture's own server.*--force"
    [ ! -e r.json ] || fail "a refused replay wrote a result"
    pga replay run own.pgc "$CONN" --force -q -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["sessions_failed"] == 1 and d["replay"]["sent"] == 1'
    assert_out '^DIVERGED:'
}

# `run -w replay --capture FILE` is the plan `replay run FILE` makes (replay run is a front of
# it): the same capture replayed both ways gives the same figures and the same result keys.
# The misuse is refused before anything runs: --capture (or replay's options) without
# -w replay, -w replay without --capture.
test_replay_run_is_run_w_replay() {
    replay_tool
    replay_source pga_rsrc_same >/dev/null
    replay_capture pga_rsrc_same cap.pgc
    pga replay run cap.pgc "$CONN" --speed max -j 2 --no-sampling -q -o front.json
    assert_rc 0
    pga run -w replay --capture cap.pgc "$CONN" --speed max -j 2 --no-sampling -q -o run.json
    assert_rc 0
    python3 - front.json run.json <<'PY' || fail "replay run and run -w replay differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def keys(v, path=""):
    if isinstance(v, dict):
        out = set()
        for k, x in v.items():
            out |= {path + "/" + k} | keys(x, path + "/" + k)
        return out
    if isinstance(v, list):
        return set().union(*(keys(x, path + "[]") for x in v)) if v else set()
    return set()
if keys(a) != keys(b):
    sys.exit("keys differ: %s" % sorted(keys(a) ^ keys(b)))
ra, rb = a["replay"], b["replay"]
for k in ("sessions", "statements", "sent", "transactions", "skipped", "diverged"):
    if ra[k] != rb[k]:
        sys.exit("replay.%s: %r vs %r" % (k, ra[k], rb[k]))
for k in ("transactions", "failed"):
    if a["summary"][k] != b["summary"][k]:
        sys.exit("summary.%s: %r vs %r" % (k, a["summary"][k], b["summary"][k]))
if a["workload"]["name"] != "replay" or b["workload"]["name"] != "replay":
    sys.exit("workload.name")
PY
    pyjson run.json 'd["replay"]["sessions"] == 2 and d["replay"]["statements"] == 13'
    pyjson run.json 'd["replay"]["transactions"] == 10 and d["replay"]["sent"] == 12'
    pga run --capture cap.pgc "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err '^pgarena: run: --capture, --speed, .* are for -w replay$'
    pga run -w tpcc --map-db a=b "$CONN"
    assert_rc 2
    assert_err 'are for -w replay'
    pga run -w replay --speed 2 "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err '^pgarena: run: -w replay needs --capture'
    pga run -w replay --capture cap.pgc -c 3 "$CONN"
    assert_rc 2
    assert_err 'takes its clients, pace and length from its input'
    pga run -w replay --capture cap.pgc --warehouses 2 "$CONN"
    assert_rc 2
    assert_err 'are for -w tpcc'
    [ ! -e pgarena-replay.json ] || fail "a refused run wrote a result"
}

# Speed: a paced capture (one session, a statement every 100 ms over 0.8 s). That a replay
# lasts its schedule divided by the speed (0.8 s, 0.4 s, no wait at max) is checked in virtual
# time (tests/unit/test_engine_timing.c, test_engine_feed.c); here what a stall of the machine
# cannot move: every statement runs at every speed, and no statement goes before its time (a
# run lasts at least its schedule over the speed: a stall only makes it longer); lag is a
# figure of its own, one per statement.
test_replay_run_speed() {
    replay_tool
    replay_source pga_rsrc_speed >/dev/null
    {
        printf 'S\t0\t0\tpostgres\tpga_rsrc_speed\n'
        for k in 1 2 3 4 5 6 7 8; do
            printf 'Q\t0\t%d00000\tsimple\t\t50\tok\t\t-1\t0\tSELECT v FROM t WHERE id = %d\n' "$k" "$k"
        done
        printf 'E\t0\t850000\n'
    } | "$MKCAPTURE" paced.pgc
    for s in 1 2 max; do
        pga replay run paced.pgc "$CONN" --speed $s -q -o s$s.json
        assert_rc 0
    done
    pyjson s1.json '0.75 <= d["summary"]["duration_s"] and d["replay"]["speed"] == 1'
    pyjson s2.json '0.35 <= d["summary"]["duration_s"] and d["replay"]["speed"] == 2'
    pyjson smax.json 'd["replay"]["speed"] == "max"'
    for s in 1 2 max; do
        pyjson s$s.json 'd["summary"]["transactions"] == 8 and d["summary"]["failed"] == 0'
        pyjson s$s.json 'd["replay"]["lag_us"]["histogram"]["count"] == 8'
    done
    # A session that falls behind: statements of 50 ms due every 10 ms. The lag grows to
    # 7 x 40 ms at least (the server's sleeps: a stall only adds); the client's own part of it
    # (from the previous statement's end to the send) is never more than the whole. That it
    # is none of it without a stall is checked in virtual time (test_engine_timing.c).
    {
        printf 'S\t0\t0\tpostgres\tpga_rsrc_speed\n'
        for k in 1 2 3 4 5 6 7 8; do
            printf 'Q\t0\t%d0000\tsimple\t\t50000\tok\t\t-1\t0\tSELECT pg_sleep(0.05)\n' "$k"
        done
        printf 'E\t0\t900000\n'
    } | "$MKCAPTURE" behind.pgc
    pga replay run behind.pgc "$CONN" -q -o behind.json
    assert_rc 0
    pyjson behind.json 'd["replay"]["lag_us"]["max"] >= 200000'
    pyjson behind.json 'all(d["replay"]["client_lag_us"][k] <= d["replay"]["lag_us"][k] for k in ("p50", "p99", "max"))'
    pyjson behind.json 'd["replay"]["client_lag_us"]["histogram"]["count"] == d["replay"]["lag_us"]["histogram"]["count"] == 8'
}

# compare sees the classes on both sides; report has the table of top classes.
test_replay_run_compare_and_report() {
    replay_tool
    replay_source pga_rsrc_cmp >/dev/null
    replay_capture pga_rsrc_cmp cap.pgc
    local store
    store=$(newdb pga_rstore)
    for side in a b; do
        pga replay run cap.pgc "$CONN" --speed max --label $side -q -o $side.json \
            --store "$store" --meta side=$side
        assert_rc 0
    done
    # --store: both replays in the store, as replays (statements), with their metadata
    [ "$(sql "SELECT count(*) FROM pgarena_results.runs WHERE workload = 'replay'" "$store")" -eq 2 ] ||
        fail "the two replays are not in the store"
    pyjson b.json 'd["meta"] == {"side": "b"}'
    pga compare a.json b.json
    assert_rc 0
    assert_out 'SELECT v FROM t WHERE id = \$1'
    assert_out 'without CI'
    pga report a.json b.json -o rep.html
    assert_rc 0
    grep -q 'Statement classes' rep.html || fail "the report has no table of classes"
    # the fidelity table: a column per replay, the statements each sent (as their results say)
    python3 - rep.html a.json b.json <<'PY' || fail "the report's replay fidelity table is wrong"
import json, re, sys
html = open(sys.argv[1]).read()
sec = html[html.index('Replay fidelity'):html.index('Statement classes')]
row = re.search(r'statements sent</th>((?:<td>[^<]*</td>)+)</tr>', sec).group(1)
cells = re.findall(r'<td>([^<]*)</td>', row)
sent = [json.load(open(f))["replay"]["sent"] for f in sys.argv[2:]]
assert [int(c.replace(",", "")) for c in cells] == sent, (cells, sent)
assert "client delay p50 / p99 / max" in sec and "schedule lag p50 / p99 / max" in sec
PY
}

# Bad input: before anything connects, one line, exit 2.
test_replay_run_bad_input() {
    replay_tool
    pga replay run nosuch.pgc "$CONN"
    assert_rc 2
    assert_one_error_line
    printf 'not a capture\n' >bad.pgc
    pga replay run bad.pgc "$CONN"
    assert_rc 2
    assert_one_error_line
    pga replay run
    assert_rc 2
    assert_one_error_line
    pga replay run x.pgc --speed 0 "$CONN"
    assert_rc 2
    assert_err 'invalid value for --speed'
    pga replay run x.pgc --map-db nothing "$CONN"
    assert_rc 2
    assert_err 'expected FROM=TO'
    pga run -w replay "$CONN"
    assert_rc 2
    assert_err 'needs --capture .*replay run CAPTURE'
}

# End to end, on the server of test_replay_run_classes_on_target (which logs to csvlog): real
# pgbench traffic in each protocol and a psql script with an error and a multi-line statement,
# prepared from the log and replayed on a copy (needs `replay prepare`, which comes with the
# log readers: skipped, saying so, without them).
replay_from_log() {
    pga replay prepare --help
    if [ "$RC" -ne 0 ]; then
        echo "SKIPPED replay_from_log (log -> prepare -> run): this pgarena has no 'replay prepare'" >&2
        return 0
    fi
    # Loaded in another database (its statements are in the log too, but not lsrc's).
    sql "CREATE DATABASE linit" "$OCONN" >/dev/null
    pga init -s 1 -q "${OCONN% dbname=*} dbname=linit"
    assert_rc 0
    SRC="${OCONN% dbname=*} dbname=lsrc"
    sql "CREATE DATABASE lsrc TEMPLATE linit" "$OCONN" >/dev/null
    sql "CREATE DATABASE lsnap TEMPLATE linit" "$OCONN" >/dev/null
    for m in simple extended prepared; do
        "$PGBENCH" -n -S -M $m -c 2 -t 50 "$SRC" >/dev/null 2>&1 || fail "pgbench -M $m"
    done
    printf 'SELECT 1;\nSELECT nosuch FROM pgbench_branches;\nSELECT bid\n  FROM pgbench_branches\n WHERE bid = 1;\n' |
        "$PSQL" -X -q "$SRC" >/dev/null 2>&1 || true
    log=$(sql "SELECT pg_current_logfile('csvlog')" "$OCONN")
    case "$log" in /*) ;; *) log="$T/srv/data/$log" ;; esac
    log_written "$log"
    pga replay prepare "$log" -o cap.pgc --database lsrc
    assert_rc 0
    pga replay run cap.pgc "$OCONN" --map-db lsrc=ldst --reset-from lsnap --speed max -q -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["diverged"]["succeeded_now"] == 0'
    pyjson r.json 'd["replay"]["sessions_failed"] == 0'
    pyjson r.json 'sum(c["count"] for c in d["summary"]["classes"] if c["class"].startswith("SELECT abalance")) == 300'
}

# -j: the sessions' statements are spread over the threads. Sessions 0 and 1 run all along
# (40 statements each), 2 and 3 end early (2 each): in session order they would be clients
# 0 and 1 on the first thread and 2 and 3 on the second. The engine gives each thread a
# contiguous block of clients, so the first half of clients[] is the first thread's: each
# half replays one busy session.
test_replay_run_spreads_busy_sessions() {
    replay_tool
    replay_source pga_rsrc_spread >/dev/null
    {
        for s in 0 1 2 3; do printf 'S\t%d\t0\tpostgres\tpga_rsrc_spread\n' "$s"; done
        for s in 0 1; do
            for k in $(seq 1 40); do
                printf 'Q\t%d\t%d000\tsimple\t\t50\tok\t\t-1\t0\tSELECT v FROM t WHERE id = %d\n' "$s" "$k" "$k"
            done
            printf 'E\t%d\t50000\n' "$s"
        done
        for s in 2 3; do
            printf 'Q\t%d\t1000\tsimple\t\t50\tok\t\t-1\t0\tSELECT 1\n' "$s"
            printf 'Q\t%d\t2000\tsimple\t\t50\tok\t\t-1\t0\tSELECT 2\n' "$s"
            printf 'E\t%d\t3000\n' "$s"
        done
    } | "$MKCAPTURE" spread.pgc || fail "mkcapture failed"
    pga replay run spread.pgc "$CONN" --speed max -j 2 -q -o spread.json
    assert_rc 0
    pyjson spread.json '[c["transactions"] for c in d["clients"]][:2] in ([40, 2], [2, 40]) and sorted(c["transactions"] for c in d["clients"][2:]) == [2, 40]'
}

# Replay fidelity on a server of its own (it logs every statement, gets a line in
# pg_hba.conf, and postgres is renamed away for a while): roles without their secrets, session parameters, CONN without a database.
test_replay_run_fidelity() {
    replay_tool
    replay_logging_server
    BASE=${OCONN% dbname=*}
    fidelity_roles
    fidelity_session_set
    fidelity_conn_without_database
    fidelity_failures_named
}

# mkcapture's lines of session ID of user postgres in database DB: it connects at 0, runs each
# TEXT (simple, succeeded in the capture) 100 µs apart, and disconnects.
cap_session() {
    local id=$1 db=$2 at=100
    shift 2
    printf 'S\t%s\t0\tpostgres\t%s\n' "$id" "$db"
    for q in "$@"; do
        printf 'Q\t%s\t%d\tsimple\t\t10\tok\t\t-1\t0\t%s\n' "$id" "$at" "$q"
        at=$((at + 100))
    done
    printf 'E\t%s\t%d\n' "$id" "$at"
}

# COPY in a statement of several (not skipped as a COPY: its first word is another): a COPY
# FROM STDIN, whose data no log holds, is given no rows and its session goes on; a COPY TO
# STDOUT replays (its rows read and dropped); a statement that fails now says why, never
# "unknown error".
fidelity_failures_named() {
    sql "CREATE DATABASE fcp" "$OCONN" >/dev/null
    sql "CREATE TABLE c (a int)" "$BASE dbname=fcp" >/dev/null
    {
        cap_session 0 fcp 'SELECT 1; COPY c FROM STDIN' 'INSERT INTO c VALUES (5)'
        cap_session 1 fcp 'SELECT 1; COPY (SELECT 1) TO STDOUT'
        cap_session 2 fcp 'SELECT 2' 'SELECT 1 / (SELECT count(*) FROM c WHERE a < 0)'
    } | "$MKCAPTURE" cp.pgc || fail "mkcapture failed"
    pga replay run cp.pgc "$OCONN" --speed max -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["sessions_failed"] == 0 and d["replay"]["sent"] == 5'
    pyjson r.json 'd["replay"]["copy_empty"] == 1'
    pyjson r.json 'd["summary"]["failed"] == 1 and d["replay"]["diverged"]["failed_now"] == 1'
    [ "$(sql "SELECT count(*) || ' ' || sum(a) FROM c" "$BASE dbname=fcp")" = "1 5" ] ||
        fail "the session did not go on after its COPY without data, or the COPY got rows"
    assert_out 'x failed now with 22012: division by zero'
    ! grep -q "unknown error" "$T/out" "$T/err" || fail "unknown error"
}

# A role made with a password, a session logging in as it (pg_hba.conf asks it for its SCRAM
# password), GRANTs, and a table with a column called password: the log prepared into a
# capture holds no password, the replay sets one of its own and the session logs in with it.
fidelity_roles() {
    pga replay prepare --help
    if [ "$RC" -ne 0 ]; then
        echo "SKIPPED fidelity_roles: this pgarena has no 'replay prepare'" >&2
        return 0
    fi
    hba=$T/srv/data/pg_hba.conf
    { echo "local all fid_app scram-sha-256"; cat "$hba"; } >"$hba.new" && mv "$hba.new" "$hba"
    sql "SELECT pg_reload_conf()" "$OCONN" >/dev/null
    sql "CREATE DATABASE fsnap" "$OCONN" >/dev/null
    sql "CREATE DATABASE fsrc TEMPLATE fsnap" "$OCONN" >/dev/null
    sql "CREATE TABLE users (id int, password text); CREATE ROLE fid_app LOGIN PASSWORD 'Fid-Sekr1t-9'; GRANT SELECT, INSERT ON users TO fid_app" "$BASE dbname=fsrc" >/dev/null
    sleep 1 # replayed at speed 1: the role is there before the session logs in as it
    PGPASSWORD=Fid-Sekr1t-9 sql "INSERT INTO users VALUES (1, 'not a secret'); SELECT password FROM users" "${BASE% user=*} user=fid_app dbname=fsrc" >/dev/null ||
        fail "fid_app cannot log in with its password"
    log=$(sql "SELECT pg_current_logfile('csvlog')" "$OCONN")
    case "$log" in /*) ;; *) log="$T/srv/data/$log" ;; esac
    log_written "$log"
    pga replay prepare "$log" -o fid.pgc --database fsrc
    assert_rc 0
    assert_out 'kept with the password cut out: 1'
    ! zcat fid.pgc | grep -aq Sekr1t || fail "the password is in the capture"
    # The target: fsnap's copy, without the role.
    sql "DROP OWNED BY fid_app; DROP ROLE fid_app" "$BASE dbname=fsrc" >/dev/null
    pga replay run fid.pgc "$OCONN" --map-db fsrc=fdst --reset-from fsnap -o r.json
    assert_rc 0
    ! grep -q Sekr1t r.json "$T/out" "$T/err" || fail "the password is in the result or output"
    pyjson r.json 'd["replay"]["secrets_replaced"] == 1 and d["replay"]["passwords"] == "generated"'
    pyjson r.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["sessions_failed"] == 0'
    pyjson r.json 'd["replay"]["skipped"]["secret"] == 0'
    assert_out 'statements set a password of the replay.s making'
    [ "$(sql "SELECT rolpassword LIKE 'SCRAM-SHA-256\$%' FROM pg_authid WHERE rolname = 'fid_app'" "$OCONN")" = t ] ||
        fail "the replay did not make fid_app with a password"
    # The session that logged in as fid_app (SCRAM) wrote its row; the column called password
    # was made as in the capture.
    [ "$(sql "SELECT count(*) FROM users WHERE password = 'not a secret'" "$BASE dbname=fdst")" = 1 ] ||
        fail "fid_app's session did not run on the target"
    PGPASSWORD=Fid-Sekr1t-9 sql "SELECT 1" "${BASE% user=*} user=fid_app dbname=fdst" >/dev/null 2>&1 &&
        fail "the captured password still logs in"
    # --map-user: fid_app's sessions as fid_app2, whom the replay gives no password (trust).
    sql "DROP OWNED BY fid_app; DROP ROLE fid_app; CREATE ROLE fid_app2 LOGIN" "$BASE dbname=fdst" >/dev/null
    pga replay run fid.pgc "$OCONN" --map-db fsrc=fdst --map-user fid_app=fid_app2 --reset-from fsnap -q -o r2.json
    assert_rc 0
    pyjson r2.json 'd["replay"]["secrets_replaced"] == 1 and d["replay"]["sessions_failed"] == 0'
    # fid_app2 has no grant: its statements (one text) fail, as they should, and say why.
    pyjson r2.json 'd["replay"]["diverged"]["failed_now"] == 1'
    pyjson r2.json 'any("permission denied" in t["reason"] for t in d["replay"]["diverged"]["top"])'
}

# A session whose statements depend on DateStyle (what a driver sets at startup, not in a
# log): they diverge without --session-set and match with it; replay show lists the SET
# statements the capture does hold.
fidelity_session_set() {
    sql "CREATE DATABASE fds" "$OCONN" >/dev/null
    cap_session 0 fds "SELECT '13/01/2026'::date" "SET TimeZone = 'UTC'" \
        "SELECT to_char('13/01/2026'::date, 'YYYY-MM-DD')" "SET TimeZone = 'UTC';" \
        "SET extra_float_digits = 3" | "$MKCAPTURE" ds.pgc || fail "mkcapture failed"
    pga replay show ds.pgc
    assert_rc 0
    assert_out "^ +2  SET TimeZone = 'UTC'$"
    assert_out "^ +1  SET extra_float_digits = 3$"
    pga replay run ds.pgc "$OCONN" --speed max -q -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["diverged"]["failed_now"] == 2'
    pga replay run ds.pgc "$OCONN" --speed max --session-set 'DateStyle=ISO, DMY' --session-set extra_float_digits=1 -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["sent"] == 5'
    pyjson r.json 'd["replay"]["session_set"] == ["DateStyle=ISO, DMY", "extra_float_digits=1"]'
    assert_out 'sessions set up: +--session-set DateStyle=ISO, DMY, --session-set extra_float_digits=1'
    # As run -w replay does it.
    pga run -w replay --capture ds.pgc --speed max --session-set 'DateStyle=ISO, DMY' -q -o r2.json "$OCONN"
    assert_rc 0
    pyjson r2.json 'd["replay"]["diverged"]["failed_now"] == 0'
    # And as a sweep's cells do.
    pga sweep "$OCONN" --replay ds.pgc --speed max,1 --session-set 'DateStyle=ISO, DMY' --no-sampling -q -o sw
    assert_rc 0
    for f in sw/default-speedmax-t1.json sw/default-speed1-t1.json; do
        pyjson "$f" 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["session_set"] == ["DateStyle=ISO, DMY"]'
    done
    pga replay run ds.pgc "$OCONN" --session-set =x
    assert_rc 2
    assert_err "invalid value for --session-set: '=x'"
    # A parameter the server does not know: each session fails, saying why.
    pga replay run ds.pgc "$OCONN" --speed max --session-set nosuchparam=1 -o r3.json
    pyjson r3.json 'd["replay"]["sessions_failed"] == 1'
    assert_out '1 x session failed: .*unrecognized configuration parameter'
    pyjson r3.json 'any("nosuchparam" in t["reason"] for t in d["replay"]["diverged"]["top"])'
}

# CONN without a database, as a user whose name is no database: pgarena's own connections
# use postgres; with postgres renamed away, the capture's first database as mapped. No
# "unknown error" either way.
fidelity_conn_without_database() {
    sql "CREATE ROLE fid_nodb LOGIN SUPERUSER" "$OCONN" >/dev/null
    sql "CREATE DATABASE fnd" "$OCONN" >/dev/null
    cap_session 0 fsrc_any 'SELECT current_database()' | "$MKCAPTURE" nd.pgc || fail "mkcapture failed"
    nodb="${BASE% user=*} user=fid_nodb"
    pga replay run nd.pgc "$nodb" --map-db fsrc_any=fnd --speed max -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["sessions_failed"] == 0 and d["replay"]["sent"] == 1'
    ! grep -q "unknown error" "$T/out" "$T/err" || fail "unknown error"
    sql "ALTER DATABASE postgres RENAME TO postgres_away" "$BASE dbname=template1" >/dev/null
    pga replay run nd.pgc "$nodb" --map-db fsrc_any=fnd --speed max -o r.json
    rc=$RC
    sql "ALTER DATABASE postgres_away RENAME TO postgres" "$BASE dbname=template1" >/dev/null
    [ "$rc" = 0 ] || { cat "$T/err"; fail "replay run without postgres: rc $rc"; }
    pyjson r.json 'd["replay"]["sessions_failed"] == 0 and d["replay"]["sent"] == 1'
    # A session whose database is missing fails, and the run's first failure says why.
    pga replay run nd.pgc "$nodb" --speed max -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["sessions_failed"] == 1'
    assert_out '1 x session failed: .*database "fsrc_any" does not exist'
    ! grep -q "unknown error" "$T/out" "$T/err" || fail "unknown error"
}

# --metrics-listen on replay run: the endpoint's statements and transactions at the end are
# the result file's (a replay's transaction is a statement).
test_replay_run_metrics_listen() {
    replay_tool
    replay_source pga_rsrc_metrics >/dev/null
    replay_capture pga_rsrc_metrics cap.pgc
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    pga_bg replay run cap.pgc "$CONN" --read-only --metrics-listen "$port" -q -o r.json
    # The run waits (at most 5 s) for a scrape that sees its end: scrape until one does.
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$port/metrics" -o m.txt 2>/dev/null &&
            grep -q 'phase="done"} 1' m.txt && break
        sleep 0.05
    done
    pga_wait
    assert_rc 0
    grep -q 'phase="done"} 1' m.txt || fail "no scrape saw the end"
    tx=$(python3 -c 'import json; print(json.load(open("r.json"))["summary"]["transactions"])')
    grep -qE "^pgarena_transactions_total\{[^}]*workload=\"replay\"\} $tx\$" m.txt ||
        { cat m.txt; fail "the endpoint's transactions are not the file's $tx"; }
    grep -qE '^pgarena_statements_total\{[^}]*\} [1-9]' m.txt || fail "no statements counted"
}

# replay record: Debian's pgbench 15 in each protocol and psql (an error, a password set, a
# cancelled statement) through the recording proxy, in front of a server of the test's own
# that asks for a SCRAM password over TCP. The capture holds what was sent (sessions,
# statements per protocol, outcomes; no password), and replay run of it onto a copy of the
# database sends every statement with the same outcomes. Counts and orders, never durations.

PGBENCH15=/usr/lib/postgresql/15/bin/pgbench
PSQL15=/usr/lib/postgresql/15/bin/psql

# A SCRAM server of the test's own: $rconn (direct), with database rec (pgbench's tables at
# scale 1) and snap (its copy, the replay's starting point).
record_server() {
    [ -x "$PGBENCH15" ] || PGBENCH15=$PGBENCH
    [ -x "$PSQL15" ] || PSQL15=$PSQL
    export PGA_TEST_PASSWORD=Rec-Scram-4711 PGPASSWORD=Rec-Scram-4711
    chmod 755 "$T"
    rconn=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$T/srv" scram)
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$T/srv'"
    sql "CREATE DATABASE rec" "$rconn" >/dev/null
    "$PGBENCH15" -i -q -s 1 "${rconn% dbname=*} dbname=rec" >/dev/null 2>&1 || fail "pgbench -i"
    sql "CREATE DATABASE snap TEMPLATE rec" "$rconn" >/dev/null
}

# Start the proxy in front of it on a free port: $PID, $pconn (through the proxy).
record_start() {
    PGA_ERR=$T/rec.err pga_bg replay record "$rconn" --listen 127.0.0.1:0 -o "$T/rec.cap" "$@"
    # A test that fails before it stops the proxy does not leave it running.
    LIB_CLEANUP="${LIB_CLEANUP:-}; kill $PID"
    local port=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's/^replay record: listening on 127.0.0.1:\([0-9]*\),.*/\1/p' "$T/rec.err" \
            2>/dev/null || true)
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$T/rec.err" >&2; fail "the proxy does not say where it listens"; }
    pconn="host=127.0.0.1 port=$port user=postgres dbname=rec"
}

# replay_same FROM [OPTION...]: the capture replayed onto dst, made from the database FROM:
# every statement sent, none unsupported, the capture's outcomes. Its result: $T/r.json.
replay_same() {
    local from=$1
    shift
    pga replay run "$T/rec.cap" "$rconn" --map-db rec=dst --reset-from "$from" --force -q -o "$T/r.json" "$@"
    assert_rc 0
    python3 - "$T/r.json" <<'PY' || fail "the replay differs from the capture"
import json, sys
d = json.load(open(sys.argv[1]))["replay"]
assert d["sent"] == d["statements"], (d["sent"], d["statements"])
assert not d.get("unsupported"), d
assert d["diverged"]["failed_now"] == 0 and d["diverged"]["succeeded_now"] == 0, d["diverged"]
PY
}

# record_with_tool NAME: tests/tools/NAME built (make unit builds it; a test run alone may
# not have), the server and the proxy started.
record_with_tool() {
    [ -x "$PGARENA_TEST_TOP/build/tests/$1" ] || make -s -C "$PGARENA_TEST_TOP" "build/tests/$1" >/dev/null ||
        fail "cannot build tests/tools/$1"
    record_server
    record_start --seconds 300
}

# record_tool_run NAME: record_with_tool NAME, then NAME run through the proxy, and the proxy
# stopped (its summary in $T/out).
record_tool_run() {
    record_with_tool "$1"
    "$PGARENA_TEST_TOP/build/tests/$1" "$pconn" >"$T/$1.out" 2>&1 ||
        { cat "$T/$1.out" >&2; fail "$1 through the proxy"; }
    kill -INT "$PID"
    pga_wait
    assert_rc 0
}

# wait_running QUERY: wait (at most 30 s) until the server runs QUERY.
wait_running() {
    for _ in $(seq 1 300); do
        [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE query = '$1' AND state = 'active'" "$rconn")" = 1 ] && return 0
        sleep 0.1
    done
}

test_replay_record_pgbench_and_psql() {
    record_server
    record_start --seconds 300
    for m in simple extended prepared; do
        "$PGBENCH15" -n -M $m -c 2 -t 20 "$pconn" >"$T/pgbench.out" 2>&1 ||
            { cat "$T/pgbench.out" >&2; fail "pgbench -M $m through the proxy"; }
        sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' \
            "$T/pgbench.out" >"$T/tx.$m"
    done
    "$PSQL15" -X -q "$pconn" >"$T/psql.out" 2>&1 <<'SQL' || true
SELECT 1/0;
SELECT count(*) FROM pgbench_history;
CREATE ROLE rec_app LOGIN PASSWORD 'Rec-Sekr1t-5';
DROP ROLE rec_app;
SQL
    # A statement cancelled by psql (Ctrl-C): its CancelRequest goes through the proxy.
    "$PSQL15" -X -q "$pconn" -c "SELECT pg_sleep(30)" >"$T/cancel.out" 2>&1 &
    local psql_pid=$!
    wait_running "SELECT pg_sleep(30)"
    kill -INT $psql_pid
    wait $psql_pid || true
    grep -q "canceling statement due to user request" "$T/cancel.out" ||
        { cat "$T/cancel.out" >&2; fail "psql's cancel did not reach the server"; }
    # What the proxy does not relay: a replication connection, TLS without --tls-cert.
    "$PSQL15" -X "$pconn replication=database" -c "IDENTIFY_SYSTEM" >"$T/repl.out" 2>&1 &&
        fail "a replication connection went through"
    grep -q "replication connections are not relayed" "$T/repl.out" ||
        { cat "$T/repl.out" >&2; fail "no error for the replication connection"; }
    "$PSQL15" -X "$pconn sslmode=require" -c "SELECT 1" >"$T/ssl.out" 2>&1 &&
        fail "sslmode=require went through"
    grep -q "does not support SSL" "$T/ssl.out" || { cat "$T/ssl.out" >&2; fail "no SSL refusal"; }
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    assert_out "^recorded .*rec.cap: 11 sessions"
    assert_out "outcomes: [0-9]+ ok, 2 failed; 1 cancel requests forwarded"
    ! zcat "$T/rec.cap" | grep -aq -e Rec-Sekr1t -e Rec-Scram || fail "a password in the capture"
    ! grep -q -e Rec-Sekr1t -e Rec-Scram "$T/out" "$T/rec.err" || fail "a password in the output"
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    mv "$T/out" "$T/events"
    history=$(sql "SELECT count(*) FROM pgbench_history" "${rconn% dbname=*} dbname=rec")
    python3 - "$T/events" "$(cat "$T/tx.simple")" "$(cat "$T/tx.extended")" \
        "$(cat "$T/tx.prepared")" "$history" <<'PY' || fail "the capture does not hold what was sent"
import collections, json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
tx = [int(x) for x in sys.argv[2:5]]
assert tx == [40, 40, 40], tx
st = [e for e in ev if e["event"] == "statement"]
by = collections.Counter(e["protocol"] for e in st)
# Each pgbench run: a first session with 2 set-up statements, then 7 statements a
# transaction; psql: 4 statements and the cancelled one.
want = {"simple": 3 * 2 + 7 * tx[0] + 5, "extended-unnamed": 7 * tx[1], "extended-named": 7 * tx[2]}
assert dict(by) == want, (dict(by), want)
starts = [e for e in ev if e["event"] == "start"]
ends = [e for e in ev if e["event"] == "end"]
assert len(starts) == 3 * 3 + 2 and len(ends) == len(starts), (len(starts), len(ends))
assert all(s["user"] == "postgres" and s["database"] == "rec" for s in starts)
# Every INSERT the server holds is in the capture, once.
inserts = [e for e in st if e["text"].startswith("INSERT INTO pgbench_history")]
assert len(inserts) == int(sys.argv[5]) == sum(tx), (len(inserts), sys.argv[5])
failed = sorted(e["sqlstate"] for e in st if e["outcome"] == "error")
assert failed == ["22012", "57014"], failed
cancelled = [e for e in st if e["cancel_us"] >= 0]
assert len(cancelled) == 1 and cancelled[0]["text"] == "SELECT pg_sleep(30)", cancelled
assert any("pgarena-replaced" in e["text"] for e in st), "the password not cut out"
assert all(e["duration_us"] >= 0 for e in st)
named = [e for e in st if e["protocol"] == "extended-named"]
assert all(e["name"].startswith("P_") for e in named)
assert sum(1 for e in named if e["params"]) == 5 * tx[2]
unnamed = [e for e in st if e["protocol"] == "extended-unnamed"]
assert all(e["name"] == "" for e in unnamed) and sum(1 for e in unnamed if e["params"]) == 5 * tx[1]
# Each session's events in order: its start first, its end last; offsets never go back.
offsets = [e["offset_us"] for e in ev]
assert offsets == sorted(offsets)
seen, ended = set(), set()
for e in ev:
    if e["event"] == "start":
        seen.add(e["session"])
    else:
        assert e["session"] in seen and e["session"] not in ended, e
        if e["event"] == "end":
            ended.add(e["session"])
PY
    # Replayed onto a copy of the database as it was: every statement sent, same outcomes.
    pga replay run "$T/rec.cap" "$rconn" --map-db rec=dst --reset-from snap --force -q -o "$T/r.json"
    assert_rc 0
    python3 - "$T/r.json" "$T/events" <<'PY' || fail "the replay differs from the capture"
import json, sys
d = json.load(open(sys.argv[1]))["replay"]
ev = [json.loads(l) for l in open(sys.argv[2])]
n = sum(1 for e in ev if e["event"] == "statement")
assert d["statements"] == n and d["sent"] == n, (d["statements"], d["sent"], n)
assert d["diverged"]["failed_now"] == 0 and d["diverged"]["succeeded_now"] == 0, d["diverged"]
assert d["sessions_failed"] == 0, d["sessions_failed"]
# Named statements prepared once per session and name, as pgbench -M prepared did.
named = {(e["session"], e["name"]) for e in ev if e.get("protocol") == "extended-named"}
assert d["prepared"] == len(named) == 2 * 7, (d["prepared"], len(named))
PY
    [ "$(sql "SELECT count(*) FROM pgbench_history" "${rconn% dbname=*} dbname=dst")" = "$history" ] ||
        fail "the replay did not insert what the capture did"
}

# Capture version 2 (issue 50): the startup parameters a client sent (DateStyle, an
# application_name, options' search_path), the rows of every COPY FROM STDIN (psql's COPY and
# \copy of a 2000-row file: many CopyData messages), the OID lo_from_bytea returned and
# \lo_import's FunctionCalls (libpq's lo_creat, lo_open, lowrite, lo_close) are recorded; the
# replay sends them as sent (the calls as the statements that do the same), with its own
# server's OID where later statements carry the capture's: the target's table holds the same
# rows (checksum), a date only DMY reads, a statement only the startup's search_path resolves
# and the large objects' contents read by their OIDs all succeed there as in the capture.
test_replay_record_copy_rows_and_startup() {
    record_server
    record_start --seconds 300
    python3 - "$T/rows.tsv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1, 2001):  # COPY's text format: a backslash written twice, \N for NULL
        f.write(f"{i}\t{i % 28 + 1}/02/2026\tline\\\\{i}\t\\N\n" if i % 7 else f"{i}\t\\N\t\t\\N\n")
PY
    PGDATESTYLE='ISO, DMY' PGAPPNAME=rec_loader PGOPTIONS='-c search_path=app,public' \
        "$PSQL15" -X -q -v ON_ERROR_STOP=1 "$pconn" >"$T/psql.out" 2>&1 <<SQL ||
CREATE SCHEMA app;
CREATE TABLE items (id int PRIMARY KEY, d date, note text, who text);
COPY items FROM STDIN;
9001	13/01/2026	tab\there	\N
9002	\N	back\\slash	x
\\.
\\copy items FROM '$T/rows.tsv'
INSERT INTO items VALUES (0, '31/12/2026', 'dmy', current_setting('application_name'));
SELECT lo_from_bytea(0, 'large object') AS loid \gset
SELECT lo_get(:loid);
INSERT INTO items VALUES (-1, NULL, convert_from(lo_get(:loid), 'UTF8'), 'lo');
\\lo_import '$T/rows.tsv'
INSERT INTO items VALUES (-2, NULL, md5(lo_get(:LASTOID)), 'lo_import');
SQL
        { cat "$T/psql.out" >&2; fail "psql through the proxy"; }
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    assert_out "COPY FROM STDIN kept with their rows: 2"
    local want
    want=$(sql "SELECT count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY id)) FROM app.items t" \
        "${rconn% dbname=*} dbname=rec")
    case $want in 2005\ *) ;; *) fail "the source holds $want rows" ;; esac
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "the capture does not hold the startup or the rows"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
start = [e for e in ev if e["event"] == "start"]
assert len(start) == 1, start
su = dict(start[0]["startup"])
assert su.get("DateStyle", su.get("datestyle")) == "ISO, DMY", su
assert su["application_name"] == "rec_loader" and su["options"] == "-c search_path=app,public", su
assert su["user"] == "postgres" and su["database"] == "rec", su
copies = [e for e in ev if e["event"] == "statement" and e.get("copy_bytes") is not None]
assert len(copies) == 2 and all(e["outcome"] == "ok" for e in copies), copies
assert copies[0]["copy_bytes"] > 0 and copies[1]["copy_bytes"] > 20000, copies
PY
    pga replay run "$T/rec.cap" "$rconn" --map-db rec=dst --reset-from snap --force -q -o "$T/r.json"
    assert_rc 0
    python3 - "$T/r.json" <<'PY' || fail "the replay differs from the capture"
import json, sys
d = json.load(open(sys.argv[1]))["replay"]
assert d["copy_recorded"] == 2 and d["skipped"]["copy"] == 0, d
assert d["sent"] == d["statements"], (d["sent"], d["statements"])
# The large objects' OIDs the replay's server gave: lo_from_bytea's in the two statements that
# carry it, \lo_import's (libpq's lo_creat, a FunctionCall) in its lo_open and the INSERT.
assert d["values_mapped"] == 4, d
assert not d.get("unsupported"), d
assert d["diverged"]["failed_now"] == 0 and d["diverged"]["succeeded_now"] == 0, d["diverged"]
PY
    local got
    got=$(sql "SELECT count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY id)) FROM app.items t" \
        "${rconn% dbname=*} dbname=dst")
    [ "$got" = "$want" ] || fail "the target's rows: $got, the source's: $want"
    [ "$(sql "SELECT who FROM app.items WHERE id = 0 AND d = '2026-12-31'" "${rconn% dbname=*} dbname=dst")" = rec_loader ] ||
        fail "the DMY row or its application_name differ on the target"
}

# An application that inserts rows and sends their generated ids again (pgbench with \gset in
# each protocol: a parent's id from INSERT ... RETURNING, then currval, in its child's INSERT and
# an UPDATE), its tables created during the capture, while a connection the proxy does not see
# takes 1,000 ids beside it: the replay's server gives ids 1,000 lower, and the replay sends
# its own in place of the capture's (as parameters, and in simple's text), so no child refers
# to a parent it does not have (without the mapping each INSERT of a child would fail on its
# foreign key).
test_replay_record_generated_ids() {
    record_server
    record_start --seconds 300
    "$PSQL15" -X -q -v ON_ERROR_STOP=1 "$pconn" >"$T/psql.out" 2>&1 <<'SQL' ||
CREATE TABLE parent (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, tag int NOT NULL);
CREATE TABLE child (id serial PRIMARY KEY, parent_id bigint NOT NULL REFERENCES parent,
                    tag int NOT NULL);
SQL
        { cat "$T/psql.out" >&2; fail "psql through the proxy"; }
    sql "SELECT count(nextval(pg_get_serial_sequence('parent', 'id'))) FROM generate_series(1, 1000)" \
        "${rconn% dbname=*} dbname=rec" >/dev/null
    cat >"$T/app.sql" <<'SQL'
\set tag random(1, 1000000000)
INSERT INTO parent (tag) VALUES (:tag) RETURNING id \gset
INSERT INTO child (parent_id, tag) VALUES (:id, :tag);
SELECT currval(pg_get_serial_sequence('parent', 'id')) AS cur \gset
UPDATE parent SET tag = tag + 1 WHERE id = :cur;
UPDATE child SET tag = tag + 1 WHERE parent_id = :cur;
SQL
    for m in simple extended prepared; do
        "$PGBENCH15" -n -M $m -c 3 -t 10 -f "$T/app.sql" "$pconn" >"$T/pgbench.out" 2>&1 ||
            { cat "$T/pgbench.out" >&2; fail "pgbench -M $m through the proxy"; }
    done
    # A pipeline: its second and third statements are sent before the first's answer.
    printf '\\startpipeline\nSELECT 1;\nSELECT 2;\nSELECT 3;\n\\endpipeline\n' >"$T/pipe.sql"
    "$PGBENCH15" -n -M extended -c 1 -t 5 -f "$T/pipe.sql" "$pconn" >"$T/pgbench.out" 2>&1 ||
        { cat "$T/pgbench.out" >&2; fail "pgbench's pipeline through the proxy"; }
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    assert_out "pipelined: 10 statements"
    assert_out "sharing a Sync: 10 statements"
    pga replay show "$T/rec.cap"
    assert_rc 0
    assert_out "pipelined: 10 statements"
    assert_out "sharing a Sync: 10 statements"
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "the capture does not hold the ids"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if '"statement"' in l]
ids = [e for e in ev if e.get("returned_id")]
# Each transaction's INSERT of a parent and its currval, in 3 protocols x 3 clients x 10.
assert len(ids) == 180, len(ids)
assert all(int(e["returned"]) > 1000 for e in ids), ids[:3]
assert not [e for e in ev if e.get("returned") and not e.get("returned_id")], "an OID"
PY
    replay_same snap
    # Every child's INSERT and both UPDATEs of each transaction carry the replay's id.
    pyjson "$T/r.json" 'd["replay"]["values_mapped"] == 270' || fail "values mapped"
    local dst="${rconn% dbname=*} dbname=dst" got
    got=$(sql "SELECT count(*) || ' ' || (SELECT count(*) FROM parent) || ' ' ||
               (SELECT max(id) FROM parent) || ' ' ||
               count(*) FILTER (WHERE p.tag = c.tag AND c.tag % 2 = 1 OR p.tag = c.tag)
               FROM child c JOIN parent p ON p.id = c.parent_id" "$dst")
    [ "$got" = "90 90 90 90" ] ||
        fail "the target's children, parents, highest id, children of their own parent: $got (want 90 90 90 90)"
}

# A libpq application's binary parameters (tests/tools/binclient.c: int8, float8 and bytea with
# NUL and 0xff bytes in binary beside a text one; a named statement prepared with types; a
# result asked in binary; an enum's parameter typed by its OID; ids RETURNING gave in binary,
# sent again as binary int8, and an INSERT's three rows' ids sent again as text, after 1,000
# ids taken beside the proxy) through the proxy: the
# capture keeps each value's bytes, formats and types, and the replay sends them so, its rows
# equal to the source's byte for byte (the enum's OID and the ids are the target's own there).
# A psql session after it: the capture stays readable.
test_replay_record_binary_parameters() {
    local bin=$PGARENA_TEST_TOP/build/tests/binclient
    record_with_tool binclient
    "$bin" "$pconn" "${rconn% dbname=*} dbname=rec" >"$T/bin.out" 2>&1 ||
        { cat "$T/bin.out" >&2; fail "binclient through the proxy"; }
    # A session that starts after the typed statements (its startup parameters a version 2
    # record) leaves the capture at version 3, which they need to be read.
    "$PSQL15" -X -q "$pconn" -c "SELECT count(*) FROM bin_t" >"$T/psql.out" 2>&1 ||
        { cat "$T/psql.out" >&2; fail "psql through the proxy"; }
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    pga replay show "$T/rec.cap"
    assert_rc 0
    assert_out "^capture .*\(pgarena-capture 3\)"
    assert_out "^sessions +2$"
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "the capture does not hold the binary parameters"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
st = [e for e in ev if e["event"] == "statement"]
ins = [e for e in st if e["text"].startswith("INSERT INTO bin_t")]
assert len(ins) == 20, len(ins)
assert all(e["param_formats"] == [1, 1, 0, 1] and e["param_types"] == [20, 17, 0, 701] for e in ins), ins[0]
# row 2: id 2 as int8, data 02 00 ff 0e, its note as text
assert ins[1]["params"][:3] == ["\\x0000000000000002", "\\x0200ff0e", "note 2"], ins[1]["params"]
upd = [e for e in st if e["name"] == "bin_upd"]
assert len(upd) == 10 and all(e["protocol"] == "extended-named" and e["param_formats"] == [1, 1] for e in upd), upd[:1]
assert [e["result_formats"] for e in st if e["text"].startswith("SELECT data")] == [[1]]
mood = [e for e in st if e["text"].startswith("INSERT INTO bin_moods")]
assert len(mood) == 1 and mood[0]["param_types"][1] >= 16384, mood
PY
    replay_same snap
    # Each child's id carries the replay's (1,000 lower than the capture's): five binary int8s,
    # three text values of one INSERT's three rows.
    pyjson "$T/r.json" 'd["replay"]["values_mapped"] == 8' || fail "values mapped"
    [ "$(sql "SELECT count(*) FROM bin_child c JOIN bin_parent p ON p.id = c.parent_id AND p.tag = c.tag
              WHERE p.id <= 8" "${rconn% dbname=*} dbname=dst")" = 8 ] ||
        fail "the target's children do not refer to their parents by the target's ids"
    local q="SELECT count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY id)) FROM bin_t t" want got
    want=$(sql "$q" "${rconn% dbname=*} dbname=rec")
    got=$(sql "$q" "${rconn% dbname=*} dbname=dst")
    case $want in 20\ *) ;; *) fail "the source holds $want rows" ;; esac
    [ "$got" = "$want" ] || fail "the target's rows: $got, the source's: $want"
    [ "$(sql "SELECT m FROM bin_moods" "${rconn% dbname=*} dbname=dst")" = happy ] ||
        fail "the enum's row is not on the target"
}

# Statements sharing a Sync (libpq's pipeline mode, as drivers' batches): the capture marks
# them, and the replay sends each group with one Sync, so that a group with a failure leaves
# no row of it behind and its statements after the failure are not run, as in the capture.
test_replay_record_sync_groups() {
    record_tool_run syncclient
    local direct=${rconn% dbname=*} ids="SELECT string_agg(id::text, ' ' ORDER BY id) FROM grp"
    [ "$(sql "$ids" "$direct dbname=rec")" = "1 2 3 30 31" ] || fail "the source's rows"
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "the capture does not mark the statements sharing a Sync"
import json, sys
st = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "statement"]
ins = [(e["params"][0], bool(e.get("same_sync"))) for e in st if e["text"].startswith("INSERT")]
# grp_b's third INSERT, which its server skipped, is not a statement of the capture.
want = [("1", False), ("2", True), ("3", True), ("10", False), ("1", True),
        ("20", False), ("2", True), ("30", False), ("31", True)]
assert ins == want, ins
PY
    replay_same snap
    # With a Sync each, grp_b's 10 and grp_c's 20 would stay.
    [ "$(sql "$ids" "$direct dbname=dst")" = "1 2 3 30 31" ] || fail "the target's rows: $(sql "$ids" "$direct dbname=dst")"
    # At speed max every statement is due at once: each one its client sent before the
    # previous one's results is sent so again (grp_c's first EXECUTE waits for its Parse).
    replay_same snap --speed max
    pyjson "$T/r.json" 'd["replay"]["pipelined"] == 5'
    [ "$(sql "$ids" "$direct dbname=dst")" = "1 2 3 30 31" ] || fail "the target's rows at speed max: $(sql "$ids" "$direct dbname=dst")"
    # A target where grp_a's second INSERT fails now: its first is rolled back and its third
    # not run (grp_b's INSERT of 1 then succeeds).
    sql "CREATE DATABASE snap2 TEMPLATE snap" "$direct dbname=postgres" >/dev/null
    sql "CREATE TABLE grp (id int PRIMARY KEY); INSERT INTO grp VALUES (2)" "$direct dbname=snap2" >/dev/null
    pga replay run "$T/rec.cap" "$rconn" --map-db rec=dst --reset-from snap2 --force -q -o "$T/r2.json"
    assert_rc 0
    python3 - "$T/r2.json" <<'PY' || fail "the replay's divergence is not the group's"
import json, sys
d = json.load(open(sys.argv[1]))["replay"]
v = d["diverged"]
# CREATE TABLE (the table is there), INSERT 2 (a duplicate), INSERT 3 (not run).
assert v["failed_now"] == 3 and v["succeeded_now"] == 1, v
reasons = json.dumps(d)
assert "not run: an earlier statement of its Sync group failed" in reasons, reasons
PY
    [ "$(sql "$ids" "$direct dbname=dst")" = "1 2 10 30 31" ] || fail "the diverged target's rows: $(sql "$ids" "$direct dbname=dst")"
}

# User types named by their OIDs (tests/tools/binclient.c types: an enum where pg_typeof could
# not infer it, a binary ut_mood[] and a binary composite holding a ut_mood and a ut_mood[]): the
# proxy names them in the capture (type_names), and the replay, onto a database whose types
# have other OIDs, sends the target's OID in Parse (else pg_typeof fails: 42P18) and inside the
# binary values (else PostgreSQL 13 refuses them: "wrong element type", "wrong data type"; 15
# takes the capture's OIDs there, so the server is a 13 when the harness has one): its rows say
# ut_mood and hold the array and the composite (the names asked as the session's user: CONN
# names none). ut_only, which the target lacks, is inferred
# (text, in an INSERT into a text column) and counted among the reasons. A proxy whose CONN names a user the server refuses records
# all the same and says once why the names cannot be learnt, without the password.
test_replay_record_user_types() {
    local bin=$PGARENA_TEST_TOP/build/tests/binclient direct q got major=
    [ -x "$bin" ] || make -s -C "$PGARENA_TEST_TOP" build/tests/binclient >/dev/null ||
        fail "cannot build tests/tools/binclient"
    sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" bindir 13 >/dev/null 2>&1 && major=13
    PGARENA_PG_MAJOR=$major record_server
    # CONN names no user: the names are asked as the session's user (postgres; libpq's default
    # would be the OS user's name).
    local own=$rconn
    rconn=${own/ user=postgres/}
    PGA_WRAP="env -u PGUSER" record_start --seconds 300
    rconn=$own
    direct=${rconn% dbname=*}
    local ddl="CREATE TYPE ut_mood AS ENUM ('sad', 'ok', 'happy');
        CREATE TYPE ut_pair AS (m ut_mood, ms ut_mood[]);
        CREATE TABLE ut_seen (t text); CREATE TABLE ut_arr (a ut_mood[]);
        CREATE TABLE ut_pairs (p ut_pair)"
    sql "CREATE TYPE ut_only AS ENUM ('x'); $ddl" "$direct dbname=rec" >/dev/null
    sql "CREATE DATABASE ut_snap" "$direct dbname=postgres" >/dev/null
    sql "CREATE TYPE ut_dummy AS ENUM ('d'); $ddl" "$direct dbname=ut_snap" >/dev/null
    q="SELECT string_agg(oid::text, ' ' ORDER BY typname) FROM pg_type
       WHERE typname IN ('ut_mood', '_ut_mood', 'ut_pair')"
    [ "$(sql "$q" "$direct dbname=rec")" != "$(sql "$q" "$direct dbname=ut_snap")" ] ||
        fail "the target's types have the capture's OIDs: $(sql "$q" "$direct dbname=rec")"
    "$bin" types "$pconn" >"$T/bin.out" 2>&1 || { cat "$T/bin.out" >&2; fail "binclient types through the proxy"; }
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "the capture does not name the user types"
import json, sys
st = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "statement"]
def names(prefix):
    got = [e for e in st if e["text"].startswith(prefix)]
    return [sorted((t["schema"], t["name"], t["kind"]) for t in e.get("type_names", [])) for e in got]
mood, only = ("public", "ut_mood", "o"), ("public", "ut_only", "o")
arr, pair = ("public", "_ut_mood", "a"), ("public", "ut_pair", "c")
assert names("INSERT INTO ut_seen") == [[mood], [only]], names("INSERT INTO ut_seen")
assert names("INSERT INTO ut_arr") == [[arr, mood]], names("INSERT INTO ut_arr")
assert names("INSERT INTO ut_pairs") == [[arr, mood, pair]], names("INSERT INTO ut_pairs")
ins = [e for e in st if e["text"].startswith("INSERT INTO ut_arr")][0]
a = [t for t in ins["type_names"] if t["kind"] == "a"][0]
m = [t for t in ins["type_names"] if t["kind"] == "o"][0]
assert a["inner"] == m["oid"] and ins["param_types"] == [a["oid"]], ins
PY
    pga replay run "$T/rec.cap" "$rconn" --map-db rec=dst --reset-from ut_snap --force -q -o "$T/r.json"
    assert_rc 0
    python3 - "$T/r.json" <<'PY' || fail "the replay did not send the target's types"
import json, sys
d = json.load(open(sys.argv[1]))["replay"]
assert d["sent"] == d["statements"] == 8, (d["sent"], d["statements"])
v = d["diverged"]
assert v["failed_now"] == 0 and v["succeeded_now"] == 0, v
why = "a parameter's type not on the target at the start, inferred: public.ut_only"
assert [t["count"] for t in v["top"] if t["reason"] == why] == [1], v["top"]
PY
    got=$(sql "SELECT (SELECT string_agg(t, ' ' ORDER BY t) FROM ut_seen) || ' ' ||
               (SELECT string_agg(a::text, ' ') FROM ut_arr) || ' ' ||
               (SELECT string_agg(p::text, ' ') FROM ut_pairs)" "$direct dbname=dst")
    [ "$got" = 'ut_mood x {happy,sad} (ok,"{happy,sad}")' ] ||
        fail "the target's rows: $got (want: ut_mood x {happy,sad} (ok,\"{happy,sad}\"))"
    # CONN's user refused: the capture is made, without names, and the proxy says so once.
    rconn="$own user=ut_nobody"
    record_start --seconds 300
    rconn=$own
    "$bin" types "$pconn" >"$T/bin.out" 2>&1 || { cat "$T/bin.out" >&2; fail "binclient types through the second proxy"; }
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    [ "$(grep -c 'the names of user types cannot be learnt' "$T/rec.err")" = 1 ] ||
        { cat "$T/rec.err" >&2; fail "the proxy does not say once why the names cannot be learnt"; }
    grep -q ut_nobody "$T/rec.err" || { cat "$T/rec.err" >&2; fail "the reason does not name the refused user"; }
    ! { cat "$T/rec.err"; zcat "$T/rec.cap"; } | grep -aq "$PGA_TEST_PASSWORD" ||
        fail "the password is in the proxy's output or its capture"
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    [ "$(grep -c '"event":"statement"' "$T/out")" = 8 ] || { cat "$T/out" >&2; fail "the second capture's statements"; }
    ! grep -q type_names "$T/out" || fail "the second capture names types it could not learn"
}

# psql -f of the regression suite's `select 0\; copy t from stdin\; copy t from stdin\; select 1`
# through the proxy: one Query whose two COPY FROM STDIN each take the rows psql gives them.
# The capture keeps where each one's rows end, and the replay gives each its own (all to the
# first, the server would stop at its `\.`, and the table would hold 2 rows): the target's
# table holds the source's 4 rows. The proxy's summary counts the statement among those kept
# with their rows, as the capture's events and the replay do.
test_replay_record_copy_in_statement_of_several() {
    record_server
    record_start --seconds 300
    printf '%s\n' 'CREATE TABLE cp (a int, b text);' \
        'select 0\; copy cp from stdin\; copy cp from stdin\; select 1;' \
        '1	one' '2	two' '\.' '3	three' '4	four' '\.' >"$T/copies.sql"
    "$PSQL15" -X -q -v ON_ERROR_STOP=1 -f "$T/copies.sql" "$pconn" >"$T/psql.out" 2>&1 ||
        { cat "$T/psql.out" >&2; fail "psql through the proxy"; }
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    assert_out "COPY FROM STDIN kept with their rows: 1$"
    local rows="SELECT count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY a)) FROM cp t" want got
    want=$(sql "$rows" "${rconn% dbname=*} dbname=rec")
    case $want in 4\ *) ;; *) fail "the source holds $want rows" ;; esac
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    python3 - "$T/out" <<'PY' || { cat "$T/out" >&2; fail "the capture does not keep each COPY's rows apart"; }
import json, sys
st = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "statement"]
copies = [e for e in st if e.get("copy_bytes") is not None]
assert len(copies) == 1 and copies[0]["text"].startswith("select 0"), copies
parts = copies[0].get("copy_parts")
assert parts and len(parts) == 2 and sum(parts) == copies[0]["copy_bytes"], copies[0]
PY
    pga replay run "$T/rec.cap" "$rconn" --map-db rec=dst --reset-from snap --force -q -o "$T/r.json"
    assert_rc 0
    got=$(sql "$rows" "${rconn% dbname=*} dbname=dst")
    [ "$got" = "$want" ] || fail "the target's rows: $got, the source's: $want"
    pyjson "$T/r.json" 'd["replay"]["copy_recorded"] == 1 and d["replay"].get("copy_empty", 0) == 0'
    pyjson "$T/r.json" 'd["replay"]["sent"] == d["replay"]["statements"] and d["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["diverged"]["succeeded_now"] == 0'
}

# A client that gives up on its COPY FROM STDIN (tests/tools/copyfailclient.c: PQputCopyEnd
# with a message, after some rows; alone, then the second COPY of a Query of two): the server
# failed each (57014, "COPY from stdin failed: MESSAGE"), and the capture marks which COPY its
# client failed and with what. The replay fails it so again: the target's table holds none of
# the rows sent, and no statement succeeds now (ended with a CopyDone, the rows would load).
test_replay_record_copy_failed_by_client() {
    record_tool_run copyfailclient
    assert_out "COPY FROM STDIN kept with their rows: 2$"
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    python3 - "$T/out" <<'PY' || { cat "$T/out" >&2; fail "the capture does not mark the COPYs the client failed"; }
import json, sys
st = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "statement"]
copies = [e for e in st if e.get("copy_bytes") is not None]
assert len(copies) == 2, copies
assert copies[0]["copy_fail"] == {"copy": 0, "message": "aborted"}, copies[0]
assert copies[0]["sqlstate"] == "57014" and copies[0]["copy_bytes"] == 12, copies[0]
assert copies[1]["copy_fail"] == {"copy": 1, "message": "given up"}, copies[1]
assert copies[1]["copy_parts"] == [8, 7], copies[1]
assert not [e for e in st if "copy_fail" in e and e not in copies], st
PY
    replay_same snap
    pyjson "$T/r.json" 'd["replay"]["copy_recorded"] == 2'
    [ "$(sql "SELECT count(*) FROM cf" "${rconn% dbname=*} dbname=dst")" = 0 ] ||
        fail "the target's cf holds the rows of the COPYs the client failed"
}

test_replay_record_seconds_and_refusals() {
    record_server
    record_start --seconds 4
    # Another protocol's startup (2.0) and a startup cut short: refused to that client alone.
    python3 - "${pconn#host=127.0.0.1 port=}" <<'PY'
import socket, struct, sys
port = int(sys.argv[1].split()[0])
s = socket.create_connection(("127.0.0.1", port))
s.sendall(struct.pack("!II", 8, 0x00020000))
reply = s.recv(1000)
assert reply[:1] == b"E" and b"unsupported frontend protocol" in reply, reply
s.close()
s = socket.create_connection(("127.0.0.1", port))
s.sendall(struct.pack("!I", 3))
reply = s.recv(1000)
assert reply[:1] == b"E" and b"invalid startup packet length" in reply, reply
s.close()
s = socket.create_connection(("127.0.0.1", port))
s.close()
PY
    # A wrong password: the server's refusal reaches the client; no session.
    PGPASSWORD=not-it "$PSQL15" -X "$pconn" -c "SELECT 1" >"$T/bad.out" 2>&1 &&
        fail "a wrong password logged in"
    grep -q "password authentication failed" "$T/bad.out" ||
        { cat "$T/bad.out" >&2; fail "the server's refusal did not reach the client"; }
    "$PSQL15" -X -q -At "$pconn" -c "SELECT 42" >"$T/psql.out" 2>&1 || fail "psql after the refusals"
    [ "$(cat "$T/psql.out")" = 42 ] || fail "psql's answer through the proxy"
    pga_wait
    assert_rc 0
    assert_out "^recorded .*rec.cap: 1 sessions, 1 statements \(1 simple"
    assert_out "1 connections never logged in"
}

test_replay_record_server_down() {
    [ -x "$PSQL15" ] || PSQL15=$PSQL
    rconn="host=127.0.0.1 port=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" port)"
    record_start --seconds 3
    "$PSQL15" -X "$pconn" -c "SELECT 1" >"$T/down.out" 2>&1 && fail "connected to no server"
    grep -q "pgarena replay record: cannot connect to the server: 127.0.0.1:[0-9]*: Connection refused" \
        "$T/down.out" || { cat "$T/down.out" >&2; fail "the client was not told why"; }
    pga_wait
    assert_rc 0
    assert_out "^recorded .*rec.cap: 0 sessions, 0 statements"
    assert_out "1 connections never logged in"
}


# A certificate for the proxy, made here: $T/proxy.crt and $T/proxy.key.
proxy_cert() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj "/CN=localhost" -keyout "$T/proxy.key" -out "$T/proxy.crt" >"$T/openssl.log" 2>&1 ||
        { cat "$T/openssl.log" >&2; fail "openssl req"; }
}

# A server of the test's own ($1: pg-servers.sh's options) with database rec: $rconn.
tls_server() {
    [ -x "$PSQL15" ] || PSQL15=$PSQL
    [ -x "$PGBENCH15" ] || PGBENCH15=$PGBENCH
    export PGA_TEST_PASSWORD=Rec-Tls-0815 PGPASSWORD=Rec-Tls-0815
    chmod 755 "$T"
    rconn=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$T/srv" "$@")
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$T/srv'"
    sql "CREATE DATABASE rec" "$rconn" >/dev/null
}

# Stop the proxy: it ends well.
record_stop() {
    kill -INT "$PID"
    pga_wait
    assert_rc 0
}

# No password nor key in the capture or the output.
no_secret() {
    ! zcat "$T/rec.cap" | grep -aq -e Rec-Tls -e "PRIVATE KEY" || fail "a secret in the capture"
    ! grep -q -e Rec-Tls -e "PRIVATE KEY" "$T/out" "$T/rec.err" || fail "a secret in the output"
}

# A proxy to the server as CONN $1 says: psql with settings $2 through it is refused with a
# line matching $3.
refused_through() {
    rconn=$1
    rm -f "$T/rec.err"
    record_start --seconds 300
    "$PSQL15" -X "$pconn $2" -c "SELECT 1" >"$T/refused.out" 2>&1 && fail "$1 went through"
    grep -q "$3" "$T/refused.out" || { cat "$T/refused.out" >&2; fail "no line matching $3"; }
    record_stop
}

# Through the proxy with these connection settings: is the server's session on TLS (t, f).
server_ssl() {
    "$PSQL15" -X -At "$pconn $1" -c "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()" \
        -c '\conninfo' >"$T/ssl.out" 2>&1 || { cat "$T/ssl.out" >&2; fail "psql $1 through the proxy"; }
    sed -n 1p "$T/ssl.out"
}

# The proxy ends the client's TLS (--tls-cert/--tls-key) in front of a SCRAM server in the
# clear (CONN's default sslmode, prefer: the server says no). SCRAM-SHA-256-PLUS is taken out
# of the mechanisms, so a client that requires channel binding fails with a line saying so.
test_replay_record_tls_client() {
    tls_server scram
    proxy_cert
    record_start --seconds 300 --tls-cert "$T/proxy.crt" --tls-key "$T/proxy.key"
    [ "$(server_ssl sslmode=require)" = f ] || fail "the server's session is on TLS"
    grep -q "^SSL connection (protocol: TLS" "$T/ssl.out" || { cat "$T/ssl.out" >&2; fail "psql is not on TLS"; }
    [ "$(server_ssl sslmode=disable)" = f ] || fail "sslmode=disable"
    ! grep -q "^SSL connection" "$T/ssl.out" || fail "sslmode=disable on TLS"
    "$PSQL15" -X "$pconn sslmode=require channel_binding=require" -c "SELECT 1" >"$T/cb.out" 2>&1 &&
        fail "channel_binding=require went through"
    grep -q "channel binding" "$T/cb.out" || { cat "$T/cb.out" >&2; fail "no line about channel binding"; }
    [ "$(wc -l <"$T/cb.out")" = 1 ] || { cat "$T/cb.out" >&2; fail "more than a line"; }
    # pgbench's prepared statements over TLS (its first session and two clients): every one
    # recorded.
    echo "SELECT 1;" >"$T/one.sql"
    "$PGBENCH15" -n -M prepared -c 2 -t 50 -f "$T/one.sql" "$pconn sslmode=require" >"$T/pgbench.out" 2>&1 ||
        { cat "$T/pgbench.out" >&2; fail "pgbench over TLS through the proxy"; }
    record_stop
    assert_out "^recorded .*rec.cap: 5 sessions, 102 statements \(2 simple, 0 extended-unnamed, 100 extended-named\)"
    assert_out "1 connections never logged in"
    no_secret
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    [ "$(grep -c 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()' "$T/out")" = 2 ] ||
        { cat "$T/out" >&2; fail "the capture does not hold the statements sent over TLS"; }
    # CONN requires TLS of a server in the clear: the client is told.
    refused_through "$rconn sslmode=require" "" \
        "the server does not support SSL, but CONN's sslmode requires it"
}

# TLS to a server that takes only TLS and SCRAM, as CONN asks (sslmode=verify-full with the
# server's CA, then require): the server's session is on TLS whatever the client's is. A
# client on TLS to the proxy that would bind SCRAM to it (libpq's channel_binding=prefer) is
# refused by such a server: the proxy says why in one line.
test_replay_record_tls_server() {
    tls_server ssl scram
    case "$rconn" in *sslmode=verify-full*) ;; *) fail "the TLS server's CONN: $rconn" ;; esac
    proxy_cert
    record_start --seconds 300 --tls-cert "$T/proxy.crt" --tls-key "$T/proxy.key"
    [ "$(server_ssl sslmode=disable)" = t ] || fail "the server's session is not on TLS"
    [ "$(server_ssl "sslmode=require channel_binding=disable")" = t ] ||
        fail "the server's session is not on TLS (client on TLS)"
    grep -q "^SSL connection (protocol: TLS" "$T/ssl.out" || { cat "$T/ssl.out" >&2; fail "psql is not on TLS"; }
    "$PSQL15" -X "$pconn sslmode=require" -c "SELECT 1" >"$T/cb.out" 2>&1 &&
        fail "channel binding through the proxy"
    grep -q "channel binding cannot pass through a proxy" "$T/cb.out" ||
        { cat "$T/cb.out" "$T/rec.err" >&2; fail "no line about channel binding"; }
    # Megabytes both ways over TLS on both sides (many TLS records a read, writes that wait).
    python3 -c "print(\"SELECT length('\" + 'y' * 3000000 + \"');\")" >"$T/big.sql"
    echo "SELECT repeat('x', 8000000);" >>"$T/big.sql"
    "$PSQL15" -X -At "$pconn sslmode=require channel_binding=disable" -f "$T/big.sql" >"$T/big.out" 2>&1 ||
        { head -c 2000 "$T/big.out" >&2; fail "megabytes through the proxy"; }
    [ "$(awk 'NR == 1 { a = $0 } NR == 2 { b = length($0) } END { print a, b, NR }' "$T/big.out")" = "3000000 8000000 2" ] ||
        { head -c 300 "$T/big.out" >&2; fail "megabytes through the proxy: not what was sent"; }
    record_stop
    assert_out "^recorded .*rec.cap: 3 sessions, 4 statements \(4 simple"
    no_secret
    # sslmode=require (no CA): TLS, the certificate not checked; verify-full against another
    # CA: the client is told why.
    local direct=${rconn%% sslmode=*}
    rconn="$direct sslmode=require"
    rm -f "$T/rec.err"
    record_start --seconds 300
    [ "$(server_ssl sslmode=disable)" = t ] || fail "sslmode=require in CONN"
    record_stop
    refused_through "$direct sslmode=verify-full sslrootcert=$T/proxy.crt" sslmode=disable \
        "TLS to the server failed: certificate verify failed"
    # sslmode=prefer (CONN's default) against a server that takes TLS and the clear (Debian's
    # ssl=on with host lines): a client in the clear goes on to the server on TLS; a client on
    # the proxy's TLS, with libpq's default channel_binding=prefer, in the clear (on TLS the
    # server would refuse it as a downgrade).
    sed -i 's/^hostssl/host/' "$T/srv/data/pg_hba.conf"
    sql "SELECT pg_reload_conf()" "$direct sslmode=require" >/dev/null
    for _ in $(seq 1 50); do
        "$PSQL15" -X -At "$direct sslmode=disable" -c "SELECT 1" >/dev/null 2>&1 && break
        sleep 0.1
    done
    rconn="$direct sslmode=prefer"
    rm -f "$T/rec.err"
    record_start --seconds 300 --tls-cert "$T/proxy.crt" --tls-key "$T/proxy.key"
    [ "$(server_ssl sslmode=disable)" = t ] || fail "prefer: a client in the clear not on TLS to the server"
    [ "$(server_ssl sslmode=require)" = f ] || fail "prefer: a client on TLS not in the clear to the server"
    grep -q "^SSL connection (protocol: TLS" "$T/ssl.out" || { cat "$T/ssl.out" >&2; fail "prefer: psql is not on TLS"; }
    record_stop
}

# A client of protocol 3 written by hand (libpq 15 sends neither protocol 3.2 nor a _pq_
# option): python3 raw_client.py HOST PORT OUT.json logs in as postgres to database rec twice,
# asking protocol 3.2 (application_name raw_32), then 3.2 with the option _pq_.pgarena_probe
# (raw_pq); in each it sets application_name and asks 41 + 1. OUT.json: per session what the
# server sent through the proxy (its NegotiateProtocolVersion or null, the settings it reported
# for the SET, its major, the answer). Exits 1 with the server's message on any failure.
raw_client() {
    cat >"$T/raw_client.py" <<'PY'
import json, socket, struct, sys

def messages(sock):
    buf = b""
    while True:
        while len(buf) < 5 or len(buf) < 1 + struct.unpack("!i", buf[1:5])[0]:
            got = sock.recv(65536)
            if not got:
                sys.exit("raw_client: the connection closed")
            buf += got
        n = struct.unpack("!i", buf[1:5])[0]
        yield buf[0:1], buf[5:1 + n]
        buf = buf[1 + n:]

def strings(body):
    return [s.decode() for s in body.split(b"\0")[:-1]]

def until_ready(msgs, seen):
    for kind, body in msgs:
        if kind == b"E":
            sys.exit("raw_client: " + " ".join(strings(body)))
        if kind == b"R" and struct.unpack("!i", body[:4])[0] != 0:
            sys.exit("raw_client: the server asks for a password")
        if kind == b"v":
            minor, n = struct.unpack("!ii", body[:8])
            seen["negotiated"] = [minor, strings(body[8:])[:n]]
        if kind == b"S":
            name, value = strings(body)
            seen.setdefault("status", []).append([name, value])
        if kind == b"D":
            seen["answer"] = body[6:].decode()
        if kind == b"Z":
            return

def query(sock, msgs, sql, seen):
    text = sql.encode() + b"\0"
    sock.sendall(b"Q" + struct.pack("!i", 4 + len(text)) + text)
    until_ready(msgs, seen)

def session(host, port, app, options):
    sock = socket.create_connection((host, port))
    params = [("user", "postgres"), ("database", "rec"), ("application_name", app)] + options
    body = struct.pack("!i", 0x00030002) + b"".join(k.encode() + b"\0" + v.encode() + b"\0" for k, v in params) + b"\0"
    sock.sendall(struct.pack("!i", 4 + len(body)) + body)
    msgs = messages(sock)
    login = {"negotiated": None}
    until_ready(msgs, login)
    seen = {"negotiated": login["negotiated"], "major": int(dict(login["status"])["server_version"].split(".")[0].split()[0])}
    query(sock, msgs, "SET application_name = '%s_set'" % app, seen)
    query(sock, msgs, "SELECT 41 + 1", seen)
    sock.sendall(b"X" + struct.pack("!i", 4))
    sock.close()
    return seen

host, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
got = {"raw_32": session(host, port, "raw_32", []),
       "raw_pq": session(host, port, "raw_pq", [("_pq_.pgarena_probe", "on")])}
json.dump(got, open(out, "w"))
PY
    python3 "$T/raw_client.py" "$@"
}

# ParameterStatus and NegotiateProtocolVersion (issue 50): the settings the server reports
# changed are recorded with the statement that changed them, psql's simple queries (SET
# TimeZone, SET application_name, SET SESSION AUTHORIZATION and its RESET: is_superuser and
# session_authorization, RESET ALL) and pgbench's extended one (at its Sync group's end); the
# login's are not. A startup asking protocol 3.2 (which PostgreSQL 18 supports and older ones
# answer with NegotiateProtocolVersion) and one naming an unknown _pq_ option (answered so on
# every major) have what the server sent recorded with their start, and work through the proxy.
# The capture replays (its server reports its own).
test_replay_record_param_status_and_negotiate() {
    chmod 755 "$T"
    rconn=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$T/srv")
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$T/srv'"
    sql "CREATE DATABASE rec" "$rconn" >/dev/null
    sql "CREATE ROLE rec_plain LOGIN" "$rconn" >/dev/null
    record_start --seconds 300
    "$PSQL" -X -q -v ON_ERROR_STOP=1 "$pconn application_name=rec_psql" >"$T/psql.out" 2>&1 <<'SQL' ||
SET TimeZone = 'Asia/Tokyo';
SET application_name = 'rec_status';
SET SESSION AUTHORIZATION rec_plain;
RESET SESSION AUTHORIZATION;
RESET ALL;
SELECT 1;
SQL
        { cat "$T/psql.out" >&2; fail "psql through the proxy"; }
    printf "SET TimeZone = 'Europe/Paris';\nSELECT 2;\n" >"$T/set.sql"
    "$PGBENCH" -n -M extended -t 1 -f "$T/set.sql" "$pconn" >"$T/pgbench.out" 2>&1 ||
        { cat "$T/pgbench.out" >&2; fail "pgbench -M extended through the proxy"; }
    local port=${pconn#*port=}
    raw_client 127.0.0.1 "${port%% *}" "$T/raw.json" || fail "the hand-written client through the proxy"
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    assert_out "parameter changes: [0-9]+ settings"
    mv "$T/out" "$T/record.out"
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    mv "$T/out" "$T/events"
    pga replay show "$T/rec.cap"
    assert_rc 0
    python3 - "$T/events" "$T/raw.json" "$T/out" "$T/record.out" <<'PY' || fail "the capture does not hold what the server reported"
import json, re, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
raw = json.load(open(sys.argv[2]))
st = [e for e in ev if e["event"] == "statement"]
status = {e["text"]: e.get("param_status") for e in st}
print("\n".join("%s: %s" % kv for kv in status.items()), file=sys.stderr)
assert status["SET TimeZone = 'Asia/Tokyo';"] == [["TimeZone", "Asia/Tokyo"]], status
assert status["SET application_name = 'rec_status';"] == [["application_name", "rec_status"]], status
auth = dict(status["SET SESSION AUTHORIZATION rec_plain;"])
assert auth["is_superuser"] == "off" and auth["session_authorization"] == "rec_plain", auth
back = dict(status["RESET SESSION AUTHORIZATION;"])
assert back["is_superuser"] == "on" and back["session_authorization"] == "postgres", back
reset = dict(status["RESET ALL;"])
assert reset["application_name"] == "rec_psql" and reset["TimeZone"] != "Asia/Tokyo", reset
assert status["SELECT 1;"] is None and status["SELECT 2;"] is None and status["SELECT 41 + 1"] is None, status
paris = [e for e in st if e["text"] == "SET TimeZone = 'Europe/Paris';"]
assert len(paris) == 1 and paris[0]["protocol"] == "extended-unnamed", paris
assert paris[0]["param_status"] == [["TimeZone", "Europe/Paris"]], paris
# What the hand-written client got through the proxy is what the capture holds.
starts = {dict(e["startup"]).get("application_name"): e for e in ev if e["event"] == "start"}
for app, got in raw.items():
    assert got["answer"] == "42", (app, got)
    assert got["status"] == [["application_name", app + "_set"]], (app, got)
    assert status["SET application_name = '%s_set'" % app] == got["status"], (app, status)
    neg = starts[app].get("negotiated")
    # (PostgreSQL sends the whole version, 3 << 16 | minor, where the protocol says the minor)
    want = got["negotiated"] and {"minor": got["negotiated"][0] & 0xffff, "unrecognised": got["negotiated"][1]}
    assert neg == want, (app, neg, want)
major = raw["raw_32"]["major"]
# 3.2 alone: PostgreSQL 18 supports it, older ones say 3.0; an unknown option: refused by all.
assert raw["raw_32"]["negotiated"] == (None if major >= 18 else [0x30000, []]), raw
assert raw["raw_pq"]["negotiated"] == [0x30002 if major >= 18 else 0x30000, ["_pq_.pgarena_probe"]], raw
# The login's own reports (server_version, TimeZone...) are nowhere.
assert not any(n == "server_version" for e in st for n, _ in e.get("param_status", [])), st
n = sum(len(e.get("param_status", [])) for e in st)
for f in sys.argv[3:]:
    said = re.findall(r"parameter changes: (\d+) settings", open(f).read())
    assert said == [str(n)], (f, said, n)
PY
    pga replay run "$T/rec.cap" "$rconn" --force -q -o "$T/r.json"
    assert_rc 0
    pyjson "$T/r.json" 'd["replay"]["sent"] == d["replay"]["statements"] == 12 and d["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["sessions_failed"] == 0'
}

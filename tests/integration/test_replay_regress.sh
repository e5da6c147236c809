# replay measured on real traffic (issue 39 item 6): a pg_regress-style capture made here, a
# dozen psql sessions (several at once) on a server logging log_statement = 'all' to a csvlog,
# prepared with replay prepare and replayed onto a fresh cluster with CONN without a database;
# checked by pg_stat_statements on both servers and by the final schemas (pg_dump -s).
# COPY is left out of this capture: COPY's replay is another piece of work (issue 39 item 4).

# A server of the test's own in $T/NAME, with pg_stat_statements loaded and the settings given
# besides; prints its conninfo without a database. LIB_CLEANUP stops it.
regress_server() {
    local dir=$T/$1 conn set
    shift
    mkdir -p "$dir"
    chmod 755 "$T"
    conn=$(sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$dir")
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh \"\$PGARENA_TEST_TOP/tests/pg-harness.sh\" stop \"$dir\""
    for set in "shared_preload_libraries = 'pg_stat_statements'" "$@"; do
        sql "ALTER SYSTEM SET $set" "$conn" >/dev/null
    done
    # The role logs in with its password (SCRAM), as an application's user would.
    { echo "local all regress_owner scram-sha-256"; cat "$dir/data/pg_hba.conf"; } >"$dir/hba" &&
        mv "$dir/hba" "$dir/data/pg_hba.conf"
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" halt "$dir"
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" resume "$dir"
    sql "CREATE EXTENSION pg_stat_statements" "$conn" >/dev/null
    echo "${conn% dbname=*}"
}

# One session of the capture, as pg_regress runs one: psql reading SQL on its standard input,
# going on after errors, with DateStyle set at startup (PGDATESTYLE: in the startup packet, not
# in the log). regress_session [USER PASSWORD] <<SQL
regress_session() {
    local conn="$SRCBASE dbname=regression"
    [ $# -eq 0 ] || conn="${SRCBASE% user=*} user=$1 dbname=regression"
    PGDATESTYLE='ISO, DMY' PGPASSWORD=${2:-} "$PSQL" -X -q "$conn" >/dev/null 2>&1 || true
}

# The capture: five waves of sessions, each wave's sessions at once, a wave after the previous
# one has ended. Roles with passwords (CREATE ROLE, ALTER ROLE), GRANTs, SET ROLE, logins as the
# role before and after its password changed; DDL in one session that the next wave uses;
# errors on purpose (a role made twice: its ERROR logged with the password; a missing table, a
# division by zero, a duplicate key in a block, a permission refused, statements in an aborted
# block); a DateStyle only the startup set.
regress_capture() {
    regress_session <<'SQL'
CREATE ROLE regress_owner LOGIN PASSWORD 'Regress-Sekr1t-1';
CREATE ROLE regress_owner LOGIN PASSWORD 'Regress-Sekr1t-1';
CREATE SCHEMA app;
GRANT USAGE, CREATE ON SCHEMA app TO regress_owner;
CREATE TABLE app.items (id int PRIMARY KEY, name text NOT NULL, password text);
GRANT SELECT, INSERT, UPDATE ON app.items TO regress_owner;
INSERT INTO app.items SELECT g, 'item ' || g, NULL FROM generate_series(1, 20) g;
SELECT '13/01/2026'::date;
SQL
    regress_session <<'SQL' &
CREATE TABLE app.orders (id serial PRIMARY KEY, item int REFERENCES app.items, qty int);
INSERT INTO app.orders (item, qty) VALUES (1, 3), (2, 4);
SELECT count(*) FROM app.orders;
SQL
    regress_session <<'SQL' &
SET ROLE regress_owner;
INSERT INTO app.items VALUES (100, 'by the owner', 'not a secret');
UPDATE app.items SET name = 'renamed' WHERE id = 100;
SELECT name, password FROM app.items WHERE id = 100;
DELETE FROM app.items WHERE id = 100;
RESET ROLE;
SELECT current_user;
SQL
    regress_session <<'SQL' &
SELECT * FROM app.nosuch;
SELECT 1 / 0;
BEGIN;
INSERT INTO app.items VALUES (200, 'first', NULL);
INSERT INTO app.items VALUES (200, 'duplicate', NULL);
SELECT 1;
ROLLBACK;
SELECT count(*) FROM app.items WHERE id = 200;
SQL
    regress_session <<'SQL' &
CREATE FUNCTION app.next(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
CREATE VIEW app.named AS SELECT id, upper(name) AS name FROM app.items WHERE id < 10;
SELECT app.next(id) FROM app.named ORDER BY id;
SQL
    wait
    regress_session <<'SQL' &
INSERT INTO app.orders (item, qty) SELECT id, 2 FROM app.items WHERE id > 10;
CREATE INDEX orders_qty ON app.orders (qty);
SELECT sum(qty) FROM app.orders;
SQL
    regress_session regress_owner Regress-Sekr1t-1 <<'SQL' &
SELECT count(*) FROM app.items;
CREATE TABLE app.owned (a int, b text DEFAULT 'x');
INSERT INTO app.owned (a) VALUES (1), (2);
SQL
    wait
    regress_session <<'SQL' &
ALTER ROLE regress_owner PASSWORD 'Regress-Sekr1t-2';
CREATE ROLE regress_reader NOLOGIN;
GRANT SELECT ON ALL TABLES IN SCHEMA app TO regress_reader;
ALTER TABLE app.items ADD COLUMN note text;
SQL
    regress_session <<'SQL' &
PREPARE by_id(int) AS SELECT name FROM app.items WHERE id = $1;
EXECUTE by_id(1);
EXECUTE by_id(2);
CREATE TEMP TABLE scratch AS SELECT id FROM app.items;
SELECT count(*) FROM scratch;
DROP TABLE app.nosuch;
SQL
    wait
    regress_session regress_owner Regress-Sekr1t-2 <<'SQL' &
INSERT INTO app.owned (a) VALUES (3);
SELECT sum(a) FROM app.owned;
DELETE FROM app.orders;
SQL
    regress_session <<'SQL' &
DROP VIEW app.named;
CREATE MATERIALIZED VIEW app.per_item AS SELECT item, sum(qty) AS qty FROM app.orders GROUP BY item;
COMMENT ON TABLE app.owned IS 'made by regress_owner';
SQL
    regress_session <<'SQL' &
SELECT '13/01/2026'::date + 1;
SELECT name FROM app.items WHERE id IN (1, 2, 3);
SQL
    wait
}

# pg_stat_statements' calls per statement text (whitespace squashed) in database regression,
# on the server at CONN (no database).
regress_pgss() {
    sql "SELECT regexp_replace(s.query, '\\s+', ' ', 'g'), s.calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'regression'" "$1 dbname=postgres" >"$2"
}

# The sorted schema of database regression. pg_dump's \restrict and \unrestrict lines carry a
# key it draws at random for each dump: they cannot match and are removed; nothing else is.
regress_schema() {
    "$(dirname "$PSQL")/pg_dump" -s "$1 dbname=regression" | grep -v '^\\\(un\)\?restrict ' | sort >"$2" ||
        fail "pg_dump of $1"
}

test_replay_regress() {
    SRCBASE=$(regress_server src "logging_collector = on" "log_destination = 'csvlog'" \
        "log_statement = 'all'" "log_connections = on" "log_disconnections = on")
    DSTBASE=$(regress_server dst)
    sql "CREATE DATABASE regression" "$SRCBASE dbname=postgres" >/dev/null
    sql "SELECT pg_stat_statements_reset()" "$SRCBASE dbname=postgres" >/dev/null
    regress_capture
    regress_pgss "$SRCBASE" src.pgss
    sleep 1 # the collector writes behind
    log=$(sql "SELECT pg_current_logfile('csvlog')" "$SRCBASE dbname=postgres")
    case "$log" in /*) ;; *) log="$T/src/data/$log" ;; esac
    pga replay prepare "$log" -o cap.pgc --database regression
    assert_rc 0
    assert_out 'kept with the password cut out: 3'
    regress_schema "$SRCBASE" src.schema # after prepare: pg_dump's session is not the capture's
    ! zcat -f cap.pgc | grep -aq Sekr1t || fail "a password is in the capture"
    pga replay show cap.pgc
    assert_rc 0

    # The target: a fresh cluster, regression made empty as pg_regress makes it; CONN names no
    # database, as a user whose name is no database.
    sql "CREATE ROLE replayer LOGIN SUPERUSER" "$DSTBASE dbname=postgres" >/dev/null
    sql "CREATE DATABASE regression" "$DSTBASE dbname=postgres" >/dev/null
    sql "SELECT pg_stat_statements_reset()" "$DSTBASE dbname=postgres" >/dev/null
    pga replay run cap.pgc "${DSTBASE% user=*} user=replayer" --speed max \
        --session-set 'DateStyle=ISO, DMY' -o r.json
    assert_rc 0
    ! grep -q Sekr1t r.json "$T/out" "$T/err" || fail "a password is in the result or output"
    ! grep -q "unknown error" "$T/out" "$T/err" || fail "unknown error"
    cat "$T/out" >&2 # its divergences, in the test's log when it fails
    pyjson r.json 'd["replay"]["sessions"] == 12 and d["replay"]["sessions_failed"] == 0'
    pyjson r.json 'd["replay"]["secrets_replaced"] == 3 and d["replay"]["skipped"]["secret"] == 0'
    pyjson r.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["diverged"]["succeeded_now"] == 0'
    regress_pgss "$DSTBASE" dst.pgss
    regress_schema "$DSTBASE" dst.schema

    # Statement classes equal: calls per statement text, leaving out those whose text carried a
    # password (the replay sets its own, and pg_stat_statements keeps utility statements'
    # literals) and COPY (none here).
    python3 - src.pgss dst.pgss <<'PY' || fail "pg_stat_statements differ between the capture and the replay"
import re, sys
def calls(path):
    got = {}
    for line in open(path):
        q, n = line.rstrip("\n").rsplit("|", 1)
        if re.search(r"(?i)\bpassword\s+'", q) or re.match(r"(?i)\s*copy\b", q):
            continue
        got[q] = got.get(q, 0) + int(n)
    return got
src, dst = calls(sys.argv[1]), calls(sys.argv[2])
diff = {q: (src.get(q), dst.get(q)) for q in set(src) | set(dst) if src.get(q) != dst.get(q)}
for q, (a, b) in sorted(diff.items()):
    print("capture %s, replay %s: %s" % (a, b, q), file=sys.stderr)
if len(src) < 30:
    print("only %d statement texts in the capture" % len(src), file=sys.stderr)
    sys.exit(1)
sys.exit(1 if diff else 0)
PY
    diff src.schema dst.schema >&2 || fail "the schemas differ (pg_dump -s, sorted)"
}

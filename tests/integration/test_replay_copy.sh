# replay and COPY: a capture prepared from a real server's csvlog holding COPY TO STDOUT
# (replayed: its rows read and dropped), COPY FROM STDIN (kept, counted by table; sent a file
# with --copy-from, else skipped and counted; inside a statement of several: sent, given no
# rows) and a statement a replay cannot send (its
# parameters not logged), checked by counts and by the rows on the target.

# A server of the test's own ($OCONN) logging to a csvlog: test_replay_run.sh's.
copy_logging_server() {
    . "$PGARENA_TEST_TOP/tests/integration/test_replay_run.sh"
    replay_logging_server
}

test_replay_copy_from_log() {
    pga replay prepare --help
    if [ "$RC" -ne 0 ]; then
        echo "SKIPPED replay_copy_from_log: this pgarena has no 'replay prepare'" >&2
        return 0
    fi
    copy_logging_server
    local base=${OCONN% dbname=*}
    # The table made in another database (its statements are not csrc's).
    sql "CREATE DATABASE cinit" "$OCONN" >/dev/null
    sql "CREATE TABLE ct (a int, b text)" "$base dbname=cinit" >/dev/null
    sql "CREATE DATABASE csrc TEMPLATE cinit" "$OCONN" >/dev/null
    sql "CREATE DATABASE csnap TEMPLATE cinit" "$OCONN" >/dev/null
    printf 'COPY ct FROM STDIN;\n1\tone\n2\ttwo\n\\.\nCOPY ct TO STDOUT;\nCOPY ct FROM STDIN;\n3\tthree\n\\.\nSELECT 0\\; COPY ct FROM STDIN\\; CREATE TABLE after_copy (x int);\n4\tfour\n\\.\nCOPY (SELECT a FROM ct ORDER BY a) TO STDOUT;\nSELECT count(*) FROM ct;\n' |
        "$PSQL" -X -q -v ON_ERROR_STOP=1 "$base dbname=csrc" >/dev/null 2>&1 || fail "psql's COPY"
    # The extended protocol with log_parameter_max_length = 0: "$1" without its value.
    printf '\\set x 2\nSELECT count(*) FROM ct WHERE a = :x;\n' >p.sql
    PGOPTIONS='-c log_parameter_max_length=0' "$PGBENCH" -n -M extended -t 1 -f p.sql \
        "$base dbname=csrc" >/dev/null 2>&1 || fail "pgbench -M extended"
    log=$(sql "SELECT pg_current_logfile('csvlog')" "$OCONN")
    case "$log" in /*) ;; *) log="$T/srv/data/$log" ;; esac
    sleep 0.5
    pga replay prepare "$log" -o cap.pgc --database csrc
    assert_rc 0
    assert_out 'kept without their data: 2 \(ct 2\)'
    assert_out 'unsupported parameters_not_logged: 1, e.g. SELECT count\(\*\) FROM ct WHERE a = \$1'
    pga replay show cap.pgc
    assert_rc 0
    assert_out '^ *COPY FROM STDIN kept without their data: 2 \(ct 2\); replay run --copy-from DIR'
    assert_out '^ *unsupported parameters_not_logged: 1, e.g. '
    # Without --copy-from: both COPY TO STDOUT replay, both COPY FROM STDIN are skipped.
    pga replay run cap.pgc "$OCONN" --map-db csrc=cdst --reset-from csnap --speed max -q -o r.json
    assert_rc 0
    pyjson r.json 'd["replay"]["skipped"]["copy"] == 2 and "copy_loaded" not in d["replay"]'
    pyjson r.json 'd["replay"]["skipped"]["unsupported"] == 1'
    pyjson r.json '[(u["kind"], u["count"]) for u in d["replay"]["unsupported"]] == [("parameters_not_logged", 1)]'
    pyjson r.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["sessions_failed"] == 0'
    pyjson r.json 'sum(c["count"] for c in d["summary"]["classes"] if c["class"].startswith("COPY") and "STDOUT" in c["class"].upper()) == 2'
    [ "$(sql "SELECT count(*) FROM ct" "$base dbname=cdst")" = 0 ] || fail "cdst.ct has rows without --copy-from"
    # The COPY inside a statement of several (psql's \;, logged as one string) was sent with
    # its statement and given no rows; what follows it in the string ran.
    pyjson r.json 'd["replay"]["copy_empty"] == 1'
    [ "$(sql "SELECT to_regclass('after_copy') IS NOT NULL" "$base dbname=cdst")" = t ] ||
        fail "the statement after the COPY inside a statement of several did not run"
    pga show r.json
    assert_out '^copy without data: +1 COPY FROM STDIN inside statements of several given no rows'
    # With --copy-from: the first COPY into ct gets ct.1; there is no ct.2 (skipped).
    mkdir data
    printf '10\tten\n11\televen\n12\ttwelve\n' >data/ct.1
    pga replay run cap.pgc "$OCONN" --map-db csrc=cdst --reset-from csnap --speed max -j 2 \
        --copy-from data -q -o f.json
    assert_rc 0
    pyjson f.json 'd["replay"]["copy_loaded"] == 1 and d["replay"]["skipped"]["copy"] == 1 and d["replay"]["copy_empty"] == 1'
    pyjson f.json 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["sessions_failed"] == 0'
    [ "$(sql "SELECT count(*) || ' ' || sum(a) FROM ct" "$base dbname=cdst")" = "3 33" ] ||
        fail "cdst.ct does not hold ct.1's rows"
    pga show f.json
    assert_rc 0
    assert_out '^copy from files: +1 COPY FROM STDIN sent their --copy-from file'
}

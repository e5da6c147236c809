# Helpers for integration tests. Each test_* function runs in its own subshell with `set -e`,
# in a fresh directory $T; it fails by calling `fail` or by any command failing.
# PGARENA is the binary under test (the ASan+UBSan build), PGARENA_TEST_CONN the server.
#
# Every pgarena invocation goes through pga (foreground) or pga_bg + pga_wait (background):
# they fail the test on any sanitizer report, whatever the exit status. tests/run-all.sh gives
# ASan, LSan and UBSan an exit status of their own, 86 (PGA_SANITIZER_RC), so a leak on a path
# that exits 1 anyway (an interrupted run) cannot pass as that run's expected status.
#   pga ARGS...                  stdout in $T/out, stderr in $T/err, status in $RC
#   pga_bg ARGS...; pga_wait     the same in the background ($PID), waited for by pga_wait
#   pga_wait [PID]               wait for PID (default $PID), status in $RC
#   PGA_OUT=F PGA_ERR=F pga ...  other files for stdout and stderr (also for pga_bg)
#   PGA_WRAP="ip netns exec N"   words put before the binary: a namespace, prlimit, timeout...
#   pga_check_report FILE RC     the check alone, for a stderr file and status from elsewhere
# Never call "$PGARENA" directly: test_lib_sanitizer_gate shows that a leak reaching these
# helpers fails the test, even on a path that exits 1.
#
# tests/run-all.sh runs two test files at a time (PGARENA_JOBS), every file beside another: a
# test that changes a server's settings (ALTER SYSTEM) or needs most of its connections starts
# a server of its own (tests/pg-harness.sh, tests/pg-servers.sh), and timing is judged by
# counts, orderings and server-side effects, or by bounds that a neighbour's load (or a VM
# losing its CPU for seconds) cannot cross while the bug they catch still would.

PSQL=$(pg_config --bindir 2>/dev/null)/psql
[ -x "$PSQL" ] || PSQL=$(ls /usr/lib/postgresql/*/bin/psql | sort -V | tail -n 1)
PGBENCH=$(dirname "$PSQL")/pgbench
CONN=$PGARENA_TEST_CONN

lib_setup() {
    T=$(mktemp -d /tmp/pgarena-t-XXXXXX)
    cd "$T"
}

# Runs as the test's EXIT trap, so it also cleans up after a failed test. A test that starts
# something of its own (a server) puts the command that stops it in LIB_CLEANUP. Every result
# file pgarena wrote under $T is validated against docs/result.schema.json first; one that
# does not validate fails the test.
lib_teardown() {
    # First, before any command here replaces them: how the test ended. A command that failed
    # under set -e ends the test without a word of its own (a grep -c counting 0 lines did,
    # in test_faults.sh): it is named, so that every failure says what failed.
    local rc=$? cmd=$BASH_COMMAND schema_rc=0
    case $rc:$cmd in
    0:* | *:"exit "*) ;;
    *) echo "FAILED: the test ended with status $rc at: $cmd" >&2 ;;
    esac
    if [ -n "${LIB_CLEANUP:-}" ]; then
        # Tests append with "${LIB_CLEANUP:-}; CMD": a leading ';' is a syntax error for eval,
        # which once skipped every cleanup of such a test (a pgbouncer outlived each run).
        eval "${LIB_CLEANUP#;}" >/dev/null 2>&1 || true
    fi
    if [ -d "$T" ] && [ -n "$(find "$T" -name '*.json' -print -quit 2>/dev/null)" ]; then
        /usr/bin/python3 "$PGARENA_TEST_TOP/tests/check-results.py" --dir "$T" >&2 || schema_rc=1
    fi
    cd /
    rm -rf "$T"
    [ "$schema_rc" -eq 0 ] || { echo "FAILED: a result file does not match its schema" >&2; exit 1; }
    return 0
}

fail() {
    echo "FAILED: $*" >&2
    exit 1
}

PGA_SANITIZER_RC=86
declare -A PGA_BG_ERR

# pga_check_report FILE RC [WHAT]: fail on a sanitizer report in FILE or the status 86.
pga_check_report() {
    if grep -qE 'Sanitizer|runtime error:' "$1" || [ "$2" -eq "$PGA_SANITIZER_RC" ]; then
        cat "$1" >&2
        fail "sanitizer report (exit $2) from: ${3:-pgarena}"
    fi
    return 0
}

# pga ARGS...: run pgarena; keeps stdout in $T/out, stderr in $T/err, status in $RC.
# Any sanitizer report fails the test whatever the status.
pga() {
    local out=${PGA_OUT:-$T/out} err=${PGA_ERR:-$T/err}
    set +e
    # shellcheck disable=SC2086 # PGA_WRAP is words
    ${PGA_WRAP:-} "$PGARENA" "$@" >"$out" 2>"$err"
    RC=$?
    set -e
    pga_check_report "$err" "$RC" "pgarena $*"
}

# Run pgarena in the background; $PID is its process, pga_wait waits for it.
pga_bg() {
    local out=${PGA_OUT:-$T/out} err=${PGA_ERR:-$T/err}
    # Emptied here, not by the background command's own redirection, which may come later: a
    # wait_progress right after would read the previous run's progress lines from the old file.
    : >"$out"
    : >"$err"
    # shellcheck disable=SC2086
    ${PGA_WRAP:-} "$PGARENA" "$@" >"$out" 2>"$err" &
    PID=$!
    PGA_BG_ERR[$PID]=$err
}

# wait_progress N: wait (at most 60 s) until the background run has printed N progress lines
# (run with -P 1, without -q): its clients are connected and the measured part has begun.
wait_progress() {
    for _ in $(seq 1 600); do
        [ "$(grep -c '^progress:' "$T/err")" -ge "$1" ] && return 0
        kill -0 $PID 2>/dev/null || break
        sleep 0.1
    done
    cat "$T/err" >&2
    fail "no $1 progress lines from the run"
}

# kill_at_journal PID FILE N: SIGKILL the background pgarena PID once FILE (a journal: its
# header, then one line per interval) holds N lines (waiting at most 30 s), and reap it.
kill_at_journal() {
    for _ in $(seq 1 300); do
        [ "$(wc -l <"$2" 2>/dev/null || echo 0)" -ge "$3" ] && break
        sleep 0.1
    done
    kill -KILL "$1"
    wait "$1" || true
}

pga_wait() {
    local pid=${1:-$PID}
    set +e
    wait "$pid"
    RC=$?
    set -e
    pga_check_report "${PGA_BG_ERR[$pid]:-$T/err}" "$RC" "background pgarena"
}

assert_rc() {
    [ "$RC" -eq "$1" ] || { echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; fail "exit status $RC, expected $1"; }
}

assert_out() {
    grep -qE -- "$1" "$T/out" || { cat "$T/out"; fail "stdout does not match: $1"; }
}

assert_err() {
    grep -qE -- "$1" "$T/err" || { cat "$T/err"; fail "stderr does not match: $1"; }
}

# One line on stderr beginning "pgarena: ", nothing on stdout.
assert_one_error_line() {
    [ ! -s "$T/out" ] || { cat "$T/out"; fail "stdout not empty"; }
    [ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err"; fail "expected exactly one stderr line"; }
    grep -q '^pgarena: ' "$T/err" || { cat "$T/err"; fail "stderr line does not begin with 'pgarena: '"; }
}

# matrix_line LINE: one line of the version matrix (test_version_matrix.sh: "major M: ..."),
# on stdout and into the file PGARENA_MATRIX names, which run-all.sh prints after the results.
matrix_line() {
    echo "$1"
    [ -z "${PGARENA_MATRIX:-}" ] || echo "$1" >>"$PGARENA_MATRIX"
}

sql() {
    "$PSQL" -X -q -At -v ON_ERROR_STOP=1 "${2:-$CONN}" -c "$1"
}

# jq-like checks with python: pyjson FILE EXPR  (d is the parsed document; EXPR must be true)
pyjson() {
    python3 - "$1" "$2" <<'PY' || { [ ! -s "${T:-}/err" ] || tail -n 5 "$T/err" >&2; fail "result check failed: $2"; }
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"d": d})
if not ok:
    print("false:", sys.argv[2], file=sys.stderr)
    # The detail: what failed and why, as the result says (and the run's last stderr lines).
    s = d.get("summary") if isinstance(d, dict) else None
    if isinstance(s, dict) and "failed" in s:
        print("summary: transactions", s.get("transactions"), "failed", s.get("failed"),
              "errors", s.get("errors"), file=sys.stderr)
    sys.exit(1)
PY
}

# A database of its own for a test: newdb NAME -> prints its conninfo.
newdb() {
    sql "DROP DATABASE IF EXISTS $1" >/dev/null 2>&1
    sql "CREATE DATABASE $1" >/dev/null
    echo "${CONN% dbname=*} dbname=$1"
}

# The same with pgbench's tables loaded at scale 1: pgbench_db NAME -> prints its conninfo.
pgbench_db() {
    local db
    db=$(newdb "$1")
    pga init -s 1 -q "$db"
    assert_rc 0
    # init's backends (COPY, VACUUM ANALYZE's pg_statistic rows) publish their counts as they
    # exit, which may be after init returns: wait (up to 10 s) until no other session is in
    # the database, or a run's deltas would count init's rows as its own.
    for _ in $(seq 1 100); do
        [ "$(sql "SELECT count(*) FROM pg_stat_activity
                  WHERE datname = current_database() AND pid <> pg_backend_pid()" "$db")" = 0 ] && break
        sleep 0.1
    done
    echo "$db"
}

#!/usr/bin/env bash
# The whole test suite: cmocka unit tests (normal and ASan+UBSan builds; the engine's also on
# the poll event wait), then integration tests against a scratch PostgreSQL started here and
# always stopped. Ends with one line
# "N passed, N failed" and a non-zero exit on any failure.
# PGARENA_TESTS=REGEX runs only the integration tests whose name matches (default: all);
# PGARENA_NO_UNIT=1 skips the unit tests. Both are for development; make check runs all.
# PGARENA_JOBS=N (default 2) runs up to N integration test files at the same time, each file's
# tests in order and its output printed whole when the file is done; every file runs beside
# another (tests/integration/lib.sh says how a test stays right beside a neighbour's load).
# PGARENA_JOBS=1 runs every file by itself, its lines printed as they come.
# PGARENA_TEST_TIMEOUT=S (default 900) stops and fails an integration test still running after
# S seconds, its cleanup run, and the suite goes on.
# The version matrix's tests (test_version_matrix.sh) write a line per major into the file
# PGARENA_MATRIX names; they are printed after the results under "== version matrix".
# PGARENA_CPU_HOG=1 keeps one core busy for the whole run (a shell busy loop, pinned with
# taskset to the last core when taskset is there), stopped at the end whatever happens: the
# suite must pass on a machine that loses its CPU, as CI's VM does (issue 35).
set -u
cd "$(dirname "$0")/.."
top=$PWD
passed=0
failed=0
failures=()

note_pass() { passed=$((passed + 1)); }
note_fail() { failed=$((failed + 1)); failures+=("$1"); }

# A sanitizer report exits 86, a status pgarena never uses: lib.sh's helpers fail on it even
# where the run itself is expected to fail (an interrupted run exits 1).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:exitcode=86}
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=86}

hog_pid=
stop_hog() {
    [ -n "$hog_pid" ] || return 0
    kill "$hog_pid" 2>/dev/null
    wait "$hog_pid" 2>/dev/null
    hog_pid=
}
trap stop_hog EXIT
trap 'exit 130' INT TERM
if [ -n "${PGARENA_CPU_HOG:-}" ] && [ "$PGARENA_CPU_HOG" != 0 ]; then
    hog_core=$(($(nproc 2>/dev/null || echo 1) - 1))
    if command -v taskset >/dev/null 2>&1; then
        taskset -c "$hog_core" bash -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
    else
        bash -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
    fi
    hog_pid=$!
    echo "== a CPU hog on core $hog_core (pid $hog_pid)"
fi

echo "== unit tests"
for t in build/tests/test_* build/asan/tests/test_* build/poll/tests/test_*; do
    [ -x "$t" ] || continue
    [ -n "${PGARENA_NO_UNIT:-}" ] && continue
    out=$("$t" 2>&1)
    rc=$?
    ok=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
    bad=$(printf '%s\n' "$out" | grep -cE '^\[  (FAILED|ERROR)   ?\] [A-Za-z_0-9]+$')
    passed=$((passed + ok))
    if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; fi
    for _ in $(seq 1 "$bad"); do note_fail "$t"; done
    printf '%-40s %3d ok, %d failed\n' "$t" "$ok" "$bad"
    [ "$bad" -gt 0 ] && printf '%s\n' "$out" | tail -n 30
done

echo "== integration tests"
pgdir=$(mktemp -d /tmp/pgarena-test-XXXXXX)
cleanup() {
    sh "$top/tests/pg-harness.sh" stop "$pgdir"
    stop_hog
}
trap cleanup EXIT
if ! PGARENA_TEST_CONN=$(sh tests/pg-harness.sh start "$pgdir"); then
    echo "could not start the test server"
    note_fail "pg-harness start"
else
    export PGARENA_TEST_CONN PGARENA_TEST_PGDIR=$pgdir
    export PGARENA=${PGARENA:-$top/build/asan/pgarena} PGARENA_TEST_TOP=$top
    jobs=${PGARENA_JOBS:-2}
    [[ $jobs =~ ^[1-9][0-9]*$ ]] || jobs=1
    resdir=$(mktemp -d /tmp/pgarena-testres-XXXXXX)
    # The version matrix's lines (lib.sh's matrix_line), printed after the results.
    export PGARENA_MATRIX=$resdir/matrix
    # A test still running after PGARENA_TEST_TIMEOUT seconds (default 900) is stopped and
    # fails: a hang must not take CI's whole time. Its shell gets SIGTERM (its trap exits, so
    # its cleanup runs) and so does every process under it (the shell waits for its foreground
    # command before it runs a trap).
    limit=${PGARENA_TEST_TIMEOUT:-900}
    [[ $limit =~ ^[1-9][0-9]*$ ]] || limit=900
    kill_tree() {
        local p
        for p in $(pgrep -P "$1"); do kill_tree "$p"; done
        kill -TERM "$1" 2>/dev/null
    }
    # run_file FILE OUT RES: FILE's selected tests in order, their lines into OUT (- for
    # stdout: reopening /dev/stdout would write over a log file from its start), one line
    # "pass NAME" or "fail NAME" each into RES.
    run_file() {
        local f=$1 out=$2 res=$3 name log start rc secs tpid wpid
        if [ "$out" = - ]; then exec 3>&1; else exec 3>>"$out"; fi
        for name in $(grep -oE '^test_[a-z0-9_]+' "$f"); do
            [[ $name =~ ${PGARENA_TESTS:-.} ]] || continue
            log=$(mktemp /tmp/pgarena-testlog-XXXXXX)
            start=$(date +%s)
            ( set -e; . tests/integration/lib.sh; . "$f"; lib_setup; trap lib_teardown EXIT; trap 'exit 124' TERM; "$name" ) >"$log" 2>&1 </dev/null 3>&- &
            tpid=$!
            ( sleep "$limit" && : >"$log.timeout" && kill -TERM "$tpid" && kill_tree "$tpid" ) </dev/null >/dev/null 2>&1 3>&- &
            wpid=$!
            wait "$tpid"
            rc=$?
            pkill -P "$wpid" 2>/dev/null
            kill "$wpid" 2>/dev/null
            wait "$wpid" 2>/dev/null
            if [ -e "$log.timeout" ]; then
                echo "TIMEOUT: stopped after $limit s (PGARENA_TEST_TIMEOUT)" >>"$log"
                rm -f "$log.timeout"
                rc=124
            fi
            secs=$(( $(date +%s) - start ))
            if [ $rc -eq 0 ]; then
                echo "pass $name" >>"$res"
                printf 'ok     %-50s %3ds\n' "$name" "$secs" >&3
            else
                echo "fail $name" >>"$res"
                { printf 'FAIL   %-50s %3ds\n' "$name" "$secs"; sed "s/^/    | /" "$log" | tail -n "${PGARENA_FAIL_LINES:-40}"; } >&3
            fi
            rm -f "$log"
        done
        exec 3>&-
    }
    # Count a finished file's tests and print its output (unless it went to stdout already).
    declare -A job_out=() job_res=()
    running=0 # files in the background (bash counts an emptied array as unset under set -u)
    finish_file() {
        local key=$1 verdict name
        [ "${job_out[$key]}" = - ] || cat "${job_out[$key]}"
        while read -r verdict name; do
            if [ "$verdict" = pass ]; then note_pass; else note_fail "$name"; fi
        done <"${job_res[$key]}"
        unset "job_out[$key]" "job_res[$key]"
    }
    wait_one() {
        local done_pid
        wait -n -p done_pid
        running=$((running - 1))
        finish_file "$done_pid"
    }
    wait_all() { while [ "$running" -gt 0 ]; do wait_one; done; }
    n=0
    for f in tests/integration/test_*.sh; do
        selected=0
        for name in $(grep -oE '^test_[a-z0-9_]+' "$f"); do
            [[ $name =~ ${PGARENA_TESTS:-.} ]] && { selected=1; break; }
        done
        [ "$selected" -eq 1 ] || continue
        n=$((n + 1))
        res=$resdir/$n.res
        : >"$res"
        if [ "$jobs" -eq 1 ]; then
            wait_all
            run_file "$f" - "$res"
            job_out[alone]=- job_res[alone]=$res
            finish_file alone
        else
            while [ "$running" -ge "$jobs" ]; do wait_one; done
            run_file "$f" "$resdir/$n.out" "$res" &
            job_out[$!]=$resdir/$n.out job_res[$!]=$res
            running=$((running + 1))
        fi
    done
    wait_all
    if [ -s "$PGARENA_MATRIX" ]; then
        echo "== version matrix"
        sort -V "$PGARENA_MATRIX"
    fi
    rm -rf "$resdir"
fi

if [ "$failed" -gt 0 ]; then
    echo "failures: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

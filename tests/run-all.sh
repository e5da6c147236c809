#!/usr/bin/env bash
# The whole test suite: cmocka unit tests (normal and ASan+UBSan builds), then integration
# tests against a scratch PostgreSQL started here and always stopped. Ends with one line
# "N passed, N failed" and a non-zero exit on any failure.
# PGARENA_TESTS=REGEX runs only the integration tests whose name matches (default: all);
# PGARENA_NO_UNIT=1 skips the unit tests. Both are for development; make check runs all.
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

echo "== unit tests"
for t in build/tests/test_* build/asan/tests/test_*; do
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
cleanup() { sh "$top/tests/pg-harness.sh" stop "$pgdir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! PGARENA_TEST_CONN=$(sh tests/pg-harness.sh start "$pgdir"); then
    echo "could not start the test server"
    note_fail "pg-harness start"
else
    export PGARENA_TEST_CONN PGARENA_TEST_PGDIR=$pgdir
    export PGARENA=${PGARENA:-$top/build/asan/pgarena} PGARENA_TEST_TOP=$top
    for f in tests/integration/test_*.sh; do
        for name in $(grep -oE '^test_[a-z0-9_]+' "$f"); do
            [[ $name =~ ${PGARENA_TESTS:-.} ]] || continue
            log=$(mktemp /tmp/pgarena-testlog-XXXXXX)
            start=$(date +%s)
            ( set -e; . tests/integration/lib.sh; . "$f"; lib_setup; trap lib_teardown EXIT; "$name" ) >"$log" 2>&1
            rc=$?
            secs=$(( $(date +%s) - start ))
            if [ $rc -eq 0 ]; then
                note_pass
                printf 'ok     %-50s %3ds\n' "$name" "$secs"
            else
                note_fail "$name"
                printf 'FAIL   %-50s %3ds\n' "$name" "$secs"
                sed 's/^/    | /' "$log" | tail -n 40
            fi
            rm -f "$log"
        done
    done
fi

if [ "$failed" -gt 0 ]; then
    echo "failures: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

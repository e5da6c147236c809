# SIGINT/SIGTERM stop a run at once and still write its result file. The engine's side of a
# stop request is unit-tested (tests/unit/test_engine_stop.c); here, how soon is judged by the
# run's own progress lines, not by the shell's clock.

test_sigint_writes_incomplete_result() {
    db=$(newdb pga_int)
    pga init -s 1 -q "$db"
    pga_bg run -w select-only -c 2 -T 60 -P 1 -o r.json "$db"
    pid=$PID
    wait_progress 3
    kill -INT $pid
    # Counted once the signal is sent: a line printed in between counts as before it.
    n=$(grep -c '^progress:' "$T/err")
    pga_wait
    rc=$RC
    [ $rc -eq 1 ] || { cat "$T/err"; fail "exit status $rc after SIGINT, expected 1"; }
    # The run ends before its main thread's second tick after the signal: at most one more
    # progress line (the main thread prints one a second of the run's clock, one for all the
    # seconds a stall of the process took from it, so a slow machine does not add lines).
    after=$(($(grep -c '^progress:' "$T/err") - n))
    [ "$after" -le 1 ] || fail "$after progress lines after SIGINT: the run went on"
    grep -q 'cut short' "$T/err" || fail "no message about the run being cut short"
    grep -q '^transactions:' "$T/out" || fail "no summary printed"
    pyjson r.json 'd["complete"] is False and d["end_reason"] == "interrupted"'
    # Cut short after its third progress line: at least 3 intervals, and as many as its
    # duration, far below -T 60, holds (not a count of seconds: a stall lengthens the run).
    pyjson r.json 'd["summary"]["transactions"] > 0 and 3 <= len(d["intervals"]) <= int(d["summary"]["duration_s"]) + 2'
    pyjson r.json 'd["summary"]["duration_s"] < 60'
    ! ls r.json.tmp-* >/dev/null 2>&1 || fail "temporary file left behind"
}

test_sigterm_also_writes_result() {
    db=$(newdb pga_term)
    pga init -s 1 -q "$db"
    pga_bg run -w select-only -c 2 -T 60 -q -o r.json "$db"
    pid=$PID
    sleep 2
    kill -TERM $pid
    pga_wait
    rc=$RC
    [ $rc -eq 1 ] || fail "exit status $rc after SIGTERM, expected 1"
    pyjson r.json 'd["complete"] is False'
}

test_second_sigint_exits_at_once_without_partial_file() {
    db=$(newdb pga_int2)
    pga init -s 1 -q "$db"
    pga_bg run -w select-only -c 2 -T 60 -q -o r.json "$db"
    pid=$PID
    sleep 2
    kill -INT $pid
    kill -INT $pid
    pga_wait
    rc=$RC
    [ $rc -eq 1 ] || fail "exit status $rc after two SIGINTs, expected 1"
    ! ls r.json.tmp-* >/dev/null 2>&1 || fail "temporary file left behind"
    # Either the first interrupt got the file written, or nothing is there: never half a file.
    if [ -e r.json ]; then
        pyjson r.json 'd["format"] == "pgarena-result"'
    fi
}

# run-all: alone (a stop within 1.5 s: timing-sensitive)
# SIGINT/SIGTERM stop a run within a second and still write its result file.

test_sigint_writes_incomplete_result() {
    db=$(newdb pga_int)
    pga init -s 1 -q "$db"
    pga_bg run -w select-only -c 2 -T 60 -P 1 -o r.json "$db"
    pid=$PID
    wait_progress 3
    t0=$(date +%s%N)
    kill -INT $pid
    pga_wait
    rc=$RC
    t1=$(date +%s%N)
    [ $rc -eq 1 ] || { cat "$T/err"; fail "exit status $rc after SIGINT, expected 1"; }
    [ $(( (t1 - t0) / 1000000 )) -lt 1500 ] || fail "took $(( (t1 - t0) / 1000000 )) ms to stop"
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

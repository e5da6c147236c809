# pgarena calibrate: an A/A of one workload, sequential trials and a duet of the same wall time,
# and what they say about the machine: counts and relations, never timings.

test_calibrate_aa() {
    db=$(pgbench_db calib)
    pga calibrate "$db" -w select-only -c 1 --trials 2 -T 3 -q --json -o cal.json
    assert_rc 0
    # --json on stdout and -o FILE are the same figures.
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open("cal.json")); assert a == b' "$T/out" ||
        fail "--json and -o differ"
    pyjson cal.json 'd["format"] == "pgarena-calibrate" and d["trials"] == 2 and d["seconds"] == 3'
    # The machine: every interval of the 4 sequential runs and the 4 duet halves counted (3 s
    # each, 6 s each), none invented.
    pyjson cal.json 'd["machine"]["intervals"] >= 4 * 2 + 4 * 5 and d["machine"]["intervals"] <= 4 * 4 + 4 * 7'
    pyjson cal.json '0 <= d["machine"]["intervals_stalled"] <= d["machine"]["intervals"]'
    # Sequential: a spread, compare's A/A verdict, and a detectable change above the margin.
    pyjson cal.json 'd["sequential"]["tps"] > 0 and d["sequential"]["spread_pct"] >= 0'
    pyjson cal.json 'd["sequential"]["aa"]["verdict"] in ("no-meaningful-difference", "inconclusive", "better", "worse")'
    pyjson cal.json 'd["sequential"]["detectable_pct"] > d["margin_pct"]'
    # The duet: two trials of 6 s paired second by second; a duet of 12 s is under the
    # length rule's 60 s, so nothing inside 10 % is detectable, and 5 % needs 60 s or more.
    pyjson cal.json '8 <= d["duet"]["paired_seconds"] <= 12'
    pyjson cal.json 'd["duet"]["detectable_pct_same_time"] >= 10'
    pyjson cal.json 'd["duet"]["seconds_for_5pct"] is None or d["duet"]["seconds_for_5pct"] >= 60'
    pyjson cal.json 'd["duet"]["long_run_sd_pct"] >= 0 and d["duet"]["aa"]["ci_low"] <= d["duet"]["aa"]["ci_high"]'
    # Its sweeps are gone: nothing left behind in TMPDIR.
    ! ls "${TMPDIR:-/tmp}" | grep -q "^pgarena-calibrate\." || fail "calibrate left its sweeps behind"
    # The text says the same things.
    pga calibrate "$db" -w select-only -c 1 --trials 2 -T 3 -q
    assert_rc 0
    assert_out '^machine: [0-9]+ of [0-9]+ intervals client-stalled'
    assert_out '^sequential A/A, 2 trials of 3 s per side: '
    assert_out '^duet A/A, 2 trials of 6 s: [0-9.]+ paired seconds'
    assert_out '^  sequential, 2 trials of 3 s per side: '
    assert_out '^  duet of 3 s: none \(under 5 paired seconds\); of 12 s'
}

test_calibrate_refusals() {
    pga calibrate -t 10 "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err 'calibrate: -T SECONDS, not -t'
    pga calibrate -c 1,2 "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err 'calibrate: one -c, one -R and one -s'
    pga calibrate --setup "B=$CONN" "$CONN"
    assert_rc 2
    assert_one_error_line
    pga calibrate --trials 1 "$CONN"
    assert_rc 2
    assert_err 'invalid value for --trials'
    pga calibrate --report r.html "$CONN"
    assert_rc 2
    assert_err '^pgarena: calibrate: --report'
}

# `pgarena local start --bin DIR`: a scratch server from a given major's binaries (the cache of
# tools/pg/versions.sh), with data checksums off on every major, and status and stop with the
# binaries it was started with; two majors' servers compared in one sweep. A major not fetched
# says so ("major 18: unavailable (WHY)") and the test passes.

# local_bin_dir MAJOR: its bin directory, or the line saying why not and a non-zero status.
local_bin_dir() {
    local why
    if ! why=$(sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" bindir "$1" 2>&1 >/dev/null); then
        echo "major $1: unavailable (${why#pg-versions: "$1" unavailable: })"
        return 1
    fi
    sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" bindir "$1"
}

test_local_start_bin_18_runs() {
    local bin conn
    bin=$(local_bin_dir 18) || { echo "$bin"; return 0; }
    chmod 755 "$T" # the server runs as postgres when we are root
    pga local start --bin "$bin" --dir "$T/srv"
    assert_rc 0
    LIB_CLEANUP="${LIB_CLEANUP:-}; '$PGARENA' local stop --dir '$T/srv'"
    conn=$(cat "$T/out")
    [ "$(cat "$T/srv/pgarena.bindir")" = "$(cd "$bin" && pwd -P)" ] || fail "pgarena.bindir is not $bin"
    pga init -s 1 -q "$conn"
    assert_rc 0
    pga run -t 50 "$conn" -o r.json
    assert_rc 0
    # 18's initdb turns checksums on by default; the scratch server keeps every major's off.
    pyjson r.json "(d['complete'] and d['summary']['transactions'] == 50 and
        d['server']['version'].startswith('18') and
        d['server']['settings']['data_checksums'] == 'off' and
        d['server']['settings']['io_method'] == 'worker')"
    # status and stop use the 18 binaries the directory remembers, not the default ones.
    pga local status --dir "$T/srv"
    [ "$RC" -eq 0 ] && grep -qx "running: $conn" "$T/out" || fail "status: $(cat "$T/err")"
    pga local stop --dir "$T/srv"
    [ "$RC" -eq 0 ] && [ ! -e "$T/srv" ] || fail "stop left the server or its directory: $(cat "$T/err")"
    echo "major 18: ok"
}

test_local_start_bin_without_binaries() {
    mkdir "$T/empty"
    pga local start --bin "$T/empty" --dir "$T/srv"
    assert_rc 2
    assert_one_error_line
    assert_err 'no initdb, pg_ctl, postgres there'
    [ ! -e "$T/srv" ] || fail "a refused --bin created the directory"
}

# Issue 48's "is 18 faster than 16?" as docs/comparing.md shows it: two scratch servers of two
# majors, loaded alike, compared in one sweep with verdicts; every cell says its own major and
# data checksums off on both.
test_local_bin_sweep_two_majors() {
    local m bin conn16 conn18
    chmod 755 "$T"
    for m in 16 18; do
        bin=$(local_bin_dir "$m") || { echo "$bin"; return 0; }
        pga local start --bin "$bin" --dir "$T/pg$m"
        assert_rc 0
        LIB_CLEANUP="${LIB_CLEANUP:-}; '$PGARENA' local stop --dir '$T/pg$m'"
        eval "conn$m=\$(cat \"\$T/out\")"
        pga init -s 1 -q "$(cat "$T/out")"
        assert_rc 0
    done
    pga sweep --setup "pg16=$conn16" --setup "pg18=$conn18" -c 1 --trials 2 -T 1 -o sw
    assert_rc 0
    assert_out '^baseline pg16'
    assert_out '^ +1 \|.*(better|worse|no-meaningful-difference|inconclusive)'
    pyjson sw/sweep.json "(len(d['comparisons']) > 0 and
        all(c['verdict'] in ('better', 'worse', 'no-meaningful-difference', 'inconclusive')
            and c['baseline'] == 'pg16' and c['value'] == 'pg18' for c in d['comparisons']))"
    for m in 16 18; do
        pyjson "sw/pg$m-c1-t1.json" "(d['server']['version'].split('.')[0] == '$m' and
            d['server']['settings']['data_checksums'] == 'off')"
    done
}

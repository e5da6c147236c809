# `pgarena local start --bin DIR`: a scratch server from a given major's binaries (the cache of
# tools/pg/versions.sh), with data checksums off on every major, and status and stop with the
# binaries it was started with. A major not fetched says so ("major 18: unavailable (WHY)") and
# the test passes.

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

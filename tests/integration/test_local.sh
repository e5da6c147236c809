# The scratch server: local start|status|stop, and --local on run and init.

# A TMPDIR of the test's own, so that the scratch directories counted are this run's alone
# (other test files, run beside this one, make theirs in /tmp too). The server runs as postgres
# when we are root: it must reach the directory.
own_tmpdir() {
    chmod 755 "$T"
    mkdir -m 1777 "$T/tmp"
    export TMPDIR=$T/tmp
}

scratch_dirs() {
    ls -d "$TMPDIR"/pgarena-?????? 2>/dev/null | sort || true
}

test_local_start_status_stop() {
    chmod 755 "$T" # the server runs as postgres when we are root
    pga local start --dir "$T/srv"
    assert_rc 0
    conninfo=$(cat "$T/out")
    echo "$conninfo" | grep -q "host=$T/srv" || fail "conninfo does not point into the directory: $conninfo"
    [ "$(sql 'SELECT 42' "$conninfo")" = 42 ] || fail "cannot query the scratch server"
    # Only a unix socket: no TCP listener.
    [ "$(sql 'SHOW listen_addresses' "$conninfo")" = "" ] || fail "scratch server listens on TCP"
    pga local status --dir "$T/srv"
    assert_rc 0
    assert_out '^running: '
    pga local stop --dir "$T/srv"
    assert_rc 0
    [ ! -e "$T/srv" ] || fail "local stop left the directory"
    pga local status --dir "$T/srv"
    assert_rc 1
    assert_one_error_line
}

test_run_local_is_complete_and_cleans_up() {
    own_tmpdir
    pga run --local -w select-only -c 2 -j 2 -T 2 -q -o r.json
    assert_rc 0
    assert_out '^tps: '
    assert_out '^transactions: +[1-9]'
    pyjson r.json 'd["complete"] and d["summary"]["transactions"] > 0 and d["workload"]["scale"] == 1'
    [ -z "$(scratch_dirs)" ] || fail "run --local left a scratch directory behind: $(scratch_dirs)"
    ! pgrep -f "postgres -D $TMPDIR/pgarena-[A-Za-z0-9]{6}/data" >/dev/null || fail "a scratch server is still running"
}

test_run_local_interrupted_cleans_up() {
    own_tmpdir
    pga_bg run --local -w select-only -c 2 -T 60 -P 1 -o r.json
    pid=$PID
    # Interrupt once the measured part runs (its first progress line), however long the
    # scratch server took to start and load on a busy machine.
    for _ in $(seq 1 600); do
        grep -q '^progress: ' "$T/err" && break
        sleep 0.1
    done
    kill -INT $pid
    pga_wait
    rc=$RC
    [ $rc -eq 1 ] || { cat "$T/err"; fail "interrupted run --local exited $rc, expected 1"; }
    pyjson r.json 'd["complete"] is False and d["end_reason"] == "interrupted"'
    [ -z "$(scratch_dirs)" ] || fail "interrupted run --local left a scratch directory behind: $(scratch_dirs)"
}

# Faults: the server stops, restarts, hangs or refuses; the result file cannot be written;
# init is interrupted. Nothing measured is lost, and the run says what happened.
# Each test has a server of its own, since it stops or freezes it.

fault_server() {
    mkdir -p "$T/srv"
    chmod 755 "$T"
    FCONN=$(sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$T/srv")
    LIB_CLEANUP='sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" thaw "$T/srv"; sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" stop "$T/srv"'
    pga init -s 1 -q "$FCONN"
    assert_rc 0
}

harness() {
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" "$1" "$T/srv"
}

test_server_gone_for_good_cuts_the_run_short() {
    fault_server
    pga_bg run -w select-only -c 4 -j 2 -T 60 -P 1 -o r.json "$FCONN"
    # Halted once the measured part has run (a fixed sleep could halt a run still connecting
    # on a loaded machine).
    wait_progress 2
    harness halt
    pga_wait
    assert_rc 1
    # Not before its 10 s, counted in the run's own intervals: the 10 s go by on the clock
    # that cuts its intervals, so at least 9 whole ones without a transaction end it (however
    # long the halt itself took). That it gives up at 10 s is checked in virtual time
    # (test_engine_timing.c), and that it gave up at all by the end reason below, long before
    # -T 60.
    python3 - r.json <<'PY' || fail "gave up before 10 s of the run's own clock"
import json, sys
iv = json.load(open(sys.argv[1]))["intervals"]
empty = next(k for k in range(len(iv), 0, -1) if iv[k - 1]["transactions"] > 0)
print("gave up after %d intervals without a transaction" % (len(iv) - empty))
assert len(iv) - empty >= 9
PY
    pyjson r.json 'd["summary"]["duration_s"] < 60'
    assert_err 'server-lost'
    grep -q '^transactions:' "$T/out" || fail "no summary printed"
    pyjson r.json 'd["complete"] is False and d["end_reason"] == "server-lost"'
    pyjson r.json 'd["summary"]["errors"]["connection"] >= 1 and d["summary"]["transactions"] > 0'
    # The intervals show the run, then nothing.
    pyjson r.json 'd["intervals"][0]["transactions"] > 0 and d["intervals"][-1]["transactions"] == 0'
    pyjson r.json 'sum(i["failed"] for i in d["intervals"]) == d["summary"]["failed"]'
}

test_server_restart_clients_reconnect() {
    fault_server
    # Long enough that crash recovery (seconds on a loaded machine, more beside another test
    # file and a CPU hog) ends well before the run: 3 s of halt, then 15 s for the recovery
    # and the clients' reconnection, where an idle machine needs about one.
    pga_bg run -w select-only -c 4 -j 2 -T 20 -P 1 -o r.json "$FCONN"
    wait_progress 2
    harness halt
    sleep 3
    harness resume
    pga_wait
    assert_rc 0
    pyjson r.json 'd["complete"] is True and d["summary"]["errors"]["connection"] >= 1'
    # A gap after the first interval, and throughput back after it (counts: how much comes
    # back is the machine's).
    pyjson r.json 'any(i["transactions"] == 0 for i in d["intervals"][1:-1])'
    pyjson r.json 'sum(i["transactions"] for i in d["intervals"][[k for k, i in enumerate(d["intervals"]) if i["transactions"] == 0][-1]:]) > 0'
    pyjson r.json 'all(c["transactions"] > 0 for c in d["clients"])'
}

# freeze_for N: freeze the server once the background run (-P 1) has printed its first
# progress line, and thaw it once it has printed N more: the server is frozen for N - 1 s of
# the run's own clock at least, however slow this shell is, and the run goes on after.
freeze_for() {
    wait_progress 1
    harness freeze
    local seen
    seen=$(grep -c '^progress:' "$T/err" || true)
    wait_progress $((seen + $1))
    harness thaw
}

test_hung_server_timeouts_or_tail() {
    fault_server
    # The thaw comes about 5 s into each run (its first progress line and four more), the
    # shell's own delays after it: -T 12 leaves the run's last seconds to a thawed server.
    pga_bg run -w select-only -c 2 -T 12 -P 1 --timeout 1000 -o r1.json "$FCONN"
    freeze_for 4
    pga_wait
    assert_rc 0
    pyjson r1.json 'd["summary"]["errors"]["timeout"] >= 1 and d["complete"] is True'
    pyjson r1.json 'd["intervals"][-1]["transactions"] > 0'
    # Without --timeout the hang is in the latency tail.
    pga_bg run -w select-only -c 2 -T 12 -P 1 -o r2.json "$FCONN"
    freeze_for 4
    pga_wait
    assert_rc 0
    pyjson r2.json 'd["summary"]["latency_us"]["max"] >= 2500000 and d["summary"]["failed"] == 0'
}

test_more_clients_than_the_server_accepts() {
    fault_server
    pga run -w select-only -c 125 -j 2 -T 2 -q -o r.json "$FCONN"
    assert_rc 1
    assert_one_error_line
    assert_err 'max_connections = 120'
    [ ! -e r.json ] || fail "a result file was written for a run that never started"
}

# A server that accepts the connection and never answers (a python listener that reads
# nothing): the run's setup connection gives up (after 10 s, as the clients' connects do)
# with one error line, instead of hanging before the run. timeout(1) only catches a hang.
test_setup_connection_bounded() {
    mkfifo "$T/silent.port"
    python3 - >"$T/silent.port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
print(s.getsockname()[1], flush=True)
sys.stdout.close()
held = []
s.settimeout(1)
end = time.monotonic() + 90
while time.monotonic() < end:
    try:
        held.append(s.accept()[0])
    except socket.timeout:
        pass
PY
    LIB_CLEANUP="kill $!"
    read -r port <"$T/silent.port"
    PGA_WRAP="timeout 60" pga run -w select-only -T 1 -q -o r.json \
        "host=127.0.0.1 port=$port user=postgres dbname=postgres"
    assert_rc 1
    assert_one_error_line
    assert_err 'could not connect to server: .*timeout expired$'
    [ ! -e r.json ] || fail "a result file was written for a run that never started"
}

test_result_file_that_cannot_be_written() {
    pga run -w select-only -T 1 -q -o /dev/full "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err 'not a regular file'
    [ -c /dev/full ] || fail "/dev/full was replaced"
    pga run -w select-only -T 1 -q -o "$T/missing/r.json" "$CONN"
    assert_rc 2
    assert_one_error_line
    # A write that fails at the end (file size limit): the summary is printed, exit 1, and
    # neither the file nor a temporary one is left.
    db=$(newdb pga_efbig)
    pga init -s 1 -q "$db"
    PGA_WRAP="prlimit --fsize=1024" pga run -w select-only -c 2 -T 2 -q -o big.json "$db"
    assert_rc 1
    assert_out '^transactions: +[1-9]'
    assert_err 'cannot write result file'
    [ ! -e big.json ] || fail "a partial result file was left"
    ! ls big.json.tmp-* >/dev/null 2>&1 || fail "a temporary file was left"
}

test_sigint_during_init() {
    db=$(newdb pga_initint)
    pga_bg init -s 40 -j 2 "$db"
    # Interrupt once the load has visibly started.
    for _ in $(seq 1 100); do
        grep -q 'rows' "$T/err" && break
        sleep 0.05
    done
    kill -INT $PID
    pga_wait
    assert_rc 1
    assert_err 'interrupted'
    assert_err 'pgbench_'
    # The next init works, and pgbench runs on it.
    pga init -s 1 -q "$db"
    assert_rc 0
    [ "$(sql "SELECT count(*) FROM pgbench_accounts" "$db")" = 100000 ] || fail "init after an interrupted init is incomplete"
}

# frozen_run LIMIT ARGS...: a -T 4 run (ARGS added) whose server freezes after its first
# progress line and stays frozen; the run must end within LIMIT seconds of its scheduled end
# by its own clock (its progress lines, one a second of it while the engine waits, one for
# all the seconds a stall of the process took), with a valid result in r.json and its status
# in RC. The end's other parts (the sampler, the environment) are bounded by their own
# timeouts, which the callers' messages show; a run still there 20 s after that fails as hung.
frozen_run() {
    local limit=$1
    shift
    rm -f r.json
    pga_bg run -w select-only -c 2 -T 4 -P 1 -o r.json "$@" "$FCONN"
    wait_progress 1
    harness freeze
    local t0 waited=0
    t0=$(date +%s%N)
    # The end is at most 3 s after the first progress line: 3 + LIMIT, and a margin to tell a
    # slow end from a hang.
    while kill -0 "$PID" 2>/dev/null && [ "$waited" -lt $((3 + limit + 20)) ]; do
        sleep 0.5
        waited=$(( ($(date +%s%N) - t0) / 1000000000 ))
    done
    kill -0 "$PID" 2>/dev/null && { harness thaw; kill -KILL "$PID"; fail "the run still waits ${waited} s after its server froze"; }
    harness thaw
    pga_wait
    local lines
    lines=$(grep -c '^progress:' "$T/err" || true)
    echo "the run ended ${waited} s after its server froze, after $lines progress lines"
    [ "$lines" -le $((4 + limit)) ] || fail "$lines progress lines: the run waited past $((4 + limit)) s of its own clock"
    pyjson r.json 'd["summary"]["transactions"] > 0'
}

# A server that stops answering (SIGSTOP) mid-run and stays frozen past the run's end: the
# sampler, the environment capture and the run's end are bounded, the measured clients are
# not (a probe on a connection of pgarena's own tells a frozen server from a long statement).
test_frozen_server_ends_the_run() {
    fault_server
    frozen_run 20
    assert_rc 1
    assert_err 'the server does not answer'
    pyjson r.json 'd["complete"] is False and d["end_reason"] == "server-lost"'
    # With --timeout the clients give up on their own, their timeouts counted; the server
    # that no longer answers afterwards makes the result incomplete, with exit 1.
    frozen_run 11 --timeout 1000
    assert_rc 1
    assert_err 'could not read server statistics: .*timeout expired'
    assert_err 'the server stopped answering during the run: the result is incomplete'
    pyjson r.json 'd["complete"] is False and d["end_reason"] == "server-lost" and d["summary"]["errors"]["timeout"] >= 1'
}

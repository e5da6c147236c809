# The Windows build (issue 38): `make windows` makes build/win64/pgarena.exe and the zip, which
# runs under Wine against a server of the tests' own over loopback TCP. Where mingw-w64, Wine
# or the pinned inputs cannot be had (no root, no network), these tests say why and skip.
# make check builds the zip and starts Wine in the prefix first (tools/win64/check-prep.sh),
# so that this file can run beside another one: here make windows finds it all made.

WIN_TOP=$PGARENA_TEST_TOP
export WINEPREFIX=$WIN_TOP/build/win64/wineprefix WINEDEBUG=-all

# Build the zip (tools/win64/deps.sh installs and fetches what it needs) and unpack it into
# $T/win; returns 1 (after saying why) when it cannot be built here.
win_build() {
    if ! make -s -j2 -C "$WIN_TOP" windows >"$T/build.log" 2>&1; then
        if grep -q 'windows: unavailable:' "$T/build.log"; then
            echo "SKIPPED: make windows cannot get its inputs here:"
            grep -A1 'windows: unavailable:' "$T/build.log"
            return 1
        fi
        cat "$T/build.log" >&2
        fail "make windows failed"
    fi
    WINE=$(command -v wine64 || echo /usr/lib/wine/wine64)
    [ -x "$WINE" ] || { echo "SKIPPED: wine64 is not installed"; return 1; }
    zip=$(ls -t "$WIN_TOP"/build/pgarena-*-win64.zip | head -1)
    unzip -q "$zip" -d "$T/unz"
    mv "$T"/unz/pgarena-*-win64 "$T/win"
    # Wine's first start in a prefix speaks on stderr: not in a test's own output. A start while
    # the previous test's wineserver is still going away can fail (seen once in CI): three tries.
    local try
    for try in 1 2 3; do
        "$WINE" "$T/win/pgarena.exe" --version >/dev/null 2>&1 && break
        [ "$try" -lt 3 ] || fail "pgarena.exe does not start"
        sleep 2
    done
    return 0
}

# A server of the test's own listening on loopback TCP: its conninfo in $TCP.
win_server() {
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p "$T/srv"
    chmod 755 "$T"
    PGARENA_HARNESS_TCP_PORT=$port sh "$WIN_TOP/tests/pg-harness.sh" start "$T/srv" >/dev/null
    LIB_CLEANUP='sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" stop "$T/srv"'
    TCP="host=127.0.0.1 port=$port user=postgres dbname=postgres"
}

# wpga ARGS...: pga with the Windows binary under Wine.
wpga() {
    PGA_WRAP=$WINE PGARENA=$T/win/pgarena.exe pga "$@"
}

# The zip holds a 64-bit PE whose imports are Windows' own or in the zip, and it runs.
test_windows_zip_and_imports() {
    win_build || return 0
    file "$T/win/pgarena.exe" | grep -q 'PE32+ executable (console) x86-64' ||
        fail "not a PE32+ x86-64 console program: $(file "$T/win/pgarena.exe")"
    sh "$WIN_TOP/tools/win64/imports.sh" "$T/win" || fail "imports outside the zip"
    for f in LICENSE README-windows.txt libpq.dll; do
        [ -f "$T/win/$f" ] || fail "the zip has no $f"
    done
    grep -q 'OpenSSL' "$T/win/LICENSE" && grep -q 'jansson' "$T/win/LICENSE" ||
        fail "LICENSE lacks the third-party notices"
    wpga --version
    assert_rc 0
    # One line, ended by LF alone: stdout is in binary mode.
    [ "$(wc -l <out)" -eq 1 ] && grep -qE '^pgarena [0-9a-z.-]+$' out || fail "--version: $(od -c out)"
}

# pgarena.exe init and run against a Linux server over loopback TCP; its result file is read by
# the Linux build's show, a Linux result by its show; --local and `pgarena local` are refused.
test_windows_run_against_server() {
    win_build || return 0
    win_server
    tcp=$TCP
    wpga init -s 1 -q "$tcp"
    assert_rc 0
    [ "$(sql "SELECT count(*) FROM pgbench_accounts" "$tcp")" = 100000 ] ||
        fail "init did not load 100000 accounts"
    wpga run -w select-only -M prepared -c 2 -j 2 -t 40 -q -o w.json "$tcp"
    assert_rc 0
    pyjson w.json 'd["summary"]["transactions"] == 80 and d["summary"]["failed"] == 0'
    pyjson w.json 'd["client"]["os"].startswith("Windows ")'
    # -R: the schedule as data (every transaction started, lag recorded), not wall-clock lag.
    wpga run -w simple-update -R 50 -c 2 -j 1 -t 10 -q -o r.json "$tcp"
    assert_rc 0
    pyjson r.json 'd["summary"]["transactions"] == 20 and d["summary"]["failed"] == 0'
    [ "$(sql "SELECT count(*) FROM pgbench_history" "$tcp")" = 20 ] ||
        fail "the -R run's 20 transactions did not insert 20 history rows"
    # An idle open-loop run leaves the client idle: timed waits on condition variables end at
    # their deadlines (winpthreads takes them on the wall clock) instead of at once, which
    # spun the main and sampler threads (0.3 cores at 20 tps under Wine).
    wpga run -w select-only -R 20 -c 2 -j 2 -T 2 -q -o idle.json "$tcp"
    assert_rc 0
    pyjson idle.json 'd["client_cpu"]["user"] + d["client_cpu"]["system"] < 0.2'
    wpga run -w tpcb-like -c 2 -j 1 -T 2 -q -o t.json "$tcp"
    assert_rc 0
    pga show t.json
    assert_rc 0
    assert_out '^workload: +tpcb-like'
    assert_out '^client: .*Windows '
    # A Linux result read by the Windows show.
    pga run -w select-only -c 1 -j 1 -t 20 -q -o l.json "$tcp"
    assert_rc 0
    wpga show l.json
    assert_rc 0
    assert_out '^transactions: +20'
    wpga run --local -T 1
    assert_rc 2
    assert_one_error_line
    assert_err 'not available on Windows'
    wpga local start
    assert_rc 2
    assert_err 'not available on Windows'
}

# SIGINT to the Wine process, which Wine turns into CTRL_C_EVENT: the console handler stops the
# run, which writes an incomplete result and exits 1.
test_windows_ctrl_c_writes_incomplete_result() {
    win_build || return 0
    win_server
    wpga init -s 1 -q "$TCP"
    assert_rc 0
    PGA_WRAP=$WINE PGARENA=$T/win/pgarena.exe pga_bg run -w select-only -c 2 -j 2 -T 60 -P 1 \
        -o r.json "$TCP"
    wait_progress 2
    kill -INT $PID
    pga_wait
    [ "$RC" -eq 1 ] || { cat "$T/err"; fail "exit status $RC after Ctrl-C, expected 1"; }
    grep -q 'cut short' "$T/err" || fail "no message about the run being cut short"
    pyjson r.json 'd["complete"] is False and d["end_reason"] == "interrupted"'
    pyjson r.json 'd["summary"]["transactions"] > 0 and d["summary"]["duration_s"] < 60'
}

# The engine's fake-driver tests built for Windows (the WSAPoll backend of the event wait, the
# fake connections' sockets loopback pairs) pass under Wine.
test_windows_engine_unit_tests() {
    win_build || return 0
    make -s -j2 -C "$WIN_TOP" windows-tests >"$T/build.log" 2>&1 || { cat "$T/build.log" >&2; fail "make windows-tests failed"; }
    n=0
    for t in "$WIN_TOP"/build/win64/tests/test_engine_*.exe; do
        WINEPATH=$T/win "$WINE" "$t" >"$T/unit.out" 2>&1 || { cat "$T/unit.out" >&2; fail "$(basename "$t") failed under Wine"; }
        grep -q '\[  PASSED  \]' "$T/unit.out" || { cat "$T/unit.out" >&2; fail "$(basename "$t"): no PASSED line"; }
        n=$((n + 1))
    done
    [ "$n" -ge 10 ] || fail "only $n engine test programs"
}

# A two-setup sweep by pgarena.exe leaves its result files and sweep.json (no journal behind:
# Windows cannot remove an open file), which the Linux report reads; compare of a Windows-client
# run against a Linux-client run of the same workload gives verdicts; a script with a UTF-8
# byte-order mark and CRLF line ends runs.
test_windows_sweep_compare_and_script() {
    win_build || return 0
    win_server
    wpga init -s 1 -q "$TCP"
    assert_rc 0
    wpga sweep --setup a="$TCP" --setup b="$TCP application_name=b" -w select-only -c 1,2 -T 1 \
        --trials 1 -o sw
    assert_rc 0
    [ "$(ls sw | sort | tr '\n' ' ')" = "a-c1-t1.json a-c2-t1.json b-c1-t1.json b-c2-t1.json sweep.json " ] ||
        fail "the sweep's directory: $(ls sw)"
    pga report sw -o sw.html
    assert_rc 0
    wpga run -w select-only -c 1 -j 1 -T 2 -q -o w.json "$TCP"
    assert_rc 0
    pga run -w select-only -c 1 -j 1 -T 2 -q -o l.json "$TCP"
    assert_rc 0
    pga compare w.json l.json
    assert_rc 0
    assert_out 'tps'
    assert_out 'no meaningful difference|faster|slower|inconclusive|better|worse'
    printf '\357\273\277\\set x 2\r\nSELECT :x;\r\n' >bom.sql
    wpga run -f bom.sql -c 1 -j 1 -t 10 -q -o s.json "$TCP"
    assert_rc 0
    pyjson s.json 'd["summary"]["transactions"] == 10 and d["summary"]["failed"] == 0'
}

# TLS with sslmode=verify-full against the tests' own CA, and SCRAM with the password from
# PGPASSWORD and from a passfile, by pgarena.exe (libpq.dll and OpenSSL 3 of the zip); a wrong
# password is a runtime error.
test_windows_tls_and_scram() {
    win_build || return 0
    chmod 755 "$T"
    LIB_CLEANUP="sh '$WIN_TOP/tests/pg-servers.sh' stop '$T/tls'"
    tcp=$(PGA_TEST_PASSWORD=Win-Scram-7 sh "$WIN_TOP/tests/pg-servers.sh" start "$T/tls" ssl scram)
    read -r _ port <"$T/tls/listen"
    pga init -s 1 -q "host=$T/tls port=$port user=postgres dbname=postgres"
    assert_rc 0
    PGPASSWORD=Win-Scram-7 wpga run -w select-only -c 2 -j 1 -T 1 -q -o env.json "$tcp"
    assert_rc 0
    pyjson env.json 'd["server"]["ssl"] is True and d["summary"]["transactions"] > 0'
    printf '127.0.0.1:*:*:postgres:Win-Scram-7\n' >"$T/pf"
    wpga run -w select-only -c 2 -j 1 -T 1 -q -o pf.json "$tcp passfile=$T/pf"
    assert_rc 0
    pyjson pf.json 'd["server"]["ssl"] is True and d["summary"]["transactions"] > 0'
    PGPASSWORD=wrong wpga run -w select-only -c 1 -j 1 -T 1 -q -o bad.json "$tcp"
    assert_rc 1
    assert_err 'password authentication failed'
    ! grep -rq Win-Scram-7 "$T"/*.json "$T/out" "$T/err" || fail "the password appears in output"
}

# replay run of a capture (tests/tools/mkcapture's) by pgarena.exe: every statement of both
# sessions on the server.
test_windows_replay_run() {
    win_build || return 0
    [ -x "$WIN_TOP/build/tests/mkcapture" ] || make -s -C "$WIN_TOP" build/tests/mkcapture >/dev/null ||
        fail "cannot build tests/tools/mkcapture"
    win_server
    sql "CREATE TABLE win_log (s int, n int)" "$TCP"
    {
        for s in 0 1; do
            printf 'S\t%d\t%d\tpostgres\tpostgres\n' $s $((s * 100))
            for n in 1 2 3 4 5; do
                printf 'Q\t%d\t%d\tsimple\t\t10\tok\t\t-1\t0\tINSERT INTO win_log VALUES (%d, %d)\n' \
                    $s $((s * 100 + n * 1000)) $s $n
            done
            printf 'E\t%d\t%d\n' $s $((s * 100 + 9000))
        done
    } | "$WIN_TOP/build/tests/mkcapture" cap.pgc || fail "mkcapture failed"
    wpga replay run cap.pgc "$TCP" --speed max -q -o rep.json
    assert_rc 0
    pyjson rep.json 'd["replay"]["sessions"] == 2 and d["replay"]["sent"] == 10'
    [ "$(sql "SELECT count(*) || ' ' || sum(n) FROM win_log" "$TCP")" = "10 30" ] ||
        fail "the replay's 10 inserts are not all on the server"
}

# --metrics-listen by pgarena.exe (its server on Winsock and WSAPoll): a scrape during the run
# answers /metrics with the run's series, another path 404; a second run on the port the first
# listens on is refused as on Linux (SO_EXCLUSIVEADDRUSE: Windows' SO_REUSEADDR would share
# it). sweep --duet and calibrate (a duet's halves are child processes) are refused with one
# line and exit 2.
test_windows_metrics_listen_and_refusals() {
    win_build || return 0
    win_server
    wpga init -s 1 -q "$TCP"
    assert_rc 0
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    PGA_ERR=$T/bg.err PGA_OUT=$T/bg.out PGA_WRAP=$WINE PGARENA=$T/win/pgarena.exe \
        pga_bg run -w select-only -c 1 -j 1 -T 8 -q --metrics-listen "$port" -o r.json "$TCP"
    bg=$PID
    for _ in $(seq 1 300); do
        curl -sf "http://127.0.0.1:$port/metrics" -o m.txt && break
        sleep 0.1
    done
    grep -q '^pgarena_transactions_total{run_id="' m.txt || fail "no /metrics answer: $(cat m.txt)"
    wpga run -T 1 --metrics-listen "$port" -o r2.json "$TCP"
    assert_rc 2
    assert_one_error_line
    assert_err "--metrics-listen $port: cannot listen: Address already in use"
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/other")
    [ "$code" = 404 ] || fail "/other answered $code, expected 404"
    pga_wait "$bg"
    [ "$RC" -eq 0 ] || { cat "$T/bg.err"; fail "the run with --metrics-listen exited $RC"; }
    pyjson r.json 'd["complete"] is True and d["summary"]["transactions"] > 0'
    wpga sweep --duet --setup a="$TCP" --setup b="$TCP application_name=b" -T 1 -o sw
    assert_rc 2
    assert_one_error_line
    assert_err '^pgarena: sweep: --duet is not available on Windows'
    [ ! -e sw ] || fail "sweep --duet refused on Windows left a directory"
    wpga calibrate -T 1 "$TCP"
    assert_rc 2
    assert_one_error_line
    assert_err '^pgarena: calibrate: not available on Windows'
}

# Arguments and paths outside ASCII (and outside Windows' ANSI code page): a script and a
# result file in "résultats-日本", given on the command line (Wine hands the program the
# command line in UTF-16; pgarena takes it with CommandLineToArgvW and opens files with the
# wide-character calls). The Linux show reads the result, the Windows history lists the
# directory. stdout is in binary mode: sweep --json piped is byte for byte the Linux build's
# for the same sweep (no CR), show --csv the same bytes as the Linux show's (RFC 4180's CR LF,
# not the CR CR LF of a console's text mode).
test_windows_paths_outside_ascii_and_binary_stdout() {
    win_build || return 0
    win_server
    export LC_ALL=C.UTF-8 # the locale Wine decodes the Unix arguments in
    d="résultats-日本"
    mkdir "$d"
    printf '\\set x 3\nSELECT :x;\n' >"$d/scrïpt.sql"
    wpga run -f "$d/scrïpt.sql" -c 1 -j 1 -t 10 -q -o "$d/rés.json" "$TCP"
    assert_rc 0
    [ -f "$d/rés.json" ] || fail "no result file in $d: $(ls "$d")"
    assert_out "^result: +$d/rés.json"
    pga show "$d/rés.json"
    assert_rc 0
    assert_out '^transactions: +10'
    wpga history "$d"
    assert_rc 0
    assert_out '\(1 run\)'
    wpga show --csv "$d/rés.json"
    assert_rc 0
    mv out w.csv
    pga show --csv "$d/rés.json"
    assert_rc 0
    ! grep -q $'\r\r' w.csv || fail "show --csv by pgarena.exe has CR CR LF"
    cmp -s w.csv out || fail "show --csv differs between the builds: $(diff w.csv out | head -5)"
    wpga sweep "$TCP" -f "$d/scrïpt.sql" -c 1,2 -T 1 --trials 1 -q --json -o "$d/sw"
    assert_rc 0
    mv out w.out
    [ -s w.out ] || fail "sweep --json printed nothing"
    # The same command (its arguments reached pgarena.exe intact) resumes the sweep: all done.
    pga sweep "$TCP" -f "$d/scrïpt.sql" -c 1,2 -T 1 --trials 1 -q --json -o "$d/sw"
    assert_rc 0
    [ "$(ls "$d/sw" | sort | tr '\n' ' ')" = "default-c1-t1.json default-c2-t1.json sweep.json " ] ||
        fail "the sweep's directory: $(ls "$d/sw")"
    ! grep -q $'\r' w.out || fail "sweep --json by pgarena.exe has CR"
    cmp -s w.out out || fail "sweep --json differs between the builds: $(diff w.out out | head -5)"
}

# pgarena.exe with -M extended, -C (a new connection, so a new backend, for every
# transaction: counted on the server) and -l (the log has a line per transaction); its results
# in a directory read by its history and stored by its store (rows counted on the server); a
# run split over a Linux agent and a Windows one, merged by the Linux agent.
test_windows_connect_logs_history_store_agents() {
    win_build || return 0
    win_server
    wpga init -s 1 -q "$TCP"
    assert_rc 0
    sql "CREATE TABLE win_backends (pid int, started timestamptz)" "$TCP"
    printf 'INSERT INTO win_backends SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid();\n' >be.sql
    mkdir res
    wpga run -f be.sql -M extended -C -c 2 -j 1 -t 15 -l --log-prefix res/wl -q -o res/c.json "$TCP"
    assert_rc 0
    pyjson res/c.json 'd["summary"]["transactions"] == 30 and d["options"]["protocol"] == "extended"'
    [ "$(sql "SELECT count(DISTINCT (pid, started)) || ' ' || count(*) FROM win_backends" "$TCP")" = "30 30" ] ||
        fail "-C: not one backend per transaction: $(sql "SELECT count(DISTINCT (pid, started)), count(*) FROM win_backends" "$TCP")"
    set -- res/wl.*
    [ $# -eq 1 ] && [ -f "$1" ] || fail "-l wrote no single log file: $(ls res)"
    [ "$(wc -l <"$1")" -eq 30 ] || fail "-l: $(wc -l <"$1") log lines for 30 transactions"
    wpga run -w select-only -M extended -c 1 -j 1 -t 20 -q -o res/s.json "$TCP"
    assert_rc 0
    wpga history res
    assert_rc 0
    assert_out '^series 1: .*\(1 run\)'
    assert_out '^series 2: .*\(1 run\)'
    wpga store res --into "$TCP"
    assert_rc 0
    assert_out 'stored: +2 runs'
    [ "$(sql "SELECT count(*) FROM pgarena_results.runs" "$TCP")" = 2 ] || fail "store: not 2 rows"
    # Agents: index 0 on Linux merges, index 1 is pgarena.exe.
    PGA_OUT=$T/out0 PGA_ERR=$T/err0 pga_bg run "$TCP" -S -c 2 -T 2 --agents 2 --agent-index 0 \
        --run-id win-agents -q -o a0.json --merged m.json
    a0=$PID
    wpga run "$TCP" -S -c 2 -T 2 --agents 2 --agent-index 1 --run-id win-agents -q -o a1.json
    assert_rc 0
    pga_wait "$a0"
    [ "$RC" -eq 0 ] || { cat "$T/err0"; fail "the Linux agent exited $RC"; }
    pyjson a1.json 'd["client"]["os"].startswith("Windows ") and d["agent"]["index"] == 1'
    pyjson m.json '[a["index"] for a in d["agents"]] == [0, 1] and d["summary"]["transactions"] == sum(a["transactions"] for a in d["agents"]) > 0'
}

# Bad input to pgarena.exe: one line on stderr and exit 2 for a script with a syntax error
# (file:line:column) and an unknown option; a CONN nothing listens on or libpq refuses exits 1
# with one line, as on Linux.
test_windows_bad_input() {
    win_build || return 0
    printf 'SELECT 1;\n\\set x 1 +\n' >bad.sql
    down="host=127.0.0.1 port=1 user=postgres dbname=postgres connect_timeout=5"
    wpga run -f bad.sql -t 1 "$down"
    assert_rc 2
    assert_one_error_line
    assert_err '^pgarena: bad\.sql:2:11: unexpected end of expression'
    wpga run --frobnicate "$down"
    assert_rc 2
    assert_one_error_line
    assert_err "unknown option '--frobnicate'"
    wpga run -t 1 -q "$down"
    assert_rc 1
    assert_one_error_line
    assert_err '^pgarena: could not connect to server: .*127\.0\.0\.1.*port 1'
    wpga run -t 1 -q "nosuchkey=1"
    assert_rc 1
    assert_one_error_line
    assert_err 'invalid connection option "nosuchkey"'
}

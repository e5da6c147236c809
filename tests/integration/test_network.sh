# Networks that misbehave: added latency and a partition through a delaying proxy written for
# the tests (tests/delay-proxy.py), and a silent peer (loopback down inside a network
# namespace of the test's own) noticed through the TCP keepalive defaults.

net_server() {
    chmod 755 "$T"
    ps="$PGARENA_TEST_TOP/tests/pg-servers.sh"
    LIB_CLEANUP="sh '$ps' stop '$T/srv'"
    TCP=$(sh "$ps" start "$T/srv")
    read -r _ PORT <"$T/srv/listen"
    pga init -s 1 -q "host=$T/srv port=$PORT user=postgres dbname=postgres"
    assert_rc 0
}

# proxy DELAY_MS: start the proxy in front of the server; PROXY is its conninfo, PROXY_PID
# its process. It stops by itself within 60 s whatever happens.
proxy() {
    mkfifo "$T/proxy.port"
    python3 "$PGARENA_TEST_TOP/tests/delay-proxy.py" 127.0.0.1 "$PORT" --delay-ms "$1" \
        --max-seconds 60 >"$T/proxy.port" 2>"$T/proxy.err" &
    PROXY_PID=$!
    LIB_CLEANUP="kill $PROXY_PID; $LIB_CLEANUP"
    read -r pport <"$T/proxy.port"
    PROXY="host=127.0.0.1 port=$pport user=postgres dbname=postgres"
}

# p50 and min latency of a result, in microseconds.
lat() {
    python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["summary"]["latency_us"]; print(l["p50"], l["min"])' "$1"
}

# noticed RESULT WHAT MIN_S: the first failures came MIN_S seconds or more after the start of
# the first interval without transactions (a stall of this VM's CPU only delays them: no upper
# bound; how soon a timeout notices is checked in virtual time, test_engine_time.c), and
# transactions came again after them; prints the intervals and the time it took.
noticed() {
    python3 - "$@" <<'PY' || fail "$2 noticed too early or too late"
import json, sys
iv = json.load(open(sys.argv[1]))["intervals"]
print("intervals (t_s, transactions, failed):", [(i["t_s"], i["transactions"], i["failed"]) for i in iv])
stalled = min(k for k, i in enumerate(iv) if i["transactions"] == 0)
first_fail = min(k for k, i in enumerate(iv) if i["failed"] > 0)
took = iv[first_fail]["t_s"] - (iv[stalled]["t_s"] - iv[stalled]["duration_s"])
print(f"{sys.argv[2]}: transactions stopped in the interval ending {iv[stalled]['t_s']} s, "
      f"first failures in the one ending {iv[first_fail]['t_s']} s: noticed within {took:.0f} s")
sys.exit(0 if first_fail >= stalled - 1 and float(sys.argv[3]) <= took and
         sum(i["transactions"] for i in iv[first_fail + 1:]) > 0 else 1)
PY
}

test_added_latency_shows_in_the_figures() {
    net_server
    proxy 5
    pga run -w select-only -M prepared -c 2 -T 2 -q -o direct.json "$TCP"
    assert_rc 0
    pga run -w select-only -M prepared -c 2 -T 2 -q -o proxied.json "$PROXY"
    assert_rc 0
    read -r p50d mind <<EOF
$(lat direct.json)
EOF
    read -r p50p minp <<EOF
$(lat proxied.json)
EOF
    echo "p50 direct $p50d us, through the 5 ms proxy $p50p us: +$((${p50p%.*} - ${p50d%.*})) us"
    # One round trip per transaction, each held 5 ms by the proxy: no transaction is faster.
    pyjson proxied.json 'd["summary"]["latency_us"]["min"] >= 5000 and d["summary"]["failed"] == 0'
    pyjson direct.json "d['summary']['latency_us']['min'] < $minp"
    # ... and the whole distribution moved: above the proxy's 5 ms (a floor a stall cannot
    # lower) and above the direct one's, in every interval that has transactions.
    pyjson proxied.json "d['summary']['latency_us']['p50'] >= 5000 and d['summary']['latency_us']['p50'] > $p50d"
    pyjson proxied.json 'all(i["latency_us"]["p50"] >= 5000 for i in d["intervals"] if i["transactions"] > 0)'
}

test_partition_ends_in_timeouts_and_reconnects() {
    net_server
    proxy 0
    pga_bg run -w select-only -c 2 -j 2 -T 8 --timeout 500 -P 1 -o r.json "$PROXY"
    wait_progress 2
    kill -USR1 $PROXY_PID # partition
    # healed after 3 more progress lines: 3 s of the run's own clock, however slow this shell
    wait_progress $(($(grep -c '^progress:' "$T/err") + 3))
    kill -USR2 $PROXY_PID # healed
    pga_wait
    assert_rc 0
    pyjson r.json 'd["complete"] is True and d["summary"]["errors"]["timeout"] >= 1'
    # The gap, then transactions again on new connections.
    pyjson r.json 'min(i["transactions"] for i in d["intervals"][1:-1]) == 0'
    # Noticed after the partition: --timeout (0.5 s) plus the cancel's own timeout (0.5 s
    # more) is test_engine_time.c's (test_timeout_unanswered_drops_connection).
    noticed r.json partition 0
}

# A partition that also stops the kernel's acknowledgements: the whole test runs in a network
# namespace of its own, whose loopback the test sets down. Without --timeout, only the TCP
# keepalive / tcp_user_timeout defaults (about 10 s) can notice it.
test_silent_peer_noticed_without_timeout() {
    if ! unshare -n true 2>/dev/null; then
        echo "no network namespaces here (unshare -n failed): nothing to test"
        return 0
    fi
    chmod 755 "$T"
    ps="$PGARENA_TEST_TOP/tests/pg-servers.sh"
    LIB_CLEANUP="sh '$ps' stop '$T/srv'"
    cat >ns.sh <<EOF
set -e
ip link set lo up
tcp=\$(sh '$ps' start '$T/srv')
read -r _ port <'$T/srv/listen'
# lib.sh's helpers do not reach into the namespace: the sanitizer check runs afterwards.
'$PGARENA' init -s 1 -q "host=$T/srv port=\$port user=postgres dbname=postgres" 2>'$T/init.err'
'$PGARENA' run -w select-only -c 2 -j 2 -T 24 -P 1 -o r.json "\$tcp" >'$T/out' 2>'$T/err' &
pid=\$!
until [ "\$(grep -c '^progress:' '$T/err')" -ge 2 ] || ! kill -0 \$pid; do sleep 0.1; done
ip link set lo down
date +%s.%N >down.t
# Up again once the run has noticed (a progress line with failures), however long it took:
# the rest of the run is for the clients to come back.
until grep -qE '^progress: .*, [1-9][0-9]* failed' '$T/err' || ! kill -0 \$pid; do sleep 0.2; done
ip link set lo up
set +e
wait \$pid
echo \$? >rc
EOF
    unshare -n sh ns.sh
    RC=$(cat rc)
    pga_check_report "$T/init.err" 0 "pgarena init in the namespace"
    pga_check_report "$T/err" "$RC" "pgarena run in the namespace"
    assert_rc 0
    pyjson r.json 'd["complete"] is True and d["summary"]["errors"]["connection"] >= 1'
    noticed r.json "silent peer" 8
}

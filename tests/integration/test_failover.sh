# High availability: a primary and a streaming standby (pg_basebackup -R) on two loopback
# addresses; the run connects through the multi-host list with target_session_attrs and
# survives the primary's crash and the standby's promotion.

fo_servers() {
    chmod 755 "$T"
    ps="$PGARENA_TEST_TOP/tests/pg-servers.sh"
    LIB_CLEANUP="sh '$ps' stop '$T/standby'; sh '$ps' stop '$T/primary'"
    sh "$ps" start "$T/primary" >/dev/null
    read -r _ PPORT <"$T/primary/listen"
    pga init -s 1 -q "host=$T/primary port=$PPORT user=postgres dbname=postgres"
    assert_rc 0
    sh "$ps" standby "$T/primary" "$T/standby" addr=127.0.0.2 >/dev/null
    read -r _ SPORT <"$T/standby/listen"
    STANDBY_LOCAL="host=$T/standby port=$SPORT user=postgres dbname=postgres"
    HA="host=127.0.0.1,127.0.0.2 port=$PPORT,$SPORT user=postgres dbname=postgres"
}

# Multi-host lists: libpq moves on to the next host or address (a new socket, often with the
# same fd number) until one fits target_session_attrs.
check_multi_host() {
    # The standby first: libpq moves on to the next host (a new socket) until one takes writes.
    pga run -w tpcb-like -c 2 -T 1 -q -o m1.json \
        "host=127.0.0.2,127.0.0.1 port=$SPORT,$PPORT user=postgres dbname=postgres target_session_attrs=read-write"
    assert_rc 0
    pyjson m1.json 'd["summary"]["transactions"] > 0 and d["summary"]["failed"] == 0'
    # A host that refuses first, then the standby for a read-only run.
    port0=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" port)
    pga run -w select-only -c 2 -T 1 -q -o s.json \
        "host=127.0.0.1,127.0.0.2 port=$port0,$SPORT user=postgres dbname=postgres target_session_attrs=standby"
    assert_rc 0
    pyjson s.json 'd["summary"]["transactions"] > 0 and d["summary"]["failed"] == 0'
}

test_failover_to_promoted_standby() {
    fo_servers
    check_multi_host
    before=$(sql "SELECT count(*) FROM pgbench_history" "$STANDBY_LOCAL")
    # The primary is halted about 2 s into the run and the standby promoted 2 s of its clock
    # later; the promotion and the clients' reconnection take a second on an idle machine and
    # several beside other tests and a CPU hog: -T 18 leaves them 14 s, and a run that never
    # finds the promoted standby still shows no transaction after its gap.
    pga_bg run -w tpcb-like -c 4 -j 2 -T 18 -P 1 -o r.json "$HA target_session_attrs=read-write"
    wait_progress 2
    sh "$ps" halt "$T/primary"
    # Two progress lines without any primary (two seconds of the run's own clock, however
    # slow this shell), so at least one whole 1 s interval sees nothing.
    wait_progress $(($(grep -c '^progress:' "$T/err") + 2))
    sh "$ps" promote "$T/standby"
    pga_wait
    assert_rc 0
    pyjson r.json 'd["complete"] is True and d["end_reason"] == "finished"'
    pyjson r.json 'd["summary"]["errors"]["connection"] >= 1'
    pyjson r.json 'd["summary"]["failed"] == d["summary"]["errors"]["connection"]'
    # The gap, then transactions again (after the gap, below: not in a given interval, which a
    # stall of the machine can empty).
    pyjson r.json 'min(i["transactions"] for i in d["intervals"][1:-1]) == 0'
    # Server side: the promoted standby took the transactions after the gap.
    n=$(($(sql "SELECT count(*) FROM pgbench_history" "$STANDBY_LOCAL") - before))
    [ "$(sql "SELECT pg_is_in_recovery()" "$STANDBY_LOCAL")" = f ] || fail "standby not promoted"
    pyjson r.json "(lambda iv: sum(i['transactions'] for i in iv[[k for k, i in enumerate(iv) if i['transactions'] == 0][-1]:]))(d['intervals']) <= $n"
    pyjson r.json "(lambda iv: sum(i['transactions'] for i in iv[[k for k, i in enumerate(iv) if i['transactions'] == 0][-1]:]))(d['intervals']) > 0"
}

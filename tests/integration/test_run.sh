# run against a database loaded by pgarena or by pgbench; the result file; server effects.

# Load the shared scale-2 database once per test that needs it (cheap: about a second).
pgarena_db() {
    db=$(newdb "$1")
    pga init -s 2 -q "$db"
    assert_rc 0
    echo "$db"
}

test_init_matches_pgbench_init() {
    ours=$(pgarena_db pga_ours)
    theirs=$(newdb pga_theirs)
    "$PGBENCH" -i -s 2 -q "$theirs" >/dev/null 2>&1
    q="SELECT (SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_tellers),
              (SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_history),
              (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bid) FROM pgbench_accounts),
              (SELECT sum(bid) FROM pgbench_tellers), (SELECT max(aid) FROM pgbench_accounts)"
    a=$(sql "$q" "$ours")
    b=$(sql "$q" "$theirs")
    [ "$a" = "$b" ] || fail "contents differ: pgarena [$a] pgbench [$b]"
    [ "$a" = "2|20|200000|0|0|300000|30|200000" ] || fail "unexpected contents $a"
    d="SELECT table_name, column_name, data_type, coalesce(character_maximum_length, 0), is_nullable
       FROM information_schema.columns WHERE table_name LIKE 'pgbench_%' ORDER BY 1, 2"
    [ "$(sql "$d" "$ours")" = "$(sql "$d" "$theirs")" ] || fail "column definitions differ"
    k="SELECT conrelid::regclass, pg_get_constraintdef(oid) FROM pg_constraint
       WHERE conrelid::regclass::text LIKE 'pgbench_%' ORDER BY 1"
    [ "$(sql "$k" "$ours")" = "$(sql "$k" "$theirs")" ] || fail "keys differ"
    "$PGBENCH" -S -t 100 "$ours" >"$T/pgbench.out" 2>&1 || { cat "$T/pgbench.out"; fail "pgbench -S failed on pgarena's data"; }
    grep -q 'number of transactions actually processed: 100/100' "$T/pgbench.out" || fail "pgbench did not process 100"
}

test_run_on_pgbench_loaded_database() {
    db=$(newdb pga_pgbench)
    "$PGBENCH" -i -s 2 -q "$db" >/dev/null 2>&1
    pga run -w select-only -c 2 -j 1 -t 200 -q -o r.json "$db"
    assert_rc 0
    assert_out 'transactions: +400$'
    assert_out 'failed: +0 '
    assert_out 'scale 2'
    pyjson r.json 'd["summary"]["transactions"] == 400 and d["workload"]["scale"] == 2'
}

test_result_file_paths() {
    db=$(pgarena_db pga_result)
    pga run -w select-only -c 4 -j 2 -T 5 -q --label base -o r.json "$db"
    assert_rc 0
    pyjson r.json 'd["format"] == "pgarena-result" and d["version"] == 3'
    pyjson r.json 'd["label"] == "base" and d["complete"] is True and d["end_reason"] == "finished"'
    pyjson r.json 'all(k in d for k in ["started_at", "finished_at", "command", "workload", "options", "summary", "intervals", "histogram", "clients", "client", "server"])'
    pyjson r.json 'd["options"]["clients"] == 4 and d["options"]["threads"] == 2 and d["options"]["protocol"] == "simple"'
    pyjson r.json 'd["workload"]["name"] == "select-only" and "pgbench_accounts" in d["workload"]["scripts"][0]["text"]'
    pyjson r.json 'd["summary"]["transactions"] > 0 and d["summary"]["failed"] == 0'
    pyjson r.json '(lambda l: 0 < l["min"] <= l["p50"] <= l["p90"] <= l["p95"] <= l["p99"] <= l["p999"] <= l["max"])(d["summary"]["latency_us"])'
    # An interval a second, and one more only if a stall of the machine kept a transaction
    # running well past the end (that -T ends the run at its end is test_engine_time.c's, in
    # virtual time).
    pyjson r.json '[i["t_s"] for i in d["intervals"]][:5] == [1.0, 2.0, 3.0, 4.0, 5.0] and len(d["intervals"]) <= 6'
    pyjson r.json 'all(i["latency_us"]["p50"] <= i["latency_us"]["p99"] <= i["latency_us"]["max"] for i in d["intervals"])'
    pyjson r.json 'sum(i["transactions"] for i in d["intervals"]) == d["summary"]["transactions"]'
    pyjson r.json 'sum(b[1] for b in d["histogram"]["bins"]) == d["summary"]["transactions"] == d["histogram"]["count"]'
    pyjson r.json 'all(i["histogram"]["count"] == i["transactions"] and "compact" in i["histogram"] for i in d["intervals"])'
    pyjson r.json 'len(d["clients"]) == 4 and sum(c["transactions"] for c in d["clients"]) == d["summary"]["transactions"]'
    pyjson r.json 'abs(d["summary"]["tps"] - d["summary"]["transactions"] / d["summary"]["duration_s"]) < 1e-6 * d["summary"]["tps"]'
    pyjson r.json 'd["summary"]["duration_s"] >= 5'
    # show prints the same summary again from the file.
    grep -E '^(transactions|tps|latency)' "$T/out" >run.txt
    pga show r.json
    assert_rc 0
    grep -E '^(transactions|tps|latency)' "$T/out" >show.txt
    diff run.txt show.txt || fail "show differs from run's summary"
    pga show r.json --intervals
    assert_rc 0
    [ "$(grep -cE '^ +[0-9]+\.[0-9] ' "$T/out")" -eq 5 ] || fail "show --intervals did not print 5 intervals"
}

# Server-side effects: every reported transaction of simple-update inserted one history row.
test_transactions_match_server_effects() {
    for proto in simple extended prepared; do
        db=$(pgarena_db pga_effects)
        pga run -w simple-update -M $proto -c 3 -j 2 -t 50 -q -o r.json "$db"
        assert_rc 0
        assert_out 'transactions: +150$'
        n=$(sql "SELECT count(*) FROM pgbench_history" "$db")
        [ "$n" = 150 ] || fail "$proto: history has $n rows, the run reported 150 transactions"
        s=$(sql "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(delta) FROM pgbench_history)" "$db")
        [ "$s" = t ] || fail "$proto: balances do not add up to the history"
    done
}

test_tpcb_like_all_protocols() {
    db=$(pgarena_db pga_tpcb)
    for proto in simple extended prepared; do
        pga run -M $proto -c 4 -j 2 -T 2 -q -o r-$proto.json "$db"
        assert_rc 0
        pyjson r-$proto.json 'd["summary"]["transactions"] > 10 and d["summary"]["failed"] == 0'
        pyjson r-$proto.json 'd["options"]["protocol"] == "'$proto'"'
    done
    b=$(sql "SELECT (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(delta) FROM pgbench_history)" "$db")
    [ "$b" = t ] || fail "branch balances do not match the history"
}

test_sql_failures_are_counted_not_fatal() {
    db=$(pgarena_db pga_fail)
    # Half the accounts rows gone: no failure (UPDATE of no row is fine); dropping the history
    # table makes every tpcb-like transaction fail at its INSERT.
    sql "DROP TABLE pgbench_history" "$db"
    pga run -c 2 -t 20 -q -o r.json "$db"
    assert_rc 0
    assert_out 'failed: +40 '
    assert_err 'pgbench_history'
    pyjson r.json 'd["summary"]["failed"] == 40 and d["summary"]["errors"]["other"] == 40 and d["summary"]["transactions"] == 0'
    # The failed transactions were rolled back: no balance changed.
    [ "$(sql "SELECT sum(abs(abalance)) FROM pgbench_accounts" "$db")" = 0 ] || fail "failed transactions were not rolled back"
}

test_progress_lines() {
    db=$(pgarena_db pga_progress)
    pga run -w select-only -c 2 -T 3 -P 1 -o r.json "$db"
    assert_rc 0
    [ "$(grep -c '^progress: ' "$T/err")" -ge 2 ] || { cat "$T/err"; fail "expected progress lines on stderr"; }
    pga run -w select-only -c 2 -T 2 -P 1 -q -o r.json "$db"
    assert_rc 0
    ! grep -q '^progress: ' "$T/err" || fail "-q still printed progress"
}

test_password_never_written() {
    db=$(pgarena_db pga_secret)
    dir=$(echo "$CONN" | sed 's/.*host=\([^ ]*\).*/\1/')
    uri="postgresql://postgres:SuperSecret42@/pga_secret?host=$dir&port=5432"
    pga run -w select-only -t 10 -P 1 -o r.json "$uri"
    assert_rc 0
    ! grep -rq SuperSecret42 "$T" || fail "the password appears in output or result"
    pyjson r.json '"***" in d["command"]'
    pga run -w select-only -t 10 -o r2.json "$db password=Hunter2secret"
    assert_rc 0
    ! grep -rq Hunter2secret "$T" || fail "the conninfo password appears in output or result"
}

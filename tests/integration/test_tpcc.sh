# TPC-C (-w tpcc): the loader's rows, the consistency conditions after init and after runs in
# both modes, the mix, the rollbacks, NOPM from the server against the clients' count, keying
# and thinking times kept out of the latency, and check naming a broken condition. The tests
# share one database of 2 warehouses (loaded by the first, or by whichever runs alone).

TPCC_DB=pgarena_tpcc

tpcc_conn() {
    echo "${CONN% dbname=*} dbname=$TPCC_DB"
}

# The shared database, loaded when it is missing or not 2 warehouses.
tpcc_ensure() {
    C=$(tpcc_conn)
    if [ "$(sql "SELECT count(*) FROM warehouse" "$C" 2>/dev/null)" != 2 ]; then
        C=$(newdb $TPCC_DB)
        pga init -w tpcc --warehouses 2 -j 2 -q "$C"
        assert_rc 0
    fi
}

test_tpcc_init_row_counts() {
    C=$(newdb $TPCC_DB)
    pga init -w tpcc --warehouses 2 -j 2 "$C"
    assert_rc 0
    assert_err 'rows'
    for tc in warehouse:2 district:20 customer:60000 history:60000 orders:60000 \
        new_order:18000 item:100000 stock:200000; do
        n=$(sql "SELECT count(*) FROM ${tc%%:*}" "$C")
        [ "$n" = "${tc##*:}" ] || fail "${tc%%:*}: $n rows, expected ${tc##*:}"
    done
    # 5 to 15 lines per order, as many as the orders say.
    [ "$(sql "SELECT (SELECT count(*) FROM order_line) = (SELECT sum(o_ol_cnt) FROM orders)
        AND (SELECT count(*) FROM order_line) BETWEEN 540000 and 660000" "$C")" = t ] ||
        fail "order_line rows do not match sum(o_ol_cnt) or are far from 10 per order"
    # The spec's value rules: last names from syllables, 10 % ORIGINAL, 10 % bad credit, zips.
    [ "$(sql "SELECT count(DISTINCT c_last) FROM customer WHERE c_id <= 1000" "$C")" = 1000 ] ||
        fail "the first 1000 customers of a district do not have 1000 distinct last names"
    [ "$(sql "SELECT c_last FROM customer WHERE c_id = 372 LIMIT 1" "$C")" = PRICALLYOUGHT ] ||
        fail "last name of number 371 is not PRICALLYOUGHT"
    sql "SELECT count(*) FILTER (WHERE i_data LIKE '%ORIGINAL%') * 100.0 / count(*) BETWEEN 9 AND 11,
        bool_and(i_price BETWEEN 1 AND 100) FROM item" "$C" | grep -qx 't|t' ||
        fail "items: ORIGINAL share or prices off"
    sql "SELECT count(*) FILTER (WHERE c_credit = 'BC') * 100.0 / count(*) BETWEEN 9 AND 11,
        bool_and(c_zip LIKE '____11111') FROM customer" "$C" | grep -qx 't|t' ||
        fail "customers: BC share or zip codes off"
    [ "$(sql "SELECT count(*) FROM pg_indexes WHERE indexname IN ('customer_i2', 'orders_i2')" "$C")" = 2 ] ||
        fail "secondary indexes missing"
    [ "$(sql "SELECT obj_description('warehouse'::regclass, 'pg_class')" "$C")" != "" ] ||
        fail "NURand constants not recorded"
    pga check -w tpcc --all "$C"
    assert_rc 0
    assert_out 'conditions 1 2 3 4 5 6 7 8 9 10 11 12 hold'
}

# One run of 10 s on 4 terminals; checks the conditions after it, NOPM server against clients,
# and returns the result in $T/$1.json.
tpcc_run() {
    out=$1
    shift
    pga run -w tpcc -c 4 -j 2 -T 8 -q -o "$T/$out.json" "$@" "$C"
    assert_rc 0
    assert_out '^NOPM:'
    assert_out 'not TPC-C compliant'
    pyjson "$T/$out.json" 'd["summary"]["failed"] == 0'
    pyjson "$T/$out.json" 'd["summary"]["tpcc"]["nopm"] > 0'
    pyjson "$T/$out.json" \
        'abs(d["summary"]["tpcc"]["nopm"] - d["summary"]["tpcc"]["nopm_client"]) <= 0.01 * d["summary"]["tpcc"]["nopm"]'
    pga check -w tpcc --all "$C"
    assert_rc 0
}

test_tpcc_runs_sql_and_procedures() {
    tpcc_ensure
    h0=$(sql "SELECT count(*) FROM history" "$C")
    n0=$(sql "SELECT sum(d_next_o_id) FROM district" "$C")
    tpcc_run sql
    pyjson "$T/sql.json" 'd["summary"]["tpcc"]["mode"] == "sql" and d["options"]["protocol"] == "prepared"'
    h1=$(sql "SELECT count(*) FROM history" "$C")
    n1=$(sql "SELECT sum(d_next_o_id) FROM district" "$C")
    # The mix, from the server's own effects: each Payment adds a history row, each committed
    # New-Order advances a district's next order id; 4 sigma binomial bounds around 43 % / 45 %.
    python3 - "$T/sql.json" $((h1 - h0)) $((n1 - n0)) <<'PY' || fail "mix or rollbacks out of bounds"
import json, math, sys
d = json.load(open(sys.argv[1]))
payments, committed = int(sys.argv[2]), int(sys.argv[3])
t = d["summary"]["tpcc"]
n = d["summary"]["transactions"]
rollbacks = t["new_order_rollbacks"]
new_orders = committed + rollbacks
def within(x, p, n):
    return abs(x - n * p) <= 4 * math.sqrt(n * p * (1 - p)) + 1
print("transactions", n, "payments", payments, "new orders", new_orders, "rollbacks", rollbacks)
assert n > 300, "too few transactions to test the mix"
assert within(payments, 0.43, n), "payments"
assert within(new_orders, 0.45, n), "new orders"
assert 0 < rollbacks and within(rollbacks, 0.01, new_orders), "rollbacks"
for s in ("order-status", "delivery", "stock-level"):
    first = min((st for st in d["statements"] if st["script"] == s), key=lambda st: st["line"])
    assert within(first["count"], 0.04, n), s
PY
    tpcc_run procedures --procedures
    pyjson "$T/procedures.json" 'd["summary"]["tpcc"]["mode"] == "procedures"'
    pyjson "$T/procedures.json" 'd["summary"]["tpcc"]["new_order_rollbacks"] >= 0'
    # A mix of Stock-Levels only: nothing committed, NOPM 0 on both sides.
    pga run -w tpcc -c 2 -T 2 -q --mix 0,0,0,0,100 -o "$T/sl.json" "$C"
    assert_rc 0
    pyjson "$T/sl.json" 'd["summary"]["tpcc"]["nopm"] == 0 == d["summary"]["tpcc"]["nopm_client"]'
}

# Keying and think times are the terminal's, not the transaction's: the latency leaves them
# out, and the end of the run cuts them short instead of waiting for them.
test_tpcc_keying_thinking() {
    tpcc_ensure
    start=$(date +%s)
    pga run -w tpcc --keying-thinking -c 4 -T 6 -q --mix 0,0,0,0,100 -o "$T/kt.json" "$C"
    assert_rc 0
    [ $(($(date +%s) - start)) -lt 40 ] || fail "the run waited for think times"
    assert_out 'keying and thinking times'
    pyjson "$T/kt.json" 'd["summary"]["tpcc"]["keying_thinking"] is True'
    pyjson "$T/kt.json" 'd["summary"]["transactions"] >= 4'
    pyjson "$T/kt.json" 'd["summary"]["latency_us"]["max"] < 1500000'
}

test_tpcc_bad_database() {
    tpcc_ensure
    pga run -w tpcc --warehouses 3 -T 1 "$C"
    assert_rc 2
    assert_one_error_line
    assert_err 'warehouses 3.*holds 2'
    D=$(newdb pgarena_tpcc_bad)
    pga run -w tpcc -T 1 "$D"
    assert_rc 2
    assert_one_error_line
    assert_err 'table .* is missing'
    sql "CREATE TABLE warehouse (w_id int, w_name text)" "$D"
    pga check -w tpcc "$D"
    assert_rc 2
    assert_one_error_line
    assert_err 'warehouse has other columns'
    # A database loaded without the functions of --procedures.
    pga init -w tpcc --warehouses 1 -q --force "$D"
    assert_rc 0
    sql "DROP FUNCTION tpcc_new_order" "$D"
    pga run -w tpcc --procedures -T 1 "$D"
    assert_rc 2
    assert_one_error_line
    assert_err 'procedures needs the functions'
    sql "DROP DATABASE pgarena_tpcc_bad" >/dev/null 2>&1 || true
}

# Runs last: it breaks the shared database.
test_tpcc_zcheck_names_condition() {
    tpcc_ensure
    sql "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 2" "$C"
    pga check -w tpcc "$C"
    assert_rc 1
    assert_one_error_line
    assert_err 'condition 1 fails: warehouse 2'
    sql "DROP DATABASE $TPCC_DB" >/dev/null 2>&1 || true
}

# Every run option works in a sweep as in a run (issue 23): tpcc's options reach each cell's
# result, where they once crashed the sweep (--keying-thinking), were taken for another option
# (--warehouses as --setup) or were dropped (--procedures).
test_tpcc_options_in_a_sweep() {
    tpcc_ensure
    pga sweep "$C" -w tpcc --keying-thinking -c 1 -T 2 -q -o "$T/kt"
    assert_rc 0
    pyjson "$T/kt/default-c1-t1.json" 'd["summary"]["tpcc"]["keying_thinking"] is True'
    pga sweep "$C" -w tpcc --warehouses 1 -c 1,2 -T 2 -q -o "$T/wh"
    assert_rc 0
    for f in "$T"/wh/default-c1-t1.json "$T"/wh/default-c2-t1.json; do
        pyjson "$f" 'd["summary"]["tpcc"]["warehouses"] == 1'
    done
    pyjson "$T/wh/default-c2-t1.json" 'd["options"]["clients"] == 2'
    pga sweep "$C" -w tpcc --procedures --mix 0,100,0,0,0 -c 1 -T 2 -q -o "$T/pr"
    assert_rc 0
    pyjson "$T/pr/default-c1-t1.json" 'd["summary"]["tpcc"]["mode"] == "procedures"'
    pyjson "$T/pr/default-c1-t1.json" \
        '[s["weight"] for s in d["workload"]["scripts"]] == [0, 100, 0, 0, 0]'
    pyjson "$T/pr/default-c1-t1.json" 'd["options"]["protocol"] == "prepared"'
}

# sweep --init -w tpcc loads the warehouses asked for, as init does.
test_tpcc_sweep_init_loads_warehouses() {
    C=$(newdb pgarena_tpcc_sweep)
    pga sweep "$C" --init -w tpcc --warehouses 1 -c 1 -T 1 -q -o "$T/init"
    assert_rc 0
    [ "$(sql "SELECT count(*) FROM warehouse" "$C")" = 1 ] || fail "sweep --init did not load 1 warehouse"
    pyjson "$T/init/default-c1-t1.json" 'd["summary"]["tpcc"]["warehouses"] == 1'
    sql "DROP DATABASE pgarena_tpcc_sweep" >/dev/null
}

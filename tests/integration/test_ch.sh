# CH-benCHmark (-w ch): the load's rows and the paper's value rules, the 22 queries on the data
# after a short OLTP run, a mixed run's figures (NOPM, per-query scripts, OLTP-only tps),
# TPC-C's consistency after it, the power test's order and the streams' permutations, the
# OLTP slowdown compare shows (the work_mem sweep is in test_ch_sweep.sh). The tests share one
# database of 1 warehouse loaded with --seed 15 (loaded by the first, or by whichever runs
# alone): with that seed Q20 has rows at 1 warehouse (its 'co%' items are about
# 26, and 1 supplier in 62 is German), which it has with about a third of the seeds.

CH_DB=pgarena_ch

ch_conn() {
    echo "${CONN% dbname=*} dbname=$CH_DB"
}

ch_load() {
    C=$(newdb $CH_DB)
    pga init -w ch --warehouses 1 --seed 15 -j 2 "$C"
    assert_rc 0
}

# The shared database, loaded when it is missing or not CH's of 1 warehouse.
ch_ensure() {
    C=$(ch_conn)
    if [ "$(sql "SELECT (SELECT count(*) FROM warehouse) || ' ' || (SELECT count(*) FROM supplier)" "$C" 2>/dev/null)" != "1 10000" ]; then
        ch_load
    fi
}

test_ch_init_row_counts() {
    ch_load
    assert_err 'rows'
    for tc in warehouse:1 district:10 customer:30000 history:30000 orders:30000 new_order:9000 \
        item:100000 stock:100000 supplier:10000 nation:62 region:5; do
        n=$(sql "SELECT count(*) FROM ${tc%%:*}" "$C")
        [ "$n" = "${tc##*:}" ] || fail "${tc%%:*}: $n rows, expected ${tc##*:}"
    done
    # Nation keys are the codes of 0-9, A-Z, a-z; every customer's nation (the code of the first
    # letter of c_state) and every stock row's supplier (mod(s_w_id * s_i_id, 10000)) exists.
    [ "$(sql "SELECT count(*) FROM nation WHERE chr(n_nationkey) ~ '^[0-9A-Za-z]$'" "$C")" = 62 ] ||
        fail "nation keys are not the codes of 0-9, A-Z, a-z"
    [ "$(sql "SELECT count(*) FROM customer JOIN nation ON n_nationkey = ascii(substr(c_state, 1, 1))" "$C")" = 30000 ] ||
        fail "a customer's state names no nation"
    [ "$(sql "SELECT count(*) FROM stock JOIN supplier ON su_suppkey = mod(s_w_id * s_i_id, 10000)" "$C")" = 100000 ] ||
        fail "a stock row has no supplier"
    [ "$(sql "SELECT count(*) FROM supplier JOIN nation ON n_nationkey = su_nationkey JOIN region ON r_regionkey = n_regionkey" "$C")" = 10000 ] ||
        fail "a supplier has no nation or region"
    [ "$(sql "SELECT string_agg(trim(r_name), ',' ORDER BY r_regionkey) FROM region" "$C")" = Africa,America,Asia,Australia,Europe ] ||
        fail "regions are not the five"
    [ "$(sql "SELECT count(*) FROM nation JOIN region ON r_regionkey = n_regionkey WHERE n_name IN ('Germany', 'Cambodia') AND n_nationkey BETWEEN 65 AND 90" "$C")" = 2 ] ||
        fail "Germany and Cambodia are not customers' nations"
    [ "$(sql "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text IN ('supplier', 'nation', 'region')" "$C")" = 3 ] ||
        fail "supplier, nation, region lack their primary keys"
    pga check -w tpcc --all "$C"
    assert_rc 0
    pga check -w ch "$C"
    assert_rc 0
    assert_out 'conditions 1 2 3 4 hold'
}

# Runs every query of result file $1 on $C; each must return rows without a NULL (Q22 none:
# every TPC-C customer has an order, clause 4.3.3.1, and the query wants those without).
ch_queries_have_rows() {
    python3 - "$1" "$C" "$PSQL" <<'PY' || fail "a query returned no row, a NULL or an error"
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
d = json.load(open(sys.argv[1]))
queries = {s["name"]: s["text"] for s in d["workload"]["scripts"] if s["name"].startswith("q")}
assert sorted(queries) == sorted("q%d" % i for i in range(1, 23)), sorted(queries)
def run(item):
    name, text = item
    sql = ("SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM jsonb_each(to_jsonb(x)) e "
           "WHERE e.value = 'null'::jsonb)) FROM (%s) x" % text.strip().rstrip(";"))
    # Without nested loops the planner picks hash joins that take half the time here; the
    # rows are the same whatever the plan.
    env = dict(os.environ, PGOPTIONS="-c enable_nestloop=off")
    out = subprocess.run([sys.argv[3], "-X", "-At", "-v", "ON_ERROR_STOP=1", sys.argv[2], "-c", sql],
                         capture_output=True, text=True, env=env)
    return name, out.returncode, out.stdout.strip(), out.stderr.strip()
bad = []
with ThreadPoolExecutor(2) as pool:
    for name, rc, out, err in pool.map(run, sorted(queries.items())):
        rows, nulls = (int(v) for v in out.split("|")) if rc == 0 else (-1, -1)
        want_rows = rows == 0 if name == "q22" else rows > 0
        print(name, rows, "rows", nulls, "with a NULL", err, file=sys.stderr)
        if rc != 0 or not want_rows or nulls != 0:
            bad.append(name)
if bad:
    print("bad:", bad, file=sys.stderr)
    sys.exit(1)
PY
    [ "$(sql "SELECT count(*) FROM customer c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id AND o.o_c_id = c.c_id)" "$C")" = 0 ] ||
        fail "a customer has no order: Q22 should have rows"
}

test_ch_mixed_run_queries_and_check() {
    ch_ensure
    pga run -w ch -c 2 -j 2 --analytic-clients 1 -T 4 --seed 3 -o "$T/mixed.json" "$C"
    assert_rc 0
    assert_out '^NOPM:'
    assert_out '^CH-benCHmark: *analytic clients 1, [0-9]+ queries per hour'
    pyjson mixed.json 'd["summary"]["tpcc"]["nopm"] > 0 and d["summary"]["ch"]["analytic_clients"] == 1'
    pyjson mixed.json 'd["summary"]["ch"]["queries_per_hour"] > 0 and d["summary"]["failed"] == 0'
    # Per-query figures: the 22 scripts, those run with a latency; tps is the terminals' only.
    pyjson mixed.json '[s["name"] for s in d["summary"]["scripts"]][5:] == ["q%d" % i for i in range(1, 23)]'
    pyjson mixed.json 'all(s["latency_us"]["p50"] > 0 for s in d["summary"]["scripts"][5:] if s["transactions"] > 0)'
    pyjson mixed.json 'sum(s["transactions"] for s in d["summary"]["scripts"][5:]) > 0'
    pyjson mixed.json 'd["summary"]["transactions"] == sum(s["transactions"] for s in d["summary"]["scripts"][:5])'
    pyjson mixed.json 'd["options"]["clients"] == 2 and len(d["clients"]) == 2'
    pga check -w tpcc --all "$C"
    assert_rc 0
    assert_out 'conditions 1 2 3 4 5 6 7 8 9 10 12 hold'
    ch_queries_have_rows "$T/mixed.json"
}

# The script numbers of the analytic client's transactions in a -l log (client id $2).
ch_log_scripts() {
    awk -v c="$2" '$1 == c { printf "%s ", $4 }' "$1"
}

test_ch_power_test_and_streams() {
    ch_ensure
    # -c 0 --analytic-clients 1: one stream, the queries in the order given (scripts 5, 6, 7;
    # three of the cheap ones).
    pga run -w ch -c 0 --analytic-clients 1 -t 6 --queries 6,1,q19 -l --log-prefix p -o p.json "$C"
    assert_rc 0
    [ "$(ch_log_scripts p.[0-9]* 0)" = "5 6 7 5 6 7 " ] || fail "power test order: $(ch_log_scripts p.[0-9]* 0)"
    pyjson p.json 'd["summary"]["transactions"] == 0 and d["summary"]["duration_s"] > 0'
    pyjson p.json '[(s["name"], s["transactions"]) for s in d["summary"]["scripts"][5:]] == [("q6", 2), ("q1", 2), ("q19", 2)]'
    pyjson p.json 'd["summary"]["ch"]["power_geomean_ms"] > 0 and d["summary"]["ch"]["queries_per_hour"] > 0'
    # With terminals, each pass is a permutation of its own; the terminals never run a query.
    pga run -w ch -c 1 --analytic-clients 1 -t 9 --queries 6,1,19 --seed 5 -l --log-prefix s -o s.json "$C"
    assert_rc 0
    python3 - "$(ch_log_scripts s.[0-9]* 1)" "$(ch_log_scripts s.[0-9]* 0)" <<'PY' || fail "streams: $(ch_log_scripts s.[0-9]* 1)"
import sys
stream, terminal = sys.argv[1].split(), sys.argv[2].split()
passes = [stream[i:i + 3] for i in range(0, 9, 3)]
assert len(stream) == 9 and all(sorted(p) == ["5", "6", "7"] for p in passes), passes
assert len({tuple(p) for p in passes}) > 1, passes  # drawn anew per pass
assert len(terminal) == 9 and all(int(s) < 5 for s in terminal), terminal
PY
}

# Three streams of short queries (so that the run's end does not wait long for one) against
# none, on one terminal: compare shows the terminal's tps change and the scripts of both. That
# the streams slow the terminal is the machine's doing, not pgarena's, and a stall of this
# VM's CPU in the OLTP-only run can hide it: the change is shown, its sign not judged; what is
# judged is that it is the change of the two runs' terminal throughput.
test_ch_compare_shows_oltp_slowdown() {
    ch_ensure
    pga run -w ch -c 1 --seed 1 -T 2 -q --queries 1,6,9,13,19 --label oltp -o a.json "$C"
    assert_rc 0
    pga run -w ch -c 1 --seed 1 -T 2 -q --analytic-clients 3 --queries 1,6,9,13,19 --label mixed -o b.json "$C"
    assert_rc 0
    pga compare a.json b.json
    assert_rc 0
    assert_out '^tps '
    assert_out '^script new-order'
    assert_out '^script q13'
    pga compare a.json b.json --json
    python3 - "$T/out" <<'PY' || fail "compare shows no OLTP change: $(grep -m1 '^tps' "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
tps = [m for m in d["metrics"] if m["name"] == "tps"][0]
print(tps, file=sys.stderr)
assert tps["a"] > 0 and tps["b"] > 0, tps
assert abs(tps["change_pct"] - 100 * (tps["b"] / tps["a"] - 1)) < 0.1, tps
PY
}

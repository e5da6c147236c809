# run-all: alone (ALTER SYSTEM work_mem on the shared server, and per-query timing)
# CH-benCHmark's settings sweep (issue 27 item 4): work_mem 64kB against 64MB on 1 warehouse,
# with per-query verdicts pooled over the queries of each side (docs/compare-method.md §3.7).
# The queries are the two that work_mem moves most, one each way, by EXPLAIN (ANALYZE,
# BUFFERS) at 1 warehouse: Q4's hash semi join of order_line runs in 256 batches at 64kB and
# one at 64MB (latency about 2.5 times lower), while at 64MB the planner gives Q18 a hash
# aggregate over Memoize'd nested loops instead of a sort and a group aggregate, which runs
# about twice as slow. Shares test_ch.sh's database.

. "$PGARENA_TEST_TOP/tests/integration/test_ch.sh"

# The direction each query's plans predict for 64MB against 64kB, as JSON, from EXPLAIN (no
# ANALYZE: cheap and exact) of the query texts in result file $1: Q4 "better" when it hashes
# order_line at both settings (whose 313,893 rows cannot fit in 64kB: 256 batches); Q18
# "worse" when 64MB gives it a hash aggregate over Memoize'd nested loops where 64kB sorts and
# group-aggregates (measured twice as slow). A planner that chooses otherwise (another
# PostgreSQL version) predicts nothing for that query.
ch_plan_directions() {
    python3 - "$1" "$C" "$PSQL" <<'PY'
import json, os, subprocess, sys
d = json.load(open(sys.argv[1]))
texts = {s["name"]: s["text"] for s in d["workload"]["scripts"]}
def plan(q, wm):
    env = dict(os.environ, PGOPTIONS="-c work_mem=" + wm)
    out = subprocess.run([sys.argv[3], "-X", "-At", "-v", "ON_ERROR_STOP=1", sys.argv[2], "-c",
                          "EXPLAIN " + texts[q]], capture_output=True, text=True, env=env, check=True)
    return out.stdout
small, large = plan("q4", "64kB"), plan("q4", "64MB")
expected = {}
if all("Hash Semi Join" in p or "Hash Join" in p for p in (small, large)):
    expected["q4"] = "better"
small, large = plan("q18", "64kB"), plan("q18", "64MB")
if "GroupAggregate" in small and "Memoize" in large and "HashAggregate" in large:
    expected["q18"] = "worse"
print(json.dumps(expected))
PY
}

# The per-query records of sweep.json $1 for q4 and q18: complete, each verdict agrees with its
# interval, none against the direction the plans predict ($2, ch_plan_directions'); exit 3 when
# no predicted query was decided (a slow machine: too few executions or too wide intervals).
ch_sweep_verdicts() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
expected = json.loads(sys.argv[2])
assert expected, "the plans predict nothing for q4 and q18"
recs = [c for c in d.get("comparisons") or [] if c.get("script") in ("q4", "q18")]
for c in recs:
    print(c["script"], c["metric"], c["a"], c["b"], c["change_pct"], c["ci_low"], c["ci_high"],
          c["verdict"], c["method"], c["df"], c.get("detail"), file=sys.stderr)
assert {(c["script"], c["metric"]) for c in recs} == {
    (q, m) for q in ("q4", "q18") for m in ("latency_p50", "latency_p95", "latency_p99")}, \
    "no per-query records"
lo, up = 1 / 1.02 - 1, 0.02  # the 2 % margin, on latency (lower is better)
for c in recs:
    assert c["value"] == "64MB" and c["baseline"] == "64kB", c
    assert c["method"] in ("pooled", "cell"), c
    if c["a"] is None or c["b"] is None:
        # a trial ran the query not at all (a slow machine): no verdict
        assert c["verdict"] == "inconclusive", c
        continue
    assert c["a"] > 0 and c["b"] > 0, c
    # The verdict is what its interval says (§5; pooled records have no gates).
    if c["verdict"] == "better":
        assert c["ci_high"] < 0, c
    if c["verdict"] == "worse":
        assert c["ci_low"] > 0, c
    if c["method"] == "pooled":
        assert c["df"] >= 1, c
        if c["ci_high"] / 100 < lo:
            assert c["verdict"] == "better", c
        if c["ci_low"] / 100 > up:
            assert c["verdict"] == "worse", c
    # Never against the plans: more memory makes Q4 no slower and Q18 no faster.
    if c["script"] in expected:
        assert c["verdict"] in (expected[c["script"]], "inconclusive", "no-meaningful-difference"), c
print("the plans predict:", expected, file=sys.stderr)
moved = sorted({c["script"] for c in recs if c["verdict"] == expected.get(c["script"])})
print("work_mem moved:", moved or "no query", file=sys.stderr)
sys.exit(0 if moved else 3)
PY
}

test_ch_sweep_work_mem() {
    ch_ensure
    # Three trials of 3 s a side, each running each query 1 to 4 times here (load average 1 to
    # 8): Q4 is decided with room to spare (p50 -35 % to -80 %, the interval's near end -40 %
    # or below under load), Q18 (+80 % to +120 %) when the machine is quieter.
    pga sweep -w ch --set work_mem=64kB,64MB --analytic-clients 1 --queries 4,18 -c 1 -T 3 \
        --trials 3 --seed 2 -q --compare work_mem --json -o sw "$C"
    assert_rc 0
    pyjson "$T/out" 'any(c.get("script") == "q18" and c["metric"] == "latency_p50" for c in d["comparisons"])'
    n=0
    for f in sw/default-c1-work_mem=*-t*.json; do
        pyjson "$f" '[s["name"] for s in d["summary"]["scripts"]][5:] == ["q4", "q18"]'
        pyjson "$f" 'd["summary"]["ch"]["analytic_clients"] == 1 and sum(s["transactions"] for s in d["summary"]["scripts"][5:]) > 0'
        n=$((n + 1))
    done
    [ "$n" = 6 ] || fail "$n cell files, expected 6"
    expected=$(ch_plan_directions sw/default-c1-work_mem=64kB-t1.json) || fail "EXPLAIN of q4 and q18"
    rc=0
    ch_sweep_verdicts sw/sweep.json "$expected" || rc=$?
    if [ "$rc" = 3 ]; then
        # Nothing decided: a machine so slow that a 3 s trial ran each query once or not at
        # all. Longer trials, once, rather than a failure for noise.
        echo "no query decided with 3 s trials: again with 8 s trials" >&2
        pga sweep -w ch --set work_mem=64kB,64MB --analytic-clients 1 --queries 4,18 -c 1 -T 8 \
            --trials 3 --seed 2 -q --compare work_mem -o sw8 "$C"
        assert_rc 0
        rc=0
        ch_sweep_verdicts sw8/sweep.json "$expected" || rc=$?
    fi
    [ "$rc" = 0 ] || fail "per-query verdicts of the work_mem sweep"
    # Every cell is complete: the same command only prints the table again, with the method.
    pga sweep -w ch --set work_mem=64kB,64MB --analytic-clients 1 --queries 4,18 -c 1 -T 3 \
        --trials 3 --seed 2 --compare work_mem -o sw "$C"
    assert_rc 0
    assert_out "^per script: latency change"
    assert_out "work_mem=64MB q18: p50 .*(pooled|cell)"
}

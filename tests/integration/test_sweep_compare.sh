# A sweep's verdicts along any axis (issue 30) and pooled over its cells (issue 28): an A/A and
# an A/B sweep on one server, a --set axis on a scratch server with compare --by giving the
# sweep's cell verdicts, --local's pg_stat_statements, and sysbench's summary.

# One server under three labels: A and A2 the same (A/A), B with a real difference, through a
# setting of each connection: A's statements sleep 5 ms, B's 100 ms, twenty times as long. 3
# client counts, 2 trials. Nothing here is a margin a stall of this VM's CPU could cross:
# - B's latency p50 is worse in every cell: B's statements cannot end before the server's
#   100 ms, and a stall moves a trial's median only if it delays half of its transactions
#   (A's median would have to reach past 20 ms in one trial and not in the other to widen
#   the interval to zero).
# - B's tps change is negative in every cell (a sign, not a verdict: A's trial would have to
#   lose 95 % of its 1 s to a stall), and below A2's, whose change is about nothing.
# - A2's latency p50 change is below B's.
# How often an A/A sweep gives a false verdict is a property of the pooled method, tested on
# thousands of seeded matrices in test_pool.c, not here.
test_sweep_compare_aa_ab_pooled() {
    db=$(newdb sweepab)
    echo "SELECT pg_sleep(current_setting('pgarena.sleep')::float8);" >sleep.sql
    long=B_sleeping_a_hundred_milliseconds_per_statement
    pga sweep --setup "A=$db options=-cpgarena.sleep=0.005" --setup "A2=$db options=-cpgarena.sleep=0.005" \
        --setup "$long=$db options=-cpgarena.sleep=0.1" -f sleep.sql -c 1,2,3 -T 1 --trials 2 --no-sampling -o s -q
    assert_rc 0
    # Headers are never cut: the long label is there whole.
    head -n 2 "$T/out" | grep -q "$long tps" || { cat "$T/out"; fail "the label was cut"; }
    head -n 2 "$T/out" | grep -q "$long: tps change" || { cat "$T/out"; fail "the label was cut"; }
    python3 - s/sweep.json "$long" <<'PY' || fail "comparisons"
import json, sys
d = json.load(open(sys.argv[1])); b = sys.argv[2]
cs = d["comparisons"]
# One record per compared value, cell and metric.
assert len(cs) == 2 * 3 * 5, len(cs)
assert {c["axis"] for c in cs} == {"setup"} and {c["baseline"] for c in cs} == {"A"}
assert {c["value"] for c in cs} == {"A2", b}
assert sorted({c["cell"]["clients"] for c in cs}) == [1, 2, 3]
for c in cs:
    assert c["method"] in ("pooled", "cell") and "df" in c and "homogeneous" in c, c
    # A pooled record whose cell Bartlett refused keeps that cell's own variance (homogeneous
    # false, its df small); one whose cells all pooled has the pooled df.
    if c["method"] == "pooled" and c["homogeneous"]:
        assert c["df"] > 2, c
def rec(value, metric, clients):
    [r] = [c for c in cs if c["value"] == value and c["metric"] == metric and c["cell"]["clients"] == clients]
    return r
for n in (1, 2, 3):
    bt, at = rec(b, "tps", n), rec("A2", "tps", n)
    bl, al = rec(b, "latency_p50", n), rec("A2", "latency_p50", n)
    assert bl["verdict"] == "worse" and bl["change_pct"] > 0, bl
    assert bt["change_pct"] < 0 and bt["change_pct"] < at["change_pct"], (bt, at)
    assert al["change_pct"] < bl["change_pct"], (al, bl)
# The failure rate is judged per cell.
assert all(c["method"] == "cell" for c in cs if c["metric"] == "failure_rate")
PY
    # The table says which method gave each verdict.
    grep -E '^ +3 \|' "$T/out" | grep -qE 'worse (pooled|cell)' || { cat "$T/out"; fail "no method"; }
    # The report's cell table shows it too.
    pga report s -o s.html
    assert_rc 0
    grep -qE 'v-worse">worse</span> <small>(pooled|cell)' s.html || fail "no method in the report"
}

# stall_cells DIR [SETUP TRIAL MS INTERVALS CAUSE]: every cell file of the sweep in DIR made
# clean (no stalled interval: the machine's own noise cannot add one), then the one of SETUP's
# TRIAL given MS lost in INTERVALS stalled intervals, the worst's cause CAUSE.
stall_cells() {
    python3 - "$@" <<'PY'
import json, os, sys
dirname, mark = sys.argv[1], sys.argv[2:]
doc = json.load(open(os.path.join(dirname, "sweep.json")))
for c in doc["cells"]:
    f = os.path.join(dirname, c["file"])
    d = json.load(open(f))
    h = d["summary"]["client_health"]
    h.update(intervals_stalled=0, stalled_ms=0, worst={"t_s": None, "ms": 0, "cause": None})
    if mark and c["setup"] == mark[0] and c["trial"] == int(mark[1]):
        n = int(mark[3])
        h.update(intervals_stalled=n, stalled_ms=int(mark[2]),
                 worst={"t_s": 1.0, "ms": int(mark[2]) // n, "cause": mark[4]})
    json.dump(d, open(f, "w"))
PY
}

# A trial whose client stalled is named beside its cell's verdicts, in the table and in
# sweep.json's whole-run records, and no clean one; a clean sweep has neither (issue 37,
# item 2). The cells' files are edited, and the same command (a resume with nothing left to
# run) shows the sweep again from them.
test_sweep_compare_names_stalled_trials() {
    db=$(pgbench_db pga_sweepstall)
    set -- sweep --setup "A=$db" --setup "B=$db" -c 1 --trials 2 -w select-only -T 1 --no-sampling -o s -q
    pga "$@"
    assert_rc 0
    stall_cells s || fail "cannot clean the cells"
    pga "$@"
    assert_rc 0
    ! grep -q 'client stalled' "$T/out" || { cat "$T/out"; fail "a clean sweep names a stall"; }
    pyjson s/sweep.json 'd["comparisons"] and all("stalled" not in c for c in d["comparisons"])'
    stall_cells s B 2 4100 3 steal || fail "cannot mark a cell"
    pga "$@"
    assert_rc 0
    assert_out '^ +B trial 2: client stalled 4\.1 s \(3 intervals\), steal$'
    [ "$(grep -c 'client stalled' "$T/out")" = 1 ] || { cat "$T/out"; fail "a clean trial named"; }
    # The HTML report names it below the cells' verdicts, with its point.
    pga report s -o s.html
    assert_rc 0
    grep -q '<li>1 client: B trial 2: client stalled 4\.1 s (3 intervals), steal</li>' s.html ||
        { grep -o '<li>[^<]*stalled[^<]*</li>' s.html; fail "the report does not name the stalled trial"; }
    [ "$(grep -c 'client stalled' s.html)" = 1 ] || fail "the report names a clean trial"
    pyjson s/sweep.json 'all(c["stalled"] == [{"setup": "B", "side": "value", "trial": 2, "stalled_ms": 4100, "intervals": 3, "cause": "steal"}] for c in d["comparisons"] if "script" not in c and "class" not in c)'
    # The baseline's stalled trial is named as the baseline's.
    stall_cells s A 1 850 1 late || fail "cannot mark a cell"
    pga "$@"
    assert_rc 0
    assert_out '^ +A trial 1: client stalled 850 ms \(1 interval\), late$'
    pyjson s/sweep.json 'd["comparisons"][0]["stalled"] == [{"setup": "A", "side": "baseline", "trial": 1, "stalled_ms": 850, "intervals": 1, "cause": "late"}]'
}

# The first Linux-vs-Windows puzzle, shortened: max_connections 100 against 300 on a scratch
# server (restarted between the settings), a verdict per client count; compare --by gives the
# sweep's verdict wherever the sweep used its cell's own trials.
test_sweep_compare_set_axis_local() {
    pga sweep --local --init -s 1 --set max_connections=100,300 -w tpcb-like -c 2,4 -j 2 -T 1 \
        --trials 2 -o mc -q
    assert_rc 0
    assert_out '^baseline max_connections=100'
    head -n 2 "$T/out" | grep -q ' max_connections ' || { cat "$T/out"; fail "header cut"; }
    [ "$(grep -cE '^ +[24] +1 +300 \| .*(better|worse|no-meaningful-difference|inconclusive) (pooled|cell)' "$T/out")" -eq 2 ] ||
        { cat "$T/out"; fail "expected a verdict per client count"; }
    pyjson mc/sweep.json 'sorted({(c["value"], c["cell"]["clients"]) for c in d["comparisons"]}) == [("300", 2), ("300", 4)]'
    pyjson mc/sweep.json 'all(c["axis"] == "max_connections" and c["baseline"] == "100" for c in d["comparisons"])'
    # --local preloads pg_stat_statements: a setting the environment records, and statements.
    pyjson mc/default-c2-s1-max_connections=300-t1.json 'd["server"]["settings"]["shared_preload_libraries"] == "pg_stat_statements"'
    pyjson mc/default-c2-s1-max_connections=300-t1.json 'len(d["statements_server"]) > 0'
    # compare --by: each cell's files grouped by the setting give the sweep's cell verdicts.
    for c in 2 4; do
        pga compare --by server.settings.max_connections --json mc/default-c$c-s1-max_connections=*-t*.json
        assert_rc 0
        python3 - mc/sweep.json "$T/out" "$c" <<'PY' || fail "compare --by disagrees with the sweep"
import json, sys
d = json.load(open(sys.argv[1])); out = json.load(open(sys.argv[2])); clients = int(sys.argv[3])
mine = {m["name"]: m for m in out["metrics"]}
cells = [c for c in d["comparisons"] if c["cell"]["clients"] == clients and c["method"] == "cell"]
assert cells, "no cell-method record"
for c in cells:
    m = mine[c["metric"]]
    assert m["verdict"] == c["verdict"], (c, m)
    assert (m["change_pct"] is None and c["change_pct"] is None) or abs(m["change_pct"] - c["change_pct"]) < 1e-6, (c, m)
PY
    done
    # The whole directory, grouped by the setting; its sweep.json given as a file is skipped.
    pga compare --by server.settings.max_connections mc mc/sweep.json
    assert_rc 0
    assert_out 'B = 300 \(4 trials\) against A = 100'
    assert_err 'mc/sweep.json is a sweep.s file, skipped'
    pga compare --by server.settings.nonesuch mc
    assert_rc 2
    assert_one_error_line
    assert_err "every file has server.settings.nonesuch = '\(absent\)'"
    pga compare --by nonsense mc
    assert_rc 2
    assert_one_error_line
    pga sweep --local -c 1 --set max_connections=100,300 --compare scale -o bad
    assert_rc 2
    assert_one_error_line
    assert_err 'compare scale: the sweep has no values on it'
}

# --no-statements: no pg_stat_statements; a sysbench workload's summary says what was loaded.
test_local_no_statements_sysbench_summary() {
    pga run --local --no-statements -w oltp-point-select --tables 2 --table-size 2000 -T 1 -o r.json
    assert_rc 0
    assert_out 'workload: +oltp-point-select \(2 tables × 2,000 rows\)'
    pyjson r.json 'd["workload"]["tables"] == 2 and d["workload"]["table_size"] == 2000'
    pyjson r.json 'd["server"]["settings"]["shared_preload_libraries"] == ""'
    pyjson r.json '"not installed" in d["statements_server_note"]'
    pga run -w oltp-point-select --no-statements -T 1 "$CONN"
    assert_rc 2
    assert_err 'no-statements is for --local'
}

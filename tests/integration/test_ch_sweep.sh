# CH-benCHmark's settings sweep (issue 27 item 4): work_mem 64kB against 64MB on 1 warehouse,
# with per-query verdicts pooled over the queries of each side (docs/compare-method.md §3.7).
# The queries are the two that work_mem moves most, one each way, by EXPLAIN (ANALYZE,
# BUFFERS) at 1 warehouse: Q4's hash semi join of order_line runs in 256 batches at 64kB and
# one at 64MB (latency about 2.5 times lower), while at 64MB the planner gives Q18 a hash
# aggregate over Memoize'd nested loops instead of a sort and a group aggregate, which runs
# about twice as slow. The sweep sets work_mem with ALTER SYSTEM: it runs on a server of its
# own. test_ch.sh's helpers load the data, here into a database of this file's (test_ch.sh
# loads its own anew while this file may run beside it).

. "$PGARENA_TEST_TOP/tests/integration/test_ch.sh"
CH_DB=pgarena_ch_sweep

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
# no predicted query was decided (a burst of load on the machine in some trial).
ch_sweep_verdicts() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
expected = json.loads(sys.argv[2])
assert expected, "the plans predict nothing for q4 and q18"
recs = [c for c in d.get("comparisons") or [] if c.get("script")]
for c in recs:
    print(c["script"], c["metric"], c["a"], c["b"], c["change_pct"], c["ci_low"], c["ci_high"],
          c["verdict"], c["method"], c["df"], c.get("detail"), file=sys.stderr)
# Only the queries: the terminals' scripts, which no trial of -c 0 ran, get no record.
assert {(c["script"], c["metric"]) for c in recs} == {
    (q, m) for q in ("q4", "q18") for m in ("latency_p50", "latency_p95", "latency_p99")}, \
    "per-query records"
lo, up = 1 / 1.02 - 1, 0.02  # the 2 % margin, on latency (lower is better)
for c in recs:
    assert c["value"] == "64MB" and c["baseline"] == "64kB", c
    assert c["cell"] == {"setup": "default", "clients": 0}, c
    # Every trial ran each query the same number of times: both sides always measured.
    assert c["method"] == "pooled" and c["a"] > 0 and c["b"] > 0, c
    # The verdict is what its interval says (§5; pooled records have no gates).
    if c["verdict"] == "better":
        assert c["ci_high"] < 0, c
    if c["verdict"] == "worse":
        assert c["ci_low"] > 0, c
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

# The rows of the HTML report $1's per-script table against sweep.json $2's per-script records:
# one row per record (point, script, latency metric), its change, interval, verdict and method.
ch_report_script_rows() {
    python3 - "$1" "$2" <<'PY'
import html.parser, json, re, sys
class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.cell, self.inside, self.span = [], None, False, {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "script-table":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = [tag, "", int(a.get("rowspan", 1)), a.get("title", "")]
        elif self.inside and tag == "span" and self.cell:
            self.cell[1] += "|" + a.get("class", "") + "|"
    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell:
            self.rows[-1].append(self.cell)
            self.cell = None
    def handle_data(self, data):
        if self.cell:
            self.cell[1] += data
p = Rows()
p.feed(open(sys.argv[1], encoding="utf-8").read())
header, body = p.rows[0], p.rows[1:]
assert [c[1] for c in header] == ["point", "script", "latency", "change [95% CI] verdict method"], header
# Carry the point and script cells down their rowspan.
rows, carry = [], []
for r in body:
    if len(r) == 4:
        carry = [r[0][1], r[1][1]]
        r = r[2:]
    assert len(r) == 2 and carry, r
    rows.append((carry[0], carry[1], r[0][1], r[1][1], r[1][3]))
recs = [c for c in json.load(open(sys.argv[2]))["comparisons"] if c.get("script")]
assert len(rows) == len(recs) == 6, (len(rows), len(recs))
def pct(v):
    return "-" if v is None else (">+999%" if v >= 1000 else ("0.0%" if abs(v) < 0.05 else "%+.1f%%" % v))
for (point, script, metric, text, title), c in zip(rows, recs):
    assert point == "0 clients, work_mem=64MB", point
    assert script == c["script"] and "latency_" + metric == c["metric"], (script, metric, c)
    want = "%s [%s, %s] |verdict v-%s|%s %s" % (
        pct(c["change_pct"]), pct(c["ci_low"]), pct(c["ci_high"]),
        {"no-meaningful-difference": "none"}.get(c["verdict"], c["verdict"]), c["verdict"],
        c["method"])
    assert text.replace("&gt;", ">").startswith(want), (text, want)
    assert title == c["detail"], (title, c["detail"])
print("report: %d per-query rows agree with sweep.json" % len(rows), file=sys.stderr)
PY
}

test_ch_sweep_work_mem() {
    chmod 755 "$T"
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$T/srv'"
    CONN=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$T/srv")
    ch_ensure
    # A power-test sweep (no terminals, one stream, the queries in order), so that each trial
    # runs each query exactly twice (-t counts a stream's queries: 4 = two passes of q4, q18)
    # however slow the machine: 1-3 s a cell here at load average 4-7, 16-31 s in all. Q4 is
    # decided with room to spare (p50 -75 % to -85 %, the interval's near end -55 % or below),
    # Q18 (+30 % to +100 %) about half the time.
    pga sweep -w ch --set work_mem=64kB,64MB -c 0 --analytic-clients 1 --queries 4,18 -t 4 \
        --trials 4 --seed 2 -q --compare work_mem --json -o sw "$C"
    assert_rc 0
    pyjson "$T/out" 'any(c.get("script") == "q18" and c["metric"] == "latency_p50" for c in d["comparisons"])'
    pyjson "$T/out" 'd["points"] and all(p["clients"] == 0 for p in d["points"])'
    pyjson sw/sweep.json 'd["axes"]["clients"] == [0] and all(c["clients"] == 0 and c["file"].startswith("default-c0-") and c["status"] == "complete" for c in d["cells"]) and len(d["cells"]) == 8'
    n=0
    for f in sw/default-c0-work_mem=*-t*.json; do
        pyjson "$f" '[s["name"] for s in d["summary"]["scripts"]][5:] == ["q4", "q18"]'
        pyjson "$f" 'd["options"]["clients"] == 0 and d["summary"]["ch"]["analytic_clients"] == 1 and [s["transactions"] for s in d["summary"]["scripts"]] == [0] * 5 + [2, 2]'
        n=$((n + 1))
    done
    [ "$n" = 8 ] || fail "$n cell files, expected 8"
    expected=$(ch_plan_directions sw/default-c0-work_mem=64kB-t1.json) || fail "EXPLAIN of q4 and q18"
    rc=0
    ch_sweep_verdicts sw/sweep.json "$expected" || rc=$?
    if [ "$rc" = 3 ]; then
        # Nothing decided: every trial ran each query twice, so not missing data but a burst of
        # load in some trial (seen: one cell 5 times slower than the others). Once more.
        echo "no query decided: the sweep once more" >&2
        pga sweep -w ch --set work_mem=64kB,64MB -c 0 --analytic-clients 1 --queries 4,18 -t 4 \
            --trials 4 --seed 3 -q --compare work_mem -o sw2 "$C"
        assert_rc 0
        rc=0
        ch_sweep_verdicts sw2/sweep.json "$expected" || rc=$?
    fi
    [ "$rc" = 0 ] || fail "per-query verdicts of the work_mem sweep"
    # Every cell is complete: the same command resumes with nothing to run and prints the table
    # again, with the per-query block.
    pga sweep -w ch --set work_mem=64kB,64MB -c 0 --analytic-clients 1 --queries 4,18 -t 4 \
        --trials 4 --seed 2 --compare work_mem -o sw "$C"
    assert_rc 0
    ! grep -q 'sweep: cell' "$T/err" || fail "the resumed sweep ran a cell again"
    assert_out "^per script: latency change"
    assert_out "^  0 clients, work_mem=64MB q18: p50 .*pooled"
    ! grep -qE 'new-order|stock-level' "$T/out" || fail "a record for a script no trial ran"
    # The HTML report has the per-query table, row for row as sweep.json.
    pga report sw -o sw.html
    assert_rc 0
    ch_report_script_rows sw.html sw/sweep.json || fail "the report's per-query table"
    grep -q 'No curves: no cell ran a terminal' sw.html || fail "curves of a sweep without terminals"
}

# -c 0 in a sweep's client list is -w ch's power test (the streams alone): its run counts no
# transaction of its own, so a comparison with it has no whole-run record (each would say only
# that a trial measured nothing), and keeps the per-query ones of the queries both sides ran.
test_sweep_zero_clients_ch() {
    ch_ensure
    pga sweep -w ch -c 0,1 --analytic-clients 1 --queries 6 -t 4 --trials 2 --seed 2 \
        --compare clients -q -o sw "$C"
    assert_rc 0
    pyjson sw/sweep.json 'd["axes"]["clients"] == [0, 1] and all(c["status"] == "complete" for c in d["cells"])'
    pyjson sw/sweep.json 'd["comparisons"] and all(c.get("script") == "q6" for c in d["comparisons"])'
    pyjson sw/sweep.json 'all(c["baseline"] == 0 and c["value"] == 1 for c in d["comparisons"])'
    ! grep -q 'measured nothing' sw/sweep.json "$T/out" || fail "a record that says a trial measured nothing"
    assert_out '^  1 client q6: p50 '
}

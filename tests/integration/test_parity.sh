# pgbench parity: per-script results, pgbench's habits (DESIGN.md "pgbench parity").

parity_db() {
    db=$(newdb "$1")
    pga init -s 1 -q "$db"
    assert_rc 0
    echo "$db"
}

# Two scripts of very different cost: summary.scripts[] splits the run between them, adds up
# to the whole, and each script's latency is its own (the sleeper is slower than the select).
test_per_script_results() {
    db=$(parity_db pga_scripts)
    printf 'SELECT pg_sleep(0.005);\n' >slow.sql
    printf '\\set aid random(1, 100000)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n' >fast.sql
    pga run -f slow.sql@1 -f fast.sql@3 -c 2 -j 2 -t 100 -o r.json "$db"
    assert_rc 0
    assert_out '^per script:'
    assert_out '^  slow\.sql +1 +[0-9]+ '
    assert_out '^  fast\.sql +3 +[0-9]+ '
    pyjson r.json 'len(d["summary"]["scripts"]) == 2'
    pyjson r.json '[s["name"] for s in d["summary"]["scripts"]] == ["slow.sql", "fast.sql"] and [s["weight"] for s in d["summary"]["scripts"]] == [1, 3]'
    pyjson r.json 'sum(s["transactions"] for s in d["summary"]["scripts"]) == d["summary"]["transactions"] == 200'
    pyjson r.json 'all(set(s) >= {"name", "weight", "transactions", "failed", "tps", "latency_us"} for s in d["summary"]["scripts"])'
    pyjson r.json 'all(set(s["latency_us"]) == {"min", "mean", "p50", "p90", "p95", "p99", "max"} for s in d["summary"]["scripts"])'
    pyjson r.json 'all(s["histogram"]["count"] == s["transactions"] for s in d["summary"]["scripts"])'
    pyjson r.json '(lambda s: s[0]["latency_us"]["min"] >= 5000 and s[1]["latency_us"]["p50"] < 5000)(d["summary"]["scripts"])'
    pyjson r.json 'abs(sum(s["tps"] for s in d["summary"]["scripts"]) - d["summary"]["tps"]) < 1e-6 * d["summary"]["tps"] + 1e-9'
    # binomial bounds: 200 draws at p = 3/4 give 150 +- 4.3 sd
    pyjson r.json '125 <= d["summary"]["scripts"][1]["transactions"] <= 175'
    # one script: the summary has its row, the text no per-script table
    pga run -f fast.sql -c 1 -t 20 -o one.json "$db"
    assert_rc 0
    grep -q '^per script' "$T/out" && fail "per-script table printed for one script"
    pyjson one.json 'len(d["summary"]["scripts"]) == 1 and d["summary"]["scripts"][0]["transactions"] == 20'
    # show prints the table again; compare and report have per-script rows
    pga show r.json
    assert_rc 0
    assert_out '^  slow\.sql '
    pga run -f slow.sql@1 -f fast.sql@3 -c 2 -j 2 -t 100 -q --label B -o b.json "$db"
    assert_rc 0
    pga compare r.json b.json --json
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "compare --json has no per-script rows"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["scripts"]
assert [(r["script"], r["name"]) for r in rows] == [(s, m) for s in ("slow.sql", "fast.sql") for m in ("latency_p50", "latency_p95", "latency_p99")], rows
assert all(r["a"] > 0 and r["b"] > 0 for r in rows)
PY
    pga compare r.json b.json
    assert_rc 0
    assert_out '^script slow\.sql$'
    pga report r.json b.json -o rep.html
    assert_rc 0
    grep -q '<section id="scripts">' rep.html || fail "no per-script section in the report"
    grep -q 'fast.sql: latency p99' rep.html || fail "no per-script comparison rows in the report"
}

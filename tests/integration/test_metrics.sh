# --metrics-listen (issue 40, items 1 and 4): a real Prometheus (Debian's package) scrapes a run
# every second, and its query API's figures are the result file's; the endpoint answers
# malformed requests with 400, 404 or 405, drops a client that never sends its request, and
# leaves the run's figures alone; a port in use is one line and exit 2 before the run.

# free_port: a TCP port free on loopback now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# pyjson_value FILE EXPR: EXPR's value over the parsed document d.
pyjson_value() {
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$1" "$2"
}

# prom_start TARGET_PORT...: Prometheus on loopback in $T/prom, scraping 127.0.0.1:TARGET_PORT
# (each of them) every second; waits until it is ready (at most 60 s). Its API at
# http://127.0.0.1:$PROM_PORT.
prom_start() {
    command -v prometheus >/dev/null || fail "prometheus is not installed (tests/ensure-deps.sh)"
    PROM_PORT=$(free_port)
    local targets p
    targets=$(for p in "$@"; do printf "'127.0.0.1:%s', " "$p"; done)
    cat >"$T/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: pgarena
    static_configs:
      - targets: [${targets%, }]
EOF
    prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
        --web.listen-address="127.0.0.1:$PROM_PORT" >"$T/prom.log" 2>&1 &
    local pid=$!
    LIB_CLEANUP="${LIB_CLEANUP:-}; kill $pid; wait $pid"
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$T/prom.log" >&2
    fail "prometheus did not become ready"
}

# prom_value QUERY: the value of an instant query's first series ("none" without one).
prom_value() {
    curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
        python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'
}

# prom_dashboard_queries START LABEL RUN_ID: every PromQL expression of
# examples/grafana/pgarena-prometheus.json, its variables' and its panels', through
# Prometheus' query API over START..now as Grafana runs them (a range query, step 1 s), its
# $variables substituted as "All" (.*) and as the run's own label and run_id, and
# $__rate_interval as Grafana makes it of a 1 s scrape (4 s): each variable lists the run's
# value, each panel's query gives series with a number in them (not only NaN); the failures
# panel's by kind.
prom_dashboard_queries() {
    python3 - "$PGARENA_TEST_TOP/examples/grafana/pgarena-prometheus.json" "$PROM_PORT" "$@" <<'PY' ||
import json, math, re, sys, time, urllib.parse, urllib.request
dash = json.load(open(sys.argv[1]))
api = "http://127.0.0.1:%s/api/v1/" % sys.argv[2]
start, label, run_id = float(sys.argv[3]), sys.argv[4], sys.argv[5]
end = time.time()

def get(path, params):
    with urllib.request.urlopen(api + path + "?" + urllib.parse.urlencode(params)) as f:
        d = json.load(f)
    assert d["status"] == "success", d
    return d["data"]

def expand(q, env):
    for k, v in sorted(env.items(), key=lambda kv: -len(kv[0])):
        q = q.replace("$" + k, v)
    assert "$" not in q, q
    return q

n = 0
for env in ({"label": ".*", "run_id": ".*"}, {"label": label, "run_id": run_id}):
    env["__rate_interval"] = "4s"
    for v in dash["templating"]["list"]:
        m = re.fullmatch(r"label_values\((.*), (\w+)\)", v["query"]["query"])
        assert m and v["definition"] == v["query"]["query"], v
        series = get("series", {"match[]": expand(m.group(1), env), "start": start, "end": end})
        got = {s.get(m.group(2)) for s in series}
        assert {"label": label, "run_id": run_id}[v["name"]] in got, (v["name"], got)
        n += 1
    for p in dash["panels"]:
        for t in p["targets"]:
            q = expand(t["expr"], env)
            r = get("query_range", {"query": q, "start": start, "end": end, "step": 1})
            assert r["resultType"] == "matrix" and r["result"], (p["title"], q)
            values = [float(x[1]) for s in r["result"] for x in s["values"]]
            assert any(not math.isnan(x) for x in values), (p["title"], q)
            if "kind" in t["expr"]:
                assert "other" in {s["metric"].get("kind") for s in r["result"]}, (p["title"], r)
            n += 1
print("dashboard queries run:", n)
PY
        fail "a query of the Prometheus dashboard"
}

test_metrics_prometheus_scrapes_a_run() {
    db=$(pgbench_db pga_metrics)
    port=$(free_port)
    prom_start "$port"
    # A quarter of the transactions fail (division by zero: kind "other").
    printf '\\set x random(0, 3)\nSELECT 1 / :x;\n' >fail.sql
    # At a rate (-R), so the schedule lag's panel has figures; labelled, so the label's has one.
    start=$(date +%s)
    pga run -c 2 -j 2 -T 10 -R 400 -f fail.sql --label lab --metrics-listen "$port" -o r.json -q "$db"
    assert_rc 0
    tx=$(pyjson_value r.json 'd["summary"]["transactions"]')
    other=$(pyjson_value r.json 'd["summary"]["errors"]["other"]')
    tps=$(pyjson_value r.json 'int(d["summary"]["tps"]) + 1')
    [ "$other" -gt 0 ] || fail "the script made no failures"
    # The run ended once a scrape had seen its end; Prometheus stores what it scraped then.
    # pgarena_transactions_total counts the measured part's successful transactions (no
    # warmup here; with one, it is left out as summary.transactions leaves it out).
    for _ in $(seq 1 100); do
        got=$(prom_value 'max_over_time(pgarena_transactions_total[5m])')
        [ "$got" != none ] && [ "$got" -ge $((tx - tps)) ] && break
        sleep 0.1
    done
    echo "transactions: file $tx, prometheus $got (one second: $tps)"
    [ "$got" != none ] && [ "$got" -le "$tx" ] && [ "$got" -ge $((tx - tps)) ] ||
        fail "prometheus saw $got transactions, the file $tx"
    # The histogram counts the same transactions (both from one scrape), its +Inf bucket too.
    count=$(prom_value 'max_over_time(pgarena_latency_seconds_count[5m])')
    [ "$count" = "$got" ] || fail "the latency histogram counts $count, the transactions $got"
    inf=$(prom_value 'max_over_time(pgarena_latency_seconds_bucket{le="+Inf"}[5m])')
    [ "$inf" = "$got" ] || fail "the +Inf bucket holds $inf, the transactions $got"
    # The failures under their kind, the others at 0 from the first scrape.
    failed=$(prom_value 'max_over_time(pgarena_failures_total{kind="other"}[5m])')
    echo "failures other: file $other, prometheus $failed"
    [ "$failed" != none ] && [ "$failed" -le "$other" ] && [ "$failed" -ge $((other - tps)) ] ||
        fail "prometheus saw $failed failures of kind other, the file $other"
    [ "$(prom_value 'max_over_time(pgarena_failures_total{kind="deadlock"}[5m])')" = 0 ] ||
        fail "deadlock failures where there were none"
    # The one script's transactions are the run's.
    [ "$(prom_value 'max_over_time(pgarena_script_transactions_total{script="fail.sql"}[5m])')" = "$got" ] ||
        fail "the script's transactions are not the run's"
    # The run's id labels the series; the last phase scraped is done.
    run_id=$(pyjson_value r.json 'd["run_id"]')
    [ "$(prom_value "count(max_over_time(pgarena_transactions_total{run_id=\"$run_id\",workload=\"custom\"}[5m]))")" = 1 ] ||
        fail "no series labelled with the run's run_id"
    [ "$(prom_value 'last_over_time(pgarena_phase{phase="done"}[5m])')" = 1 ] ||
        fail "no scrape saw the phase done"
    # Every series was there from the first scrape: the earliest sample of each is from the
    # same scrape (the phase starting or warmup/measuring, the counters at their values then).
    first=$(prom_value 'count(count_over_time(pgarena_phase[5m]) == scalar(max(count_over_time(pgarena_phase[5m]))))')
    [ "$first" = 4 ] || fail "the phase's four series were not all in every scrape ($first)"
    prom_dashboard_queries "$start" lab "$run_id"
}

# A client that sends nothing, one that sends garbage, a POST, an unknown path, a request
# over the size bound: each gets its answer or is dropped, a good scrape answers meanwhile,
# and the run's figures are those of a run without them.
test_metrics_misbehaving_clients() {
    db=$(pgbench_db pga_metrics_bad)
    port=$(free_port)
    pga_bg run -c 2 -T 6 -P 1 --metrics-listen "$port" -o r.json "$db"
    wait_progress 1
    python3 - "$port" <<'PY' || fail "the endpoint misbehaved"
import socket, sys
port = int(sys.argv[1])

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    return s

def ask(data):
    s = conn()
    s.sendall(data)
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    return out

idle = [conn() for _ in range(3)]            # never send a thing
slow = conn(); slow.sendall(b"GET /metr")    # half a request line, then nothing
assert ask(b"\x16\x03\x01\x02\x00garbage\r\n\r\n").startswith(b"HTTP/1.1 400 "), "garbage"
assert ask(b"POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 405 "), "POST"
assert ask(b"GET /other HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 404 "), "path"
big = ask(b"GET /metrics HTTP/1.1\r\nX-Pad: " + b"a" * 20000 + b"\r\n\r\n")
assert big == b"" or big.startswith(b"HTTP/1.1 400 "), big[:40]
# Many connections at once: it holds as many as its bound, closes the others at once, and
# answers again once they are gone.
# (Those still in the listen backlog when closed are accepted, seen closed and dropped in
# turn: a scrape may be turned away while they are, so it is tried again.)
import time
flood = [conn() for _ in range(40)]
for s in flood:
    s.close()
for _ in range(100):
    try:
        ok = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        if ok:
            break
    except ConnectionError:
        pass
    time.sleep(0.1)
assert ok.startswith(b"HTTP/1.1 200 "), ok[:40]
assert b"application/openmetrics-text" in ok and ok.endswith(b"# EOF\n"), ok[-40:]
old = ask(b"GET /metrics HTTP/1.0\r\nAccept: text/plain;version=0.0.4\r\n\r\n")
assert b"text/plain; version=0.0.4" in old and b"# EOF" not in old, old[:200]
assert b"# TYPE pgarena_transactions_total counter" in old
# The clients that never finished their request are dropped by the server (its read timeout).
for s in idle + [slow]:
    assert s.recv(1) == b"", "a silent client was answered"
    s.close()
PY
    pga_wait
    assert_rc 0
    pyjson r.json 'd["complete"] and d["summary"]["failed"] == 0 and d["summary"]["transactions"] > 0'
}

# The shape of the OpenMetrics text: families with # TYPE and # HELP, every sample of a
# declared family, histograms with their +Inf bucket, _count and _sum, the text ending
# "# EOF"; every series before the clients connect (phase starting, counters 0).
test_metrics_openmetrics_shape() {
    db=$(pgbench_db pga_metrics_shape)
    port=$(free_port)
    pga_bg run -c 1 -T 3 -P 1 --warmup 1 --metrics-listen "$port" -o r.json "$db"
    for _ in $(seq 1 300); do
        curl -sf "http://127.0.0.1:$port/metrics" -o first.txt && break
        sleep 0.05
    done
    wait_progress 1
    curl -sf "http://127.0.0.1:$port/metrics" -o during.txt
    pga_wait
    assert_rc 0
    python3 - first.txt during.txt <<'PY' || fail "the OpenMetrics text is malformed"
import re, sys
names = ["pgarena_transactions_total", "pgarena_statements_total", "pgarena_failures_total",
         "pgarena_retries_total", "pgarena_latency_seconds_bucket", "pgarena_latency_seconds_count",
         "pgarena_schedule_lag_seconds_sum", "pgarena_clients_connected", "pgarena_phase",
         "pgarena_client_stalled_seconds_total", "pgarena_server_wait_samples_total",
         "pgarena_server_wal_bytes_total", "pgarena_script_transactions_total"]
for path in sys.argv[1:]:
    text = open(path).read()
    assert text.endswith("# EOF\n"), path
    types, series = {}, set()
    for line in text.splitlines()[:-1]:
        m = re.match(r"# TYPE (\w+) (counter|gauge|histogram)$", line)
        if m:
            types[m.group(1)] = m.group(2)
            continue
        if line.startswith("# HELP "):
            continue
        m = re.match(r'(\w+)\{run_id="[0-9a-f-]{36}",workload="tpcb-like"(,\w+="[^"]*")?\} (\S+)$', line)
        assert m, line
        float(m.group(3))
        name = m.group(1)
        fam = re.sub(r"(_total|_bucket|_count|_sum)$", "", name)
        assert types.get(fam) or types.get(name), "no # TYPE for " + name
        series.add(name)
    for n in names:
        assert n in series, (path, n)
    assert 'le="+Inf"' in text
    assert re.search(r'pgarena_failures_total\{[^}]*kind="deadlock"\} 0', text)
first = open(sys.argv[1]).read()
# Before any client: the phase is starting (or already warmup), nothing counted yet.
assert re.search(r'pgarena_transactions_total\{[^}]*\} 0\n', first), "counted before the start"
PY
}

test_metrics_port_in_use() {
    port=$(free_port)
    python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("ok", flush=True); time.sleep(60)' "$port" >held &
    holder=$!
    LIB_CLEANUP="${LIB_CLEANUP:-}; kill $holder"
    for _ in $(seq 1 100); do grep -q ok held && break; sleep 0.1; done
    pga run -T 1 --metrics-listen "$port" -o r.json "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err "--metrics-listen $port: cannot listen: Address already in use"
    [ ! -e r.json ] || fail "a result file from a run refused"
}

# A sweep serves every cell under its own run_id, all on the one endpoint: at the end, each
# cell's series are there with the cell's result file's run_id and transactions.
test_metrics_sweep_cells() {
    db=$(pgbench_db pga_metrics_sweep)
    port=$(free_port)
    pga_bg sweep "$db" -c 1,2 -T 1 -q --metrics-listen "$port" -o sw
    # The sweep waits (at most 5 s) for a scrape that sees its end: scrape until one does.
    for _ in $(seq 1 1200); do
        curl -sf "http://127.0.0.1:$port/metrics" -o m.txt 2>/dev/null &&
            [ "$(grep -c 'phase="done"} 1' m.txt)" -eq 2 ] && break
        sleep 0.05
    done
    pga_wait
    assert_rc 0
    [ "$(grep -c 'phase="done"} 1' m.txt)" -eq 2 ] || { cat m.txt; fail "not both cells done"; }
    n=0
    for f in sw/*.json; do
        [ "$(basename "$f")" = sweep.json ] && continue
        id=$(pyjson_value "$f" 'd["run_id"]')
        tx=$(pyjson_value "$f" 'd["summary"]["transactions"]')
        grep -qE "^pgarena_transactions_total\{run_id=\"$id\",label=\"default\",workload=\"tpcb-like\"\} $tx\$" m.txt ||
            { cat m.txt; fail "cell $f: not its run_id with $tx transactions"; }
        n=$((n + 1))
    done
    [ "$n" -eq 2 ] || fail "expected two cells' result files, found $n"
}

# run --agents: each agent serves its own share on its own port. Two agents on this host,
# both scraped by one Prometheus: each agent's series carry its own result file's run_id, and
# its pgarena_transactions_total ends equal to that file's transactions (the merged file's
# are their sum).
test_metrics_agents_each_their_port() {
    db=$(pgbench_db pga_metrics_agents)
    p0=$(free_port)
    p1=$(free_port)
    prom_start "$p0" "$p1"
    PGA_OUT=$T/out0 PGA_ERR=$T/err0 pga_bg run "$db" -S -c 2 -T 3 --agents 2 --agent-index 0 \
        --run-id metrics-agents -q -o a0.json --merged merged.json --metrics-listen "$p0"
    pid0=$PID
    PGA_OUT=$T/out1 PGA_ERR=$T/err1 pga_bg run "$db" -S -c 2 -T 3 --agents 2 --agent-index 1 \
        --run-id metrics-agents -q -o a1.json --metrics-listen "$p1"
    pid1=$PID
    pga_wait "$pid0"
    [ "$RC" -eq 0 ] || { cat "$T/err0"; fail "agent 0: exit $RC"; }
    pga_wait "$pid1"
    [ "$RC" -eq 0 ] || { cat "$T/err1"; fail "agent 1: exit $RC"; }
    sum=0
    for k in 0 1; do
        id=$(pyjson_value "a$k.json" 'd["run_id"]')
        tx=$(pyjson_value "a$k.json" 'd["summary"]["transactions"]')
        [ "$tx" -gt 0 ] || fail "agent $k ran no transactions"
        # Each agent answered until a scrape had seen its end: Prometheus holds that scrape.
        for _ in $(seq 1 100); do
            got=$(prom_value "max_over_time(pgarena_transactions_total{run_id=\"$id\"}[5m])")
            [ "$got" = "$tx" ] && break
            sleep 0.1
        done
        echo "agent $k: file $tx, prometheus $got"
        [ "$got" = "$tx" ] || fail "agent $k: prometheus saw $got transactions, its file $tx"
        # From its own port: the series came from its own target.
        port=$p0
        [ "$k" = 0 ] || port=$p1
        [ "$(prom_value "count(last_over_time(pgarena_transactions_total{run_id=\"$id\",instance=\"127.0.0.1:$port\"}[5m]))")" = 1 ] ||
            fail "agent $k's series not from its own port"
        sum=$((sum + tx))
    done
    pyjson merged.json "d['summary']['transactions'] == $sum"
}

# run --store: the run's row written at its start (complete false) and its intervals as they
# close into the results store, on a connection of its own; a killed run's row and intervals
# stay, recover prints the store command that completes them; history leaves incomplete runs
# out; a store that is down is a warning. And every SQL query of examples/grafana's store
# dashboard, run against a store a real run filled.

live_script() {
    echo 'SELECT 1;' >"$T/one.sql"
}

# live_count STORE SQL: one value from the store.
live_count() {
    sql "$2" "$1"
}

# file_of FILE EXPR: a Python expression of the result file's document d, printed.
file_of() {
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# live_rows STORE: the intervals the store holds of its incomplete runs.
live_rows() {
    live_count "$1" "SELECT count(*) FROM pgarena_results.intervals i JOIN pgarena_results.runs r USING (run_id) WHERE NOT r.complete"
}

# stored_whole STORE FILE: the file's run is in the store, complete, with every interval the
# file holds and no other.
stored_whole() {
    local id n
    id=$(file_of "$2" 'd["run_id"]')
    n=$(file_of "$2" 'len(d["intervals"])')
    [ "$(live_count "$1" "SELECT complete FROM pgarena_results.runs WHERE run_id = '$id'")" = t ] ||
        fail "$2: its row in the store is not complete"
    [ "$(live_count "$1" "SELECT count(*) FROM pgarena_results.intervals WHERE run_id = '$id'")" -eq "$n" ] ||
        fail "$2: the store's intervals are not the file's $n"
}

# live_wait STORE N: until the store holds N intervals of incomplete runs, or the background
# run ended (at most 60 s).
live_wait() {
    for _ in $(seq 1 600); do
        [ "$(live_rows "$1")" -ge "$2" ] && return
        kill -0 "$PID" 2>/dev/null || return
        sleep 0.1
    done
}

# live_pair STORE LABEL LIVE_STORE N [ARGS...]: a finished run labelled LABEL stored into
# STORE (done.json), then one in the background (r.json, ARGS added) storing into LIVE_STORE
# (STORE's conninfo, or more), until STORE holds N intervals of incomplete runs.
live_pair() {
    pga run "$CONN" -f "$T/one.sql" -c 2 -T 3 -q --label "$2" --store "$1" -o done.json
    assert_rc 0
    pga_bg run "$CONN" -f "$T/one.sql" -c 1 -T 120 -q -o r.json --store "$3" "${@:5}"
    live_wait "$1" "$4"
}

test_store_live_run() {
    live_script
    local store id
    store=$(newdb pga_live1)
    pga run "$CONN" -f "$T/one.sql" -c 2 -T 4 --label live --store "$store" -o r.json
    assert_rc 0
    assert_out '^stored: +1 run \(0 already there\)'
    id=$(file_of r.json 'd["run_id"]')
    [ "$(file_of r.json 'len(d["intervals"])')" -ge 4 ] || fail "the file holds too few intervals"
    # The intervals in the store are the file's, figure for figure.
    stored_whole "$store" r.json
    live_count "$store" "SELECT json_agg(figures ORDER BY t_s) FROM pgarena_results.intervals WHERE run_id = '$id'" >stored.json
    python3 - r.json stored.json <<'PY' || fail "the stored intervals differ from the file's"
import json, sys
f, s = json.load(open(sys.argv[1]))["intervals"], json.load(open(sys.argv[2]))
assert f == s, (len(f), len(s))
PY
    [ "$(live_count "$store" "SELECT version FROM pgarena_results.version")" -eq 2 ] || fail "schema version"
    # Stored again: a complete row is never replaced.
    pga store r.json --into "$store"
    assert_rc 0
    assert_out '^stored: +0 runs \(1 already there\)'
}

# A run killed midway: its row incomplete and the intervals it had stored; history leaves it
# out; recover prints the command (password masked) whose store replaces the row.
test_store_live_killed_then_recovered() {
    live_script
    local store
    store=$(newdb pga_live2)
    live_pair "$store" live "$store password=secret" 3 --label live
    kill -KILL "$PID"
    wait "$PID" || true
    [ "$(live_count "$store" "SELECT count(*) FROM pgarena_results.runs WHERE NOT complete")" -eq 1 ] ||
        fail "no incomplete row after SIGKILL"
    stored=$(live_rows "$store")
    [ "$stored" -ge 3 ] || fail "the killed run left $stored intervals in the store"
    pga history "$store" --json
    assert_rc 0
    pyjson "$T/out" 'sum(len(m["points"]) for s in d["series"] for m in s["metrics"][:1]) == 1'
    pga recover r.json
    assert_rc 0
    assert_out '^store it: +pgarena store --into .*password=\*\*\*.* r\.json$'
    if grep -q secret "$T/out"; then fail "recover printed the password"; fi
    # The command it printed, as it is (trust authentication: the masked password is unused).
    eval "set -- $(sed -n 's/^store it: *pgarena //p' "$T/out")"
    pga "$@"
    assert_rc 0
    assert_out '^stored: +1 run \(0 already there\)'
    # The recovered file replaced the incomplete row; the store had none of its intervals that
    # the file lacks.
    stored_whole "$store" r.json
    [ "$(file_of r.json 'len(d["intervals"])')" -ge "$stored" ] || fail "the file holds fewer intervals than the store had"
    pga history "$store" --json
    assert_rc 0
    pyjson "$T/out" 'sum(len(m["points"]) for s in d["series"] for m in s["metrics"][:1]) == 2'
}

# sweep --store: each cell streams as a run does. Killed in its second cell, the sweep never
# stored its directory: the first cell's row is the one it streamed, with every interval its
# file holds; storing the directory completes it.
test_store_live_sweep_cells() {
    live_script
    local store
    store=$(newdb pga_live4)
    pga_bg sweep "$CONN" -f "$T/one.sql" -c 1 --trials 2 -T 3 -q -o sw --store "$store"
    for _ in $(seq 1 600); do
        [ "$(live_count "$store" "SELECT count(DISTINCT run_id) FROM pgarena_results.intervals")" -ge 2 ] && break
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$PID"
    wait "$PID" || true
    first=$(ls sw/*.json | grep -v sweep.json | head -n 1)
    [ -n "$first" ] || fail "no cell's result in the directory"
    id=$(file_of "$first" 'd["run_id"]')
    [ "$(live_count "$store" "SELECT count(*) FROM pgarena_results.intervals WHERE run_id = '$id'")" -eq "$(file_of "$first" 'len(d["intervals"])')" ] ||
        fail "the first cell did not stream its intervals"
    [ "$(live_count "$store" "SELECT count(*) FROM pgarena_results.runs WHERE NOT complete")" -eq 2 ] ||
        fail "the cells' rows are not incomplete before the directory is stored"
    pga store sw --into "$store"
    assert_rc 0
    stored_whole "$store" "$first"
}

# A store that cannot be reached: a warning, and the run goes on to its result.
test_store_live_down() {
    live_script
    pga run "$CONN" -f "$T/one.sql" -c 1 -T 2 -q -o r.json \
        --store "host=127.0.0.1 port=1 dbname=nostore connect_timeout=2"
    assert_err "^pgarena: warning: the results store does not take the run's intervals as they close"
    pyjson r.json 'd["complete"] is True and len(d["intervals"]) >= 2'
    # The result stored at the end fails as before: the run's status says so.
    assert_rc 1
}

# A store that takes the connection and never answers: the thread gives up connecting (3 s)
# and says so once; the run goes on, its intervals all in its file.
test_store_live_silent() {
    live_script
    mkfifo "$T/port"
    python3 - >"$T/port" <<'PY' &
import socket, sys, time
listener = socket.create_server(("127.0.0.1", 0))
print(listener.getsockname()[1], flush=True)
sys.stdout.close()
kept, until = [], time.monotonic() + 120
listener.settimeout(0.5)
while time.monotonic() < until:
    try:
        kept.append(listener.accept()[0])  # read nothing, answer nothing
    except socket.timeout:
        continue
PY
    LIB_CLEANUP="kill $!"
    read -r port <"$T/port"
    PGA_WRAP="timeout 100" pga run "$CONN" -f "$T/one.sql" -c 1 -T 4 -q -o r.json \
        --store "host=127.0.0.1 port=$port dbname=nostore"
    assert_err "^pgarena: warning: the results store does not take the run's intervals as they close \(could not connect to server: .*timeout expired\)"
    [ "$(grep -c 'does not take' "$T/err")" -eq 1 ] || fail "more than one warning of the store"
    pyjson r.json 'd["complete"] is True and len(d["intervals"]) >= 4 and d["summary"]["transactions"] > 0'
    assert_rc 1
}

# Every query of examples/grafana/pgarena-store.json (its variables and panels), its
# $variables and Grafana's $__timeFilter substituted, against a store filled by a real run
# and a live one: rows, with the columns its panel reads.
test_grafana_store_dashboard_queries() {
    live_script
    local store
    store=$(newdb pga_live3)
    live_pair "$store" dash "$store" 1
    python3 - "$PGARENA_TEST_TOP/examples/grafana/pgarena-store.json" "$store" "$PSQL" <<'PY' || fail "a dashboard query"
import csv, io, json, subprocess, sys
dash, store, psql = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]

def run(q):
    out = subprocess.run([psql, "-X", "-q", "--csv", "-v", "ON_ERROR_STOP=1", store, "-c", q],
                         check=True, capture_output=True, text=True).stdout
    rows = list(csv.reader(io.StringIO(out)))
    return rows[0], rows[1:]

def values(q):
    return [r[0] for r in run(q)[1]]

def quoted(vs):
    return ",".join("'%s'" % v.replace("'", "''") for v in vs)

def expand(q, env):
    # Grafana's $__timeFilter(EXPR): EXPR BETWEEN the range's ends (a day either side of now)
    while "$__timeFilter(" in q:
        a = q.index("$__timeFilter(")
        depth, b = 0, a + len("$__timeFilter")
        for b in range(b, len(q)):
            depth += {"(": 1, ")": -1}.get(q[b], 0)
            if depth == 0:
                break
        q = (q[:a] + "(" + q[a + len("$__timeFilter("):b] + ")"
             + " BETWEEN now() - interval '1 day' AND now() + interval '1 day'" + q[b + 1:])
    for k, v in env.items():
        q = q.replace("$" + k, v)
    assert "$" not in q, q
    return q

env = {}
variables = dash["templating"]["list"]
assert [v["name"] for v in variables] == ["label", "run"], variables
for v in variables:
    head, rows = run(expand(v["query"], env))
    assert rows, v["name"]
    if v["name"] == "label":
        assert set(r[0] for r in rows) == {"dash", "(none)"}, rows
        env["label"] = quoted(r[0] for r in rows)
    else:
        assert head == ["__value", "__text"], head
        assert len(rows) == 2 and sum(r[1].endswith("(running or died)") for r in rows) == 1, rows
        env["run"] = quoted(r[0] for r in rows)
panels = dash["panels"]
assert len(panels) >= 5
for p in panels:
    for t in p["targets"]:
        head, rows = run(expand(t["rawSql"], env))
        assert rows, p["title"]
        if t["format"] == "time_series":
            assert head[0] == "time" and head[1] == "metric" and len(head) >= 3, (p["title"], head)
            names = set(r[1] for r in rows)
            assert len(names) == 2, (p["title"], names)  # the finished run and the live one
            for r in rows:
                for x in r[2:]:
                    float(x)
        else:
            assert len(rows) == 2, (p["title"], rows)
            for col in ("run_id", "label", "complete", "tps", "serialization", "lag_p99_ms", "intervals"):
                assert col in head, (p["title"], col, head)
print("queries:", sum(len(p["targets"]) for p in panels) + len(variables))
PY
    kill -INT "$PID"
    pga_wait
    # The Prometheus dashboard: its queries use the names DESIGN.md lists (its queries run
    # against a real Prometheus in the metrics endpoint's tests).
    python3 - "$PGARENA_TEST_TOP/examples/grafana/pgarena-prometheus.json" <<'PY' || fail "the Prometheus dashboard"
import json, re, sys
d = json.load(open(sys.argv[1]))
names = {"pgarena_transactions_total", "pgarena_statements_total", "pgarena_failures_total",
         "pgarena_retries_total", "pgarena_latency_seconds_bucket", "pgarena_schedule_lag_seconds_bucket",
         "pgarena_clients_connected", "pgarena_phase", "pgarena_client_stalled_seconds_total",
         "pgarena_server_wait_samples_total", "pgarena_server_wal_bytes_total"}
used = set()
for p in d["panels"]:
    for t in p["targets"]:
        used |= set(re.findall(r"pgarena_[a-z_]+", t["expr"]))
assert used == names, used ^ names
PY
}

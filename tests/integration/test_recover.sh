# Crash-safe results: the journal RESULT.json.journal during a run, `pgarena recover` after
# SIGKILL, and what show/compare/report say about a missing result whose journal exists.

# Lines of r.json.journal (header + intervals), 0 when missing.
# The header and the interval lines (not the snapshot and events lines between them).
journal_lines() { [ -e r.json.journal ] && echo $(($(grep -c '^{"t_s":' r.json.journal) + 1)) || echo 0; }
# Wait (at most 30 s) until journal_lines is at least N.
wait_journal_intervals() {
    for _ in $(seq 1 300); do [ "$(journal_lines)" -ge "$1" ] && return; sleep 0.1; done
}

test_sigkill_then_recover() {
    db=$(newdb pga_kill)
    pga init -s 1 -q "$db"
    pga_bg run -w select-only -c 2 -j 2 -T 60 -q -o r.json "$db"
    # Kill once the journal holds at least 3 intervals, counted as interval lines: a sampled
    # run writes events lines between them, one or more (seen in CI: 5 lines, 2 intervals).
    wait_journal_intervals 4
    kill -KILL "$PID"
    wait "$PID" || true
    [ ! -e r.json ] || fail "a result file exists after SIGKILL"
    lines=$(journal_lines)
    [ "$lines" -ge 4 ] || fail "the journal holds $lines lines after SIGKILL"
    head -n 1 r.json.journal | grep -q '"end_reason":"running"' || fail "journal header"

    # show, compare and report name the way out; run refuses to overwrite the journal.
    for cmd in "show r.json" "compare r.json r.json" "report r.json -o x.html"; do
        pga $cmd
        assert_rc 2
        assert_one_error_line
        assert_err 'r.json.journal holds a run that did not end: run `pgarena recover r.json`'
    done
    pga run -w select-only -T 1 -q -o r.json "$db"
    assert_rc 2
    assert_one_error_line

    cp r.json.journal journal.copy
    pga recover r.json
    assert_rc 0
    assert_out '^transactions: +[1-9]'
    assert_out "^intervals recovered: +$((lines - 1))\$"
    [ ! -e r.json.journal ] || fail "the journal is still there after recover"
    pyjson r.json 'd["version"] == 3 and d["complete"] is False and d["end_reason"] == "killed"'
    pyjson r.json "len(d['intervals']) == $((lines - 1))"
    pyjson r.json '[i["t_s"] for i in d["intervals"]] == [float(k + 1) for k in range(len(d["intervals"]))]'
    # Every interval's histogram holds its transactions, and there are some (not in each
    # interval: a stall of this VM's CPU can empty one).
    pyjson r.json 'all(i["histogram"]["count"] == i["transactions"] for i in d["intervals"]) and d["summary"]["transactions"] > 0'
    pyjson r.json 'd["summary"]["transactions"] == sum(i["transactions"] for i in d["intervals"])'
    pyjson r.json 'd["histogram"]["count"] == d["summary"]["transactions"]'
    pyjson r.json 'd["summary"]["duration_s"] == d["intervals"][-1]["t_s"]'
    pyjson r.json 'abs(d["summary"]["tps"] * d["summary"]["duration_s"] - d["summary"]["transactions"]) < 1'
    pyjson r.json '0 < d["summary"]["latency_us"]["p50"] <= d["summary"]["latency_us"]["p99"] <= d["summary"]["latency_us"]["max"]'
    pyjson r.json 'd["finished_at"] is not None and d["workload"]["name"] == "select-only"'
    # The whole run's waits, rebuilt from the intervals' events (the run was sampled).
    python3 - r.json <<'PY' || fail "recover did not rebuild the whole run's waits"
import json, sys, collections
d = json.load(open(sys.argv[1]))
w = d["waits"]
total = collections.Counter()
for i in d["intervals"]:
    total.update(i.get("waits", {}))
assert w["sample_ms"] == 100 and w["events"] == dict(total) and len(total) > 0, (w, total)
assert abs(w["samples"] - d["summary"]["duration_s"] * 10) <= 1, w
assert w["note"].startswith("rebuilt by recover from the journal's intervals"), w
PY
    # client_cpu and waits.visibility: the intervals' client CPU over their lengths, and the
    # busiest thread and visibility of the journal's last sampler line.
    python3 - r.json journal.copy <<'PY' || fail "recover did not derive client_cpu and waits.visibility"
import json, sys
d = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2]) if l.startswith('{"sampler":')]
assert lines, "no sampler line in the journal"
last = lines[-1]["sampler"]
c, iv = d["client_cpu"], d["intervals"]
assert d["waits"]["visibility"] == last["visibility"] == "all", (d["waits"], last)
assert abs(c["max_thread"] - last["max_thread"]) <= 1e-4, (c, last)
span = sum(i["duration_s"] for i in iv if "client_cpu" in i)
user = sum(i["client_cpu"][0] / 1e4 * i["duration_s"] for i in iv if "client_cpu" in i) / span
system = sum(i["client_cpu"][1] / 1e4 * i["duration_s"] for i in iv if "client_cpu" in i) / span
assert abs(c["user"] - user) <= 2e-4 and abs(c["system"] - system) <= 2e-4 and user + system > 0, (c, user, system)
PY
    pga show r.json --intervals
    assert_rc 0
    assert_out 'INCOMPLETE'
    python3 -c 'import json; d = json.load(open("r.json")); d["label"] = "again"; json.dump(d, open("r2.json", "w"))'
    pga compare r.json r2.json
    assert_rc 0
    pga report r.json -o x.html
    assert_rc 0
    pga recover r.json
    assert_rc 2
    assert_one_error_line
}

# A normal end writes the result with every interval from the journal and removes it.
test_journal_during_and_after_run() {
    db=$(newdb pga_journal)
    pga init -s 1 -q "$db"
    pga_bg run -w select-only -c 2 -T 4 -q -o r.json "$db"
    # Watched until the run ends, however long a stall makes it.
    seen=0
    while kill -0 "$PID" 2>/dev/null; do
        [ "$(journal_lines)" -ge 2 ] && { seen=1; break; }
        sleep 0.1
    done
    pga_wait
    [ "$RC" -eq 0 ] || { cat "$T/err"; fail "run failed"; }
    [ "$seen" -eq 1 ] || fail "no interval line in the journal while the run went on"
    [ ! -e r.json.journal ] || fail "the journal was left after a normal end"
    pyjson r.json 'd["version"] == 3 and d["complete"] is True and d["summary"]["duration_s"] >= 4'
    pyjson r.json '[i["t_s"] for i in d["intervals"]][:4] == [1.0, 2.0, 3.0, 4.0] and len(d["intervals"]) <= 5'
    pyjson r.json 'd["summary"]["transactions"] == sum(i["transactions"] for i in d["intervals"])'
    pyjson r.json 'all("compact" in i["histogram"] and "bins" not in i["histogram"] for i in d["intervals"])'
    pyjson r.json 'len(d["histogram"]["bins"]) > 0'
}

# A run killed after a checkpoint keeps what the server did underneath: the journal's events
# lines give recover the checkpoint event and the measured start, the interval lines their
# server_io, and recover sums them into the per-transaction figures.
test_sigkill_after_checkpoint_then_recover() {
    db=$(newdb pga_ckkill)
    pga init -s 1 -q "$db"
    pga_bg run -w tpcb-like -c 2 -T 60 -q -o r.json "$db"
    wait_journal_intervals 3
    sql CHECKPOINT "$db"
    # The sampler sees it at its next interval's read: an events line with a checkpoint.
    for _ in $(seq 1 60); do
        grep -q '^{"events":.*"kind":"checkpoint"' r.json.journal && break
        sleep 0.1
    done
    # The checkpointer counts a checkpoint in pg_stat_bgwriter only once it is done, and the
    # interval that reads the count may be journaled after the events line: wait for it (CI
    # once killed the run one line too early).
    for _ in $(seq 1 100); do
        grep -qE '"ckpt_req": ?[1-9]' r.json.journal && break
        sleep 0.1
    done
    kill_at_journal $PID r.json.journal $(($(wc -l <r.json.journal) + 1))
    grep -q '^{"events":.*"kind":"checkpoint"' r.json.journal || fail "no checkpoint in the journal's events lines"
    lines=$(journal_lines)
    pga recover r.json
    assert_rc 0
    assert_out "^intervals recovered: +$((lines - 1))\$"
    pyjson r.json 'd["complete"] is False and len(d["intervals"]) == '$((lines - 1))
    pyjson r.json 'any(e["kind"] == "checkpoint" and e["phase"] == "start" for e in d["events"])'
    pyjson r.json '[e["t_s"] for e in d["events"]] == sorted(e["t_s"] for e in d["events"])'
    pyjson r.json 'd["summary"]["events"]["checkpoint"] == sum(1 for e in d["events"] if e["kind"] == "checkpoint" and e["phase"] == "start") >= 1'
    pyjson r.json 'd["measured_start_at"].endswith("Z") and "wal_bytes" in d["server_io_fields"] and "io" not in d["server_io_fields"]'
    pyjson r.json 'sum(1 for i in d["intervals"] if "server_io" in i) >= 2'
    pyjson r.json 'sum(i.get("server_io", {}).get("ckpt_req", 0) for i in d["intervals"]) >= 1'
    # The per-transaction figures are the intervals' sums over the transactions.
    python3 - r.json <<'PY' || fail "server_io_per_tx is not the intervals' sum"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["summary"]["server_io_per_tx"]
wal = sum(i.get("server_io", {}).get("wal_bytes", 0) for i in d["intervals"])
tx = d["summary"]["transactions"]
assert wal > 0 and abs(p["wal_bytes"] - wal / tx) <= 1e-6 * p["wal_bytes"] + 1e-9, (p, wal, tx)
assert p["temp_bytes"] is not None and p["buffers_written"] is not None, p
# server_stats (read at the run's end) from the same sums, null where they have none
st = d["server_stats"]
assert st["wal_bytes"] == wal and st["checkpoints"] >= 1 and st["xact_commit"] is None, st
assert 0 < st["cache_hit_ratio"] <= 1, st
PY
    # A run of one script: its figures are the run's.
    pyjson r.json '[(s["name"], s["transactions"], s["failed"], s["tps"], s["latency_us"]["p99"]) for s in d["summary"]["scripts"]] == [("builtin: tpcb-like", d["summary"]["transactions"], d["summary"]["failed"], d["summary"]["tps"], d["summary"]["latency_us"]["p99"])]'
    pga show r.json
    assert_rc 0
    assert_out 'server events: +[0-9]+ checkpoint'
}

# A killed run of two scripts, paced by -R with --latency-limit and retrying serialization
# failures: its journal's counters lines give recover clients[], statements[], both scripts'
# figures, retries, skipped, late, errors and the -R lag as of the last one (counters_as_of_s),
# each agreeing with the intervals up to it, and recover keeps every interval (counts, not
# timing).
test_sigkill_then_recover_counters() {
    db=$(newdb pga_kcount)
    pga init -s 1 -q "$db"
    sql "ALTER DATABASE pga_kcount SET default_transaction_isolation = serializable" "$db"
    # a: reads ten rows, sleeps, updates one of them: concurrent ones fail to serialize.
    # b: a sleep. Every transaction lasts 20 ms or more, beyond --latency-limit 10, and four
    # clients cannot keep up with -R 400: every success is late, and some are skipped.
    cat >a.sql <<'SQL'
\set aid random(1, 10)
BEGIN;
SELECT sum(abalance) FROM pgbench_accounts WHERE aid <= 10;
SELECT pg_sleep(0.02);
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
END;
SQL
    echo 'SELECT pg_sleep(0.03);' >b.sql
    pga_bg run -f a.sql@3 -f b.sql@1 -c 4 -j 2 -T 120 -R 400 --latency-limit 10 \
        --max-tries 10 -q -o r.json "$db"
    # Killed, most likely, with an interval line after the last counters line (not asserted:
    # one may come between the look and the kill).
    for _ in $(seq 1 600); do
        [ "$(cat r.json.journal 2>/dev/null | grep -c '^{"counters":' || true)" -ge 3 ] &&
            tail -n 1 r.json.journal | grep -q '^{"t_s":' && break
        sleep 0.1
    done
    kill -KILL "$PID"
    wait "$PID" || true
    cp r.json.journal journal.copy
    lines=$(($(grep -c '^{"t_s":' journal.copy) + 1))
    pga recover r.json
    assert_rc 0
    assert_out "^intervals recovered: +$((lines - 1))\$"
    python3 - r.json journal.copy <<'PY' || fail "recover's counted figures disagree with the journal"
import json, sys
d = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2]).read().split("\n")[1:-1]]
c = [l["counters"] for l in lines if "counters" in l][-1]
ivs = [l for l in lines if "t_s" in l]
s = d["summary"]
# every interval is kept, and the summary is theirs
assert len(d["intervals"]) == len(ivs) and ivs[-1]["t_s"] == s["duration_s"], (len(ivs), s)
assert s["transactions"] == sum(i["transactions"] for i in ivs) > 0, s
assert s["failed"] == sum(i["failed"] for i in ivs), s
# the counted figures are as of the last counters line, right after an interval line
asof = d["counters_as_of_s"]
assert asof == c["t_s"] in [i["t_s"] for i in ivs], (asof, c["t_s"])
upto = [i for i in ivs if i["t_s"] <= asof]
tx, failed = sum(i["transactions"] for i in upto), sum(i["failed"] for i in upto)
assert tx > 0 and s["transactions"] >= tx and s["failed"] >= failed, (tx, failed, s)
# clients[]: the four clients, summing to the intervals' counts up to then
assert [[x["transactions"], x["failed"]] for x in d["clients"]] == c["clients"] and len(c["clients"]) == 4, d["clients"]
assert sum(x["transactions"] for x in d["clients"]) == tx, (d["clients"], tx)
assert sum(x["failed"] for x in d["clients"]) == failed, (d["clients"], failed)
# summary.scripts[]: both scripts, summing to the same, their tps over that time
sc = s["scripts"]
assert [x["name"] for x in sc] == ["a.sql", "b.sql"] and [x["weight"] for x in sc] == [3, 1], sc
assert all(x["transactions"] > 0 and x["histogram"]["count"] == x["transactions"] for x in sc), sc
assert sum(x["transactions"] for x in sc) == tx, (sc, tx)
assert sum(x["failed"] for x in sc) == failed and sc[1]["failed"] == 0, (sc, failed)
assert all(abs(x["tps"] * asof - x["transactions"]) < 1e-6 * x["transactions"] + 1e-3 for x in sc), sc
# statements[]: a's five and b's one; a statement ends before its transaction, and at most
# one per client is in flight
st = d["statements"]
assert [x["script"] for x in st] == ["a.sql"] * 5 + ["b.sql"], st
assert sc[1]["transactions"] <= st[5]["count"] <= sc[1]["transactions"] + 4, (st[5], sc[1])
assert st[2]["count"] >= sc[0]["transactions"] and st[2]["latency_us"]["p99"] >= 20000, (st[2], sc[0])
assert [x["count"] for x in st] == [x[0] for x in c["statements"]], st
# retries, errors (the failures up to then, by class), skipped, late and lag
assert s["retries"] == c["retries"] >= s["retried"] > 0 and s["retried"] == c["retried"], s
assert sum(s["errors"].values()) == failed and list(s["errors"].values()) == c["errors"], (s, failed)
assert s["skipped"] == c["skipped"] > 0, s
assert s["late"] == tx == c["late"], (s, tx)
assert 0 < s["lag_us"]["mean"] and 0 < s["lag_us"]["p99"] <= s["lag_us"]["max"], s
PY
    pga show r.json
    assert_rc 0
    assert_out 'skipped: [1-9]'
}

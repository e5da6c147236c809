# Inside the server: per-interval server_io from the server's
# own views, events (checkpoints, autovacuum, a standby behind), the summary's figures, show
# --intervals' columns and compare naming the internals that changed. PostgreSQL 15 is what
# the harness has: the 16 and 17 paths (pg_stat_io, pg_stat_checkpointer) are covered by
# tests/unit/test_server_io.c with recorded answers.

SIO_PS="$PGARENA_TEST_TOP/tests/pg-servers.sh"

# sio_server NAME OPTION...: a server of the test's own in $T/NAME; prints its local conninfo.
sio_server() {
    local name=$1 port
    shift
    chmod 755 "$T"
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$SIO_PS' stop '$T/$name'"
    sh "$SIO_PS" start "$T/$name" "$@" >/dev/null
    read -r _ port <"$T/$name/listen"
    echo "host=$T/$name port=$port user=postgres dbname=postgres"
}

# Checkpoints at the times the server log gives, and autovacuum of a workload table. The
# server's checkpoint_timeout is 30 s (its minimum); rather than wait 70 s for two timed
# checkpoints, the test requests two (CHECKPOINT) during a 7 s write run: the sampler sees
# them through the same counters and checkpointer state. Aggressive autovacuum settings make
# the update-heavy run's tables vacuumed within seconds.
test_server_io_checkpoints_autovacuum() {
    local db
    db=$(sio_server ck conf=checkpoint_timeout=30s conf=log_checkpoints=on \
        conf=autovacuum_naptime=1 conf=autovacuum_vacuum_threshold=50 \
        conf=autovacuum_vacuum_scale_factor=0 conf=autovacuum_analyze_threshold=50 \
        conf=autovacuum_analyze_scale_factor=0)
    pga init -s 1 -q "$db"
    assert_rc 0
    pga_bg run -w tpcb-like -c 2 -T 7 -P 1 -o r.json "$db"
    wait_progress 1
    sql CHECKPOINT "$db"
    sleep 2.5
    sql CHECKPOINT "$db"
    pga_wait
    assert_rc 0
    python3 - "$T/ck/server.log" <<'PY' || fail "checkpoint events do not match the server log"
import datetime, json, sys
log = sys.argv[1]
d = json.load(open("r.json"))
utc = datetime.timezone.utc
start = datetime.datetime.strptime(d["measured_start_at"], "%Y-%m-%dT%H:%M:%S.%fZ")
start = start.replace(tzinfo=utc).timestamp()
starts = [e["t_s"] for e in d["events"] if e["kind"] == "checkpoint" and e["phase"] == "start"]
logged = []
for line in open(log):
    if "checkpoint starting: immediate" in line:
        stamp = datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S.%f")
        t = stamp.replace(tzinfo=utc).timestamp() - start
        if 0 < t < 7:
            logged.append(t)
print("checkpoint events", starts, "log", logged, file=sys.stderr)
assert len(starts) >= 2 and len(logged) == 2, (starts, logged)
# Each logged start has an event within one interval (1 s).
assert all(any(abs(s - t) <= 1.0 for s in starts) for t in logged), (starts, logged)
assert d["summary"]["events"]["checkpoint"] >= 2
assert sum(i.get("server_io", {}).get("ckpt_req", 0) for i in d["intervals"]) >= 1
PY
    pyjson r.json 'any(e["kind"] in ("autovacuum", "autoanalyze") and e["phase"] == "start" and (e["detail"] or "").startswith("public.pgbench_") for e in d["events"])'
    pyjson r.json 'sum(i.get("server_io", {}).get("autovacuum", 0) + i.get("server_io", {}).get("autoanalyze", 0) for i in d["intervals"]) >= 1'
    # Absent and zero: 15 lacks pg_stat_io, and reports everything else.
    pyjson r.json '"io" not in d["server_io_fields"] and "wal_fpi" in d["server_io_fields"] and d["version"] == 3'
    pyjson r.json 'all("io" not in i.get("server_io", {}) for i in d["intervals"]) and sum(1 for i in d["intervals"] if "server_io" in i) >= 6'
    pyjson r.json 'd["summary"]["server_io_per_tx"]["wal_bytes"] > 0'
    pga show --intervals r.json
    assert_rc 0
    assert_out 'wal_MB ckpt +hit_% +temp_MB +av'
    assert_out ' yes '
    pga show r.json
    assert_out 'server events: +[0-9]+ checkpoints'
    pga report r.json -o r.html
    assert_rc 0
    grep -q 'class="event"' r.html || fail "no event bands in the report"
    grep -q 'Inside the server' r.html || fail "no Inside the server section"
}

# A dataset larger than a small shared_buffers: a lower hit ratio than on a server where it
# fits (the harness's, 128MB). A table of 2.6 MB read at random by its index.
test_server_io_hit_ratio() {
    local small big
    small=$(sio_server sb conf=shared_buffers=128kB)
    big=$(newdb sio_hit)
    for db in "$small" "$big"; do
        sql "CREATE TABLE t AS SELECT g AS id, repeat('x', 100) AS v FROM generate_series(1, 20000) g;
             CREATE INDEX ON t (id); ANALYZE t" "$db" >/dev/null
    done
    printf '\\set id random(1, 20000)\nSELECT v FROM t WHERE id = :id;\n' >read.sql
    pga run -f read.sql -c 2 -T 2 -q -o small.json "$small"
    assert_rc 0
    pga run -f read.sql -c 2 -T 2 -q -o big.json "$big"
    assert_rc 0
    python3 - <<'PY' || fail "the hit ratio is not lower with a small shared_buffers"
import json
def ratio(path):
    iv = [i["server_io"] for i in json.load(open(path))["intervals"] if "server_io" in i]
    hit, read = sum(s.get("blks_hit", 0) for s in iv), sum(s.get("blks_read", 0) for s in iv)
    return hit / (hit + read)
small, big = ratio("small.json"), ratio("big.json")
print("hit ratio small", small, "big", big)
assert small < big - 0.05 and big > 0.95, (small, big)
PY
    pga compare big.json small.json
    assert_rc 0
    assert_out 'shared-buffer hit ratio'
}

# work_mem = 64kB makes the sort spill: temp bytes above 0, named by compare against 64MB.
test_server_io_temp_bytes_compare() {
    local db
    db=$(newdb sio_temp)
    echo 'SELECT count(*) FROM (SELECT g FROM generate_series(1, 20000) g ORDER BY random()) s;' >sort.sql
    PGOPTIONS='-c work_mem=64MB' pga run -f sort.sql -c 1 -T 2 -q --label big -o big.json "$db"
    assert_rc 0
    PGOPTIONS='-c work_mem=64kB' pga run -f sort.sql -c 1 -T 2 -q --label small -o small.json "$db"
    assert_rc 0
    pyjson small.json 'd["server"]["settings"]["work_mem"] == "64kB" and d["summary"]["server_io_per_tx"]["temp_bytes"] > 0'
    pyjson small.json 'sum(i.get("server_io", {}).get("temp_bytes", 0) for i in d["intervals"]) > 0'
    pyjson big.json 'd["summary"]["server_io_per_tx"]["temp_bytes"] == 0'
    pga compare big.json small.json
    assert_rc 0
    assert_out 'server internals that changed most'
    assert_out 'temp bytes per transaction +0 B'
    pga compare --json big.json small.json
    assert_rc 0
    pyjson out 'any(x["name"] == "temp_bytes_per_tx" and x["a"] == 0 and x["b"] > 0 for x in d["internals"])'
}

# A primary with a streaming standby whose replay is paused: lag in bytes and seconds, and a
# standby-lag event once it is more than 1 s behind.
test_server_io_standby_lag() {
    local primary standby sport
    primary=$(sio_server primary)
    pga init -s 1 -q "$primary"
    assert_rc 0
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$SIO_PS' stop '$T/standby'"
    sh "$SIO_PS" standby "$T/primary" "$T/standby" >/dev/null
    read -r _ sport <"$T/standby/listen"
    standby="host=$T/standby port=$sport user=postgres dbname=postgres"
    sql "SELECT pg_wal_replay_pause()" "$standby" >/dev/null
    pga run -w tpcb-like -c 2 -T 4 -q -o r.json "$primary"
    assert_rc 0
    sql "SELECT pg_wal_replay_resume()" "$standby" >/dev/null
    pyjson r.json 'max(max((l.get("bytes", 0) for l in i.get("server_io", {}).get("repl_lag", {}).values()), default=0) for i in d["intervals"]) > 100000'
    pyjson r.json 'max(max((l.get("s", 0) for l in i.get("server_io", {}).get("repl_lag", {}).values()), default=0) for i in d["intervals"]) > 1'
    pyjson r.json 'any(e["kind"] == "standby-lag" and e["phase"] == "start" and e["detail"] for e in d["events"]) and d["summary"]["events"]["standby-lag"] >= 1'
}

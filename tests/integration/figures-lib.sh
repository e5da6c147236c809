# Helpers of the tests that check pgarena's server figures against the server's own views on
# servers of every major (test_pg_figures.sh, test_version_matrix.sh), which source this file.

FIG_PS="$PGARENA_TEST_TOP/tests/pg-servers.sh"

# fig_unavailable MAJOR: true, printing why, when MAJOR's binaries cannot be had.
fig_unavailable() {
    local why
    why=$(sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" bindir "$1" 2>&1 >/dev/null) && return 1
    echo "${why#pg-versions: "$1" unavailable: }"
}

# fig_server MAJOR NAME OPTION...: a server of MAJOR in $T/NAME (stopped at cleanup), its
# conninfo in FIG_CONN (not printed: the cleanup must be set in the test's own shell). Returns
# 1, saying so, when the major is not in the cache.
fig_server() {
    local m=$1 name=$2 why port
    shift 2
    if why=$(fig_unavailable "$m"); then
        echo "major $m: unavailable ($why)"
        return 1
    fi
    chmod 755 "$T" # the servers run as postgres when we are root
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$FIG_PS' stop '$T/$name'"
    PGARENA_PG_MAJOR=$m sh "$FIG_PS" start "$T/$name" "$@" >/dev/null
    read -r _ port <"$T/$name/listen"
    # shellcheck disable=SC2034 # read by the test files that source this one
    FIG_CONN="host=$T/$name port=$port user=postgres dbname=postgres"
}

# The checkpoints a server did, by its own view: 18's num_done (a timed one skipped on an idle
# server is not done), 17's timed and requested, pg_stat_bgwriter's before 17; a standby's
# restartpoints on 17 and 18.
fig_checkpoints_sql() {
    case $1 in
    1[3-6]) echo '(SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)' ;;
    17) echo '(SELECT num_timed + num_requested + restartpoints_done FROM pg_stat_checkpointer)' ;;
    *) echo '(SELECT num_done + restartpoints_done FROM pg_stat_checkpointer)' ;;
    esac
}

fig_checkpoints() { sql "SELECT $(fig_checkpoints_sql "$1")" "$2"; }

# fig_views MAJOR DB: the server's own counters as one JSON object: checkpoints, wal_bytes
# (pg_stat_wal from 14, the WAL position before), buf{checkpointer, bgwriter, backend} (the
# buffers written by whom: pg_stat_bgwriter, from 17 pg_stat_checkpointer and the client
# backends' writes of relations in pg_stat_io) and io{BACKEND_TYPE: {reads, writes, extends,
# fsyncs}} (pg_stat_io from 16, without 18's WAL rows).
fig_views() {
    local m=$1 wal buf io
    wal='(SELECT wal_bytes FROM pg_stat_wal)'
    [ "$m" -ge 14 ] || wal="pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')"
    buf="(SELECT json_build_object('checkpointer', buffers_checkpoint, 'bgwriter', buffers_clean,
        'backend', buffers_backend) FROM pg_stat_bgwriter)"
    [ "$m" -lt 17 ] || buf="json_build_object('checkpointer', (SELECT buffers_written FROM
        pg_stat_checkpointer), 'bgwriter', (SELECT buffers_clean FROM pg_stat_bgwriter),
        'backend', (SELECT sum(writes) FROM pg_stat_io WHERE backend_type = 'client backend'
        AND object = 'relation'))"
    io="'{}'::json"
    [ "$m" -lt 16 ] || io="(SELECT json_object_agg(backend_type, json_build_object('reads', r,
        'writes', w, 'extends', e, 'fsyncs', f)) FROM (SELECT backend_type, coalesce(sum(reads),
        0) r, coalesce(sum(writes), 0) w, coalesce(sum(extends), 0) e, coalesce(sum(fsyncs), 0)
        f FROM pg_stat_io $([ "$m" -lt 18 ] || echo "WHERE object <> 'wal'") GROUP BY 1) t)"
    sql "SELECT json_build_object('checkpoints', $(fig_checkpoints_sql "$m"), 'wal_bytes', $wal,
        'buf', $buf, 'io', $io)" "$2"
}

# fig_settle DB: wait until no other client backend is connected (the run's have flushed their
# statistics as they exited), then 0.6 s: 13 and 14 read their statistics from a file the
# collector may have written up to 0.5 s before (a view read then could show less than the
# run's last read of it did).
fig_settle() {
    for _ in $(seq 1 100); do
        [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'
                  AND pid <> pg_backend_pid()" "$1")" = 0 ] && break
        sleep 0.1
    done
    sleep 0.6
}

# fig_one_checkpoint MAJOR DB [RUN OPTION...]: a run of 4 s (by default of SELECT 1, one
# client) into r$MAJOR.json with one CHECKPOINT during it: one checkpoint in the intervals'
# counters and one checkpoint event, as many as the server's view grew by. The views as
# fig_views gives them before and after the run are left in views$MAJOR.{before,after}.
fig_one_checkpoint() {
    local m=$1 db=$2 before after
    shift 2
    if [ $# -eq 0 ]; then
        printf 'SELECT 1;\n' >one.sql
        set -- -f one.sql -c 1
    fi
    fig_views "$m" "$db" >"views$m.before"
    pga_bg run "$@" -T 4 -P 1 -o "r$m.json" "$db"
    wait_progress 1
    sql CHECKPOINT "$db"
    pga_wait
    assert_rc 0
    fig_settle "$db"
    fig_views "$m" "$db" >"views$m.after"
    before=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["checkpoints"])' "views$m.before")
    after=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["checkpoints"])' "views$m.after")
    [ $((after - before)) -eq 1 ] || fail "major $m: the server did $((after - before)) checkpoints"
    pyjson "r$m.json" 'sum(i.get("server_io", {}).get("ckpt_timed", 0) + i.get("server_io", {}).get("ckpt_req", 0) for i in d["intervals"]) == 1'
    pyjson "r$m.json" 'sum(1 for e in d["events"] if e["kind"] == "checkpoint" and e["phase"] == "start") == 1'
}

# fig_sampled_like_views MAJOR: after fig_one_checkpoint of a run that writes, its intervals'
# figures against the views' growth around the run (which holds the run's measured part):
# the checkpointer's buffers exactly (the one checkpoint is the run's), the other writers'
# buffers, WAL and pg_stat_io's counters no more than the views grew (the last second of a
# backend's statistics may come after the run's last read), WAL at least a third; the waits
# sampled.
fig_sampled_like_views() {
    python3 - "$1" "views$1.before" "views$1.after" "r$1.json" <<'PY' || fail "major $1: the run's figures do not match the server's views"
import json, sys
m = int(sys.argv[1])
b, a, d = (json.load(open(p)) for p in sys.argv[2:5])
iv = [i.get("server_io", {}) for i in d["intervals"]]
fields = d["server_io_fields"]
buf = {w: sum(x.get("buf_written", {}).get(w, 0) for x in iv) for w in ("checkpointer", "bgwriter", "backend")}
grew = {w: (a["buf"][w] or 0) - (b["buf"][w] or 0) for w in buf}
wal, wal_grew = sum(x.get("wal_bytes", 0) for x in iv), a["wal_bytes"] - b["wal_bytes"]
io = {}
for x in iv:
    for t, c in x.get("io", {}).items():
        for k, v in c.items():
            io.setdefault(t, {}).setdefault(k, 0)
            io[t][k] += v
print("major", m, "buffers", buf, "views", grew, "wal", wal, "views", wal_grew, "io", io, file=sys.stderr)
assert buf["checkpointer"] == grew["checkpointer"] > 0, "the checkpoint's buffers"
assert all(buf[w] <= grew[w] for w in buf), "buffers written"
assert wal_grew / 3 <= wal <= wal_grew and wal > 0, "WAL bytes"
assert ("wal_records" in fields) == (m >= 14) and ("io" in fields) == (m >= 16)
if m >= 16:
    for t, c in io.items():
        for k in ("reads", "writes", "extends", "fsyncs"):
            assert c.get(k, 0) <= a["io"][t][k] - b["io"][t][k], ("io", t, k)
    assert io["checkpointer"]["writes"] > 0, "the checkpoint's writes in io"
    assert sum(io["client backend"].values()) > 0, "the clients' I/O"
else:
    assert not io
assert d["waits"]["samples"] > 0 and d["waits"]["events"], "no waits sampled"
assert any(i.get("waits") for i in d["intervals"]), "no interval's waits"
PY
}

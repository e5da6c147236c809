# Figures whose meaning moved between majors (issue 48), against a server of the major from
# tools/pg/versions.sh (PGARENA_PG_MAJOR): each count the result file gives is asserted against
# the server's own view read around the run. A major not fetched says "major M: unavailable"
# and passes. The helpers are in figures-lib.sh, shared with the version matrix.

. "$PGARENA_TEST_TOP/tests/integration/figures-lib.sh"

# A primary's CHECKPOINT during a run, counted once, is in the version matrix on every major
# (test_version_matrix.sh).

# A standby's restartpoint is its checkpoint (17 and 18 count it in restartpoints_*, where a
# run saw none before): the primary's CHECKPOINT replayed, then the standby's own.
fig_checkpoint_standby() {
    local m=$1 primary standby lsn port
    fig_server "$m" "p$m" || return 0
    primary=$FIG_CONN
    PGARENA_PG_MAJOR=$m sh "$FIG_PS" standby "$T/p$m" "$T/s$m" >/dev/null
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$FIG_PS' stop '$T/s$m'"
    read -r _ port <"$T/s$m/listen"
    standby="host=$T/s$m port=$port user=postgres dbname=postgres"
    sql CHECKPOINT "$primary"
    lsn=$(sql 'SELECT pg_current_wal_lsn()' "$primary")
    for _ in $(seq 1 100); do
        [ "$(sql "SELECT pg_last_wal_replay_lsn() >= '$lsn'" "$standby")" = t ] && break
        sleep 0.1
    done
    fig_one_checkpoint "$m" "$standby"
    echo "major $m: a standby's restartpoint counted once"
}

test_pg_figures_restartpoint_17() { fig_checkpoint_standby 17; }
test_pg_figures_restartpoint_18() { fig_checkpoint_standby 18; }

# pg_stat_statements' columns are the installed extension's (total_exec_time from 1.8, toplevel
# from 1.9), not the server's: after pg_upgrade it stays old until ALTER EXTENSION UPDATE.
# 50 calls of one statement, as many as the server's view counts, with extension VERSION.
fig_statements() {
    local m=$1 version=$2 db calls
    fig_server "$m" "st$m" conf=shared_preload_libraries=pg_stat_statements || return 0
    db=$FIG_CONN
    sql "CREATE EXTENSION pg_stat_statements${version:+ VERSION '$version'}" "$db"
    [ -z "$version" ] || [ "$(sql "SELECT extversion FROM pg_extension WHERE extname = 'pg_stat_statements'" "$db")" = "$version" ] ||
        fail "major $m: not extension $version"
    sql 'SELECT pg_stat_statements_reset()' "$db" >/dev/null
    sql 'CREATE TABLE figures_one (x int)' "$db"
    printf 'SELECT x FROM figures_one;\n' >one.sql
    pga run -f one.sql -c 1 -t 50 -q -o "s$m.json" "$db"
    assert_rc 0
    calls=$(sql "SELECT sum(calls) FROM pg_stat_statements WHERE query = 'SELECT x FROM figures_one'" "$db")
    [ "$calls" = 50 ] || fail "major $m: the server counted $calls calls"
    pyjson "s$m.json" '[s["calls"] for s in d["statements_server"] if s["query"] == "SELECT x FROM figures_one"] == [50] and not d.get("statements_server_note")'
    # pgarena's own reads of the views are not the run's (18 drops a leading comment)
    pyjson "s$m.json" 'not [s["query"] for s in d["statements_server"] if "pg_stat" in s["query"] or "pgarena:" in s["query"]]'
    echo "major $m: pg_stat_statements $(sql "SELECT extversion FROM pg_extension WHERE extname = 'pg_stat_statements'" "$db") read"
}

test_pg_figures_statements_13() { fig_statements 13 ""; }
test_pg_figures_statements_18() { fig_statements 18 ""; }
# 18's server with the extension of a 12 upgraded (1.7: total_time, no toplevel).
test_pg_figures_statements_18_old_extension() { fig_statements 18 1.7; }

# 18's pg_stat_io: WAL's own rows (object 'wal') are not a backend's buffer writes or fsyncs,
# and a read of several blocks combined is one read whose read_bytes count every block.
# Sequential scans of a table larger than a quarter of shared_buffers (read through a ring,
# combined) and inserts committed one by one (WAL fsynced by the client backends).
test_pg_figures_io_18() {
    local db before after
    fig_server 18 io18 conf=shared_buffers=16MB || return 0
    db=$FIG_CONN
    sql "CREATE TABLE big AS SELECT g, repeat('x', 200) v FROM generate_series(1, 60000) g" "$db"
    printf 'SELECT count(*) FROM big;\nINSERT INTO big VALUES (1, $$y$$);\n' >io.sql
    local q="SELECT json_object_agg(object, json_build_object('reads', r, 'read_bytes', rb,
        'fsyncs', f)) FROM (SELECT object, sum(reads) r, sum(read_bytes) rb,
        coalesce(sum(fsyncs) FILTER (WHERE backend_type = 'client backend'), 0) f
        FROM pg_stat_io GROUP BY 1) t"
    before=$(sql "$q" "$db")
    pga run -f io.sql -c 2 -T 3 -P 1 -q -o io.json "$db"
    assert_rc 0
    after=$(sql "$q" "$db")
    python3 - "$before" "$after" <<'PY' || fail "pg_stat_io's figures do not match the server's"
import json, sys
b, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
grew = lambda obj, k: (a[obj][k] or 0) - (b[obj][k] or 0)
d = json.load(open("io.json"))
assert "io" in d["server_io_fields"]
io = {}
for i in d["intervals"]:
    for t, x in i.get("server_io", {}).get("io", {}).items():
        for k, v in x.items():
            io.setdefault(t, {}).setdefault(k, 0)
            io[t][k] += v
tot = lambda k: sum(x.get(k, 0) for x in io.values())
print("pgarena", io, "server wal fsyncs", grew("wal", "fsyncs"), "relation reads",
      grew("relation", "reads"), grew("relation", "read_bytes"), file=sys.stderr)
# The client backends fsynced WAL at each commit; none of it is theirs in io.
assert grew("wal", "fsyncs") > 10 and io["client backend"].get("fsyncs", 0) == grew("relation", "fsyncs")
# Reads combined: more blocks than reads, in pgarena's figures as in the server's.
assert tot("read_bytes") > 8192 * tot("reads") > 0
assert grew("relation", "read_bytes") > 8192 * grew("relation", "reads")
assert tot("read_bytes") <= grew("relation", "read_bytes") + grew("temp relation", "read_bytes")
assert tot("read_bytes") >= grew("relation", "read_bytes") / 2
PY
}

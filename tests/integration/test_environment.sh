# The environment a result records: server version and settings, sizes, location, round trip,
# statistics deltas over the measured part, warnings; and no password anywhere.

env_db() { pgbench_db "$1"; }

test_environment_recorded() {
    db=$(env_db pga_env)
    pga run -c 2 -T 2 -q -o r.json "$db"
    assert_rc 0
    # The server as it describes itself.
    pyjson r.json 'd["server"]["version"] == "'"$(sql "SHOW server_version")"'"'
    for s in fsync synchronous_commit full_page_writes wal_level wal_buffers max_wal_size \
        checkpoint_timeout shared_buffers effective_cache_size work_mem maintenance_work_mem \
        max_connections autovacuum default_transaction_isolation jit huge_pages \
        random_page_cost max_parallel_workers_per_gather data_checksums; do
        pyjson r.json 'd["server"]["settings"]["'$s'"] == "'"$(sql "SHOW $s")"'"'
    done
    # The test server runs with max_connections=120: changed from the default, and said so.
    pyjson r.json '"max_connections" in d["server"]["non_default_settings"] and "fsync" not in d["server"]["non_default_settings"]'
    assert_out '^settings changed: +.*max_connections=120'
    assert_out '^server: +PostgreSQL .*, local, round trip [0-9.]+ ms'
    pyjson r.json 'd["server"]["database_size_bytes"] > 10000000 and d["server"]["dataset_bytes"] > 10000000'
    pyjson r.json '[t["name"] for t in d["server"]["tables"]][0] == "pgbench_accounts" and d["server"]["tables"][0]["index_bytes"] > 0'
    pyjson r.json 'd["server"]["location"] == "local" and d["server"]["ssl"] is False and d["server"]["rtt_us"] > 0'
    pyjson r.json 'd["server"]["capture_ms"] > 0'
    pyjson r.json 'd["client"]["kernel"] and d["client"]["cpus"] >= 1'
    # Deltas over the run, checked against the server's own effects: one history row and one
    # commit per transaction (plus a few of pgarena's own reading queries).
    n=$(sql "SELECT count(*) FROM pgbench_history" "$db")
    pyjson r.json 'd["summary"]["transactions"] == '"$n"' > 100'
    pyjson r.json '(lambda s: s["tup_inserted"] >= '"$n"' and '"$n"' <= s["xact_commit"] <= '"$n"' + 50)(d["server_stats"])'
    pyjson r.json '(lambda s: s["wal_bytes"] > 100 * '"$n"' and s["tup_updated"] >= 3 * '"$n"')(d["server_stats"])'
    pyjson r.json 'all(isinstance(d["server_stats"][k], int) for k in ["xact_rollback", "blks_hit", "blks_read", "deadlocks", "temp_bytes", "conflicts", "checkpoints", "buffers_checkpoint", "buffers_backend"])'
    pyjson r.json '0 < d["server_stats"]["cache_hit_ratio"] <= 1'
    assert_out '^server stats: +[0-9]+ commits, WAL [0-9.]+ MB'
    # A 2 s run of a writing workload on a tiny dataset, over a unix socket.
    pyjson r.json '[w["setting"] for w in d["server"]["warnings"]] == ["checkpoint_timeout", "shared_buffers", "host"]'
    pyjson r.json 'all(w["value"] and w["message"] for w in d["server"]["warnings"])'
    assert_out '^warning: +checkpoint_timeout=5min: .*checkpoints'
    assert_out '^warning: +shared_buffers=.*in-memory'
    # show prints the same short form from the file.
    grep -E '^(server:|server stats|settings changed|warning)' "$T/out" >run.txt
    pga show r.json
    assert_rc 0
    grep -E '^(server:|server stats|settings changed|warning)' "$T/out" >show.txt
    diff run.txt show.txt || fail "show prints another environment than run"
}

# fsync=off on a server of the test's own (fsync is the whole server's, and the shared one's
# other tests must not run without it), with pgbench's tables.
test_fsync_off_warns() {
    chmod 755 "$T"
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$T/srv'"
    CONN=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$T/srv" conf=fsync=off)
    db=$(env_db pga_fsync)
    [ "$(sql "SHOW fsync" "$db")" = off ] || fail "the test's server runs with fsync on"
    pga run -w select-only -c 2 -T 2 -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'd["server"]["settings"]["fsync"] == "off" and "fsync" in d["server"]["non_default_settings"]'
    pyjson r.json '[(w["setting"], w["value"]) for w in d["server"]["warnings"]][0] == ("fsync", "off")'
    pyjson r.json '"crash" in d["server"]["warnings"][0]["message"]'
    assert_out '^warning: +fsync=off: '
    assert_out '^settings changed: +.*fsync=off'
    # select-only writes nothing: no checkpoint warning, and no row changed on the server
    # (what the deltas say when it fails: a write of someone else's in the database).
    python3 - r.json <<'PY' || fail "a checkpoint warning on a run that writes nothing"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["server_stats"]
if "checkpoint_timeout" in [w["setting"] for w in d["server"]["warnings"]]:
    print("deltas:", {k: s[k] for k in ("tup_inserted", "tup_updated", "tup_deleted", "xact_commit")}, file=sys.stderr)
    sys.exit(1)
PY
    pyjson r.json '(lambda s: s["tup_inserted"] == s["tup_updated"] == s["tup_deleted"] == 0 and s["xact_commit"] >= d["summary"]["transactions"])(d["server_stats"])'
}

# With --warmup the deltas start when the measured part does, not before the warmup.
test_warmup_not_in_deltas() {
    db=$(env_db pga_envwarm)
    pga run -c 2 -T 2 --warmup 2 -q -o r.json "$db"
    assert_rc 0
    n=$(sql "SELECT count(*) FROM pgbench_history" "$db")
    # Backends publish their counts at most once a second, so the reading at the warmup's end
    # may lag by up to a second: at least half of the 2 s warmup is left out.
    pyjson r.json 'd["summary"]["transactions"] * 0.95 <= d["server_stats"]["tup_inserted"] < 0.9 * '"$n"
}

test_password_never_recorded() {
    db=$(env_db pga_envsecret)
    dir=$(echo "$CONN" | sed 's/.*host=\([^ ]*\).*/\1/')
    uri="postgresql://postgres:Env1ronSecret@/pga_envsecret?host=$dir&port=5432"
    PGPASSWORD=PgPassSecret9 pga run -c 2 -T 2 -P 1 -o r.json "$uri"
    assert_rc 0
    pyjson r.json 'd["server"]["settings"]["fsync"] == "on" and d["server_stats"]["xact_commit"] > 0'
    ! grep -rqE 'Env1ronSecret|PgPassSecret9' "$T" || fail "a password appears in output or result"
    pyjson r.json '"***" in d["command"]'
    # Nor when the connection fails.
    pga run -T 1 -o r2.json "postgresql://postgres:Env1ronSecret@/pga_envsecret?host=$dir&port=1"
    assert_rc 1
    ! grep -rq Env1ronSecret "$T" || fail "the password appears after a failed connection"
}

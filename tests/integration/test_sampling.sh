# Why, not only how much (issue 19): the run's own backends sampled in pg_stat_activity, the
# client's and the host's CPU per interval, pg_stat_statements deltas. Counts are checked
# against what the workload forces (a hot row makes clients wait on each other's locks), and
# against the server itself (pg_stat_statements' calls equal the transactions run).

# The share of the top event in the file's waits.events ("NAME SHARE").
top_wait() {
    python3 - "$1" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["waits"]["events"]
top = max(e, key=e.get)
print(top, round(e[top] / sum(e.values()), 3))
PY
}

# Every client updates the same pgbench_branches row, holding its lock a little while: the
# others queue behind it on the transaction's lock.
test_sampling_hot_row_shows_lock_waits() {
    db=$(pgbench_db pga_hot)
    cat >hot.sql <<'EOF'
BEGIN;
UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;
SELECT pg_sleep(0.005);
END;
EOF
    pga run -f hot.sql -c 6 -j 2 -T 5 -q -o r.json "$db"
    assert_rc 0
    read -r name share <<<"$(top_wait r.json)"
    case $name in Lock:*) ;; *) cat "$T/out"; fail "top wait event is $name, not a Lock: one" ;; esac
    assert_out '^wait events: +Lock:'
    assert_out '^client CPU: '
    # A round each 100 ms: 50 in the 5 s. At least 10 is a bound a lost CPU of 4 s cannot
    # break, while a sampler that kept to the 1 s interval instead (5 rounds) still fails it.
    pyjson r.json 'd["waits"]["sample_ms"] == 100 and d["waits"]["samples"] >= 10'
    pyjson r.json 'd["waits"]["visibility"] == "all" and d["waits"]["note"] is None'
    # At most one count per client per sampling round: only the run's 6 backends are counted.
    pyjson r.json 'sum(d["waits"]["events"].values()) <= 6 * d["waits"]["samples"]'
    # Every interval has its own figures; the server is local (a unix socket), so the host's too.
    pyjson r.json 'all("waits" in i and "client_cpu" in i and "host" in i for i in d["intervals"])'
    # [user, system, iowait, idle, steal] in ten-thousandths, by largest remainder: exactly 10000
    # (0 only in a last interval too short for a clock tick of /proc/stat)
    pyjson r.json 'all(len(i["host"]["cpu"]) == 5 and sum(i["host"]["cpu"]) in (10000, 0 if k == len(d["intervals"]) - 1 else 10000) for k, i in enumerate(d["intervals"]))'
    pyjson r.json 'd["client_cpu"]["user"] + d["client_cpu"]["system"] > 0'
    # An interval's counts are part of the whole run's.
    pyjson r.json 'all(i["waits"][k] <= d["waits"]["events"][k] for i in d["intervals"] for k in i["waits"])'
    pga show r.json --intervals
    assert_rc 0
    assert_out 'top_wait'
    assert_out ' Lock:[a-z]+ [0-9]+ %'
    # The report draws them: the section, a stacked chart of the events, the CPU charts.
    pga report r.json -o r.html
    assert_rc 0
    grep -q '<section id="why">' r.html || fail "no why section in the report"
    grep -q '<h3>Wait events: ' r.html || fail "no wait events chart"
    grep -q 'fill-opacity="1.00"' r.html || fail "no stacked areas"
    grep -q '<h3>Client CPU</h3>' r.html || fail "no client CPU chart"
    grep -q '<h3>Host CPU busy</h3>' r.html || fail "no host CPU chart"
}

# Read-only work never waits on a lock: the backends run (CPU) or wait for their client.
test_sampling_select_only_cpu_and_clientread() {
    db=$(pgbench_db pga_selonly)
    pga run -w select-only -c 2 -T 2 -q -o r.json "$db"
    assert_rc 0
    # (how often it samples is checked above: here only that it did)
    pyjson r.json 'd["waits"]["samples"] > 0 and sum(d["waits"]["events"].values()) > 0'
    pyjson r.json 'not any(k.startswith("Lock:") for k in d["waits"]["events"])'
    read -r name share <<<"$(top_wait r.json)"
    case $name in CPU | Client:ClientRead) ;; *) fail "top wait event of select-only is $name" ;; esac
}

# Sessions that are not the run's are never counted, whatever they wait on.
test_sampling_ignores_unrelated_sessions() {
    db=$(pgbench_db pga_unrelated)
    # One idle in transaction (waits on ClientRead), one asleep (Timeout:PgSleep), both there
    # for the whole run however slowly it goes: the first ends when the test writes its COMMIT,
    # the second when the test cancels its sleep.
    LIB_CLEANUP="${LIB_CLEANUP:-}; sql \"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'pga_unrelated' AND pid <> pg_backend_pid()\""
    mkfifo idle.in
    "$PSQL" -X -q "$db" <idle.in >/dev/null &
    exec 4>idle.in
    echo "BEGIN; SELECT txid_current();" >&4
    "$PSQL" -X -q -c "SELECT pg_sleep(600)" "$db" >/dev/null 2>&1 &
    others="SELECT count(*) FROM pg_stat_activity WHERE datname = 'pga_unrelated' AND (state = 'idle in transaction' OR wait_event = 'PgSleep')"
    for _ in $(seq 1 300); do
        [ "$(sql "$others" "$db")" -ge 2 ] && break
        sleep 0.1
    done
    pga run -w select-only -c 1 -T 2 -q -o r.json "$db"
    during=$(sql "$others" "$db")
    echo "COMMIT;" >&4
    exec 4>&-
    sql "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity WHERE datname = 'pga_unrelated' AND wait_event = 'PgSleep'" "$db" >/dev/null
    wait
    assert_rc 0
    [ "$during" = 2 ] || fail "$during of the 2 unrelated sessions were there until the run's end"
    pyjson r.json '"Timeout:PgSleep" not in d["waits"]["events"]'
    # One backend, so at most one count per round (with the idle one it would be two).
    pyjson r.json '0 < sum(d["waits"]["events"].values()) <= d["waits"]["samples"]'
}

# --no-sampling: none of the paths, nothing in the summary.
test_sampling_off_writes_none_of_its_paths() {
    db=$(pgbench_db pga_nosample)
    pga run -w select-only -c 1 -T 1 --no-sampling -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'not any(k in d for k in ("waits", "client_cpu", "statements_server", "statements_server_note"))'
    pyjson r.json 'not any(k in i for i in d["intervals"] for k in ("waits", "client_cpu", "host"))'
    if grep -qE '^(wait events|client CPU|server statements)' "$T/out"; then
        cat "$T/out"
        fail "the summary speaks of sampling that did not happen"
    fi
    pga report r.json -o r.html
    assert_rc 0
    ! grep -q '<section id="why">' r.html || fail "a why section without sampling"
    # Without the extension, a note and not an error.
    pga run -w select-only -c 1 -T 1 -q -o s.json "$db"
    assert_rc 0
    pyjson s.json 'd["statements_server"] == [] and "not installed" in d["statements_server_note"]'
    assert_out '^server statements: +none: pg_stat_statements is not installed'
}

# A user without pg_read_all_stats sees only its own sessions: the run goes on, and says so.
test_sampling_plain_user_sees_own_sessions() {
    db=$(pgbench_db pga_plainuser)
    sql "DROP ROLE IF EXISTS pga_plain" "$db" >/dev/null 2>&1 || true
    sql "CREATE ROLE pga_plain LOGIN" "$db" >/dev/null
    printf 'SELECT 1;\n' >one.sql
    pga run -f one.sql -c 2 -T 2 -q -o r.json "${db/user=postgres/user=pga_plain}"
    sql "DROP ROLE pga_plain" "$db" >/dev/null 2>&1 || true
    assert_rc 0
    pyjson r.json 'd["waits"]["visibility"] == "own-user" and sum(d["waits"]["events"].values()) > 0'
    assert_out "only the user's own sessions"
}

# pg_stat_statements on a server that preloads it: the statement the script runs is there, with
# exactly as many calls as the run's transactions.
test_sampling_pg_stat_statements_deltas() {
    mkdir -p "$T/srv"
    chmod 755 "$T"
    OCONN=$(sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$T/srv")
    LIB_CLEANUP='sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" stop "$T/srv"'
    sql "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" "$OCONN" >/dev/null
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" halt "$T/srv"
    sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" resume "$T/srv"
    sql "CREATE EXTENSION pg_stat_statements" "$OCONN" >/dev/null
    printf 'SELECT count(*) AS pga_marker FROM generate_series(1, 100);\n' >m.sql
    pga run -f m.sql -c 2 -T 2 -q -o r.json "$OCONN"
    assert_rc 0
    pyjson r.json 'len(d["statements_server"]) >= 1 and "statements_server_note" not in d'
    pyjson r.json '[s for s in d["statements_server"] if "pga_marker" in s["query"]][0]["calls"] == d["summary"]["transactions"]'
    pyjson r.json 'all(s["total_ms"] >= 0 and s["rows"] >= 0 for s in d["statements_server"])'
    # pgarena's own statements (the sampler's) are left out.
    pyjson r.json 'not any("pgarena:" in s["query"] for s in d["statements_server"])'
    assert_out '^server statements \(pg_stat_statements'
    assert_out 'pga_marker'
}

# compare names the wait event that explains a difference: the same update on a row per client
# (A) and on one row for all (B). The commits do not wait for the WAL's flush (synchronous_commit
# off in the transaction): on a disk that stalls, IO:WALSync in one run's samples moved more
# than the lock once, in CI.
test_sampling_compare_names_the_wait_event() {
    db=$(newdb pga_cmpwaits)
    pga init -s 4 -q "$db"
    assert_rc 0
    for side in spread:':client_id + 1' hot:1; do
        printf 'BEGIN;\nSET LOCAL synchronous_commit = off;\nUPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = %s;\nSELECT pg_sleep(0.002);\nEND;\n' \
            "${side#*:}" >"${side%%:*}.sql"
    done
    pga run -f spread.sql -c 4 -j 2 -T 2 -q --label spread -o a.json "$db"
    assert_rc 0
    pga run -f hot.sql -c 4 -j 2 -T 2 -q --label hot -o b.json "$db"
    assert_rc 0
    pga compare a.json b.json --json
    assert_rc 0
    cp "$T/out" cmp.json
    # the largest rise is the lock's, and it is listed first or second (what fell most may be
    # pg_sleep's share, which the waiting clients no longer reach)
    pyjson cmp.json '(lambda up: up["name"].startswith("Lock:") and up["change_points"] > 10 and up in d["waits"][:2])(max(d["waits"], key=lambda w: w["change_points"]))'
    pyjson cmp.json 'all(0 <= w["a_share"] <= 1 and 0 <= w["b_share"] <= 1 for w in d["waits"])'
    pga compare a.json b.json
    assert_rc 0
    assert_out '^wait events whose share of the sampled backends changed most'
    assert_out '^  Lock:[a-z]+ +[0-9.]+ % → +[0-9.]+ %  \(\+[0-9.]+ points\)'
}

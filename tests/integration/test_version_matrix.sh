# The version matrix (issue 48): one test per major, 13 to 18 (15 is Debian's, the others
# tools/pg/versions.sh's), each on one collector server of its major with pg_stat_statements
# preloaded (figures-lib.sh's fig_server), in turn:
#   init      pgbench's tables at scale 1 with two partitions and foreign keys; the tables
#             again, empty, unlogged with foreign keys (on 18 unlogged partitions of logged
#             tables, as pgbench 18 makes them)
#   figures   a run of tpcb-like with all sampling and a CHECKPOINT during it, its figures
#             against the server's own views (figures-lib.sh), its pg_stat_statements calls
#             as many as the server counted and as its transactions
#   capture   replay capture around Debian's pgbench in the extended, prepared and simple
#             protocols (0 unsupported; each protocol's statements there); replay prepare of
#             the server's csvlog, stderr and (from 15) jsonlog gives the same statements
#   replay    replay run of the capture against a copy of the database taken before it: every
#             statement sent, none diverged; replayed_s / captured_s goes in the line
#   parity    Debian's pgbench and pgarena run the same scripts against the major: the same
#             counts and the same rows
# Each writes one line to the matrix that run-all.sh prints (lib.sh's matrix_line): "major M:
# ok in S s — ...", "major M: unavailable (WHY)" for a major not fetched (which passes), or
# "major M: FAILED in STEP".

. "$PGARENA_TEST_TOP/tests/integration/figures-lib.sh"

# mx_statements CAPTURE [log]: the statements of a capture by protocol, "simple=N
# extended-named=N extended-unnamed=N"; with "log", of a capture prepared from a server log,
# less replay capture's own session (its reading of the log files, the settings restored),
# which the capture leaves out.
mx_statements() {
    pga replay show --events "$1"
    assert_rc 0
    python3 - "$T/out" "${2:-}" <<'PY' || fail "$1: no session of replay capture's"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
own = {e["session"] for e in ev if e["event"] == "statement" and e["text"].startswith("ALTER SYSTEM RESET log_statement")}
assert len(own) == (1 if sys.argv[2] else 0), own
st = [e for e in ev if e["event"] == "statement" and e["session"] not in own]
print(" ".join("%s=%d" % (p, sum(1 for e in st if e["protocol"] == p)) for p in ("simple", "extended-named", "extended-unnamed")))
PY
}

mx_init() {
    local m=$1 app=$2
    pga init -s 1 --partitions 2 --foreign-keys -q "$app"
    assert_rc 0
    [ "$(sql "SELECT count(*) FROM pgbench_accounts" "$app")" = 100000 ] || fail "major $m: pgbench_accounts"
    [ "$(sql "SELECT count(*) FROM pg_inherits WHERE inhparent = 'pgbench_accounts'::regclass" "$app")" = 2 ] ||
        fail "major $m: not two partitions"
    [ "$(sql "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = 'pgbench_history'::regclass" "$app")" -ge 1 ] ||
        fail "major $m: no foreign keys"
    # init's backends publish their statistics as they exit: the figures' views wait for them.
    for _ in $(seq 1 100); do
        [ "$(sql "SELECT tup_inserted >= 100011 FROM pg_stat_database WHERE datname = 'app'" "$app")" = t ] && break
        sleep 0.1
    done
}

# The tables again, empty, unlogged, in a database of their own; after the figures' run, as
# CREATE DATABASE checkpoints before 15 (the run's checkpoint must be its only one).
mx_init_unlogged() {
    local m=$1 conn=$2 unl fks logged=u
    # 18 refuses an unlogged partitioned table: unlogged partitions of logged tables, as
    # pgbench 18 makes them (so that the foreign keys can be made too).
    [ "$m" -lt 18 ] || logged=p
    sql "CREATE DATABASE unlogged" "$conn"
    unl="${conn% dbname=*} dbname=unlogged"
    pga init -s 1 -I dtp --foreign-keys --partitions 2 --unlogged-tables -q "$unl"
    assert_rc 0
    [ "$(sql "SELECT string_agg(relname || '=' || relpersistence::text, ' ' ORDER BY relname) FROM pg_class
              WHERE relname LIKE 'pgbench_%' AND relkind IN ('r', 'p')" "$unl")" = \
        "pgbench_accounts=$logged pgbench_accounts_1=u pgbench_accounts_2=u pgbench_branches=$logged pgbench_history=$logged pgbench_tellers=$logged" ] ||
        fail "major $m: --unlogged-tables did not make the tables unlogged"
    # pgbench's five foreign keys (their partitions' aside)
    fks=$(sql "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conparentid = 0" "$unl")
    [ "$fks" = 5 ] || fail "major $m: $fks foreign keys on the unlogged tables"
}

mx_figures() {
    local m=$1 app=$2 calls n
    sql "CREATE EXTENSION pg_stat_statements" "$app"
    # init's data written out first, so that the run's CHECKPOINT has only the run's buffers
    # to write and ends well before the run does; the views read next must count it (13 and
    # 14 give them through the collector).
    n=$(fig_checkpoints "$m" "$app")
    sql CHECKPOINT "$app"
    for _ in $(seq 1 100); do
        [ "$(fig_checkpoints "$m" "$app")" -gt "$n" ] && break
        sleep 0.1
    done
    calls=$(sql "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE 'UPDATE pgbench_accounts %'" "$app")
    fig_one_checkpoint "$m" "$app" -w tpcb-like -c 2
    fig_sampled_like_views "$m"
    calls=$(($(sql "SELECT sum(calls) FROM pg_stat_statements WHERE query LIKE 'UPDATE pgbench_accounts %'" "$app") - calls))
    pyjson "r$m.json" "[s['calls'] for s in d['statements_server'] if s['query'].startswith('UPDATE pgbench_accounts ')] == [$calls] == [d['summary']['transactions']] and d['summary']['failed'] == 0 and not d.get('statements_server_note')"
}

mx_capture() {
    local m=$1 conn=$2 app=$3 dir=$4 n log n_log
    pga_bg replay capture "$conn" --seconds 600 -o "$T/$m.cap"
    for _ in $(seq 1 100); do
        grep -q "logging for" "$T/err" && break
        sleep 0.1
    done
    grep -q "logging for" "$T/err" || fail "major $m: replay capture did not start: $(cat "$T/err")"
    { "$PGBENCH" -n -M extended -t 50 -c 2 "$app" >"$T/pgbench.out" 2>&1 &&
        "$PGBENCH" -n -M prepared -t 50 -c 2 "$app" >>"$T/pgbench.out" 2>&1 &&
        "$PGBENCH" -n -M simple -t 20 -c 1 "$app" >>"$T/pgbench.out" 2>&1; } ||
        fail "major $m: pgbench failed: $(tail -3 "$T/pgbench.out")"
    # The collector writes behind: the capture ends once a statement sent after pgbench's
    # last is in the log, so every one of pgbench's is.
    sql "SELECT 'end of the matrix'" "$conn" >/dev/null
    for _ in $(seq 1 100); do
        grep -q "end of the matrix" "$dir"/log/postgresql.csv && break
        sleep 0.1
    done
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    pga replay show "$T/$m.cap"
    assert_rc 0
    assert_out "^ *skipped:? +[0-9]+ COPY FROM STDIN, [0-9]+ carrying a password, 0 unsupported"
    # pgbench's statements in each protocol: 7 a transaction (-M extended: the unnamed
    # statement; -M prepared: named ones).
    n=$(mx_statements "$T/$m.cap")
    python3 - "$n" <<'PY' || fail "major $m: the capture's statements: $n"
import sys
n = dict(x.split("=") for x in sys.argv[1].split())
assert int(n["extended-unnamed"]) >= 7 * 100 and int(n["extended-named"]) >= 7 * 100 and int(n["simple"]) >= 7 * 20
PY
    # Each log the server wrote gives the same statements (13 and 14 have no jsonlog).
    [ "$m" -ge 15 ] || [ ! -e "$dir/log/postgresql.json" ] || fail "major $m: a jsonlog file before 15"
    MX_LOGS=""
    for log in postgresql.csv postgresql postgresql.json; do
        [ "$log" != postgresql.json ] || [ "$m" -ge 15 ] || continue
        pga replay prepare "$dir/log/$log" -o "$T/$m.$log.cap"
        assert_rc 0
        assert_out "^ *skipped:? +[0-9]+ COPY FROM STDIN, [0-9]+ carrying a password, 0 unsupported"
        n_log=$(mx_statements "$T/$m.$log.cap" log)
        [ "$n_log" = "$n" ] || fail "major $m: $n_log statements from $log, $n in the capture"
        case $log in *.csv) MX_LOGS="$MX_LOGS, csvlog" ;; *.json) MX_LOGS="$MX_LOGS, jsonlog" ;; *) MX_LOGS="$MX_LOGS, stderr" ;; esac
    done
    MX_LOGS=${MX_LOGS#, }
    MX_N=$(($(echo "$n" | tr ' ' '\n' | cut -d= -f2 | paste -sd+)))
    echo "major $m: $n statements captured"
}

# replay run of the capture against the copy: every statement sent, none diverged. Prints
# replayed_s / captured_s.
mx_replay() {
    local m=$1 conn=$2
    pga replay run "$T/$m.cap" "$conn" --map-db app=copy --force -q -o "$T/replay$m.json"
    assert_rc 0
    pyjson "$T/replay$m.json" "d['replay']['statements'] == $MX_N and d['replay']['sent'] == $MX_N"
    pyjson "$T/replay$m.json" 'd["replay"]["diverged"]["failed_now"] == 0 and d["replay"]["diverged"]["succeeded_now"] == 0'
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["replay"]; print("%.2f" % (r["replayed_s"] / r["captured_s"]))' "$T/replay$m.json"
}

# Debian's pgbench (with -n: pgarena does not vacuum) and pgarena against the major, the same
# scripts: tpcb-like in the prepared protocol (as many transactions, history rows and UPDATEs
# counted by the server each; every balance then adds up to the history's deltas), and a script
# of \set, \gset and \if in the extended protocol (the same rows per client, each the branch
# its values chose).
mx_parity() {
    local m=$1 app=$2 tool rows
    local q="SELECT count(*) || '/' || (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE 'UPDATE pgbench_accounts %') FROM pgbench_history"
    for tool in pgbench pgarena; do
        rows=$(sql "$q" "$app")
        if [ $tool = pgbench ]; then
            "$PGBENCH" -n -M prepared -c 2 -t 25 "$app" >"$T/parity.out" 2>&1 || fail "major $m: pgbench: $(tail -3 "$T/parity.out")"
            grep -q 'number of transactions actually processed: 50/50' "$T/parity.out" ||
                fail "major $m: pgbench: $(cat "$T/parity.out")"
        else
            pga run -w tpcb-like -M prepared -c 2 -t 25 -q -o "$T/parity$m.json" "$app"
            assert_rc 0
            pyjson "$T/parity$m.json" 'd["summary"]["transactions"] == 50 and d["summary"]["failed"] == 0'
        fi
        [ "$(sql "$q" "$app")" = "$((${rows%/*} + 50))/$((${rows#*/} + 50))" ] ||
            fail "major $m: $tool's tpcb-like: $rows then $(sql "$q" "$app") history rows/UPDATEs"
    done
    [ "$(sql "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = s AND (SELECT sum(tbalance) FROM pgbench_tellers) = s
              AND (SELECT sum(bbalance) FROM pgbench_branches) = s FROM (SELECT sum(delta) s FROM pgbench_history) h" "$app")" = t ] ||
        fail "major $m: the balances do not add up to the history's deltas"
    sql "CREATE TABLE matrix_parity (who text, client int, v int, twice int, branch text)" "$app"
    cat >"$T/branch.sql" <<'SQL'
\set v random(1, 1000)
SELECT :v * 2 AS twice \gset
\if :twice > 1000
INSERT INTO matrix_parity VALUES (:who, :client_id, :v, :twice, 'high');
\else
INSERT INTO matrix_parity VALUES (:who, :client_id, :v, :twice, 'low');
\endif
SQL
    "$PGBENCH" -n -M extended -D who=pgbench -f "$T/branch.sql" -c 2 -t 20 "$app" >"$T/parity.out" 2>&1 ||
        fail "major $m: pgbench: $(tail -3 "$T/parity.out")"
    pga run -M extended -D who=pgarena -f "$T/branch.sql" -c 2 -t 20 -q -o "$T/branch$m.json" "$app"
    assert_rc 0
    rows=$(sql "SELECT string_agg(who || ':' || client || '=' || n, ' ' ORDER BY who, client) FROM (SELECT who, client, count(*) n
                FROM matrix_parity WHERE twice = 2 * v AND branch = CASE WHEN twice > 1000 THEN 'high' ELSE 'low' END
                GROUP BY 1, 2) t" "$app")
    [ "$rows" = "pgarena:0=20 pgarena:1=20 pgbench:0=20 pgbench:1=20" ] || fail "major $m: the \\if script's rows: $rows"
}

# mx_step STEP: the step now running, for the line of a failure; the last one's seconds into
# $times, for the test's log.
mx_step() {
    times="$times $MX_STEP $((SECONDS - t)) s"
    t=$SECONDS
    MX_STEP=$1
}

matrix_major() { # MAJOR
    local m=$1 conn app why ratio t=$SECONDS start=$SECONDS times=""
    if why=$(fig_unavailable "$m"); then
        matrix_line "major $m: unavailable ($why)"
        return 0
    fi
    MX_STEP=start
    LIB_CLEANUP="${LIB_CLEANUP:-}; [ \"\$MX_STEP\" = done ] || matrix_line \"major $m: FAILED in \$MX_STEP\""
    fig_server "$m" "srv$m" collector conf=shared_preload_libraries=pg_stat_statements
    conn=$FIG_CONN
    [ "$(sql 'SHOW server_version_num' "$conn")" -ge "${m}0000" ] || fail "major $m: not its server"
    sql "CREATE DATABASE app" "$conn"
    app="${conn% dbname=*} dbname=app"
    mx_step init
    mx_init "$m" "$app"
    mx_step figures
    mx_figures "$m" "$app"
    mx_step "init (unlogged)"
    mx_init_unlogged "$m" "$conn"
    sql "CREATE DATABASE copy TEMPLATE app" "$conn"
    mx_step capture
    mx_capture "$m" "$conn" "$app" "$T/srv$m"
    mx_step replay
    ratio=$(mx_replay "$m" "$conn")
    mx_step parity
    mx_parity "$m" "$app"
    mx_step "done"
    echo "major $m:$times"
    matrix_line "major $m: ok in $((SECONDS - start)) s — init, figures, capture ($MX_LOGS), replay ${ratio}x, parity"
}

test_version_matrix_13() { matrix_major 13; }
test_version_matrix_14() { matrix_major 14; }
test_version_matrix_15() { matrix_major 15; }
test_version_matrix_16() { matrix_major 16; }
test_version_matrix_17() { matrix_major 17; }
test_version_matrix_18() { matrix_major 18; }

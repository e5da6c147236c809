# pgbench parity: per-script results, pgbench's habits.

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
    # The sleep's floor (a load can only add to it), and the select below the sleeper in its
    # min and median: the two share the clients and the server, so a slow machine slows both.
    pyjson r.json '(lambda s: s[0]["latency_us"]["min"] >= 5000 and all(s[1]["latency_us"][k] < s[0]["latency_us"][k] for k in ("min", "p50")))(d["summary"]["scripts"])'
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

# The seven disagreements with pgbench 15 that PostgreSQL's own pgbench tests found.

# CASE takes the truth of numbers (pgbench's TAP case), and so does \if.
test_case_when_numbers() {
    printf '\\set n 0\n\\set cs debug(CASE WHEN 1 THEN TRUE END AND CASE WHEN 1.0 THEN TRUE END AND CASE WHEN :n THEN NULL ELSE TRUE END)\n\\if 2\nSELECT 1;\n\\else\nSELECT 1 / 0;\n\\endif\n' >case.sql
    pga run -f case.sql -t 2 -o r.json "$CONN"
    assert_rc 0
    assert_err '^debug: boolean true$'
    pyjson r.json 'd["summary"]["transactions"] == 2 and d["summary"]["failed"] == 0'
}

# An unset variable in SQL is sent as pgbench 15 sends it: NULL when bound (extended,
# prepared), the text :name in the simple protocol; the server decides.
test_undefined_variable_in_sql() {
    db=$(newdb pga_undef)
    sql "CREATE TABLE parity_u (mode text, v text)" "$db"
    # simple: the text stays (inside quotes too, as pgbench substitutes there as well)
    printf "INSERT INTO parity_u VALUES ('simple', ':two');\nINSERT INTO parity_u VALUES ('simple', :two::text);\n" >s.sql
    pga run -M simple -f s.sql -t 1 -o simple.json "$db"
    assert_rc 0
    # the second INSERT reaches the server as ":two::text", a syntax error there
    pyjson simple.json 'd["summary"]["failed"] == 1 and d["summary"]["errors"]["other"] == 1'
    for m in extended prepared; do
        printf "INSERT INTO parity_u VALUES ('%s', :two::text);\n" $m >u.sql
        pga run -M $m -f u.sql -t 1 -o $m.json "$db"
        assert_rc 0
        pyjson $m.json 'd["summary"]["failed"] == 0'
    done
    [ "$(sql "SELECT string_agg(mode || '=' || coalesce(v, 'NULL'), ',' ORDER BY mode) FROM parity_u" "$db")" = \
        "extended=NULL,prepared=NULL,simple=:two" ] ||
        fail "rows: $(sql "SELECT * FROM parity_u" "$db")"
    # pgbench's own case: the server's division by zero, not an undefined variable
    printf 'SELECT 1 / (random() / 2)::int, :one::int, :two::int;\n' >tap.sql
    pga run -M prepared -D one=1 -f tap.sql -t 1 -o tap.json "$db"
    assert_rc 0
    assert_err 'first failure: division by zero'
}

# \gset into a name that is no variable name fails the transaction, in pipelines too.
test_gset_invalid_names() {
    printf 'SELECT 1 \\gset\n' >q1.sql
    printf 'SELECT 1 AS "bad name!" \\gset\n' >q2.sql
    printf '\\startpipeline\nSELECT 1 AS ok \\gset\nSELECT 2 AS "?x" \\gset\n\\endpipeline\n' >q3.sql
    printf 'SELECT 1 AS a, 2 AS "1b" \\aset\n' >q4.sql
    for q in q1 q2 q3 q4; do
        pga run -M extended -f $q.sql -t 2 -o $q.json "$CONN"
        assert_rc 0
        pyjson $q.json 'd["summary"]["transactions"] == 0 and d["summary"]["failed"] == 2'
        assert_err 'first failure: error storing into variable'
    done
    printf 'SELECT 1 AS ok_1 \\gset p_\n\\set r debug(:p_ok_1)\n' >good.sql
    pga run -M extended -f good.sql -t 1 -o good.json "$CONN"
    assert_rc 0
    pyjson good.json 'd["summary"]["failed"] == 0'
}

# \sleep with the unit attached, as pgbench 15 accepts it.
test_sleep_units_attached() {
    printf '\\sleep 30ms\n\\sleep 10us\n\\sleep 0s\nSELECT 1;\n' >s.sql
    pga run -f s.sql -t 3 -o s.json "$CONN"
    assert_rc 0
    # 30 ms each (not 30 s, not 30 us); a loaded machine may add, never take away, and no
    # stall adds the 30 s that the wrong unit would
    pyjson s.json '30000 <= d["summary"]["latency_us"]["min"] and d["summary"]["latency_us"]["max"] < 30000000'
}

# A script that ends inside its transaction fails it (pgbench aborts the client), and what it
# did is rolled back.
test_end_of_script_in_transaction() {
    db=$(newdb pga_eot)
    sql "CREATE TABLE parity_t (x int)" "$db"
    printf 'BEGIN;\nINSERT INTO parity_t VALUES (1);\n' >open.sql
    for m in simple prepared; do
        pga run -M $m -f open.sql -c 2 -t 3 -o $m.json "$db"
        assert_rc 0
        pyjson $m.json 'd["summary"]["transactions"] == 0 and d["summary"]["failed"] == 6'
        assert_err 'first failure: end of script reached without completing the last transaction'
    done
    [ "$(sql "SELECT count(*) FROM parity_t" "$db")" = 0 ] || fail "the open transactions were committed"
}

# init with pgbench -i's options makes what pgbench -i (15) makes: pg_dump -s and the data.
same_as_pgbench_init() {
    theirs=$(newdb pga_init_theirs)
    ours=$(newdb pga_init_ours)
    "$PGBENCH" -i -q "$@" "$theirs" >"$T/pgbench.out" 2>&1 || { cat "$T/pgbench.out"; fail "pgbench -i $*"; }
    pga init -q "$@" "$ours"
    assert_rc 0
    for db in "$theirs" "$ours"; do
        "$(dirname "$PSQL")/pg_dump" -s "$db" | grep -vE '^(--|\\(un)?restrict )' >"$T/dump.${db##*=}"
    done
    diff "$T/dump.pga_init_theirs" "$T/dump.pga_init_ours" || fail "pg_dump -s differs for init $*"
    q="SELECT (SELECT count(*) || '/' || coalesce(sum(bid), 0) || '/' || count(filler) || '/' || coalesce(sum(length(filler)), 0) FROM pgbench_accounts),
              (SELECT count(*) || '/' || coalesce(sum(bid), 0) || '/' || count(filler) FROM pgbench_tellers),
              (SELECT count(*) || '/' || coalesce(sum(bbalance), 0) || '/' || count(filler) FROM pgbench_branches),
              (SELECT count(*) FROM pgbench_history)"
    [ "$(sql "$q" "$ours")" = "$(sql "$q" "$theirs")" ] || fail "data differs for init $*: $(sql "$q" "$ours") vs $(sql "$q" "$theirs")"
}

test_init_options_match_pgbench() {
    ts=$(mktemp -d /tmp/pgarena-ts-XXXXXX)
    mkdir "$ts/1" "$ts/2"
    chmod -R 755 "$ts"
    [ "$(id -u)" != 0 ] || chown -R postgres "$ts"
    LIB_CLEANUP="\"$PSQL\" -X -q \"$CONN\" -c 'DROP DATABASE IF EXISTS pga_init_theirs' -c 'DROP DATABASE IF EXISTS pga_init_ours' -c 'DROP TABLESPACE IF EXISTS parity_ts1' -c 'DROP TABLESPACE IF EXISTS parity_ts2'; rm -rf $ts"
    sql "CREATE TABLESPACE parity_ts1 LOCATION '$ts/1'"
    sql "CREATE TABLESPACE parity_ts2 LOCATION '$ts/2'"
    same_as_pgbench_init -s 1 -I dtgvpf --unlogged-tables -F 80 --tablespace parity_ts1 --index-tablespace parity_ts2 --partitions 2
    same_as_pgbench_init -s 1 -I dtGvp --foreign-keys -F 90 --partitions 3 --partition-method hash
    same_as_pgbench_init -s 1 -n --foreign-keys --tablespace parity_ts1
    same_as_pgbench_init -s 1 -I dtg # no keys: the columns keep pgbench's NOT NULL
    # -I g alone empties and reloads the tables it finds (history too), as pgbench does
    sql "INSERT INTO pgbench_history VALUES (1, 1, 1, 1, now(), 'x')" "$ours"
    sql "INSERT INTO pgbench_history VALUES (1, 1, 1, 1, now(), 'x')" "$theirs"
    "$PGBENCH" -i -q -I g "$theirs" >/dev/null 2>&1 || fail "pgbench -i -I g"
    pga init -q -I g "$ours"
    assert_rc 0
    [ "$(sql "SELECT count(*) FROM pgbench_history" "$ours")" = 0 ] || fail "history not emptied by -I g"
    [ "$(sql "SELECT count(*), sum(aid) FROM pgbench_accounts" "$ours")" = "100000|5000050000" ] || fail "accounts after -I g"
    pga init -I x "$ours"
    assert_rc 2
    assert_one_error_line
    assert_err 'unrecognized initialization step "x"'
    pga init -w oltp-read-write --unlogged-tables "$ours"
    assert_rc 2
    assert_one_error_line
}

# -l writes pgbench 15's log files: the same names and, line by line, the same fields (each
# field of the same kind: an integer, or the same word) as pgbench's own for the same options.
# compare_logs DIR_OURS DIR_THEIRS
compare_logs() {
    python3 - "$1" "$2" <<'PY' || fail "logs differ from pgbench's"
import os, re, sys, time
ours, theirs = sys.argv[1], sys.argv[2]
def files(d):
    names = sorted(os.listdir(d))
    # PREFIX.PID for the first thread, PREFIX.PID.N for thread N
    shapes = sorted(re.sub(r"\.\d+", ".PID", n, count=1) for n in names)
    return names, shapes
on, os_ = files(ours)
tn, ts = files(theirs)
assert os_ == ts, (os_, ts)
def kind(f):
    return "int" if re.fullmatch(r"-?\d+", f) else f
now = time.time()
for a, b in zip(on, tn):
    la = open(os.path.join(ours, a)).read().splitlines()
    lb = open(os.path.join(theirs, b)).read().splitlines()
    assert la and lb, (a, b)
    ka = {tuple(kind(f) for f in l.split()) for l in la}
    kb = {tuple(kind(f) for f in l.split()) for l in lb}
    assert ka == kb, (a, ka, kb)
    for l in la:
        f = l.split()
        # an epoch timestamp of this run (per transaction: field 5; aggregate: field 1)
        t = int(f[4]) if len(f) in (6, 7, 8) else int(f[0])
        assert abs(t - now) < 600, l
print("ok")
PY
}

# run_both DIR OPTIONS...: pgbench and pgarena with the same options, each in DIR/{theirs,ours}
run_both() {
    dir=$1
    shift
    mkdir -p "$dir/theirs" "$dir/ours"
    (cd "$dir/theirs" && "$PGBENCH" "$@" "$db" >out 2>&1) || { cat "$dir/theirs/out"; fail "pgbench $*"; }
    rm -f "$dir/theirs/out"
    cd "$dir/ours"
    PGA_OUT=$dir/out PGA_ERR=$dir/err pga run -q -o ../r.json "$@" "$db"
    cd "$T"
    [ "$RC" -eq 0 ] || { cat "$dir/err"; fail "pgarena run $*"; }
    compare_logs "$dir/ours" "$dir/theirs"
}

test_transaction_log_like_pgbench() {
    db=$(parity_db pga_log)
    run_both "$T/plain" -S -l -c 2 -j 2 -t 5
    run_both "$T/prefixed" -S -l --log-prefix my_log -t 5 -R 200 --max-tries 2
    run_both "$T/agg" -S -l --aggregate-interval 1 -T 2
    run_both "$T/agg_rate" -S -l --aggregate-interval 1 -T 2 -R 100 --latency-limit 50 --max-tries 3
    # one line per transaction, numbered per client; the latency agrees with the result file
    python3 - "$T/plain/ours" <<'PY' || fail "per-transaction lines"
import os, sys
lines = [l.split() for n in os.listdir(sys.argv[1]) for l in open(os.path.join(sys.argv[1], n))]
assert sorted((int(f[0]), int(f[1])) for f in lines) == [(c, i) for c in (0, 1) for i in range(1, 6)], lines
assert all(f[3] == "0" and int(f[2]) > 0 for f in lines)
PY
    # aggregates: two whole intervals whose counts add up to the run's transactions (but for
    # one that ended after the last whole interval, which pgbench does not write either)
    python3 - "$T/agg/ours" "$T/agg/r.json" <<'PY' || fail "aggregate lines"
import json, os, sys
d = sys.argv[1]
lines = [l.split() for n in os.listdir(d) for l in open(os.path.join(d, n))]
assert len(lines) == 2 and int(lines[1][0]) - int(lines[0][0]) == 1, lines
r = json.load(open(sys.argv[2]))
n = r["summary"]["transactions"]
assert n - 1 <= sum(int(f[1]) for f in lines) <= n, (lines, n)
assert all(int(f[4]) <= int(f[5]) and int(f[2]) >= int(f[1]) * int(f[4]) for f in lines)
PY
    # --sampling-rate 0.5 of 200 transactions: 100 +- 7 (sd), bounds at 5 sd
    mkdir "$T/sampled" && cd "$T/sampled"
    pga run -q -o ../r.json -S -l --sampling-rate 0.5 -t 200 "$db"
    cd "$T"
    [ "$RC" -eq 0 ] || { cat "$T/err"; fail "sampled run"; }
    n=$(cat "$T"/sampled/pgbench_log.* | wc -l)
    [ "$n" -ge 65 ] && [ "$n" -le 135 ] || fail "sampled $n lines of 200"
    pga run -q -S --log-prefix x -t 1 "$db"
    assert_rc 2
    assert_one_error_line
    assert_err 'allowed only when logging transactions'
    pga run -q -S -l --aggregate-interval 3 -T 5 "$db"
    assert_rc 2
    assert_err 'must be a multiple of aggregation interval'
    pga run -q -S -l --log-prefix /nonexistent-dir/x -t 1 "$db"
    assert_rc 2
    assert_one_error_line
}

# -S, -N, -b list, --show-script, --progress-timestamp
test_pgbench_run_shorthands() {
    db=$(parity_db pga_short)
    pga run -S -N -t 5 -o r.json "$db"
    assert_rc 0
    pyjson r.json '[s["name"] for s in d["workload"]["scripts"]] == ["builtin: select-only", "builtin: simple-update"]'
    # -n, as every pgbench TAP case passes it: taken; pgarena empties no table before a run.
    before=$(sql "SELECT count(*) FROM pgbench_history" "$db")
    pga run -n -N -t 5 -o r.json "$db"
    assert_rc 0
    [ "$(sql "SELECT count(*) FROM pgbench_history" "$db")" = $((before + 5)) ] || fail "-n: pgbench_history is not the rows before and the run's five"
    pga run -b list
    assert_rc 0
    assert_out '^Available builtin scripts:$'
    assert_out '^ +select-only: '
    pga run --show-script sel
    assert_rc 0
    assert_out '^-- select-only: '
    assert_out '^SELECT abalance FROM pgbench_accounts WHERE aid = :aid;$'
    pga run --show-script nosuch
    assert_rc 2
    assert_one_error_line
    pga run -S -T 2 -P 1 --progress-timestamp -o r.json "$db"
    assert_rc 0
    now=$(date +%s)
    python3 - "$T/err" "$now" <<'PY' || fail "progress lines are not Unix timestamps"
import re, sys
ts = [float(m.group(1)) for m in re.finditer(r"progress: (\d+\.\d{3}) s,", open(sys.argv[1]).read())]
assert ts and all(abs(t - int(sys.argv[2])) < 120 for t in ts), ts
PY
}

# pgbench 17's and 18's habits (issue 48 part 4), from PostgreSQL 18's pgbench TAP cases.

# -d/--dbname names the database (pgbench 17 gave -d to it; a last argument wins, as there),
# and debugging output is --debug.
test_pgbench17_dbname_debug() {
    db=$(parity_db pga_dbname)
    host=$(echo "$CONN" | sed -n 's/.*host=\([^ ]*\).*/\1/p')
    port=$(echo "$CONN" | sed -n 's/.*port=\([^ ]*\).*/\1/p')
    user=$(echo "$CONN" | sed -n 's/.*user=\([^ ]*\).*/\1/p')
    pga run -h "$host" -p "$port" -U "$user" -d pga_dbname -S -t 3 -q -o r.json
    assert_rc 0
    pyjson r.json 'd["summary"]["transactions"] == 3 and d["summary"]["failed"] == 0'
    pga run -h "$host" -p "$port" -U "$user" --dbname=pga_dbname -S -t 1 -q -o r.json
    assert_rc 0
    # a last argument names the database over -d
    pga run -h "$host" -p "$port" -U "$user" -d nosuchdb_pga -S -t 1 -q -o r.json pga_dbname
    assert_rc 0
    pga init -h "$host" -p "$port" -U "$user" -d nosuchdb_pga -q
    assert_rc 1
    assert_err 'nosuchdb_pga'
    # pgbench's TAP case: -M prepared -b se --debug tells what each client sends and receives
    pga run -M prepared -b se --debug -c 2 -t 5 -q -o r.json "$db"
    assert_rc 0
    assert_err '^client [01] executing script "builtin: select-only"$'
    assert_err '^client [01] sending '
    assert_err '^client [01] receiving$'
    pyjson r.json 'd["summary"]["transactions"] == 10'
    [ "$(grep -c '^client .* executing script' "$T/err")" = 10 ] || fail "not one 'executing' line per transaction"
}

# --exit-on-abort (pgbench's TAP case): the fifth update divides by zero; pgbench aborts that
# client and the option ends the run (pgbench exit status 2, ours 1), marked incomplete.
test_pgbench17_exit_on_abort() {
    db=$(newdb pga_eoa)
    sql "CREATE TABLE counter (i int); INSERT INTO counter VALUES (0)" "$db"
    printf 'UPDATE counter SET i = i + 1 RETURNING i \\gset\n\\if :i = 5\n\\set y 1 / 0\n\\endif\n' >eoa.sql
    pga run -f eoa.sql -c 2 -j 2 -t 10 --exit-on-abort -q -o r.json "$db"
    assert_rc 1
    assert_err 'division by zero'
    assert_err 'exit-on-abort ended the run'
    pyjson r.json 'd["complete"] is False and d["end_reason"] == "error" and d["summary"]["failed"] == 1 and d["summary"]["errors"]["other"] == 1'
    # every client stopped: fewer than the 20 updates asked for were made
    [ "$(sql "SELECT i < 20 FROM counter" "$db")" = t ] || fail "the run went on after the abort"
    # without the option the client goes on (pgarena's habit): every transaction is done
    sql "UPDATE counter SET i = 0" "$db"
    pga run -f eoa.sql -c 2 -j 2 -t 10 -q -o r2.json "$db"
    assert_rc 0
    pyjson r2.json 'd["complete"] is True and d["summary"]["transactions"] == 19 and d["summary"]["failed"] == 1'
    # serialization failures and deadlocks do not abort a client in pgbench: they go on counted
    sql "CREATE TABLE ser (x int); INSERT INTO ser VALUES (0)" "$db"
    printf 'BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT x FROM ser;\nSELECT pg_sleep(0.01);\nUPDATE ser SET x = x + 1;\nCOMMIT;\n' >ser.sql
    pga run -f ser.sql -c 4 -j 2 -t 10 --exit-on-abort -q -o s.json "$db"
    assert_rc 0
    pyjson s.json 'd["complete"] is True and d["summary"]["transactions"] + d["summary"]["failed"] == 40 and d["summary"]["failed"] == d["summary"]["errors"]["serialization"]'
}

# \syncpipeline (pgbench 17): a sync inside the pipeline, which goes on; each synced part is
# its own implicit transaction on the server, and every result is read at \endpipeline.
test_pgbench17_syncpipeline() {
    db=$(newdb pga_syncpipe)
    sql "CREATE TABLE sp (part int, x int)" "$db"
    # pgbench's TAP case: syncs back to back, and at the end
    printf '\\startpipeline\nSELECT 1;\n\\syncpipeline\n\\syncpipeline\nSELECT 2;\n\\syncpipeline\nSELECT 3;\n\\endpipeline\n\\startpipeline\nSELECT 4;\n\\syncpipeline\n\\endpipeline\n' >tap.sql
    for m in extended prepared; do
        pga run -M $m -f tap.sql -c 2 -t 5 -q -o tap_$m.json "$db"
        assert_rc 0
        pyjson tap_$m.json 'd["summary"]["transactions"] == 10 and d["summary"]["failed"] == 0'
        pyjson tap_$m.json 'sorted((s["line"], s["count"]) for s in d["statements"]) == [(2, 10), (5, 10), (7, 10), (10, 10)]'
    done
    # results of every part are collected: \gset in the first part, rows in each
    printf '\\startpipeline\nINSERT INTO sp VALUES (1, 1);\nSELECT 7 AS seven \\gset\n\\syncpipeline\nINSERT INTO sp VALUES (2, 2);\n\\endpipeline\nINSERT INTO sp VALUES (3, :seven);\n' >parts.sql
    pga run -M extended -f parts.sql -c 2 -t 4 -q -o parts.json "$db"
    assert_rc 0
    pyjson parts.json 'd["summary"]["transactions"] == 8 and d["summary"]["failed"] == 0'
    [ "$(sql "SELECT string_agg(part || ':' || x || ':' || n, ',' ORDER BY part) FROM (SELECT part, x, count(*) n FROM sp GROUP BY 1, 2) s" "$db")" = "1:1:8,2:2:8,3:7:8" ] ||
        fail "rows: $(sql "SELECT part, x, count(*) FROM sp GROUP BY 1, 2" "$db")"
    # an error in the first part: the server rolls that part back and runs the next (its own
    # implicit transaction); the transaction fails, and what follows the pipeline does not run
    sql "TRUNCATE sp" "$db"
    printf '\\startpipeline\nINSERT INTO sp VALUES (1, 1);\nSELECT 1 / 0;\n\\syncpipeline\nINSERT INTO sp VALUES (2, 2);\n\\syncpipeline\nSELECT 2;\n\\endpipeline\nINSERT INTO sp VALUES (4, 4);\n' >err.sql
    pga run -M prepared -f err.sql -c 2 -t 3 -q -o err.json "$db"
    assert_rc 0
    assert_err 'first failure: division by zero'
    pyjson err.json 'd["summary"]["transactions"] == 0 and d["summary"]["failed"] == 6 and d["summary"]["errors"]["other"] == 6'
    [ "$(sql "SELECT string_agg(part || ':' || n, ',' ORDER BY part) FROM (SELECT part, count(*) n FROM sp GROUP BY 1) s" "$db")" = "2:6" ] ||
        fail "rows after errors: $(sql "SELECT part, count(*) FROM sp GROUP BY 1" "$db")"
    # outside a pipeline, or with an argument: refused when the script is read
    printf 'SELECT 1;\n\\syncpipeline\n' >out.sql
    pga run -M extended -f out.sql -t 1 "$db"
    assert_rc 2
    assert_one_error_line
    assert_err 'out\.sql:2:1: \\syncpipeline outside a pipeline'
    printf '\\startpipeline\n\\syncpipeline now\n\\endpipeline\n' >arg.sql
    pga run -M extended -f arg.sql -t 1 "$db"
    assert_rc 2
    assert_err 'arg\.sql:2:1: unexpected argument'
}

# init --unlogged-tables --partitions N: 18 refuses an unlogged partitioned table, and pgbench
# 18 then makes only the partitions unlogged: the four tables are logged (so that
# --foreign-keys works: a logged table cannot reference an unlogged one). Before 18 every table
# is unlogged as pgbench 15 makes them (a parent's persistence is nothing there). On the
# harness's 15 and on 13 and 18 when their binaries are here ("major M: unavailable (WHY)"
# otherwise).
unlogged_partitions_on() {
    local conn=$1 major=$2 table=u method fks
    [ "$major" -ge 18 ] && table=p
    for method in range hash; do
        pga init -q -s 1 --unlogged-tables --partitions 3 --partition-method $method --foreign-keys "$conn"
        assert_rc 0
        [ "$(sql "SELECT string_agg(relname || '=' || relpersistence::text, ',' ORDER BY relname) FROM pg_class WHERE relname LIKE 'pgbench\_%' AND relkind IN ('r', 'p')" "$conn")" = \
            "pgbench_accounts=$table,pgbench_accounts_1=u,pgbench_accounts_2=u,pgbench_accounts_3=u,pgbench_branches=$table,pgbench_history=$table,pgbench_tellers=$table" ] ||
            fail "major $major $method: $(sql "SELECT relname, relpersistence FROM pg_class WHERE relname LIKE 'pgbench\_%' AND relkind IN ('r', 'p')" "$conn")"
        [ "$(sql "SELECT count(*), sum(aid) FROM pgbench_accounts" "$conn")" = "100000|5000050000" ] ||
            fail "major $major $method: accounts"
        # pgbench's foreign keys (those the server adds to each partition left out)
        fks=$(sql "SELECT string_agg(DISTINCT conrelid::regclass || '>' || confrelid::regclass, ',' ORDER BY conrelid::regclass || '>' || confrelid::regclass) FROM pg_constraint WHERE contype = 'f' AND conparentid = 0" "$conn")
        [ "$fks" = "pgbench_accounts>pgbench_branches,pgbench_history>pgbench_accounts,pgbench_history>pgbench_branches,pgbench_history>pgbench_tellers,pgbench_tellers>pgbench_branches" ] ||
            fail "major $major $method: foreign keys $fks"
    done
    pga run -S -t 20 -q -o "u$major.json" "$conn"
    assert_rc 0
    pyjson "u$major.json" 'd["summary"]["transactions"] == 20 and d["summary"]["failed"] == 0'
}

# parity_major M: a scratch server of major M in $T/srv-M, its conninfo in MAJOR_CONN, stopped
# at the test's end; when M's binaries cannot be had, says "major M: unavailable (WHY)" and
# fails (return 1: the caller goes on without it).
parity_major() {
    local m=$1 why
    if ! why=$(sh "$PGARENA_TEST_TOP/tools/pg/versions.sh" bindir "$m" 2>&1 >/dev/null); then
        echo "major $m: unavailable (${why#pg-versions: "$m" unavailable: })"
        return 1
    fi
    chmod 755 "$T" # the servers run as postgres when we are root
    MAJOR_CONN=$(PGARENA_PG_MAJOR=$m sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$T/srv-$m") ||
        fail "major $m: the harness cannot start it"
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-harness.sh' stop '$T/srv-$m'"
}

test_pgbench18_unlogged_partitions() {
    db=$(newdb pga_unlogged_parts)
    unlogged_partitions_on "$db" "$(($(sql 'SHOW server_version_num') / 10000))"
    local m
    for m in 13 18; do
        parity_major $m || continue
        unlogged_partitions_on "$MAJOR_CONN" "$m"
        sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" stop "$T/srv-$m"
        echo "major $m: ok"
    done
}

# PostgreSQL 18's pgbench TAP cases that are not the server's (tests/data/pgbench-tap-18.md):
# the data init leaves (-I g and -I G alike: fillers of accounts set, of branches and tellers
# NULL, no history), nested \if with --exit-on-abort, a pipeline synced but never ended,
# pgbench's long spellings --file, --client and --transactions, and ---debug refused.
test_pgbench18_tap_script_cases() {
    db=$(newdb pga_tap18)
    local steps
    for steps in dtpvg dtpvG; do
        pga init -q -s 1 -I $steps "$db"
        assert_rc 0
        [ "$(sql "SELECT (SELECT count(*) FROM pgbench_accounts WHERE filler IS NULL), (SELECT count(*) FROM pgbench_branches WHERE filler IS NULL), (SELECT count(*) FROM pgbench_tellers WHERE filler IS NULL), (SELECT count(*) FROM pgbench_history)" "$db")" = "0|1|10|0" ] ||
            fail "-I $steps: NULL fillers of accounts, branches, tellers and history rows: $(sql "SELECT (SELECT count(*) FROM pgbench_accounts WHERE filler IS NULL), (SELECT count(*) FROM pgbench_branches WHERE filler IS NULL), (SELECT count(*) FROM pgbench_tellers WHERE filler IS NULL), (SELECT count(*) FROM pgbench_history)" "$db")"
    done
    # every branch not taken divides by zero: a wrong branch aborts the run
    cat >ifs.sql <<'SQL'
\if 0
  SELECT 1 / 0;
  \if 1
    SELECT 1 / 0;
  \else
    SELECT 1 / 0;
  \endif
\elif 1 = 2
  \if 1
    SELECT 1 / 0;
  \endif
\else
  \if false
    SELECT 1 / 0;
  \elif true
    SELECT 3 AS branch \gset
  \else
    SELECT 1 / 0;
  \endif
  \if :branch <> 3
    SELECT 1 / 0;
  \endif
\endif
SQL
    pga run --file=ifs.sql --client=2 --transactions=3 --exit-on-abort -q -o ifs.json "$db"
    assert_rc 0
    pyjson ifs.json 'd["summary"]["transactions"] == 6 and d["summary"]["failed"] == 0'
    # pgbench 18 ends the run with "end of script reached with pipeline open" (exit 2); the
    # script is refused before the run here, exit 2 as well
    printf '\\startpipeline\n\\syncpipeline\n' >open.sql
    pga run -M extended -f open.sql -t 2 -q "$db"
    assert_rc 2
    assert_one_error_line
    assert_err '^pgarena: open\.sql:1:1: \\startpipeline without \\endpipeline'
    pga run ---debug -t 1 "$db"
    assert_rc 2
    assert_one_error_line
    assert_err "unknown option '---debug' \\(see pgarena run --help\\)"
}

# PostgreSQL 18's pgbench TAP cases of a pipeline's implicit transaction (on an 18 server: 17
# changed what the server does): a pipeline's first statement runs outside the transaction
# block of the rest, up to a \syncpipeline. pgbench aborts the client on the error (exit 2);
# pgarena counts the transaction failed and goes on (exit 0). pgarena prints no server notice,
# so SET LOCAL's warning is not looked at: only that the statement runs.
test_pgbench18_pipeline_transaction_blocks() {
    parity_major 18 || return 0
    local c=$MAJOR_CONN f
    sql "CREATE TABLE pipe_t (id int PRIMARY KEY, x int); INSERT INTO pipe_t SELECT g, g FROM generate_series(1, 100) g" "$c"
    # first outside the block: REINDEX CONCURRENTLY, VACUUM and SET LOCAL run; after a
    # statement: LOCK runs and SET LOCAL too; after a sync: SET LOCAL is first again
    cat >ok.sql <<'SQL'
\startpipeline
REINDEX TABLE CONCURRENTLY pipe_t;
SELECT 1;
\endpipeline
\startpipeline
VACUUM pipe_t;
\endpipeline
\startpipeline
SET LOCAL statement_timeout = '1h';
\endpipeline
\startpipeline
SELECT 1;
SET LOCAL statement_timeout = '1h';
LOCK pipe_t;
\syncpipeline
SET LOCAL statement_timeout = '1h';
\endpipeline
SQL
    pga run -M extended -f ok.sql -t 2 -q -o ok.json "$c"
    assert_rc 0
    pyjson ok.json 'd["summary"]["transactions"] == 2 and d["summary"]["failed"] == 0'
    # inside the block: each fails its transaction with the server's error
    printf '\\startpipeline\nSELECT 1;\nREINDEX TABLE CONCURRENTLY pipe_t;\n\\endpipeline\n' >reindex.sql
    printf '\\startpipeline\nSELECT 1;\nVACUUM pipe_t;\n\\endpipeline\n' >vacuum.sql
    printf '\\startpipeline\nSAVEPOINT a;\nSELECT 1;\nROLLBACK TO SAVEPOINT a;\nSELECT 2;\n\\endpipeline\n' >savepoint.sql
    printf '\\startpipeline\nLOCK pipe_t;\nSELECT 1;\n\\endpipeline\n' >lock.sql
    for f in reindex:'REINDEX CONCURRENTLY cannot run inside a transaction block' \
        vacuum:'VACUUM cannot run inside a transaction block' \
        savepoint:'SAVEPOINT can only be used in transaction blocks' \
        lock:'LOCK TABLE can only be used in transaction blocks'; do
        pga run -M extended -f "${f%%:*}.sql" -t 2 -q -o f.json "$c"
        assert_rc 0
        assert_err "first failure: ${f#*:}"
        pyjson f.json 'd["summary"]["transactions"] == 0 and d["summary"]["failed"] == 2 and d["summary"]["errors"]["other"] == 2'
    done
}

# pgbench 18 prints failed, retried and skipped per script: the text's table, the result's
# summary.scripts[] and show --csv --scripts. Each script's counts add up to the run's.
test_pgbench18_per_script_retried_skipped() {
    db=$(newdb pga_retried)
    sql "CREATE TABLE ser (x int); INSERT INTO ser VALUES (0)" "$db"
    # four clients updating one row in repeatable read: serialization failures, retried
    printf 'BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT x FROM ser;\nSELECT pg_sleep(0.005);\nUPDATE ser SET x = x + 1;\nCOMMIT;\n' >ser.sql
    printf 'SELECT 1;\n' >one.sql
    pga run -f ser.sql@3 -f one.sql@1 -c 4 -j 2 -t 20 --max-tries 1000 -o r.json "$db"
    assert_rc 0
    assert_out '^  script +weight +transactions +share +failed +retried +skipped '
    assert_out '^  ser\.sql +3 +[0-9]+ +[0-9.]+% +0 +[1-9][0-9]* +0 '
    assert_out '^  one\.sql +1 +[0-9]+ +[0-9.]+% +0 +0 +0 '
    pyjson r.json 'all(set(s) >= {"retried", "skipped"} for s in d["summary"]["scripts"])'
    pyjson r.json 'sum(s["retried"] for s in d["summary"]["scripts"]) == d["summary"]["retried"] > 0'
    pyjson r.json '[s["retried"] > 0 for s in d["summary"]["scripts"]] == [True, False]'
    pyjson r.json 'd["summary"]["transactions"] == 80'
    [ "$(sql "SELECT x FROM ser" "$db")" = "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["scripts"][0]["transactions"])' r.json)" ] ||
        fail "ser.sql's transactions are not the row's updates"
    # -R far above what the server does, with a latency limit no start can meet: most starts
    # are skipped, each counted for the script chosen for it
    db2=$(parity_db pga_skipped)
    pga run -S -f one.sql -c 2 -t 200 -R 50000 --latency-limit 0.05 -o s.json "$db2"
    assert_rc 0
    pyjson s.json 'sum(s["skipped"] for s in d["summary"]["scripts"]) == d["summary"]["skipped"] > 0'
    pyjson s.json 'sum(s["transactions"] + s["failed"] + s["skipped"] for s in d["summary"]["scripts"]) == 400'
    pyjson s.json 'all(s["retried"] == 0 for s in d["summary"]["scripts"])'
    # show prints the table again; --csv --scripts a row per script
    pga show s.json
    assert_rc 0
    assert_out '^  builtin: select-only +1 '
    pga show --csv --scripts s.json
    assert_rc 0
    python3 - "$T/out" s.json <<'PY' || fail "show --csv --scripts"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
d = json.load(open(sys.argv[2]))
s = d["summary"]["scripts"]
assert [r["script"] for r in rows] == [x["name"] for x in s], rows
for r, x in zip(rows, s):
    for k in ("weight", "transactions", "failed", "retried", "skipped"):
        assert int(r[k]) == x[k], (k, r, x)
    assert abs(float(r["latency_max_ms"]) * 1000 - x["latency_us"]["max"]) < 1.5, (r, x)
PY
    pga show --scripts s.json
    assert_rc 2
    assert_one_error_line
    assert_err 'show: --scripts goes with --csv'
    pga show --csv --scripts --summary s.json
    assert_rc 2
    assert_one_error_line
}

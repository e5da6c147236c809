# The loader: pgbench's tables (plain and partitioned) as pgbench -i makes them, sysbench's
# tables as sysbench prepare makes them and runnable by sysbench, and no clobbering.

PG_DUMP=$(dirname "$PSQL")/pg_dump

# Schema of a database without the dump's random \restrict key lines.
schema() {
    "$PG_DUMP" -s "$1" | grep -v '^\\\(un\)\{0,1\}restrict'
}

# Counts, key and column sums of the pgbench tables, per partition.
pgbench_contents() {
    sql "SELECT (SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_tellers),
                (SELECT count(*) FROM pgbench_history), (SELECT sum(bid) FROM pgbench_tellers),
                (SELECT sum(bbalance) FROM pgbench_branches), (SELECT sum(tbalance) FROM pgbench_tellers)" "$1"
    sql "SELECT tableoid::regclass, count(*), count(DISTINCT aid), min(aid), max(aid), sum(aid),
                sum(bid), sum(abalance), min(filler), max(filler)
         FROM pgbench_accounts GROUP BY 1 ORDER BY 1" "$1"
}

same_as_pgbench() {
    local ours=$1 theirs=$2
    [ "$(pgbench_contents "$ours")" = "$(pgbench_contents "$theirs")" ] ||
        fail "contents differ: pgarena [$(pgbench_contents "$ours")] pgbench [$(pgbench_contents "$theirs")]"
    schema "$ours" >ours.sql
    schema "$theirs" >theirs.sql
    diff theirs.sql ours.sql || fail "schemas differ (pg_dump -s)"
    "$PGBENCH" -t 50 -c 2 "$ours" >"$T/pgbench.out" 2>&1 || { cat "$T/pgbench.out"; fail "pgbench failed on pgarena's data"; }
    grep -q 'number of transactions actually processed: 100/100' "$T/pgbench.out" || fail "pgbench did not process 100"
}

test_init_scale5_matches_pgbench() {
    ours=$(newdb pga_l_ours)
    theirs=$(newdb pga_l_theirs)
    pga init -s 5 -j 2 "$ours"
    assert_rc 0
    assert_err '^500055 of 500055 rows \(100 %\)'
    assert_err 'vacuum, keys and indexes: ([0-9]+) of \1 done'
    "$PGBENCH" -i -s 5 -q "$theirs" >/dev/null 2>&1
    [ "$(sql "SELECT count(*), sum(aid) FROM pgbench_accounts" "$ours")" = "500000|125000250000" ] ||
        fail "unexpected accounts"
    same_as_pgbench "$ours" "$theirs"
    # As pgbench leaves them: accounts frozen (COPY FREEZE), every table analyzed.
    [ "$(sql "SELECT count(*) FROM pg_stat_user_tables WHERE relname LIKE 'pgbench_%' AND last_analyze IS NOT NULL" "$ours")" = 4 ] ||
        fail "not every table analyzed"
}

test_init_partitions_match_pgbench() {
    ours=$(newdb pga_l_pours)
    theirs=$(newdb pga_l_ptheirs)
    pga init -s 5 --partitions 4 -q "$ours"
    assert_rc 0
    "$PGBENCH" -i -s 5 --partitions 4 -q "$theirs" >/dev/null 2>&1
    same_as_pgbench "$ours" "$theirs"
    pga init -s 2 --partitions 3 --partition-method hash -q "$ours"
    assert_rc 0
    "$PGBENCH" -i -s 2 --partitions 3 --partition-method hash -q "$theirs" >/dev/null 2>&1
    same_as_pgbench "$ours" "$theirs"
    # Back to no partitions: the partitioned table and its partitions are replaced.
    pga init -s 1 "$ours"
    assert_rc 0
    assert_err '^replacing existing tables: pgbench_accounts, pgbench_accounts_1, pgbench_accounts_2, pgbench_accounts_3, pgbench_branches'
    [ "$(sql "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench_accounts_%' AND relkind = 'r'" "$ours")" = 0 ] ||
        fail "partitions left behind"
}

test_init_sysbench_tables() {
    need_sysbench
    ours=$(newdb pga_l_sb)
    theirs=$(newdb pga_l_sbtheirs)
    pga init -w oltp-read-write --tables 2 --table-size 20000 "$ours"
    assert_rc 0
    assert_err '^40000 of 40000 rows'
    [ "$(sql "SELECT (SELECT count(*) || ',' || min(id) || ',' || max(id) FROM sbtest1),
                     (SELECT count(*) FROM sbtest2), (SELECT last_value FROM sbtest2_id_seq),
                     (SELECT count(*) FROM sbtest1 WHERE length(c) = 119 AND length(pad) = 59
                      AND c::text ~ '^([0-9]{11}-){9}[0-9]{11}$' AND pad::text ~ '^([0-9]{11}-){4}[0-9]{11}$')" "$ours")" = \
      "20000,1,20000|20000|20000|20000" ] || fail "unexpected sysbench rows"
    # sysbench's default distribution of k: about 75 % in the middle 1 % of the range.
    mid=$(sql "SELECT count(*) FROM sbtest1 WHERE k BETWEEN 9800 AND 10200" "$ours")
    [ "$mid" -gt 14000 ] && [ "$mid" -lt 16000 ] || fail "k not distributed as sysbench's: $mid"
    sb="--db-driver=pgsql --pgsql-host=$(conn_part host) --pgsql-port=$(conn_part port) --pgsql-user=$(conn_part user)"
    sysbench oltp_read_write $sb --pgsql-db=pga_l_sbtheirs --tables=2 --table-size=100 prepare >/dev/null 2>&1 ||
        fail "sysbench prepare failed"
    schema "$theirs" >theirs.sql
    schema "$ours" >ours.sql
    diff theirs.sql ours.sql || fail "schemas differ from sysbench's (pg_dump -s)"
    sysbench oltp_point_select $sb --pgsql-db=pga_l_sb --tables=2 --table-size=20000 --time=2 run >sb.out 2>&1 ||
        { cat sb.out; fail "sysbench oltp_point_select failed on pgarena's tables"; }
    grep -qE 'transactions: +[1-9]' sb.out || { cat sb.out; fail "sysbench ran no transactions"; }
    grep -qE 'ignored errors: +0 ' sb.out || { cat sb.out; fail "sysbench had errors"; }
    pga run -w oltp-read-write -c 2 -T 2 -q -r -o r.json "$ours"
    assert_rc 0
    assert_out 'failed: +0 '
    pyjson r.json 'd["summary"]["transactions"] > 0 and d["summary"]["failed"] == 0'
    pyjson r.json '[s["name"] for s in d["workload"]["scripts"]] == ["builtin: oltp-read-write sbtest1", "builtin: oltp-read-write sbtest2"]'
    # 20 statements per transaction, as sysbench's oltp_read_write.
    pyjson r.json 'sum(s["count"] for s in d["statements"]) == 20 * d["summary"]["transactions"]'
    [ "$(sql "SELECT (SELECT count(*) FROM sbtest1) + (SELECT count(*) FROM sbtest2)" "$ours")" = 40000 ] ||
        fail "delete + insert changed the row count"
}

# The data is a function of --seed, not of -j.
test_init_seed_determines_data() {
    db=$(newdb pga_l_seed)
    digest="SELECT md5(string_agg(id || ' ' || k || c || pad, ',' ORDER BY id)) FROM sbtest2"
    pga init -w oltp-point-select --tables 2 --table-size 3000 --seed 5 -j 1 -q "$db"
    assert_rc 0
    a=$(sql "$digest" "$db")
    pga init -w oltp-point-select --tables 2 --table-size 3000 --seed 5 -j 2 -q "$db"
    assert_rc 0
    [ "$(sql "$digest" "$db")" = "$a" ] || fail "same seed, different data"
    pga init -w oltp-point-select --tables 2 --table-size 3000 --seed 6 -q "$db"
    assert_rc 0
    [ "$(sql "$digest" "$db")" != "$a" ] || fail "another seed, same data"
}

test_init_refuses_foreign_table() {
    db=$(newdb pga_l_foreign)
    sql "CREATE TABLE pgbench_tellers (id int, name text); INSERT INTO pgbench_tellers VALUES (1, 'mine')" "$db"
    pga init -s 1 "$db"
    assert_rc 2
    assert_one_error_line
    assert_err 'pgbench_tellers exists with columns \(id integer, name text\)'
    [ "$(sql "SELECT name FROM pgbench_tellers" "$db")" = mine ] || fail "the table changed"
    [ "$(sql "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench%'" "$db")" = 1 ] ||
        fail "other tables were created"
    sql "CREATE TABLE sbtest2 (id int)" "$db"
    pga init -w oltp-read-only --tables 3 --table-size 10 "$db"
    assert_rc 2
    assert_one_error_line
    assert_err 'sbtest2 exists with columns \(id integer\)'
    [ "$(sql "SELECT count(*) FROM pg_class WHERE relname LIKE 'sbtest%'" "$db")" = 1 ] ||
        fail "sysbench tables were created"
    sql "CREATE VIEW sbtest1 AS SELECT 1" "$db"
    pga init -w oltp-read-only --tables 3 --table-size 10 --force "$db"
    assert_rc 2
    assert_err 'sbtest1 exists and is not a table'
    # --force replaces a table in another shape, and says so.
    pga init -s 1 --force "$db"
    assert_rc 0
    assert_err '^replacing existing tables: pgbench_tellers$'
    [ "$(sql "SELECT count(*) FROM pgbench_tellers" "$db")" = 10 ] || fail "not replaced"
}

test_init_bad_options() {
    pga init -w oltp-read-write -s 3 "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err "uses sysbench's tables"
    pga init --tables 2 "$CONN"
    assert_rc 2
    assert_err "uses pgbench's tables"
    pga init --partition-method hash "$CONN"
    assert_rc 2
    assert_err 'requires --partitions'
    pga init --partitions 2 --partition-method list "$CONN"
    assert_rc 2
    assert_one_error_line
    pga init -w oltp-read-write --table-size 0 "$CONN"
    assert_rc 2
    assert_one_error_line
    pga run -w oltp-point-select --tables 1 -T 1 "$CONN"
    assert_rc 2
    assert_err "needs sysbench's tables"
}

need_sysbench() {
    command -v sysbench >/dev/null || fail "sysbench is not installed (tests/ensure-deps.sh)"
}

# A key of the test conninfo "host=... port=... user=... dbname=...".
conn_part() {
    printf '%s\n' $CONN | sed -n "s/^$1=//p"
}

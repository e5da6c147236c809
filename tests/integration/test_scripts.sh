# pgbench's script language: custom scripts run unchanged, in every protocol, with their
# effects checked on the server.

scripts_db() {
    db=$(newdb "$1")
    pga init -s 1 -q "$db"
    assert_rc 0
    echo "$db"
}

test_pgbench_builtin_scripts_as_files() {
    db=$(scripts_db pga_files)
    for s in tpcb-like simple-update select-only; do
        "$PGBENCH" --show-script=$s 2>&1 | tail -n +2 >$s.sql
        for m in simple extended prepared; do
            pga run -f $s.sql -M $m -c 2 -j 2 -t 20 -q -o r.json "$db"
            assert_rc 0
            pyjson r.json 'd["summary"]["transactions"] == 40 and d["summary"]["failed"] == 0'
        done
    done
    # Every tpcb-like and simple-update transaction left one history row.
    [ "$(sql "SELECT count(*) FROM pgbench_history" "$db")" = 240 ] || fail "history rows do not match the transactions"
}

test_meta_commands_in_every_protocol() {
    db=$(scripts_db pga_meta)
    sql "CREATE TABLE out (proto int, client int, a bigint, b text, c double precision, d int, e int)" "$db"
    cat >meta.sql <<'SQL'
\set a 6 * 7
\set c 1.0 / 4
SELECT :a + 1 AS x, 77 AS y \gset p_
\if :p_x > 100
  \set d 1
\elif :p_x = 43
  \set d 2
\else
  \set d 3
\endif
\set e CASE WHEN :d = 2 AND NOT false THEN 10 ELSE 20 END
SELECT 5 AS five, 6 AS six \aset
\sleep 2 ms
\sleep 1000 us
INSERT INTO out VALUES (:proto, :client_id, :a, :p_y, :c, :d, :e + :five::int + :six::int);
SQL
    n=0
    for m in simple extended prepared; do
        n=$((n + 1))
        pga run -f meta.sql -M $m -D proto=$n -c 2 -t 3 -q -o r.json "$db"
        assert_rc 0
        pyjson r.json 'd["summary"]["transactions"] == 6 and d["summary"]["failed"] == 0'
        # \sleep 2 ms + 1000 us: no transaction can be faster than 3 ms.
        pyjson r.json 'd["summary"]["latency_us"]["min"] >= 3000'
    done
    got=$(sql "SELECT proto, count(*), min(a), max(b), min(c), min(d), max(e), count(DISTINCT client) FROM out GROUP BY 1 ORDER BY 1" "$db")
    want="1|6|42|77|0.25|2|21|2
2|6|42|77|0.25|2|21|2
3|6|42|77|0.25|2|21|2"
    [ "$got" = "$want" ] || fail "rows written by the script: $got"
}

test_pipeline_and_compound_commands() {
    db=$(scripts_db pga_pipe)
    sql "CREATE TABLE p (n int)" "$db"
    printf '\\startpipeline\nINSERT INTO p VALUES (1);\nINSERT INTO p VALUES (2);\nINSERT INTO p VALUES (3);\n\\endpipeline\n' >pipe.sql
    for m in extended prepared; do
        pga run -f pipe.sql -M $m -c 2 -t 5 -q -o r.json "$db"
        assert_rc 0
        pyjson r.json 'd["summary"]["transactions"] == 10 and d["summary"]["failed"] == 0'
    done
    [ "$(sql "SELECT count(*), sum(n) FROM p" "$db")" = "60|120" ] || fail "pipelined inserts missing"
    # The simple protocol has no pipelines: refused before the run.
    pga run -f pipe.sql -M simple -t 1 -q -o r.json "$db"
    assert_rc 2
    assert_one_error_line
    assert_err 'startpipeline needs -M extended'
    # A compound command (\;) is one command whose results \aset keeps.
    sql "CREATE TABLE q (n int)" "$db"
    printf 'SELECT 1 AS one \\; SELECT 2 AS two \\aset\nINSERT INTO q VALUES (:one + :two);\n' >compound.sql
    pga run -f compound.sql -t 2 -q -o r.json "$db"
    assert_rc 0
    [ "$(sql "SELECT count(*), sum(n) FROM q" "$db")" = "2|6" ] || fail "compound command results not kept"
}

test_weights_and_mixes() {
    db=$(scripts_db pga_weights)
    sql "CREATE TABLE w (s text)" "$db"
    echo "INSERT INTO w VALUES ('a');" >a.sql
    echo "INSERT INTO w VALUES ('b');" >b.sql
    pga run -f a.sql@3 -f b.sql@1 -b select-only@1 -c 2 -t 2000 -q -o r.json "$db"
    assert_rc 0
    pyjson r.json '[s["weight"] for s in d["workload"]["scripts"]] == [3, 1, 1] and d["workload"]["name"] == "custom"'
    a=$(sql "SELECT count(*) FROM w WHERE s = 'a'" "$db")
    b=$(sql "SELECT count(*) FROM w WHERE s = 'b'" "$db")
    # 4000 transactions: expected 2400 a, 800 b, 800 select-only (binomial sd about 31 and 25).
    [ "$a" -gt 2250 ] && [ "$a" -lt 2550 ] || fail "script a ran $a times, expected about 2400"
    [ "$b" -gt 680 ] && [ "$b" -lt 920 ] || fail "script b ran $b times, expected about 800"
    pga run -w select-only -f a.sql "$db"
    assert_rc 2
    assert_one_error_line
}

test_runtime_errors_fail_the_transaction() {
    db=$(scripts_db pga_rterr)
    printf '\\set n random(0, 1)\n\\set x 10 / :n\nSELECT :x;\n' >div.sql
    pga run -f div.sql -c 2 -t 200 -q -o r.json "$db"
    assert_rc 0
    assert_err 'division by zero'
    # About half divide by zero: failed, counted, and the run went on.
    pyjson r.json '100 < d["summary"]["failed"] < 300 and d["summary"]["transactions"] + d["summary"]["failed"] == 400'
    pyjson r.json 'd["summary"]["errors"]["other"] == d["summary"]["failed"]'
    # An unset variable is sent as NULL in extended mode, as pgbench 15 does (test_parity.sh):
    # the server decides; here it runs. In simple mode the text :nosuch goes and fails.
    printf 'SELECT :nosuch;\n' >undef.sql
    pga run -f undef.sql -M extended -t 3 -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'd["summary"]["failed"] == 0 and d["summary"]["transactions"] == 3'
    pga run -f undef.sql -t 3 -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'd["summary"]["failed"] == 3'
    printf '\\set x 9223372036854775807 + 1\n' >ovf.sql
    pga run -f ovf.sql -t 2 -q -o r.json "$db"
    assert_rc 0
    assert_err 'out of range'
    pyjson r.json 'd["summary"]["failed"] == 2'
}

test_parse_errors_name_file_line_column() {
    db=$(scripts_db pga_perr)
    check_parse_error() { # FILE-CONTENT EXPECTED-POSITION
        printf '%s\n' "$1" >bad.sql
        pga run -f bad.sql -t 1 -q -o r.json "$db"
        assert_rc 2
        assert_one_error_line
        assert_err "^pgarena: bad.sql:$2: "
        [ ! -e r.json ] || fail "a result file was written for a script that does not parse"
    }
    check_parse_error '\set x foo(1)' '1:8'
    check_parse_error "$(printf 'SELECT 1;\n\\set x 1 +')" '2:11'
    check_parse_error '\bogus' '1:1'
    check_parse_error "$(printf '\\if true\nSELECT 1;')" '1:1'
    check_parse_error "SELECT 'unterminated" '1:8'
    check_parse_error '\else' '1:1'
    check_parse_error '\sleep 1 minute' '1:10'
    check_parse_error '\gset' '1:1'
    check_parse_error '\shell ls' '1:1'
    check_parse_error '\set x 99999999999999999999' '1:8'
    check_parse_error "$(printf '\\startpipeline\nSELECT 1;')" '1:1'
    check_parse_error '\set x 1 = 2 = 3' '1:14'
    printf '' >empty.sql
    pga run -f empty.sql -t 1 -q "$db"
    assert_rc 2
    assert_one_error_line
    pga run -f /nonexistent/script.sql -t 1 -q "$db"
    assert_rc 2
    assert_one_error_line
}

# A latency check with a known answer: pg_sleep of random(0, 20000) us on the server. That
# the engine measures a statement from its send to its result, so that such a spread gives a
# p50 near 10 ms, a p90 near 18 ms and 8 ms between them, is checked in virtual time
# (tests/unit/test_engine_timing.c). Here what a stall of the machine cannot move: a fixed
# seed and count (-t) make the 2,000 draws the same every time, and no transaction beats its
# server's sleep (a stall only adds time), so each percentile is at least the draws' (p50
# 10 ms and p90 18 ms, give or take 0.4 ms at 2,000 draws); and they are in order.
test_sleep_latency_distribution() {
    db=$(scripts_db pga_sleep)
    printf '\\set d random(0, 20000)\nSELECT pg_sleep(:d / 1e6);\n' >sleep.sql
    pga run -f sleep.sql -c 8 -j 2 -t 250 --seed 7 -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'd["summary"]["transactions"] == 2000'
    pyjson r.json '9000 <= d["summary"]["latency_us"]["p50"]'
    pyjson r.json '17000 <= d["summary"]["latency_us"]["p90"]'
    pyjson r.json '(lambda l: l["min"] <= l["p50"] <= l["p90"] <= l["p99"] <= l["max"])(d["summary"]["latency_us"])'
}

test_init_script() {
    db=$(newdb pga_initf)
    printf 'DROP TABLE IF EXISTS t;\nCREATE TABLE t (n int);\n\\set n 10 * :scale\nINSERT INTO t SELECT generate_series(1, :n);\n' >init.sql
    pga init -f init.sql -s 3 "$db"
    assert_rc 0
    [ "$(sql "SELECT count(*) FROM t" "$db")" = 30 ] || fail "init script did not run with :scale"
    printf 'INSERT INTO nosuchtable VALUES (1);\n' >badinit.sql
    pga init -f badinit.sql "$db"
    assert_rc 1
    assert_one_error_line
    assert_err 'nosuchtable'
}

test_examples_run() {
    db=$(scripts_db pga_examples)
    ex=$PGARENA_TEST_TOP/examples
    pga init -f "$ex/table_a-init.sql" "$db"
    assert_rc 0
    [ "$(sql "SELECT count(*), count(DISTINCT thread_id) FROM table_a" "$db")" = "1000000|10" ] || fail "table_a not loaded"
    pga run -f "$ex/table_a.sql" -c 2 -t 5 -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'd["summary"]["transactions"] == 10 and d["summary"]["failed"] == 0'
    for f in tpcb-like simple-update select-only read-mostly pipeline-gset; do
        pga run -f "$ex/$f.sql" -M prepared -c 2 -t 10 -q -o r.json "$db"
        assert_rc 0
        pyjson r.json 'd["summary"]["failed"] == 0'
    done
}

# Deterministic functions give pgbench's values: both tools run the same script, each into
# its own table, and the tables are compared.
test_deterministic_functions_match_pgbench() {
    db=$(newdb pga_det)
    sql "CREATE TABLE by_pgbench (k text, v text); CREATE TABLE by_pgarena (k text, v text)" "$db"
    script=$PGARENA_TEST_TOP/tests/data/deterministic.sql
    "$PGBENCH" -n -t 1 -D tbl=by_pgbench -f "$script" "$db" >pgbench.out 2>&1 || { cat pgbench.out; fail "pgbench failed on the corpus"; }
    pga run -t 1 -D tbl=by_pgarena -f "$script" -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'd["summary"]["transactions"] == 1'
    [ "$(sql "SELECT count(*) FROM by_pgbench" "$db")" = 38 ] || fail "pgbench did not store 38 values"
    diff=$(sql "(SELECT k, v FROM by_pgbench EXCEPT SELECT k, v FROM by_pgarena) UNION ALL (SELECT k, v FROM by_pgarena EXCEPT SELECT k, v FROM by_pgbench) ORDER BY 1" "$db")
    [ -z "$diff" ] || fail "values differ from pgbench's: $diff"
}

# -b takes pgbench's unique prefixes (its TAP suite runs `-b t`, `-b si`, `-b se`): pgbench's
# three built-ins first, so tpcc being a built-in too does not make `t` ambiguous.
test_pgbench_builtin_prefixes() {
    db=$(scripts_db pga_prefix)
    for p in t:tpcb-like si:simple-update se:select-only; do
        pga run -b "${p%%:*}" -c 1 -t 5 -q -o r.json "$db"
        assert_rc 0
        pyjson r.json "d['workload']['name'] == '${p#*:}' and d['summary']['transactions'] == 5"
    done
    # tpcb-like and simple-update wrote one history row per transaction.
    [ "$(sql "SELECT count(*) FROM pgbench_history" "$db")" = 10 ] || fail "-b t / -b si did not run pgbench's scripts"
    pga run --show-script t
    assert_rc 0
    assert_out '^-- tpcb-like:'
}

# The example commands whose result files' keys and printed summaries are pinned here
# (tests/integration/test_result_keys.sh checks them; regen.sh writes them anew). Sourced after
# tests/integration/lib.sh (pga, newdb, sql, fail): result_keys_cases DIR runs them in the
# current directory and writes DIR/NAME.keys (tests/tools/result-keys.py of the result file)
# and DIR/NAME.out (what the command printed, masked by keys_mask) for each case NAME.

KEYS_TOOL=$PGARENA_TEST_TOP/tests/tools/result-keys.py

# keys_mask: stdin to stdout with what differs from one run to the next masked: numbers (N)
# and the columns' widths (runs of spaces made one), the server's socket directory (HOST), which
# wait events were sampled ("wait events: ..."), the rows of replay's "top classes" (ordered by
# time) and of the agents' table (their host; the rows' count kept), the sign of an agent's clock
# offset, and the lines there or not by what the server or the machine did meanwhile ("server
# events:", "server per tx:", the busy client thread's warning, checkpoint_timeout's warning,
# which the server's WAL decides: the other test files on the shared server write it), and what
# the machine did to the client ("client health:": which intervals stalled and why).
keys_mask() {
    local host=${CONN#*host=}
    host=${host%% *}
    awk -v host="$host" '
        /^[a-zA-Z][^:]*: / { cont = 0; rows = 0 }
        /^wait events:/ { print "wait events: ..."; cont = 1; next }
        /^client health:/ { print "client health: ..."; next }
        /^server (events|per tx):|^warning: +a client thread used|^warning: +checkpoint_timeout=/ { cont = 1; next }
        cont { next }
        /^top classes/ { print; rows = "  (a class)"; next }
        /^  agent host/ { print; rows = "  (an agent)"; next }
        rows { print rows; next }
        { gsub(host, "HOST"); gsub(/offset -/, "offset "); gsub(/[0-9]+(,[0-9][0-9][0-9])*([.][0-9]+)?/, "N"); gsub(/  +/, " "); print }'
}

# keys_take NAME FILE [--live]: FILE's keys and the last pga's stdout ($T/out), as NAME's;
# --live for the file of a live run (see result-keys.py).
keys_take() {
    [ "$RC" -eq 0 ] || { cat "$T/err" >&2; fail "$1: pgarena exited $RC"; }
    /usr/bin/python3 "$KEYS_TOOL" ${3:+"$3"} "$2" >"$KEYS_DIR/$1.keys" || fail "$1: cannot read $2"
    keys_mask <"$T/out" >"$KEYS_DIR/$1.out"
}

result_keys_cases() {
    KEYS_DIR=$1
    local db tp d=$PGARENA_TEST_TOP/tests/data/figures mkcapture=$PGARENA_TEST_TOP/build/tests/mkcapture

    # pgbench's tables: the README's quick start.
    db=$(newdb pga_keys_pgb)
    pga init -s 1 -q "$db"
    pga run -c 2 -t 20 --seed 1 -o tpcb.json "$db"
    keys_take tpcb-like tpcb.json --live
    pga run -w select-only -M prepared -c 2 -t 20 --seed 1 -o so.json "$db"
    keys_take select-only-prepared so.json --live

    # One run of two agents (on this host, coordinated in the target database): agent 0's own
    # file (it prints the merged result too) and merge of the two files.
    PGA_OUT=$T/out0 PGA_ERR=$T/err0 pga_bg run "$db" -w select-only -c 2 -t 10 --agents 2 \
        --agent-index 0 --run-id keys -o a0.json -q
    pga run "$db" -w select-only -c 2 -t 10 --agents 2 --agent-index 1 --run-id keys -o a1.json -q
    [ "$RC" -eq 0 ] || { cat "$T/err" >&2; fail "agent 1 exited $RC"; }
    pga_wait
    mv "$T/out0" "$T/out"
    mv "$T/err0" "$T/err"
    keys_take agent a0.json --live
    pga merge a0.json a1.json -o merged-agents.json
    keys_take merge-agents merged-agents.json --live

    # sysbench's tables (one client: two could deadlock, which the summary would say).
    pga init -w oltp-read-write --table-size 1000 -q "$db"
    pga run -w oltp-read-write -c 1 -t 5 --seed 1 -o oltp.json "$db"
    keys_take oltp-read-write oltp.json --live

    # TPC-C and CH-benCHmark on one warehouse (ch's tables are tpcc's and three more).
    tp=$(newdb pga_keys_ch)
    pga init -w ch --warehouses 1 -j 2 -q "$tp"
    pga run -w tpcc -c 1 -t 5 --seed 1 -o tpcc.json "$tp"
    keys_take tpcc tpcc.json --live
    pga run -w ch -c 1 --analytic-clients 1 -t 2 --queries 6,1 --seed 1 -o ch.json "$tp"
    keys_take ch ch.json --live

    # replay run of a small capture (tests/tools/mkcapture): one session on a table of its own.
    [ -x "$mkcapture" ] || make -s -C "$PGARENA_TEST_TOP" build/tests/mkcapture >/dev/null ||
        fail "cannot build tests/tools/mkcapture"
    db=$(newdb pga_keys_replay)
    sql "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'x' FROM generate_series(1, 10) g" "$db"
    {
        printf 'S\t0\t0\tpostgres\tpga_keys_replay\n'
        printf 'Q\t0\t1000\tsimple\t\t100\tok\t\t-1\t0\tSELECT v FROM t WHERE id = 5\n'
        printf 'Q\t0\t2000\tsimple\t\t100\tok\t\t-1\t0\tUPDATE t SET v = '"'"'y'"'"' WHERE id = 7\n'
        printf 'Q\t0\t3000\tunnamed\t\t100\tok\t\t-1\t1\t4\tSELECT v FROM t WHERE id = $1\n'
        printf 'Q\t0\t4000\tsimple\t\t100\terror\t42P01\t-1\t0\tSELECT * FROM missing_table\n'
        printf 'E\t0\t5000\n'
    } | "$mkcapture" cap.pgc || fail "mkcapture failed"
    pga replay run cap.pgc "$db" --speed max -o replay.json
    keys_take replay-run replay.json --live

    # merge of two runs' files (not agents': --force) and recover of a killed run's journal
    # (fixed inputs).
    pga merge "$d/a.json" "$d/b.json" -o merged.json --force
    keys_take merge merged.json
    cp "$d/k.journal" rec.json.journal
    pga recover rec.json
    keys_take recover rec.json

    # A small sweep: two points of one second; the sweep's file and a point's result (what the
    # sweep prints is not pinned: its latencies are in a unit of their size).
    db=${db% dbname=*}' dbname=pga_keys_pgb'
    pga sweep "$db" -w select-only -c 1,2 -T 1 -q -o sweep
    keys_take sweep sweep/sweep.json --live
    rm "$KEYS_DIR/sweep.out"
    keys_take sweep-point sweep/default-c1-t1.json --live
    rm "$KEYS_DIR/sweep-point.out"
}

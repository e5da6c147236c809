# sweep --replay CAPTURE --speed LIST: the speeds are an axis of the matrix (cells, file names,
# the table, sweep.json's comparisons, report DIR), a sweep of replays resumes as any sweep;
# and recover of a killed replay keeps replay {} and summary.classes[].

RS_MKCAPTURE=$PGARENA_TEST_TOP/build/tests/mkcapture

# A paced capture of database $1 into $2: one session, a statement every $3 ms ($4 of them),
# two classes alternating; with $5 set, an INSERT INTO log first.
rs_paced_capture() {
    local k
    {
        printf 'S\t0\t0\tpostgres\t%s\n' "$1"
        [ -z "${5:-}" ] || printf 'Q\t0\t10\tsimple\t\t50\tok\t\t-1\t0\tINSERT INTO log VALUES (1)\n'
        for k in $(seq 1 "$4"); do
            if [ $((k % 2)) = 0 ]; then
                printf 'Q\t0\t%d\tsimple\t\t50\tok\t\t-1\t0\tSELECT v FROM t WHERE id = %d\n' $((k * $3 * 1000)) "$k"
            else
                printf 'Q\t0\t%d\tsimple\t\t50\tok\t\t-1\t0\tSELECT count(*) FROM t WHERE id < %d\n' $((k * $3 * 1000)) "$k"
            fi
        done
        printf 'E\t0\t%d\n' $((($4 + 1) * $3 * 1000))
    } | "$RS_MKCAPTURE" "$2" || fail "mkcapture failed"
}

# Database $1 with a table of 100 rows (and the capture writer built).
rs_source() {
    local db
    [ -x "$RS_MKCAPTURE" ] || make -s -C "$PGARENA_TEST_TOP" build/tests/mkcapture >/dev/null ||
        fail "cannot build tests/tools/mkcapture"
    db=$(newdb "$1")
    sql "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'x' FROM generate_series(1, 100) g; CREATE TABLE log (n int)" "$db"
}

# Speeds 1 and 2, two trials: each cell replays at its speed, the comparison of the speeds
# (the default axis of a replay sweep with one setup) names the change in throughput, and the
# table, --json, --compare speed and report DIR show the speed. That speed 2 takes half the
# time is checked in virtual time (tests/unit/test_engine_timing.c); here no bound a stall of
# this VM's CPU could cross: each cell lasts at least its schedule over its speed (1 s, 0.5 s:
# a stall only adds), and speed 2's throughput is up (its two trials would both have to lose
# more than their 0.5 s to stalls that speed 1's did not see for it to be down).
test_replay_sweep_speeds() {
    rs_source pga_rsw >/dev/null
    rs_paced_capture pga_rsw paced.pgc 100 10
    pga sweep "$CONN" --replay paced.pgc --speed 1,2 --trials 2 --no-sampling -q -o sw
    assert_rc 0
    assert_out '^ *speed \| default tps'
    assert_out '^ *1 \|.*baseline'
    assert_out '^ *2 \|.* \+[0-9.]+% '
    assert_out '^per statement class: '
    assert_out '^  speed 2 SELECT v FROM t WHERE id = \$1: p50 '
    python3 - sw <<'PY' || fail "the sweep's cells or comparisons are wrong"
import json, os, sys
d = json.load(open(os.path.join(sys.argv[1], "sweep.json")))
assert d["axes"]["speed"] == [1, 2] and d["axes"]["clients"] == [], d["axes"]
files = sorted(c["file"] for c in d["cells"])
assert files == ["default-speed1-t1.json", "default-speed1-t2.json",
                 "default-speed2-t1.json", "default-speed2-t2.json"], files
dur = {1: [], 2: []}
for c in d["cells"]:
    assert c["status"] == "complete" and c["clients"] is None, c
    r = json.load(open(os.path.join(sys.argv[1], c["file"])))
    assert r["workload"]["name"] == "replay" and r["replay"]["speed"] == c["speed"], (c, r["replay"])
    assert r["replay"]["sent"] == 10 and r["summary"]["transactions"] == 10, r["replay"]
    dur[c["speed"]].append(r["summary"]["duration_s"])
assert min(dur[1]) >= 1.0 and min(dur[2]) >= 0.5, ("no statement goes before its time", dur)
tps = [c for c in d["comparisons"] if c["metric"] == "tps" and "script" not in c and "class" not in c]
# per class: both classes at speed 2, their latency metrics, over the cell's trials
cl = [c for c in d["comparisons"] if "class" in c]
assert sorted({c["class"] for c in cl}) == ["SELECT count(*) FROM t WHERE id < $1",
                                            "SELECT v FROM t WHERE id = $1"], cl
assert sorted(c["metric"] for c in cl) == sorted(["latency_p50", "latency_p95", "latency_p99"] * 2), cl
assert all(c["value"] == 2 and c["method"] == "cell" and c["ci_low"] is not None for c in cl), cl
assert len(tps) == 1, tps
t = tps[0]
assert t["axis"] == "speed" and t["baseline"] == 1 and t["value"] == 2, t
assert t["cell"] == {"setup": "default"}, t
assert t["change_pct"] > 0 and t["verdict"] != "worse", t
PY
    # The same command resumes a finished sweep (nothing runs again); --compare speed is the
    # axis it compared by default; --json has the speed of each point.
    before=$(stat -c %Y.%i sw/default-speed1-t1.json)
    pga sweep "$CONN" --replay paced.pgc --speed 1,2 --trials 2 --no-sampling -q -o sw \
        --compare speed --json
    assert_rc 0
    [ "$(stat -c %Y.%i sw/default-speed1-t1.json)" = "$before" ] || fail "a complete cell ran again"
    pyjson "$T/out" '[p["speed"] for p in d["points"]] == [1, 2] and d["compare"] == "speed"'
    # Two trials' replays merged: the lag through its histogram (exact), counts added.
    pga merge sw/default-speed1-t1.json sw/default-speed1-t2.json -o m.json --force
    assert_rc 0
    python3 - sw/default-speed1-t1.json sw/default-speed1-t2.json m.json <<'PY' || fail "merged replay lag"
import json, sys
a, b, m = (json.load(open(f))["replay"] for f in sys.argv[1:])
assert m["sent"] == a["sent"] + b["sent"] == 20, m
h = m["lag_us"]["histogram"]
assert h["count"] == 20 and h["max"] == max(a["lag_us"]["max"], b["lag_us"]["max"]), m["lag_us"]
vals = sorted(v for x in (a, b) for v, c in x["lag_us"]["histogram"]["bins"] for _ in range(c))
assert abs(m["lag_us"]["p50"] - vals[9]) <= vals[9] * 0.002 + 1, (m["lag_us"], vals)
PY
    pga report sw -o sw.html
    assert_rc 0
    grep -q 'replay speed' sw.html || fail "the report's chart has no speed axis"
    grep -q '<th>speed 2</th>' sw.html || fail "the report's table has no speed 2 point"
}

# An interrupted replay sweep resumes: the complete cells stay, the others run. Each cell
# replays on a copy made anew from the source (--map-db, --reset-from): the capture's write
# is there once, however many cells ran.
test_replay_sweep_resume() {
    rs_source pga_rsw_res >/dev/null
    rs_paced_capture pga_rsw_res paced.pgc 100 10 write
    local opts=(--map-db pga_rsw_res=pga_rsw_dst --reset-from pga_rsw_res --no-sampling -q)
    pga_bg sweep "$CONN" --replay paced.pgc --speed 2,0.5,max "${opts[@]}" -o sw
    # Interrupted once the first cell is complete (however long a busy machine takes to copy
    # the source and replay it), during the second: its copy and its 2.2 s of schedule.
    for _ in $(seq 1 1200); do
        grep -q '"status": "complete"' sw/sweep.json 2>/dev/null && break
        sleep 0.05
    done
    kill -INT $PID
    pga_wait
    assert_rc 1
    assert_err 'interrupted; the same command resumes it'
    before=$(stat -c %Y.%i sw/default-speed2-t1.json)
    pyjson sw/sweep.json '[c["status"] for c in d["cells"]][0] == "complete"'
    pyjson sw/sweep.json '"complete" not in [c["status"] for c in d["cells"]][1:]'
    pga sweep "$CONN" --replay paced.pgc --speed 2,0.5,max "${opts[@]}" -o sw
    assert_rc 0
    [ "$(sql 'SELECT count(*) FROM log' "${CONN% dbname=*} dbname=pga_rsw_dst")" = 1 ] ||
        fail "the target was not made anew from the source before each cell"
    [ "$(sql 'SELECT count(*) FROM log' "${CONN% dbname=*} dbname=pga_rsw_res")" = 0 ] ||
        fail "a cell wrote to the source"
    [ "$(stat -c %Y.%i sw/default-speed2-t1.json)" = "$before" ] || fail "a complete cell ran again"
    pyjson sw/sweep.json '[c["status"] for c in d["cells"]] == ["complete"] * 3'
    pyjson sw/sweep.json '[c["speed"] for c in d["cells"]] == [2, 0.5, "max"]'
    pyjson sw/default-speedmax-t1.json 'd["replay"]["speed"] == "max" and d["replay"]["sent"] == 11'
}

# kill -9 in the middle of a replay: recover gives a result with replay {} and
# summary.classes[] (the journal's last snapshot of them, as of replay.as_of_s), consistent with
# what was replayed by then; a replay that ends copies no snapshot line into its intervals.
test_replay_recover_keeps_replay() {
    rs_source pga_rsw_rec >/dev/null
    # 60 s of schedule, killed after about 2: however late the kill comes on a busy machine,
    # the replay is still running.
    rs_paced_capture pga_rsw_rec long.pgc 100 600
    pga_bg replay run long.pgc "$CONN" --no-sampling -q -o k.json
    # header, then interval and snapshot lines: 2 intervals and their snapshots
    kill_at_journal $PID k.json.journal 5
    [ ! -e k.json ] || fail "a killed replay wrote its result"
    pga recover k.json
    assert_rc 0
    assert_out '^replayed: '
    python3 - k.json <<'PY' || fail "the recovered replay lacks its replay {} or classes"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and d["end_reason"] == "killed", d["end_reason"]
p = d["replay"]
assert p["capture"] == "long.pgc" and p["speed"] == 1 and p["statements"] == 600, p
# Something replayed by the snapshot, not all: the kill came in the middle.
assert p["as_of_s"] >= 1 and 0 < p["sent"] < p["statements"], p
assert p["diverged"]["failed_now"] == 0 and p["lag_us"]["max"] > 0, p
cl = {c["class"]: c for c in d["summary"]["classes"]}
assert set(cl) == {"SELECT v FROM t WHERE id = $1", "SELECT count(*) FROM t WHERE id < $1"}, cl
assert sum(c["count"] for c in cl.values()) == p["sent"], (cl, p)
assert all(c["histogram"]["count"] == c["count"] for c in cl.values()), cl
# the summary counts every interval recovered, the classes what the workers had handed over
# by the last snapshot: at most an interval behind it (10 statements a second here, more in
# an interval that caught up after a stall)
last = max(11, max(i["transactions"] for i in d["intervals"]))
assert abs(d["summary"]["transactions"] - p["sent"]) <= last, (d["summary"], p)
assert all("t_s" in i for i in d["intervals"]) and len(d["intervals"]) >= 2, d["intervals"]
PY
    # A replay that ends: its intervals are the interval lines only, its classes its own.
    rs_paced_capture pga_rsw_rec short.pgc 100 25
    pga replay run short.pgc "$CONN" --no-sampling -q -o s.json
    assert_rc 0
    pyjson s.json 'len(d["intervals"]) >= 2 and all("t_s" in i for i in d["intervals"])'
    pyjson s.json 'sum(c["count"] for c in d["summary"]["classes"]) == 25 and "as_of_s" not in d["replay"]'
}

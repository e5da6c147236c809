# pgarena sweep --duet: the two setups of a cell at the same time, each half with a duet {}
# naming its partner, the roles swapped by trial, one shared measured start; stopped together;
# show names the partner; history leaves the halves out.

# Every cell pair of sweep directory $1 (pairs in plan order) is a duet: same id, partners
# cross-referenced, roles a/b (the first setup "a" in odd trials), the same measured start
# instant as the barrier gave it, the same number of intervals, distinct duets.
assert_duets() {
    python3 - "$1" <<'PY' || fail "the halves are not duets"
import json, sys, os
top = sys.argv[1]
d = json.load(open(os.path.join(top, "sweep.json")))
assert d["duet"] is True, d.get("duet")
cells = d["cells"]
assert len(cells) % 2 == 0 and all(c["status"] == "complete" for c in cells), cells
ids = set()
for i in range(0, len(cells), 2):
    a, b = cells[i], cells[i + 1]
    assert (a["setup"], b["setup"]) == ("A", "B"), (a, b)
    assert a["clients"] == b["clients"] and a["trial"] == b["trial"], (a, b)
    ra = json.load(open(os.path.join(top, a["file"])))
    rb = json.load(open(os.path.join(top, b["file"])))
    da, db = ra["duet"], rb["duet"]
    assert da["id"] == db["id"], (da, db)
    ids.add(da["id"])
    assert da["partner"] == rb["run_id"] and db["partner"] == ra["run_id"], (da, db)
    assert ra["run_id"] != rb["run_id"]
    want = ("a", "b") if a["trial"] % 2 == 1 else ("b", "a")
    assert (da["role"], db["role"]) == want, (a["trial"], da, db)
    for r in (ra, rb):
        assert r["options"]["clients"] == a["clients"], r["options"]
        assert r["complete"] is True
    # One instant for both measured parts, as the barrier handed it to both halves.
    assert ra["measured_start_at"] == rb["measured_start_at"], (ra["measured_start_at"], rb["measured_start_at"])
    assert len(ra["intervals"]) == len(rb["intervals"]) > 0, (len(ra["intervals"]), len(rb["intervals"]))
assert len(ids) == len(cells) // 2, ids
PY
}

# Each interval of the duet halves $@ has tx_100ms: its transactions by the 100 ms they completed
# in, one count per 100 ms it covers (a short last interval fewer), summing to its transactions.
assert_tx_100ms() {
    python3 - "$@" <<'PY' || fail "tx_100ms does not count the intervals' transactions"
import json, math, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    assert "duet" in r, path
    assert r["intervals"], path
    for i, iv in enumerate(r["intervals"]):
        t = iv.get("tx_100ms")
        assert isinstance(t, list), (path, i, iv.keys())
        want = max(1, min(10, math.ceil(iv["duration_s"] * 10 - 1e-6)))
        assert len(t) == want, (path, i, iv["duration_s"], t)
        assert all(isinstance(n, int) and n >= 0 for n in t), (path, i, t)
        assert sum(t) == iv["transactions"], (path, i, t, iv["transactions"])
        # Spread over the interval, not all in one tenth (select-only: thousands a second).
        if len(t) == 10 and iv["transactions"] >= 100:
            assert sum(1 for n in t if n > 0) >= 2, (path, i, t)
PY
}

test_duet_sweep_pairs_the_halves() {
    a=$(pgbench_db dueta)
    b=$(pgbench_db duetb)
    pga sweep --duet --setup "A=$a" --setup "B=$b" -c 1,2 --trials 2 -w select-only -T 2 \
        --warmup 1 -o s
    assert_rc 0
    # Different databases: no warning that the halves share one.
    ! grep -q 'same server and database' "$T/err" || { cat "$T/err"; fail "warned on two databases"; }
    # One progress line per cell pair.
    [ "$(grep -c '^sweep: cell .*(duet ' "$T/err")" -eq 4 ] || { cat "$T/err"; fail "expected 4 duet lines"; }
    grep -q '(duet A and B, 1 client, trial 1)' "$T/err" || { cat "$T/err"; fail "trial 1: A first"; }
    grep -q '(duet B and A, 1 client, trial 2)' "$T/err" || { cat "$T/err"; fail "trial 2: B first"; }
    pyjson s/sweep.json 'len(d["cells"]) == 8'
    assert_duets s
    # show: one line naming the role, the partner's run and its file beside it.
    partner=$(python3 -c 'import json; print(json.load(open("s/B-c2-t2.json"))["run_id"])')
    pga show s/A-c2-t2.json
    assert_rc 0
    assert_out "^duet: +one half \\(role b\\) of duet [0-9a-f-]+, run at once with run $partner, s/B-c2-t2.json$"
    # A solo run has no such line.
    pga run -w select-only -T 1 -o solo.json "$a"
    assert_rc 0
    pga show solo.json
    ! grep -q '^duet:' "$T/out" || fail "a solo run shown as a duet"
    # history: the halves are not a solo series.
    cp solo.json s/
    pga history s
    assert_rc 0
    assert_out '^8 duet halves left out'
    assert_out '\(1 run\)'
    # The same command resumes nothing: every pair is complete.
    pga sweep --duet --setup "A=$a" --setup "B=$b" -c 1,2 --trials 2 -w select-only -T 2 \
        --warmup 1 -o s -q
    assert_rc 0
    assert_duets s
}

# The halves' intervals count their transactions per 100 ms (tx_100ms: a duet compares
# half-seconds); a solo run's file has no tx_100ms.
test_duet_halves_carry_tx_100ms() {
    a=$(pgbench_db duettena)
    b=$(pgbench_db duettenb)
    pga sweep --duet --setup "A=$a" --setup "B=$b" -c 2 -w select-only -T 3 -o s -q
    assert_rc 0
    assert_duets s
    assert_tx_100ms s/A-c2-t1.json s/B-c2-t1.json
    pyjson s/A-c2-t1.json 'len(d["intervals"]) == 3'
    pga run -w select-only -T 1 -o solo.json "$a"
    assert_rc 0
    ! grep -q tx_100ms solo.json || fail "a solo run's intervals have tx_100ms"
}

test_duet_same_database_warns() {
    db=$(pgbench_db duetsame)
    pga sweep --duet --setup "A=$db" --setup "B=$db" -c 1 -w select-only -T 1 -o s -q
    assert_rc 0
    [ "$(grep -c 'warning: sweep --duet: setups A and B are the same server and database' "$T/err")" -eq 1 ] ||
        { cat "$T/err"; fail "no single warning"; }
    assert_duets s
}

# A half that cannot start (its database does not exist) fails the other's barrier: both cells
# fail, neither writes a result, and the same command reruns the pair.
test_duet_half_not_started() {
    a=$(pgbench_db duetok)
    pga sweep --duet --setup "A=$a" --setup "B=${CONN% dbname=*} dbname=duet_no_such_db" -c 1 \
        -w select-only -T 1 -o s -q
    assert_rc 1
    assert_err 'sweep: A, 1 client\(s\), trial 1 failed: the other half of the duet did not start'
    assert_err 'sweep: B, 1 client\(s\), trial 1 failed: .*duet_no_such_db'
    pyjson s/sweep.json '[c["status"] for c in d["cells"]] == ["failed", "failed"]'
    [ ! -e s/A-c1-t1.json ] && [ ! -e s/B-c1-t1.json ] || fail "a half without its partner left a result"
}

# The sweep interrupted (SIGINT to its process alone, not to the halves): both halves stop, each
# writes its result cut short; the same command runs the pair again.
test_duet_interrupted_stops_both() {
    a=$(pgbench_db duetinta)
    b=$(pgbench_db duetintb)
    set -- sweep --duet --setup "A=$a" --setup "B=$b" -c 1 -w select-only -T 60 -o s -q
    PGA_OUT=out1 PGA_ERR=err1 pga_bg "$@"
    pid=$PID
    # Both halves measuring: each journal has its header and an interval.
    for _ in $(seq 1 300); do
        [ "$(wc -l <s/A-c1-t1.json.journal 2>/dev/null || echo 0)" -ge 2 ] &&
            [ "$(wc -l <s/B-c1-t1.json.journal 2>/dev/null || echo 0)" -ge 2 ] && break
        sleep 0.1
    done
    kill -INT $pid
    pga_wait
    [ "$RC" -eq 1 ] || { cat err1; fail "interrupted duet sweep exited $RC"; }
    grep -q 'resumes it' err1 || { cat err1; fail "no resume hint"; }
    pyjson s/sweep.json '[c["status"] for c in d["cells"]] == ["incomplete", "incomplete"]'
    pyjson s/A-c1-t1.json 'd["complete"] is False and d["end_reason"] == "interrupted"'
    pyjson s/B-c1-t1.json 'd["complete"] is False and d["end_reason"] == "interrupted"'
    pyjson s/A-c1-t1.json 'd["duet"]["role"] == "a"'
    assert_tx_100ms s/A-c1-t1.json s/B-c1-t1.json
    set -- sweep --duet --setup "A=$a" --setup "B=$b" -c 1 -w select-only -T 1 -o s -q --force
    pga "$@"
    assert_rc 0
    assert_duets s
}

# One half ends early on its own (SIGINT to its process, as a lost server would end it): the
# sweep stops the other half at once; both cells fail and the same command reruns them.
test_duet_half_ended_stops_the_other() {
    a=$(pgbench_db duetenda)
    b=$(pgbench_db duetendb)
    PGA_OUT=out1 PGA_ERR=err1 pga_bg sweep --duet --setup "A=$a" --setup "B=$b" -c 1 \
        -w select-only -T 60 -o s -q
    pid=$PID
    for _ in $(seq 1 300); do
        [ "$(wc -l <s/A-c1-t1.json.journal 2>/dev/null || echo 0)" -ge 2 ] &&
            [ "$(wc -l <s/B-c1-t1.json.journal 2>/dev/null || echo 0)" -ge 2 ] && break
        sleep 0.1
    done
    halves=$(pgrep -P $pid | wc -l)
    [ "$halves" -eq 2 ] || fail "expected two half processes, found $halves"
    kill -INT "$(pgrep -P $pid | head -n 1)"
    pga_wait
    [ "$RC" -eq 1 ] || { cat err1; fail "duet sweep with a half cut short exited $RC"; }
    [ "$(grep -c 'trial 1 failed: the run was cut short' err1)" -eq 2 ] || { cat err1; fail "both halves should fail"; }
    pyjson s/sweep.json '[c["status"] for c in d["cells"]] == ["failed", "failed"]'
    pyjson s/A-c1-t1.json 'd["complete"] is False and len(d["intervals"]) < 60'
    pyjson s/B-c1-t1.json 'd["complete"] is False and len(d["intervals"]) < 60'
}

# A duet's verdicts (issue 37 item 5): B's transactions sleep 1 ms longer than A's, 6 ms
# against 5 (pg_sleep of a setting of each setup's connection; shorter sleeps drown in the
# server's timer granularity here), so B is worse on tps in every cell, by the paired method;
# an A/A duet of the same calls nothing. One 5 s trial a cell: the duet's short length rule.
duet_sleep_sweep() { # dir sleepA sleepB
    local db
    db=$(newdb duetsleep)
    printf 'SELECT pg_sleep(current_setting(%s)::float8);\n' "'pgarena_test.sleep'" >sleep.sql
    pga sweep --duet --setup "A=$db options=-cpgarena_test.sleep=$2" \
        --setup "B=$db options=-cpgarena_test.sleep=$3" -f sleep.sql -c 1,2 -T 5 -o "$1"
    assert_rc 0
}

test_duet_ab_worse_in_every_cell() {
    duet_sleep_sweep ab 0.005 0.006
    python3 - ab/sweep.json <<'PY' || fail "B is not worse in every cell"
import json, sys
d = json.load(open(sys.argv[1]))
tps = [c for c in d["comparisons"] if c["metric"] == "tps"]
assert sorted(c["cell"]["clients"] for c in tps) == [1, 2], tps
assert all(c["method"] == "duet" for c in d["comparisons"]), d["comparisons"]
for c in tps:
    assert c["verdict"] == "worse" and c["ci_high"] < -10, c
PY
    # compare of one cell's halves pairs them by itself and says so; their tenths make the
    # throughput pairs half-seconds: a 5 s duet in 10 batches.
    pga compare ab/A-c1-t1.json ab/B-c1-t1.json
    assert_rc 0
    assert_out 'paired by second: duet; [0-9.]+ s paired \(tps by half-second\)'
    pga compare --json ab/A-c1-t1.json ab/B-c1-t1.json
    assert_rc 0
    pyjson "$T/out" 'd["paired"]["tps_paired_by"] == "half-second" and d["paired"]["batches"] == 10'
}

test_duet_aa_calls_nothing() {
    duet_sleep_sweep aa 0.005 0.005
    python3 - aa/sweep.json <<'PY' || fail "an A/A duet called something"
import json, sys
d = json.load(open(sys.argv[1]))
tps = [c for c in d["comparisons"] if c["metric"] == "tps"]
assert len(tps) == 2, tps
for c in tps:
    assert c["method"] == "duet", c
    assert c["verdict"] in ("no-meaningful-difference", "inconclusive"), c
    assert c["ci_low"] <= 0 <= c["ci_high"] or (-2 <= c["ci_low"] and c["ci_high"] <= 2), c
PY
}

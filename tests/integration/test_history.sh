# history: a real short run and copies of it with known figures stored into a harness database,
# change points found, the CI gate, --accept; the store's concurrency, old result versions and a
# newer schema.

# hist_run N DELAY OUT [ARGS...]: a 2-second run of SELECT pg_sleep(:delay), meta seq=N.
hist_run() {
    local n=$1 delay=$2 out=$3
    shift 3
    pga run "$CONN" -f "$T/sleep.sql" -D delay="$delay" -c 2 -T 2 -q --no-sampling \
        --meta seq="$n" -o "$out" "$@"
    assert_rc 0
}

hist_script() {
    echo 'SELECT pg_sleep(:delay);' >"$T/sleep.sql"
}

# hist_synth FROM FIRST LAST SLOW DIR PREFIX: copies of the real run FROM as runs FIRST..LAST
# (DIR/PREFIXi.json, meta seq=i, a run id of their own) with known figures: tps and latencies
# of FROM within +-2 % (a fixed jitter per run), halved tps and doubled latencies from run
# SLOW on. Real runs of one setting drift by 10 % and more within a minute on this VM (a
# stall of its CPU moves a run's tps as much as a change does): the series' figures are made,
# so that history's answer is known; storing, reading and gating them are what is tested.
# That the detection finds changes in noisy series is test_history_detect.c's.
hist_synth() {
    python3 - "$@" <<'PY' || fail "hist_synth"
import copy, datetime, json, sys, uuid
src = json.load(open(sys.argv[1]))
t0 = datetime.datetime.strptime(src["started_at"][:19], "%Y-%m-%dT%H:%M:%S")
first, last, slow, out, prefix = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
jitter = [0, 1, -1, 2, -2, 0.5, -1.5]  # per cent, by run
def scale(o, f, g):
    o["tps"] *= f
    for k, v in o["latency_us"].items():
        if isinstance(v, (int, float)):
            o["latency_us"][k] = v * g
for i in range(first, last + 1):
    d = copy.deepcopy(src)
    d["run_id"] = str(uuid.uuid4())
    d["meta"] = {"seq": str(i)}
    # In order by time too (the report orders a store's runs by their start).
    for k in ("started_at", "finished_at"):
        d[k] = (t0 + datetime.timedelta(minutes=i, seconds=2 if k == "finished_at" else 0)).strftime("%Y-%m-%dT%H:%M:%SZ")
    f = (1 + jitter[i % 7] / 100) * (0.5 if i >= slow else 1)
    g = (1 + jitter[(i + 3) % 7] / 100) * (2 if i >= slow else 1)
    for o in [d["summary"]] + d["intervals"]:
        scale(o, f, g)
    json.dump(d, open("%s/%s%d.json" % (out, prefix, i), "w"))
PY
}

test_history_change_gate_accept() {
    hist_script
    local store
    store=$(newdb pga_history)
    mkdir -p "$T/aa"
    # Run 0 is real and stored by run --store; runs 1..11 are its copies with known figures,
    # halved from run 7 on, stored by pgarena store.
    hist_run 0 0.01 "$T/r0.json" --store "$store"
    hist_synth "$T/r0.json" 1 11 7 "$T" r
    pga store "$T"/r{1,2,3,4,5,6,7,8,9,10,11}.json --into "$store"
    assert_rc 0
    cp "$T"/r{7,8,9,10,11}.json "$T/aa/"

    pyjson "$T/r0.json" "len(d['run_id']) == 36 and d['meta'] == {'seq': '0'}"
    [ "$(sql 'SELECT count(*) FROM pgarena_results.runs' "$store")" -eq 12 ] || fail "12 rows"
    # the change: at index 7, tps down, latency up, with a CI and compare's verdict
    pga history "$store" --min-effect 10 --order meta.seq --metric tps,latency_p50 --json
    assert_rc 0
    cp "$T/out" "$T/h.out"
    pyjson "$T/h.out" "len(d['series']) == 1 and d['series'][0]['runs'] == 12"
    pyjson "$T/h.out" "[c['index'] for c in d['series'][0]['metrics'][0]['changes']][-1:] == [7]"
    pyjson "$T/h.out" "(lambda c: c['change_pct'] < -20 and c['ci_high'] < 0 and c['p_value'] <= 0.01 and c['verdict'] == 'worse')(d['series'][0]['metrics'][0]['changes'][-1])"
    pyjson "$T/h.out" "d['series'][0]['metrics'][1]['metric'] == 'latency_p50' and d['series'][0]['metrics'][1]['changes'][-1]['index'] == 7"
    pyjson "$T/h.out" "(lambda m: m['regressed'] and m['regression']['index'] == 7)(d['series'][0]['metrics'][0])"
    pyjson "$T/h.out" "[p['order'] for p in d['series'][0]['metrics'][0]['points']] == [str(i) for i in range(12)]"
    local first
    first=$(python3 -c "import json; print(json.load(open('$T/h.out'))['series'][0]['metrics'][0]['points'][7]['run_id'])")
    [ "$first" = "$(python3 -c "import json; print(json.load(open('$T/r7.json'))['run_id'])")" ] ||
        fail "index 7 is not r7"
    # the gate fails, naming the metric, the change and its first run
    pga history "$store" --min-effect 10 --order meta.seq --metric tps,latency_p50 --fail-if-regressed
    assert_rc 3
    assert_err "^pgarena: history: tps regressed -[0-9.]+ % \[-[0-9.]+, -[0-9.]+\] since run $first \(index 7\)"
    assert_out 'change at 7 '
    # accepted: the segment is the baseline, the gate passes (recorded in the store)
    pga history "$store" --min-effect 10 --order meta.seq --metric tps,latency_p50 --accept "${first:0:8}"
    assert_rc 0
    [ "$(sql 'SELECT run_id FROM pgarena_results.accepted' "$store")" = "$first" ] || fail "accepted"
    pga history "$store" --min-effect 10 --order meta.seq --metric tps,latency_p50 --fail-if-regressed
    assert_rc 0
    assert_out 'accepted'
    # A/A: 12 unchanged runs in a directory (runs 7..11 and seven more at their figures), no
    # change beyond 10 %, the gate passes.
    hist_synth "$T/r0.json" 12 18 7 "$T/aa" a
    pga history "$T/aa" --min-effect 10 --order meta.seq --metric tps,latency_p50 --fail-if-regressed
    assert_rc 0
    [ "$(grep -c 'no change point' "$T/out")" -eq 2 ] || { cat "$T/out"; fail "A/A: a change"; }
    assert_out '\(12 runs\)'
    # two stores at once into a fresh store: one row per run, nothing lost
    local two
    two=$(newdb pga_history2)
    PGA_OUT="$T/s1" PGA_ERR="$T/s1e" pga_bg store "$T"/r*.json --into "$two"
    local p1=$PID
    PGA_OUT="$T/s2" PGA_ERR="$T/s2e" pga_bg store "$T"/aa/a*.json "$T"/r*.json --into "$two"
    local p2=$PID
    pga_wait $p1
    [ "$RC" -eq 0 ] || { cat "$T/s1e"; fail "store 1"; }
    pga_wait $p2
    [ "$RC" -eq 0 ] || { cat "$T/s2e"; fail "store 2"; }
    [ "$(sql 'SELECT count(*) FROM pgarena_results.runs' "$two")" -eq 19 ] || fail "19 rows"
    # sweep --store stores its cells; the report of the store charts the change, linked
    pga sweep "$CONN" -f "$T/sleep.sql" -D delay=0 -c 1 -T 1 -q --no-sampling -o "$T/sw" \
        --store "$two"
    assert_rc 0
    [ "$(sql 'SELECT count(*) FROM pgarena_results.runs' "$two")" -eq 20 ] || fail "20 rows"
    pga report --history "$store" -o "$T/h.html"
    assert_rc 0
    grep -q 'href="#h0-0-c0"' "$T/h.html" || fail "no change point in the report"
    grep -q 'id="h0-0-c0"><th>7<' "$T/h.html" || fail "the change is not at 7 in the report"
    sql "DROP DATABASE pga_history" >/dev/null
    sql "DROP DATABASE pga_history2" >/dev/null
}

# hist_machine DIR SLOW: DIR's runs made clean (no stalled interval, kernel 6.1.0-base), then
# from run SLOW on every interval stalled and the kernel 6.99.0-test; without SLOW, clean only.
hist_machine() {
    python3 - "$@" <<'PY' || fail "hist_machine"
import glob, json, sys
slow = int(sys.argv[2]) if len(sys.argv) > 2 else None
for f in glob.glob(sys.argv[1] + "/*.json"):
    d = json.load(open(f))
    h = d["summary"]["client_health"]
    h.update(intervals_stalled=0, stalled_ms=0, worst={"t_s": None, "ms": 0, "cause": None})
    d["client"]["kernel"] = "6.1.0-base"
    if slow is not None and int(d["meta"]["seq"]) >= slow:
        h.update(intervals_stalled=h["intervals"], stalled_ms=500 * h["intervals"],
                 worst={"t_s": 1.0, "ms": 500, "cause": "steal"})
        d["client"]["kernel"] = "6.99.0-test"
    json.dump(d, open(f, "w"))
PY
}

# A change point whose segments differ in client health and kernel says the machine changed
# too, with the figures; the gate still fails and its message carries the line; a change on
# an unchanged machine says nothing of it (issue 37, item 2).
test_history_machine_changed_too() {
    hist_script
    mkdir -p "$T/m" "$T/same"
    hist_run 0 0.01 "$T/r0.json"
    hist_synth "$T/r0.json" 0 11 7 "$T/m" r
    cp "$T"/m/*.json "$T/same/"
    hist_machine "$T/m" 7
    hist_machine "$T/same"
    local line='the machine changed too: client stalled in 0\.0 % of intervals -> 100\.0 %; kernel 6\.1\.0-base -> 6\.99\.0-test'
    pga history "$T/m" --min-effect 10 --order meta.seq --metric tps,latency_p50 --fail-if-regressed
    assert_rc 3
    assert_out "^      $line\$"
    [ "$(grep -c 'machine changed' "$T/out")" -eq 2 ] || { cat "$T/out"; fail "one line per metric's change"; }
    assert_err '^pgarena: history: tps regressed .*\(index 7\)'
    assert_err "^pgarena: history: $line\$"
    pga history "$T/m" --min-effect 10 --order meta.seq --metric tps --json
    assert_rc 0
    pyjson "$T/out" "d['series'][0]['metrics'][0]['changes'][-1]['index'] == 7 and d['series'][0]['metrics'][0]['changes'][-1]['machine'].startswith('the machine changed too: client stalled in 0.0 %')"
    pga history "$T/same" --min-effect 10 --order meta.seq --metric tps --fail-if-regressed
    assert_rc 3
    assert_out 'change at 7 '
    ! grep -q 'machine changed' "$T/out" "$T/err" || fail "an unchanged machine named as changed"
    pga history "$T/same" --min-effect 10 --order meta.seq --metric tps --json
    pyjson "$T/out" "all('machine' not in c for c in d['series'][0]['metrics'][0]['changes'])"
}

# A file of an earlier pgarena (version 1, no run_id or meta): stores, once; a store of a
# newer schema version is refused with one line.
test_history_store_versions() {
    local db
    db=$(newdb pga_history3)
    cat >"$T/old.json" <<'JSON'
{"format": "pgarena-result", "version": 1, "label": "old", "started_at": "2024-01-02T03:04:05Z",
 "server": {"version": "15.1", "settings": {"work_mem": "4MB"}},
 "workload": {"name": "tpcb-like", "scale": 1, "scripts": []}, "options": {"clients": 1, "protocol": "simple"},
 "summary": {"transactions": 10, "tps": 5.0, "latency_us": {"p50": 100, "p99": 200}},
 "intervals": [], "histogram": {"unit": "us", "count": 0, "min": 0, "max": 0, "bins": []}}
JSON
    pga store "$T/old.json" --into "$db"
    assert_rc 0
    assert_out '^stored: +1 run \(0 already there\)'
    pga store "$T/old.json" --into "$db"
    assert_rc 0
    assert_out '^stored: +0 runs \(1 already there\)'
    [ "$(sql "SELECT label || ' ' || tps FROM pgarena_results.runs" "$db")" = "old 5" ] || fail "row"
    pga history "$db" --json
    assert_rc 0
    pyjson "$T/out" "d['series'][0]['metrics'][0]['points'][0]['value'] == 5.0"
    pga history "$(newdb pga_history4)"
    assert_rc 2
    assert_one_error_line
    assert_err 'no results store there'
    sql "DROP DATABASE pga_history4" >/dev/null
    sql "UPDATE pgarena_results.version SET version = 99" "$db"
    pga store "$T/old.json" --into "$db"
    assert_rc 2
    assert_one_error_line
    assert_err 'schema version 99, newer than this pgarena knows \(2\)'
    pga history "$T" --where nosuch=1
    assert_rc 2
    assert_one_error_line
    pga history "$T" --where label=old --by workload.name,meta.commit
    assert_rc 0
    assert_out 'workload.name=tpcb-like, meta.commit=\(absent\) \(1 run\)'
    rm "$T/old.json"
    sql "DROP DATABASE pga_history3" >/dev/null
}

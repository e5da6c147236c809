# A duet's comparisons (issue 37, item 3; docs/compare-method.md §3.8) on real result files made
# duet halves by hand: a two-setup sweep whose cells' files get duet {id, partner, role} (one id
# per cell, each file naming the other's run_id) and whose sweep.json gets "duet": true, as
# sweep --duet writes them. The runs were sequential, not at once: what is checked is the pairing,
# its records and its words, not the noise it cancels (test_duet.c simulates that).
# B's statements sleep 20 ms, A's 2 ms: B's throughput is a fraction of A's in every second, and
# no stall of this VM can bring a second of A down to B's (A would have to lose 80 % of it).
test_duet_compare_paired() {
    db=$(newdb duetcmp)
    echo "SELECT pg_sleep(current_setting('pgarena.sleep')::float8);" >sleep.sql
    pga sweep --setup "A=$db options=-cpgarena.sleep=0.002" --setup "B=$db options=-cpgarena.sleep=0.02" \
        -f sleep.sql -c 1,2 -T 8 --no-sampling -o s -q
    assert_rc 0
    # Solo files first: compare of them is not paired.
    python3 - s <<'PY' || fail "cells"
import json, os, shutil, sys
d = json.load(open(os.path.join(sys.argv[1], "sweep.json")))
a = [c for c in d["cells"] if c["setup"] == "A" and c["clients"] == 1][0]
b = [c for c in d["cells"] if c["setup"] == "B" and c["clients"] == 1][0]
shutil.copy(os.path.join(sys.argv[1], a["file"]), "soloA.json")
shutil.copy(os.path.join(sys.argv[1], b["file"]), "soloB.json")
PY
    pga compare soloA.json soloB.json
    assert_rc 0
    grep -q "paired by second" "$T/out" && fail "solo files paired"
    python3 - s <<'PY' || fail "making duet halves"
import json, os, shutil, sys, uuid
dir = sys.argv[1]
p = os.path.join(dir, "sweep.json")
d = json.load(open(p))
d["duet"] = True
json.dump(d, open(p, "w"), indent=2)
for n in (1, 2):
    [a] = [c for c in d["cells"] if c["setup"] == "A" and c["clients"] == n]
    [b] = [c for c in d["cells"] if c["setup"] == "B" and c["clients"] == n]
    fa, fb = os.path.join(dir, a["file"]), os.path.join(dir, b["file"])
    ra, rb = json.load(open(fa)), json.load(open(fb))
    i = str(uuid.uuid4())
    ra["duet"] = {"id": i, "partner": rb["run_id"], "role": "a"}
    rb["duet"] = {"id": i, "partner": ra["run_id"], "role": "b"}
    json.dump(ra, open(fa, "w"))
    json.dump(rb, open(fb, "w"))
    if n == 1:
        shutil.copy(fa, "A.json")
        shutil.copy(fb, "B.json")
PY
    # compare of the two partners pairs them by itself, and says so.
    pga compare A.json B.json
    assert_rc 0
    grep -q "paired by second: duet" "$T/out" || { cat "$T/out"; fail "not paired"; }
    grep -E '^tps ' "$T/out" | grep -q ' worse$' || { cat "$T/out"; fail "tps not worse"; }
    pga compare --json A.json B.json
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "compare --json"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["paired"]
assert p["method"] == "duet" and p["seconds"] >= 5 and p["batches"] >= 5, p
[t] = [m for m in d["metrics"] if m["name"] == "tps"]
assert t["verdict"] == "worse" and t["ci_high_pct"] < -20, t
[l] = [m for m in d["metrics"] if m["name"] == "latency_p50"]
assert l["verdict"] == "worse", l
PY
    pga report A.json B.json -o c.html
    assert_rc 0
    grep -q "Paired by second: duet" c.html || fail "the report does not say the pairing"
    # A duet sweep's records: one per cell and metric, method duet, none pooled or per cell.
    pga report s -o s.html
    assert_rc 0
    grep -q 'v-worse">worse</span> <small>duet' s.html || fail "no duet method in the report"
    grep -qE '<small>(pooled|cell)' s.html && fail "pooled or cell records in a duet sweep"
    [ "$(grep -o '<small>duet' s.html | wc -l)" -ge 2 ] || fail "a cell without its duet record"
}

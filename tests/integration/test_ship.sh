# Shipping: CSV output (parsed with Python's csv module), compare's text within 100 columns,
# the JSON Schema of the result file, the man page against every command's --help, and
# make install / uninstall with the bash completion.

# A short real run into $T/$1 with label $2 (a database of its own, scale 1).
ship_run() {
    db=$(newdb "pga_ship_$$")
    pga init -s 1 -q "$db"
    assert_rc 0
    pga run -w select-only -c 2 -T "${3:-2}" -q --label "$2" -o "$1" "$db"
    assert_rc 0
}

test_csv_show_intervals_and_summary() {
    ship_run r.json 'pg "15", ext4' 3
    pga show --csv r.json
    assert_rc 0
    [ ! -s "$T/err" ] || fail "stderr not empty: $(cat "$T/err")"
    python3 - "$T/out" r.json <<'PY' || fail "show --csv does not match the result file"
import csv, json, sys
raw = open(sys.argv[1], newline="").read()
assert raw.endswith("\r\n") and "\n" not in raw.replace("\r\n", ""), "rows must end with CRLF"
rows = list(csv.reader(raw.splitlines(keepends=True)))
d = json.load(open(sys.argv[2]))
assert rows[0] == ["t_s", "duration_s", "transactions", "failed", "tps", "latency_p50_ms",
                   "latency_p99_ms", "latency_max_ms", "client_cpu_cores", "host_busy_pct",
                   "top_wait", "top_wait_share", "wal_bytes", "checkpoint", "blks_hit",
                   "blks_read", "hit_pct", "temp_bytes", "autovacuum", "late_ms", "late_max_ms",
                   "run_delay_ms", "psi_ms", "steal_ms", "stalled_ms", "stall_cause"], rows[0]
assert len(rows) == 1 + len(d["intervals"]) and len(d["intervals"]) >= 3, len(rows)
fields = d.get("server_io_fields") or []
assert "wal_bytes" in fields and "blks_hit" in fields, fields
for row, it in zip(rows[1:], d["intervals"]):
    assert len(row) == 26, row
    # the client's health: its figures in ms (empty where unknown), the stall's time and cause
    h = it["client_health"]
    for col, name in ((19, "late_ms"), (20, "late_max_ms"), (21, "run_delay_ms"), (22, "psi_ms"), (23, "steal_ms")):
        assert row[col] == (str(h[name]) if name in h else ""), (name, row, h)
    assert row[24:] == ([str(h["stalled_ms"]), h["cause"]] if h["cause"] else ["", ""]), (row, h)
    # the server's columns: a listed field missing from an interval is a zero, a field the
    # server did not report is empty; the hit % follows from hits and reads
    sio = it.get("server_io")
    if sio is None:
        assert row[12:19] == [""] * 7, row
    else:
        for col, name in ((12, "wal_bytes"), (14, "blks_hit"), (15, "blks_read"), (17, "temp_bytes")):
            want = str(sio.get(name, 0)) if name in fields else ""
            assert row[col] == want, (name, row, sio)
        hits, reads = sio.get("blks_hit", 0), sio.get("blks_read", 0)
        if hits + reads:
            assert abs(float(row[16]) - 100 * hits / (hits + reads)) < 0.006, (row, sio)
        assert row[13] in ("0", "1") and row[18].isdigit(), row
    # the sampling's columns: the client's CPU, and the interval's top wait event with its share
    cpu = it.get("client_cpu")
    assert (row[8] == "") == (cpu is None), (row, it)
    if isinstance(cpu, list):  # version 3: [user, system] in ten-thousandths of a core
        cpu = {"user": cpu[0] / 1e4, "system": cpu[1] / 1e4}
    if cpu is not None:
        assert abs(float(row[8]) - (cpu["user"] + cpu["system"])) < 0.002, (row, it)
    waits = it.get("waits") or {}
    if sum(waits.values()):
        top = max(waits.values())
        assert waits.get(row[10]) == top, (row, waits)
        assert abs(float(row[11]) - top / sum(waits.values())) < 1e-4, (row, waits)
    else:
        assert row[10] == "" and row[11] == "", row
    assert float(row[0]) == it["t_s"] and int(row[2]) == it["transactions"], (row, it)
    assert int(row[3]) == it["failed"] and abs(float(row[4]) - it["tps"]) < 0.001, (row, it)
    assert abs(float(row[6]) * 1000 - it["latency_us"]["p99"]) < 0.5, (row, it)
assert sum(int(r[2]) for r in rows[1:]) == d["summary"]["transactions"]
assert any(r[14] not in ("", "0") for r in rows[1:]), "a select-only run hit no buffer"
PY
    pga show --csv --summary r.json
    assert_rc 0
    python3 - "$T/out" r.json <<'PY' || fail "show --csv --summary does not match the result file"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
d = json.load(open(sys.argv[2]))
assert len(rows) == 1, rows
r = rows[0]
assert r["label"] == 'pg "15", ext4', r["label"]
assert r["workload"] == "select-only" and r["clients"] == "2" and r["complete"] == "true", r
assert int(r["transactions"]) == d["summary"]["transactions"], r
assert abs(float(r["tps"]) - d["summary"]["tps"]) < 0.001, r
assert abs(float(r["latency_p99_ms"]) * 1000 - d["summary"]["latency_us"]["p99"]) < 0.5, r
assert r["errors_deadlock"] == "0", r
# sampling and agents: the period and rounds of the sampler, the client's CPU; not an agent
assert int(r["sample_ms"]) == d["waits"]["sample_ms"] and int(r["samples"]) == d["waits"]["samples"], r
assert abs(float(r["client_cpu_user"]) - d["client_cpu"]["user"]) < 0.002, r
assert r["agent_index"] == "" and r["agent_count"] == "" and r["agents"] == "0", r
# the client's health over the run
h = d["summary"]["client_health"]
assert int(r["client_intervals"]) == h["intervals"] == len(d["intervals"]), r
assert int(r["client_intervals_stalled"]) == h["intervals_stalled"], r
assert int(r["client_stalled_ms"]) == h["stalled_ms"], r
assert r["client_run_delay_ms"] == ("" if h["run_delay_ms"] is None else str(h["run_delay_ms"])), r
assert r["client_worst_cause"] == (h["worst"]["cause"] or ""), r
PY
    # --summary alone, and --summary with --intervals, are refused.
    pga show --summary r.json
    assert_rc 2
    assert_one_error_line
}

test_csv_compare() {
    ship_run a.json 'base,"A"'
    python3 - <<'PY'
import json
d = json.load(open("a.json"))
d["label"] = "other\nline"
json.dump(d, open("b.json", "w"))
PY
    pga compare --csv a.json b.json
    assert_rc 0
    cp "$T/out" compare.csv
    pga compare --json a.json b.json
    assert_rc 0
    python3 - compare.csv "$T/out" <<'PY' || fail "compare --csv does not match compare --json"
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
j = json.load(open(sys.argv[2]))
assert list(rows[0].keys()) == ["name", "a_label", "b_label", "a", "b", "change_pct",
                                "ci_low_pct", "ci_high_pct", "verdict", "detail", "a_top_wait",
                                "a_top_wait_share", "b_top_wait", "b_top_wait_share",
                                "a_client_cpu_cores", "b_client_cpu_cores", "a_agents",
                                "b_agents"], rows[0].keys()
a = json.load(open("a.json"))
for r in rows:  # b.json is a.json relabelled: the same sampling on both sides
    assert r["a_agents"] == r["b_agents"] == "0", r
    assert abs(float(r["a_client_cpu_cores"]) - (a["client_cpu"]["user"] + a["client_cpu"]["system"])) < 0.002, r
    assert r["a_top_wait"] == r["b_top_wait"] and r["a_top_wait_share"] == r["b_top_wait_share"], r
assert [r["name"] for r in rows] == [m["name"] for m in j["metrics"]], rows
for r, m in zip(rows, j["metrics"]):
    assert r["a_label"] == 'base,"A"' and r["b_label"] == "other\nline", r
    assert r["verdict"] == m["verdict"] and r["detail"] == m["detail"], (r, m)
    for k in ["a", "b", "change_pct", "ci_low_pct", "ci_high_pct"]:
        if m[k] is None:
            assert r[k] == "", (k, r)
        else:
            assert math.isclose(float(r[k]), m[k], rel_tol=1e-8, abs_tol=1e-9), (k, r, m)
PY
    pga compare --csv --json a.json b.json
    assert_rc 2
    assert_one_error_line
}

test_compare_text_fits_100_columns() {
    ship_run a.json base
    python3 - <<'PY'
import json
d = json.load(open("a.json"))
long_text = "SELECT " + ", ".join("abalance + %d" % i for i in range(60)) + " FROM pgbench_accounts"
for name, label, text, setting in [("b.json", "L" * 70, long_text, "x" * 150),
                                   ("c.json", "a label of the third setup, long " * 3, "", "é" * 90)]:
    e = json.loads(json.dumps(d))
    e["label"] = label
    e["workload"]["scripts"][0]["text"] = text
    e["server"]["settings"]["search_path"] = setting
    e["command"] = "pgarena run " + "--label " * 30
    json.dump(e, open(name, "w"))
PY
    for files in "a.json b.json" "a.json b.json c.json"; do
        pga compare $files
        assert_rc 0
        python3 - "$T/out" <<'PY' || fail "compare $files: a line over 100 columns"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
wide = [l for l in lines if len(l) > 100]
assert not wide, "\n".join(wide)
assert any("workload.scripts.text" in l and "..." in l for l in lines), "the long value is not cut"
PY
    done
    pga show c.json
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "show: a settings line over 100 columns"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
settings = [l for l in lines if "search_path = " in l]
assert settings and all(len(l) <= 100 for l in settings), settings
PY
}

test_result_schema() {
    ship_run r.json schema
    check=$PGARENA_TEST_TOP/tests/check-results.py
    /usr/bin/python3 "$check" r.json || fail "a result pgarena wrote does not validate"
    python3 - <<'PY'
import json
d = json.load(open("r.json"))
def variant(name, change):
    e = json.loads(json.dumps(d))
    change(e)
    json.dump(e, open(name, "w"))
variant("nosummary.json", lambda e: e.pop("summary"))
variant("v4.json", lambda e: e.update(version=4))
variant("badtype.json", lambda e: e["summary"].update(transactions="many"))
variant("badreason.json", lambda e: e.update(end_reason="tired"))
variant("badbins.json", lambda e: e["intervals"][0]["histogram"].pop("compact", None) or e["intervals"][0]["histogram"].update(bins=[[1]]))
variant("v2nohist.json", lambda e: e.update(version=2) or [e["intervals"][0]["histogram"].pop(k, None) for k in ("bins", "compact")])
def v2(e):
    e["version"] = 2
    for it in e["intervals"]:
        h = it["histogram"]
        it["histogram"] = {"count": h["count"], "min": h["min"], "max": h["max"],
                           "sum": h["sum"], "sumsq": h["sumsq"], "compact": "AAECAw=="}
    e["summary"]["scripts"] = [{"name": "select-only", "transactions": 1}]
    e["summary"]["tpcc"] = {"warehouses": 1, "nopm": 10.5, "nopm_client": 10.5, "tpm": 30.0,
                            "new_order_rollbacks": 0, "mode": "sql", "keying_thinking": False}
    e["something_new"] = {"nested": [1, 2]}
variant("v2.json", v2)
PY
    /usr/bin/python3 "$check" v2.json || fail "version 2 with additions does not validate"
    for f in nosummary v4 badtype badreason badbins v2nohist; do
        ! /usr/bin/python3 "$check" $f.json >check.out || fail "$f.json validates"
        grep -q "does not match result.schema.json" check.out || fail "$f.json: $(cat check.out)"
    done
    # The fixtures above are not pgarena's work: lib_teardown validates only what it wrote.
    rm -f nosummary.json v4.json badtype.json badreason.json badbins.json v2nohist.json
}

# Options named in a --help text: in its usage lines, option lines and CONN line.
help_options() {
    pga "$@" --help
    [ "$RC" -eq 0 ] || fail "pgarena $* --help exited $RC"
    grep -E '^(Usage:|CONN:| +\[| +-)' "$T/out" |
        grep -oE -- '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ ,|]//' | sort -u
}

test_man_page_covers_every_option() {
    man=$PGARENA_TEST_TOP/docs/pgarena.1
    groff -man -ww -z "$man" >groff.out 2>&1 || fail "groff failed: $(cat groff.out)"
    [ ! -s groff.out ] || fail "groff warnings: $(cat groff.out)"
    # Every command: those the top-level --help names and those main.c dispatches to.
    pga --help
    cp "$T/out" top-help
    commands=$({ sed -nE 's/^ +pgarena +([a-z][a-z-]*) .*/\1/p' top-help
                 grep -oE '\{"[a-z][a-z-]*", *cli_' "$PGARENA_TEST_TOP/src/main.c" |
                     sed -E 's/^\{"([^"]*)".*/\1/'; } | sort -u)
    [ "$(echo "$commands" | wc -l)" -ge 6 ] || fail "commands not found in --help: $commands"
    for c in $commands; do
        help_options "$c" >"opts-$c"
        [ -s "opts-$c" ] || fail "no options found in pgarena $c --help"
    done
    help_options >opts-top
    python3 - "$man" $commands <<'PY' || fail "the man page misses options (above)"
import re, sys
src = open(sys.argv[1]).read()
text = re.sub(r"\\f[BIRP]|\\f\(..|\\&|\\c", "", src).replace("\\-", "-")
sections, name = {}, None
for line in text.splitlines():
    m = re.match(r'\.S[SH] +"?([^"]*)"?', line)
    if m:
        name = m.group(1).strip()
    sections.setdefault(name, []).append(line)
missing = []
def has(body, opt):
    return re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", body) is not None
for c in sys.argv[2:]:
    body = "\n".join(sections.get("pgarena " + c, []))
    if not body:
        missing.append(f"no section .SS \"pgarena {c}\"")
        continue
    for opt in open(f"opts-{c}").read().split():
        if not has(body, opt):
            missing.append(f"pgarena {c} {opt}")
for opt in open("opts-top").read().split():
    if not has(text, opt):
        missing.append(f"pgarena {opt}")
for sec in ["EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"]:
    if sec not in sections:
        missing.append(f"section {sec}")
if "pgbench (1)" not in text:
    missing.append("SEE ALSO pgbench(1)")
if missing:
    print("\n".join(missing))
sys.exit(1 if missing else 0)
PY
}

test_install_and_completion() {
    top=$PGARENA_TEST_TOP
    make -s -C "$top" install DESTDIR="$T/root" PREFIX=/usr >make.out 2>&1 || fail "make install: $(cat make.out)"
    [ -x root/usr/bin/pgarena ] || fail "no usr/bin/pgarena"
    root/usr/bin/pgarena --version | grep -q '^pgarena ' || fail "the installed binary does not run"
    [ -f root/usr/share/man/man1/pgarena.1 ] || fail "no man page"
    comp=root/usr/share/bash-completion/completions/pgarena
    [ -f "$comp" ] || fail "no bash completion"
    mkdir -p work && touch work/a.json work/b.json work/c.html
    # bash-completion's own loader finds the file through XDG_DATA_DIRS, as it finds an
    # installed one.
    PATH=$T/root/usr/bin:$PATH XDG_DATA_DIRS=$T/root/usr/share BASH_COMPLETION_USER_DIR=/nonexistent \
        bash --norc --noprofile -c '
        . /usr/share/bash-completion/bash_completion
        _completion_loader pgarena
        complete -p pgarena >/dev/null || { echo "bash-completion did not load it"; exit 1; }
        cd work
        c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
              COMPREPLY=(); _pgarena pgarena "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
              echo "${COMPREPLY[*]}"; }
        echo "commands: $(c pgarena "")"
        echo "run-opts: $(c pgarena run --wo)"
        echo "workloads: $(c pgarena run -w oltp-r)"
        echo "builtins: $(c pgarena run -b s)"
        echo "show: $(c pgarena show "")"
        echo "compare-opts: $(c pgarena compare --c)"
        echo "report-o: $(c pgarena report -o "")"
    ' >comp.out 2>&1 || fail "bash could not load the completion: $(cat comp.out)"
    pga --help
    expected=$(<"$T/out" sed -nE 's/^ +pgarena +([a-z][a-z-]*) .*/\1/p' | sort -u | tr '\n' ' ')
    grep -q "^commands: ${expected}--help --version$" comp.out || fail "expected commands $expected: $(cat comp.out)"
    for c in init run show compare report local; do
        case " $expected " in *" $c "*) ;; *) fail "completion misses the command $c" ;; esac
    done
    grep -q '^run-opts: --workload$' comp.out || fail "$(cat comp.out)"
    grep -q '^workloads: oltp-read-write oltp-read-only$' comp.out || fail "$(cat comp.out)"
    grep -q '^builtins: simple-update select-only$' comp.out || fail "$(cat comp.out)"
    grep -q '^show: a.json b.json$' comp.out || fail "$(cat comp.out)"
    grep -q '^compare-opts: --csv$' comp.out || fail "$(cat comp.out)"
    grep -q '^report-o: c.html$' comp.out || fail "$(cat comp.out)"
    make -s -C "$top" uninstall DESTDIR="$T/root" PREFIX=/usr >make.out 2>&1 || fail "make uninstall: $(cat make.out)"
    [ -z "$(find root -type f)" ] || fail "make uninstall left: $(find root -type f)"
}

# The licence: the PostgreSQL Licence, named alike in LICENSE, debian/copyright and the README.
test_licence() {
    top=$PGARENA_TEST_TOP
    grep -q 'PostgreSQL Licence' "$top/LICENSE" || fail "LICENSE does not name the PostgreSQL Licence"
    grep -q '^Copyright (c) 2026, the pgarena developers$' "$top/LICENSE" || fail "LICENSE: no copyright line"
    grep -q 'Permission to use, copy, modify, and distribute this software' "$top/LICENSE" || fail "LICENSE: no grant"
    grep -q '^License: PostgreSQL$' "$top/debian/copyright" || fail "debian/copyright does not say License: PostgreSQL"
    grep -q '^Copyright: 2026 the pgarena developers$' "$top/debian/copyright" || fail "debian/copyright: no holder"
    ! grep -qi 'not chosen\|unlicensed' "$top/debian/copyright" || fail "debian/copyright still says no licence"
    grep -q '^## Licence' "$top/README.md" && grep -q 'PostgreSQL Licence' "$top/README.md" || fail "README says no licence"
}

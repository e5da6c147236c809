# The HTML report: from real runs, self-contained, well-formed, rendered by a real browser.
#
# The render check needs Debian's chromium. It is large (some 300 MB with its libraries) and
# only this test uses it, so it is not in tests/ensure-deps.sh: as root the test installs it
# on first use; otherwise it fails saying how to install it, unless PGARENA_SKIP_BROWSER=1
# asks to skip the render check (said in the test log).

# Nothing in the file makes a browser fetch or run anything: no URL, no external resource,
# no script; url() only for fragments of the document itself.
assert_self_contained() {
    if grep -nEi 'https?:|src=|href=|@import|<script|<link|url\([^#]' "$1"; then
        fail "$1 refers to something outside itself"
    fi
}

# Every inline <svg> parses as XML (a browser forgives what an SVG editor would refuse), and
# there are at least $2 of them (default 5).
assert_svgs_well_formed() {
    python3 - "$1" "${2:-5}" <<'PY' || fail "an SVG of $1 is not well-formed XML"
import re, sys
import xml.etree.ElementTree as ET
html = open(sys.argv[1], encoding="utf-8").read()
svgs = re.findall(r"<svg\b.*?</svg>", html, re.S)
assert len(svgs) >= int(sys.argv[2]), len(svgs)
for s in svgs:
    ET.fromstring(s.replace("&#8230;", "...").replace("&#177;", "+-"))
PY
}

# chromium, installed on demand as root; returns 1 when the render check is to be skipped.
ensure_chromium() {
    command -v chromium >/dev/null && return 0
    if [ "$(id -u)" = 0 ]; then
        echo "installing chromium for the render check (once)"
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
            chromium >/dev/null 2>&1 ||
            { apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null 2>&1 &&
                DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install \
                    -y -qq chromium >/dev/null 2>&1; } ||
            fail "could not install chromium (apt-get install chromium)"
        return 0
    fi
    if [ "${PGARENA_SKIP_BROWSER:-}" = 1 ]; then
        echo "SKIPPED: render check (PGARENA_SKIP_BROWSER=1)"
        return 1
    fi
    fail "the render check needs chromium: apt-get install chromium (or PGARENA_SKIP_BROWSER=1)"
}

# render HTML PNG: a headless screenshot; any console message (an SVG attribute the browser
# rejects, a blocked load) fails the test.
render() {
    timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$T/chromium-profile" --enable-logging=stderr \
        --v=0 --screenshot="$2" --window-size=1200,3200 "file://$1" >"$T/chromium.log" 2>&1 ||
        { tail -n 20 "$T/chromium.log"; fail "chromium failed on $1"; }
    [ -s "$2" ] || { tail -n 20 "$T/chromium.log"; fail "chromium wrote no screenshot"; }
    if grep -E ':CONSOLE' "$T/chromium.log"; then
        fail "the browser reported errors on $1"
    fi
}

# The charts are drawn: the two setups' colours (Okabe-Ito blue and vermillion) cover enough
# pixels to be lines, not only legend swatches (under 100 pixels a legend), in three bands of
# the page at least (the rows of charts), and the page is not blank. A small PNG decoder, as PIL may not be installed; rows filtered "Up" (most of a
# screenshot) are undone on whole rows as integers, which keeps it to about a second.
# Optional: $2 the pixels each colour needs (default 1000), $3 the bands (default 3).
assert_charts_drawn() {
    python3 - "$1" "${2:-1000}" "${3:-3}" <<'PY' || fail "the screenshot $1 shows no charts"
import re, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
lo7, hi1 = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")

def unfilter(f, line, prev):
    if f == 0:
        return line
    if f == 2:  # bytewise sums without carries between bytes
        a, b = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
        return (((a & lo7) + (b & lo7)) ^ ((a ^ b) & hi1)).to_bytes(stride, "big")
    line = bytearray(line)
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        else:
            c = prev[x - bpp] if x >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return bytes(line)

targets = {"blue": (0, 114, 178), "vermillion": (213, 94, 0)}
counts, ink, prev, i = dict.fromkeys(targets, 0), 0, bytes(stride), 0
bands = {}  # coloured pixels per 100 rows
dark = re.compile(rb"[^\xeb-\xff]")  # a channel below 235: not the white background
for y in range(h):
    line = unfilter(raw[i], raw[i + 1:i + 1 + stride], prev)
    i += 1 + stride
    prev = line
    pixels = set(m.start() // bpp for m in dark.finditer(line))
    ink += len(pixels)
    for p in pixels:
        px = line[p * bpp:p * bpp + 3]
        for name, t in targets.items():
            if all(abs(px[k] - t[k]) < 40 for k in range(3)):
                counts[name] += 1
                bands[y // 100] = bands.get(y // 100, 0) + 1
print("pixels:", counts, "non-background:", ink, "of", w * h, "bands:", sorted(bands.items()))
need, n_bands = int(sys.argv[2]), int(sys.argv[3])
assert counts["blue"] > need and counts["vermillion"] > need, counts
assert sum(n >= 150 for n in bands.values()) >= n_bands, bands
assert ink > 0.02 * w * h, ink
PY
}

test_report_from_two_runs() {
    db=$(newdb report)
    pga init -s 1 -q "$db"
    assert_rc 0
    pga run -w select-only -c 2 -T 3 --label A -o a.json -q "$db"
    assert_rc 0
    # run --report writes the report of that run at the end.
    pga run -w select-only -c 2 -T 3 --label B -o b.json -q --report b.html "$db"
    assert_rc 0
    assert_out '^report: +b.html$'
    grep -q '<svg class="chart"' b.html || fail "run --report wrote no chart"
    assert_self_contained b.html

    pga report a.json b.json -o r.html
    assert_rc 0
    assert_out '^report: r.html$'
    [ ! -s "$T/err" ] || { cat "$T/err"; fail "stderr not empty"; }
    [ "$(grep -c '<svg class="chart"' r.html)" -ge 5 ] || fail "fewer than 5 charts"
    grep -q '<title>pgarena report: A vs B</title>' r.html || fail "title"
    grep -q 'id="comparison"' r.html || fail "no comparison section"
    grep -q '<table class="num cmp">' r.html || fail "no comparison table"
    for metric in throughput 'latency p50' 'latency p99' 'failure rate'; do
        grep -q "<tr class=\"metric\"><th>$metric</th>" r.html || fail "no row for $metric"
    done
    grep -qE 'class="verdict v-[a-z]+">(better|worse|no meaningful difference|inconclusive)<' \
        r.html || fail "no verdict"
    grep -q 'id="environment"' r.html || fail "no environment section"
    assert_self_contained r.html
    assert_svgs_well_formed r.html

    if ensure_chromium; then
        render "$T/r.html" "$T/r.png"
        assert_charts_drawn "$T/r.png"
    fi
}

# pgarena report DIR of a sweep: throughput against clients with a CI band per setup, p99
# against throughput, the cell table; drawn in the browser.
test_report_of_a_sweep() {
    db=$(newdb reportsweep)
    pga init -s 1 -q "$db"
    assert_rc 0
    pga sweep --setup "A=$db" --setup "B=$db" -c 1,2 --trials 2 -w select-only -T 1 -o s -q
    assert_rc 0
    pga report s -o s.html
    assert_rc 0
    assert_out '^report: s.html$'
    grep -q '<title>Sweep: A vs B</title>' s.html || fail "title"
    grep -q 'id="curves"' s.html || fail "no curves"
    [ "$(grep -c '<svg class="chart"' s.html)" -eq 2 ] || fail "expected 2 charts"
    # One band per setup (two trials give an interval at every point), and a line per setup.
    [ "$(grep -c '<path class="area"' s.html)" -eq 2 ] || fail "expected 2 CI bands"
    [ "$(grep -c '<path class="series"' s.html)" -eq 4 ] || fail "expected 4 lines"
    grep -q 'id="cells"' s.html || fail "no cell table"
    [ "$(grep -cE '<tr><th>[12] clients?</th>' s.html)" -eq 2 ] || fail "expected 2 cell rows"
    grep -qE 'class="verdict v-[a-z]+">(better|worse|no-meaningful-difference|inconclusive)<' \
        s.html || fail "no verdict"
    assert_self_contained s.html
    assert_svgs_well_formed s.html 2
    if ensure_chromium; then
        render "$T/s.html" "$T/s.png"
        # Two charts side by side, two setups' lines close together (the same server).
        assert_charts_drawn "$T/s.png" 300 2
    fi
}

test_report_bad_input() {
    pga report
    assert_rc 2
    assert_one_error_line
    assert_err 'expected one result file'
    echo '{"format": "pgarena-result", "version": 1}' >partial.json
    pga report partial.json
    assert_rc 2
    assert_one_error_line
    assert_err 'REPORT.html is required'
    pga report missing.json -o r.html
    assert_rc 2
    assert_one_error_line
    assert_err 'missing.json'
    echo '{"format": ' >broken.json
    pga report broken.json -o r.html
    assert_rc 2
    assert_one_error_line
    assert_err 'broken.json:'
    echo '{"format": "something-else"}' >other.json
    pga report other.json -o r.html
    assert_rc 2
    assert_one_error_line
    assert_err 'not a pgarena result file'
    pga report partial.json -o r.html
    assert_rc 2
    assert_one_error_line
    pga report --no-such-option
    assert_rc 2
    assert_one_error_line
    [ ! -e r.html ] || fail "a report was written from bad input"
}

test_report_unwritable_output() {
    # The smallest valid result file: the report still renders, with empty charts.
    cat >min.json <<'EOF'
{"format": "pgarena-result", "version": 1, "label": "min", "complete": true,
 "summary": {"transactions": 0, "tps": 0, "latency_us": {}},
 "intervals": [],
 "histogram": {"unit": "us", "count": 0, "min": 0, "max": 0, "sum": 0, "sumsq": 0, "bins": []}}
EOF
    pga report min.json -o min.html
    assert_rc 0
    assert_self_contained min.html
    pga report min.json -o no/such/dir/r.html
    assert_rc 2
    assert_one_error_line
    assert_err 'cannot write the report no/such/dir/r.html'
    # run refuses a report path it could not write before anything runs.
    pga run -T 1 -o a.json --report no/such/dir/r.html "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err 'cannot write the report'
    [ ! -e a.json ] || fail "run went ahead"
}

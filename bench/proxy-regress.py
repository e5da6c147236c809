"""bench/proxy-regress's figures, from its work directory (python3 bench/proxy-regress.py DIR);
`python3 bench/proxy-regress.py --pgss` is the filter its pg_stat_statements reads go through.

A is the capture's server, B the replay's. Reads DIR/{A,B}.pgss (pg_stat_statements, top
level: database, text, calls, rows, as COPY TO STDOUT writes them), DIR/{A,B}.counts (count(*)
per table of database regression), DIR/schema.diff (pg_dump -s, A against B), DIR/replay.json and
DIR/events.jsonl (`replay show --events` of the capture).

Calls differing: the sum over (database, text) of |calls on A - calls on B|, over the sum of A's
calls. First raw, then with each of these, in turn, cumulatively:
  lo_* FunctionCalls    left out: libpq's large-object calls (psql's \\lo_import, ...) are
                        FunctionCall messages, which pg_stat_statements does not see on A; the
                        proxy records each as the statement that does the same
                        (`SELECT pg_catalog.lowrite($1, $2)`), which B counts
  pgarena's own         left out: texts of database postgres that only B has (pgarena's own
                        connections go there: environment, sampler, lock-wait checks)
  password literal      masked: the string after PASSWORD (or a user mapping's password
                        option), as the capture cuts it out and the replay puts its own in
                        (src/capture/sqltext.c). No password reaches a file: the --pgss filter
                        writes each such string as a tag, an HMAC of it under a key of the run's
                        (PROXY_REGRESS_KEY, random, never written), so that the raw figure still
                        tells equal passwords from different ones
  pg_temp_N             masked: a temporary schema's number is the server's choice (the
                        foreign-key checks name the session's pg_temp_N)
  large-object OID      masked: the number after LARGE OBJECT (COMMENT ON, GRANT ON, ALTER);
                        the replay sends its own server's OID for the capture's
  same query            texts merged when equal without comments, spacing and the case of
                        words outside quotes: pg_stat_statements keeps one text per query, the
                        text of the call that made its entry, so which of several texts of one
                        query it shows depends on which session came first
"""
import collections
import hashlib
import hmac
import json
import os
import re
import sys

STRING = r"(?:[eE]'(?:[^'\\]|''|\\.)*'|'(?:[^']|'')*'|\$([A-Za-z_]\w*)?\$.*?\$\1\$)"
password = re.compile(r"(\b[pP][aA][sS][sS][wW][oO][rR][dD]\b|\"password\")(\s*)" + STRING +
                      r"(?:\s*'(?:[^']|'')*')*", re.S)
password_tag = re.compile(r"'<password [0-9a-f]+>'")


def pgss_filter():
    """stdin (COPY TO STDOUT's lines: database, text, calls, rows) to stdout, each password string
    replaced by its tag."""
    key = os.environ["PROXY_REGRESS_KEY"].encode()

    def tag(m):
        mac = hmac.new(key, m.group(0)[len(m.group(1)) + len(m.group(2)):].encode(), hashlib.sha256)
        return "%s%s'<password %s>'" % (m.group(1), m.group(2), mac.hexdigest()[:16])
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    sys.stdout.reconfigure(encoding="utf-8", errors="surrogateescape")
    escape = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        f[1] = "".join(escape.get(c, c) for c in password.sub(tag, unescape(f[1])))
        sys.stdout.write("\t".join(f) + "\n")


def unescape(s):
    """A field of COPY's text format."""
    out, i = [], 0
    esc = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "\\": "\\"}
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append(esc.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


if sys.argv[1] == "--pgss":
    pgss_filter()
    sys.exit(0)
work = sys.argv[1]


def path(name):
    return os.path.join(work, name)


def read_pgss(name):
    """calls and rows per (database, text)"""
    calls, rows = collections.Counter(), collections.Counter()
    with open(path(name), encoding="utf-8", errors="replace") as f:
        for line in f:
            db, text, n, r = line.rstrip("\n").split("\t")
            calls[(db, unescape(text))] += int(n)
            rows[(db, unescape(text))] += int(r)
    return calls, rows


def read_counts(name):
    counts = {}
    with open(path(name), encoding="utf-8", errors="replace") as f:
        for line in f:
            table, _, n = line.rstrip("\n").rpartition("\t")
            counts[table] = n
    return counts


def one_line(text, width=140):
    t = " ".join(text.split())
    return t if len(t) <= width else t[: width - 3] + "..."


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


# --- what the replay did
res = json.load(open(path("replay.json")))["replay"]
events = [json.loads(line) for line in open(path("events.jsonl"), encoding="utf-8")]
stmts = [e for e in events if e["event"] == "statement"]
sk = res.get("skipped", {})
dv = res.get("diverged", {})
print("statements: %d captured; %d sent; skipped %d copy, %d unsupported, %d read-only, %d secret; "
      "%d sessions failed" % (len(stmts), res.get("sent", 0), sk.get("copy", 0), sk.get("unsupported", 0),
                              sk.get("read_only", 0), sk.get("secret", 0), res.get("sessions_failed", 0)))
print("diverged: %d failed now, %d succeeded now" % (dv.get("failed_now", 0), dv.get("succeeded_now", 0)))
for t in dv.get("top", [])[:10]:
    print("  %5d  %s" % (t.get("count", 0), one_line(t.get("reason", ""), 160)))

copies = [e for e in stmts if "copy_bytes" in e]  # the COPY FROM STDIN the proxy kept with their data
print("COPY FROM STDIN: %d in the capture with their data (%d with rows, %d bytes; %d failed in the capture); "
      "the replay sent %d with their recorded rows, gave %d none (the capture holds none of their own), "
      "skipped %d" % (len(copies), sum(1 for e in copies if e["copy_bytes"] > 0), sum(e["copy_bytes"] for e in copies),
                      sum(1 for e in copies if e["outcome"] != "ok"), res.get("copy_recorded", 0),
                      res.get("copy_empty", 0), sk.get("copy", 0)))
(A, A_rows), (B, B_rows) = read_pgss("A.pgss"), read_pgss("B.pgss")
copy_in = re.compile(r"^\s*copy\b.*\bfrom\s+stdin\b", re.I | re.S)
copy_texts = sorted(k for k in set(A_rows) | set(B_rows) if copy_in.search(k[1]))
copy_unequal = [k for k in copy_texts if A_rows[k] != B_rows[k]]
print("COPY FROM STDIN rows (pg_stat_statements' rows per text): %d texts, %d equal; rows A %d, B %d"
      % (len(copy_texts), len(copy_texts) - len(copy_unequal), sum(A_rows[k] for k in copy_texts),
         sum(B_rows[k] for k in copy_texts)))
for k in copy_unequal[:10]:
    print("  A %d, B %d: %s" % (A_rows[k], B_rows[k], one_line(k[1])))
print("values mapped: %d statements sent with B's large-object OIDs or ids" % res.get("values_mapped", 0))

# --- rows per table
ca, cb = read_counts("A.counts"), read_counts("B.counts")
both = sorted(set(ca) & set(cb))
unequal = [t for t in both if ca[t] != cb[t]]
print("row counts (count(*) of every table of regression): %d tables, %d equal, %d differ; "
      "%d only on A, %d only on B" % (len(both), len(both) - len(unequal), len(unequal),
                                        len(set(ca) - set(cb)), len(set(cb) - set(ca))))
for t in unequal[:20]:
    print("  %s: A %s, B %s" % (t, ca[t], cb[t]))
for t in sorted(set(ca) ^ set(cb))[:10]:
    print("  %s: A %s, B %s" % (t, ca.get(t, "-"), cb.get(t, "-")))

# --- schema
with open(path("schema.diff"), encoding="utf-8", errors="replace") as f:
    diff_lines = f.read().splitlines()
print("schema: pg_dump -s of regression, diff lines: %d" % len(diff_lines))
for line in diff_lines[:10]:
    print("  " + one_line(line))

# --- calls
total = sum(A.values())


def differing(a, b):
    keys = set(a) | set(b)
    return sum(abs(a[k] - b[k]) for k in keys), sum(1 for k in keys if a[k] != b[k])


lo_call = re.compile(r"^SELECT pg_catalog\.(lo_create|lo_open|lo_close|loread|lowrite|lo_lseek|lo_creat|"
                     r"lo_tell|lo_unlink|lo_truncate|lo_lseek64|lo_tell64|lo_truncate64)\(\$1(, \$\d)*\)$")
pg_temp = re.compile(r"\bpg_(toast_)?temp_\d+\b")
lo_oid = re.compile(r"(?i)\b(large\s+object\s+)(\d+(?:\s*,\s*\d+)*)\b")
# OIDs a statement of the capture named itself and got back (lo_create(2001)): the same on both
# servers, sent as they are, so not masked.
named_oids = {e["returned"] for e in stmts
              if "returned" in e and not e.get("returned_id") and re.search(r"\b%s\b" % re.escape(e["returned"]), e["text"])}


def mask_password(text):
    return password_tag.sub("'<password>'", text)


def mask_pg_temp(text):
    return pg_temp.sub(lambda m: "pg_%stemp_N" % (m.group(1) or ""), text)


def mask_lo_oid(text):
    def one(m):
        return m.group(1) + re.sub(r"\d+", lambda n: n.group(0) if n.group(0) in named_oids else "<oid>", m.group(2))
    return lo_oid.sub(one, text)


TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\$([A-Za-z_]\w*)?\$.*?\$\1\$|/\*.*?\*/|--[^\n]*|\s+|[^'\"$/\-\s]+|.",
                   re.S)


def same_query(text):
    """The text without comments, spacing, and the case of what is not quoted."""
    out = []
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if t.startswith("/*") or t.startswith("--"):
            out.append(" ")
        elif t.isspace():
            out.append(" ")
        elif t[0] in "'\"$" and len(t) > 1:
            out.append(t)
        else:
            out.append(t.lower())
    return " ".join("".join(out).split())


def rekey(a, b, fn):
    """a and b with each text through fn, and the calls (a's, b's) of the texts it merged with
    another where the calls differed, and how many texts those are."""
    groups = collections.defaultdict(set)
    for db, text in set(a) | set(b):
        groups[(db, fn(text))].add(text)
    merged = {k for k, texts in groups.items()
              if len(texts) > 1 and any(a[(k[0], t)] != b[(k[0], t)] for t in texts)}
    for k, texts in groups.items():  # a text as it was sent, for the list below
        shown[k] = min(shown.get((k[0], t), t) for t in texts)
    out, touched, texts = [], [], 0
    for calls in (a, b):
        o, t = collections.Counter(), 0
        for (db, text), n in calls.items():
            k = (db, fn(text))
            o[k] += n
            t += n if k in merged else 0
        out.append(o)
        touched.append(t)
    return out[0], out[1], touched[0], touched[1], sum(len(groups[k]) for k in merged)


rows = []
shown = {}
d, n = differing(A, B)
rows.append(("raw: every text", d, n, ""))
lo_b = {k: v for k, v in B.items() if lo_call.match(k[1]) and k not in A}
lo_captured = sum(1 for e in stmts if e["protocol"] != "simple" and lo_call.match(e["text"]))
b = collections.Counter({k: v for k, v in B.items() if k not in lo_b})
a = A
d, n = differing(a, b)
rows.append(("lo_* FunctionCalls left out", d, n,
             "B %d calls, %d texts (the capture: %d such calls)" % (sum(lo_b.values()), len(lo_b), lo_captured)))
own = {k: v for k, v in b.items() if k[0] == "postgres" and k not in a}
b = collections.Counter({k: v for k, v in b.items() if k not in own})
d, n = differing(a, b)
rows.append(("pgarena's own left out", d, n, "B %d calls, %d texts" % (sum(own.values()), len(own))))
for label, fn in (("password literal masked", mask_password), ("pg_temp_N masked", mask_pg_temp),
                  ("large-object OID masked", mask_lo_oid), ("same query, another text merged", same_query)):
    a, b, ta, tb, x = rekey(a, b, fn)
    d, n = differing(a, b)
    rows.append((label, d, n, "%d texts merged: A %d calls, B %d" % (x, ta, tb)))

print("calls (pg_stat_statements, top level, by database and text), B against A's %d calls:" % total)
print("  %-34s %9s %8s %6s  %s" % ("", "differing", "share", "texts", "touched"))
for label, d, n, touched in rows:
    print("  %-34s %9d %7.3f%% %6d  %s" % (label, d, pct(d, total), n, touched))

rest = sorted(((abs(a[k] - b[k]), a[k], b[k], k) for k in set(a) | set(b) if a[k] != b[k]), reverse=True)
print("texts still differing (|d| A B database text):")
for dd, x, y, (db, text) in rest[:60]:
    print("  %5d %5d %5d %-10s %s" % (dd, x, y, db, one_line(shown.get((db, text), text))))
if len(rest) > 60:
    print("  (%d more)" % (len(rest) - 60))
print("pgarena's own (left out):")
for (db, text), c in sorted(own.items(), key=lambda kv: -kv[1]):
    print("  %6d  %s" % (c, one_line(text, 110)))

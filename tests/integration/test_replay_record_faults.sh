# replay record under faults: the proxy killed (SIGKILL) mid-run leaves a capture whole up to
# its last flush, which replay show and replay run take; bad clients, a server that dies and
# comes back, and many sessions at once end only their own session, and the proxy goes on.
# Counts against what the server holds, never durations.

# record_server, record_start and the pgbench and psql to use.
. "$PGARENA_TEST_TOP/tests/integration/test_replay_record.sh"

# The statements of $1 (a capture) whose text starts with $2, by outcome: "OK FAILED".
capture_count() {
    pga replay show --events "$1"
    assert_rc 0
    python3 - "$T/out" "$2" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
st = [e for e in ev if e["event"] == "statement" and e["text"].startswith(sys.argv[2])]
print(sum(e["outcome"] == "ok" for e in st), sum(e["outcome"] == "error" for e in st))
PY
}

test_replay_record_killed() {
    record_server
    local db="${rconn% dbname=*} dbname=rec"
    sql "CREATE TABLE killed (id bigserial, at timestamptz DEFAULT clock_timestamp())" "$db" >/dev/null
    sql "CREATE DATABASE killsnap TEMPLATE rec" "$rconn" >/dev/null
    echo "INSERT INTO killed DEFAULT VALUES;" >"$T/ins.sql"
    record_start
    "$PGBENCH15" -n -M prepared -c 4 -T 120 -f "$T/ins.sql" "$pconn" >"$T/pgbench.out" 2>&1 &
    local bench=$!
    # While it runs the capture is readable: a copy shows statements before the kill, and
    # more a flush later.
    local live=0 first=0
    for _ in $(seq 1 600); do
        cp "$T/rec.cap" "$T/live.cap"
        pga replay show "$T/live.cap"
        live=$(sed -n 's/^statements  \([0-9]*\):.*/\1/p' "$T/out")
        [ "$first" -gt 0 ] || { [ "${live:-0}" -ge 200 ] && first=$live; }
        [ "$first" -gt 0 ] && [ "${live:-0}" -gt "$first" ] && break
        sleep 0.2
    done
    if [ "$first" -eq 0 ] || [ "${live:-0}" -le "$first" ]; then
        cat "$T/rec.err" "$T/err" >&2
        fail "the live capture shows $first, then $live statements"
    fi
    sleep 2
    kill -9 "$PID"
    wait "$PID" 2>/dev/null || true
    wait $bench 2>/dev/null || true
    local counts server recent
    counts=$(capture_count "$T/rec.cap" "INSERT INTO killed")
    server=$(sql "SELECT count(*) FROM killed" "$db")
    # What reached the server in the proxy's last two seconds (its flush is once a second).
    recent=$(sql "SELECT count(*) FROM killed WHERE at > (SELECT max(at) FROM killed) - interval '2 s'" "$db")
    local ok=${counts% *}
    echo "capture $counts, server $server, last 2 s $recent, live copy $live" >&2
    [ "${counts#* }" = 0 ] || fail "failed inserts in the capture: $counts"
    [ "$ok" -ge "$live" ] || fail "the killed capture holds $ok inserts, a live copy held $live"
    [ "$ok" -le "$server" ] || fail "the capture holds $ok inserts, the server $server"
    [ $((server - ok)) -le "$recent" ] ||
        fail "the capture lost $((server - ok)) inserts, more than the last 2 s's $recent"
    pga replay show "$T/rec.cap"
    assert_rc 0
    assert_out "^cut  .*killed"
    # Replayed onto a copy of the database as it was: every statement it holds is sent.
    cp "$T/rec.cap" "$T/copy.cap"
    pga replay run "$T/copy.cap" "$rconn" --map-db rec=dst --reset-from killsnap --force -q -o "$T/r.json"
    assert_rc 0
    local replayed
    replayed=$(sql "SELECT count(*) FROM killed" "${rconn% dbname=*} dbname=dst")
    [ "$replayed" = "$ok" ] || fail "the replay inserted $replayed rows, the capture holds $ok"
}

# Clients that break the protocol, a server that dies mid-session and comes back, and 500
# sessions at once, through one proxy: each fault closes its own session alone (counted as
# failed), the capture keeps every statement that completed, and a new client is served.
test_replay_record_faults() {
    [ -x "$PSQL15" ] || PSQL15=$PSQL
    # Two descriptors a session in the proxy, one in the clients' script.
    [ "$(ulimit -n)" -ge 1600 ] || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    [ "$(ulimit -n)" -ge 1600 ] || fail "500 sessions need 1600 descriptors, ulimit -n is $(ulimit -n)"
    chmod 755 "$T"
    rconn=$(sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$T/srv" max_connections=560)
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$T/srv'"
    record_start
    pconn="${pconn% dbname=*} dbname=postgres"
    python3 - "${pconn#host=127.0.0.1 port=}" >"$T/clients.out" 2>&1 <<'PY' ||
import socket, struct, sys
port = int(sys.argv[1].split()[0])

def login():
    s = socket.create_connection(("127.0.0.1", port))
    params = b"user\0postgres\0database\0postgres\0\0"
    s.sendall(struct.pack("!II", 8 + len(params), 0x00030000) + params)
    return s

def until_ready(s):
    data = b""
    while True:
        while len(data) >= 5:
            n = struct.unpack("!I", data[1:5])[0]
            if len(data) < 1 + n:
                break
            t, data = data[:1], data[1 + n:]
            if t == b"Z":
                return
        got = s.recv(65536)
        assert got, "closed before ReadyForQuery"
        data += got

def query(s, text):
    body = text.encode() + b"\0"
    s.sendall(b"Q" + struct.pack("!I", 4 + len(body)) + body)
    until_ready(s)

def closed_by_proxy(s):
    s.settimeout(60)
    try:
        while s.recv(65536):
            pass
    except ConnectionResetError:
        pass
    s.close()

s = login(); until_ready(s); query(s, "SELECT 1"); s.sendall(b"X\0\0\0\4"); s.close()
# A length under 4, a Query of 2 GB: the proxy closes the session.
s = login(); until_ready(s); s.sendall(b"Q" + struct.pack("!I", 2)); closed_by_proxy(s)
s = login(); until_ready(s); s.sendall(b"Q" + struct.pack("!I", 0x7FFFFFFF) + b"SELECT "); closed_by_proxy(s)
# A client gone in the middle of a message.
s = login(); until_ready(s); s.sendall(b"Q" + struct.pack("!I", 100) + b"SELECT 1"); s.close()
# 500 sessions at once: all logged in before any sends its statement.
many = [login() for _ in range(500)]
for s in many:
    until_ready(s)
for i, s in enumerate(many):
    query(s, "SELECT %d AS many" % i)
for s in many:
    s.sendall(b"X\0\0\0\4")
    s.close()
print("clients done")
PY
        { cat "$T/clients.out" "$T/rec.err" >&2; fail "the clients' script"; }
    # The server dies under a running statement, and comes back.
    "$PSQL15" -X -q "$pconn" -c "SELECT pg_sleep(60)" >"$T/sleep.out" 2>&1 &
    local psql_pid=$!
    wait_running "SELECT pg_sleep(60)"
    sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" halt "$T/srv"
    wait $psql_pid && fail "pg_sleep went on through a halted server"
    sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" resume "$T/srv"
    kill -0 "$PID" || { cat "$T/rec.err" >&2; fail "the proxy is gone"; }
    "$PSQL15" -X -q -At "$pconn" -c "SELECT 42" >"$T/after.out" 2>&1 ||
        { cat "$T/after.out" "$T/rec.err" >&2; fail "no new client through the proxy after the faults"; }
    [ "$(cat "$T/after.out")" = 42 ] || fail "the new client's answer: $(cat "$T/after.out")"
    kill -INT "$PID"
    pga_wait
    assert_rc 0
    # Sessions: 1 good, 3 broken, 500, pg_sleep's, the last; statements: 1 + 500 + 1 (pg_sleep's
    # never completed); failed: the 3 broken ones and pg_sleep's.
    assert_out "^recorded .*rec.cap: 506 sessions, 502 statements \(502 simple"
    assert_out "failed sessions: 4 closed on a fault"
    pga replay show --events "$T/rec.cap"
    assert_rc 0
    python3 - "$T/out" <<'PY' || fail "the capture does not hold what completed"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
st = [e for e in ev if e["event"] == "statement"]
many = sorted(int(e["text"].split()[1]) for e in st if e["text"].endswith("AS many"))
assert many == list(range(500)), many[:5]
assert [e["text"] for e in st if not e["text"].endswith("AS many")] == ["SELECT 1", "SELECT 42"], st
starts = sum(e["event"] == "start" for e in ev)
ends = sum(e["event"] == "end" for e in ev)
assert starts == ends == 506, (starts, ends)
PY
}

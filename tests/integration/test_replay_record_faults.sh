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
    [ "$first" -gt 0 ] && [ "${live:-0}" -gt "$first" ] ||
        { cat "$T/rec.err" "$T/err" >&2; fail "the live capture shows $first, then $live statements"; }
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

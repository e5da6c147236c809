# run --agents: one run split over several agent processes, coordinated through PostgreSQL.
# Agents 1 and 2 run in network namespaces of their own (ip netns, a veth pair each, the
# server listening on the host ends), so each has its own address and network stack; agent 0
# runs on the host. Needs root and iproute2; without them these tests say so and skip.

# agents_net_up: two namespaces with a veth pair each, and a server of the test's own
# listening on 127.0.0.1 and both host ends. Sets NS1 NS2, C0 (the host's conninfo) and C1
# C2 (the namespaces'). The test's LIB_CLEANUP stops the server and removes the namespaces.
agents_net_up() {
    if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
        echo "SKIPPED: network namespaces need root and iproute2 (ip)"
        return 1
    fi
    local n=$(( ($$ + RANDOM) % 250 + 1 )) port=$(( 20000 + ($$ + RANDOM) % 20000 ))
    SRV=$(mktemp -u -d /tmp/pgarena-agents-XXXXXX) # the server's user cannot enter $T
    NS1=pga-$n-1
    NS2=pga-$n-2
    LIB_CLEANUP="sh $PGARENA_TEST_TOP/tests/pg-harness.sh stop $SRV; ip netns del $NS1; ip netns del $NS2; ip link del pga${n}h1; ip link del pga${n}h2"
    for k in 1 2; do
        local ns=pga-$n-$k
        ip netns add "$ns"
        ip link add "pga${n}h$k" type veth peer name "pga${n}n$k"
        ip link set "pga${n}n$k" netns "$ns"
        ip addr add "10.$((230 + k)).$n.1/24" dev "pga${n}h$k"
        ip link set "pga${n}h$k" up
        ip -n "$ns" addr add "10.$((230 + k)).$n.2/24" dev "pga${n}n$k"
        ip -n "$ns" link set "pga${n}n$k" up
        ip -n "$ns" link set lo up
    done
    C0=$(cd / && PGARENA_HARNESS_TCP_PORT=$port PGARENA_HARNESS_LISTEN="10.231.$n.1,10.232.$n.1" \
        sh "$PGARENA_TEST_TOP/tests/pg-harness.sh" start "$SRV")
    C1="host=10.231.$n.1 port=$port user=postgres dbname=postgres"
    C2="host=10.232.$n.1 port=$port user=postgres dbname=postgres"
    # Each namespace reaches the server on its own link, and nothing else.
    ip netns exec "$NS1" "$PSQL" -X -At "$C1" -c "SELECT inet_client_addr()" | grep -qx "10.231.$n.2" ||
        fail "namespace 1 does not reach the server from its own address"
    ! ip netns exec "$NS1" "$PSQL" -X -At "$C2 connect_timeout=2" -c "SELECT 1" >/dev/null 2>&1 ||
        fail "namespace 1 reaches namespace 2's link"
    pga init "$C0" -s 1 -q
    [ "$RC" -eq 0 ] || { cat "$T/err" >&2; fail "init"; }
    return 0
}

# agent_bg K NS CONN ARGS...: agent K in namespace NS (empty: the host) in the background;
# its pid in AGENT_PID[K], its output in $T/outK, $T/errK.
declare -a AGENT_PID
agent_bg() {
    local k=$1 ns=$2 conn=$3
    shift 3
    PGA_WRAP=${ns:+ip netns exec $ns} PGA_OUT=$T/out$k PGA_ERR=$T/err$k \
        pga_bg run "$conn" --agent-index "$k" -o "a$k.json" "$@"
    AGENT_PID[$k]=$PID
}

# agent_wait K STATUS: agent K exits with STATUS, with no sanitizer report.
agent_wait() {
    pga_wait "${AGENT_PID[$1]}"
    if [ "$RC" -ne "$2" ]; then
        echo "--- agent $1: exit $RC, expected $2"; cat "$T/out$1" "$T/err$1"
        fail "agent $1"
    fi
}

test_agents_three_hosts_merge_exactly() {
    agents_net_up || return 0
    local common=(-S -c 6 -R 300 -T 5 --agents 3 --run-id three -q)
    agent_bg 0 "" "$C0" "${common[@]}" --merged merged.json
    agent_bg 1 "$NS1" "$C1" "${common[@]}"
    agent_bg 2 "$NS2" "$C2" "${common[@]}"
    for k in 0 1 2; do agent_wait $k 0; done
    grep -q '^agents: *3, intervals aligned by time' "$T/out0" || { cat "$T/out0"; fail "agent 0 printed no merged summary"; }
    # The split: 2 clients and 100 tps each; each agent's clock offset with its uncertainty:
    # half the best of 8 round trips to the server, which a neighbour's load delays by ms, not
    # all eight by 200 ms, while one taken from anything else (the offset, a run's time: s) is
    # far beyond 100 ms.
    for k in 0 1 2; do
        pyjson "a$k.json" "d['agent']['index'] == $k and d['agent']['count'] == 3 and d['options']['clients'] == 2 and abs(d['options']['rate'] - 100) < 1e-9"
        pyjson "a$k.json" "d['complete'] and d['agent']['clock_uncertainty_us'] is not None and 0 <= d['agent']['clock_uncertainty_us'] < 100000"
    done
    # Merged: the sum of the agents', histogram count = transactions, figures from the merged
    # histogram, intervals summed by index, the agents' measured parts overlapping. No rate or
    # count in a window: a stall of this VM's CPU moves them. That -R keeps its schedule is
    # test_engine_time.c's (virtual time), that merge aligns intervals by time test_merge.c's.
    python3 - a0.json a1.json a2.json merged.json <<'PY' || fail "merged result"
import json, sys
a = [json.load(open(p)) for p in sys.argv[1:4]]
m = json.load(open(sys.argv[4]))
s = m["summary"]
assert m["complete"] and m["end_reason"] == "finished"
assert s["transactions"] == sum(x["summary"]["transactions"] for x in a), "sum"
assert m["histogram"]["count"] == s["transactions"], "histogram count"
assert s["failed"] == 0
assert m["options"]["clients"] == 6 and abs(m["options"]["rate"] - 300) < 1e-9
assert s["transactions"] > 0 and abs(s["tps"] * s["duration_s"] - s["transactions"]) < 1, s
assert [x["index"] for x in m["agents"]] == [0, 1, 2]
assert sum(x["transactions"] for x in m["agents"]) == s["transactions"]
assert len(m["clients"]) == 6
# percentiles recomputed, not averaged: p99 lies within the agents' range and is the
# merged histogram's (its rank among the merged bins)
bins, total = m["histogram"]["bins"], m["histogram"]["count"]
rank, seen, p99bin = 0.99 * total, 0, None
for v, c in bins:
    seen += c
    if seen >= rank:
        p99bin = v
        break
assert p99bin <= s["latency_us"]["p99"] < p99bin * 1.002 + 1, (p99bin, s["latency_us"]["p99"])
# intervals aligned: as many as an agent's, each the sum of the agents' of its index
n = len(a[0]["intervals"])
assert len(m["intervals"]) == n, (len(m["intervals"]), n)
for i, it in enumerate(m["intervals"]):
    assert it["histogram"]["count"] == it["transactions"]
    assert it["transactions"] == sum(x["intervals"][i]["transactions"] for x in a if i < len(x["intervals"]))
g = m["merge"]
assert g["intervals_aligned_by"] == "time" and g["agents"] == 3
assert g["clock_uncertainty_us"] is not None and g["start_spread_us"] is not None
# The barrier: every agent began before any other's measured part ended (an ordering; the
# spread is some ms without a stall, printed below).
assert 0 <= g["start_spread_us"] < min(x["summary"]["duration_s"] for x in a) * 1e6, g["start_spread_us"]
assert g["server_xact_commit"] >= s["transactions"], (g["server_xact_commit"], s["transactions"])
print("merged %d tx, %.1f tps, p99 %.0f us, start spread %.0f us, clocks +/- %.0f us" %
      (s["transactions"], s["tps"], s["latency_us"]["p99"], g["start_spread_us"], g["clock_uncertainty_us"]))
PY
    # pgarena merge of the agents' files gives the very same result as agent 0's.
    pga merge a2.json a0.json a1.json -o offline.json
    assert_rc 0
    python3 -c "import json,sys; a=json.load(open('merged.json')); b=json.load(open('offline.json')); sys.exit(a != b)" ||
        fail "the offline merge differs from the online one"
    # The run is over: its id is not used again.
    pga run "$C0" -S -c 6 -T 5 --agents 3 --agent-index 1 --run-id three
    assert_rc 2
    assert_one_error_line
    assert_err 'run three has finished already'
    # show and compare read a merged result.
    pga show merged.json
    assert_rc 0
    assert_out 'agent spread: +tps'
    pga compare a0.json merged.json
    assert_rc 0
    assert_out 'merged\.json: merged from 3 agents: tps per client'
    pga report merged.json -o report.html
    assert_rc 0
    grep -q '<section id="agents">' report.html || fail "no agents section in the report"
    [ "$(grep -c '<td>[012]</td><td style="text-align:left">' report.html)" -eq 3 ] || fail "not a row per agent"
}

test_agents_killed_agent_ends_the_run() {
    agents_net_up || return 0
    local common=(-S -c 3 -R 150 -T 60 --agents 3 --run-id killed -P 1)
    agent_bg 0 "" "$C0" "${common[@]}" --merged merged.json
    agent_bg 1 "$NS1" "$C1" "${common[@]}"
    agent_bg 2 "$NS2" "$C2" "${common[@]}"
    # Kill agent 2 once the measured part has run 2 s.
    for _ in $(seq 1 600); do
        [ "$(grep -c '^progress:' "$T/err2")" -ge 2 ] && break
        kill -0 "${AGENT_PID[2]}" 2>/dev/null || break
        sleep 0.1
    done
    [ "$(grep -c '^progress:' "$T/err2")" -ge 2 ] || { cat "$T/err0" "$T/err2"; fail "agent 2 did not start"; }
    kill -9 "${AGENT_PID[2]}"
    local killed=$(date +%s%N)
    agent_wait 1 1
    agent_wait 0 1
    local took_ms=$(( ($(date +%s%N) - killed) / 1000000 ))
    echo "the others exited $took_ms ms after the kill (agent 0 merged in that time)"
    # Their clients stopped after the kill and long before the run's 60 s: the loss ended it
    # (orderings; how soon, about the 5 s heartbeat bound, is printed, not judged: a stall of
    # this VM's CPU delays it).
    for k in 0 1; do
        python3 - "a$k.json" "$killed" <<'PY' || fail "agent $k did not stop between the kill and the run's end"
import json, sys
d = json.load(open(sys.argv[1]))
stop_us = d["agent"]["start_local_us"] + d["summary"]["duration_s"] * 1e6
after = stop_us / 1e6 - int(sys.argv[2]) / 1e9
print("%s: its clients stopped %.1f s after the kill" % (sys.argv[1], after))
sys.exit(0 if 0 < after and d["summary"]["duration_s"] < 55 else 1)
PY
    done
    for k in 0 1; do
        pyjson "a$k.json" "not d['complete'] and d['end_reason'] == 'agent-lost'"
        grep -q 'lost an agent: agent 2 silent' "$T/err$k" || { cat "$T/err$k"; fail "agent $k does not say agent 2 was lost"; }
    done
    [ -f a2.json.journal ] || fail "the killed agent's journal is gone"
    # Its journal says whose it is: recovered, it merges with the others' files.
    pga recover a2.json
    assert_rc 0
    pyjson a2.json "d['agent']['index'] == 2 and d['agent']['run_id'] == 'killed' and d['end_reason'] == 'killed'"
    pga merge a0.json a1.json a2.json -o all.json
    assert_rc 0
    pyjson all.json "not d['complete'] and [a['index'] for a in d['agents']] == [0, 1, 2] and d['agents'][2]['end_reason'] == 'killed'"
    pyjson merged.json "not d['complete'] and d['end_reason'] == 'agent-lost' and [a['index'] for a in d['agents']] == [0, 1]"
    pyjson merged.json "d['summary']['transactions'] == sum(a['transactions'] for a in d['agents']) > 0"
}

# Refusals that need the coordination database (the single-command ones are rows of
# tests/data/bad-input.table): a second agent of one index, an option that differs, and the
# barrier's timeout naming who is missing.
test_agents_refused_at_the_barrier() {
    printf 'SELECT 1;\n' >one.sql
    # Agent 0 waits 12 s at the barrier: the three refusals below, a second each on a loaded
    # machine, are seen while it waits.
    agent_bg 0 "" "$CONN" -f one.sql -c 2 -T 1 --agents 2 --run-id "bar$$" --agent-wait 12 -q
    # Once agent 0 is registered ...
    for _ in $(seq 1 100); do
        [ "$(sql "SELECT count(*) FROM pgarena.agents WHERE run_id = 'bar$$'" 2>/dev/null)" = 1 ] && break
        sleep 0.1
    done
    pga run "$CONN" -f one.sql -c 2 -T 1 --agents 2 --agent-index 0 --run-id "bar$$" -o b.json
    assert_rc 2
    assert_one_error_line
    assert_err 'agent 0 of run bar[0-9]+ is taken by another agent \(host [^,]+, pid [0-9]+\)'
    pga run "$CONN" -f one.sql -c 2 -T 2 --agents 2 --agent-index 1 --run-id "bar$$" -o b.json
    assert_rc 2
    assert_one_error_line
    assert_err 'option -T \(2 here, 1 in the run.s first agent\) differs'
    pga run "$CONN" -f one.sql -c 4 -T 1 --agents 2 --agent-index 1 --run-id "bar$$" -o b.json
    assert_rc 2
    assert_err 'option -c \(4 here, 2'
    # ... agent 1 never comes: agent 0 gives up, naming it.
    agent_wait 0 1
    grep -q 'not all 2 agents of run bar[0-9]* arrived within 12 s: missing agent 1 (not registered)' "$T/err0" ||
        { cat "$T/err0"; fail "the timeout does not name agent 1"; }
    [ ! -s "$T/out0" ] || { cat "$T/out0"; fail "stdout after a refused start"; }
}

# connect_holder SOCKDIR PASS: a unix socket SOCKDIR/.s.PGSQL.5432 that passes its first PASS
# connections on to the test server and holds every later one unanswered (a client connecting
# to it stays connecting until it gives up), appending a line to SOCKDIR/held for each. Stopped
# by the test's cleanup.
connect_holder() {
    mkdir -p "$1"
    python3 - "$1" "$2" "$CONN" <<'PY' &
import os, socket, sys, threading
d, passing = sys.argv[1], int(sys.argv[2])
conn = dict(kv.split("=", 1) for kv in sys.argv[3].split())
server = "%s/.s.PGSQL.%s" % (conn["host"], conn.get("port", "5432"))
srv = socket.socket(socket.AF_UNIX)
srv.bind(d + "/.s.PGSQL.5432.tmp")
srv.listen(64)
os.rename(d + "/.s.PGSQL.5432.tmp", d + "/.s.PGSQL.5432")
def pump(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
held = []
while True:
    c, _ = srv.accept()
    if passing > 0:
        passing -= 1
        s = socket.socket(socket.AF_UNIX)
        s.connect(server)
        threading.Thread(target=pump, args=(c, s), daemon=True).start()
        threading.Thread(target=pump, args=(s, c), daemon=True).start()
    else:
        held.append(c)
        with open(d + "/held", "a") as f:
            f.write("held\n")
PY
    LIB_CLEANUP="${LIB_CLEANUP:-}; kill $!"
    for _ in $(seq 1 100); do [ -S "$1/.s.PGSQL.5432" ] && return 0; sleep 0.1; done
    fail "the connection holder did not start"
}

# wait_held SOCKDIR: until the holder holds a connection (at most 20 s).
wait_held() {
    for _ in $(seq 1 200); do [ -s "$1/held" ] && return 0; sleep 0.1; done
    fail "no connection reached the holder"
}

# wait_ready RUN_ID K: until agent K of the run waits at the barrier (at most 20 s).
wait_ready() {
    for _ in $(seq 1 200); do
        [ "$(sql "SELECT count(*) FROM pgarena.agents WHERE run_id = '$1' AND idx = $2 AND ready" 2>/dev/null)" = 1 ] && return 0
        sleep 0.1
    done
    fail "agent $2 of run $1 did not reach the barrier"
}

# An agent still connecting its clients when another agent gives up names that agent's cause,
# as an agent waiting at the barrier does; one interrupted by a signal of its own says so.
# Agent 2's clients connect through a socket that never answers them (its first connection,
# the run's preparation, goes through): it is connecting when agent 1, a role allowed one
# connection, finds its second client refused.
test_agents_connecting_agent_names_the_failed_one() {
    printf 'SELECT 1;\n' >one.sql
    local role=pga_one_$$ slow="host=$T/slow port=5432 user=postgres dbname=postgres"
    sql "CREATE ROLE $role LOGIN CONNECTION LIMIT 1"
    LIB_CLEANUP="${LIB_CLEANUP:-}; \"$PSQL\" -X -q \"$CONN\" -c 'DROP ROLE $role'"
    connect_holder "$T/slow" 1
    local common=(-f one.sql -c 6 -T 2 --agents 3 --run-id "slow$$" --coord "$CONN" -q)
    # In this order, so that agent 2's clients wait on the holder the shortest time (they give
    # up after 10 s): agent 0 at the barrier, agent 2 connecting, then agent 1.
    agent_bg 0 "" "$CONN" "${common[@]}"
    wait_ready "slow$$" 0
    agent_bg 2 "" "$slow" "${common[@]}"
    wait_held "$T/slow"
    agent_bg 1 "" "$CONN user=$role" "${common[@]}"
    for k in 0 1 2; do agent_wait $k 1; done
    grep -q "too many connections for role \"$role\"" "$T/err1" || { cat "$T/err1"; fail "agent 1 does not name its failure"; }
    for k in 0 2; do
        grep -q "^pgarena: .*agent 1 could not take part: .*too many connections for role \"$role\"" "$T/err$k" ||
            { cat "$T/err$k"; fail "agent $k does not name agent 1's cause"; }
        [ "$(wc -l <"$T/err$k")" -eq 1 ] || { cat "$T/err$k"; fail "agent $k: more than one line"; }
    done
    ! grep -q 'interrupted' "$T/err2" || { cat "$T/err2"; fail "agent 2 says it was interrupted"; }

    # Agent 0 connecting through the holder is stopped by SIGTERM: it says it was interrupted,
    # and agent 1, at the barrier, names that as agent 0's cause.
    connect_holder "$T/slow2" 1
    common=(-f one.sql -c 4 -T 2 --agents 2 --run-id "term$$" --coord "$CONN" -q)
    agent_bg 1 "" "$CONN" "${common[@]}"
    wait_ready "term$$" 1
    agent_bg 0 "" "host=$T/slow2 port=5432 user=postgres dbname=postgres" "${common[@]}"
    wait_held "$T/slow2"
    kill -TERM "${AGENT_PID[0]}"
    agent_wait 0 1
    agent_wait 1 1
    grep -qx 'pgarena: interrupted while connecting' "$T/err0" || { cat "$T/err0"; fail "agent 0 does not say it was interrupted"; }
    grep -q 'agent 0 could not take part: interrupted while connecting' "$T/err1" || { cat "$T/err1"; fail "agent 1 does not name agent 0's cause"; }
}

# An agent refused by max_connections says so in its own words; the one waiting at the barrier
# names it as agent 1's cause, not as its own (it once read "too many clients" in agent 1's
# cause and explained it by its own clients and max_connections).
test_agents_max_connections_names_the_refused_agent() {
    local srv
    srv=$(mktemp -u -d /tmp/pgarena-mc-XXXXXX) # the server's user cannot enter $T
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$srv'"
    # Agent 0's 4 clients and agent 1's preparation fit, agent 1's 4 clients do not.
    local target
    target=$(cd / && sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$srv" max_connections=5 \
        conf=superuser_reserved_connections=0)
    printf 'SELECT 1;\n' >one.sql
    local common=(-f one.sql -c 8 -T 2 --agents 2 --run-id "mc$$" --coord "$CONN" -q)
    agent_bg 0 "" "$target" "${common[@]}"
    wait_ready "mc$$" 0
    agent_bg 1 "" "$target" "${common[@]}"
    agent_wait 1 1
    agent_wait 0 1
    grep -q 'max_connections = 5 (too many clients already)' "$T/err1" || { cat "$T/err1"; fail "agent 1 does not name max_connections"; }
    grep -q '^pgarena: run: run mc[0-9]* was lost before it started: agent 1 could not take part: .*too many clients already' "$T/err0" ||
        { cat "$T/err0"; fail "agent 0 does not name agent 1's cause"; }
    ! grep -q 'max_connections' "$T/err0" || { cat "$T/err0"; fail "agent 0 explains agent 1's failure by its own clients"; }
}

#!/bin/sh
# One pgarena run from several load hosts over plain ssh: one agent per host, started in
# parallel; the agents meet in the `pgarena` schema of the target (or --coord), start
# together, and agent 0 (the first host) writes the merged result, which is copied back.
#
#   examples/agents/ssh.sh "host=db.example.org dbname=bench user=bench" load1 load2 load3
#
# Needs pgarena on every host and the password in each host's ~/.pgpass (never on the
# command line: it would show in `ps`).
set -eu
conn=$1
shift
n=$#
run_id=ssh-$(date +%Y%m%d-%H%M%S)-$$
i=0
pids=""
for host in "$@"; do
    # -n: no stdin; each agent's output goes to a local log.
    ssh -n "$host" "pgarena run '$conn' -w tpcb-like -M prepared -c 64 -j 4 -T 300 \
        --warmup 30 --agents $n --agent-index $i --run-id $run_id \
        -o /tmp/$run_id-agent-$i.json --merged /tmp/$run_id-merged.json -q" \
        >"$run_id-agent-$i.log" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
done
failed=0
for pid in $pids; do wait "$pid" || failed=1; done
i=0
for host in "$@"; do
    scp -q "$host:/tmp/$run_id-agent-$i.json" . || failed=1
    i=$((i + 1))
done
scp -q "$1:/tmp/$run_id-merged.json" . || failed=1
[ -f "$run_id-merged.json" ] && pgarena show "$run_id-merged.json"
exit $failed

# Several load hosts on a real engine: a one-node Slurm cluster (Debian's slurm-wlm and
# munge, which tests/ensure-deps.sh installs) started here in $T, running
# examples/agents/slurm.sh: `srun` starts 3 agents, each taking its index from SLURM_PROCID.
# What is checked are counts (the merged result is the agents' sum) and causes named; no
# figure in time. The agents' barrier waits for the last one however late it comes; only an
# agent whose heartbeat thread got no CPU for the whole 5 s of COORD_SILENT_S would lose the
# run (how long a silence loses it is test_agents.sh's). The Slurm daemons and ports are the
# test's own.

# slurm_up: munged, slurmctld and slurmd of our own, stopped by the test's cleanup. SLURM_CONF
# points the client commands at them. 1 when Slurm is not installed (the test passes).
slurm_up() {
    local d=$T/slurm host port
    # slurmd starts each task as its user: it runs as root.
    [ "$(id -u)" -eq 0 ] || { echo "not root: no Slurm cluster of our own, nothing to test"; return 1; }
    for cmd in munged mungekey slurmctld slurmd sbatch srun sinfo; do
        command -v "$cmd" >/dev/null || { echo "no $cmd (tests/ensure-deps.sh installs slurm-wlm and munge): nothing to test"; return 1; }
    done
    mkdir -p "$d/munge" "$d/state" "$d/spool"
    chmod 700 "$d" "$d/munge"
    mungekey -c -k "$d/munge/key" >/dev/null 2>&1 || fail "mungekey"
    munged -f -F --key-file="$d/munge/key" --socket="$d/munge/sock" --pid-file="$d/munge/pid" \
        --log-file="$d/munge/log" --seed-file="$d/munge/seed" >"$d/munged.out" 2>&1 &
    LIB_CLEANUP="${LIB_CLEANUP:-}; kill $!"
    host=$(hostname -s)
    # Ports of this test's own, away from Slurm's defaults and from another test run's.
    port=$((20000 + ($$ % 5000) * 2))
    cat >"$d/slurm.conf" <<CONF
ClusterName=pgarena
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
# Three tasks of one CPU each on a node of two: a configured count of 4, which the node
# keeps although its hardware differs (config_overrides). --overcommit alone does not do:
# the example asks for tasks per node, which Slurm counts against CPUs.
SlurmdParameters=config_overrides
NodeName=$host CPUs=4 State=UNKNOWN
PartitionName=pgarena Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$d/slurm.conf
    for _ in $(seq 1 50); do [ -S "$d/munge/sock" ] && break; sleep 0.1; done
    slurmctld -D -f "$SLURM_CONF" >"$d/slurmctld.out" 2>&1 &
    LIB_CLEANUP="${LIB_CLEANUP:-}; kill $!"
    slurmd -D -f "$SLURM_CONF" >"$d/slurmd.out" 2>&1 &
    LIB_CLEANUP="${LIB_CLEANUP:-}; kill $!"
    for _ in $(seq 1 100); do
        sinfo -h -o %t 2>/dev/null | grep -qx idle && return 0
        sleep 0.2
    done
    cat "$d"/*.out "$d"/*.log >&2 2>/dev/null
    fail "the Slurm node did not come up"
}

# slurm_job NAME: examples/agents/slurm.sh as a batch job of 3 tasks on the one node, waited
# for; its output in $T/NAME.out, status in RC. The
# agents' stderr is in that output: any sanitizer report there fails the test.
slurm_job() {
    set +e
    sbatch --wait -N 1 -n 3 --ntasks-per-node=3 --cpus-per-task=1 \
        -o "$T/$1.out" "$PGARENA_TEST_TOP/examples/agents/slurm.sh" >"$T/sbatch.out" 2>&1
    RC=$?
    set -e
    pga_check_report "$T/$1.out" "$RC" "the Slurm job $1"
}

test_slurm_agents() {
    slurm_up || return 0
    db=$(pgbench_db pga_slurm)
    # The target through PG* variables, as the example expects (sbatch passes them on).
    PGHOST=$(echo "$db" | sed 's/.*host=\([^ ]*\).*/\1/')
    PGPORT=$(echo "$db" | sed 's/.*port=\([^ ]*\).*/\1/')
    export PGHOST PGPORT PGUSER=postgres PGDATABASE=pga_slurm RESULTS=$T/results
    export PGARENA_RUN="-S -c 6 -T 2"
    slurm_job merged
    [ "$RC" -eq 0 ] || { cat "$T/merged.out" "$T/sbatch.out"; fail "the Slurm job exited $RC"; }
    dir=$(ls -d "$RESULTS"/*)
    python3 - "$dir" <<'PY' || fail "the merged result is not the sum of the agents'"
import json, sys
d = sys.argv[1]
agents = [json.load(open(f"{d}/agent-{i}.json")) for i in range(3)]
merged = json.load(open(f"{d}/merged.json"))
assert sorted(a["agent"]["index"] for a in agents) == [0, 1, 2]
assert all(a["agent"]["count"] == 3 for a in agents)
assert len(merged["agents"]) == 3, merged["agents"]
assert merged["summary"]["transactions"] == sum(a["summary"]["transactions"] for a in agents)
assert merged["summary"]["failed"] == sum(a["summary"]["failed"] for a in agents)
assert merged["summary"]["transactions"] > 0 and merged["complete"]
PY
    grep -q '^transactions: ' "$T/merged.out" || { cat "$T/merged.out"; fail "the job did not show the merged result"; }

    # Agent 1's clients cannot connect (a role allowed one connection: its setup connection
    # works, its second client does not): the others name that cause, not a silent agent.
    sql "DROP ROLE IF EXISTS pga_slurm_one" "$db" >/dev/null 2>&1 || true
    sql "CREATE ROLE pga_slurm_one LOGIN CONNECTION LIMIT 1; GRANT SELECT ON ALL TABLES IN SCHEMA public TO pga_slurm_one" "$db" >/dev/null
    LIB_CLEANUP="${LIB_CLEANUP:-}; \"$PSQL\" -X -q \"$db\" -c 'DROP OWNED BY pga_slurm_one; DROP ROLE pga_slurm_one'"
    cat >"$T/agent1-other-role" <<SH
#!/bin/sh
[ "\$SLURM_PROCID" != 1 ] || export PGUSER=pga_slurm_one
exec "$PGARENA" "\$@"
SH
    chmod 755 "$T/agent1-other-role"
    # SLURM_LABELIO (srun's --label): each agent's lines begin with its task number.
    PGARENA=$T/agent1-other-role PGARENA_RUN="-S -c 6 -T 2 --coord 'host=$PGHOST port=$PGPORT user=postgres dbname=pga_slurm'" \
        SLURM_LABELIO=1 slurm_job refused
    [ "$RC" -ne 0 ] || { cat "$T/refused.out"; fail "a Slurm job with a failed agent exited 0"; }
    grep -q '^ *1: .*too many connections for role "pga_slurm_one"' "$T/refused.out" || { cat "$T/refused.out"; fail "agent 1 does not name its failure"; }
    # Both others name it, also one still connecting its clients when agent 1 gave up
    # (test_agents_connecting_agent_names_the_failed_one holds one there).
    for k in 0 2; do
        grep -q "^ *$k: .*agent 1 could not take part: .*too many connections for role" "$T/refused.out" ||
            { cat "$T/refused.out"; fail "agent $k does not name agent 1's cause"; }
    done
    ! grep -q 'silent' "$T/refused.out" || { cat "$T/refused.out"; fail "an agent was called silent"; }
}

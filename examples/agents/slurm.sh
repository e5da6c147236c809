#!/bin/sh
# One pgarena run from 4 load hosts: Slurm starts one agent per node of one allocation with
# srun; each agent's index is SLURM_PROCID, so the command is the same for all.
#
#   sbatch examples/agents/slurm.sh
#
# The agents meet in the `pgarena` schema of the target (or --coord), start together, and
# agent 0 writes the merged result. Results go to a shared directory (every node writes its
# own file; agent 0 also writes merged.json). An agent that cannot take part (its clients
# cannot connect, say) marks the run lost with its reason: the others stop at once and say
# why, and every agent exits 1, which fails the step.
#
# The environment may change what runs (tests/integration/test_slurm.sh does):
#   PGARENA       the pgarena binary (default: pgarena on the PATH)
#   PGARENA_RUN   run's options but the agents' (default: the tpcb-like run below)
#   RESULTS       where the results go (default: ~/pgarena-results), a directory per job
# and sbatch's own options override the #SBATCH lines (-N1 -n3 --overcommit for one node).
#SBATCH --job-name=pgarena
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=8
#SBATCH --time=00:15:00
set -eu
: "${PGHOST:=db.example.org}" "${PGDATABASE:=bench}" "${PGUSER:=bench}"
export PGHOST PGDATABASE PGUSER   # the password from ~/.pgpass on every node
pgarena=${PGARENA:-pgarena}
run=${PGARENA_RUN:--w tpcb-like -M prepared -c 128 -j 8 -T 300 --warmup 30}
out=${RESULTS:-$HOME/pgarena-results}/$SLURM_JOB_ID
mkdir -p "$out"
srun sh -c "exec '$pgarena' run $run --agents $SLURM_NTASKS --run-id slurm-$SLURM_JOB_ID \
    -o '$out'/agent-\$SLURM_PROCID.json --merged '$out'/merged.json -q"
"$pgarena" show "$out/merged.json"

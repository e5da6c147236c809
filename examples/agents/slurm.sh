#!/bin/sh
# One pgarena run from 4 load hosts: Slurm starts one agent per node of one allocation with
# srun; each agent's index is SLURM_PROCID, so the command is the same for all.
#
#   sbatch examples/agents/slurm.sh
#
# The agents meet in the `pgarena` schema of the target (or --coord), start together, and
# agent 0 writes the merged result. Results go to a shared directory (every node writes its
# own file; agent 0 also writes merged.json).
#SBATCH --job-name=pgarena
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=8
#SBATCH --time=00:15:00
set -eu
: "${PGHOST:=db.example.org}" "${PGDATABASE:=bench}" "${PGUSER:=bench}"
export PGHOST PGDATABASE PGUSER   # the password from ~/.pgpass on every node
out=${RESULTS:-$HOME/pgarena-results}/$SLURM_JOB_ID
mkdir -p "$out"
# --kill-on-bad-exit: an agent that fails takes the step down; the others would stop anyway
# within 10 s (the run is lost) and keep their own files.
srun --kill-on-bad-exit=1 sh -c "exec pgarena run -w tpcb-like -M prepared -c 128 -j 8 \
    -T 300 --warmup 30 --agents $SLURM_NTASKS --run-id slurm-$SLURM_JOB_ID \
    -o $out/agent-\$SLURM_PROCID.json --merged $out/merged.json -q"
pgarena show "$out/merged.json"

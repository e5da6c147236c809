# Shared by bench/vs-pgbench-init and bench/vs-sysbench-prepare (sourced, not run): a scratch
# server, a fresh empty database before every timed run, alternating rounds, medians.
# The caller sets: name (for messages), rounds, conn (may be empty), here (repository root),
# and defines run_pgarena and run_peer, each loading into the database "$db" on "$conn".

die() { echo "$name: $*" >&2; exit 1; }

pgbin=$(pg_config --bindir 2>/dev/null || true)
[ -x "$pgbin/psql" ] || pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
psql_=$pgbin/psql

work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
pgdir=""
cleanup() {
    if [ -n "$pgdir" ]; then sh "$here/tests/pg-harness.sh" stop "$pgdir" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_server() {
    if [ -z "$conn" ]; then
        pgdir=$(mktemp -d "${TMPDIR:-/tmp}/$name-pg.XXXXXX")
        conn=$(sh "$here/tests/pg-harness.sh" start "$pgdir") || die "could not start a scratch server"
    fi
    db=pgarena_bench_init
}

# A new empty database for the next run, and a checkpoint so that the previous run's dirty
# pages are not written during this one.
fresh_db() {
    "$psql_" -X -q "$conn" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" \
        -c "CHECKPOINT" >/dev/null || die "could not recreate database $db"
}

# time_run TOOL ROUND: wall seconds of run_TOOL, appended to $work/results as "round tool s".
time_run() {
    fresh_db
    local t0 t1
    t0=$(date +%s.%N)
    "run_$1" >"$work/$1-$2.log" 2>&1 || { tail -n 20 "$work/$1-$2.log" >&2; die "$1 failed (round $2)"; }
    t1=$(date +%s.%N)
    local label=$1
    [ "$1" = peer ] && label=$peer_name
    awk -v r="$2" -v t="$label" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-5s  %-8s  %8.2f\n", r, t, b - a }' |
        tee -a "$work/results"
}

median() {
    awk -v t="$1" '$2 == t { print $3 }' "$work/results" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# rounds_and_ratio PEER AIM: alternate the two tools, then the medians and the ratio.
rounds_and_ratio() {
    local peer=$1 aim=$2
    peer_name=$peer
    : >"$work/results"
    printf '%-5s  %-8s  %8s\n' round tool wall_s
    for ((r = 1; r <= rounds; r++)); do
        # Alternate who goes first, so neither always inherits the other's leftovers.
        if [ $((r % 2)) = 1 ]; then time_run pgarena "$r"; time_run peer "$r"
        else time_run peer "$r"; time_run pgarena "$r"; fi
    done
    local a b
    a=$(median pgarena)
    b=$(median "$peer")
    echo
    printf 'median wall time: pgarena %.2f s, %s %.2f s\n' "$a" "$peer" "$b"
    awk -v a="$a" -v b="$b" -v p="$peer" -v aim="$aim" 'BEGIN {
        r = a / b
        printf "ratio pgarena/%s = %.3f   (aim <= %s)  %s\n", p, r, aim, (r <= aim ? "PASS" : "FAIL") }'
}

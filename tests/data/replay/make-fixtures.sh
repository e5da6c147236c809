#!/bin/sh
# Regenerate the log fixtures of tests/unit/test_logread.c and test_prepare.c from a real
# server (tests/pg-servers.sh start DIR collector): one server writes stderr, csvlog and
# jsonlog side by side, so the three files of a phase hold the same messages.
#   a.*: log_statement = all, log_connections/log_disconnections on, prefix '%m|%u|%d|%c|%e|'
#   b.*: log_min_duration_statement = 0 only, prefix '%m [%p] %c %e user=%u db=%d '
#   c.log: pgreplay's prefix '%m|%u|%d|%c|' (no SQLSTATE), log_statement = all
# Run from the top of the tree; the numbers the tests assert follow from script.sql and the
# pgbench runs here, so change them together. d18.* (PostgreSQL 18, drivers' traffic) come
# from make-fixtures-18.sh.
set -eu
here=tests/data/replay
dir=$(mktemp -d /tmp/pgarena-fixtures-XXXXXX)
rmdir "$dir"
conn=$(sh tests/pg-servers.sh start "$dir" collector)
trap 'sh tests/pg-servers.sh stop "$dir"' EXIT
bindir=$(pg_config --bindir)
psql() { "$bindir/psql" -X -q "$@"; }
set_logging() { # settings as ALTER SYSTEM statements
    for s in "$@"; do psql "$conn" -c "ALTER SYSTEM SET $s" >/dev/null; done
    psql "$conn" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5
}
take() { # NAME EXT...: copy this phase's files, then empty them for the next phase
    name=$1
    shift
    sleep 0.7
    for ext in "$@"; do
        src=$dir/log/postgresql
        [ "$ext" = log ] || src=$src.$ext
        cp "$src" "$here/$name.$ext"
        chmod 644 "$here/$name.$ext"
    done
    for f in "$dir"/log/*; do : >"$f"; done
}
cancel_one() { # a statement cancelled by another session's pg_cancel_backend
    psql "$conn" -c "SELECT pg_sleep(5)" >/dev/null 2>&1 &
    sleep 0.5
    psql "$conn" -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(5)'" >/dev/null
    wait
}
"$bindir/pgbench" -i -q -s 1 "$conn" >/dev/null 2>&1
set_logging "log_line_prefix = '%m|%u|%d|%c|%e|'" "log_statement = 'all'" \
    "log_connections = on" "log_disconnections = on"
for f in "$dir"/log/*; do : >"$f"; done
psql "$conn" -f $here/script.sql >/dev/null 2>&1 || true
psql "$conn" -c "SELECT 1; SELECT 2" >/dev/null
cancel_one
"$bindir/pgbench" -n -M extended -t 2 -c 1 "$conn" >/dev/null 2>&1
"$bindir/pgbench" -n -M prepared -t 2 -c 1 "$conn" >/dev/null 2>&1
take a log csv json
set_logging "log_line_prefix = '%m [%p] %c %e user=%u db=%d '" "log_statement = 'none'" \
    "log_min_duration_statement = 0" "log_connections = off" "log_disconnections = off"
for f in "$dir"/log/*; do : >"$f"; done
psql "$conn" -f $here/script.sql >/dev/null 2>&1 || true
"$bindir/pgbench" -n -M extended -t 2 -c 1 "$conn" >/dev/null 2>&1
"$bindir/pgbench" -n -M prepared -t 2 -c 1 "$conn" >/dev/null 2>&1
take b log csv json
set_logging "log_line_prefix = '%m|%u|%d|%c|'" "log_statement = 'all'" \
    "log_min_duration_statement = -1" "log_connections = on" "log_disconnections = on"
for f in "$dir"/log/*; do : >"$f"; done
psql "$conn" -c "SELECT 1/0" >/dev/null 2>&1 || true
"$bindir/pgbench" -n -M simple -t 2 -c 1 "$conn" >/dev/null 2>&1
take c log

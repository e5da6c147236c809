#!/bin/sh
# Start or stop the tests' scratch PostgreSQL, independent of the code under test.
#   tests/pg-harness.sh start DIR   -> prints the conninfo; server on a unix socket in DIR
#   tests/pg-harness.sh stop DIR    -> stops it and removes DIR
# and, for fault tests: halt DIR (immediate shutdown, keeps DIR), resume DIR (start it again),
# freeze DIR / thaw DIR (SIGSTOP / SIGCONT the postmaster and every backend: a hung server).
# With PGARENA_HARNESS_TCP_PORT=N set at start, the server also listens on 127.0.0.1 port N
# (the unix socket then uses N too); resume keeps it. PGARENA_HARNESS_LISTEN=ADDR[,ADDR...]
# with it adds addresses to listen on (a veth's host end, for agents in network namespaces),
# trusted from their own subnets.
set -eu
action=$1
dir=$2
bindir=$(pg_config --bindir 2>/dev/null || true)
if [ ! -x "$bindir/initdb" ]; then
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
fi
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# Listen options of the server in DIR: a unix socket only, or also TCP (see above).
listen_opts() {
    if [ -f "$dir/tcp_port" ]; then
        extra=""
        [ ! -f "$dir/listen" ] || extra=",$(cat "$dir/listen")"
        echo "-k $dir -c listen_addresses=127.0.0.1$extra -p $(cat "$dir/tcp_port")"
    else
        echo "-k $dir -c listen_addresses='' -p 5432"
    fi
}
case "$action" in
start)
    mkdir -p "$dir"
    chmod 700 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    as_pg "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 -N >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    [ -z "${PGARENA_HARNESS_TCP_PORT:-}" ] || echo "$PGARENA_HARNESS_TCP_PORT" >"$dir/tcp_port"
    if [ -n "${PGARENA_HARNESS_LISTEN:-}" ]; then
        echo "$PGARENA_HARNESS_LISTEN" >"$dir/listen"
        echo "host all all samenet trust" >>"$dir/data/pg_hba.conf"
    fi
    # Small settings keep the tests light on a 2-core machine; max_connections leaves room
    # for the many-client tests.
    as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "$(listen_opts) -c max_connections=120" start >/dev/null ||
        { tail -n 5 "$dir/server.log" >&2; exit 1; }
    echo "host=$dir port=${PGARENA_HARNESS_TCP_PORT:-5432} user=postgres dbname=postgres"
    ;;
stop)
    if [ -d "$dir/data" ]; then
        as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
halt)
    as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    ;;
resume)
    as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "$(listen_opts) -c max_connections=120" start >/dev/null
    ;;
freeze|thaw)
    pm=$(head -n 1 "$dir/data/postmaster.pid")
    sig=STOP
    [ "$action" = thaw ] && sig=CONT
    kill -$sig "$pm" $(pgrep -P "$pm")
    ;;
*)
    echo "usage: $0 start|stop|halt|resume|freeze|thaw DIR" >&2
    exit 2
    ;;
esac

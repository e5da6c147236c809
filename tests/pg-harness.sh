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
# With PGARENA_PG_MAJOR=M set at start (13, 14, 16, 17, 18), the server is PostgreSQL M from
# tools/pg/versions.sh's cache (or /usr/lib/postgresql/M when installed), started with the same
# options; unset, Debian's default (15). DIR/bindir keeps the binaries for the other actions.
# A major not to be had fails start with "pg-versions: M unavailable: WHY".
set -eu
action=$1
dir=$2
if [ -f "$dir/bindir" ]; then
    bindir=$(cat "$dir/bindir")
elif [ "$action" = start ]; then
    bindir=$(sh "$(dirname "$0")/../tools/pg/versions.sh" bindir)
else
    bindir=$(sh "$(dirname "$0")/../tools/pg/versions.sh" bindir "") # stop of a failed start
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
    echo "$bindir" >"$dir/bindir"
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
    # The postmaster first: stopped, it forks no backend after the list below is read. A
    # backend that ends between the list and its signal (a client just gone) is no failure.
    kill -$sig "$pm"
    for p in $(pgrep -P "$pm"); do kill -$sig "$p" 2>/dev/null || true; done
    ;;
*)
    echo "usage: $0 start|stop|halt|resume|freeze|thaw DIR" >&2
    exit 2
    ;;
esac

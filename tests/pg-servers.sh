#!/bin/sh
# Servers configured as users run them, for the connection tests (tests/pg-harness.sh keeps the
# plain unix-socket server of the other tests). Each lives in a directory of its own, which
# `stop` removes; a test puts `stop` in its LIB_CLEANUP so a server is always stopped.
#
#   pg-servers.sh port [ADDR]               a free TCP port on ADDR (default 127.0.0.1)
#   pg-servers.sh start DIR [OPTION...]     initdb + start; prints the conninfo to use
#       addr=A[,B]     listen on these loopback addresses (default 127.0.0.1)
#       port=N         TCP port (default: a free one)
#       ssl            ssl=on with a certificate signed by a CA made here (DIR/ca.crt), for
#                      localhost and 127.0.0.1; only TLS connections are accepted over TCP
#       scram          over TCP, SCRAM-SHA-256 with the password in $PGA_TEST_PASSWORD
#       max_connections=N
#       conf=NAME=VALUE  a server setting (-c NAME=VALUE), as often as needed
#       collector      logging_collector=on writing stderr, csvlog and jsonlog (PostgreSQL 15+)
#                      side by side in DIR/log/postgresql{,.csv,.json}, messages in English
#   pg-servers.sh standby PRIMARY_DIR DIR [addr=A] [port=N]
#                                           pg_basebackup -R from the primary, start; prints
#                                           the standby's conninfo. A major without its own
#                                           pg_basebackup (see below; Debian's 15 refuses
#                                           newer servers): a copy of the primary, stopped
#                                           for it and started again, with standby.signal
#   pg-servers.sh promote DIR               pg_ctl promote, waits until it takes writes
#   pg-servers.sh halt DIR                  immediate shutdown (a crash), keeps DIR
#   pg-servers.sh resume DIR                start it again after halt, as it was
#   pg-servers.sh bouncer DIR SERVER_DIR [port=N] [scram] [pool=transaction|session]
#                    [max_client_conn=N]    pgbouncer in front of the server in SERVER_DIR
#                                           (on its unix socket), listening on 127.0.0.1
#                                           and a unix socket in DIR; prints its conninfo
#   pg-servers.sh stop DIR                  stops what runs in DIR and removes DIR
# Passwords come from the environment, never from the command line, and are printed nowhere.
# PGARENA_PG_MAJOR=M at start: PostgreSQL M (13, 14, 16, 17, 18) from tools/pg/versions.sh's
# cache with the same options; unset, Debian's default (15). A standby runs its primary's major;
# DIR/bindir keeps the binaries. M's packages have no psql: Debian's sets the SCRAM password.
set -eu
action=$1
shift
versions=$(dirname "$0")/../tools/pg/versions.sh
bindir=$(sh "$versions" bindir "")
# The binaries of the server in DIR: those it was started with.
use_bindir() {
    [ ! -f "$1/bindir" ] || bindir=$(cat "$1/bindir")
}
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
    python3 -c 'import socket, sys
s = socket.socket()
s.bind((sys.argv[1], 0))
print(s.getsockname()[1])' "${1:-127.0.0.1}"
}

# The value of NAME=VALUE among the options, or the default.
opt() {
    name=$1 def=$2
    shift 2
    for o in "$@"; do
        case "$o" in "$name"=*) echo "${o#*=}"; return ;; esac
    done
    echo "$def"
}

has() {
    name=$1
    shift
    for o in "$@"; do [ "$o" = "$name" ] && return 0; done
    return 1
}

prepare_dir() {
    mkdir -p "$1"
    chmod 700 "$1"
    [ "$(id -u)" = 0 ] && chown postgres: "$1"
    return 0
}

# A CA and a server certificate for localhost / 127.0.0.1, signed by it (EC keys: instant).
make_certs() {
    d=$1
    (
        cd "$d"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
            -subj "/CN=pgarena test CA" -keyout ca.key -out ca.crt
        openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -subj "/CN=localhost" -keyout server.key -out server.csr
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >san.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
            -extfile san.ext -out server.crt
    ) >"$d/openssl.log" 2>&1 || { cat "$d/openssl.log" >&2; exit 1; }
    chmod 600 "$d/server.key"
    chmod 644 "$d/ca.crt"
    [ "$(id -u)" = 0 ] && chown postgres: "$d/server.key" "$d/server.crt"
    return 0
}

# A fresh cluster in DIR/data: a copy of one initdb made once per machine and user (initdb
# takes seconds on a loaded 2-core machine, a copy a fraction of one).
init_cluster() {
    template=${TMPDIR:-/tmp}/pgarena-test-cluster-$(id -u)-$("$bindir/postgres" -V | awk '{print $3}')
    if [ ! -f "$template/PG_VERSION" ]; then
        tmp=$(mktemp -d "$template.XXXXXX")
        chmod 755 "$tmp"
        [ "$(id -u)" = 0 ] && chown postgres: "$tmp"
        as_pg "$bindir/initdb" -D "$tmp/data" -U postgres -A trust -E UTF8 -N >"$tmp/initdb.log" 2>&1 ||
            { cat "$tmp/initdb.log" >&2; rm -rf "$tmp"; exit 1; }
        # Another test may have made it meanwhile: the first rename wins.
        mv -T "$tmp/data" "$template" 2>/dev/null || true
        rm -rf "$tmp"
    fi
    as_pg cp -a "$template" "$1/data"
    chmod 700 "$1/data"
}

pg_start() { # DIR: start the cluster in DIR/data with the options kept in DIR/pgopts
    as_pg "$bindir/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 -o "$(cat "$1/pgopts")" \
        start >/dev/null || { tail -n 5 "$1/server.log" >&2; exit 1; }
}

# The conninfo of the server in DIR over TCP (its first address).
conninfo() {
    dir=$1
    read -r addr port <"$dir/listen"
    addr=${addr%%,*}
    extra=""
    [ -f "$dir/ca.crt" ] && extra=" sslmode=verify-full sslrootcert=$dir/ca.crt"
    echo "host=$addr port=$port user=postgres dbname=postgres$extra"
}

case "$action" in
port)
    free_port "${1:-127.0.0.1}"
    ;;
start)
    dir=$1
    shift
    addr=$(opt addr 127.0.0.1 "$@")
    port=$(opt port "" "$@")
    [ -n "$port" ] || port=$(free_port "${addr%%,*}")
    bindir=$(sh "$versions" bindir)
    prepare_dir "$dir"
    echo "$bindir" >"$dir/bindir"
    init_cluster "$dir"
    method=trust
    has scram "$@" && method=scram-sha-256
    kind=host
    ssl=""
    if has ssl "$@"; then
        make_certs "$dir"
        kind=hostssl
        ssl="-c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
    fi
    # Unix socket: trust (the harness's own administration, replication for standbys); TCP
    # on loopback as asked.
    as_pg sh -c "cat >'$dir/data/pg_hba.conf'" <<HBA
local all all trust
local replication all trust
$kind all all 127.0.0.0/8 $method
$kind replication all 127.0.0.0/8 $method
HBA
    echo "$addr $port" >"$dir/listen"
    conf=""
    for o in "$@"; do
        case "$o" in conf=*) conf="$conf -c ${o#conf=}" ;; esac
    done
    logging=""
    if has collector "$@"; then
        dests=stderr,csvlog
        [ "$("$bindir/postgres" -V | awk '{print int($3)}')" -ge 15 ] && dests=$dests,jsonlog
        logging="-c logging_collector=on -c log_destination=$dests -c log_directory=$dir/log \
-c log_filename=postgresql -c log_rotation_age=0 -c log_rotation_size=0 -c lc_messages=C"
    fi
    echo "-k $dir -p $port -c listen_addresses='$addr' -c max_connections=$(opt max_connections 120 "$@") $ssl $logging$conf" \
        >"$dir/pgopts"
    pg_start "$dir"
    if has scram "$@"; then
        : "${PGA_TEST_PASSWORD:?scram needs PGA_TEST_PASSWORD}"
        # The password goes through psql's standard input, not its command line.
        printf "SET password_encryption = 'scram-sha-256';\nALTER ROLE postgres PASSWORD '%s';\n" \
            "$PGA_TEST_PASSWORD" | as_pg "$(sh "$versions" bindir "")/psql" -X -q -v ON_ERROR_STOP=1 \
            "host=$dir port=$port user=postgres dbname=postgres" >/dev/null
    fi
    conninfo "$dir"
    ;;
standby)
    primary=$1 dir=$2
    shift 2
    addr=$(opt addr 127.0.0.1 "$@")
    port=$(opt port "" "$@")
    [ -n "$port" ] || port=$(free_port "${addr%%,*}")
    read -r _ pport <"$primary/listen"
    prepare_dir "$dir"
    use_bindir "$primary"
    echo "$bindir" >"$dir/bindir"
    if [ -x "$bindir/pg_basebackup" ]; then
        as_pg "$bindir/pg_basebackup" -D "$dir/data" -R -X stream -c fast -N \
            -d "host=$primary port=$pport user=postgres" >"$dir/basebackup.log" 2>&1 ||
            { cat "$dir/basebackup.log" >&2; exit 1; }
    else
        as_pg "$bindir/pg_ctl" -D "$primary/data" -m fast -w stop >/dev/null
        as_pg cp -a "$primary/data" "$dir/data"
        pg_start "$primary"
        as_pg touch "$dir/data/standby.signal"
        echo "primary_conninfo = 'host=$primary port=$pport user=postgres'" |
            as_pg sh -c "cat >>'$dir/data/postgresql.auto.conf'"
    fi
    [ -f "$primary/ca.crt" ] && cp "$primary/ca.crt" "$dir/ca.crt"
    echo "$addr $port" >"$dir/listen"
    sed -e "s|-k [^ ]*|-k $dir|" -e "s|-p [0-9]*|-p $port|" \
        -e "s|listen_addresses='[^']*'|listen_addresses='$addr'|" "$primary/pgopts" >"$dir/pgopts"
    pg_start "$dir"
    conninfo "$dir"
    ;;
promote)
    use_bindir "$1"
    as_pg "$bindir/pg_ctl" -D "$1/data" -w -t 60 promote >/dev/null
    ;;
halt)
    use_bindir "$1"
    as_pg "$bindir/pg_ctl" -D "$1/data" -m immediate -w stop >/dev/null
    ;;
resume)
    use_bindir "$1"
    pg_start "$1"
    ;;
bouncer)
    dir=$1 server=$2
    shift 2
    port=$(opt port "" "$@")
    [ -n "$port" ] || port=$(free_port 127.0.0.1)
    read -r _ sport <"$server/listen"
    prepare_dir "$dir"
    auth="auth_type = trust"
    if has scram "$@"; then
        : "${PGA_TEST_PASSWORD:?scram needs PGA_TEST_PASSWORD}"
        # pgbouncer checks clients against this file and logs in to the server with it.
        (umask 077; printf '"postgres" "%s"\n' "$PGA_TEST_PASSWORD" >"$dir/userlist.txt")
        auth="auth_type = scram-sha-256"
    else
        printf '"postgres" ""\n' >"$dir/userlist.txt"
    fi
    cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$server port=$sport
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir = $dir
$auth
auth_file = $dir/userlist.txt
pool_mode = $(opt pool transaction "$@")
max_client_conn = $(opt max_client_conn 200 "$@")
default_pool_size = 10
ignore_startup_parameters = extra_float_digits,options
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
    [ "$(id -u)" = 0 ] && chown -R postgres: "$dir"
    as_pg sh -c "ulimit -n $(($(opt max_client_conn 200 "$@") + 200)) 2>/dev/null; exec pgbouncer -d '$dir/pgbouncer.ini'" \
        >"$dir/start.log" 2>&1 || { cat "$dir/start.log" "$dir/pgbouncer.log" >&2; exit 1; }
    echo "127.0.0.1 $port" >"$dir/listen"
    # Wait until it accepts connections.
    i=0
    until [ -S "$dir/.s.PGSQL.$port" ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
    echo "host=127.0.0.1 port=$port user=postgres dbname=postgres"
    ;;
stop)
    dir=$1
    if [ -f "$dir/pgbouncer.pid" ]; then
        pid=$(cat "$dir/pgbouncer.pid")
        kill "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    fi
    if [ -f "$dir/data/postmaster.pid" ]; then
        use_bindir "$dir"
        as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 port|start|standby|promote|halt|resume|bouncer|stop ..." >&2
    exit 2
    ;;
esac

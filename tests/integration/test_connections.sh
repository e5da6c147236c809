# Connections as users make them: TCP, TLS up to verify-full, SCRAM passwords from every place
# libpq reads them, pgbouncer in front. Each test starts servers of its own with
# tests/pg-servers.sh and always stops them. No password may appear in any output or file.

CONN_SECRET=Tls-Scram-Secret-42

# srv NAME OPTION...: start a server in $T/NAME; prints its TCP conninfo; stopped at the end.
srv() {
    chmod 755 "$T"
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$T/$1'"
    PGA_TEST_PASSWORD=$CONN_SECRET sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" start "$T/$1" "$@"
}

# The server's unix-socket conninfo (trust: the tests' own administration).
srv_local() {
    read -r _ port <"$T/$1/listen"
    echo "host=$T/$1 port=$port user=postgres dbname=postgres"
}

# Keep the current stdout and stderr as NAME.out and NAME.err, for the password check.
keep() {
    cp "$T/out" "$T/$1.out"
    cp "$T/err" "$T/$1.err"
}

no_secret_anywhere() {
    # Everything pgarena wrote: stdout, stderr and result files of every command above.
    ls "$T"/*.out "$T"/*.err "$T"/*.json >/dev/null || fail "nothing kept to check"
    if grep -l -- "$CONN_SECRET" "$T"/*.out "$T"/*.err "$T"/*.json; then
        fail "the password appears in the files above"
    fi
}

test_tls_and_scram_from_every_password_source() {
    tcp=$(srv tls ssl scram)
    pga init -s 1 -q "$(srv_local tls)"
    assert_rc 0
    # verify-full (CA made by the harness, certificate for 127.0.0.1), password from the
    # environment; the result records that TLS was in use.
    PGPASSWORD=$CONN_SECRET pga run -w select-only -c 2 -T 1 -q -o env.json "$tcp"
    assert_rc 0
    keep env
    pyjson env.json 'd["server"]["ssl"] is True and d["summary"]["transactions"] > 0'
    # The server really saw TLS and SCRAM from the benchmark's clients.
    grep -q 'scram' "$T/tls/data/pg_hba.conf" || fail "server not set up for SCRAM"
    # ~/.pgpass (HOME of the test), with sslmode=require.
    mkdir -p "$T/home"
    printf '127.0.0.1:*:*:postgres:%s\n' "$CONN_SECRET" >"$T/home/.pgpass"
    chmod 600 "$T/home/.pgpass"
    req=$(echo "$tcp" | sed 's/sslmode=verify-full/sslmode=require/')
    HOME=$T/home pga run -w select-only -c 2 -T 1 -q -o pgpass.json "$req"
    assert_rc 0
    keep pgpass
    pyjson pgpass.json 'd["server"]["ssl"] is True'
    # PGPASSFILE and passfile= name the same kind of file elsewhere.
    cp "$T/home/.pgpass" "$T/passfile"
    PGPASSFILE=$T/passfile pga run -w select-only -c 2 -T 1 -q -o pgpassfile.json "$tcp"
    assert_rc 0
    keep pgpassfile
    pga run -w select-only -c 2 -T 1 -q -o passfile.json "$tcp passfile=$T/passfile"
    assert_rc 0
    keep passfile
    pyjson passfile.json 'd["server"]["ssl"] is True and d["summary"]["failed"] == 0'
    # A wrong password, no password, a CA that does not match, and no TLS at all: refused
    # with one line and exit 1.
    PGPASSWORD=not-$CONN_SECRET pga run -w select-only -T 1 -q -o never.json "$tcp"
    assert_rc 1
    assert_one_error_line
    assert_err 'password authentication failed'
    keep wrongpw
    pga run -w select-only -T 1 -q -o never.json "$tcp"
    assert_rc 1
    assert_one_error_line
    keep nopw
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
        -subj "/CN=other CA" -keyout other.key -out other.crt >/dev/null 2>&1
    PGPASSWORD=$CONN_SECRET pga run -w select-only -T 1 -q -o never.json \
        "$(echo "$tcp" | sed "s|sslrootcert=[^ ]*|sslrootcert=$T/other.crt|")"
    assert_rc 1
    assert_one_error_line
    assert_err 'certificate'
    keep otherca
    # verify-full checks the name: the certificate is for localhost and 127.0.0.1 only.
    PGPASSWORD=$CONN_SECRET pga run -w select-only -T 1 -q -o never.json \
        "$(echo "$tcp" | sed 's/host=127.0.0.1/host=wrong.invalid hostaddr=127.0.0.1/')"
    assert_rc 1
    assert_one_error_line
    assert_err 'does not match host name'
    keep wrongname
    PGPASSWORD=$CONN_SECRET pga run -w select-only -T 1 -q -o never.json \
        "$(echo "$tcp" | sed 's/sslmode=verify-full/sslmode=disable/')"
    assert_rc 1
    assert_one_error_line
    # the server's words: "no encryption" from 14, "SSL off" on 13
    assert_err 'no encryption|SSL off'
    keep nossl
    [ ! -e never.json ] || fail "a result file for a run that never connected"
    no_secret_anywhere
}

test_pgbouncer_in_front_with_scram() {
    srv pg scram >/dev/null
    local_conn=$(srv_local pg)
    pga init -s 1 -q "$local_conn"
    assert_rc 0
    LIB_CLEANUP="${LIB_CLEANUP:-}; sh '$PGARENA_TEST_TOP/tests/pg-servers.sh' stop '$T/bouncer'"
    bconn=$(PGA_TEST_PASSWORD=$CONN_SECRET sh "$PGARENA_TEST_TOP/tests/pg-servers.sh" bouncer \
        "$T/bouncer" "$T/pg" scram)
    # Transaction pooling takes no prepared statements: extended protocol, as pgbench users do.
    PGPASSWORD=$CONN_SECRET pga run -w tpcb-like -M extended -c 6 -j 2 -T 2 -q -o b.json "$bconn"
    assert_rc 0
    keep bouncer
    pyjson b.json 'd["summary"]["failed"] == 0 and all(c["transactions"] > 0 for c in d["clients"])'
    # Server side: every reported transaction left its history row.
    n=$(sql "SELECT count(*) FROM pgbench_history" "$local_conn")
    pyjson b.json "d['summary']['transactions'] == $n"
    # A wrong password is refused by pgbouncer: one line, exit 1.
    PGPASSWORD=x$CONN_SECRET pga run -w select-only -M extended -T 1 -q -o never.json "$bconn"
    assert_rc 1
    assert_one_error_line
    keep bouncer-wrongpw
    no_secret_anywhere
}

# On a server of its own: 100 clients are most of the shared server's connections.
test_open_file_limit_raised_or_named() {
    srv files >/dev/null
    db=$(srv_local files)
    pga init -s 1 -q "$db"
    assert_rc 0
    # A soft limit below what the clients need is raised up to the hard limit ...
    # Every client's transactions are counted, none needs more than one: 2 s leave each of
    # them time for its first on a loaded machine.
    PGA_WRAP="prlimit --nofile=64:" pga run -w select-only -c 100 -j 2 -T 2 -q -o r.json "$db"
    assert_rc 0
    pyjson r.json 'len(d["clients"]) == 100 and all(c["transactions"] > 0 for c in d["clients"])'
    # ... and a hard limit that is too low is named before any client connects.
    PGA_WRAP="prlimit --nofile=64" pga run -w select-only -c 100 -j 2 -T 1 -q -o r2.json "$db"
    assert_rc 1
    assert_one_error_line
    assert_err '100 clients need 122 open files \(22 besides their sockets: .*\), the limit is 64'
    [ ! -e r2.json ] || fail "a result file for a run that never started"
    # The reserve is what this run keeps open, not a fixed 64: 40 clients fit under 64 files.
    PGA_WRAP="prlimit --nofile=64" pga run -w select-only -c 40 -j 2 -T 2 -q -o r3.json "$db"
    assert_rc 0
    pyjson r3.json 'len(d["clients"]) == 40 and all(c["transactions"] > 0 for c in d["clients"])'
}

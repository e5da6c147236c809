# Passwords appear nowhere: not on stdout or stderr of any command, not in any file pgarena
# writes. The scratch server is private: a 0700 directory, a unix socket, no TCP.

SECRET=Pa55-Secret-Never-Shown

test_password_in_no_output_of_any_command() {
    db=$(newdb pga_sec)
    dir=$(echo "$CONN" | sed 's/.*host=\([^ ]*\).*/\1/')
    uri="postgresql://postgres:$SECRET@/pga_sec?host=$dir&port=5432"
    kv="host=$dir port=5432 user=postgres dbname=pga_sec password=$SECRET"
    pga init -s 1 "$uri"
    assert_rc 0
    cp "$T/out" init.out; cp "$T/err" init.err
    pga run -w select-only -c 2 -T 2 -P 1 --label A -o a.json "$uri"
    assert_rc 0
    cp "$T/out" run1.out; cp "$T/err" run1.err
    PGPASSWORD=$SECRET pga run -w select-only -c 2 -T 2 -P 1 --label B -o b.json "$kv"
    assert_rc 0
    cp "$T/out" run2.out; cp "$T/err" run2.err
    pga show a.json --intervals
    assert_rc 0
    cp "$T/out" show.out; cp "$T/err" show.err
    pga compare a.json b.json
    assert_rc 0
    cp "$T/out" compare.out; cp "$T/err" compare.err
    pga compare a.json b.json --json
    assert_rc 0
    cp "$T/out" compare-json.out
    # Failures print connection errors: still no password.
    pga run -T 1 -q -o never.json "postgresql://postgres:$SECRET@/pga_sec?host=/nonexistent&port=1"
    assert_rc 1
    cp "$T/err" fail.err
    pga init "host=/nonexistent port=1 user=x password=$SECRET dbname=x"
    assert_rc 1
    cp "$T/err" initfail.err
    if grep -rl -- "$SECRET" "$T"; then
        fail "the password appears in the files above"
    fi
    grep -q 'postgres:\*\*\*@' a.json || fail "the command line in the result was not masked"
    grep -q 'password=\*\*\*' b.json || fail "the conninfo in the result was not masked"
}

test_scratch_server_is_private() {
    chmod 755 "$T"
    pga local start --dir "$T/srv"
    assert_rc 0
    conninfo=$(cat "$T/out")
    LIB_CLEANUP="'$PGARENA' local stop --dir '$T/srv'"
    [ "$(stat -c %a "$T/srv")" = 700 ] || fail "scratch directory mode is $(stat -c %a "$T/srv"), not 700"
    [ -S "$T/srv/.s.PGSQL.5432" ] || fail "no unix socket in the scratch directory"
    [ -z "$(sql 'SHOW listen_addresses' "$conninfo")" ] || fail "the scratch server listens on TCP"
    pga local stop --dir "$T/srv"
    assert_rc 0
}

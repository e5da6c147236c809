# The bad-input table (tests/data/bad-input.table): every case exits with its status, prints
# one line on stderr beginning "pgarena: " and nothing on stdout, under ASan and UBSan.

make_bad_files() {
    : >empty.json
    echo 'this is not json' >notjson.json
    echo '{"format": "pgarena-result", "version": 1, "summary": {' >truncated.json
    echo '{"format": "other-tool", "version": 1}' >other.json
    echo '{"format": "pgarena-result", "version": 99}' >future.json
    echo '{"format": "pgarena-result"}' >noversion.json
    echo '{"format": "pgarena-result", "version": 1, "intervals": [], "histogram": {"count": 0, "min": 0, "max": 0, "bins": []}}' >nosummary.json
    cp nosummary.json a.json
    cp nosummary.json b.json
    echo 'SELECT 1;' >x.sql
    printf 'SELECT 1;\nSELECT 1 + ;\n' >syntax.sql
    printf '\\set d 1.0E309\nSELECT 1;\n' >double.sql
    printf '\\sleep 2ms ms\n' >sleep.sql
    printf 'BEGIN;\n  copy pgbench_accounts (aid) from stdin;\nEND;\n' >copy.sql
    # A run killed before it wrote killed.json left its journal; and a journal that is not one.
    echo '{"format": "pgarena-result", "version": 2}' >killed.json.journal
    echo 'garbage' >notjournal.json.journal
    mkdir otherdir
    echo '{"format": "other-tool"}' >otherdir/sweep.json
    echo 'a log' >same.log # replay prepare must not write its capture over a log
}

test_bad_input_table() {
    make_bad_files
    n=0
    while IFS='|' read -r status args pattern; do
        case "$status" in '#'* | '') continue ;; esac
        n=$((n + 1))
        eval "set -- $args"
        pga "$@"
        [ "$RC" -eq "$status" ] || { cat "$T/err"; fail "case $n ($args): exit $RC, expected $status"; }
        assert_one_error_line
        [ -z "$pattern" ] || grep -qE -- "$pattern" "$T/err" || { cat "$T/err"; fail "case $n ($args): stderr does not match $pattern"; }
    done <"$PGARENA_TEST_TOP/tests/data/bad-input.table"
    [ "$n" -ge 40 ] || fail "only $n cases"
    echo "$n cases"
}

# Every case's exit status and stderr, byte for byte, as tests/data/bad-input.stderr pins them
# (the test's directory and the server's conninfo written $T and $CONN): a refusal's words
# change only with that file. PGARENA_PIN_WRITE=FILE writes the file instead (from the binary
# in PGARENA: the one whose messages are the reference).
test_bad_input_messages_pinned() {
    make_bad_files
    pinned=$PGARENA_TEST_TOP/tests/data/bad-input.stderr
    n=0
    : >got.stderr
    while IFS='|' read -r status args pattern; do
        case "$status" in '#'* | '') continue ;; esac
        n=$((n + 1))
        eval "set -- $args"
        pga "$@"
        printf '%s|%s|%s\n' "$n" "$RC" "$(sed -e "s|$T|\$T|g" -e "s|$CONN|\$CONN|g" -e "s|$PGARENA_TEST_TOP|\$TOP|g" "$T/err")" >>got.stderr
    done <"$PGARENA_TEST_TOP/tests/data/bad-input.table"
    if [ -n "${PGARENA_PIN_WRITE:-}" ]; then
        cp got.stderr "$PGARENA_PIN_WRITE"
        return
    fi
    diff -u "$pinned" got.stderr >pin.diff || fail "bad-input messages changed: $(cat pin.diff)"
    echo "$n cases pinned"
}

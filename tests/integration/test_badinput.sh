# Bad input: one clear line on stderr beginning "pgarena: ", nothing on stdout, the exit
# status docs/running.md and the man page document (2 for usage and input, 1 for runtime failures).

test_unknown_command() {
    pga frobnicate
    assert_rc 2
    assert_one_error_line
    assert_err "unknown command 'frobnicate'"
}

test_unknown_options() {
    for cmd in init run show local; do
        pga $cmd --no-such-option
        assert_rc 2
        assert_one_error_line
        assert_err "unknown option '--no-such-option'"
    done
    pga run -Z
    assert_rc 2
    assert_one_error_line
    assert_err "unknown option '-Z'"
}

test_bad_numbers() {
    for args in "-c 0" "-c -3" "-c 10x" "-c 99999999999999999999" "-j 0" "-T 0" "-t -1" \
        "-P 0" "-s abc" "-c ''"; do
        eval pga run $args "'$CONN'"
        assert_rc 2
        assert_one_error_line
        assert_err "invalid value for -"
    done
    pga init -s 0 "$CONN"
    assert_rc 2
    assert_one_error_line
}

test_missing_option_value() {
    pga run -c
    assert_rc 2
    assert_one_error_line
    assert_err "option -c needs a value"
}

test_conflicting_and_unknown_values() {
    pga run -T 5 -t 10 "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err "-T and -t"
    pga run -w no-such-workload "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err "unknown workload 'no-such-workload'"
    pga run -M binary "$CONN"
    assert_rc 2
    assert_one_error_line
    pga run "$CONN" extra-argument
    assert_rc 2
    assert_one_error_line
}

test_unreachable_server_is_runtime_error() {
    pga run -T 1 -q -o r.json "host=/nonexistent-dir port=1 user=postgres dbname=postgres"
    assert_rc 1
    assert_one_error_line
    assert_err "could not connect"
    [ ! -e r.json ] || fail "a result file was written for a run that never started"
}

test_missing_tables_is_input_error() {
    db=$(newdb pga_empty)
    pga run -w select-only -T 1 -q -o r.json "$db"
    assert_rc 2
    assert_one_error_line
    assert_err "pgbench_branches"
    assert_err "pgarena init"
}

test_result_path_refused_before_run() {
    pga run -T 1 -q -o /nonexistent-dir/r.json "$CONN"
    assert_rc 2
    assert_one_error_line
    assert_err "cannot write the result file"
}

test_show_bad_files() {
    pga show missing.json
    assert_rc 2
    assert_one_error_line
    : >empty.json
    pga show empty.json
    assert_rc 2
    assert_one_error_line
    echo '{"format": "pgarena-result", "version": 1, ' >truncated.json
    pga show truncated.json
    assert_rc 2
    assert_one_error_line
    assert_err "truncated.json:"
    echo '{"format": "something-else", "version": 1}' >other.json
    pga show other.json
    assert_rc 2
    assert_one_error_line
    assert_err "not a pgarena result file"
    echo '{"format": "pgarena-result", "version": 99}' >future.json
    pga show future.json
    assert_rc 2
    assert_one_error_line
    assert_err "version 99 is newer"
    pga show
    assert_rc 2
    assert_one_error_line
}

test_help_and_version() {
    pga --version
    assert_rc 0
    assert_out '^pgarena '
    for cmd in init run show local; do
        pga $cmd --help
        assert_rc 0
        assert_out "Usage: pgarena $cmd"
    done
    # --help lists every workload that -b list knows (the list comes from the table)
    local names w
    names=$("$PGARENA" run -b list | sed -n 's/^ *\([a-z-]*\): .*/\1/p')
    [ -n "$names" ] || fail "-b list printed no workload"
    pga --help
    assert_rc 0
    for w in $names; do
        assert_out " $w[ ,.]"
    done
}

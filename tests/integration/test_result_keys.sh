# The net under moving code: the example commands of the README and docs (tests/data/result-keys/
# cases.sh: run tpcb-like and select-only -M prepared, two agents of one run and their merge,
# oltp-read-write, tpcc, ch with an analytic client, replay run of a small capture, merge of two
# runs, recover of a journal, a two-point sweep) give result files with the same key paths
# (tests/tools/result-keys.py: sorted, arrays as [], values ignored) and print the same summary
# lines (numbers masked) as the pinned NAME.keys and NAME.out of tests/data/result-keys/, made
# by the binary before the change. A key added, removed or renamed fails here; a change that
# means it writes them anew with regen.sh (tests/README.md).

test_result_keys_pinned() {
    local pinned=$PGARENA_TEST_TOP/tests/data/result-keys got=$T/got f name bad=0
    . "$pinned/cases.sh"
    mkdir "$got"
    result_keys_cases "$got"
    for f in "$pinned"/*.keys "$pinned"/*.out "$got"/*; do
        name=${f##*/}
        [ -e "$pinned/$name" ] || { echo "$name: made here, not pinned" >&2; bad=1; continue; }
        [ -e "$got/$name" ] || { echo "$name: pinned, not made here" >&2; bad=1; continue; }
        if ! diff -u "$pinned/$name" "$got/$name" >"$T/diff" 2>&1; then
            echo "$name differs from the pinned file (- pinned, + now):" >&2
            cat "$T/diff" >&2
            bad=1
        fi
    done
    [ "$bad" -eq 0 ] || fail "result keys or summary lines differ from tests/data/result-keys"
}

#!/usr/bin/env bash
# Write the pinned files of tests/integration/test_result_keys.sh anew: NAME.keys and NAME.out
# of each case of cases.sh, made by the binary PGARENA (default build/pgarena) against
# PGARENA_TEST_CONN, or a scratch server started here and stopped at the end. Pin with the
# binary whose output the tree must keep, e.g. the one before a change:
#   PGARENA=/tmp/pgarena-baseline bash tests/data/result-keys/regen.sh
set -eu
cd "$(dirname "$0")/../../.."
top=$PWD
export PGARENA=${PGARENA:-$top/build/pgarena} PGARENA_TEST_TOP=$top
pgdir=
if [ -z "${PGARENA_TEST_CONN:-}" ]; then
    pgdir=$(mktemp -d /tmp/pgarena-keys-XXXXXX)
    PGARENA_TEST_CONN=$(sh tests/pg-harness.sh start "$pgdir")
    export PGARENA_TEST_CONN
fi
# shellcheck source=../../integration/lib.sh
. tests/integration/lib.sh
. tests/data/result-keys/cases.sh
rm -f tests/data/result-keys/*.keys tests/data/result-keys/*.out
lib_setup
trap 'lib_teardown; [ -z "$pgdir" ] || sh "$top/tests/pg-harness.sh" stop "$pgdir"' EXIT
result_keys_cases "$top/tests/data/result-keys"
echo "pinned $(ls "$top"/tests/data/result-keys/*.keys | wc -l) cases with $PGARENA"

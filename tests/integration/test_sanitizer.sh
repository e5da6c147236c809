# lib.sh's helpers cannot hide a sanitizer report: a program built with the same sanitizers
# as the binary under test leaks (or overflows) on a path that exits 1, the status an
# interrupted run expects, and every helper fails the test all the same.

# leaky_build: ./leaky, exiting 1 after a leak ("leak"), a signed overflow ("overflow") or
# nothing else wrong ("clean").
leaky_build() {
    cat >leaky.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "leak") == 0) {
        char *p = malloc(64);
        strcpy(p, "kept nowhere");
        p = NULL;
    }
    if (argc > 1 && strcmp(argv[1], "overflow") == 0) {
        int x = 0x7fffffff - 1 + argc;
        return x & 1;
    }
    return 1;
}
C
    gcc -std=c11 -O0 -g -fsanitize=address,undefined -o leaky leaky.c || fail "cannot build with sanitizers"
}

# expect_caught CMD...: CMD (a shell snippet using the helpers) fails the test with a
# sanitizer report.
expect_caught() {
    if (PGARENA=$T/leaky; eval "$1") >caught.log 2>&1; then
        cat caught.log
        fail "not caught: $1"
    fi
    grep -q 'FAILED: sanitizer report' caught.log || { cat caught.log; fail "no report named: $1"; }
}

test_lib_sanitizer_gate() {
    leaky_build
    # The exit status of its own, under the options tests/run-all.sh sets.
    set +e
    ./leaky leak 2>/dev/null
    rc=$?
    set -e
    [ "$rc" -eq 86 ] || fail "a leak exits $rc, not 86 (ASAN_OPTIONS=$ASAN_OPTIONS)"
    # A clean exit 1 passes: the status alone is the test's to judge.
    (PGARENA=$T/leaky; pga clean; [ "$RC" -eq 1 ]) || fail "a clean exit 1 was taken for a report"
    expect_caught 'pga leak'
    expect_caught 'pga overflow'
    expect_caught 'pga_bg leak; pga_wait'
    expect_caught 'PGA_ERR=$T/e2 pga_bg leak; p=$PID; pga_wait $p'
    expect_caught 'PGA_WRAP="prlimit --nofile=256:" pga leak'
    # A report with the sanitizer's output hidden elsewhere still fails by the status.
    expect_caught 'pga_check_report /dev/null 86'
}

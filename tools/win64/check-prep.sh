#!/bin/sh
# make check's Windows step, before the test files run two at a time: the inputs
# (tools/win64/deps.sh), the zip, the engine's unit tests for Windows, and Wine's first start
# in the tests' prefix (WINEPREFIX, argument 2), which takes both cores for some seconds.
# tests/integration/test_windows.sh then finds them made and can run beside another file.
# Where the inputs or Wine cannot be had, this says why on one line and succeeds: those tests
# then say SKIPPED. A build that fails is an error. Argument 1: the cache (WIN64_CACHE).
set -u
cache=$1
prefix=$2
log=build/win64-prep.log
mkdir -p build
if ! sh tools/win64/deps.sh "$cache" >"$log" 2>&1; then
    if grep -q 'windows: unavailable:' "$log"; then
        echo "windows: skipped (test_windows.sh will say SKIPPED): $(grep -A1 'windows: unavailable:' "$log" | tr '\n' ' ')"
        exit 0
    fi
    cat "$log" >&2
    exit 1
fi
make -s -j2 --no-print-directory windows windows-tests >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
if [ ! -x "$wine" ]; then
    echo "windows: no wine64: test_windows.sh will say SKIPPED"
    exit 0
fi
mkdir -p "$(dirname "$prefix")"
WINEPREFIX=$prefix WINEDEBUG=-all "$wine" wineboot --init >"$log" 2>&1 ||
    echo "windows: wineboot failed (test_windows.sh will say why): $(tail -1 "$log")"
echo "windows: zip, unit tests and Wine's prefix ready"

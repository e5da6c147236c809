#!/bin/sh
# synchronous_commit on and off against clients: the shape of the 8.2/8.3 tuning write-up
# (a setting that changes the answer more than the version did). On a scratch server the
# setting is applied by a restart; on your own server give CONN instead of --local and the
# sweep uses ALTER SYSTEM + reload (synchronous_commit needs no restart), then resets it.
# Usage: examples/sweeps/sync-commit.sh [DIR]   (default ./sweep-sync-commit)
set -eu
PGARENA=${PGARENA:-pgarena}
dir=${1:-sweep-sync-commit}
$PGARENA sweep --local -s 10 --set synchronous_commit=on,off -c 1..16x2 --trials 2 \
    -w tpcb-like -T 30 --warmup 5 -o "$dir"
$PGARENA report "$dir" -o "$dir/report.html"

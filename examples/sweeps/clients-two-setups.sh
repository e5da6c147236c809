#!/bin/sh
# Clients 1..64 on two setups, interleaved, three trials each: the shape of the seeds' "8.2
# against 8.3 over client counts" and "FreeBSD against Linux over sysbench threads" matrices.
# Here the two setups are two scratch servers on this machine (replace them with your own
# --setup LABEL=CONN), so the comparison is an A/A calibration: expect no-meaningful-difference.
# Usage: examples/sweeps/clients-two-setups.sh [DIR]   (default ./sweep-clients)
set -eu
PGARENA=${PGARENA:-pgarena}
dir=${1:-sweep-clients}
a=$(mktemp -d /tmp/pgarena-a-XXXXXX)
b=$(mktemp -d /tmp/pgarena-b-XXXXXX)
trap '$PGARENA local stop --dir "$a" >/dev/null; $PGARENA local stop --dir "$b" >/dev/null' EXIT
conn_a=$($PGARENA local start --dir "$a")
conn_b=$($PGARENA local start --dir "$b")
$PGARENA init -s 10 -q "$conn_a"
$PGARENA init -s 10 -q "$conn_b"
$PGARENA sweep --setup "A=$conn_a" --setup "B=$conn_b" -c 1..64x2 --trials 3 \
    -w select-only -M prepared -T 20 --warmup 5 -o "$dir"
$PGARENA report "$dir" -o "$dir/report.html"

#!/bin/sh
# Did pushing max_connections from 100 to 300 change the result? (The puzzle of the first
# Linux-against-Windows write-up.) A --set axis is what the sweep compares by default: every
# client count gets the change of tps and latency at 300 against 100 with its 95 % CI and a
# verdict, the between-trial noise pooled over the client counts where it agrees (method
# "pooled"), else over the cell's own trials ("cell"); sweep.json keeps them in comparisons[].
# compare --by groups a cell's files by the setting and gives the cell's own verdict.
# Usage: examples/sweeps/max-connections.sh [DIR]   (default ./sweep-max-connections)
set -eu
PGARENA=${PGARENA:-pgarena}
dir=${1:-sweep-max-connections}
$PGARENA sweep --local --init -s 5 --set max_connections=100,300 -w tpcb-like -c 21,42 -j 21 \
    -T 30 --warmup 5 --trials 3 -o "$dir"
$PGARENA compare --by server.settings.max_connections "$dir"/default-c42-*.json
$PGARENA report "$dir" -o "$dir/report.html"

#!/bin/sh
# A capacity search: the highest open-loop rate whose p99 stays within 100 ms with 8 clients,
# confirmed by 3 fresh trials judged together. Each transaction sleeps 20 ms on the server
# (sleep-20ms.sql), so 8 clients cannot go beyond 400 tps: the answer lands below that ceiling
# (queueing), not above.
# Usage: examples/sweeps/capacity.sh [DIR]   (default ./sweep-capacity)
set -eu
PGARENA=${PGARENA:-pgarena}
dir=${1:-sweep-capacity}
$PGARENA sweep --local -f "$(dirname "$0")/sleep-20ms.sql" -c 8 -T 20 --max-rate \
    --slo 'p99<=100ms' --trials 3 -o "$dir"

#!/bin/sh
# Is 18 faster than 16 for this workload? Two scratch servers, one of each major's binaries
# (`local start --bin`: the same cluster settings, data checksums off on both), loaded alike,
# compared in one sweep with a verdict per client count. Binaries: Debian's or PGDG's packages
# install majors side by side in /usr/lib/postgresql/M/bin; tools/pg/versions.sh fetches them.
# Usage: examples/sweeps/two-majors.sh [BIN_A [BIN_B [DIR]]]
#   (default /usr/lib/postgresql/16/bin, /usr/lib/postgresql/18/bin, ./sweep-majors)
set -eu
PGARENA=${PGARENA:-pgarena}
bin_a=${1:-/usr/lib/postgresql/16/bin}
bin_b=${2:-/usr/lib/postgresql/18/bin}
dir=${3:-sweep-majors}
top=$(mktemp -d /tmp/pgarena-majors-XXXXXX)
chmod 755 "$top" # as root the servers run as postgres, in directories local start creates
a=$top/a b=$top/b
trap '$PGARENA local stop --dir "$a"; $PGARENA local stop --dir "$b"; rmdir "$top"' EXIT
conn_a=$($PGARENA local start --dir "$a" --bin "$bin_a")
conn_b=$($PGARENA local start --dir "$b" --bin "$bin_b")
label_a=pg$(basename "$(dirname "$bin_a")")
label_b=pg$(basename "$(dirname "$bin_b")")
$PGARENA init -s 10 -q "$conn_a"
$PGARENA init -s 10 -q "$conn_b"
$PGARENA sweep --setup "$label_a=$conn_a" --setup "$label_b=$conn_b" -c 1,4,16 --trials 3 \
    -T 30 --warmup 5 -o "$dir"
$PGARENA report "$dir" -o "$dir/report.html"

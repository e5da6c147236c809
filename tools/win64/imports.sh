#!/bin/sh
# imports.sh DIR: every DLL that an .exe or .dll in DIR imports is Windows' own (a system DLL,
# the UCRT's api-ms-win-crt-*, the Visual C++ runtime VCRUNTIME140) or is in DIR. Prints the
# others and fails when there are any.
set -eu
dir=$1
system='^(kernel32|advapi32|user32|gdi32|shell32|ole32|oleaut32|ws2_32|wsock32|secur32|crypt32|bcrypt|iphlpapi|wldap32|msvcrt|ntdll|normaliz|dnsapi|userenv|rpcrt4|shlwapi|version|winmm|comdlg32|comctl32|netapi32|mpr|vcruntime140|ucrtbase)\.dll$|^api-ms-win-crt-[a-z0-9-]+\.dll$'
bad=0
for f in "$dir"/*.exe "$dir"/*.dll; do
    [ -f "$f" ] || continue
    for dll in $(x86_64-w64-mingw32-objdump -p "$f" | awk '/DLL Name:/ {print $3}'); do
        lower=$(echo "$dll" | tr 'A-Z' 'a-z')
        echo "$lower" | grep -Eq "$system" && continue
        ls "$dir" | grep -i -q -x "$dll" && continue
        echo "imports: $(basename "$f") needs $dll, neither Windows' own nor in $dir" >&2
        bad=1
    done
done
exit $bad

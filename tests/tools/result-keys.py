#!/usr/bin/python3
"""The key paths of a pgarena result (or sweep) file, one a line, sorted: every object's
keys as a dotted path from the top, array elements collapsed to [] and values ignored.

result-keys.py [--live] FILE

Objects whose keys are data rather than names the program gives (--meta's, wait
events, the server's I/O by backend type) have their keys collapsed to *: their members
differ from one run to the next, so such an object is PATH.* even when empty. They are listed
in MAPS below, as collapsed paths.
--live leaves out the sections a live run writes or not by what the server and the sampler
did meanwhile (SPARSE: the server's I/O, written when it moved, and an interval's samples,
written when one was taken in it), or by what the kernel has (the client's health's PSI,
schedstat and steal); the files made from fixed inputs (merge, recover) pin them."""
import json
import sys

# Paths (as printed, without the trailing .KEY) of objects whose keys are data.
MAPS = {
    "meta",
    "waits.events",
    "intervals[].waits",
    "intervals[].server_io.io",
    "intervals[].server_io.repl_lag",
}

# Paths --live leaves out, with what is under them.
SPARSE = {
    "events",
    "server_io_fields",
    "summary.events",
    "summary.server_io_per_tx",
    "intervals[].waits",
    "intervals[].client_cpu",
    "intervals[].host",
    "intervals[].server_io",
    # the client's health: absent where the kernel lacks PSI, schedstat or /proc/stat
    "intervals[].client_health.psi_ms",
    "intervals[].client_health.run_delay_ms",
    "intervals[].client_health.steal_ms",
}


def walk(node, path, out, skip):
    if isinstance(node, dict):
        collapse = path in MAPS
        if collapse:
            out.add(path + ".*")
        for k, v in node.items():
            sub = (path + "." if path else "") + ("*" if collapse else k)
            if sub in skip:
                continue
            out.add(sub)
            walk(v, sub, out, skip)
    elif isinstance(node, list):
        for v in node:
            walk(v, path + "[]", out, skip)


def main():
    args = sys.argv[1:]
    skip = SPARSE if args[:1] == ["--live"] else set()
    out = set()
    with open(args[-1]) as f:
        walk(json.load(f), "", out, skip)
    for p in sorted(out):
        print(p)


main()

#!/usr/bin/python3
"""Validate pgarena's result files against docs/result.schema.json (JSON Schema 2020-12).

check-results.py FILE...        validate each FILE; exit 1 when one does not validate
check-results.py --dir DIR      validate every result file pgarena wrote under DIR: *.json
                                files of format "pgarena-result" that name the pgarena version
                                that wrote them (hand-made test fixtures do not), and sweep
                                files (format "pgarena-sweep") when docs/sweep.schema.json exists

Uses Debian's python3-jsonschema (tests/ensure-deps.sh installs it), hence /usr/bin/python3.
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("check-results: python3-jsonschema is missing (apt-get install python3-jsonschema)")

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
SCHEMAS = {"pgarena-result": "result.schema.json", "pgarena-sweep": "sweep.schema.json"}


def validator(fmt, cache={}):
    if fmt not in cache:
        path = os.path.join(DOCS, SCHEMAS[fmt])
        if not os.path.exists(path):
            cache[fmt] = None
        else:
            schema = json.load(open(path))
            jsonschema.Draft202012Validator.check_schema(schema)
            cache[fmt] = jsonschema.Draft202012Validator(schema)
    return cache[fmt]


def written_by_pgarena(doc):
    if doc.get("format") == "pgarena-sweep":
        return True
    client = doc.get("client")
    return isinstance(client, dict) and "pgarena_version" in client


def check(path, only_pgarena):
    try:
        doc = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as e:
        if only_pgarena:
            return True  # not JSON: a fixture, or a file being written
        print(f"{path}: not JSON: {e}")
        return False
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt not in SCHEMAS or (only_pgarena and not written_by_pgarena(doc)):
        if only_pgarena:
            return True
        print(f"{path}: not a pgarena result file")
        return False
    v = validator(fmt)
    if v is None:
        return True
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"{path}: does not match {SCHEMAS[fmt]} at {where}: {e.message[:200]}")
    return not errors


def main(argv):
    if argv[:1] == ["--dir"]:
        files = []
        for top in argv[1:]:
            for root, _, names in os.walk(top):
                files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".json")]
        ok = all([check(f, True) for f in files])
    else:
        ok = all([check(f, False) for f in argv])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Writes an N-times larger copy of a protocol schema, for the generation
benchmark (gen/emit/BENCH.md): every $defs entry and every x-methods entry
is copied N-1 times under new names (suffix S2, S3, ...; method names
suffixed ".s2", ...), each copy's $refs pointing at its own copies, so the
result is N independent protocols in one document.

    scale.py SCHEMA N OUT
"""
import copy
import json
import sys


def rename_refs(node, suffix, names):
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith("#/$defs/"):
                name, _, rest = v[len("#/$defs/"):].partition("/")
                if name in names:
                    v = "#/$defs/" + name + suffix + ("/" + rest if rest else "")
            elif k in ("title", "x-name") and isinstance(v, str):
                v = v + suffix
            out[k] = rename_refs(v, suffix, names)
        return out
    if isinstance(node, list):
        return [rename_refs(v, suffix, names) for v in node]
    return node


def main():
    src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(src) as f:
        schema = json.load(f)
    defs = schema["$defs"]
    names = set(defs)
    methods = schema.get("x-methods", {})
    new_defs = dict(defs)
    new_methods = dict(methods)
    for k in range(2, n + 1):
        suffix = "S%d" % k
        for name, d in defs.items():
            new_defs[name + suffix] = rename_refs(copy.deepcopy(d), suffix, names)
        for name, m in methods.items():
            new_methods["%s.s%d" % (name, k)] = rename_refs(copy.deepcopy(m), suffix, names)
    schema["$defs"] = new_defs
    if methods:
        schema["x-methods"] = new_methods
    for key in ("x-ts-request-map", "x-ts-notification-map"):
        schema.pop(key, None)
    with open(dst, "w") as f:
        json.dump(schema, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()

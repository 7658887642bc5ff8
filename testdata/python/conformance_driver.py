"""The Python round-trip driver of ``dshgen conformance``.

Reads JSON-RPC frames (NDJSON) on stdin, decodes each one through the
generated package (``--package``, default dshproto, found on PYTHONPATH),
encodes it back and writes it on stdout, one line per input line. A response
gets the method of the request with its id seen earlier on stdin. A frame
that cannot be decoded is written as a line ``!error <message>`` and named on
stderr; the exit status is then 1. Same protocol as the Go driver
(testdata/conformance/drivers/go/main.go).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any


def round_trip(pkg: Any, line: str, methods: dict[object, str]) -> str:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"not a JSON object: {e}") from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    frame = pkg.decode_frame(value, lambda i: methods.get(i))
    if isinstance(frame, pkg.RequestFrame):
        methods[frame.id] = frame.method
    if isinstance(frame, pkg.ResultFrame) and frame.method is None:
        raise ValueError(f"response to id {json.dumps(frame.id)}: no request with this id came before it")
    return json.dumps(frame.to_json(), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--package", default="dshproto")
    args = ap.parse_args()
    pkg = importlib.import_module(args.package)
    methods: dict[object, str] = {}
    failed = 0
    out = sys.stdout
    for n, raw in enumerate(sys.stdin.buffer, 1):
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        try:
            out.write(round_trip(pkg, line, methods) + "\n")
        except (pkg.DecodeError, ValueError) as e:
            failed += 1
            msg = str(e).replace("\n", " ")
            print(f"line {n}: {msg}", file=sys.stderr)
            out.write(f"!error {msg}\n")
    out.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

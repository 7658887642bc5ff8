"""Python round-trip driver of ``dshgen conformance``.

Reads JSON-RPC frames (NDJSON) on stdin, decodes each one through the
generated Python bindings (``<package>.FrameDecoder``: params by method, a
response's result by the method of the request with its id seen earlier on
stdin, errors as ``ErrorObject``), encodes it back with ``to_json`` and writes
the frame on stdout, one line per input line. A frame that cannot be decoded
is written as ``!error <message>`` and named on stderr as ``line N: ...``;
the exit status is then 1.

Usage: PYTHONPATH=out/python python3 driver.py [--package dshproto]
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", default="dshproto")
    args = ap.parse_args()
    pkg = importlib.import_module(args.package)
    decoder = pkg.FrameDecoder()
    failed = 0
    out = sys.stdout
    for n, raw in enumerate(sys.stdin.buffer, start=1):
        line = raw.rstrip(b"\r\n")
        try:
            value = json.loads(line)
            if not isinstance(value, dict):
                raise ValueError("not a JSON object")
            frame = decoder.decode(value)
            out.write(json.dumps(frame.to_json(), ensure_ascii=False, separators=(",", ":")))
            out.write("\n")
        except (ValueError, pkg.DecodeError) as e:  # DecodeError is a ValueError
            failed += 1
            msg = str(e).replace("\n", " ")
            print(f"line {n}: {msg}", file=sys.stderr)
            out.write(f"!error {msg}\n")
    out.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

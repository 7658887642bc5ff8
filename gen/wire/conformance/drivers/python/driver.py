"""Python round-trip driver of ``dshgen conformance`` (driver protocol 1).

Writes ``dshgen-conformance-driver 1``, then reads lines ``HEADER<TAB>FRAME``
on stdin (HEADER: ``{"seq": N}``, plus ``"method"`` for a response: the
method of the request it answers), decodes each frame through the generated
Python bindings (``<package>.decode_frame``: params by method, a result by
the header's method, errors as ``ErrorObject``; with ``"type"`` in the
header the line is one value of the type of that Python name in the
bindings' ``types`` module: a class's ``from_json``, else the module's
``decode_<NAME>``), encodes it back with
``to_json`` and writes ``N<TAB>FRAME`` on stdout, one line per input line,
flushed at once. A frame that does not decode, or whose decoding or encoding
raises anything else, is written as ``N<TAB>!error <message>`` (the
exception's type named when it is not the bindings' ``DecodeError``).

Frames nest up to 10000 levels (encoding/json's limit, which dshgen
conformance holds every language to). Python's own limits are lower: the
recursion limit (1000 by default) bounds ``json.loads`` (about 990 levels),
``json.dumps`` and the generated decoders of recursive types (about two
frames per level), and Python 3.12 caps the json module's C recursion near
1500 levels whatever the limit. So the driver runs in a thread with a large
stack and a raised recursion limit, and when the json module still raises
RecursionError it parses or writes that frame with the iterative reader and
writer below (same results as json.loads / json.dumps(ensure_ascii=True)).
Output is ASCII (``ensure_ascii``): a lone surrogate such as ``"\\ud800"``
is written back as that escape, so the comparison sees exactly what the
bindings kept. Integers of any length are read (Python 3.11 limits int
conversion to 4300 digits by default; the limit is lifted here).

Usage: PYTHONPATH=<out>/python python3 driver.py [--package dshproto]
"""

from __future__ import annotations

import argparse
import importlib
import json
import json.decoder
import json.encoder
import re
import sys
import threading
from typing import Any

MAX_DEPTH = 10000
"""Deepest nesting of a frame (objects and arrays, the frame itself is 1)."""

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def loads_iterative(text: str) -> Any:
    """json.loads without recursion (strict RFC 8259: no NaN or Infinity)."""
    stack: list[tuple[Any, str | None]] = []  # (container, pending member name)
    i = _WS.match(text, 0).end()  # type: ignore[union-attr]
    while True:
        if i >= len(text):
            raise ValueError(f"unexpected end of JSON input at offset {i}")
        c = text[i]
        value: Any
        if c == "{" or c == "[":
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
            if c == "[":
                if text.startswith("]", i):
                    value, i = [], i + 1
                else:
                    stack.append(([], None))
                    continue
            elif text.startswith("}", i):
                value, i = {}, i + 1
            else:
                key, i = _member_name(text, i)
                stack.append(({}, key))
                continue
        elif c == '"':
            value, i = json.decoder.scanstring(text, i + 1)
        elif text.startswith("true", i):
            value, i = True, i + 4
        elif text.startswith("false", i):
            value, i = False, i + 5
        elif text.startswith("null", i):
            value, i = None, i + 4
        else:
            m = _NUMBER.match(text, i)
            if m is None or m.end() == i:
                raise ValueError(f"expecting a JSON value at offset {i}")
            intpart, frac, exp = m.groups()
            value = float(intpart + (frac or "") + (exp or "")) if frac or exp else int(intpart)
            i = m.end()
        while True:
            if not stack:
                i = _WS.match(text, i).end()  # type: ignore[union-attr]
                if i != len(text):
                    raise ValueError(f"extra data at offset {i}")
                return value
            container, key = stack[-1]
            if key is None:
                container.append(value)
            else:
                container[key] = value
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            c = text[i : i + 1]
            if c == ",":
                i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
                if key is not None:
                    key, i = _member_name(text, i)
                    stack[-1] = (container, key)
                break
            if c != ("]" if key is None else "}"):
                raise ValueError(f"expecting ',' or a closing bracket at offset {i}")
            i += 1
            stack.pop()
            value = container


def _member_name(text: str, i: int) -> tuple[str, int]:
    if not text.startswith('"', i):
        raise ValueError(f"expecting a member name at offset {i}")
    key, i = json.decoder.scanstring(text, i + 1)
    i = _WS.match(text, i).end()  # type: ignore[union-attr]
    if not text.startswith(":", i):
        raise ValueError(f"expecting ':' at offset {i}")
    return key, _WS.match(text, i + 1).end()  # type: ignore[union-attr]


def _scalar(x: Any) -> str:
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if type(x) is int:
        return int.__repr__(x)
    if type(x) is float:
        if x != x or x in (float("inf"), float("-inf")):
            raise ValueError(f"out of range float value {x!r}")
        return float.__repr__(x)
    if type(x) is str:
        return json.encoder.encode_basestring_ascii(x)
    raise TypeError(f"Object of type {type(x).__name__} is not JSON serializable")


def dumps_iterative(x: Any) -> str:
    """json.dumps(x, ensure_ascii=True, separators=(",", ":")) without recursion."""
    out: list[str] = []
    # Each entry: an iterator over a container's items and whether it is a dict.
    stack: list[tuple[Any, bool, bool]] = []  # (iterator, is_dict, first)
    value = x
    while True:
        if type(value) is dict:
            out.append("{")
            stack.append((iter(value.items()), True, True))
        elif type(value) is list:
            out.append("[")
            stack.append((iter(value), False, True))
        else:
            out.append(_scalar(value))
        while stack:
            it, is_dict, first = stack[-1]
            nxt = next(it, _END)
            if nxt is _END:
                out.append("}" if is_dict else "]")
                stack.pop()
                continue
            if not first:
                out.append(",")
            stack[-1] = (it, is_dict, False)
            if is_dict:
                k, value = nxt
                if type(k) is not str:
                    raise TypeError(f"keys must be str, not {type(k).__name__}")
                out.append(json.encoder.encode_basestring_ascii(k) + ":")
            else:
                value = nxt
            break
        else:
            return "".join(out)


_END = object()


def loads(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        return loads_iterative(text)


def dumps(x: Any) -> str:
    try:
        return json.dumps(x, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except RecursionError:
        return dumps_iterative(x)


def type_codec(pkg: Any, name: str) -> tuple[Any, Any]:
    """The decoder and encoder of the bindings' type named ``name``."""
    types = importlib.import_module(pkg.__name__ + ".types")
    cls = getattr(types, name, None)
    if isinstance(cls, type) and hasattr(cls, "from_json"):
        return cls.from_json, lambda v: v.to_json()
    dec, enc = getattr(types, "decode_" + name, None), getattr(types, "encode_" + name, None)
    if dec is None or enc is None:
        raise LookupError(f"the bindings have no type {name} that decodes")
    return dec, enc


def run(pkg: Any) -> int:
    out = sys.stdout
    out.write("dshgen-conformance-driver 1\n")
    out.flush()
    for raw in sys.stdin.buffer:
        head, sep, frame_bytes = raw.rstrip(b"\n").partition(b"\t")
        try:
            h = json.loads(head)
            seq = h["seq"]
            if not sep or type(seq) is not int:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            print(f"python driver: not a driver protocol line: {raw[:80]!r}", file=sys.stderr)
            return 1
        try:
            value = loads(frame_bytes.decode("utf-8"))
            if "type" in h:
                dec, enc = type_codec(pkg, h["type"])
                out.write(f"{seq}\t{dumps(enc(dec(value)))}\n")
                out.flush()
                continue
            if not isinstance(value, dict):
                raise ValueError("not a JSON object")
            method = h.get("method")
            frame = pkg.decode_frame(value, None if method is None else (lambda _id: method))
            result = f"{seq}\t{dumps(frame.to_json())}\n"
        except pkg.DecodeError as e:
            result = f"{seq}\t!error {_one_line(str(e))}\n"
        except Exception as e:  # anything else the bindings raise is a failure of this frame
            result = f"{seq}\t!error {type(e).__name__}: {_one_line(str(e))}\n"
        out.write(result)
        out.flush()
    return 0


def _one_line(s: str) -> str:
    return s.replace("\r", " ").replace("\n", " ")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", default="dshproto")
    args = ap.parse_args()
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    try:
        pkg = importlib.import_module(args.package)
    except Exception as e:
        print(f"python driver: cannot import the bindings package {args.package!r}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    # A generated decoder may use a few Python frames per level of a
    # recursive type: allow ten per level, on a stack big enough for them.
    sys.setrecursionlimit(10 * MAX_DEPTH + 1000)
    for size in (512 << 20, 64 << 20):
        try:
            threading.stack_size(size)
            break
        except (ValueError, RuntimeError):
            continue
    status: list[int] = [1]

    def target() -> None:
        status[0] = run(pkg)

    t = threading.Thread(target=target, name="driver")
    t.start()
    t.join()
    sys.stdout.flush()
    return status[0]


if __name__ == "__main__":
    sys.exit(main())

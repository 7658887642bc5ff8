"""Decode throughput of the generated Python bindings on session.event frames.

    python testdata/python/bench.py [--repeat 7] [--rounds 50] [--baseline DIR]

Needs pydantic v2 (check.sh's venv has it). Frames: every session.event
notification of ../shared/fixtures/real-captures (server-to-client). Each
measurement decodes all frames ``--rounds`` times; the median of
``--repeat`` runs is reported, in frames per second, single thread
(``--clock cpu`` counts this process's CPU time instead of the wall clock,
for a machine other work is loading).

Compared:

* ``json.loads`` alone: the floor every design pays.
* dshproto ``decode_frame`` on the parsed dict, and ``json.loads`` + it.
* pydantic v2 models of the same shapes, built here from the generated
  dataclasses (same members, aliases = wire names, closed objects
  ``extra="forbid"``, open ones ``extra="allow"``, tagged unions as
  discriminated unions on the tag, raw JSON members as ``Any``):
  ``model_validate`` on the parsed dict, and ``model_validate_json`` on the
  line (parse and validate in Rust).
* Encoding back: ``to_json()`` vs ``model_dump(by_alias=True, exclude_unset=True)``.
* With ``--baseline DIR`` (a directory holding another generated ``dshproto``,
  e.g. ``../main/out/python`` of an older checkout): that package's
  ``decode_frame`` too, imported side by side as ``dshproto_baseline`` and
  measured in the same runs, for a before/after ratio of one machine state.

Before timing, every frame is checked to decode and re-encode to the same
JSON value with both, so the two do the same work.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import importlib
import pathlib
import platform
import shutil
import statistics
import sys
import tempfile
import time
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

import pydantic

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "out" / "python"))

import dshproto  # noqa: E402
import dshproto.codec  # noqa: E402
import dshproto.types as T  # noqa: E402


def load_frames() -> list[str]:
    lines: list[str] = []
    for f in sorted((ROOT.parent / "shared" / "fixtures" / "real-captures").glob("*/server-to-client.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if '"method":"session.event"' in line:
                lines.append(line)
    return lines


# -- pydantic models of the same shapes --------------------------------------

_models: dict[str, type[pydantic.BaseModel]] = {}
_todo: list[type] = []


def _is_unknown(c: type) -> bool:
    return dataclasses.is_dataclass(c) and [f.name for f in dataclasses.fields(c)] == ["raw"]


def _tag_of(classes: list[type]) -> str | None:
    """The member every class pins to a Literal with a default, with distinct values (the tag)."""
    common: set[str] | None = None
    for c in classes:
        hints = typing.get_type_hints(c, vars(T))
        pinned = {
            f.name
            for f in dataclasses.fields(c)
            if f.default is not dataclasses.MISSING and typing.get_origin(hints[f.name]) is Literal
        }
        common = pinned if common is None else common & pinned
    for name in sorted(common or ()):
        values = [getattr(c, "__dataclass_fields__")[name].default for c in classes]
        if len(set(values)) == len(values):
            return name
    return None


def _ref(c: type) -> str:
    """The pydantic model of dataclass c, by name (built later, resolved on rebuild)."""
    name = "P" + c.__name__
    if name not in _models and c not in _todo:
        _todo.append(c)
    return name


def _conv(tp: Any) -> Any:
    if tp is dshproto.codec.JsonValue:
        return Any
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        if any(typing.get_origin(a) is list and typing.get_args(a) and isinstance(typing.get_args(a)[0], (str, typing.ForwardRef)) for a in args):
            return Any  # JsonValue | None
        keep = [a for a in args if a is not dshproto.codec.Absent and not (isinstance(a, type) and _is_unknown(a))]
        dcs = [a for a in keep if isinstance(a, type) and dataclasses.is_dataclass(a)]
        if len(dcs) > 1 and len(dcs) == len(keep):
            tag = _tag_of(dcs)
            refs = tuple(_ref(a) for a in dcs)
            if tag is not None:
                return Annotated[Union[refs], pydantic.Field(discriminator=tag)]  # type: ignore[valid-type]
            return Union[refs]  # type: ignore[valid-type]
        conv = tuple(_conv(a) for a in keep)
        return conv[0] if len(conv) == 1 else Union[conv]  # type: ignore[valid-type]
    if origin is list:
        return list[_conv(args[0])]  # type: ignore[misc]
    if origin is dict:
        return dict[str, _conv(args[1])]  # type: ignore[misc]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _ref(tp)
    return tp


def _build(c: type) -> None:
    closed = not any(f.name == "extra" for f in dataclasses.fields(c))
    cfg = pydantic.ConfigDict(extra="forbid" if closed else "allow", populate_by_name=True)
    hints = typing.get_type_hints(c, vars(T))
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(c):
        if f.name == "extra":
            continue
        wire = c.WIRE_NAMES[f.name]  # type: ignore[attr-defined]
        tp = _conv(hints[f.name])
        if f.default is dataclasses.MISSING:
            fields[f.name] = (tp, pydantic.Field(alias=wire))
        else:
            default = None if f.default is dshproto.ABSENT else f.default
            fields[f.name] = (Union[tp, None] if default is None else tp, pydantic.Field(default=default, alias=wire))
    _models["P" + c.__name__] = pydantic.create_model("P" + c.__name__, __config__=cfg, **fields)


def pydantic_frame_model() -> type[pydantic.BaseModel]:
    params = _ref(T.SessionEventNotification)
    while _todo:
        _build(_todo.pop())
    frame = pydantic.create_model(
        "PSessionEventFrame",
        __config__=pydantic.ConfigDict(extra="allow"),
        jsonrpc=(str, ...),
        method=(Literal["session.event"], ...),
        params=(params, ...),
    )
    for m in [*_models.values(), frame]:
        m.model_rebuild(_types_namespace=dict(_models))
    return frame


# -- timing -------------------------------------------------------------------


CLOCK: Callable[[], float] = time.perf_counter


def rate(fn: Callable[[], object], n: int, rounds: int) -> float:
    t = CLOCK()
    for _ in range(rounds):
        fn()
    return n * rounds / (CLOCK() - t)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--baseline", type=pathlib.Path, help="directory holding another generated dshproto package")
    ap.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: time this process's CPU time (time.process_time), for a machine other work is loading",
    )
    args = ap.parse_args()
    global CLOCK
    if args.clock == "cpu":
        CLOCK = time.process_time
    lines = load_frames()
    dicts = [json.loads(x) for x in lines]
    n = len(lines)
    P = pydantic_frame_model()

    # Same work: both accept every frame and give it back unchanged.
    for line, d in zip(lines, dicts):
        assert dshproto.decode_frame(d).to_json() == d
        assert P.model_validate(d).model_dump(by_alias=True, exclude_unset=True) == d, line[:200]
        assert P.model_validate_json(line).model_dump(by_alias=True, exclude_unset=True) == d

    decode_frame = dshproto.decode_frame
    loads = json.loads
    mv, mvj = P.model_validate, P.model_validate_json
    ours = [decode_frame(d) for d in dicts]
    theirs = [mv(d) for d in dicts]

    baseline: Callable[[object], object] | None = None
    if args.baseline is not None:
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="dshgen-bench-"))
        shutil.copytree(args.baseline / "dshproto", tmp / "dshproto_baseline", ignore=shutil.ignore_patterns("__pycache__"))
        sys.path.insert(0, str(tmp))
        baseline = importlib.import_module("dshproto_baseline").decode_frame
        for d in dicts:
            assert baseline(d).to_json() == d  # type: ignore[attr-defined]

    cases: dict[str, Callable[[], object]] = {
        "json.loads alone (the floor)": lambda: [loads(x) for x in lines],
        "dshproto decode_frame(dict)": lambda: [decode_frame(d) for d in dicts],
        "json.loads + dshproto decode_frame": lambda: [decode_frame(loads(x)) for x in lines],
        "pydantic model_validate(dict)": lambda: [mv(d) for d in dicts],
        "json.loads + pydantic model_validate": lambda: [mv(loads(x)) for x in lines],
        "pydantic model_validate_json(line)": lambda: [mvj(x) for x in lines],
        "dshproto to_json()": lambda: [f.to_json() for f in ours],
        "pydantic model_dump(by_alias, exclude_unset)": lambda: [
            m.model_dump(by_alias=True, exclude_unset=True) for m in theirs
        ],
    }
    if baseline is not None:
        base = baseline
        cases["baseline decode_frame(dict)"] = lambda: [base(d) for d in dicts]
    # Interleaved: each run measures every case once, so load from other
    # processes hits all of them alike; ratios are taken per run.
    runs: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.repeat):
        for k, fn in cases.items():
            runs[k].append(rate(fn, n, args.rounds))
    results = {k: statistics.median(v) for k, v in runs.items()}
    ratio = statistics.median(
        a / b for a, b in zip(runs["dshproto decode_frame(dict)"], runs["pydantic model_validate(dict)"])
    )
    e2e = statistics.median(
        a / b for a, b in zip(runs["json.loads + dshproto decode_frame"], runs["pydantic model_validate_json(line)"])
    )
    print(
        f"{n} session.event frames ({sum(map(len, lines))} bytes), median of {args.repeat} runs x {args.rounds} rounds,"
        f" {args.clock} clock"
    )
    print(f"Python {platform.python_version()}, pydantic {pydantic.VERSION}, {platform.machine()}")
    print()
    print("| measurement | frames/s |")
    print("|---|---:|")
    for k, v in results.items():
        print(f"| {k} | {v:,.0f} |")
    print()
    print(f"decode speed dshproto / pydantic model_validate (median per run): {ratio:.2f}x (target: >= 0.33x, within 3x)")
    print(f"end to end json.loads+decode_frame / model_validate_json (median per run): {e2e:.2f}x")
    if baseline is not None:
        vs = statistics.median(
            a / b for a, b in zip(runs["dshproto decode_frame(dict)"], runs["baseline decode_frame(dict)"])
        )
        print(f"decode speed dshproto / baseline {args.baseline} (median per run): {vs:.2f}x")
        # The two decoders alternate one pass over the frames at a time, many
        # times; the fastest pass of each is the one least disturbed by other
        # work (as timeit takes the minimum).
        ours_fn, base_fn = cases["dshproto decode_frame(dict)"], cases["baseline decode_frame(dict)"]
        best = {"ours": float("inf"), "base": float("inf")}
        for _ in range(args.repeat * args.rounds * 2):
            for k, fn in (("ours", ours_fn), ("base", base_fn)):
                t = CLOCK()
                fn()
                best[k] = min(best[k], CLOCK() - t)
        print(
            f"fastest pass: dshproto {n / best['ours']:,.0f} frames/s, baseline {n / best['base']:,.0f} frames/s,"
            f" dshproto / baseline {best['base'] / best['ours']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

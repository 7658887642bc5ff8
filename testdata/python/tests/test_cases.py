"""The cases from public bug reports (testdata/cases, copied from
../shared/cases), decoded with the bindings generated from each case schema
(package caseNN, the golden files under testdata/golden).

Where an expectation of a CASE.md is met differently, the test says how.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import sys
from collections.abc import Iterator
import json
import pathlib
from typing import Any

import pytest
from conftest import CASES


@contextlib.contextmanager
def deep_stack() -> Iterator[None]:
    """For the test harness only (json.loads and == recurse on deep values);
    the bindings decode at the default limit."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(20000)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def case(n: str) -> Any:
    return importlib.import_module("case" + n)


def lines(name: str, file: str = "values.jsonl") -> list[Any]:
    d = next(CASES.glob(name + "-*"))
    with (d / file).open(encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def err(fn: Any, value: Any) -> Any:
    with pytest.raises(Exception) as ei:
        fn(value)
    assert type(ei.value).__name__ == "DecodeError", repr(ei.value)
    assert isinstance(ei.value, ValueError)
    return ei.value


# -- 01: const-tagged oneOf -------------------------------------------------


def test_01_tagged_union() -> None:
    c = case("01")
    v = lines("01")
    d = c.Drawing.from_json(v[0])
    assert [type(s).__name__ for s in d.shapes] == ["Circle", "Square", "ShapeLineSegment"]
    assert d.to_json() == v[0]
    assert c.Drawing.from_json(v[1]).to_json() == {"shapes": []}
    e = err(c.Drawing.from_json, v[2])  # known tag, wrong body: not the unknown variant
    assert e.pointer == "/shapes/0/side" and "missing" in str(e)
    u = c.Drawing.from_json(v[3])
    assert isinstance(u.shapes[0], c.ShapeUnknown) and u.shapes[0].tag == "hexagon"
    assert u.to_json() == {"shapes": [{"kind": "hexagon", "sides": 6}]}
    e = err(c.Drawing.from_json, v[4])
    assert str(e) == '/shapes/0/kind: missing tag member "kind" of Shape'
    # The tag is written without the caller setting it; annotations are the const.
    assert c.Square(side=2).to_json() == {"kind": "square", "side": 2}
    hints = {n: inspect.get_annotations(getattr(c, n))["kind"] for n in ("Circle", "Square", "ShapeLineSegment")}
    assert hints == {"Circle": "Literal['circle']", "Square": "Literal['square']", "ShapeLineSegment": "Literal['line-segment']"}
    assert set(c.Shape.__args__) == {c.Circle, c.Square, c.ShapeLineSegment}


# -- 02: untagged oneOf of closed objects -----------------------------------


def test_02_union_by_shape() -> None:
    c = case("02")
    v = lines("02")
    r = c.IndexRequest.from_json(v[0])
    assert [type(s).__name__ for s in r.selectors] == ["PathSelector", "GlobSelector", "PathSelector"]
    assert r.to_json() == v[0]
    e = err(c.IndexRequest.from_json, v[1])
    assert e.pointer == "/selectors/0"
    assert 'PathSelector: /glob: unknown member "glob"' in e.reason
    assert 'GlobSelector: /path: unknown member "path"' in e.reason
    for bad in v[2:]:
        assert err(c.IndexRequest.from_json, bad).pointer == "/selectors/0"
    fields = {n: [f.name for f in getattr(c, n).__dataclass_fields__.values()] for n in ("PathSelector", "GlobSelector")}
    assert "glob" not in fields["PathSelector"] and "path" not in fields["GlobSelector"]
    with pytest.raises(TypeError):
        c.PathSelector()  # path is a required constructor argument


# -- 04: titled branches ----------------------------------------------------


def test_04_titled_branches() -> None:
    c = case("04")
    v = lines("04")
    assert type(c.decode_SearchResult(v[0])).__name__ == "SearchHits"
    assert type(c.decode_SearchResult(v[1])).__name__ == "SearchFailure"
    assert err(c.decode_SearchResult, v[2]).pointer == ""
    assert not [n for n in dir(c) if n.startswith(("SearchResult1", "SearchResult2"))]


# -- 06: reserved words -----------------------------------------------------


def test_06_reserved_words() -> None:
    c = case("06")
    v = lines("06")
    env = c.Envelope.from_json(v[1])
    assert env.class_ == "c" and env.from_ == "f" and env.import_ == "i" and env.async_ is True
    assert env.to_json() == v[1]  # all 19 wire names, __proto__ included
    assert c.Envelope.from_json(v[0]).to_json() == v[0]
    e = err(c.Envelope.from_json, v[2])
    assert str(e) == '/class: missing required member "class"'
    assert "class_" not in str(e)
    assert c.Envelope.WIRE_NAMES["class_"] == "class"
    assert c.decode_Keyword("None") == "None"
    # The openness rule: a value outside the enum is kept (a newer peer's), not an error.
    assert c.decode_Keyword("brand-new") == "brand-new"
    assert c.encode_Keyword("brand-new") == "brand-new"


# -- 07: descriptions -------------------------------------------------------


def test_07_docstrings_survive() -> None:
    c = case("07")
    schema = json.loads((next(CASES.glob("07-*")) / "schema.json").read_text(encoding="utf-8"))
    desc = schema["$defs"]["GlobRule"]["description"]

    def norm(s: str) -> str:
        # Docstrings are filled to 88 columns: compare the words, not the breaks.
        return " ".join(s.split())

    # The docstring is the description, then the schema pointer and the wire
    # shape (our choice: docstrings give the source and the shape), so the
    # description is its first paragraph(s), every word kept.
    doc = inspect.getdoc(c.GlobRule)
    assert doc is not None and norm(doc).startswith(norm(desc))
    # Attribute docstrings: the property description, then its presence.
    tree = ast.parse(inspect.getsource(c.types))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GlobRule")
    docs: dict[str, str] = {}
    for a, b in zip(cls.body, cls.body[1:]):
        if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) and isinstance(b, ast.Expr):
            assert isinstance(b.value, ast.Constant) and isinstance(b.value.value, str)
            docs[a.target.id] = inspect.cleandoc(b.value.value)
    for prop, attr in (("pattern", "pattern"), ("quote", "quote"), ("lineEnds", "line_ends")):
        text = norm(schema["$defs"]["GlobRule"]["properties"][prop]["description"])
        assert norm(docs[attr]).startswith(text), (prop, docs[attr], text)
    assert c.GlobRule.from_json(lines("07")[0]).to_json() == lines("07")[0]


# -- 09: null versus absent ---------------------------------------------------


def test_09_null_vs_absent() -> None:
    c = case("09")
    v = lines("09")
    p = c.Profile.from_json(v[0])
    assert p.avatar_url is None and p.nickname is c.ABSENT
    assert p.to_json() == {"name": "user-1", "avatarUrl": None}
    p2 = c.Profile.from_json(v[1])
    assert p2.nickname is None and "nickname" in p2.to_json() and p2.to_json()["nickname"] is None
    p3 = c.Profile.from_json(v[2])
    assert p3.nickname is c.ABSENT and "nickname" not in p3.to_json()
    assert c.Profile.from_json(v[3]).to_json() == v[3]
    assert str(err(c.Profile.from_json, v[4])) == "/name: expected str, got None"
    assert str(err(c.Profile.from_json, v[5])) == "/tags: expected list, got None"
    assert str(err(c.Profile.from_json, v[6])) == "/tags/0: expected str, got None"
    assert str(err(c.Profile.from_json, v[7])) == '/avatarUrl: missing required member "avatarUrl"'
    assert str(err(c.Profile.from_json, v[8])) == "(root): expected dict, got None"
    assert c.Profile.from_json(v[9]).to_json() == v[9]  # minItems is the validator's
    # Constructed values: a required nullable member is always written.
    assert c.Profile(name="n", avatar_url=None).to_json() == {"name": "n", "avatarUrl": None}


# -- 11: additionalProperties ---------------------------------------------------


def test_11_additional_properties() -> None:
    c = case("11")
    v = lines("11")
    r = c.Record.from_json(v[0])
    assert r.labels.extra == {"team": "core", "tier": "gold"}
    assert r.to_json() == v[0]
    assert str(err(c.Record.from_json, v[1])) == "/labels/team: expected str, got int"
    assert c.Record.from_json(v[2]).to_json() == v[2]
    assert str(err(c.Record.from_json, v[3])) == '/at/z: unknown member "z" (Point is a closed object)'
    r5 = c.Record.from_json(v[4])
    assert r5.meta.extra["x-trace"] == "abc123" and r5.to_json() == v[4]
    assert str(err(c.Record.from_json, v[5])) == "/labels/priority: expected int, got str"


# -- 13: recursion ------------------------------------------------------------


def test_13_recursion() -> None:
    c = case("13")
    d = next(CASES.glob("13-*"))
    v = lines("13")
    assert c.TreeNode.from_json(v[0]).to_json() == v[0]
    assert str(err(c.TreeNode.from_json, v[1])) == '/children/0/name: missing required member "name"'
    assert str(err(c.TreeNode.from_json, v[2])) == '/children/0/extra: unknown member "extra" (TreeNode is a closed object)'
    with deep_stack():
        deep = json.loads((d / "deep-tree.json").read_text())
        deepv = json.loads((d / "deep-json-value.json").read_text())
    assert sys.getrecursionlimit() == 1000
    t = c.TreeNode.from_json(deep)  # 500 levels at the default limit: no RecursionError
    enc = t.to_json()
    with deep_stack():
        assert enc == deep
    assert c.decode_JsonValue(deepv) is deepv  # 1000 levels, checked without recursion
    bad = deepv
    while isinstance(bad, list):
        if not isinstance(bad[0], list):
            bad[0] = float("nan")
            break
        bad = bad[0]
    e = err(c.decode_JsonValue, deepv)
    assert e.pointer == "/0" * 1000 and "finite" in e.reason
    # Far beyond the recursion limit: one DecodeError, never RecursionError.
    node: dict[str, Any] = {"name": "leaf"}
    for i in range(5000):
        node = {"name": f"n{i}", "children": [node]}
    e = err(c.TreeNode.from_json, node)
    assert "nested too deeply" in str(e)


# -- 18: errors inside nested tagged unions --------------------------------------


def test_18_one_precise_error() -> None:
    c = case("18")
    frames = lines("18", "frames.jsonl")
    expected = {
        1: "/params/event/data/turn: expected int, got str",
        2: '/params/event/data/chunk/text: missing required member "text"',
        4: '/params/event/type: missing tag member "type" of SessionEvent',
        5: '/params/event/data/reason/reason: missing required member "reason"',
    }
    for i, f in enumerate(frames):
        if i in expected:
            assert str(err(c.decode_frame, f)) == expected[i]
            continue
        frame = c.decode_frame(f)
        assert frame.to_json() == f
        ev = frame.params.event
        if i == 3:  # an unknown event type is kept, not an error
            assert isinstance(ev, c.SessionEventUnknown) and ev.tag == "bogus/event"
        if i == 6:  # "timeout" is outside the closed enum: accepted (forward compatibility)
            assert ev.data.reason.reason.kind == "timeout"


def test_try_keywords() -> None:
    """A union by ordered tries (Large, then Small: more declared members
    first) decoded with the bindings' decoders: JSON types, required
    members, consts and closed objects are checked, minimum/maximum/pattern
    are not (gen/ir/README.md "Unions"), so values the schema gives to Small
    decode as Large unless a member's type rules Large out."""
    c = case("try")
    vals = lines("try")
    for v, want in zip(vals[:4], [c.Large, c.Large, c.Large, c.Small]):
        got = c.decode_Reading(v)
        assert type(got) is want, (v, type(got))
        assert c.encode_Reading(got) == v
    for v in vals[4:]:
        assert "Reading" in str(err(c.decode_Reading, v))


def test_cases_listed() -> None:
    names = sorted(p.name for p in CASES.iterdir() if p.is_dir())
    nums = [n.split("-")[0] for n in names]
    assert nums == ["01", "02", "04", "05", "06", "07", "09", "11", "13", "14", "15", "18", "params", "sdk", "try", "ts"]
    assert all((CASES / n / "CASE.md").exists() for n in names)
    # every case whose schema loads has its bindings (05 is a name collision the loader reports)
    for n in nums:
        if n != "05":
            assert importlib.import_module("case" + n).__name__ == "case" + n

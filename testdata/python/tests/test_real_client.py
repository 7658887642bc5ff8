"""The published Python SDK (PyPI deepseek-harness-sdk) against our bindings.

check.sh downloads the pinned wheel (``pip download --no-deps``) and unpacks
it into DSHGEN_REAL_CLIENT; without it these tests are skipped. Findings are
written up in testdata/python/REAL-CLIENT.md.

1. Static: every wire name the client's code reads or writes (``.get("x")``,
   ``x["k"]``, JSON object literals it sends, its pydantic response models'
   fields, the methods it requests, the values it compares tags and statuses
   with) exists in our schema with the same spelling, except the gaps listed
   in GAPS (each one explained in REAL-CLIENT.md).
2. Dynamic: the client's own turn helpers (``final_response``,
   ``finish_reason``) and response models give the same answers on events and
   results that went through our decode and encode as on the raw frames.
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import sys
from typing import Any

import dshproto
import pytest
from conftest import FIXTURES, ROOT

REAL = os.environ.get("DSHGEN_REAL_CLIENT")
pytestmark = pytest.mark.skipif(not REAL, reason="DSHGEN_REAL_CLIENT not set (check.sh downloads the wheel)")

SCHEMA = json.loads((ROOT / "schema" / "0.0.1" / "dsh-sdk-protocol.schema.json").read_text(encoding="utf-8"))

# Wire names and methods the published client (0.2.1rc2) uses that the
# schema (which follows the 0.0.1-rc.x TypeScript protocol and the captured
# runtime) does not declare. REAL-CLIENT.md explains each.
GAPS = {
    "reasoningEffort",  # initialize params: sent by the client, not declared (kept in InitializeParams.extra)
    "path",  # session/working-directory/set params
    "session/resume",
    "session/working-directory/get",
    "session/working-directory/set",
}
ENVELOPE = {"jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data"}


def _walk_schema(node: Any, names: set[str], values: set[str]) -> None:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            props = n.get("properties")
            if isinstance(props, dict):
                names.update(props)
            for k in ("const",):
                if isinstance(n.get(k), str):
                    values.add(n[k])
            if isinstance(n.get("enum"), list):
                values.update(x for x in n["enum"] if isinstance(x, str))
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)


WIRE: set[str] = set()
VALUES: set[str] = set()
_walk_schema(SCHEMA, WIRE, VALUES)
METHODS = set(SCHEMA["x-methods"])


def _sources() -> dict[str, ast.Module]:
    base = pathlib.Path(REAL or ".") / "deepseek_harness"
    # office.py drives a local Office runtime, not the JSON-RPC protocol.
    return {p.name: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(base.glob("*.py")) if p.name != "office.py"}


def _collect() -> dict[str, set[str]]:
    got: dict[str, set[str]] = {"read": set(), "sent": set(), "model": set(), "request": set(), "compared": set()}
    for tree in _sources().values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                args = node.args
                if node.func.attr == "get" and args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
                    if not args[0].value.isupper():
                        got["read"].add(args[0].value)
                if node.func.attr in ("request", "_request_raw") and args and isinstance(args[0], ast.Constant):
                    got["request"].add(str(args[0].value))
                    if len(args) > 1 and isinstance(args[1], ast.Dict):
                        got["sent"].update(k.value for k in args[1].keys if isinstance(k, ast.Constant))
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                if not node.slice.value.isupper() and not (isinstance(node.value, ast.Name) and node.value.id in ("dict", "list", "Literal")):
                    got["read"].add(node.slice.value)
            if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Dict):
                if isinstance(node.annotation, ast.Name) and node.annotation.id == "JsonObject":
                    got["sent"].update(k.value for k in node.value.keys if isinstance(k, ast.Constant))
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
                sl = node.targets[0].slice
                if isinstance(sl, ast.Constant) and isinstance(sl.value, str) and not sl.value.isupper():
                    got["sent"].add(sl.value)
            if isinstance(node, ast.Compare) and len(node.comparators) == 1:
                c = node.comparators[0]
                left = node.left
                is_wire = (isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) and left.func.attr == "get") or (
                    isinstance(left, ast.Attribute) and left.attr == "method"
                )
                if is_wire and isinstance(c, ast.Constant) and isinstance(c.value, str):
                    got["compared"].add(c.value)
                if is_wire and isinstance(c, ast.Set):
                    got["compared"].update(e.value for e in c.elts if isinstance(e, ast.Constant))
            if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "BaseModel" for b in node.bases):
                got["model"].update(s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name))
    return got


def test_wire_names_exist_in_ours() -> None:
    got = _collect()
    assert {"sessionId", "event", "inserted", "kind", "childSessionId"} <= got["read"], got["read"]
    assert {"cwd", "provider", "model", "maxTokens", "contentBlocks"} <= got["sent"], got["sent"]
    missing = {k: sorted(v - WIRE - ENVELOPE - GAPS) for k, v in got.items() if k in ("read", "sent", "model")}
    assert missing == {"read": [], "sent": [], "model": []}
    assert sorted(got["request"] - METHODS - GAPS) == []
    assert sorted(got["compared"] - VALUES - METHODS) == []
    # Every gap is real where the client uses it (the list stays honest when
    # the schema grows): the names exist elsewhere in the schema, but not on
    # the types the client sends them in.
    used = set().union(*got.values())
    assert GAPS <= used
    assert "reasoningEffort" not in dshproto.InitializeParams.WIRE_NAMES.values()
    assert {"session/resume", "session/working-directory/get", "session/working-directory/set"}.isdisjoint(METHODS)


def _events() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for f in sorted((FIXTURES / "real-captures").glob("*/server-to-client.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            v = json.loads(line)
            if v.get("method") == "session.event":
                out.append(v)
    return out


def test_client_helpers_agree_on_our_round_trip() -> None:
    sys.path.insert(0, str(REAL))
    try:
        from deepseek_harness import api, models  # type: ignore[import-not-found]
        from deepseek_harness.client import _SessionPromptResponse  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    raw_by_session: dict[str, list[Any]] = {}
    ours_by_session: dict[str, list[Any]] = {}
    for v in _events():
        frame = dshproto.decode_frame(v)
        assert isinstance(frame, dshproto.NotificationFrame) and isinstance(frame.params, dshproto.SessionEventNotification)
        sid = frame.params.session_id
        raw_by_session.setdefault(sid, []).append(v["params"]["event"])
        ours_by_session.setdefault(sid, []).append(frame.params.event.to_json())
    answers = 0
    for sid, raw in raw_by_session.items():
        ours = ours_by_session[sid]
        assert api.final_response(ours) == api.final_response(raw)
        assert api.finish_reason(ours) == api.finish_reason(raw)
        answers += api.final_response(raw) != ""
    assert answers >= 4
    init = dshproto.InitializeResult.from_json({"serverInfo": {"name": "deepseek-harness-sdk-runtime", "version": "0.0.1"}})
    assert models.InitializeResponse.model_validate(init.to_json()).serverInfo.name == "deepseek-harness-sdk-runtime"
    res = dshproto.SessionPromptResult.from_json({"messageId": "m-1"})
    assert _SessionPromptResponse.model_validate(res.to_json()).messageId == "m-1"

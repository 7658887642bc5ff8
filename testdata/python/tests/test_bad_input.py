"""Bad input: real frames from the captures, mutated one member at a time,
must fail with one DecodeError whose text is exactly the expected pointer
and reason (wire names, never attribute names; never a bare KeyError,
TypeError, AttributeError or RecursionError). Mutations the schema allows
(unknown tags, enum values outside the list, unknown members of open
objects, big integers) must decode and re-encode unchanged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import dshproto
import pytest
from conftest import FIXTURES
from dshproto import DecodeError, decode_frame


def _load() -> dict[str, Any]:
    """First frame of each session.event type (and other methods) in the captures."""
    out: dict[str, Any] = {}
    for f in sorted((FIXTURES / "real-captures").glob("*/*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                v = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(v, dict) or "method" not in v:
                continue
            key = v["method"]
            if key == "session.event":
                key = v["params"]["event"]["type"]
            out.setdefault(key, v)
    return out


BASE = _load()


def frame(kind: str) -> Any:
    return copy.deepcopy(BASE[kind])


def mut(kind: str, fn: Callable[[Any], None]) -> Any:
    f = frame(kind)
    fn(f)
    return f


def ev(f: Any) -> Any:
    return f["params"]["event"]


def setp(path: str, value: Any) -> Callable[[Any], None]:
    """Set (or with value DEL, delete) the member at a slash path."""

    def apply(f: Any) -> None:
        parts = path.strip("/").split("/")
        x = f
        for p in parts[:-1]:
            x = x[int(p)] if isinstance(x, list) else x[p]
        last = parts[-1]
        if value is DEL:
            del x[last]
        elif isinstance(x, list):
            x[int(last)] = value
        else:
            x[last] = value

    return apply


DEL = object()

BAD = [
    ("turn/end", setp("params/event/data/turn", "1"), "/params/event/data/turn: expected int, got str"),
    ("turn/start", setp("params/event/seq", True), "/params/event/seq: expected int, got bool"),
    ("turn/start", setp("params/event/seq", 1.5), "/params/event/seq: expected int, got float 1.5"),
    ("turn/start", setp("params/event/type", DEL), '/params/event/type: missing tag member "type" of SessionEvent'),
    ("turn/start", setp("params/event/type", 5), "/params/event/type: expected str (the tag of SessionEvent), got int"),
    ("turn/start", setp("params/event/data", DEL), '/params/event/data: missing required member "data"'),
    ("turn/start", setp("params/event/data", None), "/params/event/data: expected dict, got None"),
    ("turn/start", setp("params/event/bogus", 1), '/params/event/bogus: unknown member "bogus" (TurnStartEvent is a closed object)'),
    ("turn/start", lambda f: ev(f).__setitem__("a~b/c", 1), '/params/event/a~0b~1c: unknown member "a~b/c" (TurnStartEvent is a closed object)'),
    ("turn/start", setp("params/event/ignorable", False), "/params/event/ignorable: expected true, got false"),
    ("turn/end", setp("params/event/data/reason/kind", "aborted"), '/params/event/data/reason/reason: missing required member "reason"'),
    ("turn/end", setp("params/event/data/reason", []), "/params/event/data/reason: expected dict, got list"),
    ("assistant/message", setp("params/event/data/message/content/1/id", DEL), '/params/event/data/message/content/1/id: missing required member "id"'),
    ("assistant/message", setp("params/event/data/message/content", {}), "/params/event/data/message/content: expected list, got dict"),
    ("assistant/message", setp("params/event/data/usage", None), "/params/event/data/usage: expected dict, got None"),
    ("assistant/message", setp("params/event/data/usage/inputTokens", float("nan")), "/params/event/data/usage/inputTokens: expected a finite number, got nan"),
    ("assistant/message", setp("params/event/data/usage/inputTokens", "20"), "/params/event/data/usage/inputTokens: expected float or int, got str"),
    ("assistant/message", setp("params/event/sourceEventSeqs", "x"), "/params/event/sourceEventSeqs: expected list, got str"),
    ("assistant/message", setp("params/event/sourceEventSeqs/1", "9"), "/params/event/sourceEventSeqs/1: expected int, got str"),
    ("assistant/message", setp("params/event/surfaceOp", 3), "/params/event/surfaceOp: expected str or dict, got int"),
    ("assistant/message", setp("params/event/surfaceOp", {"op": "replace", "start": 0}), '/params/event/surfaceOp/end: missing required member "end"'),
    ("assistant/message", setp("params/event/data/message/source/kind", "tool"), '/params/event/data/message/source/kind: expected "model", got "tool"'),
    ("tool/result", setp("params/event/data/message/content/0/content/0/text", None), "/params/event/data/message/content/0/content/0/text: expected str, got None"),
    ("assistant/chunk", setp("params/event/data/chunk/type", "nope"), "/params/event/data/chunk: unknown"),
    ("turn/start", setp("params", DEL), '/params: missing required member "params"'),
    ("turn/start", setp("params", [1]), "/params: expected dict, got list"),
    ("turn/start", setp("method", 1), "/method: expected str, got int"),
    ("turn/start", setp("jsonrpc", 2), "/jsonrpc: expected str, got int"),
    ("session.status", setp("params/sessionId", DEL), '/params/sessionId: missing required member "sessionId"'),
    ("initialize", setp("id", 1.0), "/id: expected str or int, got float"),
    ("initialize", setp("params/maxTokens", "10"), "/params/maxTokens: expected int, got str"),
    ("initialize", setp("params/cwd", DEL), '/params/cwd: missing required member "cwd"'),
]


@pytest.mark.parametrize(("kind", "fn", "want"), BAD, ids=[f"{i:02d}-{b[0]}" for i, b in enumerate(BAD)])
def test_bad_frame(kind: str, fn: Callable[[Any], None], want: str) -> None:
    f = mut(kind, fn)
    try:
        decode_frame(f)
    except DecodeError as e:
        if want.endswith(": unknown"):
            # A closed tagged union (StreamChunk) keeps an unknown tag as the
            # unknown variant too: not an error, see test_allowed.
            pytest.fail(f"unexpected error {e}")
        assert str(e) == want
        assert e.pointer == want.split(":", 1)[0].replace("(root)", "")
        return
    if want.endswith(": unknown"):
        return
    pytest.fail(f"no DecodeError, want {want}")


def test_not_frames() -> None:
    cases: list[tuple[Any, str]] = [
        ([], "(root): expected dict, got list"),
        (None, "(root): expected dict, got None"),
        ({}, '(root): not a JSON-RPC frame: no "method" and no "id"'),
        ({"jsonrpc": "2.0", "id": "x"}, '(root): a response needs "result" or "error"'),
        ({"jsonrpc": "2.0", "id": "x", "error": {"code": "x", "message": "m"}}, "/error/code: expected int, got str"),
        ({"jsonrpc": "2.0", "id": "x", "error": {"message": "m"}}, '/error/code: missing required member "code"'),
        ({"jsonrpc": "2.0", "id": [], "result": {}}, "/id: expected str, int or None, got list"),
    ]
    for v, want in cases:
        with pytest.raises(DecodeError) as ei:
            decode_frame(v)
        assert str(ei.value) == want


def test_allowed() -> None:
    """What the schema (or the forward-compatibility policy) allows decodes and re-encodes unchanged."""
    # An unknown event type: the unknown variant, raw JSON kept.
    f = mut("turn/start", setp("params/event/type", "plugin/custom"))
    ev(f)["data"] = {"anything": [1, {"x": None}]}
    fr = decode_frame(f)
    assert isinstance(fr, dshproto.NotificationFrame)
    assert isinstance(fr.params, dshproto.SessionEventNotification)
    assert isinstance(fr.params.event, dshproto.UnknownSessionEvent)
    assert fr.params.event.tag == "plugin/custom"
    assert fr.to_json() == f
    # An unknown tag in a closed union (StreamChunk) and in a nested open one.
    f = mut("assistant/chunk", setp("params/event/data/chunk/type", "nope"))
    fr = decode_frame(f)
    assert type(fr.params.event.data.chunk).__name__ == "StreamChunkUnknown"  # type: ignore[union-attr]
    assert fr.to_json() == f
    f = mut("turn/end", setp("params/event/data/reason", {"kind": "future", "why": 1}))
    assert isinstance(decode_frame(f).params.event.data.reason, dshproto.UnknownTurnEndReason)  # type: ignore[union-attr]
    assert decode_frame(f).to_json() == f
    # An enum value outside the list.
    f = mut("session.status", setp("params/status", "paused"))
    fr = decode_frame(f)
    assert fr.params.status == "paused" and fr.to_json() == f  # type: ignore[union-attr]
    # Big integers stay exact; an integral float is an int.
    f = mut("turn/start", setp("params/event/seq", 2**70 + 1))
    assert decode_frame(f).params.event.seq == 2**70 + 1  # type: ignore[union-attr]
    assert decode_frame(f).to_json() == f
    f = mut("turn/start", setp("params/event/seq", 3.0))
    seq = decode_frame(f).params.event.seq  # type: ignore[union-attr]
    assert seq == 3 and type(seq) is int
    # Unknown members of open objects are kept (params, message source).
    f = mut("user/message", setp("params/x-extra", {"k": [1]}))
    ev(f)["data"]["source"]["clientTimeZone"] = "UTC"
    ev(f)["data"]["source"]["x-host"] = True
    fr = decode_frame(f)
    assert fr.params.extra == {"x-extra": {"k": [1]}}  # type: ignore[union-attr]
    assert fr.to_json() == f
    # A number member keeps int/float as parsed.
    f = mut("assistant/message", setp("params/event/data/usage/inputTokens", 20.5))
    assert decode_frame(f).to_json() == f


def test_unknown_method_and_helpers() -> None:
    f = {"jsonrpc": "2.0", "id": 7, "method": "no/such", "params": {"a": [1]}}
    fr = decode_frame(f)
    assert isinstance(fr, dshproto.RequestFrame) and fr.params == {"a": [1]} and fr.to_json() == f
    with pytest.raises(DecodeError) as ei:
        dshproto.decode_params("no/such", {})
    assert str(ei.value) == '(root): unknown method "no/such"'
    with pytest.raises(DecodeError):
        dshproto.decode_result(dshproto.SESSION_EVENT, {})
    r = decode_frame({"jsonrpc": "2.0", "id": 7, "result": {"x": 1}}, {7: "no/such"})
    assert isinstance(r, dshproto.ResultFrame) and r.result == {"x": 1} and r.method == "no/such"
    r = decode_frame({"jsonrpc": "2.0", "id": "a", "result": {"messageId": "m"}}, lambda i: dshproto.SESSION_PROMPT)
    assert isinstance(r.result, dshproto.SessionPromptResult) and r.result.message_id == "m"  # type: ignore[union-attr]
    with pytest.raises(DecodeError) as ei:
        decode_frame({"jsonrpc": "2.0", "id": "a", "result": {}}, {"a": dshproto.SESSION_PROMPT})
    assert str(ei.value) == '/result/messageId: missing required member "messageId"'


def test_deep_nesting_is_a_decode_error() -> None:
    """Content blocks nest (tool-result content); far past the recursion limit
    the decoder raises DecodeError, and the raw-JSON check never recurses."""
    block: Any = {"type": "text", "text": "x"}
    for _ in range(5000):
        block = {"type": "tool-result", "toolCallId": "c", "content": [block]}
    with pytest.raises(DecodeError) as ei:
        dshproto.decode_ContentBlock(block)
    assert "nested too deeply" in str(ei.value)
    deep: Any = "leaf"
    for _ in range(100000):
        deep = {"k": deep}
    f = mut("tool/result", setp("params/event/data/meta", deep))
    assert decode_frame(f).params.event.data.meta is deep  # type: ignore[union-attr]


def test_non_json_python_values() -> None:
    f = mut("tool/result", setp("params/event/data/meta", {"ok": [1, {2: "non-str key"}]}))
    with pytest.raises(DecodeError) as ei:
        decode_frame(f)
    assert str(ei.value) == "/params/event/data/meta/ok/1: member name must be str, got int"
    f = mut("tool/result", setp("params/event/data/meta", {"t": (1, 2)}))
    with pytest.raises(DecodeError) as ei:
        decode_frame(f)
    assert str(ei.value) == "/params/event/data/meta/t: expected a JSON value, got tuple"

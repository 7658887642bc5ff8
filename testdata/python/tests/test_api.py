"""The generated package's API: the method catalogue against the schema,
constructed values, encoding, frame pairing, and the package metadata."""

from __future__ import annotations

import dataclasses
import json

import dshproto
import pytest
from conftest import ROOT
from dshproto import ABSENT, DecodeError, FrameDecoder

SCHEMA = json.loads((ROOT / "schema" / "0.0.1" / "dsh-sdk-protocol.schema.json").read_text(encoding="utf-8"))


def test_method_catalogue_matches_schema() -> None:
    xm = SCHEMA["x-methods"]
    assert set(dshproto.METHODS) == set(xm)
    for name, entry in xm.items():
        info = dshproto.METHODS[name]
        assert info.name == name and info.kind == entry["kind"] and info.direction == entry["direction"]
        assert info.params_optional == entry.get("paramsOptional", False)
        assert info.params is getattr(dshproto, entry["params"]["$ref"].rsplit("/", 1)[1])
        if entry["kind"] == "request":
            assert info.result is getattr(dshproto, entry["result"]["$ref"].rsplit("/", 1)[1])
            assert name in dshproto.REQUESTS and name not in dshproto.NOTIFICATIONS
        else:
            assert info.result is None and info.decode_result is None
            assert name in dshproto.NOTIFICATIONS and name not in dshproto.REQUESTS
    assert dshproto.SESSION_PROMPT == "session/prompt" and dshproto.SESSION_EVENT == "session.event"
    assert dshproto.INITIALIZE == "initialize" and dshproto.SHUTDOWN == "shutdown"


def test_every_def_has_a_binding() -> None:
    for name, d in SCHEMA["$defs"].items():
        if d.get("x-validation-only"):
            continue  # checked by the validator, never generated
        assert hasattr(dshproto, name), name


def test_constructed_values_encode() -> None:
    ev = dshproto.TurnStartEvent(seq=1, time=2, data=dshproto.TurnStartData(turn=1))
    assert ev.type == "turn/start"
    assert ev.to_json() == {"type": "turn/start", "seq": 1, "time": 2, "data": {"turn": 1}}
    note = dshproto.NotificationFrame(method=dshproto.SESSION_EVENT, params=dshproto.SessionEventNotification(session_id="s", event=ev))
    assert note.to_json() == {"jsonrpc": "2.0", "method": "session.event", "params": {"sessionId": "s", "event": ev.to_json()}}
    assert dshproto.decode_frame(note.to_json()).to_json() == note.to_json()
    with pytest.raises(TypeError):
        dshproto.TurnStartData(1)  # type: ignore[misc]  # keyword-only
    assert not hasattr(ev, "__dict__")  # slots
    assert dataclasses.fields(dshproto.TurnStartData)[0].name == "turn"


def test_absent_is_not_none() -> None:
    assert ABSENT is not None and repr(ABSENT) == "ABSENT"
    req = dshproto.RequestFrame(id=1, method=dshproto.SHUTDOWN)
    assert req.params is ABSENT and req.to_json() == {"jsonrpc": "2.0", "id": 1, "method": "shutdown"}
    assert isinstance(dshproto.decode_frame(req.to_json()), dshproto.RequestFrame)  # shutdown params are optional
    with pytest.raises(DecodeError) as ei:
        dshproto.decode_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize"})
    assert str(ei.value) == '/params: missing required member "params"'


def test_frame_decoder_pairs_responses() -> None:
    dec = FrameDecoder()
    dec.decode({"jsonrpc": "2.0", "id": "a", "method": "session/prompt", "params": {"sessionId": "s", "contentBlocks": []}})
    dec.decode({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": {}})
    assert dec.pending() == {"a": "session/prompt", 2: "shutdown"}
    r = dec.decode({"jsonrpc": "2.0", "id": "a", "result": {"messageId": "m"}})
    assert isinstance(r, dshproto.ResultFrame) and r.method == "session/prompt"
    assert isinstance(r.result, dshproto.SessionPromptResult)
    e = dec.decode({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "x", "data": {"k": 1}}})
    assert isinstance(e, dshproto.ErrorFrame) and e.method == "shutdown" and e.error.data == {"k": 1}
    assert dec.pending() == {}
    raw = dec.decode({"jsonrpc": "2.0", "id": "zz", "result": {"messageId": 5}})
    assert isinstance(raw, dshproto.ResultFrame) and raw.method is None and raw.result == {"messageId": 5}


def test_decode_error_api() -> None:
    with pytest.raises(DecodeError) as ei:
        dshproto.decode_params(dshproto.SESSION_EVENT, {"sessionId": "s", "event": {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": "x"}}})
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.pointer == "/event/data/turn" and e.path == ("event", "data", "turn")
    assert e.reason == "expected int, got str"
    assert str(e) == "/event/data/turn: expected int, got str"


def test_wire_names() -> None:
    assert dshproto.SessionEventNotification.WIRE_NAMES == {"session_id": "sessionId", "event": "event"}
    assert dshproto.ImageAttachmentRef.WIRE_NAMES["bytes"] == "bytes"


def test_package_metadata() -> None:
    py = ROOT / "out" / "python"
    assert (py / "dshproto" / "py.typed").exists()
    text = (py / "pyproject.toml").read_text(encoding="utf-8")
    assert "dependencies = []" in text and 'requires-python = ">=3.10"' in text
    for f in (py / "dshproto").iterdir():
        if f.suffix in (".py", ".typed"):
            assert f.read_text(encoding="utf-8").startswith("# Code generated by dshgen"), f


DRIVER = ROOT / "gen" / "wire" / "conformance" / "drivers" / "python" / "driver.py"


def test_conformance_driver() -> None:
    """The Python driver of dshgen conformance round-trips a capture through
    our package, speaking driver protocol 1 (gen/wire/conformance/README.md):
    a handshake line, then one "SEQ<TAB>answer" per "HEADER<TAB>frame"."""
    import os
    import subprocess
    import sys

    from conftest import FIXTURES

    frames = []
    for ln in (FIXTURES / "real-captures" / "subagent" / "interleaved.log").read_text(encoding="utf-8").splitlines():
        parts = ln.split("\t", 2)
        if len(parts) == 3 and parts[2].startswith("{"):
            frames.append(parts[2])
    frames.append('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"cwd":1}}')
    methods: dict[str, str] = {}
    lines = []
    for seq, text in enumerate(frames, start=1):
        v = json.loads(text)
        header: dict[str, object] = {"seq": seq}
        if "method" in v and "id" in v:
            methods[json.dumps(v["id"])] = v["method"]
        elif "result" in v:
            header["method"] = methods[json.dumps(v["id"])]
        lines.append(json.dumps(header) + "\t" + text)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "out" / "python"))
    p = subprocess.run(
        [sys.executable, str(DRIVER), "--package", "dshproto"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, env=env, check=False,
    )
    out = p.stdout.splitlines()
    assert out[0] == "dshgen-conformance-driver 1" and len(out) == len(frames) + 1, p.stderr
    for seq, (a, b) in enumerate(zip(frames[:-1], out[1:-1]), start=1):
        n, _, text = b.partition("\t")
        assert n == str(seq) and json.loads(a) == json.loads(text), b
    assert out[-1] == f"{len(frames)}\t!error /params/cwd: expected str, got int" and p.returncode == 0

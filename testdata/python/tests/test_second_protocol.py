"""The emitter on a second protocol (an MCP subset, testdata/second-protocol):
every valid frame round-trips through its generated package ``mcp``, and no
DeepSeek Harness name leaks into it."""

from __future__ import annotations

import importlib
import inspect
import json

import pytest
from conftest import ROOT

SCHEMA = ROOT / "testdata" / "second-protocol" / "mcp.schema.json"
pytestmark = pytest.mark.skipif(not SCHEMA.exists(), reason="no second protocol")


def test_mcp_round_trip() -> None:
    mcp = importlib.import_module("mcp")
    assert mcp.__file__ is not None and "second-protocol" in mcp.__file__
    n = 0
    for name in ("valid.jsonl", "valid-ping-before-initialize.jsonl"):
        dec = mcp.FrameDecoder()
        for line in (ROOT / "testdata" / "second-protocol" / name).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            v = json.loads(line)
            frame = dec.decode(v)
            assert frame.to_json() == v, line[:200]
            n += 1
    assert n > 30
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert set(mcp.METHODS) == set(schema["x-methods"])
    for mod in (mcp.types, mcp.methods):
        src = inspect.getsource(mod)
        assert "SessionEvent" not in src and "session.event" not in src

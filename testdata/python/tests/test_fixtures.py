"""Every valid frame of the shared fixtures decodes through the generated
package (out/python) and encodes back to the same JSON value.

Frames that are not valid are not skipped silently: each one is listed here
with the exact error the bindings must give.

* real-captures/*/{client-to-server,server-to-client}.jsonl: responses are
  paired with their request by id (FrameDecoder sees the client's frames
  first; ids are unique per scenario). Lines of malformed-lines that are not
  JSON objects are skipped (they are not frames); ``{}`` is a JSON object but
  no frame, and two initialize requests carry maxTokens 1.5 and "10": all
  three must fail with the pointers below.
* upstream-snapshots/*/notifications.expected.jsonl: normalized by upstream
  (no "jsonrpc", zeroed times, placeholders). A missing "jsonrpc" is
  tolerated by decode_frame and left out again on encode; string
  placeholders stand where strings are declared and decode as strings. The
  one placeholder where an array is declared, "{{tools}}" at
  /params/event/data/header/tools of request/header events, is rejected by
  design (the bindings follow the strict wire schema, DECISIONS.md 11.6):
  those frames must fail with exactly that pointer and are the only ones
  excluded from the round trip.
* upstream-snapshots/*/session*.jsonl: the persisted event logs; every line
  after the session header decodes as a SessionEvent (the header line, type
  "session", is not an event and decodes as the unknown variant), with the
  same "{{tools}}" exception.
* testdata/conformance/valid.log (the shared conformance vectors), when present.
"""

from __future__ import annotations

import json
import pathlib

import dshproto
import pytest
from conftest import FIXTURES, ROOT
from dshproto import DecodeError, FrameDecoder

REAL = sorted(p for p in (FIXTURES / "real-captures").iterdir() if p.is_dir())
SNAPSHOTS = sorted(p for p in (FIXTURES / "upstream-snapshots").iterdir() if p.is_dir())

# (scenario, file, line number) → expected str(DecodeError)
EXPECTED_BAD = {
    ("invalid-max-tokens", "client-to-server.jsonl", 3): "/params/maxTokens: expected int, got float 1.5",
    ("invalid-max-tokens", "client-to-server.jsonl", 4): "/params/maxTokens: expected int, got str",
    ("malformed-lines", "client-to-server.jsonl", 10): '(root): not a JSON-RPC frame: no "method" and no "id"',
}
TOOLS_PLACEHOLDER = "/params/event/data/header/tools: expected list, got str"


def frames(path: pathlib.Path) -> list[tuple[int, object]]:
    """The lines of an NDJSON file that are JSON objects, with line numbers."""
    out: list[tuple[int, object]] = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                v = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(v, dict):
                out.append((n, v))
    return out


def test_fixtures_present() -> None:
    assert len(REAL) == 8, REAL
    assert len(SNAPSHOTS) == 4, SNAPSHOTS


@pytest.mark.parametrize("scenario", REAL, ids=lambda p: p.name)
def test_real_capture_round_trip(scenario: pathlib.Path) -> None:
    dec = FrameDecoder()
    checked = 0
    for name in ("client-to-server.jsonl", "server-to-client.jsonl"):
        for n, v in frames(scenario / name):
            key = (scenario.name, name, n)
            if key in EXPECTED_BAD:
                with pytest.raises(DecodeError) as ei:
                    dec.decode(v)  # type: ignore[arg-type]
                assert str(ei.value) == EXPECTED_BAD[key]
                continue
            frame = dec.decode(v)  # type: ignore[arg-type]
            assert frame.to_json() == v, f"{key}: re-encoded frame differs"
            if isinstance(frame, dshproto.ResultFrame):
                assert frame.method is not None, f"{key}: response not paired"
                if frame.method in dshproto.METHODS:
                    assert not isinstance(frame.result, dict), f"{key}: result left raw"
            if isinstance(frame, (dshproto.RequestFrame, dshproto.NotificationFrame)) and frame.method in dshproto.METHODS:
                assert not isinstance(frame.params, dict), f"{key}: params left raw"
            checked += 1
    assert checked > 0
    assert dec.pending() == {}, "requests without a response"


def test_real_capture_counts() -> None:
    """Every frame of the real captures was looked at: 276 round-trip, 3 fail as listed."""
    ok = bad = 0
    for scenario in REAL:
        dec = FrameDecoder()
        for name in ("client-to-server.jsonl", "server-to-client.jsonl"):
            for _, v in frames(scenario / name):
                try:
                    assert dec.decode(v).to_json() == v  # type: ignore[arg-type]
                    ok += 1
                except DecodeError:
                    bad += 1
    assert (ok, bad) == (276, 3)


def test_session_events_are_typed() -> None:
    """Known event types decode into their classes, not the unknown variant."""
    seen: set[str] = set()
    for scenario in REAL:
        for _, v in frames(scenario / "server-to-client.jsonl"):
            frame = dshproto.decode_frame(v)  # type: ignore[arg-type]
            if isinstance(frame, dshproto.NotificationFrame) and isinstance(frame.params, dshproto.SessionEventNotification):
                ev = frame.params.event
                assert not isinstance(ev, dshproto.UnknownSessionEvent), ev.tag
                seen.add(type(ev).__name__)
    assert {"TurnStartEvent", "AssistantChunkEvent", "ToolResultEvent", "SubagentDescriptorEvent"} <= seen


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=lambda p: p.name)
def test_snapshot_notifications(snapshot: pathlib.Path) -> None:
    checked = excluded = 0
    for n, v in frames(snapshot / "notifications.expected.jsonl"):
        assert "jsonrpc" not in v  # type: ignore[operator]
        if '"{{tools}}"' in json.dumps(v):
            with pytest.raises(DecodeError) as ei:
                dshproto.decode_frame(v)  # type: ignore[arg-type]
            assert str(ei.value) == TOOLS_PLACEHOLDER, f"line {n}"
            excluded += 1
            continue
        frame = dshproto.decode_frame(v)  # type: ignore[arg-type]
        assert frame.jsonrpc is dshproto.ABSENT
        assert frame.to_json() == v, f"line {n}"
        checked += 1
    assert checked > 30
    assert excluded == (2 if snapshot.name == "subagent-spawn-in-process" else 1)


@pytest.mark.parametrize("log", [p for s in SNAPSHOTS for p in sorted(s.glob("session*.jsonl"))], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_snapshot_session_logs(log: pathlib.Path) -> None:
    for n, v in frames(log):
        if '"{{tools}}"' in json.dumps(v):
            with pytest.raises(DecodeError) as ei:
                dshproto.decode_SessionEvent(v)  # type: ignore[arg-type]
            assert str(ei.value) == "/data/header/tools: expected list, got str"
            continue
        ev = dshproto.decode_SessionEvent(v)  # type: ignore[arg-type]
        if isinstance(ev, dshproto.UnknownSessionEvent):
            # The header line and persisted-only records are not wire events.
            assert ev.tag in PERSISTED_ONLY, (n, ev.tag)
        assert dshproto.encode_SessionEvent(ev) == v, f"line {n}"


# Record types of the session log that are not wire events: the header line
# and the compacted chunk records (seq0/time0; all keep their raw JSON).
PERSISTED_ONLY = {"session", "reasoning-chunks", "text-chunks", "tool-call-chunks"}

CONFORMANCE = ROOT / "testdata" / "conformance" / "valid.log"


@pytest.mark.skipif(not CONFORMANCE.exists(), reason="no conformance vectors")
def test_conformance_vectors() -> None:
    dec = FrameDecoder()
    n = 0
    with CONFORMANCE.open(encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t", 2)
            if len(parts) != 3 or not parts[2].startswith("{"):
                continue
            v = json.loads(parts[2])
            assert dec.decode(v).to_json() == v, parts[2][:200]
            n += 1
    assert n > 100

"""A small typed client-side use of the generated bindings (dshproto).

check.sh runs it, and type-checks it with mypy --strict, pyright --strict and
ruff together with out/python: the generated types must be usable without
casts or ignores. It reads NDJSON frames (a capture) from a file or stdin,
pairs responses with their requests, and prints one line per turn.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from typing import NoReturn

import dshproto
from dshproto import (
    AssistantMessageEvent,
    DecodeError,
    FrameDecoder,
    NotificationFrame,
    SessionEvent,
    TextBlock,
    TurnEndEvent,
    TurnEndReason,
    UnknownSessionEvent,
    UnknownTurnEndReason,
)


def assert_never(x: NoReturn) -> NoReturn:
    """typing.assert_never is 3.11+; the bindings support 3.10."""
    raise AssertionError(f"unhandled {x!r}")


def reason_text(r: TurnEndReason | UnknownTurnEndReason) -> str:
    """Exhaustive over the known reasons; the unknown variant keeps its tag."""
    match r:
        case UnknownTurnEndReason():
            return f"unknown ({r.tag})"
        case dshproto.TurnEndReasonCompleted():
            return "completed"
        case dshproto.TurnEndReasonAborted():
            return f"aborted by {r.reason.to_json().get('kind')}"
        case dshproto.TurnEndReasonError():
            return f"error {r.error.code}: {r.error.message}"
        case dshproto.TurnEndReasonBlocked() | dshproto.TurnEndReasonMaxTokens() | dshproto.TurnEndReasonInterrupted():
            return r.kind
        case _:
            assert_never(r)


def events(lines: Iterable[str]) -> Iterator[tuple[str, SessionEvent | UnknownSessionEvent]]:
    """The session events of a stream of NDJSON frames, by session id."""
    dec = FrameDecoder()
    for n, line in enumerate(lines, 1):
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        try:
            frame = dec.decode(value)
        except DecodeError as e:
            print(f"line {n}: {e}", file=sys.stderr)
            continue
        if isinstance(frame, NotificationFrame) and isinstance(frame.params, dshproto.SessionEventNotification):
            yield frame.params.session_id, frame.params.event


def summarize(lines: Iterable[str]) -> list[str]:
    """One line per finished turn: session, turn number, reason, last text."""
    last_text: dict[str, str] = {}
    out: list[str] = []
    for session, ev in events(lines):
        if isinstance(ev, AssistantMessageEvent):
            text = "".join(b.text for b in ev.data.message.content if isinstance(b, TextBlock))
            if text:
                last_text[session] = text
        elif isinstance(ev, TurnEndEvent):
            out.append(f"{session} turn {ev.data.turn}: {reason_text(ev.data.reason)}: {last_text.get(session, '')!r}")
    return out


def prompt(session_id: str, text: str, request_id: str) -> str:
    """Build a session/prompt request frame."""
    params = dshproto.SessionPromptParams(session_id=session_id, content_blocks=[TextBlock(text=text)])
    frame = dshproto.RequestFrame(id=request_id, method=dshproto.SESSION_PROMPT, params=params)
    return json.dumps(frame.to_json(), separators=(",", ":"))


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        with open(argv[1], encoding="utf-8") as f:
            lines = f.readlines()
    else:
        lines = sys.stdin.readlines()
    for line in summarize(lines):
        print(line)
    print(prompt("s1", "hello", "req_1"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))

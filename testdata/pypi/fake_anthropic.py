"""A scripted Anthropic Messages API model on 127.0.0.1, for the PyPI runtime.

The runtime of PyPI deepseek-harness-runtime-bin 0.2.1rc2 reaches its model
with POST {DEEPSEEK_BASE_URL}/v1/messages (Anthropic Messages API,
anthropic-version 2023-06-01, "stream": true, Accept: text/event-stream).
This server answers such requests from a script chosen by a marker
``[[dsh:NAME]]`` in the newest user text that carries one; the number of
assistant messages after that user message is the step. Replies are streamed
as the runtime asks: Server-Sent Events (message_start, content_block_* with
text_delta / thinking_delta / signature_delta / input_json_delta,
message_delta, message_stop) in HTTP/1.1 chunks; a request with "stream":
false gets the whole message as JSON. Errors are HTTP statuses with
Anthropic error bodies, or an in-band SSE ``error`` event; the runtime
retries RATE_LIMIT (429, rate_limit_error) and SERVER (5xx, api_error,
overloaded_error, an in-band error) up to 5 times, honouring retry-after
when it is at most 10 s, so the scripts send ``retry-after: 0.05``.

Where a scenario asserts an order of events across sessions, the order is
made by cause, never by a delay (a loaded machine stretches any delay):
a marker message may carry ``gate:TOKEN``; a script then holds its reply
until the driver opens the gate ``TOKEN/NAME`` (``POST /dsh/gate/TOKEN/NAME``,
sent once the driver has seen what must come first), or until every member
of a group of requests of one runtime has arrived. A gate not opened within
GATE_TIMEOUT seconds gives a reply that names it, so the scenario's outcome
shows what was missing.

Usage: fake_anthropic.py [--log FILE] [--max-lifetime SECONDS]
Listens on 127.0.0.1 on a free port (refuses connections from any other
address), prints the port as the first and only line on stdout, and exits
after --max-lifetime seconds (default 600) or on SIGTERM. --log appends one
JSON line per request (path, marker, step, attempt, what was answered).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import http.server
import json
import re
import signal
import socketserver
import sys
import threading
from dataclasses import dataclass, field

MARKER = re.compile(r"\[\[dsh:([a-z0-9-]+)\]\]")


@dataclass
class Stream:
    """A successful streamed reply: blocks are ("thinking", text), ("text", text) or ("tool", name, input)."""

    blocks: list[tuple]
    stop: str = "end_turn"
    usage_out: int = 7


@dataclass
class HTTPError:
    status: int
    etype: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class InBandError:
    """A 200 stream that sends message_start, then an SSE error event."""

    etype: str
    message: str


RETRY = {"retry-after": "0.05"}  # 50 ms; the runtime honours retry-after up to its 10 s cap
GATE = re.compile(r"\bgate:([A-Za-z0-9_-]+)")
GATE_TIMEOUT = 60.0  # seconds; a scenario is killed after 90


class Gates:
    """Named events the scripts wait for: opened by the driver (POST /dsh/gate/TOKEN/NAME) or by arrivals."""

    def __init__(self):
        self.cond = threading.Condition()
        self.opened: set[str] = set()

    def open(self, key: str):
        with self.cond:
            self.opened.add(key)
            self.cond.notify_all()

    def wait(self, key: str) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: key in self.opened, GATE_TIMEOUT)

    def meet(self, group: str, member: str, members) -> bool:
        """Mark `member` of `group` arrived and wait until every one of `members` has."""
        self.open(f"{group}/{member}")
        with self.cond:
            return self.cond.wait_for(lambda: all(f"{group}/{m}" in self.opened for m in members), GATE_TIMEOUT)


GATES = Gates()


def held(key: str) -> Stream | None:
    """None once gate `key` is open; a reply naming it when it stays shut."""
    if GATES.wait(key):
        return None
    return Stream([("text", f"gate {key} was never opened")])


def texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]


def tool_results(messages) -> list[dict]:
    out = []
    for m in messages:
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            out += [b for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    return out


def result_text(block) -> str:
    c = block.get("content")
    return "".join(texts(c)) if not isinstance(c, str) else c


def find_marker(messages):
    """(name, index of the user message holding it) of the newest marker, or (None, -1)."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.get("role") != "user":
            continue
        for t in texts(m.get("content")):
            found = MARKER.findall(t)
            if found:
                return found[-1], i
    return None, -1


def all_text(messages) -> str:
    return "\n".join(t for m in messages for t in texts(m.get("content")))


def script(name, step, attempt, body, messages, after, gate=None, runtime=None):
    """The reply for marker `name` at `step` (assistant messages since the marker) and `attempt` (1 = first);
    `gate` is the marker message's gate token, `runtime` identifies the runtime that asks (its user id)."""
    results = tool_results(after)
    if name == "text":
        return Stream([("thinking", "The user wants a greeting."), ("text", "Hello from the fake model.")])
    if name == "bash":
        if step == 0:
            return Stream(
                [
                    ("text", "Running a command."),
                    (
                        "tool",
                        "bash",
                        {
                            "description": "Print a greeting to a file",
                            "command": 'printf \'hi from bash\\n\' > bash-out.txt && cat bash-out.txt && echo "in $(basename "$PWD")"',
                        },
                    ),
                ],
                stop="tool_use",
            )
        return Stream([("text", "bash said: " + result_text(results[-1]).strip())])
    if name == "fs":
        calls = [
            ("write", {"file_path": "notes.txt", "content": "alpha\nbeta\n"}),
            ("read", {"file_path": "notes.txt"}),
            ("edit", {"file_path": "notes.txt", "old_string": "beta", "new_string": "gamma"}),
            ("glob", {"pattern": "*.txt"}),
            ("read", {"file_path": "notes.txt"}),
            ("write", {"file_path": "../outside.txt", "content": "must not be written\n"}),
        ]
        if step < len(calls):
            tool, args = calls[step]
            return Stream([("tool", tool, args)], stop="tool_use")
        return Stream(
            [
                (
                    "text",
                    "\n".join(f"{'error' if b.get('is_error') else 'ok'}: {result_text(b).strip()}" for b in results),
                )
            ]
        )
    if name in ("parallel-a", "parallel-b"):
        # Neither session's turn ends before the other's request has come: the two runs overlap by cause.
        if step == 0 and not GATES.meet(f"{runtime}/parallel", name, ("parallel-a", "parallel-b")):
            return Stream([("text", f"{name}: the other session's request never came")])
        return Stream([("text", f"{name} done")])
    if name == "wait":
        # The turn ends only after the driver has looked at what session_prompt's return left it.
        return held(f"{gate}/prompt-returned") or Stream([("text", "waited turn")])
    if name == "cwd":
        cwd = re.findall(r'Current working directory: "([^"]*)"', all_text(messages))
        return Stream([("text", "model sees cwd " + (cwd[-1] if cwd else "?"))])
    if name == "resume-first":
        return Stream([("text", "I will remember the word pelican.")])
    if name == "resume-second":
        history = all_text(messages)
        n_asst = sum(1 for m in messages if m.get("role") == "assistant")
        return Stream([("text", f"history has pelican={'pelican' in history} assistant-messages={n_asst}")])
    if name == "effort":
        return Stream(
            [
                (
                    "text",
                    f"thinking={body.get('thinking', {}).get('type')} effort={body.get('output_config', {}).get('effort')} max_tokens={body.get('max_tokens')}",
                )
            ]
        )
    if name == "retry":
        # The in-band error first: it has no retry-after, so the runtime's own backoff (500 ms) applies once.
        if attempt == 1:
            return InBandError("overloaded_error", "overloaded mid-stream")
        if attempt == 2:
            return HTTPError(429, "rate_limit_error", "slow down", RETRY)
        if attempt == 3:
            return HTTPError(529, "overloaded_error", "overloaded", RETRY)
        return Stream([("text", f"recovered on attempt {attempt}")])
    if name == "fatal":
        return HTTPError(400, "invalid_request_error", "the fake model rejects this request")
    if name == "auth":
        return HTTPError(401, "authentication_error", "invalid x-api-key")
    if name == "exhaust":
        return HTTPError(500, "api_error", f"internal error {attempt}", RETRY)
    if name == "maxtokens":
        return Stream([("text", "This reply is cut")], stop="max_tokens")
    if name == "subagent":
        if step == 0:
            return Stream(
                [
                    (
                        "tool",
                        "subagent",
                        {
                            "description": "Count the letters",
                            "prompt": f"[[dsh:child]] gate:{gate} Count the letters in pelican.",
                        },
                    )
                ],
                stop="tool_use",
            )
        joined = all_text(messages) + "\n" + "\n".join(result_text(b) for b in results)
        if "child says" in joined:
            return Stream([("text", "parent got: " + re.findall(r"child says [^\n\"]*", joined)[-1])])
        return Stream([("text", "waiting for the child")])
    if name == "child":
        # The parent runs one turn per message of the child: its prompt, the child's message, the child's end.
        # The child sends its message once the driver saw the parent's first turn end, and ends once it saw the
        # second end (else the message or the end could be spliced into the turn before).
        if step == 0:
            parent = re.findall(r'Your parent agent id is "([^"]+)"', all_text(messages))
            return held(f"{gate}/parent-idle-1") or Stream(
                [
                    (
                        "tool",
                        "send_message",
                        {"agent_id": parent[-1] if parent else "?", "message": "child says pelican has 7 letters"},
                    )
                ],
                stop="tool_use",
            )
        return held(f"{gate}/parent-idle-2") or Stream(
            [("text", "reported to the parent: " + result_text(results[-1]).strip())]
        )
    if name == "image":
        imgs = [
            b
            for m in messages
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "image"
        ]
        desc = []
        for b in imgs:
            src = b.get("source", {})
            data = base64.b64decode(src.get("data", "")) if src.get("type") == "base64" else b""
            desc.append(
                f"{src.get('type')} {src.get('media_type')} {len(data)} bytes sha256:{hashlib.sha256(data).hexdigest()[:12]}"
            )
        return Stream([("text", f"I see {len(imgs)} image(s): " + "; ".join(desc))])
    return Stream([("text", f"no script for marker {name!r}")])


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.attempts: dict[tuple, int] = {}

    def attempt(self, key) -> int:
        with self.lock:
            self.attempts[key] = self.attempts.get(key, 0) + 1
            return self.attempts[key]


STATE = State()
LOG = None
LOG_LOCK = threading.Lock()


def sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def pieces(s: str, n: int = 3) -> list[str]:
    k = max(1, (len(s) + n - 1) // n)
    return [s[i : i + k] for i in range(0, len(s), k)] or [""]


def message_start(msg_id: str, model: str) -> bytes:
    """The first event of every streamed reply: an empty assistant message."""
    message = {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 42, "output_tokens": 1},
    }
    return sse("message_start", {"type": "message_start", "message": message})


def stream_events(reply: Stream, model: str, msg_id: str, tool_prefix: str) -> list[bytes]:
    out = [message_start(msg_id, model)]
    for i, b in enumerate(reply.blocks):
        if b[0] == "thinking":
            out.append(
                sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                    },
                )
            )
            for p in pieces(b[1]):
                out.append(
                    sse(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": p}},
                    )
                )
            out.append(
                sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl"},
                    },
                )
            )
        elif b[0] == "text":
            out.append(
                sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                )
            )
            for p in pieces(b[1]):
                out.append(
                    sse(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": p}},
                    )
                )
        else:
            out.append(
                sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "tool_use", "id": f"{tool_prefix}_{i}", "name": b[1], "input": {}},
                    },
                )
            )
            for p in pieces(json.dumps(b[2])):
                out.append(
                    sse(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "input_json_delta", "partial_json": p},
                        },
                    )
                )
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop, "stop_sequence": None},
                "usage": {"output_tokens": reply.usage_out},
            },
        )
    )
    out.append(sse("message_stop", {"type": "message_stop"}))
    return out


def whole_message(reply: Stream, model: str, msg_id: str, tool_prefix: str) -> dict:
    content = []
    for i, b in enumerate(reply.blocks):
        if b[0] == "thinking":
            content.append({"type": "thinking", "thinking": b[1], "signature": "c2lnbmF0dXJl"})
        elif b[0] == "text":
            content.append({"type": "text", "text": b[1]})
        else:
            content.append({"type": "tool_use", "id": f"{tool_prefix}_{i}", "name": b[1], "input": b[2]})
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 42, "output_tokens": reply.usage_out},
    }


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        if self.client_address[0] not in ("127.0.0.1", "::1"):
            raise ConnectionRefusedError(f"non-loopback client {self.client_address[0]}")

    def send_json(self, status: int, obj: dict, headers: dict[str, str] | None = None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def chunk(self, data: bytes):
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def do_GET(self):
        self.log({"GET": self.path, "reply": "404"})
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {self.path}"}})

    def log(self, record):
        if LOG:
            with LOG_LOCK:
                LOG.write(json.dumps(record) + "\n")
                LOG.flush()

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n)
        if self.path.startswith("/dsh/gate/"):
            GATES.open(self.path[len("/dsh/gate/") :])
            self.log({"path": self.path, "reply": "204"})
            self.send_response(204)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if not self.path.split("?")[0].endswith("/v1/messages"):
            # e.g. the runtime's Files API upload of an image (POST /v1/files): not offered, so it sends the image inline.
            self.log(
                {
                    "path": self.path,
                    "content-type": self.headers.get("content-type", "").split(";")[0],
                    "bytes": n,
                    "reply": "404",
                }
            )
            return self.send_json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {self.path}"}}
            )
        try:
            body = json.loads(raw or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return self.send_json(
                400, {"type": "error", "error": {"type": "invalid_request_error", "message": "body is not JSON"}}
            )
        messages = body.get("messages") or []
        name, at = find_marker(messages)
        after = messages[at + 1 :] if at >= 0 else []
        step = sum(1 for m in after if m.get("role") == "assistant")
        # One runtime (a harness home) has one user id; sessions are unique within it.
        key = (
            self.headers.get("x-deepseek-harness-user-id"),
            self.headers.get("x-deepseek-harness-session-id"),
            name,
            at,
            step,
        )
        attempt = STATE.attempt(key)
        gates = GATE.findall(" ".join(texts(messages[at].get("content")))) if at >= 0 else []
        reply = script(name, step, attempt, body, messages, after, gates[-1] if gates else None, key[0])
        record = {
            "path": self.path,
            "marker": name,
            "runtime": key[0],
            "step": step,
            "attempt": attempt,
            "stream": body.get("stream"),
            "reply": type(reply).__name__,
            "blocks": [
                [b.get("type") for b in m["content"] if isinstance(b, dict)]
                if isinstance(m.get("content"), list)
                else ["string"]
                for m in messages
            ],
            "marker_message": [t[:300] for t in texts(messages[at].get("content"))] if at >= 0 else None,
        }
        self.log(record)
        model = body.get("model") or "fake"
        msg_id = f"msg_fake_{name}_{step}_{attempt}"
        tool_prefix = f"toolu_{(name or 'none').replace('-', '_')}_{step}"
        if isinstance(reply, HTTPError):
            return self.send_json(
                reply.status, {"type": "error", "error": {"type": reply.etype, "message": reply.message}}, reply.headers
            )
        if isinstance(reply, InBandError):
            self.start_stream()
            self.chunk(message_start(msg_id, model))
            self.chunk(sse("error", {"type": "error", "error": {"type": reply.etype, "message": reply.message}}))
            return self.end_stream()
        if body.get("stream") is False:
            return self.send_json(200, whole_message(reply, model, msg_id, tool_prefix))
        self.start_stream()
        for ev in stream_events(reply, model, msg_id, tool_prefix):
            self.chunk(ev)
        self.end_stream()

    def start_stream(self):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_fake")
        self.end_headers()

    def end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def handle_error(self, request, client_address):
        # A runtime that exits drops its keep-alive connections: not worth a traceback.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def main():
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--log")
    ap.add_argument("--max-lifetime", type=float, default=600)
    a = ap.parse_args()
    if a.log:
        LOG = open(a.log, "a", encoding="utf-8")
    srv = Server(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.shutdown, daemon=True).start())
    timer = threading.Timer(a.max_lifetime, srv.shutdown)
    timer.daemon = True
    timer.start()
    print(srv.server_address[1], flush=True)
    srv.serve_forever(poll_interval=0.2)
    srv.server_close()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the MCP frames: valid.jsonl (one session, both directions, in the
order they were sent; validate with --direction both), valid-*.jsonl, and
invalid/<case>.jsonl (or .log, the capture format, where the direction
matters) with invalid/expected.json (the findings each must give, by file:
line, rule, pointer, severity; info findings are not listed). Frames follow the examples of the MCP
specification (revision 2025-06-18). Run from the repository root:

    python3 testdata/second-protocol/make_frames.py
"""
import json
import os

HERE = "testdata/second-protocol"


def f(**kw):
    d = {"jsonrpc": "2.0"}
    d.update(kw)
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


INIT = f(id=1, method="initialize", params={
    "protocolVersion": "2025-06-18",
    "capabilities": {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}},
    "clientInfo": {"name": "ExampleClient", "title": "Example Client Display Name", "version": "1.0.0"}})
INIT_OK = f(id=1, result={
    "protocolVersion": "2025-06-18",
    "capabilities": {"logging": {}, "prompts": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True},
                     "tools": {"listChanged": True}},
    "serverInfo": {"name": "ExampleServer", "title": "Example Server Display Name", "version": "1.0.0"},
    "instructions": "Optional instructions for the client"})
INITIALIZED = f(method="notifications/initialized")
PRE = [INIT, INIT_OK, INITIALIZED]

valid = PRE + [
    f(id=2, method="tools/list", params={"cursor": "optional-cursor-value"}),
    f(id=2, result={"tools": [
        {"name": "get_weather", "title": "Weather Information Provider",
         "description": "Get current weather information for a location",
         "inputSchema": {"type": "object", "properties": {"location": {"type": "string", "description": "City name or zip code"}}, "required": ["location"]},
         "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]},
         "annotations": {"readOnlyHint": True, "openWorldHint": True}},
        {"name": "slow", "inputSchema": {"type": "object"}}], "nextCursor": "next-page-cursor"}),
    f(id=3, method="tools/call", params={"name": "get_weather", "arguments": {"location": "New York"}, "_meta": {"progressToken": "tok-1"}}),
    f(method="notifications/progress", params={"progressToken": "tok-1", "progress": 50, "total": 100, "message": "Reticulating splines..."}),
    f(id="srv-1", method="sampling/createMessage", params={
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "intelligencePriority": 0.8, "speedPriority": 0.5},
        "systemPrompt": "You are a helpful assistant.", "maxTokens": 100}),
    f(id="srv-1", result={"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."},
                          "model": "claude-3-sonnet-20240307", "stopReason": "endTurn"}),
    f(id=3, result={"content": [
        {"type": "text", "text": "Current weather in New York:\nTemperature: 72°F\nConditions: Partly cloudy"},
        {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "mimeType": "image/png",
         "annotations": {"audience": ["user"], "priority": 0.9}},
        {"type": "audio", "data": "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///project/src/main.rs", "name": "main.rs", "description": "Primary application entry point", "mimeType": "text/x-rust"},
        {"type": "resource", "resource": {"uri": "file:///project/src/lib.rs", "mimeType": "text/x-rust", "text": "fn main() {\n    println!(\"Hello world!\");\n}"},
         "annotations": {"audience": ["user", "assistant"], "priority": 0.7, "lastModified": "2025-05-03T14:30:00Z"}},
        {"type": "resource", "resource": {"uri": "file:///project/logo.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="}}],
        "structuredContent": {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}, "isError": False}),
    f(id=4, method="resources/list", params={"cursor": "optional-cursor-value"}),
    f(id=4, result={"resources": [{"uri": "file:///project/src/main.rs", "name": "main.rs", "title": "Rust Software Application Main File",
                                   "description": "Primary application entry point", "mimeType": "text/x-rust", "size": 1024}],
                    "nextCursor": "next-page-cursor"}),
    f(id=5, method="resources/read", params={"uri": "file:///project/src/main.rs"}),
    f(id=5, result={"contents": [{"uri": "file:///project/src/main.rs", "mimeType": "text/x-rust", "text": "fn main() {\n    println!(\"Hello world!\");\n}"}]}),
    f(id=6, method="resources/read", params={"uri": "file:///project/logo.png"}),
    f(id=6, result={"contents": [{"uri": "file:///project/logo.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="}]}),
    f(id=7, method="prompts/list", params={}),
    f(id=7, result={"prompts": [{"name": "code_review", "title": "Request Code Review",
                                 "description": "Asks the LLM to analyze code quality and suggest improvements",
                                 "arguments": [{"name": "code", "description": "The code to review", "required": True}]}]}),
    f(id=8, method="prompts/get", params={"name": "code_review", "arguments": {"code": "def hello():\n    print('world')"}}),
    f(id=8, result={"description": "Code review prompt", "messages": [
        {"role": "user", "content": {"type": "text", "text": "Please review this Python code:\ndef hello():\n    print('world')"}}]}),
    f(id=9, method="logging/setLevel", params={"level": "info"}),
    f(id=9, result={}),
    f(method="notifications/message", params={"level": "error", "logger": "database",
                                              "data": {"error": "Connection failed", "details": {"host": "localhost", "port": 5432}}}),
    f(id="srv-2", method="roots/list"),
    f(id="srv-2", result={"roots": [{"uri": "file:///home/user/projects/myproject", "name": "My Project"}]}),
    f(method="notifications/tools/list_changed"),
    f(id=10, method="ping"),
    f(id=10, result={}),
    f(id=11, method="tools/call", params={"name": "slow", "arguments": {}}),
    f(method="notifications/cancelled", params={"requestId": 11, "reason": "User requested cancellation"}),
    f(id=12, method="tools/call", params={"name": "invalid_tool_name", "arguments": {}}),
    f(id=12, error={"code": -32602, "message": "Unknown tool: invalid_tool_name"}),
    f(id=13, method="tools/call", params={"name": "get_weather", "arguments": {"location": "Nowhere"}}),
    f(id=13, result={"content": [{"type": "text", "text": "Failed to fetch weather data: API rate limit exceeded"}], "isError": True}),
]

# MCP: "The client SHOULD NOT send requests other than pings before the
# server has responded to the initialize request."
valid_extra = {
    "valid-ping-before-initialize.jsonl": [f(id=0, method="ping"), f(id=0, result={})] + PRE,
}

# name -> (frames, [ (line, rule, pointer) ]) ; lines are 1-based.
P = len(PRE)
TC = f(id=2, method="tools/call", params={"name": "get_weather", "arguments": {"location": "NYC"}})
RR = f(id=2, method="resources/read", params={"uri": "file:///x"})
invalid = {
    "content-unknown-type": (PRE + [TC, f(id=2, result={"content": [{"type": "video", "uri": "x"}]})],
                             [(P + 2, "union.unknown-tag", "/result/content/0/type")]),
    "content-missing-tag": (PRE + [TC, f(id=2, result={"content": [{"text": "hi"}]})],
                            [(P + 2, "union.missing-tag", "/result/content/0")]),
    "text-content-bad-body": (PRE + [TC, f(id=2, result={"content": [{"type": "text", "text": 5}]})],
                              [(P + 2, "result.schema", "/result/content/0/text")]),
    "image-content-missing-mime": (PRE + [TC, f(id=2, result={"content": [{"type": "image", "data": "AAAA"}]})],
                                   [(P + 2, "result.schema", "/result/content/0")]),
    "resource-contents-both-shapes": (PRE + [RR, f(id=2, result={"contents": [{"uri": "file:///x", "text": "a", "blob": "YQ=="}]})],
                                      [(P + 2, "result.schema", "/result/contents/0")]),
    "resource-contents-neither-shape": (PRE + [RR, f(id=2, result={"contents": [{"uri": "file:///x"}]})],
                                        [(P + 2, "result.schema", "/result/contents/0")]),
    "initialize-missing-client-info": ([f(id=1, method="initialize", params={"protocolVersion": "2025-06-18", "capabilities": {}}),
                                        INIT_OK],
                                       [(1, "params.schema", "/params")]),
    # A mixed NDJSON stream takes each request's side from its method, so a
    # wrong side shows only where the direction is recorded: a capture
    # (DIR<TAB>ms<TAB>frame, as dshgen tap writes).
    "wrong-direction.log": ([("C->S", INIT), ("S->C", INIT_OK), ("C->S", INITIALIZED),
                             ("C->S", f(id=2, method="sampling/createMessage", params={"messages": [], "maxTokens": 1})),
                             ("S->C", f(id=3, method="tools/list"))],
                            [(4, "method.direction", "/method"), (5, "method.direction", "/method")]),
    "unknown-method": (PRE + [f(id=2, method="tools/delete", params={"name": "x"}), f(id=2, error={"code": -32601, "message": "Method not found"})],
                       [(P + 1, "method.unknown", "/method", "warning")]),  # a warning: the peer rejected it, as it should
    "notification-sent-as-request": (PRE + [f(id=2, method="notifications/tools/list_changed")],
                                     [(P + 1, "method.kind", "/id")]),
    "request-before-initialize": ([f(id=1, method="tools/list"), f(id=1, result={"tools": []})] + PRE,
                                  [(1, "state.initialize-first", "/method")]),
    "bad-logging-level": (PRE + [f(id=2, method="logging/setLevel", params={"level": "verbose"}), f(id=2, result={})],
                          [(P + 1, "params.schema", "/params/level")]),
    "response-unknown-id": (PRE + [f(id=99, result={})],
                            [(P + 1, "response.unknown-id", "/id")]),
    "duplicate-response": (PRE + [f(id=2, method="ping"), f(id=2, result={}), f(id=2, result={})],
                           [(P + 3, "response.duplicate", "/id")]),
    "duplicate-request-id": (PRE + [f(id=2, method="ping"), f(id=2, method="ping"), f(id=2, result={})],
                             [(P + 2, "request.duplicate-id", "/id")]),
    "jsonrpc-version": (PRE + [json.dumps({"jsonrpc": "1.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, separators=(",", ":"))],
                        [(P + 1, "envelope.jsonrpc", "/jsonrpc")]),
    "bad-error-object": (PRE + [f(id=2, method="ping"), f(id=2, error={"code": "oops", "message": "x"})],
                         [(P + 2, "error.schema", "/error/code")]),
    "progress-token-bool": (PRE + [f(method="notifications/progress", params={"progressToken": True, "progress": 1})],
                            [(P + 1, "params.schema", "/params/progressToken")]),
    "priority-out-of-range": (PRE + [TC, f(id=2, result={"content": [{"type": "text", "text": "x", "annotations": {"priority": 2}}]})],
                              [(P + 2, "result.schema", "/result/content/0/annotations/priority")]),
    "root-uri-not-file": (PRE + [f(id="s1", method="roots/list"), f(id="s1", result={"roots": [{"uri": "https://example.com/"}]})],
                          [(P + 2, "result.schema", "/result/roots/0/uri")]),
    "sampling-content-resource-link": (PRE + [f(id="s1", method="sampling/createMessage", params={"messages": [], "maxTokens": 10}),
                                              f(id="s1", result={"role": "assistant", "model": "m",
                                                                 "content": {"type": "resource_link", "uri": "file:///x", "name": "x"}})],
                                       [(P + 2, "union.unknown-tag", "/result/content/type")]),
    "cancelled-missing-request-id": (PRE + [f(method="notifications/cancelled", params={"reason": "x"})],
                                     [(P + 1, "params.schema", "/params")]),
    "fractional-id": (PRE + [f(id=1.5, method="ping"), f(id=1.5, result={})],
                      [(P + 1, "envelope.id", "/id"), (P + 2, "envelope.id", "/id")]),
    "tools-list-missing-tools": (PRE + [f(id=2, method="tools/list"), f(id=2, result={"nextCursor": "c"})],
                                 [(P + 2, "result.schema", "/result")]),
    "invalid-utf8": (PRE + [None],
                     [(P + 1, "frame.utf8", "")]),
    "not-json": (PRE + ['{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":'],
                 [(P + 1, "frame.json", "")]),
}
BAD_UTF8 = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db\xff\xfe","data":"x"}}'


def write(path, frames):
    with open(path, "wb") as out:
        for i, fr in enumerate(frames):
            if isinstance(fr, tuple):  # capture line: DIR, frame
                out.write(("%s\t%d\t" % (fr[0], i)).encode())
                fr = fr[1]
            out.write(BAD_UTF8 if fr is None else fr.encode("utf-8"))
            out.write(b"\n")


write(os.path.join(HERE, "valid.jsonl"), valid)
for name, frames in valid_extra.items():
    write(os.path.join(HERE, name), frames)
os.makedirs(os.path.join(HERE, "invalid"), exist_ok=True)
expected = {}
for name, (frames, want) in invalid.items():
    file = name if name.endswith(".log") else name + ".jsonl"
    write(os.path.join(HERE, "invalid", file), frames)
    expected[file] = [{"line": w[0], "rule": w[1], "pointer": w[2], "severity": w[3] if len(w) > 3 else "error"} for w in want]
with open(os.path.join(HERE, "invalid", "expected.json"), "w") as out:
    json.dump(expected, out, indent=2)
    out.write("\n")

"""Scripted Anthropic-Messages streaming fake on 127.0.0.1 (loopback only) for driving the PyPI runtime.

Prints its port on stdout. Every request is appended to argv[1] (JSON lines: path, model, roles,
the plan chosen). The reply is chosen from the newest user text (markers below) unless the
newest message carries a tool_result, which always gets a closing text reply:

  [bash]       tool_use bash `echo dsh-proof-0421`     [write]  tool_use write notes.txt
  [read]       tool_use read notes.txt                 [sub]    tool_use subagent (one child)
  [think]      a thinking block, then text             [slow]   text after a 4 s delay
  [err400]     HTTP 400 invalid_request_error          [err500x2] HTTP 500 twice, then text
  [err429]     HTTP 429 rate_limit_error, always       [badtool] tool_use of a tool that does not exist
  [wd]         tool_use working_directory (read)       [maxtok] stop_reason max_tokens
"""
import json, sys, time, threading, http.server, socketserver

log = open(sys.argv[1], "a") if len(sys.argv) > 1 else None
lock = threading.Lock()
counts = {}


def text_of(msg):
    c = msg.get("content")
    if isinstance(c, str):
        return c
    out = []
    for b in c or []:
        if b.get("type") == "text":
            out.append(b.get("text", ""))
    return "\n".join(out)


def has_tool_result(msg):
    c = msg.get("content")
    return isinstance(c, list) and any(b.get("type") == "tool_result" for b in c)


def sse(evs):
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in evs).encode()


def start(model, n):
    return {"type": "message_start", "message": {"id": f"msg_fake_{n}", "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10 + n, "output_tokens": 0, "cache_read_input_tokens": 3}}}


def text_blocks(idx, text):
    return [{"type": "content_block_start", "index": idx, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": idx, "delta": {"type": "text_delta", "text": text[:8]}},
            {"type": "content_block_delta", "index": idx, "delta": {"type": "text_delta", "text": text[8:]}},
            {"type": "content_block_stop", "index": idx}]


def tool_blocks(idx, n, name, args):
    j = json.dumps(args)
    return [{"type": "content_block_start", "index": idx,
             "content_block": {"type": "tool_use", "id": f"toolu_fake_{n}", "name": name, "input": {}}},
            {"type": "content_block_delta", "index": idx, "delta": {"type": "input_json_delta", "partial_json": j[:5]}},
            {"type": "content_block_delta", "index": idx, "delta": {"type": "input_json_delta", "partial_json": j[5:]}},
            {"type": "content_block_stop", "index": idx}]


def end(reason, out=6):
    return [{"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}, "usage": {"output_tokens": out}},
            {"type": "message_stop"}]


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n_ = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(n_) or b"{}")
        with lock:
            counts["n"] = counts.get("n", 0) + 1
            n = counts["n"]
        msgs = body.get("messages", [])
        last = msgs[-1] if msgs else {}
        users = [text_of(m) for m in msgs if m.get("role") == "user"]
        newest = users[-1] if users else ""
        # the first user text of the conversation decides the scenario; the newest decides the step
        first = "\n".join(users)
        plan = "text"
        if not self.path.endswith("/messages"):
            plan = "404"
        elif has_tool_result(last):
            plan = "after-tool"
        else:
            for marker in ("[bash]", "[write]", "[read]", "[sub]", "[think]", "[slow]", "[err400]", "[err500x2]",
                           "[err429]", "[badtool]", "[wd]", "[maxtok]"):
                if marker in newest:
                    plan = marker.strip("[]")
                    break
        if plan == "err500x2":
            with lock:
                k = counts["err500:" + newest] = counts.get("err500:" + newest, 0) + 1
            if k > 2:
                plan = "text"
        if log:
            log.write(json.dumps({"n": n, "path": self.path, "model": body.get("model"), "stream": body.get("stream"),
                                  "max_tokens": body.get("max_tokens"), "thinking": body.get("thinking"),
                                  "output_config": body.get("output_config"),
                                  "roles": [m.get("role") for m in msgs], "tools": len(body.get("tools") or []),
                                  "newest": newest[:160], "plan": plan}) + "\n")
            log.flush()
        model = body.get("model")
        if plan == "404":
            return self.reply(404, b"")
        if plan == "err400":
            return self.reply(400, json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": "fake: bad request"}}).encode())
        if plan in ("err500x2",):
            return self.reply(500, json.dumps({"type": "error", "error": {"type": "api_error", "message": "fake: internal"}}).encode())
        if plan == "err429":
            self.send_response(429)
            b = json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "fake: slow down"}}).encode()
            self.send_header("content-type", "application/json")
            self.send_header("retry-after", "0")
            self.send_header("content-length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)
            return
        evs = [start(model, n)]
        stop = "end_turn"
        if plan == "bash":
            evs += text_blocks(0, "Running the command.") + tool_blocks(1, n, "bash", {"description": "Print a proof word", "command": "echo dsh-proof-0421"})
            stop = "tool_use"
        elif plan == "write":
            evs += tool_blocks(0, n, "write", {"file_path": "notes.txt", "content": "line one\nline two\n"})
            stop = "tool_use"
        elif plan == "read":
            evs += tool_blocks(0, n, "read", {"file_path": "notes.txt"})
            stop = "tool_use"
        elif plan == "badtool":
            evs += tool_blocks(0, n, "no_such_tool", {"x": 1})
            stop = "tool_use"
        elif plan == "wd":
            evs += tool_blocks(0, n, "working_directory", {})
            stop = "tool_use"
        elif plan == "sub":
            evs += tool_blocks(0, n, "subagent", {"description": "echo probe", "prompt": "Child task: answer with the number 42."})
            stop = "tool_use"
        elif plan == "think":
            evs += [{"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user wants a greeting."}},
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig-fake"}},
                    {"type": "content_block_stop", "index": 0}] + text_blocks(1, "Hello after thinking.")
        elif plan == "maxtok":
            evs += text_blocks(0, "This answer is cut")
            stop = "max_tokens"
        elif plan == "slow":
            time.sleep(4)
            evs += text_blocks(0, "Slow hello.")
        elif plan == "after-tool":
            evs += text_blocks(0, "Tool finished; done.")
        else:
            if "Child task" in newest:
                evs += text_blocks(0, "child answer 42.")
            else:
                evs += text_blocks(0, "Hello from the fake model.")
        evs += end(stop)
        self.reply(200, sse(evs), "text/event-stream")


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


s = S(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()

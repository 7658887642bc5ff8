"""Minimal Anthropic-Messages streaming fake on 127.0.0.1 (loopback only) for capturing the PyPI runtime."""
import json, sys, http.server, socketserver
log = open(sys.argv[1], "a") if len(sys.argv) > 1 else None
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("content-length") or 0); body = json.loads(self.rfile.read(n) or b"{}")
        if log: log.write(json.dumps({"path": self.path, "model": body.get("model"), "stream": body.get("stream"), "nmessages": len(body.get("messages", []))}) + "\n"); log.flush()
        if not self.path.endswith("/messages"):
            self.send_response(404); self.send_header("content-length", "0"); self.end_headers(); return
        evs = [
          ("message_start", {"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","model":body.get("model"),"content":[],"stop_reason":None,"stop_sequence":None,"usage":{"input_tokens":10,"output_tokens":0}}}),
          ("content_block_start", {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
          ("content_block_delta", {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello from the fake model."}}),
          ("content_block_stop", {"type":"content_block_stop","index":0}),
          ("message_delta", {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":None},"usage":{"output_tokens":6}}),
          ("message_stop", {"type":"message_stop"}),
        ]
        data = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in evs).encode()
        self.send_response(200); self.send_header("content-type", "text/event-stream"); self.send_header("content-length", str(len(data))); self.end_headers(); self.wfile.write(data)
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
s = S(("127.0.0.1", 0), H); print(s.server_address[1], flush=True); s.serve_forever()

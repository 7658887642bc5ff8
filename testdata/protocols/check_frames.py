"""Checks the frame suites under <protocol>/frames/ against the published
schemas with an independent JSON Schema validator (python-jsonschema).

    python3 testdata/protocols/check_frames.py            # all three protocols
    python3 testdata/protocols/check_frames.py acp -v     # one, with every frame

Frames are in the interleaved capture format that `dshgen validate` reads
(DIR<TAB>MS<TAB>frame, DIR C->S or S->C; gen/wire/frame/capture_read.go).
Every valid/*.log must give no finding; every invalid/*.log must give exactly
the findings its invalid/expected.json lists (line, rule id, JSON pointer
prefix), and none on any other line. For MCP 2026-07-28 the 129 official
examples are also validated as their folder's $defs type, which proves the
validator set-up on data nobody here wrote.

Rule ids are dshgen's (gen/wire/validate/RULES.md). Exit status 0 when all
checks hold, 1 otherwise.
"""

import json
import sys
from pathlib import Path

from jsonschema.exceptions import best_match

import protolib

DIRS = {"C->S": "client", "S->C": "server"}
OTHER = {"client": "server", "server": "client"}

# MCP error codes whose error object (or whole message) has its own $defs type.
MCP_ERROR_DEFS = {
    -32700: "ParseError", -32600: "InvalidRequestError", -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError", -32603: "InternalError",
}
MCP_ERROR_MESSAGE_DEFS = {
    -32020: "HeaderMismatchError", -32021: "MissingRequiredClientCapabilityError",
    -32022: "UnsupportedProtocolVersionError", -32042: "URLElicitationRequiredError",
}


def pointer_of(path):
    return "".join("/" + protolib.ptr_escape(str(p)) for p in path)


def read_capture(path):
    """[(line, side, ms, raw)] of a capture; raises on a line not in the format."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if line == "":
            continue
        d, ms, raw = line.split("\t", 2)
        if d not in DIRS or not ms.isdigit():
            raise ValueError(f"{path}:{n}: not DIR<TAB>MS<TAB>frame")
        out.append((n, DIRS[d], int(ms), raw))
    return out


def is_id(v):
    return isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))


def id_key(v):
    return (type(v).__name__, v)


class Session:
    """The checks of one capture: envelope, method table, schemas, pairing,
    initialize-first. One finding per bad frame, as dshgen reports them."""

    def __init__(self, proto):
        self.p = proto
        self.pending = {}  # (sender, id_key) -> (method, line)
        self.answered = {}
        self.cancelled = set()
        self.initialized = False
        self.frames = 0

    def feed(self, line, side, raw):
        self.frames += 1
        f = []

        def bad(rule, pointer, msg):
            f.append({"line": line, "rule": rule, "pointer": pointer, "message": msg})
            return f

        try:
            msg = json.loads(raw)
        except json.JSONDecodeError as e:
            return bad("frame.json", "", str(e))
        if not isinstance(msg, dict):
            return bad("frame.not-object", "", f"frame is a {type(msg).__name__}")
        if msg.get("jsonrpc") != "2.0":
            return bad("envelope.jsonrpc", "/jsonrpc", f"jsonrpc is {msg.get('jsonrpc')!r}, not \"2.0\"")
        has_id, has_method = "id" in msg, "method" in msg
        if has_id and not is_id(msg["id"]) and not (msg["id"] is None and not has_method):
            return bad("envelope.id", "/id", f"id {json.dumps(msg['id'])} is not a string or an integer")
        if has_method and not isinstance(msg["method"], str):
            return bad("envelope.kind", "/method", "method is not a string")
        if has_method:
            return self._call(msg, line, side, has_id, bad)
        if has_id or "error" in msg:
            return self._response(msg, line, side, bad)
        return bad("envelope.kind", "", "neither a request, a response nor a notification")

    # requests and notifications ----------------------------------------------

    def _call(self, msg, line, side, has_id, bad):
        name = msg["method"]
        kind = "request" if has_id else "notification"
        m = self.p.method(name)
        ext = self.p.is_extension(name)
        if m is None and not ext:
            if has_id:
                self.pending[(side, id_key(msg["id"]))] = (name, line)
            return bad("method.unknown", "/method", f"unknown method {name!r}")
        if m is not None and m.kind != kind:
            return bad("method.kind", "/id" if has_id else "",
                       f"{name!r} is a {m.kind} but was sent as a {kind}")
        if m is not None and side not in m.senders:
            return bad("method.direction", "/method", f"{name!r} is sent by the {m.sender}, not the {side}")
        if has_id:
            key = (side, id_key(msg["id"]))
            if key in self.pending:
                return bad("request.duplicate-id", "/id",
                           f"id {json.dumps(msg['id'])} is already in flight (line {self.pending[key][1]})")
            self.pending[key] = (name, line)
            if self.p.name != "mcp-2026-07-28" and side == "client":
                if name == "initialize":
                    self.initialized = True
                elif not self.initialized and name != "ping":
                    return bad("state.initialize-first", "/method", f"{name!r} before initialize")
        if ext:
            return []
        # Schemas: the generic envelope type, then the method's own type.
        if self.p.style == "mcp":
            env = "#/$defs/JSONRPCRequest" if has_id else "#/$defs/JSONRPCNotification"
            errs = self.p.errors(m.message, msg) or self.p.errors(env, msg) or self.p.errors("#/$defs/JSONRPCMessage", msg)
            if errs:
                return self._schema_finding(errs, bad, "params.schema")
        else:
            if "params" not in msg:
                if not m.params_optional:
                    return bad("params.schema", "/params", f"{name}: params missing")
            else:
                errs = self.p.errors(m.params, msg["params"])
                if errs:
                    return self._schema_finding(errs, bad, "params.schema", "/params")
        if name == "notifications/cancelled":
            rid = msg.get("params", {}).get("requestId")
            if is_id(rid):
                target = (side, id_key(rid))
                if self.p.name == "mcp-2026-07-28" and side == "server":
                    target = ("client", id_key(rid))  # stdio: ends a subscriptions/listen stream
                self.cancelled.add(target)
        return []

    # responses ----------------------------------------------------------------

    def _response(self, msg, line, side, bad):
        if ("result" in msg) == ("error" in msg):
            return bad("envelope.response", "", "a response has both \"result\" and \"error\"" if "result" in msg
                       else "a response has neither \"result\" nor \"error\"")
        rid = msg.get("id")
        req = None
        if is_id(rid):
            key = (OTHER[side], id_key(rid))
            if key in self.answered:
                return bad("response.duplicate", "/id", f"second response to id {json.dumps(rid)}")
            req = self.pending.pop(key, None)
            if req is None:
                return bad("response.unknown-id", "/id", f"response to id {json.dumps(rid)}: no request with this id was sent by the {OTHER[side]}")
            self.answered[key] = line
        if "error" in msg:
            return self._error(msg, bad)
        name = req[0]
        m = self.p.method(name)
        if m is None:
            return []  # the request already has its finding (method.unknown) or is an extension
        if self.p.style == "mcp":
            errs = self.p.errors("#/$defs/JSONRPCResultResponse", msg) or self.p.errors("#/$defs/JSONRPCMessage", msg)
            if errs:
                return self._schema_finding(errs, bad, "result.schema")
        alts = [self.p.errors(r, msg["result"]) for r in m.results]
        if alts and all(alts):
            errs = min(alts, key=len)
            return self._schema_finding(errs, bad, "result.schema", "/result")
        return []

    def _error(self, msg, bad):
        if self.p.style == "mcp":
            errs = self.p.errors("#/$defs/JSONRPCErrorResponse", msg) or self.p.errors("#/$defs/JSONRPCMessage", msg)
            code = msg["error"].get("code") if isinstance(msg["error"], dict) else None
            if not errs and code in MCP_ERROR_MESSAGE_DEFS and MCP_ERROR_MESSAGE_DEFS[code] in self.p.defs:
                errs = self.p.errors("#/$defs/" + MCP_ERROR_MESSAGE_DEFS[code], msg)
            if not errs and code in MCP_ERROR_DEFS and MCP_ERROR_DEFS[code] in self.p.defs:
                errs = self.p.errors("#/$defs/" + MCP_ERROR_DEFS[code], msg["error"])
                return self._schema_finding(errs, bad, "error.schema", "/error") if errs else []
            return self._schema_finding(errs, bad, "error.schema") if errs else []
        errs = self.p.errors(protolib.JSONRPC_ERROR, msg["error"])
        return self._schema_finding(errs, bad, "error.schema", "/error") if errs else []

    # schema findings ----------------------------------------------------------

    def _schema_finding(self, errs, bad, rule, prefix=""):
        tag = self._tag_problem(errs)
        if tag:
            rule, path, text = tag
            return bad(rule, prefix + pointer_of(path), text)
        e = self._narrow(best_match(errs))
        return bad(rule, prefix + pointer_of(e.absolute_path), e.message[:300])

    def _union_tag(self, e):
        """(member, [const per branch]) when the oneOf/anyOf error e is at a
        union whose branches all require one member with distinct const
        strings; else None."""
        if e.validator not in ("oneOf", "anyOf") or not isinstance(e.instance, dict):
            return None
        consts = {}
        for b in e.validator_value:
            n = b
            while isinstance(n, dict) and "$ref" in n:
                n = protolib.resolve(self.p.doc, n["$ref"])  # the schemas only use local refs
            for k, v in (n.get("properties", {}) if isinstance(n, dict) else {}).items():
                if isinstance(v, dict) and isinstance(v.get("const"), str) and k in n.get("required", []):
                    consts.setdefault(k, []).append(v["const"])
        tags = [k for k, vs in consts.items() if len(vs) == len(e.validator_value) and len(set(vs)) == len(vs)]
        return (tags[0], consts[tags[0]]) if len(tags) == 1 else None

    def _narrow(self, e):
        """At a tagged union whose tag the value names, report the error of
        that branch (as dshgen does), not the union's "not valid under any"."""
        while e.context:
            t = self._union_tag(e)
            if not t or e.instance.get(t[0]) not in t[1]:
                break
            i = t[1].index(e.instance[t[0]])
            sub = [c for c in e.context if c.relative_schema_path and c.relative_schema_path[0] == i]
            if not sub:
                break
            e = best_match(sub)
        return e

    def _tag_problem(self, errs):
        """union.missing-tag / union.unknown-tag: a tagged union (see
        _union_tag) and a value that lacks the tag or has a value no branch
        declares."""
        stack = list(errs)
        while stack:
            e = stack.pop()
            stack.extend(e.context or [])
            t = self._union_tag(e)
            if not t:
                continue
            if t[0] not in e.instance:
                return "union.missing-tag", e.absolute_path, f"tag {t[0]!r} missing (one of {sorted(t[1])})"
            if e.instance[t[0]] not in t[1]:
                return "union.unknown-tag", list(e.absolute_path) + [t[0]], f"unknown {t[0]} {e.instance[t[0]]!r}; known: {sorted(t[1])}"
        return None

    def close(self):
        """request.unanswered (info) for requests never answered nor cancelled."""
        return [{"line": ln, "rule": "request.unanswered", "pointer": "", "message": f"no response to {name!r}"}
                for key, (name, ln) in self.pending.items() if key not in self.cancelled]


def check_file(proto, path):
    s = Session(proto)
    findings = []
    for line, side, _, raw in read_capture(path):
        findings += s.feed(line, side, raw)
    return s.frames, findings, s.close()


def check_protocol(name, verbose):
    proto = protolib.Protocol(name)
    base = protolib.HERE / name / "frames"
    failures = []
    counts = {"valid files": 0, "valid frames": 0, "invalid files": 0, "invalid frames": 0, "examples": 0}
    for path in sorted((base / "valid").glob("*.log")):
        n, f, unanswered = check_file(proto, path)
        counts["valid files"] += 1
        counts["valid frames"] += n
        for x in f + unanswered:
            failures.append(f"{path.relative_to(protolib.HERE)}:{x['line']}: {x['rule']} {x['pointer']}: {x['message']}")
        if verbose:
            print(f"  ok {path.name}: {n} frames")
    expected = json.loads((base / "invalid" / "expected.json").read_text())
    files = sorted((base / "invalid").glob("*.log"))
    for path in files:
        if path.name not in expected:
            failures.append(f"{path.relative_to(protolib.HERE)}: not in expected.json")
    for fname in expected:
        if not (base / "invalid" / fname).exists():
            failures.append(f"expected.json names {fname}, which does not exist (stale entry)")
    for path in files:
        if path.name not in expected:
            continue
        n, got, _ = check_file(proto, path)
        counts["invalid files"] += 1
        want = expected[path.name]["findings"]
        counts["invalid frames"] += len({w["line"] for w in want})
        rel = path.relative_to(protolib.HERE)
        for w in want:
            hit = [g for g in got if g["line"] == w["line"] and g["rule"] == w["rule"]
                   and g["pointer"].startswith(w.get("pointer", ""))]
            if not hit:
                failures.append(f"{rel}:{w['line']}: expected {w['rule']} {w.get('pointer', '')}, got "
                                + (", ".join(f"{g['line']}:{g['rule']} {g['pointer']}" for g in got) or "nothing"))
            elif verbose:
                print(f"  ok {path.name}:{w['line']}: {w['rule']} {hit[0]['pointer']}: {hit[0]['message'][:100]}")
        for g in got:
            if not any(g["line"] == w["line"] and g["rule"] == w["rule"] for w in want):
                failures.append(f"{rel}:{g['line']}: unexpected {g['rule']} {g['pointer']}: {g['message']}")
    if proto.examples is not None:
        for d in sorted(proto.examples.iterdir()):
            for ex in sorted(d.glob("*.json")):
                counts["examples"] += 1
                errs = proto.errors("#/$defs/" + d.name, json.loads(ex.read_text()))
                if errs:
                    failures.append(f"example {d.name}/{ex.name}: {best_match(errs).message}")
    return counts, failures


def main(argv):
    verbose = "-v" in argv
    names = [a for a in argv if not a.startswith("-")] or list(protolib.PROTOCOLS)
    bad = 0
    for name in names:
        counts, failures = check_protocol(name, verbose)
        print(f"{name}: {counts['valid frames']} valid frames in {counts['valid files']} files, "
              f"{counts['invalid frames']} invalid frames in {counts['invalid files']} files"
              + (f", {counts['examples']} official examples" if counts["examples"] else "")
              + (": ok" if not failures else f": {len(failures)} failures"))
        for x in failures:
            print("  " + x)
        bad += len(failures)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

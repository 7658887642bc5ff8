"""Shared code of check_frames.py and survey.py: the three published schemas,
the method table each one implies, and JSON Schema validation of one value
against one $defs type (jsonschema, draft 2020-12).

The schemas are read unmodified from ../shared/protocols (the folder beside
the repository; DSHGEN_SHARED overrides it). Nothing here edits them.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("DSHGEN_SHARED", HERE.parents[2] / "shared"))

PROTOCOLS = {
    "mcp-2025-11-25": {"schema": "protocols/mcp/2025-11-25/schema.json", "style": "mcp"},
    "mcp-2026-07-28": {
        "schema": "protocols/mcp/2026-07-28/schema.json",
        "style": "mcp",
        "examples": "protocols/mcp/2026-07-28/examples",
    },
    "acp": {"schema": "protocols/acp/schema.json", "meta": "protocols/acp/meta.json", "style": "acp"},
}

# JSON-RPC 2.0 error object (jsonrpc.org/specification §5.1). ACP's schema has
# no envelope or error type, so ACP error responses are checked against this.
JSONRPC_ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}},
}


def ptr_escape(s):
    return s.replace("~", "~0").replace("/", "~1")


def ptr_join(base, *parts):
    return base + "".join("/" + ptr_escape(str(p)) for p in parts)


def resolve(doc, pointer):
    """The node at a '#/...' pointer of doc."""
    node = doc
    if pointer in ("#", ""):
        return node
    for raw in pointer.lstrip("#").lstrip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def def_name(pointer):
    """'Foo' for '#/$defs/Foo', else ''."""
    if pointer.startswith("#/$defs/") and pointer.count("/") == 2:
        return pointer.split("/")[2]
    return ""


@dataclass
class Method:
    name: str
    kind: str  # "request" or "notification"
    senders: set  # {"client"}, {"server"} or both
    message: str = ""  # MCP: the $defs type of the whole frame
    params: str = ""  # pointer of the params schema
    params_optional: bool = False
    results: list = field(default_factory=list)  # pointers, alternatives
    source: str = ""  # where the entry was read from
    notes: list = field(default_factory=list)

    @property
    def sender(self):
        return "both" if len(self.senders) == 2 else next(iter(self.senders))


class Protocol:
    """One published schema with its method table."""

    def __init__(self, name):
        cfg = PROTOCOLS[name]
        self.name = name
        self.style = cfg["style"]
        self.path = SHARED / cfg["schema"]
        self.doc = json.loads(self.path.read_text())
        self.defs = self.doc.get("$defs", {})
        self.meta = json.loads((SHARED / cfg["meta"]).read_text()) if "meta" in cfg else None
        self.examples = SHARED / cfg["examples"] if "examples" in cfg else None
        self.uri = "urn:dshgen-protodata:" + name
        self.registry = Registry().with_resource(self.uri, Resource(self.doc, DRAFT202012))
        self._validators = {}
        self.methods = {}  # wire methods: name -> Method
        self.embedded = {}  # MCP 2026 input requests (no envelope): name -> Method
        self.ambiguities = []  # (pointer, text)
        if self.style == "mcp":
            self._mcp_methods()
        else:
            self._acp_methods()

    # validation ---------------------------------------------------------------

    def validator(self, pointer_or_schema):
        key = json.dumps(pointer_or_schema, sort_keys=True)
        v = self._validators.get(key)
        if v is None:
            if isinstance(pointer_or_schema, str):
                schema = {"$ref": self.uri + pointer_or_schema}
            else:
                schema = pointer_or_schema
            v = Draft202012Validator(schema, registry=self.registry)
            self._validators[key] = v
        return v

    def errors(self, pointer_or_schema, value):
        """Validation errors of value against a $defs pointer or a schema."""
        return list(self.validator(pointer_or_schema).iter_errors(value))

    def node(self, pointer):
        return resolve(self.doc, pointer)

    def deref(self, pointer):
        """Follow $ref chains from pointer; returns (pointer, node)."""
        seen = set()
        n = self.node(pointer)
        while isinstance(n, dict) and "$ref" in n and pointer not in seen:
            seen.add(pointer)
            pointer = n["$ref"]
            n = self.node(pointer)
        return pointer, n

    # MCP ----------------------------------------------------------------------

    def _method_const(self, node):
        m = node.get("properties", {}).get("method", {}) if isinstance(node, dict) else {}
        c = m.get("const")
        return c if isinstance(c, str) else None

    def _mcp_methods(self):
        sides = {
            "ClientRequest": ("client", "request"),
            "ServerRequest": ("server", "request"),
            "ClientNotification": ("client", "notification"),
            "ServerNotification": ("server", "notification"),
        }
        by_def = {}  # def name -> (kind, senders)
        for union, (side, kind) in sides.items():
            if union not in self.defs:
                continue
            u = self.defs[union]
            refs = [b["$ref"] for b in u.get("anyOf", []) if "$ref" in b]
            if not refs and self._method_const(u):
                # MCP 2026-07-28: ClientNotification is an inline copy of one
                # notification, not a union of $refs.
                twin = [k for k, v in self.defs.items()
                        if k not in sides and self._strip(v) == self._strip(u)]
                self.ambiguities.append((
                    "#/$defs/" + union,
                    f"{union} is not a union but an inline object declaring method "
                    f"{self._method_const(u)!r}; it is structurally identical to "
                    f"{', '.join(twin) or 'no other def'} (descriptions aside), so two defs "
                    f"declare that method. The table takes {twin[0] if twin else union} "
                    f"and lists {union} as its alias."))
                refs = ["#/$defs/" + (twin[0] if twin else union)]
            for r in refs:
                d = def_name(r)
                k0, s0 = by_def.get(d, (kind, set()))
                if k0 != kind:
                    raise ValueError(f"{d} is both a request and a notification")
                by_def[d] = (kind, s0 | {side})
        for d, (kind, senders) in by_def.items():
            node = self.defs[d]
            name = self._method_const(node)
            at = "#/$defs/" + d
            params = node.get("properties", {}).get("params")
            if params is None:
                ppt = ""
            elif "$ref" in params:
                ppt = params["$ref"]
            else:
                ppt = at + "/properties/params"
            m = Method(name=name, kind=kind, senders=senders, message=at, params=ppt,
                       params_optional="params" not in node.get("required", []),
                       source=at + " (member of " + ", ".join(
                           u for u, (s, k) in sides.items()
                           if u in self.defs and s in senders and k == kind) + ")")
            if kind == "request":
                m.results = self._mcp_results(d, m)
            if name in self.methods:
                raise ValueError(f"two defs declare method {name}")
            self.methods[name] = m
        # Defs declaring a method const that are not wire messages.
        for d, node in self.defs.items():
            name = self._method_const(node)
            if not name or d in by_def or d in sides:
                continue
            props = node.get("properties", {})
            at = "#/$defs/" + d
            if "jsonrpc" not in props and d.endswith("Request"):
                params = props.get("params")
                ppt = params["$ref"] if params and "$ref" in params else (at + "/properties/params" if params else "")
                base = d[: -len("Request")]
                res = ["#/$defs/" + base + "Result"] if base + "Result" in self.defs else []
                self.embedded[name] = Method(
                    name=name, kind="request", senders={"server"}, message=at, params=ppt,
                    params_optional="params" not in node.get("required", []), results=res,
                    source=at + " (member of InputRequest; sent inside InputRequiredResult.inputRequests, answered inside the retried request's params.inputResponses)")
            else:
                self.ambiguities.append((at, f"{d} declares method {name!r} but is in no Client*/Server* union"))

    def _strip(self, x):
        if isinstance(x, dict):
            return {k: self._strip(v) for k, v in x.items() if not (k == "description" and isinstance(v, str))}
        if isinstance(x, list):
            return [self._strip(v) for v in x]
        return x

    def _mcp_results(self, d, m):
        base = d[: -len("Request")] if d.endswith("Request") else d
        resp = self.defs.get(base + "ResultResponse")
        out = []
        if resp is not None:
            r = resp["properties"]["result"]
            at = f"#/$defs/{base}ResultResponse/properties/result"
            out = [b["$ref"] for b in r["anyOf"]] if "anyOf" in r else [r.get("$ref", at)]
            m.notes.append(f"result from #/$defs/{base}ResultResponse")
        elif base + "Result" in self.defs:
            out = ["#/$defs/" + base + "Result"]
            m.notes.append(f"result by name: {d} -> {base}Result")
        else:
            out = ["#/$defs/EmptyResult"]
            m.notes.append(f"no {base}Result def: EmptyResult (the spec's empty result)")
            self.ambiguities.append(("#/$defs/" + d, f"no {base}Result or {base}ResultResponse def: the result type "
                                     f"(EmptyResult) is not stated by the schema; an overlay must name it"))
        # Task-augmented requests (2025-11-25): params.task makes the result a CreateTaskResult.
        if m.params:
            _, pn = self.deref(m.params)
            if isinstance(pn, dict) and "task" in pn.get("properties", {}) and "CreateTaskResult" in self.defs:
                out.append("#/$defs/CreateTaskResult")
                m.notes.append("CreateTaskResult when params.task is present (task-augmented request)")
                self.ambiguities.append((m.params + "/properties/task",
                                         f"{m.name}: with params.task the result is CreateTaskResult instead of "
                                         f"{def_name(out[0])}; the schema links them only in prose, and "
                                         f"CreateTaskResult is in neither ClientResult nor ServerResult"))
        # Cross-check against the receiver's result union.
        recv = "ServerResult" if m.senders == {"client"} else "ClientResult" if m.senders == {"server"} else None
        if recv and recv in self.defs:
            u = self.defs[recv]
            members = {b["$ref"] for b in u.get("anyOf", []) if "$ref" in b} | ({u["$ref"]} if "$ref" in u else set())
            for r in out:
                rr = "#/$defs/Result" if r == "#/$defs/EmptyResult" else r
                if rr not in members and r != "#/$defs/CreateTaskResult":
                    m.notes.append(f"{def_name(r)} is not a member of {recv}")
        return out

    # ACP ----------------------------------------------------------------------

    def _acp_methods(self):
        handled_by = {}  # method -> "agent" | "client"
        for key, side in (("agentMethods", "agent"), ("clientMethods", "client")):
            for _, name in self.meta[key].items():
                handled_by[name] = side
        groups = {}
        for d, node in self.defs.items():
            xm = node.get("x-method")
            if xm:
                groups.setdefault(xm, []).append(d)
                if node.get("x-side") != handled_by.get(xm):
                    self.ambiguities.append(("#/$defs/" + d, f"x-side {node.get('x-side')!r} disagrees with meta.json for {xm}"))
        for name in set(handled_by) - set(groups):
            self.ambiguities.append(("meta.json", f"{name} is in meta.json but no def carries x-method {name!r}"))
        for name, ds in groups.items():
            resp = [d for d in ds if d.endswith("Response")]
            par = [d for d in ds if not d.endswith("Response")]
            if len(par) != 1 or len(resp) > 1:
                raise ValueError(f"{name}: cannot tell params from result among {ds}")
            sender = "client" if handled_by.get(name) == "agent" else "server"
            m = Method(name=name, kind="request" if resp else "notification", senders={sender},
                       message="", params="#/$defs/" + par[0], params_optional=False,
                       results=["#/$defs/" + resp[0]] if resp else [],
                       source=f"meta.json {'agentMethods' if sender == 'client' else 'clientMethods'} + x-method on {', '.join(sorted(ds))}")
            pn = self.defs[par[0]]
            if not pn.get("required"):
                m.params_optional = True
                m.notes.append("params type has no required member")
            self.methods[name] = m
        self.ambiguities.append(("meta.json", "request or notification is not stated: a method is taken as a request "
                                 "when a *Response def carries its x-method (session/cancel and session/update have none)"))
        # The routing unions must agree with x-side; their titles are read too.
        unions = {"ClientRequest": ("client", "request"), "AgentRequest": ("server", "request"),
                  "ClientNotification": ("client", "notification"), "AgentNotification": ("server", "notification"),
                  "ClientResponse": ("client", "response"), "AgentResponse": ("server", "response")}
        for u, (sender, kind) in unions.items():
            for i, b in enumerate(self.defs[u]["anyOf"]):
                at = f"#/$defs/{u}/anyOf/{i}"
                if "$ref" not in b:
                    self.ambiguities.append((at, f"{u} branch {b.get('title')!r} is the empty schema {{}}: "
                                             f"extension {kind}s (method names starting with '_') and anything else"))
                    continue
                d = def_name(b["$ref"])
                xm = self.defs[d].get("x-method")
                m = self.methods.get(xm)
                if m is None or m.senders != {sender if kind != "response" else ("server" if sender == "client" else "client")}:
                    self.ambiguities.append((at, f"{u} lists {d} (x-method {xm}) against x-side/meta.json"))
                if b.get("title") not in (None, d):
                    self.ambiguities.append((at, f"branch title {b['title']!r} differs from the $ref'd def {d}"))
        for i, b in enumerate(self.doc.get("anyOf", [])):
            if b.get("title") != def_name(b.get("$ref", "")):
                self.ambiguities.append((f"#/anyOf/{i}", f"root branch titled {b.get('title')!r} refers to "
                                         f"{def_name(b.get('$ref', ''))}: the titles of the root union contradict the defs they name"))

    # shared -------------------------------------------------------------------

    def method(self, name):
        return self.methods.get(name)

    def is_extension(self, name):
        """ACP extension methods: names starting with '_' (accepted by the
        Ext* fallback branches of the request/notification unions)."""
        return self.style == "acp" and isinstance(name, str) and name.startswith("_")


def load_all():
    return {n: Protocol(n) for n in PROTOCOLS}

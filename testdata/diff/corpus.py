#!/usr/bin/env python3
"""Writes the `dshgen diff` test corpus: testdata/diff/<case>/{old,new}.json.

Every case starts from one small base schema (BASE below: a client-to-server
request, a server-to-client notification, closed and open tagged unions, a
union by JSON type, enums, a closed object, constraints) and applies one
mutation to the old and/or the new copy. A case named after a rule id shows
that rule; cases starting with "x-" show one more piece of reasoning.

    python3 testdata/diff/corpus.py          # rewrite old.json/new.json of every case
    go test ./gen/wire/diff -run TestCorpus -update  # then rewrite the expected.txt reports

The Go test (gen/wire/diff/diff_test.go) checks that every rule has a case whose
report contains it. Stdlib only; run from anywhere.
"""

import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

BASE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "dshgen diff corpus",
    "description": "Base schema of the dshgen diff corpus: item/put is sent client-to-server (PutParams) and answered server-to-client (PutResult); item/changed is a server-to-client notification (ChangedNotification).",
    "x-methods": {
        "item/put": {
            "kind": "request",
            "direction": "client-to-server",
            "params": {"$ref": "#/$defs/PutParams"},
            "result": {"$ref": "#/$defs/PutResult"},
        },
        "item/changed": {
            "kind": "notification",
            "direction": "server-to-client",
            "params": {"$ref": "#/$defs/ChangedNotification"},
        },
        "shutdown": {
            "kind": "request",
            "direction": "client-to-server",
            "params": {"$ref": "#/$defs/Empty"},
            "paramsOptional": True,
            "result": {"$ref": "#/$defs/Empty"},
        },
    },
    "$defs": {
        "PutParams": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": "^[a-z]+$"},
                "note": {"type": "string", "maxLength": 100},
                "count": {"type": "integer", "minimum": 0},
                "weight": {"type": "number"},
                "api": {"const": "v1"},
                "priority": {"$ref": "#/$defs/Priority"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["id"],
        },
        "PutResult": {
            "type": "object",
            "properties": {
                "ok": {"type": "boolean"},
                "revision": {"type": "integer"},
            },
            "required": ["ok", "revision"],
        },
        "ChangedNotification": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "state": {"$ref": "#/$defs/State"},
                "shape": {"$ref": "#/$defs/Shape"},
                "event": {"$ref": "#/$defs/Event"},
                "value": {"$ref": "#/$defs/Value"},
                "detail": {"anyOf": [{"$ref": "#/$defs/Detail"}, {"type": "null"}]},
            },
            "required": ["id", "state"],
        },
        "State": {"type": "string", "enum": ["idle", "running"]},
        "Priority": {"type": "string", "enum": ["low", "high"]},
        "Shape": {
            "description": "Closed tagged union.",
            "oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}],
        },
        "Circle": {
            "type": "object",
            "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
            "required": ["kind", "r"],
        },
        "Square": {
            "type": "object",
            "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
            "required": ["kind", "side"],
        },
        "Event": {
            "description": "Open tagged union (UnknownEvent is the fallback).",
            "oneOf": [
                {"$ref": "#/$defs/StartEvent"},
                {"$ref": "#/$defs/StopEvent"},
                {"$ref": "#/$defs/UnknownEvent"},
            ],
        },
        "StartEvent": {
            "type": "object",
            "properties": {"type": {"const": "start"}},
            "required": ["type"],
        },
        "StopEvent": {
            "type": "object",
            "properties": {"type": {"const": "stop"}, "code": {"type": "integer"}},
            "required": ["type"],
        },
        "UnknownEvent": {
            "type": "object",
            "properties": {"type": {"type": "string", "not": {"enum": ["start", "stop"]}}},
            "required": ["type"],
        },
        "Value": {
            "description": "Union by JSON type.",
            "oneOf": [{"type": "string"}, {"type": "integer"}],
        },
        "Detail": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "hint": {"type": "string"}},
            "required": ["code"],
            "additionalProperties": False,
        },
        "Empty": {"type": "object", "properties": {}},
    },
}


def defs(s):
    return s["$defs"]


def props(s, t):
    return s["$defs"][t]["properties"]


def rename_refs(node, old, new):
    """Replace every $ref to #/$defs/old by #/$defs/new."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and v == "#/$defs/" + old:
                node[k] = "#/$defs/" + new
            else:
                rename_refs(v, old, new)
    elif isinstance(node, list):
        for v in node:
            rename_refs(v, old, new)


def rename_def(s, old, new):
    d = defs(s)
    items = [(new if k == old else k, v) for k, v in d.items()]
    d.clear()
    d.update(items)
    rename_refs(s, old, new)


# case name -> (mutate old, mutate new); either may be None. Each applies
# to its own copy only: a mutation both sides share is repeated in new.
CASES = {}


def case(name, new=None, old=None):
    CASES[name] = (old, new)


# Methods.
case("request-added", new=lambda s: s["x-methods"].update({"item/get": {
    "kind": "request", "direction": "client-to-server",
    "params": {"$ref": "#/$defs/Empty"}, "result": {"$ref": "#/$defs/PutResult"}}}))
case("notification-added", new=lambda s: s["x-methods"].update({"item/removed": {
    "kind": "notification", "direction": "server-to-client",
    "params": {"$ref": "#/$defs/ChangedNotification"}}}))
case("request-removed", new=lambda s: s["x-methods"].pop("item/put"))
case("notification-removed", new=lambda s: s["x-methods"].pop("item/changed"))


def to_notification(s):
    m = s["x-methods"]["shutdown"]
    m["kind"] = "notification"
    del m["result"]


case("method-kind-changed", new=to_notification)
case("method-direction-changed", new=lambda s: s["x-methods"]["item/changed"].update({"direction": "client-to-server"}))
case("params-made-required", new=lambda s: s["x-methods"]["shutdown"].pop("paramsOptional"))
case("params-made-optional", new=lambda s: s["x-methods"]["item/put"].update({"paramsOptional": True}))


def params_type_changed(s):
    r = copy.deepcopy(defs(s)["PutParams"])
    r["properties"]["force"] = {"type": "boolean"}
    defs(s)["PutRequest"] = r
    s["x-methods"]["item/put"]["params"] = {"$ref": "#/$defs/PutRequest"}


case("method-params-type-changed", new=params_type_changed)


def result_type_changed(s):
    defs(s)["PutReceipt"] = copy.deepcopy(defs(s)["PutResult"])
    s["x-methods"]["item/put"]["result"] = {"$ref": "#/$defs/PutReceipt"}


case("method-result-type-changed", new=result_type_changed)
case("method-identifier-changed", new=lambda s: s["x-methods"]["item/put"].update({"x-name": "StoreItem"}))

# Named types.
case("type-added", new=lambda s: defs(s).update({"Color": {"type": "string", "enum": ["red", "blue"]}}))
case("type-removed", old=lambda s: defs(s).update({"Legacy": {"type": "object", "properties": {"a": {"type": "string"}}}}))
case("type-renamed", new=lambda s: rename_def(s, "State", "Status"))
case("type-identifier-changed", new=lambda s: defs(s)["State"].update({"x-go-name": "ItemState"}))
case("type-kind-changed", new=lambda s: defs(s).update({"State": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}))

# Object members.
case("optional-member-added", new=lambda s: props(s, "ChangedNotification").update({"reason": {"type": "string"}}))


def required_added(s):
    props(s, "PutParams")["owner"] = {"type": "string"}
    defs(s)["PutParams"]["required"].append("owner")


case("required-member-added", new=required_added)
case("member-added-to-closed-object", new=lambda s: props(s, "Detail").update({"origin": {"type": "string"}}))
case("optional-member-removed", new=lambda s: props(s, "PutParams").pop("note"))


def forbid_note(s):
    """PutParams drops "note" and forbids it the way 0.2.1 forbids EpochHeader.system: not + required, inside allOf."""
    props(s, "PutParams").pop("note")
    defs(s)["PutParams"]["allOf"] = [{"not": {"required": ["note"]}}]


case("member-forbidden", new=forbid_note)
case("member-unforbidden", old=forbid_note)


def required_removed(s):
    props(s, "PutResult").pop("revision")
    defs(s)["PutResult"]["required"].remove("revision")


case("required-member-removed", new=required_removed)
case("member-removed-from-closed-object", new=lambda s: props(s, "Detail").pop("hint"))
case("member-made-required", new=lambda s: defs(s)["PutParams"]["required"].append("note"))
case("member-made-optional", new=lambda s: defs(s)["ChangedNotification"]["required"].remove("state"))
case("member-identifier-changed", new=lambda s: props(s, "PutParams")["note"].update({"x-name": "comment"}))
case("object-closed", new=lambda s: defs(s)["PutParams"].update({"additionalProperties": False}))
case("object-opened", new=lambda s: defs(s)["Detail"].pop("additionalProperties"))

# Values.
case("value-type-changed", new=lambda s: props(s, "PutParams").update({"id": {"type": "integer"}}))
case("value-type-widened", new=lambda s: props(s, "PutResult").update({"revision": {"type": "number"}}))
case("value-type-narrowed", new=lambda s: props(s, "PutParams").update({"weight": {"type": "integer"}}))


def ref_changed(s):
    defs(s)["ItemId"] = {"type": "string", "pattern": "^[a-z]+$"}
    props(s, "PutParams")["id"] = {"$ref": "#/$defs/ItemId"}


case("value-ref-changed", new=ref_changed)
case("nullable-added", new=lambda s: props(s, "ChangedNotification").update({"id": {"type": ["string", "null"]}}))
case("nullable-removed", new=lambda s: props(s, "ChangedNotification").update({"detail": {"$ref": "#/$defs/Detail"}}))
case("const-changed", new=lambda s: props(s, "PutParams").update({"api": {"const": "v2"}}))
case("const-added", new=lambda s: props(s, "PutParams").update({"note": {"type": "string", "const": "none", "maxLength": 100}}))
case("const-removed", new=lambda s: props(s, "PutParams").update({"api": {"type": "string"}}))

# Enums.
case("enum-value-added", new=lambda s: defs(s)["State"]["enum"].append("paused"))
case("enum-value-removed", new=lambda s: defs(s)["Priority"]["enum"].remove("high"))
case("enum-identifier-changed", new=lambda s: defs(s)["State"].update({"x-enum-names": ["Idle", "Busy"]}))

# Unions.


def triangle_def(s):
    defs(s)["Triangle"] = {"type": "object", "properties": {"kind": {"const": "triangle"}, "base": {"type": "number"}},
                           "required": ["kind", "base"]}


def add_triangle(s):
    triangle_def(s)
    defs(s)["Shape"]["oneOf"].append({"$ref": "#/$defs/Triangle"})


case("union-variant-added", new=add_triangle)


def add_pause(s):
    defs(s)["PauseEvent"] = {"type": "object", "properties": {"type": {"const": "pause"}}, "required": ["type"]}
    defs(s)["Event"]["oneOf"].insert(2, {"$ref": "#/$defs/PauseEvent"})
    props(s, "UnknownEvent")["type"]["not"]["enum"] = ["pause", "start", "stop"]


case("open-union-variant-added", new=add_pause)
case("union-variant-removed", old=add_triangle, new=triangle_def)


def remove_stop(s):
    defs(s)["Event"]["oneOf"] = [{"$ref": "#/$defs/StartEvent"}, {"$ref": "#/$defs/UnknownEvent"}]
    props(s, "UnknownEvent")["type"]["not"]["enum"] = ["start"]


case("open-union-variant-removed", new=remove_stop)
case("union-variant-tag-changed", new=lambda s: props(s, "Square").update({"kind": {"const": "box"}}))


def variant_type_changed(s):
    defs(s)["Box"] = copy.deepcopy(defs(s)["Square"])
    defs(s)["Shape"]["oneOf"][1] = {"$ref": "#/$defs/Box"}


case("union-variant-type-changed", new=variant_type_changed)


def open_shape(s):
    defs(s)["UnknownShape"] = {"type": "object",
                               "properties": {"kind": {"type": "string", "not": {"enum": ["circle", "square"]}}},
                               "required": ["kind"]}
    defs(s)["Shape"]["oneOf"].append({"$ref": "#/$defs/UnknownShape"})


case("union-opened", new=open_shape)
case("union-closed", new=lambda s: defs(s)["Event"]["oneOf"].pop())


def retag_shape(s):
    for t in ("Circle", "Square"):
        p = props(s, t)
        p["form"] = p.pop("kind")
        defs(s)[t]["required"] = ["form"] + [r for r in defs(s)[t]["required"] if r != "kind"]


case("union-tag-changed", new=retag_shape)


def value_tagged(s):
    defs(s)["TextValue"] = {"type": "object", "properties": {"kind": {"const": "text"}, "text": {"type": "string"}},
                            "required": ["kind", "text"]}
    defs(s)["CountValue"] = {"type": "object", "properties": {"kind": {"const": "count"}, "n": {"type": "integer"}},
                             "required": ["kind", "n"]}
    defs(s)["Value"] = {"description": "Now a tagged union.",
                        "oneOf": [{"$ref": "#/$defs/TextValue"}, {"$ref": "#/$defs/CountValue"}]}


case("union-mode-changed", new=value_tagged)
case("union-branch-added", new=lambda s: defs(s)["Value"]["oneOf"].append({"type": "boolean"}))
case("union-branch-removed", old=lambda s: defs(s)["Value"]["oneOf"].append({"type": "boolean"}))

# Constraints.
case("constraint-tightened", new=lambda s: props(s, "PutParams")["note"].update({"maxLength": 50}))
case("constraint-loosened", new=lambda s: props(s, "PutParams")["count"].pop("minimum"))
case("constraint-changed", new=lambda s: props(s, "PutParams")["id"].update({"pattern": "^[a-z0-9]+$"}))

# More reasoning.
case("x-no-changes")


def both_ways(s):
    props(s, "PutParams")["shape"] = {"$ref": "#/$defs/Shape"}


def both_ways_new(s):
    both_ways(s)
    props(s, "Circle")["r"] = {"type": "string"}


case("x-type-used-both-ways", old=both_ways, new=both_ways_new)


def required_in_notification(s):
    props(s, "ChangedNotification")["seq"] = {"type": "integer"}
    defs(s)["ChangedNotification"]["required"].append("seq")


case("x-required-member-added-server-to-client", new=required_in_notification)


def enum_added_c2s(s):
    defs(s)["Priority"]["enum"].append("urgent")


case("x-enum-value-added-client-to-server", new=enum_added_c2s)


def rename_with_change(s):
    rename_def(s, "Detail", "Diagnostic")
    props(s, "Diagnostic")["origin"] = {"type": "string"}


case("x-type-renamed-by-usage", new=rename_with_change)


def unreached(s):
    defs(s)["Orphan"] = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}


def unreached_new(s):
    unreached(s)
    props(s, "Orphan")["a"] = {"type": "integer"}


case("x-type-no-method-uses", old=unreached, new=unreached_new)


def no_methods(s):
    del s["x-methods"]


def no_methods_new(s):
    no_methods(s)
    defs(s)["State"]["enum"].append("paused")


case("x-no-methods", old=no_methods, new=no_methods_new)


def write(path, s):
    with open(path, "w") as f:
        json.dump(s, f, indent=2)
        f.write("\n")


def main():
    for name, (mo, mn) in sorted(CASES.items()):
        d = os.path.join(HERE, name)
        os.makedirs(d, exist_ok=True)
        old, new = copy.deepcopy(BASE), copy.deepcopy(BASE)
        if mo:
            mo(old)
        if mn:
            mn(new)
        write(os.path.join(d, "old.json"), old)
        write(os.path.join(d, "new.json"), new)
    print(f"wrote {len(CASES)} cases under {HERE}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# Writes every hostile case (testdata/hostile/<case>/schema.json, expect.json and
# sibling files). Run from the repository root: python3 testdata/hostile/make.py
import json, os, sys

ROOT = "testdata/hostile"
S = "https://json-schema.org/draft/2020-12/schema"
PORT = 39217

COMPACT = {"29-deep-inline-nesting", "15-large-union"}

def case(name, schema, expect, extra=None):
    d = os.path.join(ROOT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "schema.json"), "w", encoding="utf-8") as f:
        if name in COMPACT:
            json.dump(schema, f, ensure_ascii=False, separators=(",", ":"))
        else:
            json.dump(schema, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(d, "expect.json"), "w", encoding="utf-8") as f:
        json.dump(expect, f, indent=2, ensure_ascii=False)
        f.write("\n")
    for rel, content in (extra or {}).items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            json.dump(content, f, indent=2, ensure_ascii=False)
            f.write("\n")

def doc(defs, methods=None, title=None, **kw):
    d = {"$schema": S}
    d.update(kw)
    if title:
        d["title"] = title
    if methods is not None:
        d["x-methods"] = methods
    d["$defs"] = defs
    return d

def obj(props, required=(), closed=False, **kw):
    o = {"type": "object", "properties": props}
    if required:
        o["required"] = list(required)
    if closed:
        o["additionalProperties"] = False
    o.update(kw)
    return o

STR = {"type": "string"}
INT = {"type": "integer"}
BOOL = {"type": "boolean"}

def gen(about, **kw):
    e = {"outcome": "generates", "about": about}
    e.update(kw)
    return e

def refused(about, pointers, **kw):
    e = {"outcome": "refused", "about": about, "pointers": pointers}
    e.update(kw)
    return e

# 01 Go keywords as type names and member names.
gokw = ["break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
        "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
        "return", "select", "struct", "switch", "type", "var"]
defs = {k: obj({"v": STR}) for k in ["type", "interface", "func", "map", "chan", "struct", "package", "range", "select", "go"]}
defs["Keywords"] = obj({k: STR for k in gokw}, required=["type", "func", "map"], closed=True,
                       description="Every Go keyword as a member name.")
defs["KeywordEnum"] = {"type": "string", "enum": gokw}
case("01-go-keywords", doc(defs, title="Go keywords"),
     gen("Go keywords as $defs names (type, interface, func, map, chan, struct, package, range, select, go), as member names and as enum values"))

# 02 Python keywords / builtins / typing names.
pykw = ["False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield", "match", "case", "_", "type", "print", "self", "cls",
        "id", "object", "dict", "list", "str", "int", "float", "bool", "bytes", "super",
        "dataclass", "field", "typing", "json", "Any", "Optional", "Literal", "ClassVar",
        "__init__", "__slots__", "__post_init__", "__match_args__",
        "to_json", "from_json", "extra", "WIRE_NAMES", "ABSENT"]
pydefs = {k: obj({"v": STR}) for k in ["None", "True", "False", "lambda", "yield", "Exception",
                                         "ValueError", "TypeError", "KeyError", "Ellipsis", "NotImplemented",
                                         "Callable", "Mapping", "Final", "TypeAlias", "TypeVar", "Protocol",
                                         "NoReturn", "Absent", "JsonValue2", "Decode", "Encode", "Enum"]}
# property names that need an override in some language get none: the tool escapes them.
props = {k: STR for k in pykw if k not in ("_",)}
pydefs["PyWords"] = obj(props, required=["None", "lambda", "yield", "self", "class"], closed=True,
                        description="Python keywords, soft keywords, builtins and dataclass/typing names as member names.")
pydefs["PyEnum"] = {"type": "string", "enum": [k for k in pykw if k != "_"]}
case("02-python-keywords", doc(pydefs, title="Python keywords"),
     gen("Python keywords, soft keywords (match, case, type), builtins, exception and typing names as type names, member names and enum values"))

# 03 TypeScript reserved words and globals as type names.
tsdefs = {k: obj({"v": STR}) for k in ["Object", "Array", "Error", "Promise", "Record", "Partial", "Map", "Set",
                                         "String", "Number", "Boolean", "Symbol", "JSON", "Date", "Function",
                                         "Readonly", "ReadonlyArray", "Pick", "Omit", "Exclude", "Extract",
                                         "NonNullable", "Required", "Iterable", "PropertyKey", "Uint8Array"]}
for k in ["any", "unknown", "never", "undefined", "void", "null", "bigint",
          "constructor", "prototype", "enum", "let", "static", "implements", "private"]:
    tsdefs[k] = obj({"v": STR})
case("03-ts-type-names", doc(tsdefs, title="TypeScript type names"),
     gen("TypeScript primitive type keywords (any, string, object, never, undefined, ...) and global types (Object, Array, Error, Promise, Record, Partial, Map, JSON, ...) as $defs names"))

# 04 TypeScript / JS member names.
tsprops = ["constructor", "prototype", "__proto__", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf",
           "string", "number", "any", "unknown", "never", "object", "interface", "type", "function", "class",
           "new", "delete", "typeof", "instanceof", "in", "of", "let", "var", "const", "enum", "export",
           "import", "default", "this", "super", "void", "null", "undefined", "true", "false", "NaN", "Infinity",
           "arguments", "eval", "length", "name", "then"]
tsobj = obj({k: STR for k in tsprops}, required=["constructor", "__proto__", "prototype", "then"], closed=True,
            description="JavaScript/TypeScript reserved words and Object.prototype members as member names.")
case("04-ts-member-names", doc({"JsMembers": tsobj, "OpenJs": obj({k: INT for k in ["constructor", "__proto__", "toString"]}),
                                "JsEnum": {"type": "string", "enum": tsprops}}, title="TS members"),
     gen("JavaScript/TypeScript reserved words and Object.prototype members (constructor, prototype, __proto__, toString, hasOwnProperty, then) as member names of closed and open objects and as enum values"))

# 05 Go builtins and generated-helper names as type names.
godefs = {k: obj({"v": STR}) for k in ["Error", "String", "Any", "Int", "Bool", "Byte", "Rune", "Len", "Make", "New",
                                         "Nil", "Iota", "Comparable", "Append", "Panic", "Print", "Close", "Copy",
                                         "Complex", "Real", "Imag", "Cap", "Min", "Max", "Clear",
                                         "MethodInfo", "LookupMethod", "DecodeParams", "DecodeResult", "DecodeError",
                                         "Nullable", "Requests", "Notifications", "RawMessage", "JSON", "Fmt", "Strconv",
                                         "Bytes", "Reflect", "Sort", "Strings", "Errors"]}
godefs["Members"] = obj({k: STR for k in ["Error", "String", "MarshalJSON", "UnmarshalJSON", "Extra", "Tag", "Raw",
                                           "Unknown", "Present", "Null", "Value", "GoString", "Format"]},
                        required=["Error", "String"], closed=False,
                        description="Method names of the generated Go types and of fmt's interfaces as member names.")
case("05-go-builtins-and-helpers", doc(godefs, title="Go builtins",
        **{"x-methods": {"ping": {"kind": "request", "direction": "client-to-server",
                                   "params": {"$ref": "#/$defs/Members"}, "result": {"$ref": "#/$defs/Error"}}}}),
     gen("Go predeclared identifiers (PascalCase forms) and the names the generated Go package defines itself (MethodInfo, LookupMethod, DecodeParams, DecodeResult, DecodeError, Nullable, Requests, Notifications) as $defs names; method names of generated types as members"))

# 06 Derived names that collide with a schema name: union unknown variant, Go enum constant, method constant, Decode<Union>.
shape = {"oneOf": [
    {"type": "object", "title": "Circle", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
    {"type": "object", "title": "Square", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}]}
case("06-derived-name-collisions", doc({
        "Shape": shape,
        "ShapeUnknown": obj({"v": STR}),
        "DecodeShape": obj({"v": STR}),
        "Color": {"type": "string", "enum": ["red", "green"]},
        "ColorRed": obj({"v": STR}),
        "MethodPing": obj({"v": STR}),
        "P": obj({}),
    }, methods={"ping": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}}}),
     refused("names the generator derives (a union's unknown variant ShapeUnknown, the Go decoder DecodeShape, the Go enum constant ColorRed, the Go method constant MethodPing) claimed by $defs of the same name: refused, naming both pointers",
             ["/$defs/ShapeUnknown", "/$defs/Shape", "/$defs/DecodeShape", "/$defs/ColorRed", "/$defs/Color/enum/0", "/$defs/MethodPing", "/x-methods/ping"],
             messages=["name collision"]))

# 07 Names differing only in case or separators.
case("07-case-and-separator-folding", doc({
        "Session": obj({"v": STR}),
        "session": obj({"v": STR}),
        "user_event": obj({"v": STR}),
        "UserEvent": obj({"v": STR}),
        "HTTPServer": obj({"v": STR}),
        "HttpServer": obj({"v": STR}),
        "Item": obj({"user_id": STR, "userId": STR, "user-id": STR, "UserID": STR}),
    }),
     refused("type names and member names that differ only in case or separators (Session/session, user_event/UserEvent, HTTPServer/HttpServer in Go, user_id/userId/user-id/UserID): refused with both pointers of every pair",
             ["/$defs/Session", "/$defs/session", "/$defs/user_event", "/$defs/UserEvent", "/$defs/HTTPServer", "/$defs/HttpServer",
              "/$defs/Item/properties/user_id", "/$defs/Item/properties/userId", "/$defs/Item/properties/user-id", "/$defs/Item/properties/UserID"],
             messages=["name collision"]))

# 08 The same, fixed with overrides.
case("08-folding-fixed-by-overrides", doc({
        "Session": obj({"v": STR}),
        "session": dict(obj({"v": STR}), **{"x-name": "SessionLower"}),
        "user_event": dict(obj({"v": STR}), **{"x-name": "UserEventSnake"}),
        "UserEvent": obj({"v": STR}),
        "HTTPServer": obj({"v": STR}),
        "HttpServer": dict(obj({"v": STR}), **{"x-go-name": "HTTPServerMixed"}),
        "Item": obj({"user_id": STR, "userId": dict(STR, **{"x-name": "userIdCamel"}),
                     "user-id": dict(STR, **{"x-name": "user dash id"}), "UserID": dict(STR, **{"x-go-name": "UserIDUpper", "x-python-name": "user_id_upper"})}),
    }),
     gen("the collisions of 07 fixed with x-name, x-go-name and x-python-name overrides"))

# 09 Enum values that are not identifiers, no x-enum-names.
case("09-enum-values-unnamed", doc({
        "Op": {"type": "string", "enum": ["+", "a b", "1st", "", "é", "名前", "🎉", "a-b", "a_b", "-"]},
    }),
     refused("enum values that give no identifier (\"+\", \"\", \"🎉\", \"-\") or fold together (\"a-b\"/\"a_b\") without x-enum-names: refused, naming the enum values' pointers",
             ["/$defs/Op/enum/0", "/$defs/Op/enum/3", "/$defs/Op/enum/6", "/$defs/Op/enum/9", "/$defs/Op/enum/7", "/$defs/Op/enum/8"]))

# 10 Same with x-enum-names.
case("10-enum-values-named", doc({
        "Op": {"type": "string", "enum": ["+", "a b", "1st", "", "é", "名前", "🎉", "a-b", "a_b", "-"],
               "x-enum-names": ["plus", "a space b", "first", "empty", "e acute", "namae", "party", "a dash b", "a underscore b", "minus"]},
        "Holder": obj({"op": {"$ref": "#/$defs/Op"}, "ops": {"type": "array", "items": {"$ref": "#/$defs/Op"}}}, required=["op"]),
    }),
     gen("the enum of 09 with x-enum-names: generates and compiles; the values are kept as written in string literals"))

# 11 Descriptions and titles that try to break out of comments and docstrings.
evil = ("A comment closer */ and opener /* here.\n//go:generate rm -rf /\n//go:build ignore\n//line evil.go:1\n"
        "Triple quotes \"\"\" and ''' and a backslash \\ and a trailing backslash \\\n"
        "CR\rCRLF\r\nLS\u2028PS\u2029NEL\u0085 tab\t"
        "${template} `backtick` <!-- --> <script> # not a comment\n"
        "\\u0041 \\n \\\"\"\"\n@param x @ts-ignore\n"
        "\"\"\"\nimport os; os.system('echo pwned')\n\"\"\"\n*/ export const pwned = 1; /*\n"
        "NUL\u0000 BOM\ufeff DEL\u007f ESC\u001b[31m\\")
methods = {
    "evil/method": {"kind": "request", "direction": "client-to-server", "description": evil,
                    "params": {"$ref": "#/$defs/Evil"}, "result": {"$ref": "#/$defs/Evil"}},
}
case("11-description-escaping", doc({
        "Evil": obj({"a": dict(STR, description=evil), "b": {"type": "string", "enum": ["x", "y"], "description": evil}},
                    required=["a"], description=evil, title="Evil"),
        "EvilEnum": {"type": "string", "enum": ["x"], "description": evil},
        "EvilUnion": {"description": evil, "oneOf": [
            {"type": "object", "title": "EvilA", "description": evil, "properties": {"t": {"const": "a"}}, "required": ["t"]},
            {"type": "object", "title": "EvilB", "description": evil, "properties": {"t": {"const": "b"}}, "required": ["t"]}]},
    }, methods=methods, description=evil),
     gen("descriptions (schema, type, member, enum, union branch, method) carrying */, /*, \"\"\", ''', backslashes, a trailing backslash, CR, CRLF, U+2028/U+2029/U+0085, //go:generate, //go:build and //line lines, NUL, BOM, ESC, template and backtick syntax: generates, compiles, and no line of the Go output is a directive, no TypeScript line is code from a description, and importing the Python package prints nothing",
         forbid=[{"lang": "go", "regexp": "^\\s*//(go:|line )"}, {"lang": "ts", "regexp": "^\\s*export const pwned"}]))

# 12 Recursion: self, mutual, via array, map, union, nullable required.
case("12-recursive-types", doc({
        "LinkedList": obj({"value": INT, "next": {"$ref": "#/$defs/LinkedList"}}, required=["value"]),
        "NullTerminated": obj({"value": INT, "next": {"oneOf": [{"$ref": "#/$defs/NullTerminated"}, {"type": "null"}]}}, required=["value", "next"]),
        "Folder": obj({"name": STR, "entries": {"type": "array", "items": {"$ref": "#/$defs/Entry"}}}, required=["name", "entries"]),
        "Entry": obj({"name": STR, "folder": {"$ref": "#/$defs/Folder"}, "parent": {"$ref": "#/$defs/Folder"}}, required=["name"]),
        "Tree": obj({"children": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Tree"}}}, required=["children"]),
        "Expr": {"oneOf": [
            {"type": "object", "title": "Lit", "properties": {"op": {"const": "lit"}, "value": {"type": "number"}}, "required": ["op", "value"]},
            {"type": "object", "title": "Add", "properties": {"op": {"const": "add"}, "left": {"$ref": "#/$defs/Expr"}, "right": {"$ref": "#/$defs/Expr"}}, "required": ["op", "left", "right"]},
            {"type": "object", "title": "Neg", "properties": {"op": {"const": "neg"}, "arg": {"$ref": "#/$defs/Expr"}, "args": {"type": "array", "items": {"$ref": "#/$defs/Expr"}}}, "required": ["op", "arg"]}]},
        "A": obj({"b": {"$ref": "#/$defs/B"}}),
        "B": obj({"c": {"$ref": "#/$defs/C"}}),
        "C": obj({"a": {"$ref": "#/$defs/A"}, "self": {"$ref": "#/$defs/C"}}),
        "Json": {"anyOf": [{"type": "null"}, BOOL, {"type": "number"}, STR, {"type": "array", "items": {"$ref": "#/$defs/Json"}},
                           {"type": "object", "additionalProperties": {"$ref": "#/$defs/Json"}}]},
    }),
     gen("self-recursion (optional member, required nullable member), mutual recursion (Folder/Entry; A→B→C→A), recursion through arrays, maps and a tagged union whose branches hold the union by value, a recursive JSON value type"))

# 13 Required by-value cycle and pure $ref cycle.
case("13-recursion-refused", doc({
        "Egg": obj({"chicken": {"$ref": "#/$defs/Chicken"}}, required=["chicken"]),
        "Chicken": obj({"egg": {"$ref": "#/$defs/Egg"}}, required=["egg"]),
        "Me": obj({"me": {"$ref": "#/$defs/Me"}}, required=["me"]),
        "Loop": {"$ref": "#/$defs/LoopAgain"},
        "LoopAgain": {"$ref": "#/$defs/Loop"},
    }),
     refused("a cycle of required members (Egg.chicken → Chicken.egg → Egg; Me.me → Me) and a $ref cycle with nothing in between (Loop → LoopAgain → Loop): no finite JSON value; refused naming the cycles",
             ["/$defs/Egg", "/$defs/Chicken", "/$defs/Me", "/$defs/Loop", "/$defs/LoopAgain"]))

# 14 500-value enum, 15 200-variant tagged union: written by make_large.py (below).
vals = ["v%03d" % i for i in range(497)] + ["with space", "UPPER", "x-y"]
case("14-large-enum", doc({
        "Big": {"type": "string", "enum": vals, "description": "500 values."},
        "UsesBig": obj({"big": {"$ref": "#/$defs/Big"}, "bigs": {"type": "array", "items": {"$ref": "#/$defs/Big"}}}, required=["big"]),
    }), gen("a string enum of 500 values, used as a member and in an array"))

branches = []
for i in range(200):
    b = {"type": "object", "properties": {"type": {"const": "event/%03d" % i}, "n%d" % i: INT, "s": STR}, "required": ["type"]}
    if i % 2 == 0:
        b["properties"]["sub"] = {"$ref": "#/$defs/Huge"}
    branches.append(b)
tags = ["event/%03d" % i for i in range(200)]
branches.append({"type": "object", "title": "OtherHuge", "properties": {"type": {"type": "string", "not": {"enum": tags}}}, "required": ["type"]})
case("15-large-union", doc({
        "Huge": {"oneOf": branches, "description": "200 tagged inline variants plus a fallback branch."},
    }, methods={"huge/notify": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/HugeParams"}}}
     ) | {"$defs": {"Huge": {"oneOf": branches, "description": "200 tagged inline variants (every other one recursive) plus an open-union fallback branch."},
                    "HugeParams": obj({"event": {"$ref": "#/$defs/Huge"}}, required=["event"])}},
     gen("an open tagged union of 200 inline variants (names Huge + tag), every other one holding the union recursively, plus a fallback branch"))

# 16 Unicode names. Python accepts them (PEP 3131) but NFKC-normalizes
# them; the Python emitter takes ASCII identifiers only and asks for an
# x-python-name, which is sound (no NFKC trap). 33 gives the overrides.
UNI = {
    "Größe": obj({"größe": STR, "名前": STR, "naïve": BOOL, "Ünïcödé": INT, "ключ": STR}, required=["größe", "名前"]),
    "名前": obj({"値": STR}),
    "Ωmega": obj({"v": STR}),
    "café": {"type": "string", "enum": ["crème", "brûlée"]},
}
case("16-unicode-names", doc(UNI),
     refused("non-ASCII type and member names (Größe, 名前, Ωmega, café; größe, 名前, naïve, Ünïcödé, ключ): the Python emitter takes ASCII identifiers only and names each, with the x-python-name fix",
             ["#/$defs/Größe", "#/$defs/Größe/properties/größe", "#/$defs/Größe/properties/名前", "#/$defs/Größe/properties/naïve",
              "#/$defs/Größe/properties/Ünïcödé", "#/$defs/Größe/properties/ключ", "#/$defs/名前", "#/$defs/名前/properties/値",
              "#/$defs/Ωmega", "#/$defs/café"], messages=["x-python-name"]))

# 17 Names with no letter or digit at all.
case("17-unnameable-names", doc({
        "🎉": obj({"v": STR}),
        "+": obj({"v": STR}),
        "Ok": obj({"": STR, "_": STR, "-": STR, "@": STR, " ": STR, "ok": STR}),
    }),
     refused("$defs keys and member names that give no identifier (\"🎉\", \"+\"; members \"\", \"_\", \"-\", \"@\", \" \"): refused with each pointer and the x-name fix",
             ["/$defs/🎉", "/$defs/+", "/$defs/Ok/properties/", "/$defs/Ok/properties/_", "/$defs/Ok/properties/-", "/$defs/Ok/properties/@", "/$defs/Ok/properties/ "],
             messages=["x-name"]))

# 18 Unicode normalization: Python identifiers are NFKC-normalized, so "ﬁle" (U+FB01 ligature) IS "file".
case("18-nfkc-folding", doc({
        "Doc": obj({"ﬁle": STR, "file": STR}),
        "ℌello": obj({"v": STR}),
        "Hello": obj({"v": STR}),
    }),
     refused("names that differ only before NFKC normalization (members \"ﬁle\"/\"file\", types \"ℌello\"/\"Hello\"): Python normalizes identifiers with NFKC, so they would be one name there (a SyntaxError, \"keyword argument repeated\"); refused naming the non-ASCII one of each pair, with the x-python-name fix",
             ["/$defs/Doc/properties/ﬁle", "/$defs/ℌello"], messages=["x-python-name"]))

# 19 Remote $ref over http to a loopback listener the test runs.
case("19-remote-ref-http", doc({
        "Local": obj({"remote": {"$ref": "http://127.0.0.1:%d/remote.schema.json#/$defs/Thing" % PORT},
                      "other": {"$ref": "https://127.0.0.1:%d/other.json" % PORT}}),
    }),
     refused("$ref to http:// and https:// URLs (a loopback port the test listens on): refused naming both pointers, nothing fetched (the listener sees no connection)",
             ["/$defs/Local/properties/remote/$ref", "/$defs/Local/properties/other/$ref"], messages=["remote $ref"], network=True))

# 20 Remote refs in other shapes: scheme-relative, file://, urn:, $dynamicRef, $schema URL, through a proxy.
case("20-remote-ref-other-shapes", doc({
        "A": {"$ref": "//127.0.0.1:%d/scheme-relative.json" % PORT},
        "B": {"$ref": "https://schemas.example.invalid/b.json#/$defs/B"},
        "C": {"$ref": "ftp://127.0.0.1:%d/c.json" % PORT},
        "D": {"$ref": "urn:example:d"},
    }),
     refused("scheme-relative //host refs, https to a non-loopback host (the test sets HTTP(S)_PROXY to its listener, so a fetch would connect there), ftp:, urn:: refused naming each pointer, nothing fetched",
             ["/$defs/A/$ref", "/$defs/B/$ref", "/$defs/C/$ref", "/$defs/D/$ref"], network=True))

case("21-remote-metaschema-and-dynamicref", {
        "$schema": "http://127.0.0.1:%d/meta.schema.json" % PORT,
        "$defs": {"A": obj({"v": STR}), "B": {"$dynamicRef": "http://127.0.0.1:%d/dyn.json#meta" % PORT}}},
     refused("$schema naming a meta-schema URL on the loopback listener, and a $dynamicRef to a remote URL: refused (exit 2) naming both pointers, never fetched",
             ["/$schema", "/$defs/B/$dynamicRef"], messages=["remote $schema", "remote $dynamicRef"], network=True))

# 22 $ref to sibling files, nested dirs, back refs, $id-relative.
case("22-sibling-file-refs", doc({
        "Local": obj({"thing": {"$ref": "common.schema.json#/$defs/Thing"},
                      "deep": {"$ref": "sub/dir/more.schema.json#/$defs/Deep"},
                      "whole": {"$ref": "whole.schema.json"}}, required=["thing"]),
    }, methods={"get/thing": {"kind": "request", "direction": "client-to-server",
                              "params": {"$ref": "#/$defs/Local"}, "result": {"$ref": "common.schema.json#/$defs/Thing"}}}),
     gen("$ref to sibling files by relative path (common.schema.json, sub/dir/more.schema.json which refs back ../../common.schema.json, and a whole-document ref), also as a method's result type"),
     extra={
        "common.schema.json": {"$schema": S, "$defs": {"Thing": obj({"id": STR, "deep": {"$ref": "sub/dir/more.schema.json#/$defs/Deep"}}, required=["id"]),
                                                          "Color": {"type": "string", "enum": ["red", "blue"]}}},
        "sub/dir/more.schema.json": {"$schema": S, "$defs": {"Deep": obj({"color": {"$ref": "../../common.schema.json#/$defs/Color"}, "n": INT})}},
        "whole.schema.json": {"$schema": S, "title": "Whole", "type": "object", "properties": {"w": STR}},
     })

case("23-sibling-ref-with-remote-id", dict(doc({
        "Local": obj({"thing": {"$ref": "common.schema.json#/$defs/Thing"}}, required=["thing"]),
    }), **{"$id": "http://127.0.0.1:%d/schemas/root.schema.json" % PORT}),
     gen("a root $id on the loopback listener's URL plus a relative $ref to a sibling file: resolved to the local file, nothing fetched", network=True),
     extra={"common.schema.json": {"$schema": S, "$id": "http://127.0.0.1:%d/schemas/common.schema.json" % PORT,
                                   "$defs": {"Thing": obj({"id": STR})}}})

case("24-ref-escaping-the-directory", doc({
        "A": obj({"z": {"$ref": "../../../../../../../../../../../../../../dev/zero"}}),
        "B": obj({"d": {"$ref": "."}}),
    }),
     refused("a relative $ref climbing out to /dev/zero (an endless file) and one to a directory: refused quickly with the pointers, never read forever",
             ["/$defs/A/properties/z/$ref", "/$defs/B/properties/d/$ref"], timeout_seconds=20))

# 25 Method names.
case("25-method-names-keywords", doc({"P": obj({"v": STR}), "R": obj({"ok": BOOL})}, methods={
        "type": {"kind": "request", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}, "result": {"$ref": "#/$defs/R"}},
        "import": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/P"}},
        "class": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}},
        "constructor": {"kind": "request", "direction": "server-to-client", "params": {"$ref": "#/$defs/P"}, "result": {"$ref": "#/$defs/R"}},
        "__proto__": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}, "paramsOptional": True},
        "$/cancelRequest": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}},
        "rpc.discover": {"kind": "request", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}, "result": {"$ref": "#/$defs/R"}, "paramsOptional": True},
        "notifications/tools/list_changed": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/P"}, "paramsOptional": True},
        "名前/取得": {"kind": "request", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}, "result": {"$ref": "#/$defs/R"}, "x-name": "get name"},
    }), gen("method names that are keywords in some language (type, import, class, constructor, __proto__), with $, dots, slashes, underscores and non-ASCII (with x-name)"))

case("26-method-names-folding", doc({"P": obj({"v": STR})}, methods={
        "tools/list": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}},
        "tools.list": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}},
        "toolsList": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}},
        "+": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}},
    }), refused("method names that fold onto one identifier (tools/list, tools.list, toolsList) and one that gives none (\"+\"): refused naming the x-methods pointers",
                ["/x-methods/tools~1list", "/x-methods/tools.list", "/x-methods/toolsList", "/x-methods/+"]))

# 27 Union tag values that fold or give no name.
case("27-union-tags-unnameable", doc({
        "Block": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "text"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "Text"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "TEXT"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "+"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": ""}}, "required": ["kind"]}]},
    }), refused("inline tagged branches whose tag values fold onto one variant name (text, Text → BlockText; TEXT → BlockText in Go) or give none (\"+\", \"\"): refused naming the branches",
                ["/$defs/Block/oneOf/0", "/$defs/Block/oneOf/1", "/$defs/Block/oneOf/2", "/$defs/Block/oneOf/3", "/$defs/Block/oneOf/4"]))

# 28 String literal escaping: tag consts, enum values, const members, wire names carrying quotes, backslashes, newlines, NUL, U+2028.
nasty = ["q\"uote", "back\\slash", "new\nline", "cr\rx", "tab\tx", "nul\u0000x", "ls\u2028x", "${x}", "`tick`", "*/", "'single'", "\\u0041", "\ufeffbom"]
names = ["quote", "backslash", "newline", "cr", "tab", "nul", "line separator", "template", "tick", "comment closer", "single", "escaped u", "bom"]
case("28-string-literal-escaping", doc({
        "Nasty": {"type": "string", "enum": nasty, "x-enum-names": names},
        "Tagged": {"oneOf": [
            {"type": "object", "title": "TagQuote", "properties": {"t": {"const": "a\"b\\c\nd"}}, "required": ["t"]},
            {"type": "object", "title": "TagNul", "properties": {"t": {"const": "nul\u0000\u2028*/"}}, "required": ["t"]}]},
        "Consts": obj({"version": {"const": "1\"0\\\n"}, "magic": {"const": "*/\"\"\""}}, required=["version"]),
        "Wire": obj({"q\"uote": dict(STR, **{"x-name": "quote"}), "back\\slash": dict(STR, **{"x-name": "backslash"}),
                     "new\nline": dict(STR, **{"x-name": "newline"}), "a,omitempty": dict(STR, **{"x-name": "comma"}),
                     "`tick`": dict(STR, **{"x-name": "tick"}), "*/": dict(STR, **{"x-name": "closer"})}),
    }), gen("quotes, backslashes, newlines, CR, tab, NUL, U+2028, BOM, template and backtick syntax in enum values, union tag consts, const members and wire member names (with x-name): generates and compiles (string literals and Go struct tags escaped)"))

# 29 Deep inline nesting: 100 levels of anonymous objects.
inner = {"type": "object", "properties": {"leaf": STR}}
for i in range(100):
    inner = {"type": "object", "properties": {"n": inner}}
case("29-deep-inline-nesting", doc({"Deep": inner}),
     gen("100 levels of inline anonymous objects (names derived from the enclosing type and member at every level)"))

# 30 Property named like schema keywords and $ref-looking data.
case("30-keyword-looking-members", doc({
        "Meta": obj({"$ref": STR, "$id": STR, "$schema": STR, "properties": STR, "type": STR, "enum": STR, "const": STR,
                     "x-name": STR, "oneOf": STR, "default": STR},
                    required=["$ref", "properties"], closed=True,
                    examples=[{"$ref": "http://127.0.0.1:%d/not-a-ref" % PORT, "properties": "x"}],
                    default={"$ref": "http://127.0.0.1:%d/not-a-ref-either" % PORT, "properties": "y"}),
        "WithEnum": {"type": "object", "properties": {"$ref": {"type": "string", "enum": ["http://127.0.0.1:%d/x" % PORT]}}},
    }), gen("members named $ref, $id, $schema, properties, type, enum, const, x-name, oneOf; $ref-looking strings in examples, default and enum (data, not references): generates, nothing fetched", network=True))

# 31 Overrides that are reserved words in Python or TypeScript: escaped like schema names.
case("31-overrides-reserved-escaped", doc({
        "A": dict(obj({"v": dict(STR, **{"x-python-name": "class", "x-ts-name": "constructor"})}),
                  **{"x-python-name": "None", "x-ts-name": "string"}),
        "B": dict(obj({"v": dict(STR, **{"x-python-name": "to_json"})}), **{"x-python-name": "str", "x-ts-name": "Object"}),
        "C": dict(obj({"v": STR}), **{"x-python-name": "int", "x-ts-name": "any"}),
        "D": dict(obj({"v": STR}), **{"x-name": "interface"}),
        "E": dict(obj({"v": STR}), **{"x-python-name": "type", "x-ts-name": "unknown"}),
        "F": dict(obj({"v": STR}), **{"x-python-name": "KeyError", "x-ts-name": "never"}),
    }), gen("x-python-name / x-ts-name / x-name overrides that are keywords, builtins or types the generated code uses (Python None, str, int, type, KeyError, class, to_json; TypeScript string, any, unknown, never, Object, constructor): escaped like schema names; the output compiles"))

# 32 Go overrides that are not exported identifiers or shadow predeclared ones.
case("32-go-overrides-not-exported", doc({
        "A": dict(obj({"v": dict(STR, **{"x-go-name": "type"})}), **{"x-go-name": "string"}),
        "B": dict(obj({"v": dict(STR, **{"x-go-name": "MarshalJSON"})}), **{"x-go-name": "error"}),
        "C": dict(obj({"v": STR}), **{"x-go-name": "any"}),
        "D": dict(obj({"v": STR}), **{"x-go-name": "len"}),
        "E": dict(obj({"v": STR}), **{"x-go-name": "Not An Identifier"}),
    }), refused("x-go-name overrides that are not exported Go identifiers (string, error, any, len shadow predeclared identifiers the generated code uses; type is a keyword; \"Not An Identifier\" is no identifier): refused naming each override's pointer (an override is taken verbatim, so it must already be a valid exported name)",
                ["/$defs/A", "/$defs/A/properties/v", "/$defs/B", "/$defs/C", "/$defs/D", "/$defs/E"], messages=["x-go-name"]))

# 33 The unicode names of 16 with Python overrides: Go and TypeScript keep them.
UNI_PY = {}
for k, v in UNI.items():
    v = json.loads(json.dumps(v))
    v["x-python-name"] = {"Größe": "Groesse", "名前": "Namae", "Ωmega": "Omega", "café": "Cafe"}[k]
    for pk, pv in v.get("properties", {}).items():
        pv["x-python-name"] = {"größe": "groesse", "名前": "namae", "naïve": "naive", "Ünïcödé": "unicode", "ключ": "klyuch", "値": "atai", "v": "v"}[pk]
    UNI_PY[k] = v
case("33-unicode-names-python-overrides", doc(UNI_PY),
     gen("the non-ASCII names of 16 with x-python-name overrides: generates and compiles; Go and TypeScript keep the names, and every Go type and field is exported (a name whose first letter has no upper case, such as 名前 or 値, needs a prefix)",
         go_exported=True))

# 34 $refs that leave the schema's directory tree: to /proc/kmsg (size 0, "regular", blocks on
# read), to a file one level up, by absolute path, and through a symlink-free ../ climb.
UP = "../" * 16
case("34-ref-leaving-the-directory-tree", doc({
        "A": obj({"k": {"$ref": UP + "proc/kmsg"}}),
        "B": obj({"up": {"$ref": "../outside.schema.json#/$defs/X"}}),
        "C": obj({"abs": {"$ref": "/etc/passwd"}}),
        "D": obj({"ok": {"$ref": "sub/inside.schema.json#/$defs/In"}}),
    }),
     refused("$refs that leave the schema's directory tree (to /proc/kmsg, which blocks on read; to a file one level up; by absolute path to /etc/passwd): refused at once naming each pointer, nothing read; a $ref into a subdirectory is fine",
             ["/$defs/A/properties/k/$ref", "/$defs/B/properties/up/$ref", "/$defs/C/properties/abs/$ref"],
             messages=["outside the schema's directory tree", "--allow-ref-dir"], timeout_seconds=20),
     extra={"sub/inside.schema.json": {"$schema": S, "$defs": {"In": obj({"v": STR})}}})

# 35 Every other remote reference keyword: $dynamicRef, $recursiveRef, an embedded $schema and
# $id, $vocabulary. None is fetched; each is refused with its pointer.
case("35-remote-reference-keywords", doc({
        "A": obj({"d": {"$dynamicRef": "http://127.0.0.1:%d/dyn.json#node" % PORT}}),
        "B": obj({"r": {"$recursiveRef": "https://127.0.0.1:%d/rec.json" % PORT}}),
        "C": {"$id": "http://127.0.0.1:%d/embedded.schema.json" % PORT, "type": "object",
              "properties": {"x": {"$ref": "other.schema.json"}}},
        "D": {"$schema": "http://127.0.0.1:%d/meta.schema.json" % PORT, "type": "string"},
    }, **{"$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": True,
                          "https://vocab.example.invalid/custom": True}}),
     refused("remote $dynamicRef and $recursiveRef, an $id inside a schema that would move the base of the $refs below it to a remote URL, a remote $schema inside a schema, and an unknown $vocabulary: refused naming each pointer, nothing fetched",
             ["/$defs/A/properties/d/$dynamicRef", "/$defs/B/properties/r/$recursiveRef", "/$defs/C/$id", "/$defs/D/$schema",
              "/$vocabulary/https:~1~1vocab.example.invalid~1custom"],
             messages=["remote $dynamicRef", "remote $recursiveRef", "remote $id", "$vocabulary"], network=True))

# 36 A draft-07 schema in the style most published schemas use: definitions, $ref to
# #/definitions/..., dependencies, a $ref with a sibling description (ignored by draft-07).
D7 = "http://json-schema.org/draft-07/schema#"
case("36-draft-07-definitions", {
        "$schema": D7, "title": "Draft 7 protocol",
        "x-methods": {"item/get": {"kind": "request", "direction": "client-to-server",
                                   "params": {"$ref": "#/definitions/GetParams"}, "result": {"$ref": "#/definitions/Item"}}},
        "definitions": {
            "GetParams": obj({"id": {"$ref": "#/definitions/ItemId", "description": "ignored beside $ref in draft-07"},
                              "page": INT, "pageSize": INT}, required=["id"],
                             dependencies={"page": ["pageSize"]}),
            "ItemId": {"type": "string", "minLength": 1},
            "Item": obj({"id": {"$ref": "#/definitions/ItemId"}, "kind": {"$ref": "#/definitions/Kind"},
                         "children": {"type": "array", "items": {"$ref": "#/definitions/Item"}}}, required=["id", "kind"]),
            "Kind": {"type": "string", "enum": ["file", "dir"]},
        }},
     gen("a draft-07 schema: definitions named like $defs, $ref to #/definitions/..., dependencies, a $ref with a sibling keyword; meta-validated against draft-07; generates and compiles"))

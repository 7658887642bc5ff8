"""The union survey of the three published schemas: writes (or checks) the
generated sections of UNIONS.md.

    python3 testdata/protocols/survey.py           # check: exit 1 when UNIONS.md is stale
    python3 testdata/protocols/survey.py --write   # regenerate the generated sections

For every oneOf/anyOf it gives the branches, what dshgen 0.1's IR
(gen/ir/build.go) decides today (ported below: JSON-value union, string-const
enum, nullable, tag, JSON type, closed shape, else refused), what separates
the branches under the proposed rules, and the name each unnamed inline
branch gets under the proposed naming rule (UNIONS.md "Naming rule"). The
meaning of each union is hand-written data in survey-notes.json; a union
without a note, or a note whose pointer no longer exists, is an error.
It also lists type lists, allOf, non-string consts, enum values that are not
identifiers (with their proposed spelling) and the method tables.
"""

import json
import re
import sys
import unicodedata

import protolib
from protolib import def_name, ptr_join

TYPES = ["null", "boolean", "number", "string", "array", "object"]


# naming (a port of gen/ir/naming.go's splitWords and pascal) ------------------

def split_words(s):
    words, cur = [], []
    for i, r in enumerate(s):
        if not (r.isalpha() or r.isdigit()):
            if cur:
                words.append("".join(cur))
                cur = []
            continue
        if cur and r.isupper():
            prev = s[i - 1]
            next_lower = i + 1 < len(s) and s[i + 1].islower()
            if prev.islower() or prev.isdigit() or (prev.isupper() and next_lower):
                words.append("".join(cur))
                cur = []
        cur.append(r)
    if cur:
        words.append("".join(cur))
    return words


def pascal(s):
    out = ""
    for w in split_words(s):
        if len(w) > 1 and all(not c.isalpha() or c.isupper() for c in w):
            out += w
        else:
            out += w[0].upper() + w[1:].lower()
    if out and out[0].isdigit():
        out = "X" + out
    return out


SYMBOLS = {"+": "Plus", "-": "Minus", "*": "Star", "/": "Slash", ".": "Dot", "_": "Underscore",
           "@": "At", "#": "Hash", "$": "Dollar", "%": "Percent", "&": "And", "=": "Equals",
           ":": "Colon", "~": "Tilde", "!": "Bang", "?": "Question", " ": "Space", ",": "Comma"}


def spell_value(v, exact=False):
    """The proposed enum-value spelling (UNIONS.md "Enum values"): words as
    pascal() splits them; a leading sign is spelled (+1 -> Plus1, -1 -> Minus1);
    a value without letters or digits is spelled symbol by symbol; "" -> Empty.
    exact=True spells every separator (used only to break a collision)."""
    if v == "":
        return "Empty"
    if not any(c.isalnum() for c in v) or exact:
        out = ""
        for c in v:
            out += c.upper() if c.isalnum() and not out else (c if c.isalnum() else SYMBOLS.get(c, "U%04X" % ord(c)))
        return out
    sign = ""
    if v[0] in "+-":
        sign, v = SYMBOLS[v[0]], v[1:]
    body = pascal(v)
    if sign:
        return sign + (body[1:] if body.startswith("X") and body[1:2].isdigit() else body)
    return body


def injective_names(values):
    """value -> name for one enum; colliding values get the exact spelling."""
    first = {v: spell_value(v) for v in values}
    seen = {}
    for v, n in first.items():
        seen.setdefault(n, []).append(v)
    out = {}
    for v, n in first.items():
        out[v] = spell_value(v, exact=True) if len(seen[n]) > 1 else n
    if len(set(out.values())) != len(out):
        raise ValueError(f"enum values {values} still collide after exact spelling")
    return out


def is_identifier(v):
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v))


# the schema walk --------------------------------------------------------------

class Survey:
    def __init__(self, proto):
        self.p = proto
        self.doc = proto.doc
        self.unions = []  # dicts
        self.typelists = []
        self.allofs = []
        self.consts = []
        self.enums = []  # (pointer, owner name, [values], kind)
        self.names = {}  # pointer -> type name given by the naming rule
        for d in self.doc.get("$defs", {}):
            self.walk("#/$defs/" + protolib.ptr_escape(d), d)
        if any(k in self.doc for k in ("anyOf", "oneOf")):
            self.walk("#", "Root")

    def node(self, at):
        return protolib.resolve(self.doc, at)

    def deref(self, at):
        """(pointer, node) after $ref chains; an allOf of objects is merged
        into one object node (properties and required of all parts)."""
        p, n = self.p.deref(at)
        if isinstance(n, dict) and "allOf" in n:
            m = {"type": "object", "properties": {}, "required": []}
            for i in range(len(n["allOf"])):
                _, part = self.deref(ptr_join(p, "allOf", i))
                m["properties"].update(part.get("properties", {}))
                m["required"] += [r for r in part.get("required", []) if r not in m["required"]]
            n = m
        return p, n

    def walk(self, at, name):
        n = self.node(at)
        if not isinstance(n, dict):
            return
        self.names.setdefault(at, name)
        t = n.get("type")
        if isinstance(t, list):
            ts = [x for x in t if x != "null"]
            if len(ts) > 1:
                self.typelists.append((at, t))
        if "allOf" in n:
            self.allofs.append((at, name, n["allOf"]))
        c = n.get("const")
        if c is not None and not isinstance(c, str):
            self.consts.append((at, c))
        if "enum" in n:
            self.enums.append((at, name, n["enum"], "enum"))
        elif isinstance(c, str) and not at.endswith("/properties/jsonrpc") and not at.endswith("/properties/method"):
            pass
        kw = "oneOf" if "oneOf" in n else "anyOf" if "anyOf" in n else None
        if kw:
            u = self.union(at, name, kw, n)
            self.unions.append(u)
            for i, b in enumerate(n[kw]):
                bname = u["branch_names"][i]
                self.walk(ptr_join(at, kw, i), name if (not bname or " | " in bname) else bname)
        for k, v in n.get("properties", {}).items():
            self.walk(ptr_join(at, "properties", k), name + pascal(k))
        if isinstance(n.get("items"), dict):
            self.walk(ptr_join(at, "items"), name + "Item")
        if isinstance(n.get("additionalProperties"), dict):
            self.walk(ptr_join(at, "additionalProperties"), name + "Value")
        for i, b in enumerate(n.get("allOf", [])):
            self.walk(ptr_join(at, "allOf", i), name)

    # a port of gen/ir/build.go's union decisions ------------------------------

    def json_type(self, n):
        if not isinstance(n, dict):
            return ""
        if "const" in n:
            c = n["const"]
            return "null" if c is None else "boolean" if isinstance(c, bool) else "number" if isinstance(c, (int, float)) else "string" if isinstance(c, str) else "array" if isinstance(c, list) else "object"
        t = n.get("type")
        ts = [t] if isinstance(t, str) else [x for x in (t or []) if x != "null"]
        null = t == "null" or (isinstance(t, list) and "null" in t)
        if len(ts) == 1 and not null:
            return "number" if ts[0] == "integer" else ts[0]
        if not ts and any(k in n for k in ("properties", "additionalProperties", "required")):
            return "object"
        if not ts and "items" in n:
            return "array"
        return ""

    def is_null(self, n):
        return isinstance(n, dict) and (n.get("type") == "null" or n.get("type") == ["null"] or ("const" in n and n["const"] is None))

    def tag_of(self, bs):
        """findTag: the member every branch requires with a distinct const string."""
        cands = None
        for _, n in bs:
            rq = set(n.get("required", []))
            own = {k for k, v in n.get("properties", {}).items()
                   if isinstance(self.p.deref_node(v), dict) and isinstance(self.p.deref_node(v).get("const"), str) and k in rq}
            cands = own if cands is None else cands & own
        for k in sorted(cands or []):
            vals = [self.p.deref_node(n["properties"][k])["const"] for _, n in bs]
            if len(set(vals)) != len(vals):
                cands.discard(k)
        if not cands:
            return ""
        for pref in ("type", "kind", "op", "mode", "operation"):
            if pref in cands:
                return pref
        return sorted(cands)[0]

    def today(self, at, kw, n, bs_all):
        derefd = [self.deref(ptr_join(at, kw, i)) for i in range(len(n[kw]))]
        # JSON value union
        seen = set()
        jv = True
        for _, bn in derefd:
            if not isinstance(bn, dict) or any(k in bn for k in ("properties", "required", "const", "enum")):
                jv = False
                break
            t = bn.get("type")
            for x in ([t] if isinstance(t, str) else t or []):
                seen.add("integer-only" if x == "integer" else x)
        if jv and all(x in seen for x in TYPES):
            return "JSON value (any)", []
        if len(derefd) == 1:
            return "one branch: an alias of " + (def_name(derefd[0][0]) or "it"), []
        if all(isinstance(bn, dict) and isinstance(bn.get("const"), str) and "properties" not in bn for _, bn in derefd):
            return "string enum", []
        nonnull = [(p, bn) for p, bn in derefd if not self.is_null(bn)]
        if len(nonnull) == 1:
            return "nullable " + (def_name(nonnull[0][0]) or "inline"), []
        if len(nonnull) < len(derefd):
            return "refused: a named union cannot include null", []
        js = [self.json_type(bn) for _, bn in nonnull]
        unnamed = [ptr_join(at, kw, i) for i, (p, bn) in enumerate(derefd) if not def_name(p) and not (isinstance(bn, dict) and bn.get("title"))]
        if all(j == "object" for j in js):
            t = self.tag_of(nonnull)
            if t:
                return f"tag `{t}`", []
        if all(js) and len(set(js)) == len(js):
            bad = [u for u, (p, bn) in zip([ptr_join(at, kw, i) for i in range(len(derefd))], derefd)
                   if not def_name(p) and self.json_type(bn) == "object" and "properties" in bn]
            return "JSON type", bad
        closed = all(isinstance(bn, dict) and bn.get("additionalProperties") is False for _, bn in nonnull)
        if closed and all(j == "object" for j in js):
            return "shape", []
        return "refused: cannot tell the branches apart", unnamed

    # proposed separation ------------------------------------------------------

    def is_any(self, bn):
        return isinstance(bn, dict) and set(bn) <= {"title", "description"}

    def propose(self, at, name, kw, n, today):
        """(text, tag member or None) under the proposed rules, in order: the
        rules of today; a tag with a default branch; JSON type after
        splitting type lists; required members of their own; else ordered
        validator-exact tries (most required members first, declared order
        next, a branch that accepts anything last)."""
        derefd = [self.deref(ptr_join(at, kw, i)) for i in range(len(n[kw]))]
        nonnull = [(p, bn) for p, bn in derefd if not self.is_null(bn)]
        if not today.startswith("refused"):
            t = re.match(r"tag `([^`]+)`", today)
            return "today's rule (" + today + ")", t.group(1) if t else None
        anyb = [(p, bn) for p, bn in nonnull if self.is_any(bn)]
        rest = [(p, bn) for p, bn in nonnull if not self.is_any(bn)]
        flat = []
        for p, bn in rest:
            t = bn.get("type") if isinstance(bn, dict) else None
            if isinstance(t, list) and not any(k in bn for k in ("properties", "items", "enum", "const")):
                flat += [(p + f"[{x}]", {"type": x}) for x in t if x != "null"]
            else:
                flat.append((p, bn))
        js = [self.json_type(bn) for _, bn in flat]
        fallback = ""
        if anyb:
            fallback = "; anything else: " + " / ".join(repr(bn.get("title", "{}")) for _, bn in anyb) + " (the empty schema, tried last)"
        if len(flat) >= 2 and all(j == "object" for j in js):
            t = self.tag_of(flat)
            if t:
                return f"tag `{t}`" + fallback, t
            for cand in sorted({k for _, bn in flat for k in bn.get("properties", {})}):
                req = [(p, bn) for p, bn in flat if cand in bn.get("required", []) and isinstance(self.p.deref_node(bn["properties"][cand]).get("const"), str)]
                oth = [(p, bn) for p, bn in flat if (p, bn) not in req]
                if req and len(oth) == 1:
                    vals = [self.p.deref_node(bn["properties"][cand])["const"] for _, bn in req]
                    rp, rn = oth[0]
                    rc = self.p.deref_node(rn.get("properties", {}).get(cand, {})) or {}
                    if len(set(vals)) == len(vals) and rc.get("const") not in vals:
                        dflt = def_name(rp) or "the untagged branch"
                        how = f"its optional `{cand}` is const {rc['const']!r}" if "const" in rc else f"it declares no `{cand}`"
                        return (f"tag `{cand}` with a default: {', '.join(repr(v) for v in vals)} -> the branch declaring it; "
                                f"absent `{cand}` -> {dflt} ({how})" + fallback), cand
        if flat and all(js) and len(set(js)) == len(js):
            return ("JSON type" + (" after splitting the type list into one branch per type" if len(flat) != len(rest) else "") + fallback), None
        groups = {}
        for (p, bn), j in zip(flat, js):
            groups.setdefault(j, []).append((p, bn))
        if all(js) and len(groups) > 1 and all(len(g) == 1 or (j == "object" and self.tag_of(g)) for j, g in groups.items()):
            t = self.tag_of(groups["object"])
            return f"JSON type, then tag `{t}` among the {len(groups['object'])} object branches" + fallback, t
        objs = [(i, p, bn) for i, ((p, bn), j) in enumerate(zip(flat, js)) if j == "object"]
        own = {}
        for i, p, bn in objs:
            others = [o for o in objs if o[1] != p]
            own[p] = [k for k in bn.get("required", []) if all(k not in o[2].get("properties", {}) for o in others)]
        non_obj = [(p, bn) for (p, bn), j in zip(flat, js) if j != "object"]
        lab = lambda p, bn: def_name(p.split("[")[0]) or self.label(bn)
        if objs and all(own[p] for _, p, _ in objs):
            parts = [f"{lab(p, bn)} {{{', '.join(own[p])}}}" for _, p, bn in objs]
            tail = ("; other JSON types: " + ", ".join(self.json_type(bn) for _, bn in non_obj)) if non_obj else ""
            return ("required members of their own: " + "; ".join(parts) + tail
                    + " (objects stay open, so a value may carry both: ordered validator-exact tries in this order, the member check as the fast path)" + fallback), None
        order = sorted(objs, key=lambda o: (-len(o[2].get("required", [])), o[0]))
        parts = [f"{lab(p, bn)} {{{', '.join(bn.get('required', []))}}}" for _, p, bn in order]
        tail = ("; by JSON type first: " + ", ".join(self.json_type(bn) + " -> " + lab(p, bn) for p, bn in non_obj)) if non_obj else ""
        return ("ordered validator-exact tries, most required members first: " + " > ".join(parts) + tail + fallback), None

    def label(self, bn):
        if not isinstance(bn, dict):
            return str(bn)
        if bn == {} or set(bn) <= {"title", "description"}:
            return "{} (any value)" + (f" title {bn['title']!r}" if "title" in bn else "")
        if "const" in bn:
            return f"const {json.dumps(bn['const'])}"
        t = bn.get("type")
        if t == "array" and isinstance(bn.get("items"), dict):
            it = bn["items"]
            return "array of " + (def_name(it.get("$ref", "")) or it.get("type", "…") if isinstance(it.get("type", ""), str) else json.dumps(it.get("type")))
        if isinstance(t, list):
            return "type " + json.dumps(t)
        if t == "null":
            return "null"
        if t == "object" or "properties" in bn:
            rq = bn.get("required", [])
            return "object {" + ", ".join(rq) + "}" + (f" title {bn['title']!r}" if "title" in bn else "")
        return json.dumps(bn)[:60]

    # naming -------------------------------------------------------------------

    def branch_name(self, union_name, at, i, b, bn, tag, siblings):
        """The proposed name of branch i (see UNIONS.md "Naming rule")."""
        if "$ref" in b:
            return def_name(b["$ref"]) or union_name
        if self.is_null(bn) or (isinstance(bn, dict) and isinstance(bn.get("const"), str) and "properties" not in bn):
            return ""  # null, or an enum value (named in the enum table)
        if tag and tag in bn.get("properties", {}):
            c = self.p.deref_node(bn["properties"][tag]).get("const")
            if isinstance(c, str):
                return union_name + spell_value(c)
        title = bn.get("title")
        if title:
            return title if title[:1].isupper() and re.fullmatch(r"[A-Za-z0-9]+", title) else union_name + spell_value(title)
        t = bn.get("type")
        if isinstance(t, list) and len([x for x in t if x != "null"]) > 1:
            return " | ".join(union_name + pascal(x) for x in t if x != "null")
        j = t if isinstance(t, str) else self.json_type(bn)
        if j and j != "object":
            return union_name + pascal(j)
        own = [k for k in bn.get("required", [])
               if all(k not in o.get("properties", {}) for j, o in enumerate(siblings) if j != i and isinstance(o, dict))]
        return union_name + "With" + "".join(pascal(k) for k in own) if own else "(needs x-name: no member of its own)"

    def union(self, at, name, kw, n):
        today, unnamed = self.today(at, kw, n, None)
        proposal, tag = self.propose(at, name, kw, n, today)
        siblings = [self.deref(ptr_join(at, kw, i))[1] for i in range(len(n[kw]))]
        branches, bnames = [], []
        for i, b in enumerate(n[kw]):
            bp, bn = self.deref(ptr_join(at, kw, i))
            lab = ("$ref " + def_name(b["$ref"])) if "$ref" in b else self.label(bn)
            if "$ref" in b and b.get("title") not in (None, def_name(b["$ref"])):
                lab += f" (title {b['title']!r})"
            branches.append(lab)
            bn_ = self.branch_name(name, at, i, b, bn, tag, siblings)
            bnames.append(bn_ if "$ref" not in b else "")
        return {"pointer": at, "name": name, "kw": kw, "branches": branches, "today": today,
                "unnamed_today": unnamed, "proposal": proposal, "branch_names": bnames}


def _deref_node(self, n):
    seen = 0
    while isinstance(n, dict) and "$ref" in n and seen < 32:
        n = protolib.resolve(self.doc, n["$ref"])
        seen += 1
    return n if isinstance(n, dict) else {}


protolib.Protocol.deref_node = _deref_node


# rendering --------------------------------------------------------------------

def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_unions(surveys, notes):
    out = []
    problems = []
    used = set()
    for pname, s in surveys.items():
        out.append(f"\n### {pname} ({len(s.unions)} unions)\n")
        out.append("| pointer | branches | today (gen/ir/build.go) | what separates them (proposed) | names of unnamed inline branches | meaning |")
        out.append("|---|---|---|---|---|---|")
        for u in s.unions:
            key = f"{pname} {u['pointer']}"
            note = notes.get(key)
            used.add(key)
            if note is None and u["today"].startswith("nullable ") and len(u["branches"]) == 2:
                note = {"meaning": "optional member: " + u["today"][len("nullable "):] + " or null"}
            if note is None:
                problems.append(f"survey-notes.json: no note for {key}")
                note = {}
            names = [f"{i}: {nm}" for i, nm in enumerate(u["branch_names"]) if nm]
            prop = note.get("decision", u["proposal"])
            today = u["today"] + (f"; unnamed: {', '.join(x.rsplit('/', 1)[1] for x in u['unnamed_today'])}" if u["unnamed_today"] else "")
            out.append("| `" + (u["pointer"][1:] or "#") + "` (" + u["kw"] + ") | " + md_escape("; ".join(
                f"{i}: {b}" for i, b in enumerate(u["branches"]))) + " | " + md_escape(today) + " | " + md_escape(prop)
                + " | " + md_escape("; ".join(names) or "—") + " | " + md_escape(note.get("meaning", "")) + " |")
    for k in notes:
        if k not in used and not k.startswith("_"):
            problems.append(f"survey-notes.json: stale note {k!r} (no such union)")
    return "\n".join(out) + "\n", problems


def category(text):
    for key, label in (("today's rule (nullable", "nullable (today)"), ("today's rule (one branch", "one branch (today)"),
                       ("today's rule (string enum", "string enum (today)"), ("today's rule (tag", "tag (today)"),
                       ("by method", "by method (envelope)"), ("not a type to decode", "by method (envelope)"),
                       ("JSON-RPC classification", "member presence"), ("by `resultType`", "resultType value (overlay)"),
                       ("by the key", "InputRequests key"), ("a member-presence ladder", "member presence"),
                       ("`items.anyOf`", "member presence"), ("tag `", "tag with a default"), ("JSON type, then tag", "JSON type, then tag"),
                       ("JSON type", "JSON type"), ("required members of their own", "required members"),
                       ("ordered validator-exact", "ordered tries")):
        if text.startswith(key) or (key in ("by method",) and text.startswith("by method")):
            return label
    return "other: " + text[:40]


def render_summary(surveys, notes):
    cats = {}
    refused = {}
    for pname, s in surveys.items():
        refused[pname] = sum(1 for u in s.unions if u["today"].startswith("refused"))
        for u in s.unions:
            d = notes.get(f"{pname} {u['pointer']}", {}).get("decision", u["proposal"])
            cats.setdefault(category(d), {}).setdefault(pname, 0)
            cats[category(d)][pname] += 1
    names = list(surveys)
    out = ["| rule that separates the branches | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for c in sorted(cats, key=lambda c: -sum(cats[c].values())):
        out.append(f"| {c} | " + " | ".join(str(cats[c].get(n, 0)) for n in names) + " |")
    out.append("| **all unions** | " + " | ".join(str(len(surveys[n].unions)) for n in names) + " |")
    out.append("| of them refused by dshgen 0.1 | " + " | ".join(str(refused[n]) for n in names) + " |")
    return "\n" + "\n".join(out) + "\n"


def md_table(title, columns, rows):
    """A markdown section: heading, header row, rows (lists of cells)."""
    out = [f"\n### {title}\n", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def render_other(surveys):
    typelists = [[pname, f"`{at[1:]}`", f"`{json.dumps(t)}`", "refused: a type list is not supported",
                  "union by JSON type; branch names " + md_escape(", ".join(s.names[at] + pascal(x) for x in t if x != "null"))
                  + " (bindings: Go a small union with MarshalJSON, Python `str \\| int`, TypeScript `string \\| number`)"]
                 for pname, s in surveys.items() for at, t in s.typelists]
    out = md_table("Type lists (more than one non-null type)", ["schema", "pointer", "types", "today", "proposed"], typelists)
    nullable = sum(1 for s in surveys.values() for at in s.walk_nullables())
    out.append(f"\nNullable type lists (`[\"T\", \"null\"]`, accepted today as nullable T): {nullable} "
               f"(ACP: every optional member schemars writes as `Option<T>`).\n")
    allofs = [[pname, f"`{at[1:]}`", md_escape("; ".join("$ref " + def_name(p["$ref"]) if "$ref" in p else s.label(p) for p in parts)),
               f"one object type {name} with the members of all parts (required = union of the parts' required; "
               "a const in a later part narrows the earlier part's member)"]
              for pname, s in surveys.items() for at, name, parts in s.allofs]
    out += md_table("allOf", ["schema", "pointer", "parts", "proposed"], allofs)
    consts = [[pname, f"`{at[1:]}`", f"`{json.dumps(c)}`", "a field const of type integer (checked on decode, written on encode); no name needed"]
              for pname, s in surveys.items() for at, c in s.consts]
    out += md_table("Non-string const", ["schema", "pointer", "const", "proposed"], consts)
    return "\n".join(out) + "\n"


def render_enums(surveys):
    rows = []
    collisions = []
    differ = []
    for pname, s in surveys.items():
        groups = []
        for at, name, vals, _ in s.enums:
            if any(not isinstance(v, str) for v in vals):
                groups.append((at, name, [v for v in vals if isinstance(v, str)], "enum with non-strings: " + json.dumps(vals)))
            else:
                groups.append((at, name, vals, "enum"))
        for u in s.unions:
            if u["today"] == "string enum":
                n = s.node(u["pointer"])
                groups.append((u["pointer"], u["name"], [s.p.deref_node(b)["const"] for b in n[u["kw"]]], "oneOf of consts"))
            m = re.match(r"(?:today's rule \()?(?:JSON type, then )?tag `([^`]+)`", u["proposal"])
            if m:
                tag = m.group(1)
                n = s.node(u["pointer"])
                vals = []
                for b in n[u["kw"]]:
                    _, bn = s.deref(ptr_join(u["pointer"], u["kw"], n[u["kw"]].index(b)))
                    c = s.p.deref_node(bn.get("properties", {}).get(tag, {})).get("const")
                    if isinstance(c, str):
                        vals.append(c)
                groups.append((u["pointer"], u["name"], vals, f"tag values of `{tag}`"))
        for at, name, vals, kind in groups:
            names = injective_names(vals)
            odd = [v for v in vals if not is_identifier(v)]
            for v in vals:
                if pascal(v) != names[v]:
                    differ.append(f"{pname} `{at[1:]}` {json.dumps(v)}: today `{pascal(v) or '(refused)'}`, proposed `{names[v]}`")
            if odd:
                rows.append(f"| {pname} | `{at[1:] or '#'}` | {kind} | " + ", ".join(f"`{json.dumps(v)}` → `{names[v]}`" for v in odd) + " |")
            today = {}
            for v in vals:
                today.setdefault(pascal(v), []).append(v)
            for k, vs in today.items():
                if len(vs) > 1:
                    collisions.append(f"{pname} {at}: {vs} all give {k} today")
    head = ["| schema | pointer | kind | values that are not identifiers → proposed name |", "|---|---|---|---|"]
    tail = ["", "Values whose proposed name differs from today's: " + ("; ".join(differ) if differ else "none in the three schemas (no sign, symbol-only or empty value occurs)."),
            "", "Collisions within one enum under today's spelling: " + ("; ".join(collisions) if collisions else "none in the three schemas.")]
    return "\n" + "\n".join(head + rows + tail) + "\n"


def _walk_nullables(self):
    found = []

    def rec(x, at):
        if isinstance(x, dict):
            t = x.get("type")
            if isinstance(t, list) and "null" in t and len(t) == 2:
                found.append(at)
            for k, v in x.items():
                if isinstance(v, (dict, list)) and k not in ("enum", "const", "default", "examples", "required"):
                    rec(v, at + "/" + k)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                rec(v, at + "/" + str(i))
    rec(self.doc, "#")
    return found


Survey.walk_nullables = _walk_nullables


def render_methods(protos):
    out = []
    for pname, p in protos.items():
        ms = sorted(p.methods.values(), key=lambda m: (m.kind, m.name))
        nreq = sum(1 for m in ms if m.kind == "request")
        out.append(f"\n### {pname}: {len(ms)} methods ({nreq} requests, {len(ms) - nreq} notifications)"
                   + (f" + {len(p.embedded)} input requests" if p.embedded else "") + "\n")
        out.append("| method | kind | sent by | params | params optional | result | read from |")
        out.append("|---|---|---|---|---|---|---|")
        for m in ms + sorted(p.embedded.values(), key=lambda m: m.name):
            kind = m.kind if m.name in p.methods else "input request (MRTR)"
            res = " \\| ".join(def_name(r) or "`" + r[1:] + "`" for r in m.results) or "—"
            par = def_name(m.params) or ("`" + m.params[1:] + "`" if m.params else "—")
            out.append(f"| `{m.name}` | {kind} | {m.sender} | {par} | {'yes' if m.params_optional else 'no'} | {res} | {md_escape(m.source)}{(' — ' + md_escape('; '.join(m.notes))) if m.notes else ''} |")
        out.append("\nAmbiguities found while building this table:\n")
        for at, text in p.ambiguities:
            out.append(f"- `{at}`: {text}")
    return "\n".join(out) + "\n"


def replace_section(text, marker, body):
    b, e = f"<!-- survey:{marker}:begin -->", f"<!-- survey:{marker}:end -->"
    i, j = text.index(b) + len(b), text.index(e)
    return text[:i] + "\n" + body.strip("\n") + "\n" + text[j:]


def main(argv):
    protos = protolib.load_all()
    surveys = {n: Survey(p) for n, p in protos.items()}
    notes = json.loads((protolib.HERE / "survey-notes.json").read_text())
    unions, problems = render_unions(surveys, notes)
    path = protolib.HERE / "UNIONS.md"
    text = path.read_text()
    new = replace_section(text, "unions", unions)
    new = replace_section(new, "summary", render_summary(surveys, notes))
    new = replace_section(new, "other", render_other(surveys))
    new = replace_section(new, "enums", render_enums(surveys))
    new = replace_section(new, "methods", render_methods(protos))
    counts = {n: len(s.unions) for n, s in surveys.items()}
    for pr in problems:
        print(pr)
    if "--write" in argv:
        path.write_text(new)
        print(f"UNIONS.md written: unions {counts}")
        return 1 if problems else 0
    if new != text:
        print("UNIONS.md is stale: run python3 testdata/protocols/survey.py --write")
        return 1
    print(f"UNIONS.md up to date: unions {counts}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

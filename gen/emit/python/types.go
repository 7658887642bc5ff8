package python

import (
	"fmt"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// typesView is types.py: the template prints the header and the module
// docstring around the body and imports printed here.
type typesView struct {
	commonView
	Imports string
	Gap     string // blank lines between Imports and Body
	Body    string
	// body holds Body on disk instead, when the emitter spools (Options.Spool).
	body *ir.File
	// Exports are the public names, in declaration order.
	Exports []string
}

// isClass reports whether t prints as a class (a dataclass with
// from_json/to_json): an object or an unknown-tag variant.
func isClass(t *ir.Type) bool { return t.Kind == ir.KindObject || t.Kind == ir.KindUnknown }

// typesModule prints types.py: the classes, the type aliases, the decoders
// and encoders, the public decode_X/encode_X of the types without a class,
// then the member-name sets and the tagged unions' tag tables.
func (e *emitter) typesModule() (*typesView, error) {
	tv := &typesView{}
	p := newPrinter()
	var spooled *ir.SpoolWriter
	if e.o.Spool != nil {
		var err error
		if spooled, err = e.o.Spool.Create(); err != nil {
			return nil, err
		}
		p = newSpoolPrinter(spooled)
	}
	var classes, enums, others []*ir.Type
	for _, t := range e.m.Decls {
		switch {
		case isClass(t):
			classes = append(classes, t)
		case t.Kind == ir.KindEnum:
			enums = append(enums, t)
		default:
			others = append(others, t)
		}
	}
	for _, t := range classes {
		p.Blank(2)
		if t.Kind == ir.KindUnknown {
			e.unknownClass(p, t)
		} else {
			e.objectClass(p, t)
		}
		tv.Exports = append(tv.Exports, t.Names.Of(py))
	}
	// Enums first (they mention nothing), then aliases and unions in
	// dependency order so that their runtime values can name each other.
	defined := map[*ir.Type]bool{}
	p.Blank(1)
	for _, t := range append(enums, e.topo(others)...) {
		p.Blank(1)
		e.aliasDecl(p, t, defined)
		tv.Exports = append(tv.Exports, t.Names.Of(py))
	}
	for _, t := range classes {
		if t.Kind == ir.KindObject {
			p.Blank(2)
			e.objectDecoder(p, t)
		}
	}
	for _, t := range append(enums, others...) {
		e.nonClassCodec(p, t)
	}
	for _, t := range append(enums, others...) {
		p.Blank(2)
		e.wrappers(p, t)
		if bigUnion(ir.TypeRef{Kind: ir.RefNamed, Named: t}) != nil {
			e.unionPut(p, t)
		}
		tv.Exports = append(tv.Exports, "decode_"+t.Names.Of(py), "encode_"+t.Names.Of(py))
	}
	p.Blank(1)
	for _, t := range classes {
		if t.Kind == ir.KindObject && len(t.Fields) > 0 {
			p.Blank(1)
			p.Seq(fmt.Sprintf("%s: frozenset[str] = frozenset(", keysRef(t)), "(", quoteFields(t), ")", ")")
		}
	}
	for _, t := range others {
		if t.Kind == ir.KindUnion && t.Union.By == ir.ByTag {
			p.Blank(1)
			e.tagTable(p, t)
		}
	}
	for _, t := range classes {
		if t.Kind == ir.KindUnknown {
			p.Blank(1)
			u := t.UnknownOf
			p.Call("_d_"+t.Names.Of(py)+" = unknown_variant", pyStr(u.Union.Tag), "_T_"+u.Names.Of(py),
				"lambda raw: "+t.Names.Of(py)+"(raw=raw)", pyStr(u.Name))
		}
	}
	tv.Body = p.String()
	tv.Imports = p.imports()
	if spooled != nil {
		body, err := spooled.Close("types.py body")
		if err != nil {
			return nil, err
		}
		tv.body = &body
	}
	return tv, nil
}

func quoteFields(t *ir.Type) []string {
	keys := make([]string, 0, len(t.Fields))
	for _, f := range t.Fields {
		keys = append(keys, pyStr(f.Wire))
	}
	if len(keys) == 1 {
		keys[0] += ","
	}
	return keys
}

// topo orders aliases and unions so that each comes after the ones its
// value mentions (cycles keep schema order; their values are quoted).
func (e *emitter) topo(ts []*ir.Type) []*ir.Type {
	in := map[*ir.Type]bool{}
	for _, t := range ts {
		in[t] = true
	}
	state := map[*ir.Type]int{}
	var out []*ir.Type
	var visit func(t *ir.Type)
	visit = func(t *ir.Type) {
		if state[t] != 0 {
			return
		}
		state[t] = 1
		for _, d := range aliasDeps(t) {
			if in[d] {
				visit(d)
			}
		}
		state[t] = 2
		out = append(out, t)
	}
	for _, t := range ts {
		visit(t)
	}
	return out
}

// aliasDeps lists the non-class types an alias's or union's value names.
func aliasDeps(t *ir.Type) []*ir.Type {
	var deps []*ir.Type
	var walk func(r *ir.TypeRef)
	walk = func(r *ir.TypeRef) {
		switch r.Kind {
		case ir.RefNamed:
			if !isClass(r.Named) {
				deps = append(deps, r.Named)
			}
		case ir.RefArray, ir.RefMap:
			walk(r.Elem)
		}
	}
	switch t.Kind {
	case ir.KindAlias:
		walk(t.Alias)
	case ir.KindUnion:
		for _, v := range t.Union.Variants {
			if !isClass(v.Type) {
				deps = append(deps, v.Type)
			}
		}
	}
	return deps
}

// ---------------------------------------------------------------------------
// Annotations.

// namedAnn is the annotation of a use of the named type t (q qualifies
// names from another module, e.g. "_t."): a tagged union admits its
// unknown variant and an enum any string (the openness rule, see gen/ir).
func namedAnn(t *ir.Type, q string) string {
	n := q + t.Names.Of(py)
	switch {
	case t.Kind == ir.KindUnion && t.Union.By == ir.ByTag:
		return n + " | " + q + t.Union.Unknown.Names.Of(py)
	case t.Kind == ir.KindEnum:
		return n + " | str"
	}
	return n
}

// ann is the annotation of a use of a type.
func ann(r *ir.TypeRef, q string) string {
	var s string
	switch r.Kind {
	case ir.RefString:
		s = "str"
		if len(r.Enum) > 0 {
			s = enumLiteral(r.Enum) + " | str"
		}
	case ir.RefInteger:
		s = "int"
	case ir.RefNumber:
		s = "float | int"
	case ir.RefBoolean:
		s = "bool"
	case ir.RefJSON:
		s = "_JsonValue"
	case ir.RefNull:
		return "None"
	case ir.RefNamed:
		s = namedAnn(r.Named, q)
	case ir.RefArray:
		s = "list[" + ann(r.Elem, q) + "]"
	case ir.RefMap:
		s = "dict[str, " + ann(r.Elem, q) + "]"
	}
	if r.Nullable {
		s += " | None"
	}
	return s
}

func enumLiteral(vals []string) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = pyStr(v)
	}
	return "Literal[" + strings.Join(parts, ", ") + "]"
}

// mentionsUndefined reports whether an annotation of r names an alias not
// printed yet (its runtime value would fail).
func mentionsUndefined(r *ir.TypeRef, defined map[*ir.Type]bool) bool {
	switch r.Kind {
	case ir.RefNamed:
		return !isClass(r.Named) && !defined[r.Named]
	case ir.RefArray, ir.RefMap:
		return mentionsUndefined(r.Elem, defined)
	}
	return false
}

// resolve inlines non-recursive named aliases so that decoders check the
// underlying type directly (a printing shortcut; the annotation keeps the
// alias name).
func resolve(r ir.TypeRef) ir.TypeRef {
	for i := 0; i < 32 && r.Kind == ir.RefNamed && r.Named.Kind == ir.KindAlias && !r.Named.Recursive; i++ {
		n := *r.Named.Alias
		n.Nullable = n.Nullable || r.Nullable
		r = n
	}
	return r
}

func isPrimitive(r ir.TypeRef) bool {
	switch r.Kind {
	case ir.RefString, ir.RefInteger, ir.RefNumber, ir.RefBoolean, ir.RefJSON, ir.RefNull:
		return true
	case ir.RefNamed:
		return r.Named.Kind == ir.KindEnum
	}
	return false
}

func isNullable(r ir.TypeRef) bool {
	rr := resolve(r)
	return r.Nullable || rr.Nullable || rr.Kind == ir.RefNull
}

// ---------------------------------------------------------------------------
// Classes.

// variantDoc says which unions t is a variant of.
func variantDoc(t *ir.Type) string {
	var parts []string
	for _, u := range t.Unions {
		s := "Variant of " + u.Name
		if u.Union.By == ir.ByTag {
			for _, v := range u.Union.Variants {
				if v.Type == t {
					s += fmt.Sprintf(" (%s = %s)", pyStr(u.Union.Tag), pyStr(v.TagValue))
				}
			}
		}
		parts = append(parts, s+".")
	}
	return strings.Join(parts, " ")
}

func (e *emitter) objectClass(p *printer, t *ir.Type) {
	name := t.Names.Of(py)
	var facts string
	switch {
	case t.Closed:
		facts = "Closed object: an unknown member is a decode error."
	case t.Extra != nil:
		facts = "Open object: unknown members must be " + t.Extra.Shape() + "; they are kept in ``extra``."
	default:
		facts = "Open object: unknown members are kept in ``extra`` and re-encoded."
	}
	p.P("@dataclass(kw_only=True, slots=True)")
	p.Block("class "+name+":", func() {
		p.Doc(t.Doc(), facts+" "+variantDoc(t), "Wire shape: "+t.Shape()+".", "Schema: "+t.Pointer+".")
		p.Blank(1)
		var wire []string
		for _, f := range t.Fields {
			e.field(p, f)
			wire = append(wire, pyStr(f.Names.Of(py))+": "+pyStr(f.Wire))
		}
		if !t.Closed {
			a := "_JsonValue"
			if t.Extra != nil {
				a = ann(t.Extra, "")
			}
			p.P("extra: dict[str, %s] = field(default_factory=dict[str, %s])", a, a)
			p.Doc("Members not declared by the schema, by wire name, re-encoded as they are.")
		}
		p.Blank(1)
		p.Seq("WIRE_NAMES: ClassVar[Mapping[str, str]] = ", "{", wire, "}", "")
		p.Doc("Attribute name → wire member name.")
		p.Blank(1)
		jsonMethods(p, name, "Decode a JSON value (as ``json.loads`` returns it); raises DecodeError.",
			"Encode as a JSON object: wire names, absent members left out.", func() { e.objectEncoder(p, t) })
	})
}

// jsonMethods prints a class's from_json (decoding with _d_<name>) and
// to_json (its body printed by encode).
func jsonMethods(p *printer, name, fromDoc, toDoc string, encode func()) {
	p.P("@classmethod")
	p.Block("def from_json(cls, value: _JsonValue) -> "+name+":", func() {
		p.Doc(fromDoc)
		p.P("return decode(_d_%s, value)", name)
	})
	p.Blank(1)
	p.Block("def to_json(self) -> dict[str, _JsonValue]:", func() {
		p.Doc(toDoc)
		encode()
	})
}

// field prints one member: annotation, default and docstring.
func (e *emitter) field(p *printer, f *ir.Field) {
	attr := f.Names.Of(py)
	nullable := isNullable(f.Type)
	a, def := ann(&f.Type, ""), ""
	state := ""
	switch {
	case f.Const != nil:
		lit, litAnn := constLit(*f.Const)
		if litAnn != "" {
			a = litAnn
		}
		if f.Required {
			if litAnn != "" {
				def = lit
			}
		} else {
			a, def, state = a+" | None", "None", "optional (None when absent)"
		}
	case f.Required:
		if nullable {
			state = "may be null (None)"
		}
	case nullable:
		if !strings.HasSuffix(a, "None") {
			a += " | None"
		}
		a, def, state = a+" | _Absent", "_ABSENT", "optional (ABSENT when absent; None is null)"
	default:
		a, def, state = a+" | None", "None", "optional (None when absent)"
	}
	if def != "" {
		p.P("%s: %s = %s", attr, a, def)
	} else {
		p.P("%s: %s", attr, a)
	}
	var note string
	switch {
	case attr != f.Wire && state != "":
		note = fmt.Sprintf("%s on the wire; %s.", pyStr(f.Wire), state)
	case attr != f.Wire:
		note = pyStr(f.Wire) + " on the wire."
	case state != "":
		note = strings.ToUpper(state[:1]) + state[1:] + "."
	}
	p.Doc(f.Doc(), note)
}

func (e *emitter) unknownClass(p *printer, t *ir.Type) {
	name := t.Names.Of(py)
	u := t.UnknownOf
	tag := pyStr(u.Union.Tag)
	policy := "The schema's union is closed: the validator reports an unknown tag as an error."
	if u.Union.Open {
		policy = "The schema's union is open: the validator reports an unknown tag as a warning."
	}
	source := "Schema: unknown-tag variant of " + u.Pointer + " (not a schema type)."
	if t.Fallback != nil {
		source = "Schema: " + t.Pointer + " (the fallback branch of " + u.Pointer + ")."
	}
	p.P("@dataclass(kw_only=True, slots=True)")
	p.Block("class "+name+":", func() {
		p.Doc(fmt.Sprintf("%s %s whose %s is none of its known tags.", ir.ArticleCap(u.Name), u.Name, tag), t.Doc(),
			"Keeps the whole JSON object in ``raw`` and re-encodes it unchanged, so a newer peer's variant "+
				"passes through an older SDK without loss. "+policy, source)
		p.Blank(1)
		p.P("raw: dict[str, _JsonValue]")
		p.Doc("The JSON object as received; ``to_json`` returns it unchanged.")
		p.Blank(1)
		p.P("@property")
		p.Block("def tag(self) -> str:", func() {
			p.Doc(fmt.Sprintf("The unknown tag: the object's %s member (empty if it is not a string).", tag))
			p.P("t = self.raw.get(%s)", tag)
			p.P(`return t if type(t) is str else ""`)
		})
		p.Blank(1)
		jsonMethods(p, name, "Decode an object whose tag is none of the known ones; raises DecodeError.",
			"Return ``raw``: the object exactly as it was decoded.", func() { p.P("return self.raw") })
	})
}

// ---------------------------------------------------------------------------
// Aliases, enums and unions.

func (e *emitter) aliasDecl(p *printer, t *ir.Type, defined map[*ir.Type]bool) {
	name := t.Names.Of(py)
	var value []string // the alias's members, joined by " | "
	quote := false
	var what []string
	switch t.Kind {
	case ir.KindEnum:
		vals := make([]string, len(t.Enum))
		for i, v := range t.Enum {
			vals[i] = v.Value
		}
		value = []string{enumLiteral(vals)}
		what = append(what, "String enum: the values the schema lists. Every use of it admits any ``str``: "+
			"a value outside the list is decoded as it is (a newer peer's value); the validator reports it.")
	case ir.KindAlias:
		value = []string{ann(t.Alias, "")}
		quote = mentionsUndefined(t.Alias, defined)
		what = append(what, "Wire shape: "+t.Alias.Shape()+".")
	case ir.KindUnion:
		un := t.Union
		for _, v := range un.Variants {
			vr := ir.TypeRef{Kind: ir.RefNamed, Named: v.Type}
			value = append(value, ann(&vr, ""))
			quote = quote || mentionsUndefined(&vr, defined)
		}
		var list []string
		switch un.By {
		case ir.ByTag:
			open := "closed"
			if un.Open {
				open = "open"
			}
			what = append(what, fmt.Sprintf("Tagged union on %s (%s in the schema). Known variants:", pyStr(un.Tag), open))
			for _, v := range un.Variants {
				list = append(list, fmt.Sprintf("  %s → %s", pyStr(v.TagValue), v.Type.Names.Of(py)))
			}
			what = append(what, strings.Join(list, "\n"), "Any other tag decodes to "+un.Unknown.Names.Of(py)+
				" (kept raw, re-encoded unchanged), which every use of this union admits besides the known "+
				"variants. A known tag with a bad body is a decode error, never the unknown variant.")
		case ir.ByJSONType:
			for _, v := range un.Variants {
				list = append(list, fmt.Sprintf("  %s → %s", v.JSONType, v.Type.Names.Of(py)))
			}
			what = append(what, "Union by JSON type:\n"+strings.Join(list, "\n"))
		case ir.ByShape:
			for _, v := range un.Variants {
				list = append(list, fmt.Sprintf("  %s (requires %s)", v.Type.Names.Of(py), strings.Join(quoteAll(v.Required), ", ")))
			}
			what = append(what, "Union by shape (closed objects told apart by their required members); exactly "+
				"one variant must decode:\n"+strings.Join(list, "\n"))
		case ir.ByTry:
			for _, v := range un.Variants {
				list = append(list, "  "+v.Type.Names.Of(py))
			}
			rule := "the first that decodes is kept (anyOf)"
			if un.Keyword == "oneOf" {
				rule = "exactly one must decode (oneOf)"
			}
			what = append(what, "Union that no member or JSON type tells apart: decoding tries the variants in this "+
				"order and "+rule+":\n"+strings.Join(list, "\n"))
		}
	}
	head := name + ": TypeAlias = "
	if quote {
		p.P("%s%s", head, pyStr(strings.Join(value, " | ")))
	} else {
		p.Union(head, value)
	}
	// A quoted alias is a str at run time: an alias or union that names it
	// must be quoted too (str | str is a TypeError).
	defined[t] = !quote
	p.Doc(append(append([]string{t.Doc()}, what...), "Schema: "+t.Pointer+".")...)
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = pyStr(x)
	}
	return out
}

// wrappers prints the public decode_X/encode_X of a type without a class.
func (e *emitter) wrappers(p *printer, t *ir.Type) {
	name := t.Names.Of(py)
	self := ir.TypeRef{Kind: ir.RefNamed, Named: t}
	a := ann(&self, "")
	p.Block(fmt.Sprintf("def decode_%s(value: _JsonValue) -> %s:", name, a), func() {
		p.Doc(fmt.Sprintf("Decode %s %s (%s); raises DecodeError.", ir.Article(t.Name), t.Name, t.Pointer))
		p.P("return decode(%s, value)", decoderOf(t))
	})
	p.Blank(2)
	p.Block(fmt.Sprintf("def encode_%s(value: %s) -> _JsonValue:", name, a), func() {
		p.Doc(fmt.Sprintf("Encode %s %s as a JSON value.", ir.Article(t.Name), t.Name))
		switch {
		case t.Kind == ir.KindEnum:
			p.P("return value")
		case t.Kind == ir.KindUnion && !hasEncoder(t.Union):
			p.P("return value.to_json()")
		default:
			p.P("return _e_%s(value)", name)
		}
	})
}

// decoderOf names the decoder function of a named type.
func decoderOf(t *ir.Type) string {
	if t.Kind == ir.KindEnum {
		return "check_str"
	}
	return "_d_" + t.Names.Of(py)
}

// tagTable prints a tagged union's tag → decoder table and its decoder.
func (e *emitter) tagTable(p *printer, t *ir.Type) {
	name := t.Names.Of(py)
	un := t.Union
	var entries []string
	for _, v := range un.Variants {
		entries = append(entries, pyStr(v.TagValue)+": "+decoderOf(v.Type))
	}
	p.Seq(fmt.Sprintf("_T_%s: dict[str, Callable[[_JsonValue], %s]] = ", name, name), "{", entries, "}", "")
	p.Call("_d_"+name+" = tagged", pyStr(un.Tag), "_T_"+name, "lambda raw: "+un.Unknown.Names.Of(py)+"(raw=raw)", pyStr(t.Name))
}

func keysRef(t *ir.Type) string {
	if len(t.Fields) == 0 {
		return "frozenset[str]()"
	}
	return "_K_" + t.Names.Of(py)
}

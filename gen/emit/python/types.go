package python

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// typesView is types.py.
type typesView struct {
	commonView
	Doc      string
	Imports  string
	Body     string
	Classes  []*classView
	Aliases  []*aliasView
	Funcs    []string // decoder/encoder functions of the non-class types, printed
	Tables   []string // tag tables and member-name sets, printed
	Exports  []string
	Wrappers []*wrapperView
}

// classView is one generated dataclass: a schema object or the
// unknown-variant class of a tagged union.
type classView struct {
	Name    string
	Doc     string
	Fields  []*fieldView
	Unknown *unknownView // set for an unknown-variant class
	// WireNames maps attribute → wire name (objects only).
	WireNames string
	// Decoder is the module-level decode function, printed.
	Decoder string
	// Encode is the body of to_json, printed (objects only).
	Encode string
}

type fieldView struct {
	Attr    string
	Ann     string
	Default string // "" when required
	Doc     string
}

type unknownView struct {
	Union   string // the union's schema name
	Tag     string // the tag's wire name
	TagDoc  string
	Pointer string
}

// aliasView is a type alias: a union, an enum or a named alias.
type aliasView struct {
	Name  string
	Value string
	Doc   string
}

// wrapperView is a public decode_X/encode_X pair of a type that has no
// class (union, enum, alias).
type wrapperView struct {
	Name    string // the type's Python name
	Ann     string // the decoded value's annotation
	Schema  string // schema name, for the docstring
	Pointer string
}

func (e *emitter) isUnknownClass(t *ir.Type) bool { return t.FallbackOf != nil }

// isClass reports whether t prints as a class (a dataclass with
// from_json/to_json).
func (e *emitter) isClass(t *ir.Type) bool {
	return t.Kind == ir.KindObject || e.isUnknownClass(t)
}

func (e *emitter) typesView() *typesView {
	tv := &typesView{}
	e.defined = map[string]bool{}
	var tables []string
	var funcs []string

	for _, t := range e.m.Types {
		switch {
		case e.isUnknownClass(t):
			tv.Classes = append(tv.Classes, e.unknownClass(t.FallbackOf, t.Names.Of(py), t.Pointer, t.Description))
		case t.Kind == ir.KindObject:
			c, tbl := e.objectClass(t)
			tv.Classes = append(tv.Classes, c)
			tables = append(tables, tbl...)
		case t.Kind == ir.KindUnion && t.Union.By == ir.ByTag && t.Union.UnknownType == nil:
			tv.Classes = append(tv.Classes, e.unknownClass(t, t.Union.Unknown.Of(py), t.Pointer, ""))
		}
	}
	sort.SliceStable(tv.Classes, func(i, j int) bool { return tv.Classes[i].Name < tv.Classes[j].Name })

	// Aliases: enums first (they mention nothing), then aliases and unions
	// in dependency order so that their runtime values can name each other.
	var enums, others []*ir.Type
	for _, t := range e.m.Types {
		if e.isClass(t) {
			continue
		}
		if t.Kind == ir.KindEnum {
			enums = append(enums, t)
		} else {
			others = append(others, t)
		}
	}
	for _, t := range enums {
		tv.Aliases = append(tv.Aliases, e.aliasOf(t))
	}
	for _, t := range e.topo(others) {
		tv.Aliases = append(tv.Aliases, e.aliasOf(t))
	}
	for _, t := range e.m.Types {
		if e.isClass(t) {
			continue
		}
		f, tbl := e.nonClassFuncs(t)
		funcs = append(funcs, f)
		tables = append(tables, tbl...)
		tv.Wrappers = append(tv.Wrappers, &wrapperView{Name: t.Names.Of(py), Ann: e.namedAnn(t, ""), Schema: t.Name, Pointer: t.Pointer})
	}
	tv.Funcs = funcs
	tv.Tables = tables

	for _, c := range tv.Classes {
		tv.Exports = append(tv.Exports, c.Name)
	}
	for _, a := range tv.Aliases {
		tv.Exports = append(tv.Exports, a.Name)
	}
	for _, w := range tv.Wrappers {
		tv.Exports = append(tv.Exports, "decode_"+w.Name, "encode_"+w.Name)
	}
	tv.Doc = e.typesDoc()
	return tv
}

func (e *emitter) typesDoc() string {
	title := e.m.Title
	if title == "" {
		title = "the protocol"
	}
	lines := []string{
		"Types of " + title + ": one dataclass per schema object, a type alias per",
		"union, enum and named alias.",
		"",
		"Conventions (all classes):",
		"",
		"* ``X.from_json(value)`` decodes a JSON value as ``json.loads`` returns it and",
		"  raises ``DecodeError`` (with the JSON pointer of the bad value) on anything",
		"  the schema's types reject; ``x.to_json()`` encodes back (wire names, only",
		"  the members that are set). Unions, enums and aliases have module-level",
		"  ``decode_X``/``encode_X`` functions instead.",
		"* Attributes are snake_case; ``WIRE_NAMES`` maps each attribute to its wire",
		"  name. A member the schema pins to a constant (a union tag) defaults to it.",
		"* Optional members: ``None`` means absent where the schema forbids ``null``;",
		"  where it allows ``null``, ``None`` is ``null`` and ``ABSENT`` means absent.",
		"* Open objects keep unknown members in ``extra`` and re-emit them; closed",
		"  objects reject them.",
		"* A tagged union's alias lists its known variants; every use of it also",
		"  admits the union's unknown-variant class, which keeps the raw JSON object of",
		"  an unknown tag and re-encodes it unchanged.",
		"* String enums are ``Literal`` aliases of the known values; uses admit any",
		"  ``str``: a value outside the list decodes as is (forward compatibility: a",
		"  newer peer must not break an older SDK; the validator reports it).",
		"* Integers are exact ``int`` (``bool`` is rejected, an integral float such as",
		"  ``1.0`` is accepted as ``1``); numbers are ``float | int`` as parsed.",
		"* Decoded values may share ``JsonValue`` parts (raw JSON members, extras) with",
		"  the input; ``to_json`` may share them with the object.",
	}
	return docstring(lines, "")
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
		for _, d := range e.aliasDeps(t) {
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

func (e *emitter) aliasDeps(t *ir.Type) []*ir.Type {
	var deps []*ir.Type
	var walk func(r *ir.TypeRef)
	walk = func(r *ir.TypeRef) {
		switch r.Kind {
		case ir.RefNamed:
			if !e.isClass(r.Named) {
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
			if v.Type != nil && !e.isClass(v.Type) {
				deps = append(deps, v.Type)
			}
		}
	}
	return deps
}

// ---------------------------------------------------------------------------
// Annotations.

// unknownName is the unknown-variant class of a tagged union.
func unknownName(u *ir.Type) string { return u.Union.Unknown.Of(py) }

// namedAnn is the annotation of a use of the named type t (q qualifies
// names from another module, e.g. "_t.").
func (e *emitter) namedAnn(t *ir.Type, q string) string {
	n := q + t.Names.Of(py)
	switch {
	case t.Kind == ir.KindUnion && t.Union.By == ir.ByTag:
		return n + " | " + q + unknownName(t)
	case t.Kind == ir.KindEnum:
		return n + " | str"
	}
	return n
}

// ann is the annotation of a use of a type.
func (e *emitter) ann(r *ir.TypeRef, q string) string {
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
		s = "_Json"
	case ir.RefNull:
		return "None"
	case ir.RefNamed:
		s = e.namedAnn(r.Named, q)
	case ir.RefArray:
		s = "list[" + e.ann(r.Elem, q) + "]"
	case ir.RefMap:
		s = "dict[str, " + e.ann(r.Elem, q) + "]"
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
func (e *emitter) mentionsUndefined(r *ir.TypeRef) bool {
	switch r.Kind {
	case ir.RefNamed:
		return !e.isClass(r.Named) && !e.defined[r.Named.Names.Of(py)]
	case ir.RefArray, ir.RefMap:
		// list["X"] would be fine at runtime, but the whole value is quoted
		// for simplicity when anything inside is a forward reference.
		return e.mentionsUndefined(r.Elem)
	}
	return false
}

// shape is the short wire-shape text of a type use, for docstrings.
func (e *emitter) shape(r *ir.TypeRef) string {
	var s string
	switch r.Kind {
	case ir.RefString:
		s = "string"
		if len(r.Enum) > 0 {
			s = strings.Join(quoteAll(r.Enum), " | ")
		}
	case ir.RefInteger:
		s = "integer"
	case ir.RefNumber:
		s = "number"
	case ir.RefBoolean:
		s = "boolean"
	case ir.RefJSON:
		s = "any JSON"
	case ir.RefNull:
		return "null"
	case ir.RefNamed:
		s = r.Named.Name
	case ir.RefArray:
		s = "[" + e.shape(r.Elem) + ", ...]"
	case ir.RefMap:
		s = "{string: " + e.shape(r.Elem) + "}"
	default:
		s = "?"
	}
	if r.Nullable {
		s += " | null"
	}
	return s
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = pyStr(x)
	}
	return out
}

// resolve inlines non-recursive named aliases so that decoders check the
// underlying type directly (a printing shortcut; the annotation keeps the
// alias name).
func (e *emitter) resolve(r ir.TypeRef) ir.TypeRef {
	for i := 0; i < 32 && r.Kind == ir.RefNamed && r.Named.Kind == ir.KindAlias && !r.Named.Recursive && !e.isClass(r.Named); i++ {
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

// ---------------------------------------------------------------------------
// Decoding statements.

// decodeInto prints statements that check the JSON value in the Python
// variable src against r and leave the decoded value in dst. Errors raise
// DecodeError relative to src; the caller prepends its own path segment.
func (e *emitter) decodeInto(w *writer, r ir.TypeRef, src, dst string) {
	r = e.resolve(r)
	if r.Kind == ir.RefNull {
		w.line("if %s is not None:", src)
		w.in()
		w.line(`fail_type("None", %s)`, src)
		w.out()
		w.line("%s = None", dst)
		return
	}
	if r.Nullable {
		inner := r
		inner.Nullable = false
		switch inner.Kind {
		case ir.RefString, ir.RefBoolean, ir.RefInteger, ir.RefNumber:
			e.checkPrim(w, inner, src, src+" is not None and ", " or None")
			w.line("%s = %s", dst, src)
			return
		case ir.RefJSON:
			w.line("%s = check_json(%s)", dst, src)
			return
		case ir.RefNamed:
			if inner.Named.Kind == ir.KindEnum {
				w.line("if %s is not None and type(%s) is not str:", src, src)
				w.in()
				w.line(`fail_type("str or None", %s)`, src)
				w.out()
				w.line("%s = %s", dst, src)
				return
			}
			w.line("%s = None if %s is None else _d_%s(%s)", dst, src, inner.Named.Names.Of(py), src)
			return
		}
		w.line("if %s is None:", src)
		w.in()
		w.line("%s = None", dst)
		w.out()
		w.line("else:")
		w.in()
		e.decodeInto(w, inner, src, dst)
		w.out()
		return
	}
	switch r.Kind {
	case ir.RefString, ir.RefBoolean, ir.RefInteger, ir.RefNumber:
		e.checkPrim(w, r, src, "", "")
		w.line("%s = %s", dst, src)
	case ir.RefJSON:
		w.line("%s = check_json(%s)", dst, src)
	case ir.RefNamed:
		if r.Named.Kind == ir.KindEnum {
			w.line("if type(%s) is not str:", src)
			w.in()
			w.line(`fail_type("str", %s)`, src)
			w.out()
			w.line("%s = %s", dst, src)
			return
		}
		w.line("%s = _d_%s(%s)", dst, r.Named.Names.Of(py), src)
	case ir.RefArray:
		elem := e.resolve(*r.Elem)
		if h := primHelper(elem, "list"); h != "" {
			w.line("%s = %s(%s)", dst, h, src)
			return
		}
		n := w.fresh()
		l, i, y, z := "l"+n, "i"+n, "y"+n, "z"+n
		w.line("if type(%s) is not list:", src)
		w.in()
		w.line(`fail_type("list", %s)`, src)
		w.out()
		w.line("%s: list[%s] = []", l, e.ann(r.Elem, ""))
		w.line("%s = 0", i)
		w.line("try:")
		w.in()
		w.line("for %s, %s in enumerate(%s):", i, y, src)
		w.in()
		if elem.Kind == ir.RefNamed && elem.Named.Kind != ir.KindEnum && !elem.Nullable {
			w.line("%s.append(_d_%s(%s))", l, elem.Named.Names.Of(py), y)
		} else {
			w.line("%s: %s", z, e.ann(r.Elem, ""))
			e.decodeInto(w, elem, y, z)
			w.line("%s.append(%s)", l, z)
		}
		w.out()
		w.out()
		w.line("except _DecodeError as e:")
		w.in()
		w.line("e.prepend(%s)", i)
		w.line("raise")
		w.out()
		w.line("%s = %s", dst, l)
	case ir.RefMap:
		elem := e.resolve(*r.Elem)
		if h := primHelper(elem, "map"); h != "" {
			w.line("%s = %s(%s)", dst, h, src)
			return
		}
		n := w.fresh()
		m, q, y, z := "m"+n, "q"+n, "y"+n, "z"+n
		w.line("if type(%s) is not dict:", src)
		w.in()
		w.line(`fail_type("dict", %s)`, src)
		w.out()
		w.line("%s: %s = {}", m, e.ann(&ir.TypeRef{Kind: ir.RefMap, Elem: r.Elem}, ""))
		w.line(`%s = ""`, q)
		w.line("try:")
		w.in()
		w.line("for %s, %s in %s.items():", q, y, src)
		w.in()
		if elem.Kind == ir.RefNamed && elem.Named.Kind != ir.KindEnum && !elem.Nullable {
			w.line("%s[%s] = _d_%s(%s)", m, q, elem.Named.Names.Of(py), y)
		} else {
			w.line("%s: %s", z, e.ann(r.Elem, ""))
			e.decodeInto(w, elem, y, z)
			w.line("%s[%s] = %s", m, q, z)
		}
		w.out()
		w.out()
		w.line("except _DecodeError as e:")
		w.in()
		w.line("e.prepend(%s)", q)
		w.line("raise")
		w.out()
		w.line("%s = %s", dst, m)
	}
}

// checkPrim prints the type check of a primitive (cond is a prefix such as
// "x is not None and "; more is appended to the expected-type text).
func (e *emitter) checkPrim(w *writer, r ir.TypeRef, src, cond, more string) {
	switch r.Kind {
	case ir.RefString:
		w.line("if %stype(%s) is not str:", cond, src)
		w.in()
		w.line(`fail_type("str%s", %s)`, more, src)
		w.out()
	case ir.RefBoolean:
		w.line("if %stype(%s) is not bool:", cond, src)
		w.in()
		w.line(`fail_type("bool%s", %s)`, more, src)
		w.out()
	case ir.RefInteger:
		w.line("if %stype(%s) is not int:", cond, src)
		w.in()
		w.line(`%s = int_slow(%s, "int%s")`, src, src, more)
		w.out()
	case ir.RefNumber:
		// int, or a finite float (x - x is nan for nan and ±inf).
		w.line("if %stype(%s) is not int and (type(%s) is not float or %s - %s != 0.0):", cond, src, src, src, src)
		w.in()
		w.line(`fail_number(%s, "float or int%s")`, src, more)
		w.out()
	}
}

// primHelper names the codec function that decodes a list or map of a
// primitive ("" when the element needs generated code).
func primHelper(elem ir.TypeRef, kind string) string {
	if elem.Nullable {
		if elem.Kind == ir.RefJSON {
			return "json_" + kind
		}
		return ""
	}
	switch elem.Kind {
	case ir.RefString:
		return "str_" + kind
	case ir.RefInteger:
		return "int_" + kind
	case ir.RefNumber:
		return "num_" + kind
	case ir.RefBoolean:
		return "bool_" + kind
	case ir.RefJSON:
		return "json_" + kind
	case ir.RefNamed:
		if elem.Named.Kind == ir.KindEnum {
			return "str_" + kind
		}
	}
	return ""
}

// ---------------------------------------------------------------------------
// Encoding expressions.

// encodeExpr returns a Python expression that encodes the value of expr
// (of type r) as JSON, printing any statements it needs to w first.
// Containers are built with loops, not comprehensions, so that encoding a
// deep tree costs one Python frame per level.
func (e *emitter) encodeExpr(w *writer, r ir.TypeRef, expr string) string {
	r = e.resolve(r)
	if isPrimitive(r) {
		return expr
	}
	if r.Nullable {
		inner := r
		inner.Nullable = false
		sub := w.sub()
		x := e.encodeExpr(sub, inner, expr)
		if len(sub.lines) == 0 {
			return fmt.Sprintf("None if %s is None else %s", expr, x)
		}
		t := "t" + w.fresh()
		w.line("%s: _Json = None", t)
		w.line("if %s is not None:", expr)
		w.lines = append(w.lines, sub.lines...)
		w.in()
		w.line("%s = %s", t, x)
		w.out()
		return t
	}
	switch r.Kind {
	case ir.RefNamed:
		t := r.Named
		switch {
		case e.isClass(t), t.Kind == ir.KindUnion && t.Union.By == ir.ByTag:
			return expr + ".to_json()"
		default:
			return "_e_" + t.Names.Of(py) + "(" + expr + ")"
		}
	case ir.RefArray:
		elem := e.resolve(*r.Elem)
		if isPrimitive(elem) {
			return "enc_list(" + expr + ")"
		}
		n := w.fresh()
		l, y := "l"+n, "y"+n
		w.line("%s: list[_Json] = []", l)
		w.line("for %s in %s:", y, expr)
		w.in()
		x := e.encodeExpr(w, elem, y)
		w.line("%s.append(%s)", l, x)
		w.out()
		return l
	case ir.RefMap:
		elem := e.resolve(*r.Elem)
		if isPrimitive(elem) {
			return "enc_map(" + expr + ")"
		}
		n := w.fresh()
		m, q, y := "m"+n, "q"+n, "y"+n
		w.line("%s: dict[str, _Json] = {}", m)
		w.line("for %s, %s in %s.items():", q, y, expr)
		w.in()
		x := e.encodeExpr(w, elem, y)
		w.line("%s[%s] = %s", m, q, x)
		w.out()
		return m
	}
	return expr
}

// ---------------------------------------------------------------------------
// Objects.

func (e *emitter) objectClass(t *ir.Type) (*classView, []string) {
	name := t.Names.Of(py)
	c := &classView{Name: name}
	hasExtra := !t.Closed

	// Docstring.
	var doc []string
	doc = append(doc, docLines(t.Description)...)
	if len(doc) == 0 {
		doc = append(doc, t.Name+": a JSON object.")
	}
	doc = append(doc, "", "Schema: "+t.Pointer+" ("+t.Name+").")
	switch {
	case t.Closed:
		doc = append(doc, "Closed object: an unknown member is a decode error.")
	case t.Extra != nil:
		doc = append(doc, "Open object: unknown members must be "+e.shape(t.Extra)+"; they are kept in ``extra``.")
	default:
		doc = append(doc, "Open object: unknown members are kept in ``extra`` and re-encoded.")
	}
	for _, u := range t.Unions {
		if u.Union.By == ir.ByTag {
			for _, v := range u.Union.Variants {
				if v.Type == t {
					doc = append(doc, fmt.Sprintf("Variant of %s (%s = %s).", u.Name, pyStr(u.Union.Tag), pyStr(v.TagValue)))
				}
			}
		} else {
			doc = append(doc, "Variant of "+u.Name+".")
		}
	}
	var shape []string
	for _, f := range t.Fields {
		s := pyStr(f.Wire)
		if f.Optional() {
			s += "?"
		}
		if f.Const != nil {
			s += ": " + *f.Const
		} else {
			s += ": " + e.shape(&f.Type)
		}
		shape = append(shape, s)
	}
	if hasExtra {
		shape = append(shape, "...")
	}
	doc = append(doc, "Wire shape: {"+strings.Join(shape, ", ")+"}")
	c.Doc = docstring(doc, "    ")

	// Fields.
	var wn []string
	for _, f := range t.Fields {
		fv := &fieldView{Attr: f.Names.Of(py)}
		nullable := e.isNullable(f.Type)
		if f.Const != nil {
			lit, litAnn, _ := constLit(*f.Const)
			a := litAnn
			if a == "" {
				a = e.ann(&f.Type, "")
			}
			if f.Required {
				fv.Ann = a
				if litAnn != "" {
					fv.Default = lit
				}
			} else {
				fv.Ann = a + " | None"
				fv.Default = "None"
			}
		} else {
			a := e.ann(&f.Type, "")
			switch {
			case f.Required:
				fv.Ann = a
			case nullable:
				if !strings.HasSuffix(a, "None") {
					a += " | None"
				}
				fv.Ann = a + " | _Absent"
				fv.Default = "_ABSENT"
			default:
				fv.Ann = a + " | None"
				fv.Default = "None"
			}
		}
		var fd []string
		state := "required"
		if f.Optional() {
			if nullable && f.Const == nil {
				state = "optional (ABSENT when missing; None is null)"
			} else {
				state = "optional (None when missing)"
			}
		} else if nullable {
			state = "required, may be null (None)"
		}
		fd = append(fd, fmt.Sprintf("Wire member %s, %s.", pyStr(f.Wire), state))
		if dl := docLines(f.Description); len(dl) > 0 {
			fd = append(fd, "")
			fd = append(fd, dl...)
		}
		fv.Doc = docstring(fd, "    ")
		c.Fields = append(c.Fields, fv)
		wn = append(wn, pyStr(fv.Attr)+": "+pyStr(f.Wire))
	}
	if hasExtra {
		a := "_Json"
		if t.Extra != nil {
			a = e.ann(t.Extra, "")
		}
		c.Fields = append(c.Fields, &fieldView{
			Attr:    "extra",
			Ann:     "dict[str, " + a + "]",
			Default: "field(default_factory=dict[str, " + a + "])",
			Doc:     docstring([]string{"Members not declared by the schema, by wire name, re-encoded as they are."}, "    "),
		})
	}
	c.WireNames = "{" + strings.Join(wn, ", ") + "}"

	c.Decoder = e.objectDecoder(t)
	c.Encode = e.objectEncoder(t)
	keys := make([]string, 0, len(t.Fields))
	for _, f := range t.Fields {
		keys = append(keys, pyStr(f.Wire))
	}
	var tables []string
	if len(t.Fields) > 0 && (t.Closed || hasExtra) {
		tables = append(tables, fmt.Sprintf("_K_%s: frozenset[str] = frozenset((%s))", name, strings.Join(keys, ", ")+trailingComma(len(keys))))
	}
	return c, tables
}

func trailingComma(n int) string {
	if n == 1 {
		return ","
	}
	return ""
}

func (e *emitter) isNullable(r ir.TypeRef) bool {
	rr := e.resolve(r)
	return r.Nullable || rr.Nullable || rr.Kind == ir.RefNull
}

func (e *emitter) objectDecoder(t *ir.Type) string {
	name := t.Names.Of(py)
	w := newWriter(0)
	w.line("def _d_%s(v: _Json) -> %s:", name, name)
	w.in()
	w.line("if type(v) is not dict:")
	w.in()
	w.line(`fail_type("dict", v)`)
	w.out()
	required := 0
	optional := 0
	for _, f := range t.Fields {
		if f.Required {
			required++
		} else {
			optional++
		}
	}
	count := fmt.Sprint(required)
	if optional > 0 {
		w.line("n = %d", required)
		count = "n"
	}
	var args []string
	if len(t.Fields) > 0 {
		w.line("k = %s", pyStr(t.Fields[0].Wire))
		w.line("try:")
		w.in()
		for i, f := range t.Fields {
			attr := f.Names.Of(py)
			dst := "a_" + attr
			wire := pyStr(f.Wire)
			setK := func() {
				if i > 0 || !f.Required {
					w.line("k = %s", wire)
				}
			}
			if f.Const != nil {
				lit, litAnn, _ := constLit(*f.Const)
				check := func(src string) {
					switch {
					case lit == "True" || lit == "False" || lit == "None":
						w.line("if %s is not %s:", src, lit)
					case strings.HasPrefix(lit, `"`):
						w.line("if %s != %s:", src, lit)
					case f.Type.Kind == ir.RefInteger || f.Type.Kind == ir.RefNumber:
						w.line("if type(%s) is bool or %s != %s:", src, src, lit)
					default:
						w.line("if %s != %s:", src, lit)
					}
					w.in()
					w.line("fail_const(%s, %s)", pyStr(*f.Const), src)
					w.out()
				}
				if f.Required {
					if i > 0 {
						w.line("k = %s", wire)
					}
					w.line("x = v[%s]", wire)
					check("x")
					if litAnn == "" {
						w.line("%s = x", dst)
						args = append(args, attr+"="+dst)
					}
				} else {
					w.line("%s: %s | None = None", dst, orAnn(litAnn, e.ann(&f.Type, "")))
					w.line("if %s in v:", wire)
					w.in()
					setK()
					w.line("n += 1")
					w.line("x = v[%s]", wire)
					check("x")
					if litAnn != "" {
						w.line("%s = %s", dst, lit)
					} else {
						w.line("%s = x", dst)
					}
					w.out()
					args = append(args, attr+"="+dst)
				}
				continue
			}
			nullable := e.isNullable(f.Type)
			a := e.ann(&f.Type, "")
			if f.Required {
				setK()
				if nullable {
					w.line("%s: %s", dst, a)
				}
				e.fieldDecode(w, f.Type, "v["+wire+"]", dst)
			} else {
				if nullable {
					if !strings.HasSuffix(a, "None") {
						a += " | None"
					}
					w.line("%s: %s | _Absent = _ABSENT", dst, a)
				} else {
					w.line("%s: %s | None = None", dst, a)
				}
				w.line("if %s in v:", wire)
				w.in()
				setK()
				w.line("n += 1")
				e.fieldDecode(w, f.Type, "v["+wire+"]", dst)
				w.out()
			}
			args = append(args, attr+"="+dst)
		}
		w.out()
		w.line("except KeyError:")
		w.in()
		w.line("raise missing(k) from None")
		w.out()
		w.line("except _DecodeError as e:")
		w.in()
		w.line("e.prepend(k)")
		w.line("raise")
		w.out()
	}
	switch {
	case t.Closed:
		w.line("if len(v) != %s:", count)
		w.in()
		w.line("reject_unknown(v, %s, %s)", keysRef(t), pyStr(t.Name))
		w.out()
	case t.Extra != nil:
		ea := e.ann(t.Extra, "")
		w.line("extra: dict[str, %s] = {}", ea)
		w.line("if len(v) != %s:", count)
		w.in()
		w.line(`kk = ""`)
		w.line("try:")
		w.in()
		w.line("for kk, y in v.items():")
		w.in()
		w.line("if kk not in %s:", keysRef(t))
		w.in()
		w.line("z: %s", ea)
		e.decodeInto(w, *t.Extra, "y", "z")
		w.line("extra[kk] = z")
		w.out()
		w.out()
		w.out()
		w.line("except _DecodeError as e:")
		w.in()
		w.line("e.prepend(kk)")
		w.line("raise")
		w.out()
		w.out()
		args = append(args, "extra=extra")
	default:
		w.line("extra: dict[str, _Json] = {} if len(v) == %s else extra_json(v, %s)", count, keysRef(t))
		args = append(args, "extra=extra")
	}
	w.line("return %s(%s)", name, strings.Join(args, ", "))
	return w.String()
}

func orAnn(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func keysRef(t *ir.Type) string {
	if len(t.Fields) == 0 {
		return "frozenset[str]()"
	}
	return "_K_" + t.Names.Of(py)
}

// fieldDecode decodes the member expression src (a subscript of v) into dst.
func (e *emitter) fieldDecode(w *writer, r ir.TypeRef, src, dst string) {
	rr := e.resolve(r)
	if rr.Kind == ir.RefNamed && rr.Named.Kind != ir.KindEnum && !rr.Nullable {
		w.line("%s = _d_%s(%s)", dst, rr.Named.Names.Of(py), src)
		return
	}
	if h := ""; rr.Kind == ir.RefArray || rr.Kind == ir.RefMap {
		kind := "list"
		if rr.Kind == ir.RefMap {
			kind = "map"
		}
		if !rr.Nullable {
			h = primHelper(e.resolve(*rr.Elem), kind)
		}
		if h != "" {
			w.line("%s = %s(%s)", dst, h, src)
			return
		}
	}
	if rr.Kind == ir.RefJSON {
		w.line("%s = check_json(%s)", dst, src)
		return
	}
	w.line("x = %s", src)
	e.decodeInto(w, r, "x", dst)
}

func (e *emitter) objectEncoder(t *ir.Type) string {
	w := newWriter(2)
	var lit []string
	inLit := true
	for _, f := range t.Fields {
		attr := "self." + f.Names.Of(py)
		wire := pyStr(f.Wire)
		if f.Const != nil {
			lit0, litAnn, _ := constLit(*f.Const)
			val := lit0
			if litAnn == "" {
				val = attr
			}
			if f.Required {
				if inLit {
					lit = append(lit, wire+": "+val)
				} else {
					w.line("d[%s] = %s", wire, val)
				}
			} else {
				inLit = false
				w.line("if %s is not None:", attr)
				w.in()
				w.line("d[%s] = %s", wire, attr)
				w.out()
			}
			continue
		}
		if f.Required {
			sub := w.sub()
			sub.ind = w.ind
			x := e.encodeExpr(sub, f.Type, attr)
			if inLit && len(sub.lines) == 0 {
				lit = append(lit, wire+": "+x)
				continue
			}
			inLit = false
			w.lines = append(w.lines, sub.lines...)
			w.line("d[%s] = %s", wire, x)
			continue
		}
		inLit = false
		nullable := e.isNullable(f.Type)
		if nullable {
			w.line("if %s is not _ABSENT:", attr)
		} else {
			w.line("if %s is not None:", attr)
		}
		w.in()
		x := e.encodeExpr(w, f.Type, attr)
		w.line("d[%s] = %s", wire, x)
		w.out()
	}
	if !t.Closed {
		w.line("if self.extra:")
		w.in()
		if t.Extra == nil || isPrimitive(e.resolve(*t.Extra)) {
			w.line("for k, x in self.extra.items():")
			w.in()
			w.line("d.setdefault(k, x)")
			w.out()
		} else {
			w.line("for k, y in self.extra.items():")
			w.in()
			w.line("if k not in d:")
			w.in()
			x := e.encodeExpr(w, *t.Extra, "y")
			w.line("d[k] = %s", x)
			w.out()
			w.out()
		}
		w.out()
	}
	w.line("return d")
	head := "        d: dict[str, _Json] = {" + strings.Join(lit, ", ") + "}"
	return head + "\n" + w.String()
}

// ---------------------------------------------------------------------------
// Unknown variants.

func (e *emitter) unknownClass(u *ir.Type, name, pointer, desc string) *classView {
	tag := u.Union.Tag
	var doc []string
	doc = append(doc, fmt.Sprintf("A %s whose %s is none of its known tags.", u.Name, pyStr(tag)))
	doc = append(doc, "")
	if dl := docLines(desc); len(dl) > 0 {
		doc = append(doc, dl...)
		doc = append(doc, "")
	}
	doc = append(doc, "Keeps the whole JSON object in ``raw`` and re-encodes it unchanged, so a")
	doc = append(doc, "newer peer's variant passes through an older SDK without loss.")
	if u.Union.Open {
		doc = append(doc, "The schema's union is open: the validator reports an unknown tag as a warning.")
	} else {
		doc = append(doc, "The schema's union is closed: the validator reports an unknown tag as an error.")
	}
	doc = append(doc, "")
	if pointer != u.Pointer {
		doc = append(doc, "Schema: "+pointer+" (the fallback branch of "+u.Pointer+").")
	} else {
		doc = append(doc, "Schema: unknown-tag variant of "+u.Pointer+" (not a schema type).")
	}
	return &classView{
		Name: name,
		Doc:  docstring(doc, "    "),
		Unknown: &unknownView{
			Union:   u.Name,
			Tag:     pyStr(tag),
			TagDoc:  docstring([]string{fmt.Sprintf("The %s value (the tag).", pyStr(tag))}, "        "),
			Pointer: pointer,
		},
		Decoder: e.unknownDecoder(u, name),
	}
}

func (e *emitter) unknownDecoder(u *ir.Type, name string) string {
	w := newWriter(0)
	tag := pyStr(u.Union.Tag)
	w.line("def _d_%s(v: _Json) -> %s:", name, name)
	w.in()
	w.line("if type(v) is not dict:")
	w.in()
	w.line(`fail_type("dict", v)`)
	w.out()
	w.line("t = v.get(%s)", tag)
	w.line("if type(t) is not str:")
	w.in()
	w.line("bad_tag(v, %s, %s)", tag, pyStr(u.Name))
	w.out()
	w.line("if t in _T_%s:", u.Names.Of(py))
	w.in()
	w.line("known_tag(t, %s, %s)", tag, pyStr(u.Name))
	w.out()
	w.line("return %s(raw=check_object(v))", name)
	return w.String()
}

// ---------------------------------------------------------------------------
// Aliases, enums and unions.

func (e *emitter) aliasOf(t *ir.Type) *aliasView {
	name := t.Names.Of(py)
	a := &aliasView{Name: name}
	var doc []string
	doc = append(doc, docLines(t.Description)...)
	if len(doc) == 0 {
		doc = append(doc, t.Name+".")
	}
	doc = append(doc, "", "Schema: "+t.Pointer+" ("+t.Name+").")
	quote := false
	switch t.Kind {
	case ir.KindEnum:
		vals := make([]string, len(t.Enum))
		for i, v := range t.Enum {
			vals[i] = v.Value
		}
		a.Value = enumLiteral(vals)
		doc = append(doc, "String enum. Uses of it admit any ``str``: a value outside this list is")
		doc = append(doc, "decoded as it is (forward compatibility); the validator reports it.")
	case ir.KindAlias:
		a.Value = e.ann(t.Alias, "")
		quote = e.mentionsUndefined(t.Alias)
		doc = append(doc, "Wire shape: "+e.shape(t.Alias)+".")
	case ir.KindUnion:
		un := t.Union
		var parts []string
		for _, v := range un.Variants {
			vr := ir.TypeRef{Kind: ir.RefNamed, Named: v.Type}
			parts = append(parts, e.ann(&vr, ""))
			if e.mentionsUndefined(&vr) {
				quote = true
			}
		}
		a.Value = strings.Join(parts, " | ")
		switch un.By {
		case ir.ByTag:
			open := "closed"
			if un.Open {
				open = "open"
			}
			doc = append(doc, fmt.Sprintf("Tagged union on %s (%s in the schema). Known variants:", pyStr(un.Tag), open))
			for _, v := range un.Variants {
				doc = append(doc, fmt.Sprintf("  %s → %s", pyStr(v.TagValue), v.Type.Names.Of(py)))
			}
			doc = append(doc, "Any other tag decodes to "+unknownName(t)+" (kept raw, re-encoded unchanged),")
			doc = append(doc, "which every use of this union admits besides the known variants.")
			doc = append(doc, "A known tag with a bad body is a decode error, never the unknown variant.")
		case ir.ByJSONType:
			doc = append(doc, "Union by JSON type:")
			for _, v := range un.Variants {
				doc = append(doc, fmt.Sprintf("  %s → %s", v.JSONType, v.Type.Names.Of(py)))
			}
		case ir.ByShape:
			doc = append(doc, "Union by shape (closed objects told apart by their required members);")
			doc = append(doc, "exactly one variant must decode:")
			for _, v := range un.Variants {
				doc = append(doc, fmt.Sprintf("  %s (requires %s)", v.Type.Names.Of(py), strings.Join(quoteAll(v.Required), ", ")))
			}
		}
	}
	if quote {
		a.Value = pyStr(a.Value)
	}
	e.defined[name] = true
	a.Doc = docstring(doc, "")
	return a
}

// nonClassFuncs prints the decoder and encoder of a union, enum or alias.
func (e *emitter) nonClassFuncs(t *ir.Type) (string, []string) {
	name := t.Names.Of(py)
	self := ir.TypeRef{Kind: ir.RefNamed, Named: t}
	ret := e.ann(&self, "")
	w := newWriter(0)
	var tables []string
	w.line("def _d_%s(v: _Json) -> %s:", name, ret)
	w.in()
	switch t.Kind {
	case ir.KindEnum:
		w.line("if type(v) is not str:")
		w.in()
		w.line(`fail_type("str", v)`)
		w.out()
		w.line("return v")
	case ir.KindAlias:
		w.line("r: %s", ret)
		e.decodeInto(w, *t.Alias, "v", "r")
		w.line("return r")
	case ir.KindUnion:
		un := t.Union
		switch un.By {
		case ir.ByTag:
			tag := pyStr(un.Tag)
			w.line("if type(v) is not dict:")
			w.in()
			w.line(`fail_type("dict", v)`)
			w.out()
			w.line("t = v.get(%s)", tag)
			w.line("if type(t) is not str:")
			w.in()
			w.line("bad_tag(v, %s, %s)", tag, pyStr(t.Name))
			w.out()
			w.line("f = _T_%s.get(t)", name)
			w.line("if f is None:")
			w.in()
			w.line("return %s(raw=check_object(v))", unknownName(t))
			w.out()
			w.line("return f(v)")
			var entries []string
			for _, v := range un.Variants {
				entries = append(entries, "    "+pyStr(v.TagValue)+": _d_"+v.Type.Names.Of(py)+",")
			}
			tables = append(tables, fmt.Sprintf("_T_%s: dict[str, _Callable[[_Json], %s]] = {\n%s\n}", name, name, strings.Join(entries, "\n")))
		case ir.ByJSONType:
			var expected []string
			for _, v := range un.Variants {
				cond, exp := jsonTypeCheck(v.JSONType)
				expected = append(expected, exp)
				w.line("if %s:", cond)
				w.in()
				w.line("return _d_%s(v)", v.Type.Names.Of(py))
				w.out()
			}
			w.line("fail_type(%s, v)", pyStr(strings.Join(expected, " or ")))
		case ir.ByShape:
			w.line("errors: list[tuple[str, _DecodeError]] = []")
			for _, v := range un.Variants {
				w.line("try:")
				w.in()
				w.line("return _d_%s(v)", v.Type.Names.Of(py))
				w.out()
				w.line("except _DecodeError as e:")
				w.in()
				w.line("errors.append((%s, e))", pyStr(v.Type.Name))
				w.out()
			}
			w.line("raise no_branch(%s, errors)", pyStr(t.Name))
		}
	}
	w.out()
	w.line("")
	w.line("")
	w.line("def _e_%s(o: %s) -> _Json:", name, ret)
	w.in()
	switch t.Kind {
	case ir.KindEnum:
		w.line("return o")
	case ir.KindAlias:
		x := e.encodeExpr(w, *t.Alias, "o")
		w.line("return %s", x)
	case ir.KindUnion:
		un := t.Union
		switch un.By {
		case ir.ByTag, ir.ByShape:
			w.line("return o.to_json()")
		case ir.ByJSONType:
			var rest []*ir.Variant
			for _, v := range un.Variants {
				if e.isClass(v.Type) {
					w.line("if isinstance(o, %s):", v.Type.Names.Of(py))
					w.in()
					w.line("return o.to_json()")
					w.out()
				} else {
					rest = append(rest, v)
				}
			}
			prim := true
			for _, v := range rest {
				if !isPrimitive(e.resolve(ir.TypeRef{Kind: ir.RefNamed, Named: v.Type})) {
					prim = false
				}
			}
			if prim {
				w.line("return o")
			} else {
				w.line("return encode_value(o)")
			}
		}
	}
	return w.String(), tables
}

// jsonTypeCheck is the Python test for a JSON type and its name in
// messages.
func jsonTypeCheck(js string) (string, string) {
	switch js {
	case "string":
		return "type(v) is str", "str"
	case "number", "integer":
		return "type(v) is int or type(v) is float", "float or int"
	case "boolean":
		return "type(v) is bool", "bool"
	case "array":
		return "type(v) is list", "list"
	case "object":
		return "type(v) is dict", "dict"
	case "null":
		return "v is None", "None"
	}
	return "False", js
}

// Package typescript prints the TypeScript bindings of a loaded model: an
// ESM package (package.json, tsconfig.json, src/*.ts) with one interface or
// type per named type, the request and notification maps, method-name
// constants, the method table, frame type guards and small runtime helpers
// for unknown union tags and unknown members.
//
// The emitter only prints: every name comes from the IR (Type.Names,
// Field.Wire, Union.Unknown, Method.Names, Model.RequestMap and
// NotificationMap); the IR keeps schema names off the identifiers the
// templates declare (it reads them from templates/ts).
package typescript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/templates"
)

// Dir is the first path element of every file the emitter writes.
const Dir = "ts"

// jsonValueName is the built-in recursive JSON value type. The IR names a
// schema $defs entry that is itself "any JSON" (and called JsonValue) with
// it, and it is printed in place of the built-in, with its description.
const jsonValueName = "JsonValue"

// docWidth is the width JSDoc text is filled to (after " * " and the
// indentation).
const docWidth = 96

// Emit returns the TypeScript package for m, every path under "ts/".
func Emit(m *ir.Model, o ir.Options) ([]ir.File, error) {
	e := &emitter{m: m, o: o}
	v, err := e.build()
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("ts").Funcs(funcs).ParseFS(templates.FS, "ts/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("typescript templates: %w", err)
	}
	outputs := []struct{ path, tmpl string }{
		{"ts/README.md", "README.md.tmpl"},
		{"ts/package.json", "package.json.tmpl"},
		{"ts/tsconfig.json", "tsconfig.json.tmpl"},
		{"ts/src/client.ts", "client.ts.tmpl"},
		{"ts/src/index.ts", "index.ts.tmpl"},
		{"ts/src/methods.ts", "methods.ts.tmpl"},
		{"ts/src/runtime.ts", "runtime.ts.tmpl"},
		{"ts/src/server.ts", "server.ts.tmpl"},
		{"ts/src/transport.ts", "transport.ts.tmpl"},
		{"ts/src/types.ts", "types.ts.tmpl"},
	}
	var files []ir.File
	for _, out := range outputs {
		f, err := render(tmpl, out.tmpl, out.path, v, o.Spool)
		if err == nil {
			err = e.err
		}
		if err != nil {
			return nil, fmt.Errorf("typescript: rendering %s: %w", out.path, err)
		}
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// render prints one template as the file at path, tidied (ir.TidyLines):
// in memory, or, with a spool, straight into it through an ir.TidyWriter
// (same bytes), so that types.ts (about 0.8 B per schema byte) is never
// held whole.
func render(tmpl *template.Template, name, path string, v *view, spool *ir.Spool) (ir.File, error) {
	if spool == nil {
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, name, v); err != nil {
			return ir.File{}, err
		}
		return ir.File{Path: path, Data: ir.TidyLines(b.Bytes(), 1)}, nil
	}
	return spool.CreateTidy(path, 1, func(w io.Writer) error { return tmpl.ExecuteTemplate(w, name, v) })
}

type emitter struct {
	m   *ir.Model
	o   ir.Options
	err error // a declaration view.Decls could not build
}

// view is what the templates print.
type view struct {
	Header      []string
	Package     string
	Version     string // Options.PackageVersion
	Title       string
	Description []string
	SchemaFile  string
	SHA256      string

	// BuiltinJSON is true when types.ts defines JsonValue itself (the schema
	// has no JsonValue type of its own).
	BuiltinJSON bool
	// Decls yields types.ts's declarations, each built as the template
	// reaches it (so that only one is in memory at a time); a failure to
	// build one ends the sequence and is left in emitter.err.
	Decls   iter.Seq[*decl]
	Unions  []*unionView
	Objects []*objectView

	RequestMap      string
	NotificationMap string
	Requests        []*methodView
	Notifications   []*methodView
	Methods         []*methodView
	OptionalParams  []string // TS string literals of methods whose params may be absent

	// IDs is how request ids are minted (Model.SDK.IDs); IDExpr is the
	// TypeScript expression minting one and IDUUID whether it calls
	// randomUUID.
	IDs    ir.IDStyle
	IDExpr string
	IDUUID bool
	IDDoc  []string
	// Client and Server are the two sides' views of the methods.
	Client, Server *sideView

	// ExampleCall and ExampleHandle are the client's first call and first
	// notification handler (README).
	ExampleCall, ExampleHandle *sdkMethodView

	// Examples for the README: the first notification, the tagged union
	// with the most variants (open ones first), the first object type.
	ExampleNotification *methodView
	ExampleUnion        *unionView
	ExampleObject       *objectView
}

// decl is one exported declaration of types.ts.
type decl struct {
	Doc  []string
	Name string
	// Kind is "interface", "alias", "enum" or "union".
	Kind string
	// interface
	Fields []*fieldView
	Index  string // index signature value type, "" for none
	// alias
	Expr string
	// union: member type names, one per line
	Members []string
	// enum: the literal union and the value object
	Values []*enumView
}

type fieldView struct {
	Doc      []string
	Name     string // property name as written (quoted when not an identifier)
	Optional bool
	Type     string
}

type enumView struct {
	Key     string // property of the value object
	Literal string // TS string literal
}

type unionView struct {
	Name    string // TS name of the known union
	Key     string // TS string literal of Name (the TaggedUnions key)
	Tag     string // TS string literal of the tag member name
	TagProp string // the tag member as a property access (".type" or `["x-y"]`)
	Unknown string // TS name of the unknown-tag variant
	Values  []string
	// First is the first variant's TS type name.
	First string
	open  bool
}

type objectView struct {
	Name    string
	Key     string
	Members []string // TS string literals of the declared wire names
}

type methodView struct {
	Doc       []string
	Wire      string // TS string literal of the wire name
	Ident     string // key in Methods
	Kind      string
	Direction string
	Params    string // TS type of params ("T.X" style not used: plain names)
	Result    string
	Optional  bool
	// ResultShape is the top-level shape of the result type (requests).
	ResultShape *shapeView
	// ParamsShape is the top-level shape of the params type.
	ParamsShape *shapeView
}

// shapeView prints the JSON types of a value and of its required members
// as TypeScript array literals.
type shapeView struct {
	Type     string // e.g. ["object"]; [] for any JSON
	Required string // e.g. [["serverInfo", ["object"]]]
	Optional string // the other declared members, the same way
}

func (e *emitter) build() (*view, error) {
	m := e.m
	v := &view{
		Header:      m.HeaderLines(e.o),
		Package:     e.o.PackageName(),
		Version:     e.o.PackageVersion(),
		Title:       m.Title,
		Description: ir.DocLines(m.Description),
		SHA256:      m.SHA256,
		BuiltinJSON: true,
	}
	if err := ir.CheckPackage(v.Package, []ir.Lang{ir.LangTS}); err != nil {
		return nil, fmt.Errorf("typescript: %w", err)
	}
	for _, t := range m.Decls {
		if isSchemaJSONValue(t) {
			v.BuiltinJSON = false
		}
		switch t.Kind {
		case ir.KindObject:
			ov := &objectView{Name: t.Names.Of(ir.LangTS), Key: tsString(t.Names.Of(ir.LangTS))}
			for _, f := range t.Fields {
				ov.Members = append(ov.Members, tsString(f.Wire))
			}
			v.Objects = append(v.Objects, ov)
			if v.ExampleObject == nil && len(t.Fields) > 0 && !t.Closed && t.Extra == nil {
				v.ExampleObject = ov
			}
		case ir.KindUnion:
			u := t.Union
			if u.By != ir.ByTag {
				continue
			}
			uv := &unionView{Name: t.Names.Of(ir.LangTS), Key: tsString(t.Names.Of(ir.LangTS)), Tag: tsString(u.Tag), TagProp: propAccess(u.Tag), Unknown: u.Unknown.Names.Of(ir.LangTS), open: u.Open}
			for _, x := range u.Variants {
				uv.Values = append(uv.Values, tsString(x.TagValue))
			}
			if len(u.Variants) > 0 {
				uv.First = u.Variants[0].Type.Names.Of(ir.LangTS)
			}
			v.Unions = append(v.Unions, uv)
			if ex := v.ExampleUnion; ex == nil || (uv.open && !ex.open) || (uv.open == ex.open && len(uv.Values) > len(ex.Values)) {
				v.ExampleUnion = uv
			}
		}
	}
	v.Decls = func(yield func(*decl) bool) {
		for _, t := range m.Decls {
			d, err := e.decl(t)
			if err != nil {
				e.err = err
				return
			}
			if !yield(d) {
				return
			}
		}
	}
	v.RequestMap, v.NotificationMap = m.RequestMap.Of(ir.LangTS), m.NotificationMap.Of(ir.LangTS)
	for _, me := range m.Methods {
		mv := &methodView{
			Doc:       docComment(methodDoc(me), 2),
			Wire:      tsString(me.Name),
			Ident:     me.Names.Of(ir.LangTS),
			Kind:      string(me.Kind),
			Direction: string(me.Direction),
			Optional:  me.ParamsOptional,
		}
		if me.Params != nil {
			mv.Params = me.Params.Names.Of(ir.LangTS)
			mv.ParamsShape = e.shape(me.Params)
		} else {
			mv.ParamsShape = &shapeView{Type: "[]", Required: "[]", Optional: "[]"}
		}
		if me.Result != nil {
			mv.Result = me.BindingResult().Names.Of(ir.LangTS)
			mv.ResultShape = e.shape(me.BindingResult())
		}
		if me.ParamsOptional {
			v.OptionalParams = append(v.OptionalParams, mv.Wire)
		}
		v.Methods = append(v.Methods, mv)
		if me.Kind == ir.Request {
			v.Requests = append(v.Requests, mv)
		} else {
			v.Notifications = append(v.Notifications, mv)
			if v.ExampleNotification == nil {
				v.ExampleNotification = mv
			}
		}
	}
	if sdk := m.SDK; sdk != nil {
		v.IDs = sdk.IDs
		v.IDExpr, v.IDUUID = idExpr(sdk.IDs)
		v.IDDoc = docComment(fmt.Sprintf("Returns a function minting the ids of one connection's outgoing requests in the "+
			"protocol's id style, `%s`, from %s.", sdk.IDs, sdk.IDs.Source), 0)
		v.Client, v.Server = e.side(sdk.Client), e.side(sdk.Server)
		if len(v.Client.Calls) > 0 {
			v.ExampleCall = v.Client.Calls[0]
		}
		if len(v.Client.Handles) > 0 {
			v.ExampleHandle = v.Client.Handles[0]
		}
	} else {
		v.Client, v.Server = &sideView{}, &sideView{}
		v.IDExpr = "nextId++"
		v.IDDoc = docComment("Returns a function minting the ids of one connection's outgoing requests: 1, 2, 3, ...", 0)
	}
	return v, nil
}

// sideView is one side's methods, as the client and server templates print
// them.
type sideView struct {
	Calls, Notifies, Serves, Handles []*sdkMethodView
}

type sdkMethodView struct {
	Doc      []string
	Wire     string // TS string literal of the wire name
	Call     string
	Handler  string
	Params   string
	Result   string
	Optional bool
}

func (e *emitter) side(s *ir.Side) *sideView {
	list := func(ms []*ir.SDKMethod, what string) []*sdkMethodView {
		var out []*sdkMethodView
		for _, sm := range ms {
			mv := &sdkMethodView{
				Doc:      docComment(joinDoc(methodDoc(sm.Method), what), 2),
				Wire:     tsString(sm.Name),
				Call:     sm.Call.Of(ir.LangTS),
				Handler:  sm.Handler.Of(ir.LangTS),
				Optional: sm.ParamsOptional,
			}
			if sm.Params != nil {
				mv.Params = sm.Params.Names.Of(ir.LangTS)
			}
			if sm.Result != nil {
				mv.Result = sm.BindingResult().Names.Of(ir.LangTS)
			}
			out = append(out, mv)
		}
		return out
	}
	if s.Role == "client" {
		return &sideView{
			Calls:    list(s.Calls, "Sends the request and resolves with its result; rejects with a ResponseError for an error response."),
			Notifies: list(s.Notifies, "Sends the notification."),
			Serves: list(s.Serves, "Sets the handler of the server's requests of this method (replacing any earlier one): "+
				"it returns the result or a promise of it; a thrown ResponseError is answered with its code, any other error with -32603."),
			Handles: list(s.Handles, "Adds a handler of this notification; returns the function that removes it."),
		}
	}
	return &sideView{
		Calls:    list(s.Calls, "Sends the request to the client and resolves with its result; rejects with a ResponseError for an error response."),
		Notifies: list(s.Notifies, "Sends the notification to the client."),
		Serves:   list(s.Serves, ""),
		Handles:  list(s.Handles, ""),
	}
}

// idExpr prints the expression minting one request id of style s (a
// counter reads the transport module's nextId), and whether it calls
// randomUUID.
func idExpr(s ir.IDStyle) (string, bool) {
	if s.Numeric() {
		return "nextId++", false
	}
	var part string
	uuid := false
	switch s.Mint {
	case ir.IDUUIDHex:
		part, uuid = `${randomUUID().replaceAll("-", "")}`, true
	case ir.IDUUID:
		part, uuid = `${randomUUID()}`, true
	default:
		part = `${nextId++}`
	}
	esc := strings.NewReplacer("`", "\\`", "$", "\\$").Replace
	return "`" + esc(s.Prefix) + part + esc(s.Suffix) + "`", uuid
}

func methodDoc(me *ir.Method) string {
	s := fmt.Sprintf("`%s`: %s, %s.", me.Name, me.Kind, me.Direction)
	if me.Description != "" {
		s += "\n\n" + me.Description
	}
	return s
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// isSchemaJSONValue reports whether t is the schema's own any-JSON type that
// the IR named JsonValue (printed in place of the built-in).
func isSchemaJSONValue(t *ir.Type) bool {
	return t.Kind == ir.KindAlias && t.Alias.Kind == ir.RefJSON && !t.Alias.Nullable && t.Names.Of(ir.LangTS) == jsonValueName
}

// decl prints one declaration.
func (e *emitter) decl(t *ir.Type) (*decl, error) {
	name := t.Names.Of(ir.LangTS)
	doc := t.Doc()
	d := &decl{Name: name}
	switch t.Kind {
	case ir.KindObject:
		e.fields(d, t)
		switch {
		case t.Extra != nil:
			doc = joinDoc(doc, "Members not declared here are of the index signature's type.")
		case len(t.Fields) == 0 && !t.Closed:
			doc = joinDoc(doc, "Open object with no declared members: every member is an extra one.")
		}
	case ir.KindUnknown:
		if t.Fallback != nil {
			e.fields(d, t.Fallback)
		} else {
			d.Kind = "interface"
			d.Fields = []*fieldView{{Name: propName(t.UnknownOf.Union.Tag), Type: "string"}}
			d.Index = jsonValueName
		}
		doc = joinDoc(doc, unknownDoc(t))
	case ir.KindEnum:
		d.Kind = "enum"
		for _, x := range t.Enum {
			d.Values = append(d.Values, &enumView{Key: x.Names.Of(ir.LangTS), Literal: tsString(x.Value)})
		}
		doc = joinDoc(doc, fmt.Sprintf("The values the schema lists. A peer may send another (a newer peer's value "+
			"is kept as it is): OpenEnum<%s> is the type of any value received.", name))
	case ir.KindAlias:
		d.Kind = "alias"
		if isSchemaJSONValue(t) {
			d.Kind = "json"
		} else {
			d.Expr = e.ref(t.Alias)
		}
	case ir.KindUnion:
		d.Kind = "union"
		u := t.Union
		for _, x := range u.Variants {
			d.Members = append(d.Members, splitUnion(e.ref(&ir.TypeRef{Kind: ir.RefNamed, Named: x.Type}))...)
		}
		switch u.By {
		case ir.ByTag:
			doc = joinDoc(doc, fmt.Sprintf("Discriminated on %q: `switch (value%s)` narrows to one variant. A value whose tag is "+
				"none of the known ones has the type %s, which is not a member of this union (see WithUnknown and isKnown).",
				u.Tag, propAccess(u.Tag), u.Unknown.Names.Of(ir.LangTS)))
		case ir.ByJSONType:
			doc = joinDoc(doc, "Told apart by JSON type (typeof / Array.isArray).")
		case ir.ByShape:
			doc = joinDoc(doc, "Closed objects told apart by their required members.")
		case ir.ByTry:
			var names []string
			for _, x := range u.Variants {
				names = append(names, x.Type.Names.Of(ir.LangTS))
			}
			rule := "the first that matches is the value's variant (anyOf)"
			if u.Keyword == "oneOf" {
				rule = "exactly one must match (oneOf)"
			}
			doc = joinDoc(doc, "No member or JSON type tells the variants apart: the other bindings try them in the order "+
				strings.Join(names, ", ")+"; "+rule+".")
		default:
			return nil, fmt.Errorf("typescript: %s: no TypeScript form for a union %v", t.Pointer, u.By)
		}
	default:
		return nil, fmt.Errorf("typescript: %s: unsupported type kind %v", t.Pointer, t.Kind)
	}
	d.Doc = docComment(joinDoc(doc, "Schema: "+t.Pointer+"."), 0)
	return d, nil
}

// fields fills an interface declaration from an object type's members.
func (e *emitter) fields(d *decl, t *ir.Type) {
	d.Kind = "interface"
	var types []string
	optional := false
	for _, f := range t.Fields {
		fv := &fieldView{Doc: docComment(f.Doc(), 2), Name: propName(f.Wire), Optional: !f.Required}
		if f.Const != nil {
			fv.Type = constType(*f.Const)
		} else {
			fv.Type = e.ref(&f.Type)
		}
		optional = optional || fv.Optional
		types = append(types, fv.Type)
		d.Fields = append(d.Fields, fv)
	}
	switch {
	case t.Extra != nil:
		// Typed extras: every declared member must also fit the index
		// signature, so it is the union of the extra type and theirs.
		d.Index = unionOf(append([]string{e.ref(t.Extra)}, types...), optional)
	case len(t.Fields) == 0 && t.Closed:
		d.Index = "never"
	case len(t.Fields) == 0:
		d.Index = jsonValueName
	}
}

// unknownDoc documents an unknown-tag variant.
func unknownDoc(t *ir.Type) string {
	union := t.UnknownOf.Names.Of(ir.LangTS)
	return fmt.Sprintf("The unknown-tag variant of %s: a value whose %q is none of the known tags, kept as it is. It is "+
		"not a member of %s, so an exhaustive switch over %s compiles; widen with WithUnknown<%s> and tell the two "+
		"apart with isKnown(%s, value).", union, t.UnknownOf.Union.Tag, union, union, tsString(union), tsString(union))
}

func joinDoc(a, b string) string {
	if strings.TrimSpace(a) == "" {
		return b
	}
	return a + "\n\n" + b
}

// ref prints one use of a type.
func (e *emitter) ref(r *ir.TypeRef) string {
	var s string
	switch r.Kind {
	case ir.RefString:
		if len(r.Enum) > 0 {
			lits := make([]string, len(r.Enum))
			for i, x := range r.Enum {
				lits[i] = tsString(x)
			}
			s = strings.Join(lits, " | ")
		} else {
			s = "string"
		}
	case ir.RefInteger, ir.RefNumber:
		s = "number"
	case ir.RefBoolean:
		s = "boolean"
	case ir.RefJSON:
		return jsonValueName // already includes null
	case ir.RefNamed:
		s = r.Named.Names.Of(ir.LangTS)
	case ir.RefArray:
		el := e.ref(r.Elem)
		if len(splitUnion(el)) > 1 {
			el = "(" + el + ")"
		}
		s = el + "[]"
	case ir.RefMap:
		s = "{ [key: string]: " + e.ref(r.Elem) + " }"
	case ir.RefNull:
		return "null"
	default:
		s = jsonValueName
	}
	if r.Nullable {
		s += " | null"
	}
	return s
}

// unionOf joins type expressions into one union, without repeats.
func unionOf(types []string, undef bool) string {
	seen := map[string]bool{}
	var out []string
	for _, t := range types {
		for _, p := range splitUnion(t) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	if undef {
		out = append(out, "undefined")
	}
	return strings.Join(out, " | ")
}

// splitUnion splits a type expression at its top-level " | ".
func splitUnion(t string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '(', '{', '[', '<':
			depth++
		case ')', '}', ']', '>':
			depth--
		case '"':
			for i++; i < len(t) && t[i] != '"'; i++ {
				if t[i] == '\\' {
					i++
				}
			}
		case '|':
			if depth == 0 {
				out = append(out, strings.TrimSpace(t[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(t[start:]))
}

// constType prints a const member's JSON text as a literal type. JSON
// string, number, boolean and null literals are valid TypeScript literal
// types as written; other JSON (objects, arrays) is typed JsonValue.
func constType(js string) string {
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return jsonValueName
	}
	switch x := v.(type) {
	case string:
		return tsString(x)
	case bool, nil:
		return js
	case float64:
		return js // a JSON number is a TypeScript numeric literal type (with its sign)
	}
	return jsonValueName
}

// tsString prints s as a TypeScript string literal (JSON escaping is valid
// TypeScript; HTML characters are left alone).
func tsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	// U+2028/U+2029 are line terminators in older parsers; escape them.
	return strings.NewReplacer("\u2028", `\u2028`, "\u2029", `\u2029`).Replace(out)
}

// propName prints a wire member name as a property name: bare when it is an
// identifier, else a string literal.
func propName(wire string) string {
	if identRE.MatchString(wire) {
		return wire
	}
	return tsString(wire)
}

// propAccess prints a member access: ".name", or `["not-an-ident"]`.
func propAccess(wire string) string {
	if identRE.MatchString(wire) {
		return "." + wire
	}
	return "[" + tsString(wire) + "]"
}

// docComment turns a description into TSDoc comment body lines (without
// indentation), filled to docWidth less indent columns: nil when there is no
// text. "*/" never survives: it is written "*\/".
func docComment(s string, indent int) []string {
	lines := ir.Wrap(s, docWidth-indent)
	if len(lines) == 0 {
		return nil
	}
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, "*/", `*\/`)
	}
	if len(lines) == 1 && indent+len("/** ")+len(lines[0])+len(" */") <= docWidth+3 {
		return []string{"/** " + lines[0] + " */"}
	}
	out := []string{"/**"}
	for _, l := range lines {
		if l == "" {
			out = append(out, " *")
		} else {
			out = append(out, " * "+l)
		}
	}
	return append(out, " */")
}

var funcs = template.FuncMap{
	// doc prints comment lines with indent before each.
	"doc": func(indent string, lines []string) string {
		if len(lines) == 0 {
			return ""
		}
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(indent + l + "\n")
		}
		return b.String()
	},
	"docText": func(s string) []string { return docComment(s, 0) },
	"json": func(v any) (string, error) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return "", err
		}
		return strings.TrimSuffix(b.String(), "\n"), nil
	},
	"tsString": tsString,
	"join":     strings.Join,
	// list prints a TypeScript array literal of items on one line when it
	// fits in 100 columns after indent, else one item per line.
	"list": func(indent string, items []string) string {
		one := "[" + strings.Join(items, ", ") + "]"
		if len(indent)+len("values: ")+len(one)+1 <= docWidth+4 {
			return one
		}
		return "[\n" + indent + "  " + strings.Join(items, ",\n"+indent+"  ") + ",\n" + indent + "]"
	},
	"last": func(i, n int) bool { return i == n-1 },
}

// shape prints the top-level shape of a named type: its JSON types and, for
// an object, the JSON types of its required members.
func (e *emitter) shape(t *ir.Type) *shapeView {
	sv := &shapeView{Type: typeList(jsonTypesOf(&ir.TypeRef{Kind: ir.RefNamed, Named: t})), Required: "[]", Optional: "[]"}
	if t.Kind != ir.KindObject {
		return sv
	}
	var req, opt []string
	for _, f := range t.Fields {
		m := "[" + tsString(f.Wire) + ", " + typeList(jsonTypesOf(&f.Type)) + "]"
		if f.Required {
			req = append(req, m)
		} else {
			opt = append(opt, m)
		}
	}
	if len(req) > 0 {
		sv.Required = "[" + strings.Join(req, ", ") + "]"
	}
	if len(opt) > 0 {
		sv.Optional = "[" + strings.Join(opt, ", ") + "]"
	}
	return sv
}

// jsonTypesOf returns the JSON types a value of r may have; nil for any.
func jsonTypesOf(r *ir.TypeRef) []string {
	var out []string
	switch r.Kind {
	case ir.RefString:
		out = []string{"string"}
	case ir.RefInteger, ir.RefNumber:
		out = []string{"number"}
	case ir.RefBoolean:
		out = []string{"boolean"}
	case ir.RefArray:
		out = []string{"array"}
	case ir.RefMap:
		out = []string{"object"}
	case ir.RefNull:
		return []string{"null"}
	case ir.RefNamed:
		switch t := r.Named; t.Kind {
		case ir.KindObject, ir.KindUnknown:
			out = []string{"object"}
		case ir.KindEnum:
			out = []string{"string"}
		case ir.KindAlias:
			out = jsonTypesOf(t.Alias)
		}
	}
	if out == nil {
		return nil
	}
	if r.Nullable {
		out = append(out, "null")
	}
	return out
}

func typeList(types []string) string {
	lits := make([]string, len(types))
	for i, t := range types {
		lits[i] = tsString(t)
	}
	return "[" + strings.Join(lits, ", ") + "]"
}

// Package typescript prints the TypeScript bindings of a loaded model: an
// ESM package (package.json, tsconfig.json, src/*.ts) with one interface or
// type per named type, the request and notification maps, method-name
// constants, the method table, frame type guards and small runtime helpers
// for unknown union tags and unknown members.
//
// The emitter only prints: every name comes from the IR (Type.Names,
// Field.Wire, Union.Unknown, Method.Names). Its own fixed identifiers
// (JsonValue, Methods, isRequest, ...) are listed in fixedNames and a schema
// type that lands on one of them is reported as an error, never renamed.
package typescript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/templates"
)

// Dir is the first path element of every file the emitter writes.
const Dir = "ts"

// fixedNames are the identifiers the generated package defines itself
// (outside the schema's types). A schema type whose TypeScript name is one of
// them would break the package's exports, so it is an error.
var fixedNames = []string{
	// types.ts (JsonValue may also come from the schema, see jsonValueName)
	"JsonValue",
	// runtime.ts
	"TaggedUnions", "WithUnknown", "knownTags", "isKnown", "ObjectTypes",
	"declaredMembers", "extraMembers",
	// methods.ts
	"Methods", "RequestMethod", "NotificationMethod", "KnownMethod", "ParamsOf",
	"ResultOf", "MethodInfo", "methodTable", "isKnownMethod", "OptionalParamsMethod",
	"RpcId", "RpcError", "RequestFrame", "NotificationFrame", "ResultFrame",
	"ErrorFrame", "ResponseFrame", "FrameKind", "frameKind", "parseFrame",
	"isRequest", "isNotification", "isResponse", "isErrorResponse", "isResultFor",
	"requestFrame", "notificationFrame",
}

// jsonValueName is the built-in recursive JSON value type. A schema $defs
// entry of that name that is itself "any JSON" (RefJSON) is printed in its
// place (with its description); any other type of that name is a collision.
const jsonValueName = "JsonValue"

// Top-level schema annotations naming the two method maps. Without them the
// names are derived from the schema title (see mapNames).
const (
	requestMapKey      = "x-ts-request-map"
	notificationMapKey = "x-ts-notification-map"
)

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
		{"ts/src/index.ts", "index.ts.tmpl"},
		{"ts/src/methods.ts", "methods.ts.tmpl"},
		{"ts/src/runtime.ts", "runtime.ts.tmpl"},
		{"ts/src/types.ts", "types.ts.tmpl"},
	}
	var files []ir.File
	for _, out := range outputs {
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, out.tmpl, v); err != nil {
			return nil, fmt.Errorf("typescript: rendering %s: %w", out.path, err)
		}
		files = append(files, ir.File{Path: out.path, Data: tidy(b.Bytes())})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// tidy collapses runs of blank lines left by template control structures
// and ends the file with exactly one newline.
func tidy(b []byte) []byte {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	var out []string
	blank := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			if blank || len(out) == 0 {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

type emitter struct {
	m *ir.Model
	o ir.Options
}

// view is what the templates print.
type view struct {
	Header      string
	Package     string
	Title       string
	Description []string
	SchemaFile  string
	SHA256      string

	// BuiltinJSON is true when types.ts defines JsonValue itself (the schema
	// has no JsonValue type of its own).
	BuiltinJSON bool
	Decls       []*decl
	Unions      []*unionView
	Objects     []*objectView

	RequestMap      string
	NotificationMap string
	Requests        []*methodView
	Notifications   []*methodView
	Methods         []*methodView
	OptionalParams  []string // TS string literals of methods whose params may be absent

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
}

func (e *emitter) build() (*view, error) {
	m := e.m
	v := &view{
		Header:      m.Header(e.o),
		Package:     e.o.PackageName(),
		Title:       m.Title,
		Description: ir.DocLines(m.Description),
		SHA256:      m.SHA256,
		BuiltinJSON: true,
	}
	if !validPackageName(v.Package) {
		return nil, fmt.Errorf("typescript: package name %q is not a valid npm package name (lower case letters, digits, '-', '.', '_', optionally @scope/)", v.Package)
	}
	if err := e.checkNames(); err != nil {
		return nil, err
	}
	for _, t := range m.Types {
		if t.Names.Of(ir.LangTS) == jsonValueName {
			v.BuiltinJSON = false
		}
		d, err := e.decl(t)
		if err != nil {
			return nil, err
		}
		v.Decls = append(v.Decls, d...)
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
			uv := &unionView{Name: t.Names.Of(ir.LangTS), Key: tsString(t.Names.Of(ir.LangTS)), Tag: tsString(u.Tag), TagProp: propAccess(u.Tag), Unknown: u.Unknown.Of(ir.LangTS), open: u.Open}
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
	var err error
	v.RequestMap, v.NotificationMap, err = e.mapNames()
	if err != nil {
		return nil, err
	}
	for _, me := range m.Methods {
		mv := &methodView{
			Doc:       docComment(methodDoc(me)),
			Wire:      tsString(me.Name),
			Ident:     me.Names.Of(ir.LangTS),
			Kind:      string(me.Kind),
			Direction: string(me.Direction),
			Optional:  me.ParamsOptional,
		}
		if me.Params != nil {
			mv.Params = me.Params.Names.Of(ir.LangTS)
		}
		if me.Result != nil {
			mv.Result = me.Result.Names.Of(ir.LangTS)
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
	return v, nil
}

func methodDoc(me *ir.Method) string {
	s := fmt.Sprintf("`%s`: %s, %s.", me.Name, me.Kind, me.Direction)
	if me.Description != "" {
		s += "\n\n" + me.Description
	}
	return s
}

// checkNames reports schema types whose TypeScript name is one of the
// package's own identifiers, and the unknown-variant names likewise.
func (e *emitter) checkNames() error {
	fixed := map[string]bool{}
	for _, n := range fixedNames {
		fixed[n] = true
	}
	var problems []string
	for _, t := range e.m.Types {
		n := t.Names.Of(ir.LangTS)
		if n == jsonValueName && t.Kind == ir.KindAlias && t.Alias.Kind == ir.RefJSON && !t.Alias.Nullable {
			continue // the schema's own JsonValue: printed in place of the built-in
		}
		if fixed[n] {
			problems = append(problems, fmt.Sprintf("%s: the TypeScript name %q is defined by the generated package itself (fix: add \"x-ts-name\" to this type)", t.Pointer, n))
		}
		if t.Kind == ir.KindUnion && t.Union.By == ir.ByTag && t.Union.UnknownType == nil && fixed[t.Union.Unknown.Of(ir.LangTS)] {
			problems = append(problems, fmt.Sprintf("%s: the TypeScript name %q of its unknown-tag variant is defined by the generated package itself (fix: add \"x-ts-name\" to this union)", t.Pointer, t.Union.Unknown.Of(ir.LangTS)))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("typescript: %d name problem(s):\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return nil
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// mapNames returns the names of the request and notification maps: the
// top-level annotations x-ts-request-map / x-ts-notification-map when the
// schema (or an overlay) has them (Model.TSRequestMap, TSNotificationMap),
// else <Base>RequestMap / <Base>NotificationMap where Base is the TypeScript
// name of the schema title with a trailing "Protocol" word removed ("Acme
// Widget Protocol" → AcmeWidget), or empty.
func (e *emitter) mapNames() (string, string, error) {
	given := map[string]string{requestMapKey: e.m.TSRequestMap, notificationMapKey: e.m.TSNotificationMap}
	pick := func(key, suffix string) (string, error) {
		if s := given[key]; s != "" {
			if !identRE.MatchString(s) {
				return "", fmt.Errorf("typescript: top-level %q must be a TypeScript identifier, got %q", key, s)
			}
			return s, nil
		}
		return titleBase(e.m.Title) + suffix, nil
	}
	req, err := pick(requestMapKey, "RequestMap")
	if err != nil {
		return "", "", err
	}
	note, err := pick(notificationMapKey, "NotificationMap")
	if err != nil {
		return "", "", err
	}
	if req == note {
		return "", "", fmt.Errorf("typescript: the request map and the notification map are both named %q", req)
	}
	taken := map[string]string{}
	for _, n := range fixedNames {
		taken[n] = "the generated package"
	}
	for _, t := range e.m.Types {
		taken[t.Names.Of(ir.LangTS)] = t.Pointer
		if t.Kind == ir.KindUnion && t.Union.By == ir.ByTag {
			taken[t.Union.Unknown.Of(ir.LangTS)] = t.Pointer
		}
	}
	for _, n := range []struct{ name, key string }{{req, requestMapKey}, {note, notificationMapKey}} {
		if by, ok := taken[n.name]; ok {
			return "", "", fmt.Errorf("typescript: the method map name %q is already used by %s (fix: set the top-level %q annotation)", n.name, by, n.key)
		}
	}
	return req, note, nil
}

// titleBase turns a schema title into the identifier base of the maps.
func titleBase(title string) string {
	var b strings.Builder
	for _, w := range regexp.MustCompile(`[^A-Za-z0-9]+`).Split(title, -1) {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	s := strings.TrimSuffix(b.String(), "Protocol")
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "X" + s
	}
	return s
}

var npmNameRE = regexp.MustCompile(`^(@[a-z0-9-~][a-z0-9-._~]*/)?[a-z0-9-~][a-z0-9-._~]*$`)

func validPackageName(s string) bool { return len(s) <= 214 && npmNameRE.MatchString(s) }

// decl prints one named type.
func (e *emitter) decl(t *ir.Type) ([]*decl, error) {
	name := t.Names.Of(ir.LangTS)
	doc := t.Description
	if u := t.FallbackOf; u != nil {
		doc = joinDoc(doc, unknownDoc(u.Names.Of(ir.LangTS), u.Union.Tag))
	}
	d := &decl{Name: name}
	switch t.Kind {
	case ir.KindObject:
		d.Kind = "interface"
		var types []string
		optional := false
		for _, f := range t.Fields {
			fv := &fieldView{Doc: docComment(f.Description), Name: propName(f.Wire), Optional: !f.Required}
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
			doc = joinDoc(doc, "Members not declared here are of the index signature's type.")
		case len(t.Fields) == 0 && t.Closed:
			d.Index = "never"
		case len(t.Fields) == 0:
			d.Index = jsonValueName
			doc = joinDoc(doc, wrap("Open object with no declared members: every member is an extra one."))
		}
	case ir.KindEnum:
		d.Kind = "enum"
		for _, x := range t.Enum {
			d.Values = append(d.Values, &enumView{Key: x.Names.Of(ir.LangTS), Literal: tsString(x.Value)})
		}
	case ir.KindAlias:
		d.Kind = "alias"
		if name == jsonValueName && t.Alias.Kind == ir.RefJSON && !t.Alias.Nullable {
			d.Kind = "json"
		} else {
			d.Expr = e.ref(t.Alias)
		}
	case ir.KindUnion:
		d.Kind = "union"
		for _, x := range t.Union.Variants {
			d.Members = append(d.Members, x.Type.Names.Of(ir.LangTS))
		}
		if t.Union.By == ir.ByTag {
			doc = joinDoc(doc, wrap(fmt.Sprintf("Discriminated on %q: `switch (value.%s)` narrows to one variant. A value whose tag is none of the known ones has the type %s, which is not a member of this union (see WithUnknown and isKnown).",
				t.Union.Tag, t.Union.Tag, t.Union.Unknown.Of(ir.LangTS))))
		}
	default:
		return nil, fmt.Errorf("typescript: %s: unsupported type kind %v", t.Pointer, t.Kind)
	}
	d.Doc = docComment(doc)
	out := []*decl{d}
	if t.Kind == ir.KindUnion && t.Union.By == ir.ByTag && t.Union.UnknownType == nil {
		u := t.Union
		out = append(out, &decl{
			Kind:   "interface",
			Name:   u.Unknown.Of(ir.LangTS),
			Doc:    docComment(unknownDoc(name, u.Tag)),
			Fields: []*fieldView{{Name: propName(u.Tag), Type: "string"}},
			Index:  jsonValueName,
		})
	}
	return out, nil
}

// unknownDoc documents an unknown-tag variant.
func unknownDoc(union, tag string) string {
	return wrap(fmt.Sprintf("The unknown-tag variant of %s: a value whose %q is none of the known tags, kept as it is. It is not a member of %s, so an exhaustive switch over %s compiles; widen with WithUnknown<%s> and tell the two apart with isKnown(%s, value).",
		union, tag, union, union, tsString(union), tsString(union)))
}

// wrap breaks the emitter's own doc sentences at 76 columns (schema
// descriptions are printed with their own line breaks).
func wrap(s string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > 76 {
			lines = append(lines, line)
			line = w
			continue
		}
		if line == "" {
			line = w
		} else {
			line += " " + w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
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
// indentation): nil when there is no text. "*/" never survives: it is
// written "*\/".
func docComment(s string) []string {
	lines := ir.DocLines(s)
	if len(lines) == 0 {
		return nil
	}
	out := []string{"/**"}
	for _, l := range lines {
		l = strings.ReplaceAll(l, "*/", `*\/`)
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
	"docText": func(s string) []string { return docComment(s) },
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
	"last":     func(i, n int) bool { return i == n-1 },
}

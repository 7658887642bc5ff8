// Package golang prints the Go bindings of a ir.Model with jennifer: one
// struct per object type (json members written and read by generated
// MarshalJSON/UnmarshalJSON, unknown members kept), one interface per union
// with one type per variant and a Decode function switching on the tag, a
// variant keeping unknown tags as raw JSON, method constants and maps. It
// makes no naming or typing decision of its own: everything comes from the IR.
package golang

import (
	"fmt"
	"go/format"
	"io/fs"
	"path"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/templates"
)

const jsonPkg = "encoding/json"

// Emit returns the Go package files for m under "go/<package>/" (and its
// go.mod when o.GoModule is set).
func Emit(m *ir.Model, o ir.Options) ([]ir.File, error) {
	pkg := o.PackageName()
	if err := ir.CheckPackage(pkg, []ir.Lang{ir.LangGo}); err != nil {
		return nil, err
	}
	dir := path.Join("go", pkg)
	var header strings.Builder
	for _, l := range m.HeaderLines(o) {
		header.WriteString("// " + l + "\n")
	}
	header.WriteString("\n")
	var out []ir.File
	runtimes := []string{"runtime"}
	if len(m.Methods) > 0 {
		runtimes = append(runtimes, "frames", "transport") // the SDK's, printed with sdk.go
	}
	for _, name := range runtimes {
		src, err := fs.ReadFile(templates.FS, "go/"+name+".go.tmpl")
		if err != nil {
			return nil, fmt.Errorf("go %s: %w", name, err)
		}
		rt := strings.Replace(string(src), "package {{PKG}}", "package "+pkg, 1)
		formatted, err := format.Source([]byte(header.String() + rt))
		if err != nil {
			return nil, fmt.Errorf("go %s: %w", name, err)
		}
		out = append(out, ir.File{Path: dir + "/" + name + ".go", Data: formatted})
	}
	e := &emitter{m: m}
	headers := m.HeaderLines(o)
	types, codec := newGoFile("types.go", pkg, headers, o.Spool), newGoFile("json.go", pkg, headers, o.Spool)
	if err := e.types(types, codec); err != nil {
		return nil, err
	}
	methods := newGoFile("methods.go", pkg, headers, nil)
	e.methods(methods)
	files := []*goFile{codec, methods, types}
	if len(m.Methods) > 0 { // a schema of types alone has no SDK to print
		sdk := newGoFile("sdk.go", pkg, headers, nil)
		e.sdk(sdk)
		files = append(files, sdk)
	}
	var rendered []ir.File
	for _, f := range files {
		file, err := f.File(dir + "/" + f.name)
		if err != nil {
			return nil, err
		}
		rendered = append(rendered, file)
	}
	if o.GoModule != "" {
		mod, err := goMod(m, o, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, mod)
	}
	return append(out, rendered...), nil
}

// emitter prints declarations into types.go and the JSON code (MarshalJSON,
// UnmarshalJSON, Decode functions) into json.go, one type at a time.
type emitter struct {
	m *ir.Model
	// codec is the group of json.go the current type's JSON code goes to.
	codec *jen.File
}

// docWidth is the width doc comment lines are filled to, "// " and the
// indentation (a tab counted as 4 columns) included.
const docWidth = 100

// comment is a doc comment being built: paragraphs of text, filled to
// docWidth - indent columns when printed.
type comment struct {
	indent int
	paras  []string
}

// para adds a paragraph: fmt.Sprintf of format and args (the text is
// filled; its own line breaks stay).
func (c *comment) para(format string, args ...any) *comment {
	return c.text(fmt.Sprintf(format, args...))
}

// text adds a paragraph of text as it is (a schema description).
func (c *comment) text(s string) *comment {
	if strings.TrimSpace(s) != "" {
		c.paras = append(c.paras, s)
	}
	return c
}

// source adds the schema pointer the declaration comes from.
func (c *comment) source(pointer string) *comment {
	return c.para("Schema: %s.", pointer)
}

// lines renders the comment as "// " lines for jen.Comment.
func (c *comment) lines() []jen.Code {
	var out []jen.Code
	for i, p := range c.paras {
		if i > 0 {
			out = append(out, jen.Comment("//"))
		}
		for _, l := range ir.Wrap(p, docWidth-3-4*c.indent) {
			if l == "" {
				out = append(out, jen.Comment("//"))
			} else {
				out = append(out, jen.Comment("// "+l))
			}
		}
	}
	return out
}

// addDoc prints a declaration's doc comment.
func addDoc(f *jen.File, c *comment) {
	lines := c.lines()
	if len(lines) == 0 {
		return
	}
	s := jen.Add(lines[0])
	for _, l := range lines[1:] {
		s.Line().Add(l)
	}
	f.Add(s)
}

func goName(t *ir.Type) string { return t.Names.Of(ir.LangGo) }

// baseType is the Go type of a TypeRef without its nullability.
func (e *emitter) baseType(r *ir.TypeRef) *jen.Statement {
	switch r.Kind {
	case ir.RefString:
		return jen.String()
	case ir.RefInteger:
		return jen.Int64()
	case ir.RefNumber:
		return jen.Float64()
	case ir.RefBoolean:
		return jen.Bool()
	case ir.RefJSON, ir.RefNull:
		return jen.Qual(jsonPkg, "RawMessage")
	case ir.RefNamed:
		return jen.Id(goName(r.Named))
	case ir.RefArray:
		return jen.Index().Add(e.fullType(r.Elem))
	case ir.RefMap:
		return jen.Map(jen.String()).Add(e.fullType(r.Elem))
	}
	return jen.Qual(jsonPkg, "RawMessage")
}

// nilable reports whether the Go type has a nil value of its own (so null or
// absence needs no pointer).
func nilable(r *ir.TypeRef) bool {
	switch r.Kind {
	case ir.RefJSON, ir.RefNull, ir.RefArray, ir.RefMap:
		return true
	case ir.RefNamed:
		t := r.Named
		if t.Kind == ir.KindUnion {
			return true
		}
		if t.Kind == ir.KindAlias {
			a := t.Alias
			return !a.Nullable && (a.Kind == ir.RefJSON || a.Kind == ir.RefArray || a.Kind == ir.RefMap || (a.Kind == ir.RefNamed && nilable(a)))
		}
	}
	return false
}

// fullType is the Go type of a required use: nullable non-nilable types are
// pointers.
func (e *emitter) fullType(r *ir.TypeRef) *jen.Statement {
	if r.Nullable && !nilable(r) {
		return jen.Op("*").Add(e.baseType(r))
	}
	return e.baseType(r)
}

// baseDecoder is a decoder[T] expression for the non-null form of r.
func (e *emitter) baseDecoder(r *ir.TypeRef) *jen.Statement {
	switch r.Kind {
	case ir.RefArray:
		return jen.Id("decodeSlice").Call(e.decoder(r.Elem))
	case ir.RefMap:
		return jen.Id("decodeMap").Call(e.decoder(r.Elem))
	case ir.RefNamed:
		t := r.Named
		switch t.Kind {
		case ir.KindUnion:
			return jen.Id("Decode" + goName(t))
		case ir.KindAlias:
			if t.Alias.Kind == ir.RefNamed {
				return e.decoder(t.Alias) // a Go type alias: decode as its target
			}
			return jen.Id("decode" + goName(t))
		}
	}
	return jen.Id("decodeAs").Types(e.baseType(r))
}

// decoder is the decoder[T] for a required use of r (with null handling).
func (e *emitter) decoder(r *ir.TypeRef) *jen.Statement {
	d := e.baseDecoder(r)
	if !r.Nullable {
		return d
	}
	if nilable(r) {
		return jen.Id("decodeNullableZero").Call(d)
	}
	return jen.Id("decodeNullablePtr").Call(d)
}

// fieldRepr is how a member is held in its struct.
type fieldRepr int

const (
	reprValue    fieldRepr = iota // required: T (or *T / nil-able when nullable)
	reprPtr                       // optional, not nullable, not nil-able: *T
	reprNilable                   // optional, nil-able: T, nil = absent
	reprNullable                  // optional and nullable: Nullable[T]
	reprFlag                      // optional const: bool, true = present
)

func reprOf(f *ir.Field) fieldRepr {
	switch {
	case f.Const != nil && !f.Required:
		return reprFlag
	case f.Required:
		return reprValue
	case f.Type.Nullable:
		return reprNullable
	case nilable(&f.Type):
		return reprNilable
	}
	return reprPtr
}

func (e *emitter) fieldType(f *ir.Field) *jen.Statement {
	switch reprOf(f) {
	case reprFlag:
		return jen.Bool()
	case reprValue:
		return e.fullType(&f.Type)
	case reprPtr:
		return jen.Op("*").Add(e.baseType(&f.Type))
	case reprNilable:
		return e.baseType(&f.Type)
	}
	nn := f.Type
	nn.Nullable = false
	if nn.Kind == ir.RefNamed && nn.Named.Recursive {
		// Nullable holds its value by value: a type that contains itself
		// that way would have no size, so it holds a pointer.
		return jen.Id("Nullable").Types(jen.Op("*").Add(e.baseType(&nn)))
	}
	return jen.Id("Nullable").Types(e.baseType(&nn))
}

func (e *emitter) fieldDecoder(f *ir.Field) *jen.Statement {
	nn := f.Type
	nn.Nullable = false
	switch reprOf(f) {
	case reprValue:
		return e.decoder(&f.Type)
	case reprPtr:
		return jen.Id("decodePtr").Call(e.baseDecoder(&f.Type))
	case reprNilable:
		return e.baseDecoder(&f.Type)
	}
	if nn.Kind == ir.RefNamed && nn.Named.Recursive {
		return jen.Id("decodeNullable").Call(jen.Id("decodePtr").Call(e.baseDecoder(&nn)))
	}
	return jen.Id("decodeNullable").Call(e.baseDecoder(&nn))
}

// types prints each declared type into its own group of types.go and of
// json.go.
func (e *emitter) types(types, codec *goFile) error {
	for _, t := range e.m.Decls {
		f := types.Next()
		e.codec = codec.Next()
		switch t.Kind {
		case ir.KindObject:
			e.object(f, t)
		case ir.KindUnion:
			if err := e.union(f, t); err != nil {
				return err
			}
		case ir.KindEnum:
			e.enum(f, t)
		case ir.KindAlias:
			e.alias(f, t)
		case ir.KindUnknown:
			e.unknownVariant(f, t)
		default:
			return fmt.Errorf("go: %s: no Go form for a type of kind %v", t.Pointer, t.Kind)
		}
	}
	return nil
}

// markers prints the is<Union>() methods that make t a variant of its
// unions.
func markers(f *jen.File, t *ir.Type) {
	for _, u := range t.Unions {
		f.Func().Params(jen.Id(goName(t))).Id("is" + goName(u)).Params().Block()
		f.Line()
	}
}

// variantOf says which unions t is a variant of, by tag where it has one.
func variantOf(t *ir.Type) string {
	var parts []string
	for _, u := range t.Unions {
		s := goName(u)
		if u.Union.By == ir.ByTag {
			for _, v := range u.Union.Variants {
				if v.Type == t {
					s += fmt.Sprintf(" (%q: %q)", u.Union.Tag, v.TagValue)
				}
			}
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "A variant of " + strings.Join(parts, " and ") + "."
}

func (e *emitter) object(f *jen.File, t *ir.Type) {
	name := goName(t)
	c := &comment{}
	c.text(t.Doc())
	switch {
	case t.Closed:
		c.para("Closed: decoding rejects a member the schema does not declare. %s", variantOf(t))
	case t.Extra != nil:
		c.para("Open: members the schema does not declare must be %s; they are kept in Extra. %s", t.Extra.Shape(), variantOf(t))
	default:
		c.para("Open: members the schema does not declare are kept in Extra and written back. %s", variantOf(t))
	}
	addDoc(f, c.source(t.Pointer))
	var fields []jen.Code
	for _, fd := range t.Fields {
		if fd.Const != nil && fd.Required {
			continue // written and checked by MarshalJSON/UnmarshalJSON
		}
		fc := &comment{indent: 1}
		fc.text(strings.TrimSpace(strings.TrimSpace(fd.Doc()) + " " + presence(fd)))
		fields = append(fields, fc.lines()...)
		tag := fd.Wire
		if !fd.Required {
			tag += ",omitempty"
		}
		fields = append(fields, jen.Id(fd.Names.Of(ir.LangGo)).Add(e.fieldType(fd)).Tag(map[string]string{"json": tag}))
	}
	if !t.Closed {
		extra := jen.Qual(jsonPkg, "RawMessage")
		if t.Extra != nil {
			extra = e.fullType(t.Extra)
		}
		fields = append(fields,
			jen.Comment("Extra holds the members the schema does not declare, by wire name."),
			jen.Id("Extra").Map(jen.String()).Add(extra).Tag(map[string]string{"json": "-"}))
	}
	f.Type().Id(name).Struct(fields...)
	f.Line()
	markers(f, t)
	e.marshal(e.codec, t)
	e.unmarshal(e.codec, t)
}

// presence says how a member's absence and null are written, where the Go
// type alone does not say it, and lists an inline enum's known values.
func presence(f *ir.Field) string {
	var s string
	switch reprOf(f) {
	case reprFlag:
		return fmt.Sprintf("Optional; its only value is %s: true writes it, false leaves it out.", *f.Const)
	case reprValue:
		if f.Type.Nullable {
			s = "May be null: nil writes null."
		}
	case reprPtr, reprNilable:
		s = "Optional: nil leaves it out."
	case reprNullable:
		s = "Optional and nullable: Present false leaves it out, Null writes null."
	}
	if len(f.Type.Enum) > 0 {
		s += fmt.Sprintf(" Known values: %s; any other string is kept as it is.", strings.Join(quoteAll(f.Type.Enum), ", "))
	}
	return strings.TrimSpace(s)
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

func (e *emitter) marshal(f *jen.File, t *ir.Type) {
	name := goName(t)
	var body []jen.Code
	body = append(body, jen.Var().Id("w").Id("objectWriter"))
	for _, fd := range t.Fields {
		id := jen.Id("v").Dot(fd.Names.Of(ir.LangGo))
		wire := jen.Lit(fd.Wire)
		switch reprOf(fd) {
		case reprFlag:
			body = append(body, jen.If(id.Clone()).Block(jen.Id("w").Dot("raw").Call(wire, jen.Index().Byte().Call(jen.Lit(*fd.Const)))))
		case reprValue:
			if fd.Const != nil {
				body = append(body, jen.Id("w").Dot("raw").Call(wire, jen.Index().Byte().Call(jen.Lit(*fd.Const))))
				continue
			}
			val := id.Clone()
			if !fd.Type.Nullable && fd.Type.Kind == ir.RefArray {
				val = jen.Id("orEmpty").Call(id.Clone())
			} else if !fd.Type.Nullable && fd.Type.Kind == ir.RefMap {
				val = jen.Id("orEmptyMap").Call(id.Clone())
			}
			body = append(body, jen.Id("w").Dot("value").Call(wire, val))
		case reprPtr, reprNilable:
			body = append(body, jen.If(id.Clone().Op("!=").Nil()).Block(jen.Id("w").Dot("value").Call(wire, id.Clone())))
		case reprNullable:
			body = append(body, jen.If(id.Clone().Dot("Present")).Block(jen.Id("w").Dot("value").Call(wire, id.Clone())))
		}
	}
	if !t.Closed {
		body = append(body, jen.Id("writeExtra").Call(jen.Op("&").Id("w"), jen.Id("v").Dot("Extra")))
	}
	body = append(body, jen.Return(jen.Id("w").Dot("finish").Call()))
	if t.Closed {
		f.Comment("MarshalJSON writes the members in schema order.")
	} else {
		f.Comment("MarshalJSON writes the members in schema order, then Extra in key order.")
	}
	f.Func().Params(jen.Id("v").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(body...)
	f.Line()
}

func (e *emitter) unmarshal(f *jen.File, t *ir.Type) {
	name := goName(t)
	body := []jen.Code{
		jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("readObject").Call(jen.Id("data")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Var().Id("out").Id(name),
	}
	for _, fd := range t.Fields {
		wire := jen.Lit(fd.Wire)
		switch {
		case fd.Const != nil && fd.Required:
			body = append(body, jen.Id("r").Dot("constant").Call(wire, jen.Lit(*fd.Const), jen.True()))
		case reprOf(fd) == reprFlag:
			body = append(body, jen.Id("out").Dot(fd.Names.Of(ir.LangGo)).Op("=").Id("r").Dot("constant").Call(wire, jen.Lit(*fd.Const), jen.False()))
		default:
			args := []jen.Code{jen.Id("r"), wire, jen.Lit(fd.Required), jen.Op("&").Id("out").Dot(fd.Names.Of(ir.LangGo)), e.fieldDecoder(fd)}
			if 4+len("field(r, , false, &out., )")+len(fd.Wire)+2+len(fd.Names.Of(ir.LangGo))+decoderBound(&fd.Type) <= maxLine {
				body = append(body, jen.Id("field").Call(args...)) // short for sure: no need to measure
			} else {
				body = append(body, call(1, "field", args...))
			}
		}
	}
	switch {
	case t.Closed:
		body = append(body, jen.Id("r").Dot("closed").Call())
	case t.Extra != nil:
		body = append(body, jen.Id("out").Dot("Extra").Op("=").Id("restAs").Call(jen.Id("r"), e.decoder(t.Extra)))
	default:
		body = append(body, jen.Id("out").Dot("Extra").Op("=").Id("r").Dot("rest").Call())
	}
	body = append(body, jen.Return(jen.Id("done").Call(jen.Id("r"), jen.Id("v"), jen.Id("out"))))
	addDoc(f, (&comment{}).para("UnmarshalJSON decodes the object; bad input gives a *DecodeError naming the member by its JSON pointer."))
	f.Func().Params(jen.Id("v").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(body...)
	f.Line()
}

// maxLine is the longest line of generated code, in columns (a tab counted
// as 4).
const maxLine = 120

// decoderBound is an upper bound of the length of a decoder expression of
// r (decodeNullable(decodePtr(decodeSlice(decodeAs[T]))) and the like):
// the longest wrapper chain's names plus the types' names.
func decoderBound(r *ir.TypeRef) int {
	const wrappers = len("decodeNullable(decodePtr(decodeAs[json.RawMessage]))")
	n := wrappers
	switch r.Kind {
	case ir.RefNamed:
		n += 2 * len(goName(r.Named)) // Decode<Name> or decodeAs[<Name>], and an alias's target
		if r.Named.Kind == ir.KindAlias {
			n += decoderBound(r.Named.Alias)
		}
	case ir.RefArray, ir.RefMap:
		n += decoderBound(r.Elem)
	}
	return n
}

// call is fn(args...) on one line when it fits at depth (in tabs), else
// with one argument per line.
func call(depth int, fn string, args ...jen.Code) *jen.Statement {
	one := jen.Id(fn).Call(args...)
	if 4*depth+len(fmt.Sprintf("%#v", one)) <= maxLine {
		return one
	}
	return jen.Id(fn).Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, args...)
}

func (e *emitter) enum(f *jen.File, t *ir.Type) {
	name := goName(t)
	c := &comment{}
	c.text(t.Doc())
	c.para("A string enum. Decoding keeps any string, not only the values below: a newer peer may send one this " +
		"binding does not know, and the validator reports a value outside them.")
	addDoc(f, c.source(t.Pointer))
	f.Type().Id(name).String()
	f.Line()
	var consts []jen.Code
	for _, v := range t.Enum {
		consts = append(consts, jen.Id(v.Names.Of(ir.LangGo)).Id(name).Op("=").Lit(v.Value))
	}
	f.Comment("The values the schema lists.")
	f.Const().Defs(consts...)
	f.Line()
	markers(f, t)
}

func (e *emitter) alias(f *jen.File, t *ir.Type) {
	name := goName(t)
	a := t.Alias
	c := &comment{}
	c.text(t.Doc())
	switch a.Kind {
	case ir.RefNamed:
		c.para("Another name for %s.", goName(a.Named))
		addDoc(f, c.source(t.Pointer))
		f.Type().Id(name).Op("=").Add(e.fullType(a))
		f.Line()
		return
	case ir.RefJSON, ir.RefNull:
		c.para("Any JSON value, kept as its exact text (integers of any size, member order and all).")
		addDoc(f, c.source(t.Pointer))
		f.Type().Id(name).Qual(jsonPkg, "RawMessage")
		f.Line()
		k := e.codec
		k.Comment("MarshalJSON writes the value unchanged (null when empty).")
		k.Func().Params(jen.Id("v").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.If(jen.Len(jen.Id("v")).Op("==").Lit(0)).Block(jen.Return(jen.Index().Byte().Call(jen.Lit("null")), jen.Nil())),
			jen.Return(jen.Id("v"), jen.Nil()))
		k.Line()
		k.Comment("UnmarshalJSON keeps a copy of the value's text.")
		k.Func().Params(jen.Id("v").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
			jen.Op("*").Id("v").Op("=").Id(name).Call(jen.Id("cloneRaw").Call(jen.Id("data"))),
			jen.Return(jen.Nil()))
		k.Line()
	default:
		c.para("Wire shape: %s.", a.Shape())
		addDoc(f, c.source(t.Pointer))
		f.Type().Id(name).Add(e.fullType(a))
		f.Line()
	}
	markers(f, t)
	e.codec.Func().Id("decode"+name).Params(jen.Id("raw").Qual(jsonPkg, "RawMessage")).Params(jen.Id(name), jen.Error()).Block(
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(e.decoder(a)).Call(jen.Id("raw")),
		jen.Return(jen.Id(name).Call(jen.Id("v")), jen.Err()))
	e.codec.Line()
}

func (e *emitter) union(f *jen.File, t *ir.Type) error {
	name := goName(t)
	u := t.Union
	var variants []string
	for _, v := range u.Variants {
		switch u.By {
		case ir.ByJSONType:
			variants = append(variants, goName(v.Type)+" ("+v.JSONType+")")
		case ir.ByShape:
			variants = append(variants, goName(v.Type)+" (requires "+strings.Join(quoteAll(v.Required), ", ")+")")
		case ir.ByTry:
			variants = append(variants, goName(v.Type))
		default:
			variants = append(variants, goName(v.Type))
		}
	}
	c := &comment{}
	c.text(t.Doc())
	switch u.By {
	case ir.ByTag:
		c.para("A union told apart by member %q; Decode%s picks the variant: %s, or %s for a tag this binding "+
			"does not know.", u.Tag, name, strings.Join(variants, ", "), goName(u.Unknown))
	case ir.ByJSONType:
		c.para("A union told apart by JSON type; Decode%s picks the variant: %s.", name, strings.Join(variants, ", "))
	case ir.ByShape:
		c.para("A union of closed objects told apart by their required members; Decode%s picks the one variant "+
			"that decodes: %s.", name, strings.Join(variants, ", "))
	case ir.ByTry:
		if u.Keyword == "oneOf" {
			c.para("A union (oneOf) that no member or JSON type tells apart; Decode%s tries the variants in this order "+
				"and keeps the only one that decodes: %s.", name, strings.Join(variants, ", "))
		} else {
			c.para("A union (anyOf) that no member or JSON type tells apart; Decode%s tries the variants in this order "+
				"and keeps the first that decodes: %s.", name, strings.Join(variants, ", "))
		}
	default:
		return fmt.Errorf("go: %s: no Go decoder for a union %v", t.Pointer, u.By)
	}
	addDoc(f, c.source(t.Pointer))
	f.Type().Id(name).Interface(jen.Id("is" + name).Params())
	f.Line()
	var body []jen.Code
	var how string
	switch u.By {
	case ir.ByTag:
		how = fmt.Sprintf("by its %q tag", u.Tag)
		body = append(body,
			jen.List(jen.Id("tag"), jen.Err()).Op(":=").Id("readTag").Call(jen.Id("raw"), jen.Lit(u.Tag)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		var cases []jen.Code
		for _, v := range u.Variants {
			cases = append(cases, jen.Case(jen.Lit(v.TagValue)).Block(e.decodeVariant(v.Type)...))
		}
		body = append(body, jen.Switch(jen.Id("tag")).Block(cases...),
			jen.Return(jen.Id(goName(u.Unknown)).Values(jen.Dict{jen.Id("Tag"): jen.Id("tag"), jen.Id("Raw"): jen.Id("cloneRaw").Call(jen.Id("raw"))}), jen.Nil()))
	case ir.ByJSONType:
		how = "by its JSON type"
		body = append(body, jen.Id("kind").Op(":=").Id("jsonKind").Call(jen.Id("raw")))
		var cases []jen.Code
		var kinds []string
		for _, v := range u.Variants {
			cases = append(cases, jen.Case(jen.Lit(v.JSONType)).Block(e.decodeVariant(v.Type)...))
			kinds = append(kinds, v.JSONType)
		}
		body = append(body, jen.Switch(jen.Id("kind")).Block(cases...),
			jen.Return(jen.Nil(), jen.Op("&").Id("DecodeError").Values(jen.Dict{jen.Id("Msg"): jen.Lit(fmt.Sprintf("expected %s, got ", strings.Join(kinds, " or "))).Op("+").Id("kind")})))
	case ir.ByShape, ir.ByTry:
		how = "by its members"
		if u.By == ir.ByTry {
			how = "by trying its variants in order"
		}
		body = append(body,
			jen.Var().Id("matched").Index().Id(name),
			jen.Var().Id("reasons").Index().String())
		for _, v := range u.Variants {
			vn := goName(v.Type)
			if v.Type.Kind == ir.KindObject {
				body = append(body, jen.Block(
					jen.Var().Id("x").Id(vn),
					jen.If(jen.Err().Op(":=").Id("x").Dot("UnmarshalJSON").Call(jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(
						jen.Id("reasons").Op("=").Append(jen.Id("reasons"), jen.Lit(vn+": ").Op("+").Err().Dot("Error").Call()),
					).Else().Block(jen.Id("matched").Op("=").Append(jen.Id("matched"), jen.Id("x"))),
				))
				continue
			}
			ref := &ir.TypeRef{Kind: ir.RefNamed, Named: v.Type}
			body = append(body, jen.Block(
				jen.If(jen.List(jen.Id("x"), jen.Err()).Op(":=").Add(e.baseDecoder(ref)).Call(jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(
					jen.Id("reasons").Op("=").Append(jen.Id("reasons"), jen.Lit(vn+": ").Op("+").Err().Dot("Error").Call()),
				).Else().Block(jen.Id("matched").Op("=").Append(jen.Id("matched"), jen.Id("x"))),
			))
		}
		if u.Keyword == "anyOf" {
			body = append(body, jen.If(jen.Len(jen.Id("matched")).Op(">").Lit(0)).Block(jen.Return(jen.Id("matched").Index(jen.Lit(0)), jen.Nil())))
		} else {
			body = append(body,
				jen.If(jen.Len(jen.Id("matched")).Op("==").Lit(1)).Block(jen.Return(jen.Id("matched").Index(jen.Lit(0)), jen.Nil())),
				jen.If(jen.Len(jen.Id("matched")).Op(">").Lit(1)).Block(jen.Return(jen.Nil(), jen.Op("&").Id("DecodeError").Values(jen.Dict{jen.Id("Msg"): jen.Lit("matches more than one branch of " + t.Name)}))))
		}
		body = append(body, jen.Return(jen.Nil(), jen.Op("&").Id("DecodeError").Values(jen.Dict{jen.Id("Msg"): jen.Lit("matches no branch of "+t.Name+": ").Op("+").Qual("strings", "Join").Call(jen.Id("reasons"), jen.Lit("; "))})))
	}
	addDoc(e.codec, (&comment{}).para("Decode%s decodes a value into its variant, %s; bad input gives a *DecodeError.", name, how))
	e.codec.Func().Id("Decode"+name).Params(jen.Id("raw").Qual(jsonPkg, "RawMessage")).Params(jen.Id(name), jen.Error()).Block(body...)
	e.codec.Line()
	return nil
}

// decodeVariant returns the statements decoding raw as variant type vt.
func (e *emitter) decodeVariant(vt *ir.Type) []jen.Code {
	vn := goName(vt)
	if vt.Kind == ir.KindObject {
		return []jen.Code{
			jen.Var().Id("v").Id(vn),
			jen.If(jen.Err().Op(":=").Id("v").Dot("UnmarshalJSON").Call(jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("v"), jen.Nil()),
		}
	}
	ref := &ir.TypeRef{Kind: ir.RefNamed, Named: vt}
	return []jen.Code{
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(e.baseDecoder(ref)).Call(jen.Id("raw")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("v"), jen.Nil()),
	}
}

// unknownVariant prints a tagged union's Unknown variant: the tag and the
// value's raw JSON.
func (e *emitter) unknownVariant(f *jen.File, t *ir.Type) {
	union := t.UnknownOf
	un := goName(t)
	tag := union.Union.Tag
	c := &comment{}
	c.text(t.Doc())
	c.para("%s %s whose %q is none of the known tags (a newer peer's or a plugin's): Raw keeps the value's "+
		"exact JSON and MarshalJSON writes it back unchanged. %s", ir.ArticleCap(goName(union)), goName(union), tag, unknownPolicy(union))
	if t.Fallback != nil {
		c.source(t.Pointer + " (the fallback branch of " + union.Pointer + ")")
	} else {
		c.para("Schema: the unknown tags of %s.", union.Pointer)
	}
	addDoc(f, c)
	f.Type().Id(un).Struct(
		jen.Comment("Tag is the value's "+tag+" member."),
		jen.Id("Tag").String(),
		jen.Comment("Raw is the whole value as received."),
		jen.Id("Raw").Qual(jsonPkg, "RawMessage"),
	)
	f.Line()
	markers(f, t)
	k := e.codec
	k.Comment("MarshalJSON writes Raw unchanged.")
	k.Func().Params(jen.Id("v").Id(un)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("v").Dot("Raw")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(un+" has no Raw value")))),
		jen.Return(jen.Id("v").Dot("Raw"), jen.Nil()))
	k.Line()
	k.Comment("UnmarshalJSON keeps the value and its tag.")
	k.Func().Params(jen.Id("v").Op("*").Id(un)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.List(jen.Id("tag"), jen.Err()).Op(":=").Id("readTag").Call(jen.Id("data"), jen.Lit(tag)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("v").Op("=").Id(un).Values(jen.Dict{jen.Id("Tag"): jen.Id("tag"), jen.Id("Raw"): jen.Id("cloneRaw").Call(jen.Id("data"))}),
		jen.Return(jen.Nil()))
	k.Line()
}

// unknownPolicy says what the validator makes of an unknown tag.
func unknownPolicy(union *ir.Type) string {
	if union.Union.Open {
		return "The schema's union is open: the validator reports an unknown tag as a warning."
	}
	return "The schema's union is closed: the validator reports an unknown tag as an error."
}

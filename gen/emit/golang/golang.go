// Package golang prints the Go bindings of a ir.Model with jennifer: one
// struct per object type (json members written and read by generated
// MarshalJSON/UnmarshalJSON, unknown members kept), one interface per union
// with one type per variant and a Decode function switching on the tag, a
// variant keeping unknown tags as raw JSON, method constants and maps. It
// makes no naming or typing decision of its own: everything comes from the IR.
package golang

import (
	"bytes"
	_ "embed"
	"fmt"
	"go/format"
	"path"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"

	"github.com/dshgen/dshgen/gen/ir"
)

//go:embed runtime.go.tmpl
var runtimeSrc string

const jsonPkg = "encoding/json"

// Emit returns the Go package files for m under "go/<package>/" (and its
// go.mod when o.GoModule is set).
func Emit(m *ir.Model, o ir.Options) ([]ir.File, error) {
	pkg := o.PackageName()
	dir := path.Join("go", pkg)
	header := "// " + m.Header(o) + "\n\n"

	rt := strings.Replace(runtimeSrc, "package {{PKG}}", "package "+pkg, 1)
	rtSrc, err := format.Source([]byte(header + rt))
	if err != nil {
		return nil, fmt.Errorf("go runtime: %w", err)
	}
	e := &emitter{m: m}
	types := e.file(pkg, m, o)
	e.codec = e.file(pkg, m, o)
	e.types(types)
	methods := e.file(pkg, m, o)
	e.methods(methods)
	files := []struct {
		name string
		f    *jen.File
	}{{"json.go", e.codec}, {"methods.go", methods}, {"types.go", types}}
	rendered := make([]ir.File, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			if err := f.f.Render(&buf); err != nil {
				errs[i] = fmt.Errorf("go %s: %w", f.name, err)
				return
			}
			rendered[i] = ir.File{Path: dir + "/" + f.name, Data: buf.Bytes()}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	out := []ir.File{{Path: dir + "/runtime.go", Data: rtSrc}}
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
// UnmarshalJSON, Decode functions) into json.go; the two files render in
// parallel.
type emitter struct {
	m     *ir.Model
	codec *jen.File
}

func (e *emitter) file(pkg string, m *ir.Model, o ir.Options) *jen.File {
	f := jen.NewFile(pkg)
	f.HeaderComment(m.Header(o))
	f.ImportName(jsonPkg, "json")
	return f
}

// doc returns comment lines: the given lead sentence, the description, and
// the source pointer.
func doc(lead, description, source string) []jen.Code {
	var out []jen.Code
	if lead != "" {
		out = append(out, jen.Comment(lead))
	}
	lines := ir.DocLines(description)
	if len(lines) > 0 && lead != "" {
		out = append(out, jen.Comment("//"))
	}
	for _, l := range lines {
		if l == "" {
			out = append(out, jen.Comment("//"))
			continue
		}
		out = append(out, jen.Comment("// "+l))
	}
	if source != "" {
		out = append(out, jen.Comment("//"), jen.Comment("// Schema: "+source))
	}
	return out
}

func addDoc(f *jen.File, lines []jen.Code) {
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
	return jen.Id("decodeNullable").Call(e.baseDecoder(&nn))
}

func (e *emitter) types(f *jen.File) {
	for _, t := range e.m.Types {
		switch {
		case t.FallbackOf != nil:
			continue // printed with its union as the unknown variant
		case t.Kind == ir.KindObject:
			e.object(f, t)
		case t.Kind == ir.KindUnion:
			e.union(f, t)
		case t.Kind == ir.KindEnum:
			e.enum(f, t)
		case t.Kind == ir.KindAlias:
			e.alias(f, t)
		}
	}
}

func typeDoc(t *ir.Type, lead string) []jen.Code {
	return doc(lead, t.Description, t.Pointer)
}

func (e *emitter) object(f *jen.File, t *ir.Type) {
	name := goName(t)
	addDoc(f, typeDoc(t, fmt.Sprintf("%s is the object %s.", name, t.Name)))
	var fields []jen.Code
	for _, fd := range t.Fields {
		if fd.Const != nil && fd.Required {
			continue // written and checked by MarshalJSON/UnmarshalJSON
		}
		lead := fmt.Sprintf("%s is member %q (%s).", fd.Names.Of(ir.LangGo), fd.Wire, presence(fd))
		if reprOf(fd) == reprFlag {
			lead = fmt.Sprintf("%s reports member %q, whose only value is %s: true writes it, false leaves it out.", fd.Names.Of(ir.LangGo), fd.Wire, *fd.Const)
		}
		for _, c := range doc(lead, fd.Description, "") {
			fields = append(fields, c)
		}
		tag := fd.Wire
		if !fd.Required {
			tag += ",omitempty"
		}
		fields = append(fields, jen.Id(fd.Names.Of(ir.LangGo)).Add(e.fieldType(fd)).Tag(map[string]string{"json": tag}))
	}
	if !t.Closed {
		fields = append(fields, jen.Comment("Extra holds the members the schema does not declare, kept and re-emitted unchanged."))
		if t.Extra != nil {
			fields = append(fields, jen.Id("Extra").Map(jen.String()).Add(e.fullType(t.Extra)).Tag(map[string]string{"json": "-"}))
		} else {
			fields = append(fields, jen.Id("Extra").Map(jen.String()).Qual(jsonPkg, "RawMessage").Tag(map[string]string{"json": "-"}))
		}
	}
	f.Type().Id(name).Struct(fields...)
	f.Line()
	for _, u := range t.Unions {
		f.Func().Params(jen.Id(name)).Id("is" + goName(u)).Params().Block()
		f.Line()
	}
	e.marshal(e.codec, t)
	e.unmarshal(e.codec, t)
}

func presence(f *ir.Field) string {
	switch reprOf(f) {
	case reprValue:
		if f.Type.Nullable {
			return "required, may be null: nil writes null"
		}
		return "required"
	case reprPtr:
		return "optional: nil leaves it out"
	case reprNilable:
		return "optional: nil leaves it out"
	case reprNullable:
		return "optional, may be null: Present false leaves it out, Null writes null"
	}
	return "optional"
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
	f.Comment(fmt.Sprintf("MarshalJSON writes %s with its members in schema order, then Extra in key order.", name))
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
			body = append(body, jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("r").Dot("constant").Call(wire, jen.Lit(*fd.Const), jen.True()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		case reprOf(fd) == reprFlag:
			body = append(body, jen.If(jen.List(jen.Id("ok"), jen.Err()).Op(":=").Id("r").Dot("constant").Call(wire, jen.Lit(*fd.Const), jen.False()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())).Else().Block(jen.Id("out").Dot(fd.Names.Of(ir.LangGo)).Op("=").Id("ok")))
		default:
			body = append(body, jen.If(jen.Err().Op(":=").Id("field").Call(jen.Id("r"), wire, jen.Lit(fd.Required), jen.Op("&").Id("out").Dot(fd.Names.Of(ir.LangGo)), e.fieldDecoder(fd)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		}
	}
	switch {
	case t.Closed:
		body = append(body, jen.If(jen.Err().Op(":=").Id("r").Dot("closed").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
	case t.Extra != nil:
		body = append(body,
			jen.List(jen.Id("extra"), jen.Err()).Op(":=").Id("restAs").Call(jen.Id("r"), e.decoder(t.Extra)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Id("out").Dot("Extra").Op("=").Id("extra"))
	default:
		body = append(body, jen.Id("out").Dot("Extra").Op("=").Id("r").Dot("rest").Call())
	}
	body = append(body, jen.Op("*").Id("v").Op("=").Id("out"), jen.Return(jen.Nil()))
	f.Comment(fmt.Sprintf("UnmarshalJSON decodes %s; bad input gives a *DecodeError naming the member by its JSON pointer.", name))
	f.Func().Params(jen.Id("v").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(body...)
	f.Line()
}

func (e *emitter) enum(f *jen.File, t *ir.Type) {
	name := goName(t)
	addDoc(f, typeDoc(t, fmt.Sprintf("%s is a string enum. Decoding accepts any string (a newer peer may send a value this binding does not know); the validator reports values outside the enum.", name)))
	f.Type().Id(name).String()
	f.Line()
	var consts []jen.Code
	for _, v := range t.Enum {
		consts = append(consts, jen.Comment(fmt.Sprintf("%s is %q.", v.Names.Of(ir.LangGo), v.Value)))
		consts = append(consts, jen.Id(v.Names.Of(ir.LangGo)).Id(name).Op("=").Lit(v.Value))
	}
	f.Comment(fmt.Sprintf("The values of %s.", name))
	f.Const().Defs(consts...)
	f.Line()
	for _, u := range t.Unions {
		f.Func().Params(jen.Id(name)).Id("is" + goName(u)).Params().Block()
		f.Line()
	}
}

func (e *emitter) alias(f *jen.File, t *ir.Type) {
	name := goName(t)
	a := t.Alias
	if a.Kind == ir.RefNamed {
		addDoc(f, typeDoc(t, fmt.Sprintf("%s is another name for %s.", name, goName(a.Named))))
		f.Type().Id(name).Op("=").Add(e.fullType(a))
		f.Line()
		return
	}
	if a.Kind == ir.RefJSON || a.Kind == ir.RefNull {
		addDoc(f, typeDoc(t, fmt.Sprintf("%s is any JSON value, kept as its exact text (integers of any size, member order and all).", name)))
		f.Type().Id(name).Qual(jsonPkg, "RawMessage")
		f.Line()
		c := e.codec
		c.Comment("MarshalJSON writes the value unchanged (null when empty).")
		c.Func().Params(jen.Id("v").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.If(jen.Len(jen.Id("v")).Op("==").Lit(0)).Block(jen.Return(jen.Index().Byte().Call(jen.Lit("null")), jen.Nil())),
			jen.Return(jen.Id("v"), jen.Nil()))
		c.Line()
		c.Comment("UnmarshalJSON keeps a copy of the value's text.")
		c.Func().Params(jen.Id("v").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
			jen.Op("*").Id("v").Op("=").Id(name).Call(jen.Id("cloneRaw").Call(jen.Id("data"))),
			jen.Return(jen.Nil()))
		c.Line()
	} else {
		addDoc(f, typeDoc(t, fmt.Sprintf("%s is a named %s.", name, describeRef(a))))
		f.Type().Id(name).Add(e.fullType(a))
		f.Line()
	}
	for _, u := range t.Unions {
		f.Func().Params(jen.Id(name)).Id("is" + goName(u)).Params().Block()
		f.Line()
	}
	e.codec.Func().Id("decode"+name).Params(jen.Id("raw").Qual(jsonPkg, "RawMessage")).Params(jen.Id(name), jen.Error()).Block(
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(e.decoder(a)).Call(jen.Id("raw")),
		jen.Return(jen.Id(name).Call(jen.Id("v")), jen.Err()))
	e.codec.Line()
}

func describeRef(r *ir.TypeRef) string {
	switch r.Kind {
	case ir.RefString:
		return "string"
	case ir.RefInteger:
		return "64-bit integer"
	case ir.RefNumber:
		return "number"
	case ir.RefBoolean:
		return "boolean"
	case ir.RefArray:
		return "array"
	case ir.RefMap:
		return "object of named members"
	}
	return "value"
}

func (e *emitter) union(f *jen.File, t *ir.Type) {
	name := goName(t)
	u := t.Union
	var lead string
	switch u.By {
	case ir.ByTag:
		lead = fmt.Sprintf("%s is a union told apart by member %q; Decode%s picks the variant.", name, u.Tag, name)
	case ir.ByJSONType:
		lead = fmt.Sprintf("%s is a union told apart by JSON type; Decode%s picks the variant.", name, name)
	default:
		lead = fmt.Sprintf("%s is a union of closed objects told apart by their members; Decode%s picks the one variant that matches.", name, name)
	}
	addDoc(f, typeDoc(t, lead))
	var variants []string
	for _, v := range u.Variants {
		variants = append(variants, goName(v.Type))
	}
	if u.By == ir.ByTag {
		variants = append(variants, u.Unknown.Of(ir.LangGo))
	}
	f.Comment("// Variants: " + strings.Join(variants, ", ") + ".")
	f.Type().Id(name).Interface(jen.Id("is" + name).Params())
	f.Line()
	if u.By == ir.ByTag {
		e.unknownVariant(f, t)
	}
	var body []jen.Code
	switch u.By {
	case ir.ByTag:
		body = append(body,
			jen.List(jen.Id("tag"), jen.Err()).Op(":=").Id("readTag").Call(jen.Id("raw"), jen.Lit(u.Tag)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		var cases []jen.Code
		for _, v := range u.Variants {
			cases = append(cases, jen.Case(jen.Lit(v.TagValue)).Block(e.decodeVariant(v.Type)...))
		}
		body = append(body, jen.Switch(jen.Id("tag")).Block(cases...),
			jen.Return(jen.Id(u.Unknown.Of(ir.LangGo)).Values(jen.Dict{jen.Id("Tag"): jen.Id("tag"), jen.Id("Raw"): jen.Id("cloneRaw").Call(jen.Id("raw"))}), jen.Nil()))
	case ir.ByJSONType:
		body = append(body, jen.Id("kind").Op(":=").Id("jsonKind").Call(jen.Id("raw")))
		var cases []jen.Code
		var kinds []string
		for _, v := range u.Variants {
			cases = append(cases, jen.Case(jen.Lit(v.JSONType)).Block(e.decodeVariant(v.Type)...))
			kinds = append(kinds, v.JSONType)
		}
		body = append(body, jen.Switch(jen.Id("kind")).Block(cases...),
			jen.Return(jen.Nil(), jen.Op("&").Id("DecodeError").Values(jen.Dict{jen.Id("Msg"): jen.Lit(fmt.Sprintf("expected %s, got ", strings.Join(kinds, " or "))).Op("+").Id("kind")})))
	case ir.ByShape:
		body = append(body,
			jen.Var().Id("matched").Index().Id(name),
			jen.Var().Id("reasons").Index().String())
		for _, v := range u.Variants {
			vn := goName(v.Type)
			body = append(body, jen.Block(
				jen.Var().Id("x").Id(vn),
				jen.If(jen.Err().Op(":=").Id("x").Dot("UnmarshalJSON").Call(jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(
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
	e.codec.Comment(fmt.Sprintf("Decode%s decodes one %s value into its variant; bad input gives a *DecodeError.", name, t.Name))
	e.codec.Func().Id("Decode"+name).Params(jen.Id("raw").Qual(jsonPkg, "RawMessage")).Params(jen.Id(name), jen.Error()).Block(body...)
	e.codec.Line()
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

func (e *emitter) unknownVariant(f *jen.File, t *ir.Type) {
	u := t.Union
	un := u.Unknown.Of(ir.LangGo)
	desc := ""
	src := t.Pointer
	if u.UnknownType != nil {
		desc, src = u.UnknownType.Description, u.UnknownType.Pointer
	}
	addDoc(f, doc(fmt.Sprintf("%s is a %s whose %q tag this binding does not know (a newer peer or a plugin). It keeps the value's exact JSON in Raw and re-encodes it unchanged.", un, goName(t), u.Tag), desc, src))
	f.Type().Id(un).Struct(
		jen.Comment("Tag is the value's "+u.Tag+" member."),
		jen.Id("Tag").String(),
		jen.Comment("Raw is the whole value as received."),
		jen.Id("Raw").Qual(jsonPkg, "RawMessage"),
	)
	f.Line()
	f.Func().Params(jen.Id(un)).Id("is" + goName(t)).Params().Block()
	f.Line()
	c := e.codec
	c.Comment("MarshalJSON writes Raw unchanged.")
	c.Func().Params(jen.Id("v").Id(un)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("v").Dot("Raw")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(un+" has no Raw value")))),
		jen.Return(jen.Id("v").Dot("Raw"), jen.Nil()))
	c.Line()
	c.Comment("UnmarshalJSON keeps the value and its tag.")
	c.Func().Params(jen.Id("v").Op("*").Id(un)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.List(jen.Id("tag"), jen.Err()).Op(":=").Id("readTag").Call(jen.Id("data"), jen.Lit(u.Tag)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("v").Op("=").Id(un).Values(jen.Dict{jen.Id("Tag"): jen.Id("tag"), jen.Id("Raw"): jen.Id("cloneRaw").Call(jen.Id("data"))}),
		jen.Return(jen.Nil()))
	c.Line()
}

package golang

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/dshgen/dshgen/gen/ir"
)

// methods prints the method-name constants and the request and
// notification maps (MethodInfo, LookupMethod, DecodeParams and
// DecodeResult are in the runtime), each a group of its own (goFile.Next).
func (e *emitter) methods(g *goFile) {
	if len(e.m.Methods) > 0 {
		f := g.Next()
		var consts []jen.Code
		for _, m := range e.m.Methods {
			c := &comment{indent: 1}
			c.para("Method%s is the %s %q, sent %s.", m.Names.Of(ir.LangGo), m.Kind, m.Name, m.Direction)
			c.text(m.Description)
			consts = append(consts, c.lines()...)
			consts = append(consts, jen.Id("Method"+m.Names.Of(ir.LangGo)).Op("=").Lit(m.Name))
		}
		f.Comment("Method names on the wire.")
		f.Const().Defs(consts...)
		f.Line()
	}
	for _, kind := range []ir.MethodKind{ir.Request, ir.Notification} {
		name := e.m.RequestMap.Of(ir.LangGo)
		if kind == ir.Notification {
			name = e.m.NotificationMap.Of(ir.LangGo)
		}
		f := g.Next()
		f.Comment(fmt.Sprintf("%s maps each %s method to its direction and decoders.", name, kind))
		f.Var().Id(name).Op("=").Map(jen.String()).Id("MethodInfo").Values(jen.DictFunc(func(d jen.Dict) {
			for _, m := range e.m.Methods {
				if m.Kind != kind {
					continue
				}
				dd := jen.Dict{
					jen.Id("Method"):         jen.Lit(m.Name),
					jen.Id("Kind"):           jen.Lit(string(m.Kind)),
					jen.Id("Direction"):      jen.Lit(string(m.Direction)),
					jen.Id("ParamsOptional"): jen.Lit(m.ParamsOptional),
					jen.Id("DecodeParams"):   e.anyDecoder(m.Params),
				}
				if r := m.BindingResult(); r != nil {
					dd[jen.Id("DecodeResult")] = e.anyDecoder(r)
				}
				d[jen.Id("Method"+m.Names.Of(ir.LangGo))] = jen.Values(dd)
			}
		}))
		f.Line()
	}
}

// anyDecoder is a func(json.RawMessage) (any, error) decoding t.
func (e *emitter) anyDecoder(t *ir.Type) *jen.Statement {
	if t == nil {
		return jen.Nil()
	}
	ref := &ir.TypeRef{Kind: ir.RefNamed, Named: t}
	return jen.Func().Params(jen.Id("raw").Qual(jsonPkg, "RawMessage")).Params(jen.Any(), jen.Error()).Block(
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(e.decoder(ref)).Call(jen.Id("raw")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("v"), jen.Nil()))
}

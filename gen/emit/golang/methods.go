package golang

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/dshgen/dshgen/gen/ir"
)

// methods prints the method-name constants, the request and notification
// maps and the decode helpers.
func (e *emitter) methods(f *jen.File) {
	f.Comment("MethodInfo describes one method of the protocol's x-methods table.")
	f.Type().Id("MethodInfo").Struct(
		jen.Comment("Method is the wire method name."),
		jen.Id("Method").String(),
		jen.Comment(`Kind is "request" or "notification".`),
		jen.Id("Kind").String(),
		jen.Comment(`Direction is "client-to-server" or "server-to-client": who sends it.`),
		jen.Id("Direction").String(),
		jen.Comment("ParamsOptional means the params member may be absent."),
		jen.Id("ParamsOptional").Bool(),
		jen.Comment("DecodeParams decodes the params member into the method's params type (a value of that type)."),
		jen.Id("DecodeParams").Func().Params(jen.Qual(jsonPkg, "RawMessage")).Params(jen.Any(), jen.Error()),
		jen.Comment("DecodeResult decodes a success response's result (requests only; nil for notifications)."),
		jen.Id("DecodeResult").Func().Params(jen.Qual(jsonPkg, "RawMessage")).Params(jen.Any(), jen.Error()),
	)
	f.Line()
	if len(e.m.Methods) > 0 {
		var consts []jen.Code
		for _, m := range e.m.Methods {
			consts = append(consts, doc(fmt.Sprintf("Method%s is the %s %q (%s).", m.Names.Of(ir.LangGo), m.Kind, m.Name, m.Direction), m.Description, "")...)
			consts = append(consts, jen.Id("Method"+m.Names.Of(ir.LangGo)).Op("=").Lit(m.Name))
		}
		f.Comment("Method names.")
		f.Const().Defs(consts...)
		f.Line()
	}
	for _, kind := range []ir.MethodKind{ir.Request, ir.Notification} {
		name, what := "Requests", "request"
		if kind == ir.Notification {
			name, what = "Notifications", "notification"
		}
		f.Comment(fmt.Sprintf("%s maps each %s method to its description and decoders.", name, what))
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
				if m.Result != nil {
					dd[jen.Id("DecodeResult")] = e.anyDecoder(m.Result)
				}
				d[jen.Id("Method"+m.Names.Of(ir.LangGo))] = jen.Values(dd)
			}
		}))
		f.Line()
	}
	f.Comment("LookupMethod returns the method called name from Requests or Notifications.")
	f.Func().Id("LookupMethod").Params(jen.Id("name").String()).Params(jen.Id("MethodInfo"), jen.Bool()).Block(
		jen.If(jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("Requests").Index(jen.Id("name")), jen.Id("ok")).Block(jen.Return(jen.Id("m"), jen.True())),
		jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("Notifications").Index(jen.Id("name")),
		jen.Return(jen.Id("m"), jen.Id("ok")))
	f.Line()
	f.Comment("DecodeParams decodes the params of method (a request or a notification) into its params type.")
	f.Comment("An unknown method or bad params give an error; a *DecodeError's pointer is relative to params.")
	f.Func().Id("DecodeParams").Params(jen.Id("method").String(), jen.Id("raw").Qual(jsonPkg, "RawMessage")).Params(jen.Any(), jen.Error()).Block(
		jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("LookupMethod").Call(jen.Id("method")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown method %q"), jen.Id("method")))),
		jen.Return(jen.Id("m").Dot("DecodeParams").Call(jen.Id("raw"))))
	f.Line()
	f.Comment("DecodeResult decodes the result of a success response to a request of method.")
	f.Func().Id("DecodeResult").Params(jen.Id("method").String(), jen.Id("raw").Qual(jsonPkg, "RawMessage")).Params(jen.Any(), jen.Error()).Block(
		jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("Requests").Index(jen.Id("method")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown request method %q"), jen.Id("method")))),
		jen.Return(jen.Id("m").Dot("DecodeResult").Call(jen.Id("raw"))))
	f.Line()
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

package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/dshgen/dshgen/gen/ir"
)

// The SDK prints on the runtime's line transport (templates/go/transport.go.tmpl).
const (
	ctxPkg  = "context"
	ioPkg   = "io"
	execPkg = "os/exec"
)

// sdk prints sdk.go: the request id minter, the Client with its
// ClientHandlers, the Server interface and the ServerConn, all from
// m.SDK.
func (e *emitter) sdk(g *goFile) {
	s := e.m.SDK
	e.requestID(g.Next(), s.IDs)
	e.client(g, s.Client)
	e.server(g, s.Server)
}

func (e *emitter) requestID(f *jen.File, ids ir.IDStyle) {
	c := &comment{}
	c.para("NewRequestID mints the id of the n-th request a Conn sends (n counts from 1) in the protocol's style %s (%s).", ids.String(), ids.Source)
	var body jen.Code
	param := jen.Id("n").Int64()
	switch {
	case ids.Numeric():
		c.para("The ids are JSON numbers.")
		body = jen.Return(jen.Qual(jsonPkg, "RawMessage").Call(jen.Qual("strconv", "AppendInt").Call(jen.Nil(), jen.Id("n"), jen.Lit(10))))
	case ids.Mint == ir.IDCounter:
		c.para("The ids are JSON strings.")
		body = jen.Return(jen.Qual(jsonPkg, "RawMessage").Call(
			jen.Lit(`"`+ids.Prefix).Op("+").Qual("strconv", "FormatInt").Call(jen.Id("n"), jen.Lit(10)).Op("+").Lit(ids.Suffix + `"`)))
	default:
		fn := "uuidHex"
		if ids.Mint == ir.IDUUID {
			fn = "uuidString"
		}
		c.para("The ids are JSON strings holding a random version 4 UUID.")
		param = jen.Id("_").Int64()
		body = jen.Return(jen.Qual(jsonPkg, "RawMessage").Call(
			jen.Lit(`"` + ids.Prefix).Op("+").Id(fn).Call(jen.Id("uuidV4").Call()).Op("+").Lit(ids.Suffix + `"`)))
	}
	addDoc(f, c)
	f.Func().Id("NewRequestID").Params(param).Qual(jsonPkg, "RawMessage").Block(body)
	f.Line()
}

// isObject reports whether a method's params or result type is passed by
// pointer (an object struct) rather than by value (a union interface, an
// enum string, an alias).
func isObject(t *ir.Type) bool { return t != nil && t.Kind == ir.KindObject }

// argType is the Go type a params or result value is passed as.
func (e *emitter) argType(t *ir.Type) *jen.Statement {
	if isObject(t) {
		return jen.Op("*").Id(goName(t))
	}
	return jen.Id(goName(t))
}

// typeDecoder is the decoder[T] of a method's params or result type.
func (e *emitter) typeDecoder(t *ir.Type) *jen.Statement {
	return e.decoder(&ir.TypeRef{Kind: ir.RefNamed, Named: t})
}

// wrapParams puts each parameter on a line of its own when the signature
// would be width columns wide, more than the 120 the generated code keeps to.
func wrapParams(width int, params ...jen.Code) []jen.Code {
	if width <= 120 {
		return params
	}
	var out []jen.Code
	for _, p := range params {
		out = append(out, jen.Line().Add(p))
	}
	return append(out, jen.Line())
}

// ctxParam is "ctx context.Context".
func ctxParam() *jen.Statement { return jen.Id("ctx").Qual(ctxPkg, "Context") }

// isNillable reports whether a params value of type t can be nil (a
// pointer to an object struct, or a union interface).
func isNillable(t *ir.Type) bool {
	return t != nil && (t.Kind == ir.KindObject || t.Kind == ir.KindUnion)
}

// sendParams is the params argument of Conn.Call/Notify of m: for optional
// params nil stays an absent params member; for required params nil is
// refused before anything is sent (fail returns the statements returning
// the error).
func (e *emitter) sendParams(m *ir.SDKMethod, fail func(err jen.Code) []jen.Code) (pre []jen.Code, arg jen.Code) {
	t := m.Params
	if !isNillable(t) {
		return nil, jen.Id("params")
	}
	if !m.ParamsOptional {
		err := jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: %w"), jen.Id("Method"+m.Names.Of(ir.LangGo)), jen.Id("ErrParamsRequired"))
		return []jen.Code{jen.If(jen.Id("params").Op("==").Nil()).Block(fail(err)...)}, jen.Id("params")
	}
	if !isObject(t) {
		return nil, jen.Id("params")
	}
	return []jen.Code{
		jen.Var().Id("p").Any(),
		jen.If(jen.Id("params").Op("!=").Nil()).Block(jen.Id("p").Op("=").Id("params")),
	}, jen.Id("p")
}

// nilParamsDoc says what a nil params does for m.
func nilParamsDoc(c *comment, m *ir.SDKMethod) {
	switch {
	case !isNillable(m.Params):
	case m.ParamsOptional:
		c.para("A nil params sends no params member (the method's params are optional).")
	default:
		c.para("The method requires params: a nil params sends nothing and returns an error wrapping ErrParamsRequired.")
	}
}

// receiveParams decodes in.Params into p (a value; &p is passed on for an
// object type) and returns the statements and the argument expression.
func (e *emitter) receiveParams(m *ir.SDKMethod, onErr ...jen.Code) ([]jen.Code, jen.Code) {
	dec := []jen.Code{
		jen.List(jen.Id("p"), jen.Err()).Op(":=").Id("paramsOf").Call(jen.Id("in"), jen.Lit(m.ParamsOptional), e.typeDecoder(m.Params)),
		jen.If(jen.Err().Op("!=").Nil()).Block(onErr...),
	}
	if isObject(m.Params) {
		return dec, jen.Op("&").Id("p")
	}
	return dec, jen.Id("p")
}

// dispatchCase is m's case in a Handler's switch on the method: when cond
// holds, decode the params and run what call returns for the decoded
// argument.
func (e *emitter) dispatchCase(m *ir.SDKMethod, cond *jen.Statement, call func(arg jen.Code) []jen.Code) jen.Code {
	dec, arg := e.receiveParams(m, jen.Return(jen.Nil(), jen.Err()))
	return jen.Case(jen.Id("Method" + m.Names.Of(ir.LangGo))).Block(jen.If(cond).Block(append(dec, call(arg)...)...))
}

// methodDoc documents a generated method for m: what it does, then the
// schema's description.
func methodDoc(m *ir.SDKMethod, indent int, format string, args ...any) *comment {
	c := &comment{indent: indent}
	c.para(format, args...)
	c.text(m.Description)
	return c
}

func (e *emitter) client(g *goFile, side *ir.Side) {
	f := g.Next()
	title := e.m.Title
	c := &comment{}
	c.para("Client is the client side of %s over a Conn: one method per request and notification the client sends; what the server sends goes to ClientHandlers.", title)
	addDoc(f, c)
	f.Type().Id("Client").Struct(jen.Id("conn").Op("*").Id("Conn"))
	f.Line()

	// ClientHandlers
	var fields []jen.Code
	for _, m := range side.Handles {
		fields = append(fields, methodDoc(m, 1, "%s receives the %q notifications.", m.Handler[ir.LangGo], m.Name).lines()...)
		fields = append(fields, jen.Id(m.Handler[ir.LangGo]).Func().Params(ctxParam(), jen.Id("params").Add(e.argType(m.Params))))
	}
	for _, m := range side.Serves {
		fields = append(fields, methodDoc(m, 1, "%s serves the %q requests; an error is sent as an error response (see Handler).", m.Handler[ir.LangGo], m.Name).lines()...)
		fields = append(fields, jen.Id(m.Handler[ir.LangGo]).Func().Params(ctxParam(), jen.Id("params").Add(e.argType(m.Params))).
			Params(e.argType(m.BindingResult()), jen.Error()))
	}
	fields = append(fields, (&comment{indent: 1}).para("OnNotification receives every notification no handler above takes (a method the "+
		"method table does not list, or whose handler is nil) with its params as raw JSON (nil when absent); "+
		"nothing the server sends is dropped unseen.").lines()...)
	fields = append(fields, jen.Id("OnNotification").Func().Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(jsonPkg, "RawMessage")))
	fields = append(fields, (&comment{indent: 1}).para("OnRequest serves every request no handler above takes; nil answers them with -32601.").lines()...)
	fields = append(fields, jen.Id("OnRequest").Func().Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(jsonPkg, "RawMessage")).
		Params(jen.Any(), jen.Error()))
	c = &comment{}
	c.para("ClientHandlers receive what the server sends to a Client. Notifications arrive one at a time, in order; each request on a goroutine of its own. A notification whose params are missing (when required) or do not decode is reported to ConnOptions.OnDropped; such a request is answered with -32602 (CodeInvalidParams) naming the method and the JSON pointer.")
	addDoc(f, c)
	f.Type().Id("ClientHandlers").Struct(fields...)
	f.Line()

	// dispatch
	var cases []jen.Code
	for _, m := range side.Handles {
		h := jen.Id("h").Dot(m.Handler[ir.LangGo])
		cases = append(cases, e.dispatchCase(m, h.Clone().Op("!=").Nil().Op("&&").Id("in").Dot("IsNotification").Call(), func(arg jen.Code) []jen.Code {
			return []jen.Code{h.Clone().Call(jen.Id("ctx"), arg), jen.Return(jen.Nil(), jen.Nil())}
		}))
	}
	for _, m := range side.Serves {
		h := jen.Id("h").Dot(m.Handler[ir.LangGo])
		cases = append(cases, e.dispatchCase(m, h.Clone().Op("!=").Nil().Op("&&").Op("!").Id("in").Dot("IsNotification").Call(), func(arg jen.Code) []jen.Code {
			return []jen.Code{jen.Return(h.Clone().Call(jen.Id("ctx"), arg))}
		}))
	}
	var stmts []jen.Code
	if len(cases) > 0 {
		stmts = append(stmts, jen.Switch(jen.Id("in").Dot("Method")).Block(cases...))
	}
	stmts = append(stmts,
		jen.If(jen.Id("in").Dot("IsNotification").Call()).Block(
			jen.If(jen.Id("h").Dot("OnNotification").Op("!=").Nil()).Block(
				jen.Id("h").Dot("OnNotification").Call(jen.Id("ctx"), jen.Id("in").Dot("Method"), jen.Id("in").Dot("Params"))),
			jen.Return(jen.Nil(), jen.Nil())),
		jen.If(jen.Id("h").Dot("OnRequest").Op("!=").Nil()).Block(
			jen.Return(jen.Id("h").Dot("OnRequest").Call(jen.Id("ctx"), jen.Id("in").Dot("Method"), jen.Id("in").Dot("Params")))),
		jen.Return(jen.Nil(), jen.Id("ErrMethodNotFound")))
	addDoc(f, (&comment{}).para("handle is the Client's Handler: it decodes by method and calls the handler for it."))
	f.Func().Params(jen.Id("h").Id("ClientHandlers")).Id("handle").Params(ctxParam(), jen.Id("in").Op("*").Id("Incoming")).
		Params(jen.Any(), jen.Error()).Block(stmts...)
	f.Line()

	// constructors
	addDoc(f, (&comment{}).para("NewClient returns a Client reading the server's frames from r and writing its own to w; h (nil: none) receives what the server sends, opts (nil: defaults) configure the Conn."))
	f.Func().Id("NewClient").Params(jen.Id("r").Qual(ioPkg, "Reader"), jen.Id("w").Qual(ioPkg, "Writer"), jen.Id("h").Op("*").Id("ClientHandlers"),
		jen.Id("opts").Op("*").Id("ConnOptions")).Op("*").Id("Client").Block(
		jen.Var().Id("hs").Id("ClientHandlers"),
		jen.If(jen.Id("h").Op("!=").Nil()).Block(jen.Id("hs").Op("=").Op("*").Id("h")),
		jen.Id("c").Op(":=").Op("&").Id("Client").Values(jen.Dict{jen.Id("conn"): jen.Id("NewConn").Call(jen.Id("r"), jen.Id("w"), jen.Id("opts"))}),
		jen.Id("c").Dot("conn").Dot("Start").Call(jen.Id("hs").Dot("handle")),
		jen.Return(jen.Id("c")))
	f.Line()
	addDoc(f, (&comment{}).para("StartClient starts the server command cmd with its stdin and stdout as the connection (see StartCommand) and returns a Client on it. The server's stderr is this process's unless cmd.Stderr is set (then it goes there). Close closes the server's stdin and waits for it to exit, killing it after 2 seconds."))
	f.Func().Id("StartClient").Params(jen.Id("cmd").Op("*").Qual(execPkg, "Cmd"), jen.Id("h").Op("*").Id("ClientHandlers"),
		jen.Id("opts").Op("*").Id("ConnOptions")).Params(jen.Op("*").Id("Client"), jen.Error()).Block(
		jen.List(jen.Id("r"), jen.Id("w"), jen.Err()).Op(":=").Id("StartCommand").Call(jen.Id("cmd"), jen.Lit(2).Op("*").Qual("time", "Second")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("NewClient").Call(jen.Id("r"), jen.Id("w"), jen.Id("h"), jen.Id("opts")), jen.Nil()))
	f.Line()
	e.senders(g, "c", "Client", side)
}

// senders prints the connection accessors of typ and its typed methods
// sending side's requests and notifications.
// Each method is a group of its own (goFile.Next).
func (e *emitter) senders(g *goFile, recv, typ string, side *ir.Side) {
	e.connAccessors(g.Next(), recv, typ)
	for _, m := range side.Calls {
		e.callMethod(g.Next(), recv, typ, m)
	}
	for _, m := range side.Notifies {
		e.notifyMethod(g.Next(), recv, typ, m)
	}
}

// connAccessors prints Conn, Close and Done of a type holding conn.
func (e *emitter) connAccessors(f *jen.File, recv, typ string) {
	f.Comment("Conn returns the connection under the " + typ + ".")
	f.Func().Params(jen.Id(recv).Op("*").Id(typ)).Id("Conn").Params().Op("*").Id("Conn").Block(jen.Return(jen.Id(recv).Dot("conn")))
	f.Line()
	addDoc(f, (&comment{}).para("Close closes the connection (see Conn.Close): pending calls fail with an error wrapping ErrClosed."))
	f.Func().Params(jen.Id(recv).Op("*").Id(typ)).Id("Close").Params().Error().Block(jen.Return(jen.Id(recv).Dot("conn").Dot("Close").Call()))
	f.Line()
	f.Comment("Done is closed when the connection has closed.")
	f.Func().Params(jen.Id(recv).Op("*").Id(typ)).Id("Done").Params().Op("<-").Chan().Struct().Block(
		jen.Return(jen.Id(recv).Dot("conn").Dot("Done").Call()))
	f.Line()
}

// callMethod prints the typed method sending request m.
func (e *emitter) callMethod(f *jen.File, recv, typ string, m *ir.SDKMethod) {
	name := m.Call[ir.LangGo]
	c := methodDoc(m, 0, "%s sends the %q request and returns its result.", name, m.Name)
	nilParamsDoc(c, m)
	c.para("Errors: a *ResponseError for an error response (code, message, data), ctx.Err() when ctx ends first, an error wrapping ErrClosed when the connection closes first, an error wrapping a *DecodeError when the result does not decode as %s.", goName(m.BindingResult()))
	addDoc(f, c)
	method := jen.Id("Method" + m.Names.Of(ir.LangGo))
	var fail []jen.Code
	var decode jen.Code
	failWith := func(err jen.Code) []jen.Code { return []jen.Code{jen.Return(jen.Nil(), err)} }
	if isObject(m.BindingResult()) {
		fail = failWith(jen.Err())
		decode = jen.Return(jen.Id("resultOf").Call(method, jen.Id("raw"), e.typeDecoder(m.BindingResult())))
	} else {
		failWith = func(err jen.Code) []jen.Code {
			return []jen.Code{jen.Var().Id("zero").Add(e.argType(m.BindingResult())), jen.Return(jen.Id("zero"), err)}
		}
		fail = failWith(jen.Err())
		decode = jen.Return(jen.Id("valueOf").Call(method, jen.Id("raw"), e.typeDecoder(m.BindingResult())))
	}
	pre, arg := e.sendParams(m, failWith)
	body := append(pre,
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id(recv).Dot("conn").Dot("Call").Call(jen.Id("ctx"), method, arg),
		jen.If(jen.Err().Op("!=").Nil()).Block(fail...),
		decode)
	// func (c *Client) Name(ctx context.Context, params *P) (*R, error) {
	width := 6 + len(recv) + len(typ) + len(name) + 30 + len(goName(m.Params)) + 4 + len(goName(m.BindingResult())) + 10
	f.Func().Params(jen.Id(recv).Op("*").Id(typ)).Id(name).Params(wrapParams(width, ctxParam(), jen.Id("params").Add(e.argType(m.Params)))...).
		Params(e.argType(m.BindingResult()), jen.Error()).Block(body...)
	f.Line()
}

// notifyMethod prints the typed sender of notification m.
func (e *emitter) notifyMethod(f *jen.File, recv, typ string, m *ir.SDKMethod) {
	name := m.Call[ir.LangGo]
	c := methodDoc(m, 0, "%s sends the %q notification.", name, m.Name)
	c.para("It fails when the connection is closed or the write fails.")
	nilParamsDoc(c, m)
	addDoc(f, c)
	pre, arg := e.sendParams(m, func(err jen.Code) []jen.Code { return []jen.Code{jen.Return(err)} })
	body := append(pre, jen.Return(jen.Id(recv).Dot("conn").Dot("Notify").Call(jen.Id("ctx"), jen.Id("Method"+m.Names.Of(ir.LangGo)), arg)))
	f.Func().Params(jen.Id(recv).Op("*").Id(typ)).Id(name).Params(ctxParam(), jen.Id("params").Add(e.argType(m.Params))).Error().Block(body...)
	f.Line()
}

func (e *emitter) server(g *goFile, side *ir.Side) {
	f := g.Next()
	title := e.m.Title
	var methods []jen.Code
	for _, m := range side.Serves {
		methods = append(methods, methodDoc(m, 1, "%s serves the %q request; an error is sent as an error response (see Handler).", m.Call[ir.LangGo], m.Name).lines()...)
		width := 4 + len(m.Call[ir.LangGo]) + 30 + len(goName(m.Params)) + 4 + len(goName(m.BindingResult())) + 8
		methods = append(methods, jen.Id(m.Call[ir.LangGo]).Params(wrapParams(width, ctxParam(), jen.Id("params").Add(e.argType(m.Params)))...).
			Params(e.argType(m.BindingResult()), jen.Error()))
	}
	for _, m := range side.Handles {
		methods = append(methods, methodDoc(m, 1, "%s receives the %q notifications; an error is reported to ConnOptions.OnDropped.", m.Call[ir.LangGo], m.Name).lines()...)
		methods = append(methods, jen.Id(m.Call[ir.LangGo]).Params(ctxParam(), jen.Id("params").Add(e.argType(m.Params))).Error())
	}
	c := &comment{}
	c.para("Server serves what a client of %s sends: one method per request and notification the server receives. A runtime or a test double implements it and serves it with ServerConn.Serve.", title)
	addDoc(f, c)
	f.Type().Id("Server").Interface(methods...)
	f.Line()
	e.unimplementedServer(g, side)
	f = g.Next()

	var cases []jen.Code
	for _, m := range side.Serves {
		cases = append(cases, e.dispatchCase(m, jen.Op("!").Id("in").Dot("IsNotification").Call(), func(arg jen.Code) []jen.Code {
			return []jen.Code{jen.Return(jen.Id("srv").Dot(m.Call[ir.LangGo]).Call(jen.Id("ctx"), arg))}
		}))
	}
	for _, m := range side.Handles {
		cases = append(cases, e.dispatchCase(m, jen.Id("in").Dot("IsNotification").Call(), func(arg jen.Code) []jen.Code {
			return []jen.Code{jen.Return(jen.Nil(), jen.Id("srv").Dot(m.Call[ir.LangGo]).Call(jen.Id("ctx"), arg))}
		}))
	}
	var stmts []jen.Code
	if len(cases) > 0 {
		stmts = append(stmts, jen.Switch(jen.Id("in").Dot("Method")).Block(cases...))
	}
	stmts = append(stmts,
		jen.If(jen.Id("in").Dot("IsNotification").Call()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("no handler for notification %q"), jen.Id("in").Dot("Method")))),
		jen.Return(jen.Nil(), jen.Id("ErrMethodNotFound")))
	addDoc(f, (&comment{}).para("serverHandler is the Handler serving srv: it decodes by method and calls the Server method for it."))
	f.Func().Id("serverHandler").Params(jen.Id("srv").Id("Server")).Id("Handler").Block(
		jen.Return(jen.Func().Params(ctxParam(), jen.Id("in").Op("*").Id("Incoming")).Params(jen.Any(), jen.Error()).Block(stmts...)))
	f.Line()

	c = &comment{}
	c.para("ServerConn is the server side of a connection of %s: Serve hands what the client sends to a Server; its methods send the server's notifications and requests to the client.", title)
	addDoc(f, c)
	f.Type().Id("ServerConn").Struct(jen.Id("conn").Op("*").Id("Conn"))
	f.Line()
	addDoc(f, (&comment{}).para("NewServerConn returns a ServerConn reading the client's frames from r and writing to w once Serve is called; opts (nil: defaults) configure the Conn."))
	f.Func().Id("NewServerConn").Params(jen.Id("r").Qual(ioPkg, "Reader"), jen.Id("w").Qual(ioPkg, "Writer"), jen.Id("opts").Op("*").Id("ConnOptions")).
		Op("*").Id("ServerConn").Block(jen.Return(jen.Op("&").Id("ServerConn").Values(jen.Dict{jen.Id("conn"): jen.Id("NewConn").Call(jen.Id("r"), jen.Id("w"), jen.Id("opts"))})))
	f.Line()
	addDoc(f, (&comment{}).para("Serve serves srv until the connection closes. At the client's end of input it first answers every request already read (each response written before it returns), then returns nil; it returns nil after Close too, else the read error that closed it. A request whose params are missing (when required) or do not decode is answered -32602 without calling srv."))
	f.Func().Params(jen.Id("s").Op("*").Id("ServerConn")).Id("Serve").Params(jen.Id("srv").Id("Server")).Error().Block(
		jen.Id("s").Dot("conn").Dot("Start").Call(jen.Id("serverHandler").Call(jen.Id("srv"))),
		jen.Op("<-").Id("s").Dot("conn").Dot("Done").Call(),
		jen.If(jen.Err().Op(":=").Id("s").Dot("conn").Dot("Err").Call(), jen.Err().Op("!=").Nil().Op("&&").
			Op("!").Qual("errors", "Is").Call(jen.Err(), jen.Qual(ioPkg, "EOF")).Op("&&").Op("!").Qual("errors", "Is").Call(jen.Err(), jen.Id("ErrClosed"))).
			Block(jen.Return(jen.Err())),
		jen.Return(jen.Nil()))
	f.Line()
	e.senders(g, "s", "ServerConn", side)
}

// unimplementedServer prints UnimplementedServer, the Server a runtime
// embeds to serve only some of the requests: each of its request methods
// answers -32601 and each notification method does nothing.
// Each method is a group of its own (goFile.Next).
func (e *emitter) unimplementedServer(g *goFile, side *ir.Side) {
	f := g.Next()
	c := &comment{}
	c.para("UnimplementedServer is a Server that serves nothing: each request method returns ErrMethodNotFound (answered -32601) and each notification method returns nil. Embed it in a Server to implement only the methods it serves; a method the protocol gains later is then answered -32601 instead of breaking the build.")
	addDoc(f, c)
	f.Type().Id("UnimplementedServer").Struct()
	f.Line()
	f.Var().Id("_").Id("Server").Op("=").Id("UnimplementedServer").Values()
	f.Line()
	for _, m := range side.Serves {
		f := g.Next()
		name := m.Call[ir.LangGo]
		addDoc(f, (&comment{}).para("%s answers the %q request with ErrMethodNotFound.", name, m.Name))
		width := 68 + len(name) + len(goName(m.Params)) + len(goName(m.BindingResult()))
		f.Func().Params(jen.Id("UnimplementedServer")).Id(name).
			Params(wrapParams(width, jen.Qual(ctxPkg, "Context"), e.argType(m.Params))...).
			Params(jen.Id("res").Add(e.argType(m.BindingResult())), jen.Err().Error()).
			Block(jen.Return(jen.Id("res"), jen.Id("ErrMethodNotFound")))
		f.Line()
	}
	for _, m := range side.Handles {
		f := g.Next()
		name := m.Call[ir.LangGo]
		addDoc(f, (&comment{}).para("%s ignores the %q notification.", name, m.Name))
		f.Func().Params(jen.Id("UnimplementedServer")).Id(name).
			Params(jen.Qual(ctxPkg, "Context"), e.argType(m.Params)).Error().
			Block(jen.Return(jen.Nil()))
		f.Line()
	}
}

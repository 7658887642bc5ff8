package python

import (
	"fmt"

	"github.com/dshgen/dshgen/gen/ir"
)

// sdkView is sdk.py: the Client, SyncClient, Server Protocol and ServerConn
// printed from the model's SDK (gen/ir/sdk.go).
type sdkView struct {
	commonView
	IDStyle, IDSource, IDBody string
	UUID                      bool // the id style needs the uuid module
	Client, Server            sideView
}

type sideView struct {
	Calls, Notifies, Serves, Handles []*sdkMethodView
}

type sdkMethodView struct {
	Name, Handler, Const     string
	ParamsAnn, ParamsDecode  string
	ResultAnn, ResultDecode  string
	ParamsOptional, Optional string
	CallDoc, HandlerDoc      string
	ServeDoc                 string
	// UnservedDoc is the docstring of UnimplementedServer's method.
	UnservedDoc string
}

func (e *emitter) sdkView() *sdkView {
	s := e.m.SDK
	v := &sdkView{IDStyle: s.IDs.String(), IDSource: s.IDs.Source, UUID: s.IDs.Mint != ir.IDCounter}
	switch {
	case s.IDs.Numeric():
		v.IDBody = "    return n"
	case s.IDs.Mint == ir.IDCounter:
		v.IDBody = fmt.Sprintf("    return %s + str(n) + %s", pyStr(s.IDs.Prefix), pyStr(s.IDs.Suffix))
	case s.IDs.Mint == ir.IDUUID:
		v.IDBody = fmt.Sprintf("    return %s + str(uuid.uuid4()) + %s", pyStr(s.IDs.Prefix), pyStr(s.IDs.Suffix))
	default:
		v.IDBody = fmt.Sprintf("    return %s + uuid.uuid4().hex + %s", pyStr(s.IDs.Prefix), pyStr(s.IDs.Suffix))
	}
	if s.IDs.Prefix == "" && s.IDs.Suffix == "" && !s.IDs.Numeric() {
		v.IDBody = "    return " + map[ir.IDMint]string{ir.IDUUID: "str(uuid.uuid4())", ir.IDUUIDHex: "uuid.uuid4().hex"}[s.IDs.Mint]
	}
	side := func(sd *ir.Side) sideView {
		conv := func(ms []*ir.SDKMethod) []*sdkMethodView {
			var out []*sdkMethodView
			for _, m := range ms {
				out = append(out, e.sdkMethod(m))
			}
			return out
		}
		return sideView{conv(sd.Calls), conv(sd.Notifies), conv(sd.Serves), conv(sd.Handles)}
	}
	v.Client, v.Server = side(s.Client), side(s.Server)
	return v
}

func (e *emitter) sdkMethod(m *ir.SDKMethod) *sdkMethodView {
	v := &sdkMethodView{Name: m.Call.Of(py), Handler: m.Handler.Of(py), Const: m.Names.Of(py), ParamsOptional: "False", Optional: ""}
	if m.ParamsOptional {
		v.ParamsOptional, v.Optional = "True", "yes"
	}
	v.ParamsAnn, _, v.ParamsDecode = e.typeRef(m.Params)
	what := "notification"
	if m.Kind == ir.Request {
		what = "request"
		v.ResultAnn, _, v.ResultDecode = e.typeRef(m.BindingResult())
	}
	src := "Schema: " + m.Pointer + "."
	switch m.Kind {
	case ir.Request:
		v.CallDoc = docstring(docParas("        ", fmt.Sprintf("Send the %s request and return its result (ResponseError for an error response, asyncio.TimeoutError after timeout seconds, TransportClosedError, DecodeError).", pyStr(m.Name)), m.Description, src), "        ")
	default:
		v.CallDoc = docstring(docParas("        ", fmt.Sprintf("Send the %s notification.", pyStr(m.Name)), m.Description, src), "        ")
	}
	v.HandlerDoc = docstring(docParas("        ", fmt.Sprintf("Receive the %s %ss with handler (a coroutine function).", pyStr(m.Name), what), m.Description, src), "        ")
	v.ServeDoc = docstring(docParas("        ", fmt.Sprintf("Serve the %s %s.", pyStr(m.Name), what), m.Description, src), "        ")
	unserved := fmt.Sprintf("Answer the %s request with -32601.", pyStr(m.Name))
	if m.Kind != ir.Request {
		unserved = fmt.Sprintf("Ignore the %s notifications.", pyStr(m.Name))
	}
	v.UnservedDoc = docstring(docParas("        ", unserved), "        ")
	return v
}

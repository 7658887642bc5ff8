package ir

import (
	"fmt"
	"strings"
	"unicode"
)

// SDK is what the generated client, server and line transport of every
// language are printed from: the id style of the requests they send, one
// SDKMethod per x-methods entry (the identifiers of its call and its
// handler) and, per side, which methods that side sends and receives.
// Emitters print these lists in their order and decide nothing.
type SDK struct {
	// IDs is how a sender mints request ids (the root's "x-request-id").
	IDs IDStyle
	// Methods has one entry per Model.Methods entry, in the same order.
	Methods []*SDKMethod
	// Client and Server are the two peers' views of the method table.
	Client, Server *Side
}

// Side is one peer's view of the method table. A method whose direction is
// "both" is in the sending lists of both sides and the receiving lists of
// both sides.
type Side struct {
	// Role is "client" or "server".
	Role string
	// Calls are the requests this side sends: one typed method each
	// (Go Client.SessionPrompt, Python await client.session_prompt(...),
	// TypeScript client.sessionPrompt(...)), named by SDKMethod.Call.
	Calls []*SDKMethod
	// Notifies are the notifications this side sends: one typed sender each,
	// named by SDKMethod.Call.
	Notifies []*SDKMethod
	// Serves are the requests this side receives: one handler each that
	// returns the result or an error. The server prints them as methods of
	// its Server interface (named by Call); the client as handlers (named by
	// Handler).
	Serves []*SDKMethod
	// Handles are the notifications this side receives: one handler each
	// (server: a Server interface method named by Call; client: a handler
	// named by Handler).
	Handles []*SDKMethod
	// Members are the identifiers the generated runtime gives this side's
	// types besides the method ones, per language; a method name that lands
	// on one is reported as a collision (see sdkMembers).
	Members [numLangs][]string
}

// SDKMethod is one method's SDK identifiers.
type SDKMethod struct {
	*Method
	// Call names the typed method that sends it and the Server interface
	// method that serves it: session/prompt → Go SessionPrompt, Python
	// session_prompt, TypeScript sessionPrompt.
	Call Names
	// Handler names the client's handler of it: session.event → Go
	// OnSessionEvent, Python on_session_event, TypeScript onSessionEvent.
	Handler Names
}

// IDMint says how the variable part of a request id is made.
type IDMint string

// The request id kinds "x-request-id" can name.
const (
	// IDCounter: a per-connection counter from 1; a JSON number when the
	// style has no prefix or suffix, else a string.
	IDCounter IDMint = "counter"
	// IDUUIDHex: a random v4 UUID as 32 lowercase hex digits (a string).
	IDUUIDHex IDMint = "uuid-hex"
	// IDUUID: a random v4 UUID in its 36-character hyphenated form (a string).
	IDUUID IDMint = "uuid"
)

// IDStyle is how request ids are minted: Prefix + the minted part + Suffix.
// The shipped protocol's is "req_{uuid-hex}" (the published TypeScript
// transport's req_ followed by 32 hex digits); without "x-request-id" a
// schema gets {counter}, the JSON number ids most JSON-RPC 2.0 peers send.
type IDStyle struct {
	Prefix, Suffix string
	Mint           IDMint
	// Source is where the style comes from, for docs: "#/x-request-id" or
	// the default's explanation.
	Source string
}

// Numeric reports whether the ids are JSON numbers (a bare counter).
func (s IDStyle) Numeric() bool { return s.Mint == IDCounter && s.Prefix == "" && s.Suffix == "" }

// String renders the style as written in "x-request-id".
func (s IDStyle) String() string { return s.Prefix + "{" + string(s.Mint) + "}" + s.Suffix }

// sdkTypes are the package-level names the generated SDK code declares per
// language (printed by the emitters from the model, so not in a template
// the reserved names are read from); they are claimed in the type
// namespace, so a schema type of that name is reported as a collision. The
// emitters' tests check each list against the generated code.
var sdkTypes = [numLangs][]string{
	LangGo: {"Client", "ClientHandlers", "NewClient", "NewRequestID", "NewServerConn", "Server", "ServerConn", "StartClient",
		"UnimplementedServer", "serverHandler"},
	// Python's SDK is a module of its own (sdk.py) that reaches the types
	// through "from . import types as _t", so it shares no namespace with them.
	LangPython: nil,
	LangTS:     {"Client", "Server"},
}

// SDKTypes returns the package-level names the generated SDK declares in
// lang besides the method identifiers (see sdkTypes).
func SDKTypes(lang Lang) []string { return append([]string(nil), sdkTypes[lang]...) }

// sdkMembers are the members the generated runtimes give a side's types
// besides the method identifiers (the client: closing, the connection under
// it, the handlers of unknown methods; the server side: the connection its
// senders write to). A method whose identifier lands on one of these is
// reported as a collision with the runtime.
var sdkMembers = map[string][numLangs][]string{
	"client": {
		LangGo:     {"Close", "Conn", "Done", "OnNotification", "OnRequest"},
		LangPython: {"client", "close", "connect", "on_notification", "on_request", "spawn", "transport"},
		LangTS:     {"close", "transport", "onNotification", "onRequest"},
	},
	"server": {
		LangGo:     {"Close", "Conn", "Done", "Serve"},
		LangPython: {"close", "connect", "serve", "stdio", "transport"},
		LangTS:     {"close", "transport", "serve"},
	},
}

// requestIDStyle reads the root's "x-request-id".
func (l *loader) requestIDStyle(root loc) IDStyle {
	def := IDStyle{Mint: IDCounter, Source: "the default (no \"x-request-id\" at the schema root)"}
	n := root.Node().Get(kwRequestID.Name)
	if n == nil {
		return def
	}
	at := root.Child(kwRequestID.Name)
	s, err := parseIDStyle(n.Str())
	if err != nil {
		l.problem(at, err.Error(), "write a prefix, one of {counter}, {uuid-hex} or {uuid}, and a suffix, e.g. \"req_{uuid-hex}\"")
		return def
	}
	s.Source = "#/" + kwRequestID.Name
	return s
}

// parseIDStyle parses "prefix{mint}suffix".
func parseIDStyle(v string) (IDStyle, error) {
	open := strings.Index(v, "{")
	end := strings.Index(v, "}")
	if open < 0 || end < open || strings.Count(v, "{") != 1 || strings.Count(v, "}") != 1 {
		return IDStyle{}, fmt.Errorf("\"x-request-id\" %q must hold exactly one {counter}, {uuid-hex} or {uuid}", v)
	}
	s := IDStyle{Prefix: v[:open], Mint: IDMint(v[open+1 : end]), Suffix: v[end+1:]}
	switch s.Mint {
	case IDCounter, IDUUIDHex, IDUUID:
	default:
		return IDStyle{}, fmt.Errorf("\"x-request-id\" %q: unknown id kind {%s} (known: {counter}, {uuid-hex}, {uuid})", v, s.Mint)
	}
	for _, r := range s.Prefix + s.Suffix {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' {
			return IDStyle{}, fmt.Errorf("\"x-request-id\" %q: the prefix and suffix must be printable without JSON escapes", v)
		}
	}
	return s, nil
}

// sdk builds Model.SDK from the method table.
func (l *loader) sdk(m *Model, root loc) *SDK { return buildSDK(m.Methods, l.requestIDStyle(root)) }

// buildSDK names every method's call and handler and sorts the methods
// onto the two sides.
func buildSDK(methods []*Method, ids IDStyle) *SDK {
	s := &SDK{IDs: ids}
	s.Client = &Side{Role: "client", Members: sdkMembers["client"]}
	s.Server = &Side{Role: "server", Members: sdkMembers["server"]}
	r := mustReserved()
	for _, me := range methods {
		base := me.nameBase
		if base == "" { // a method inferred from the schema's own conventions (methods_infer.go)
			base = me.Name
		}
		sm := &SDKMethod{Method: me}
		sm.Call[LangGo] = goPascal(base)
		sm.Call[LangPython] = escapeIf(snake(base), r.pyAttrs)
		sm.Call[LangTS] = lowerFirst(pascal(base)) // a TypeScript member may be a keyword
		if sm.Call[LangTS] == "constructor" {
			// a class member of that name is the class's constructor
			sm.Call[LangTS] += "_"
		}
		sm.Handler[LangGo] = "On" + goPascal(base)
		sm.Handler[LangPython] = "on_" + snake(base)
		sm.Handler[LangTS] = "on" + pascal(base)
		s.Methods = append(s.Methods, sm)
		if me.Direction == ClientToServer || me.Direction == Both {
			s.Client.sends(sm, s.Server)
		}
		if me.Direction == ServerToClient || me.Direction == Both {
			s.Server.sends(sm, s.Client)
		}
	}
	return s
}

// sends lists sm as sent by side and received by peer.
func (side *Side) sends(sm *SDKMethod, peer *Side) {
	if sm.Kind == Request {
		side.Calls = append(side.Calls, sm)
		peer.Serves = append(peer.Serves, sm)
		return
	}
	side.Notifies = append(side.Notifies, sm)
	peer.Handles = append(peer.Handles, sm)
}

// lowerFirst turns a PascalCase name into camelCase: "SessionPrompt" →
// sessionPrompt; a leading capital run is lowered whole, but for its last
// letter when a lower-case letter follows ("LLMCall" → llmCall, "SDK" → sdk).
func lowerFirst(s string) string {
	rs := []rune(s)
	n := 0
	for n < len(rs) && unicode.IsUpper(rs[n]) {
		n++
	}
	switch {
	case n == 0:
	case n == 1 || n == len(rs):
		for i := 0; i < n; i++ {
			rs[i] = unicode.ToLower(rs[i])
		}
	default:
		for i := 0; i < n-1; i++ {
			rs[i] = unicode.ToLower(rs[i])
		}
	}
	return string(rs)
}

// claimSDKTypes claims the SDK's type names in the package namespaces
// (before the schema's types, as the runtimes' names are); a schema
// without methods gets no SDK.
func (l *loader) claimSDKTypes(c *collisions, m *Model) {
	if len(m.Methods) == 0 {
		return // no method, no SDK printed
	}
	for _, lang := range Langs {
		for _, n := range sdkTypes[lang] {
			c.claim("types", lang, n, "the generated SDK's "+n, loc{Doc: l.set.Root()})
		}
	}
}

// checkSDKNames claims the SDK identifiers: per side every identifier its generated types
// carry (the call and handler names of the methods it sends and receives,
// and the runtime's own members).
func (l *loader) checkSDKNames(c *collisions, s *SDK) {
	root := loc{Doc: l.set.Root()}
	for _, side := range []*Side{s.Client, s.Server} {
		space := "sdk " + side.Role
		for _, lang := range Langs {
			for _, n := range side.Members[lang] {
				c.claim(space, lang, n, "the generated "+side.Role+"'s own members", root)
			}
		}
		claim := func(ms []*SDKMethod, handler bool) {
			for _, sm := range ms {
				at := loc{Doc: l.set.Root(), Ptr: ptrOnly(sm.Pointer)}
				for _, lang := range Langs {
					id := sm.Call[lang]
					if handler {
						id = sm.Handler[lang]
					}
					c.claim(space, lang, id, ptrOnly(sm.Pointer), at)
				}
			}
		}
		claim(side.Calls, false)
		claim(side.Notifies, false)
		// the server serves through its interface (Call names), the client
		// through handlers (Handler names)
		claim(side.Serves, side.Role == "client")
		claim(side.Handles, side.Role == "client")
	}
}

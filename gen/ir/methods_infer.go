package ir

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/schemadoc"
)

// The method table of a schema without x-methods is read from the
// schema's own conventions (METHODS.md says exactly what is inferred);
// an x-methods entry, in the schema or an overlay, replaces the inferred
// entry of its method, except that it may not contradict a table the
// protocol publishes itself (ACP's meta.json + x-method).

// inferred is one method read from a convention, before its types are built.
type inferred struct {
	name           string
	kind           MethodKind
	dir            Direction
	params         loc // zero Doc: none found
	paramsOptional bool
	// noParams: the def declares no params member (JSON-RPC 2.0 lets a
	// request or notification omit params): the method gets the
	// undeclared-params type and its params are optional.
	noParams bool
	result   loc
	alts     []loc
	source   string
	at       loc // the def the method was read from, for problems
	// published: read from metadata the protocol publishes (ACP meta.json
	// + x-method), which an x-methods entry may not contradict.
	published bool
	// missing is the problem to report when no x-methods entry supplies
	// what the convention could not (a result type, a params def).
	missing, missingFix string
	input               bool // an MCP input request, not a JSON-RPC method
}

// conventions is what inferMethods found.
type conventions struct {
	methods   []*inferred
	extPrefix string
}

// rootDefs returns the root's $defs (or draft-07 definitions) keyword name
// and node.
func rootDefs(root loc) (string, *node) {
	for _, kw := range []string{"$defs", "definitions"} {
		if d := root.Node().Get(kw); d.IsObject() {
			return kw, d
		}
	}
	return "", nil
}

// inferMethods reads the method table from the schema's conventions: MCP's
// (Client*/Server* request and notification unions of *Request /
// *Notification defs with a method const) and ACP's (x-method / x-side on
// defs, meta.json beside the schema).
func (l *loader) inferMethods(root loc) conventions {
	var c conventions
	c.methods = append(c.methods, l.inferACP(root, &c)...)
	if len(c.methods) == 0 {
		c.methods = l.inferMCP(root)
	}
	sort.Slice(c.methods, func(i, j int) bool { return c.methods[i].name < c.methods[j].name })
	return c
}

// constMethod returns the string const of a def's "method" member.
func (l *loader) constMethod(at loc, n *node) string {
	p := n.Get("properties").Get("method")
	if p == nil {
		return ""
	}
	_, p = l.deref(at.Child("properties", "method"), p)
	if c := p.Get("const"); c != nil && c.Kind() == schemadoc.String {
		return c.Str()
	}
	if e := p.Get("enum"); e != nil && e.Kind() == schemadoc.Array && len(e.Items()) == 1 && e.Items()[0].Kind() == schemadoc.String {
		return e.Items()[0].Str()
	}
	return ""
}

func requiredHas(n *node, member string) bool {
	for _, r := range n.Get("required").Items() {
		if r.Str() == member {
			return true
		}
	}
	return false
}

// memberLoc is where a def's member schema is: the $ref target when the
// member is a plain $ref, else the inline member itself.
func (l *loader) memberLoc(def loc, n *node, member string) (loc, bool) {
	m := n.Get("properties").Get(member)
	if m == nil {
		return loc{}, false
	}
	at := def.Child("properties", member)
	if m.StrOf("$ref") != "" && m.Len() == 1 {
		if t, tn := l.deref(at, m); tn != nil {
			return t, true
		}
	}
	return at, true
}

// The MCP unions saying who sends a request or notification.
var mcpSides = []struct {
	union string
	dir   Direction
	kind  MethodKind
}{
	{"ClientRequest", ClientToServer, Request},
	{"ServerRequest", ServerToClient, Request},
	{"ClientNotification", ClientToServer, Notification},
	{"ServerNotification", ServerToClient, Notification},
}

// inferMCP reads MCP's convention (both published revisions use it).
func (l *loader) inferMCP(root loc) []*inferred {
	kw, defs := rootDefs(root)
	if defs == nil {
		return nil
	}
	defAt := func(name string) loc { return root.Child(kw, name) }
	type member struct {
		kind    MethodKind
		dirs    map[Direction]bool
		unions  []string
		problem bool
	}
	members := map[string]*member{}
	var order []string
	sides := map[string]bool{}
	for _, s := range mcpSides {
		u := defs.Get(s.union)
		if u == nil {
			continue
		}
		sides[s.union] = true
		uat := defAt(s.union)
		var names []string
		for _, ukw := range []string{"anyOf", "oneOf"} {
			for i, b := range u.Get(ukw).Items() {
				t, tn := l.deref(uat.Child(ukw, i), b)
				if tn == nil || !isDefLoc(t) || t.Doc != root.Doc {
					continue
				}
				names = append(names, defName(t))
			}
		}
		if len(names) == 0 && l.constMethod(uat, u) != "" {
			// Not a union but one message (MCP 2026-07-28's ClientNotification
			// is an inline copy of CancelledNotification): the def of its
			// method that is not a side union stands for it.
			name := l.constMethod(uat, u)
			twin := s.union
			for _, k := range defs.Keys() {
				if k != s.union && !isSideUnion(k) && l.constMethod(defAt(k), defs.Get(k)) == name {
					twin = k
					break
				}
			}
			names = []string{twin}
		}
		for _, d := range names {
			m := members[d]
			if m == nil {
				m = &member{kind: s.kind, dirs: map[Direction]bool{}}
				members[d] = m
				order = append(order, d)
			}
			if m.kind != s.kind && !m.problem {
				m.problem = true
				l.problem(uat, fmt.Sprintf("%s is a member of both a request union and a notification union", d), "add an x-methods entry for its method saying its kind")
			}
			m.dirs[s.dir] = true
			m.unions = append(m.unions, s.union)
		}
	}
	if len(sides) == 0 {
		return nil
	}
	var out []*inferred
	seen := map[string]string{}
	for _, d := range order {
		m := members[d]
		at := defAt(d)
		n := defs.Get(d)
		name := l.constMethod(at, n)
		if name == "" || m.problem {
			continue
		}
		if prev, ok := seen[name]; ok {
			l.problem(at, fmt.Sprintf("method %q is declared by two defs, %s and %s", name, prev, d), "add an x-methods entry for it naming the params and result")
			continue
		}
		seen[name] = d
		dir := ClientToServer
		switch {
		case m.dirs[ClientToServer] && m.dirs[ServerToClient]:
			dir = Both
		case m.dirs[ServerToClient]:
			dir = ServerToClient
		}
		e := &inferred{name: name, kind: m.kind, dir: dir, at: at,
			source: fmt.Sprintf("%s (member of %s)", l.pointerOf(at), strings.Join(m.unions, ", "))}
		if p, ok := l.memberLoc(at, n, "params"); ok {
			e.params = p
			e.paramsOptional = !requiredHas(n, "params")
		} else {
			e.noParams, e.paramsOptional = true, true
		}
		if m.kind == Request {
			l.mcpResult(root, kw, defs, d, e)
		}
		out = append(out, e)
	}
	// Requests with a method const in no side union and without a JSON-RPC
	// envelope are input requests (MCP 2026-07-28's InputRequest members).
	for _, d := range defs.Keys() {
		if members[d] != nil || sides[d] || !strings.HasSuffix(d, "Request") {
			continue
		}
		at := defAt(d)
		n := defs.Get(d)
		name := l.constMethod(at, n)
		if name == "" || n.Get("properties").Get("jsonrpc") != nil {
			continue
		}
		e := &inferred{name: name, kind: Request, dir: ServerToClient, at: at, input: true,
			source: l.pointerOf(at) + " (a request with a method const outside the side unions and without a JSON-RPC envelope: an input request)"}
		if p, ok := l.memberLoc(at, n, "params"); ok {
			e.params, e.paramsOptional = p, !requiredHas(n, "params")
		} else {
			e.noParams, e.paramsOptional = true, true
		}
		l.mcpResult(root, kw, defs, d, e)
		out = append(out, e)
	}
	return out
}

func isSideUnion(name string) bool {
	for _, s := range mcpSides {
		if s.union == name {
			return true
		}
	}
	return false
}

// mcpResult finds a request's result: <Base>ResultResponse's result
// member, else the <Base>Result def, else EmptyResult (the schema does not
// state it: the source says so); CreateTaskResult is an alternative when
// the params declare a task member (task-augmented requests).
func (l *loader) mcpResult(root loc, kw string, defs *node, d string, e *inferred) {
	base := strings.TrimSuffix(d, "Request")
	switch {
	case defs.Get(base+"ResultResponse") != nil:
		rat := root.Child(kw, base+"ResultResponse")
		r, ok := l.memberLoc(rat, defs.Get(base+"ResultResponse"), "result")
		if !ok {
			e.missing = fmt.Sprintf("method %q: %sResultResponse has no result member", e.name, base)
			e.missingFix = "add an x-methods entry for it (overlay) naming its result type"
			return
		}
		e.result = r
		e.source += "; result from " + l.pointerOf(rat)
	case defs.Get(base+"Result") != nil:
		e.result = root.Child(kw, base+"Result")
		e.source += fmt.Sprintf("; result by name %s → %sResult", d, base)
	case defs.Get("EmptyResult") != nil:
		e.result = root.Child(kw, "EmptyResult")
		e.source += fmt.Sprintf("; no %sResult def, so EmptyResult (not stated by the schema; an overlay entry overrides it)", base)
	default:
		e.missing = fmt.Sprintf("method %q: no %sResult, %sResultResponse or EmptyResult def says its result", e.name, base, base)
		e.missingFix = "add an x-methods entry for it (overlay) naming its result type"
		return
	}
	if e.params.Doc != nil && defs.Get("CreateTaskResult") != nil {
		if _, pn := l.deref(e.params, e.params.Node()); pn.Get("properties").Get("task") != nil {
			e.alts = append(e.alts, root.Child(kw, "CreateTaskResult"))
			e.source += "; CreateTaskResult when params.task is present (a task-augmented request)"
		}
	}
}

// inferACP reads ACP's convention: defs carrying x-method (the method
// name) and x-side (the side that handles it), and meta.json beside the
// schema (agentMethods: methods the agent handles, so the client sends
// them; clientMethods: the reverse). A def whose name ends in "Response"
// is the result, the other the params; a method with no *Response def is
// a notification.
func (l *loader) inferACP(root loc, c *conventions) []*inferred {
	kw, defs := rootDefs(root)
	handled := map[string]string{} // method → "agent" | "client"
	handledAt := map[string]loc{}
	meta, err := l.set.Sidecar("meta.json")
	if err != nil {
		l.problem(root, err.Error(), "")
	}
	if meta != nil && meta.Root.IsObject() {
		for _, k := range []struct{ key, side string }{{"agentMethods", "agent"}, {"clientMethods", "client"}} {
			tbl := meta.Root.Member(k.key)
			if tbl == nil {
				continue
			}
			tat := loc{Doc: meta, Ptr: "/" + k.key}
			if !tbl.IsObject() {
				l.problem(tat, k.key+" must be an object: identifier → method name", "")
				continue
			}
			for _, id := range tbl.Keys() {
				v := tbl.Member(id)
				if v.Kind() != schemadoc.String || v.Str() == "" {
					l.problem(tat.Child(id), "a method name must be a non-empty string", "")
					continue
				}
				if prev, ok := handled[v.Str()]; ok && prev != k.side {
					l.problem(tat.Child(id), fmt.Sprintf("method %q is listed for both sides", v.Str()), "list it under agentMethods or clientMethods, not both")
					continue
				}
				handled[v.Str()], handledAt[v.Str()] = k.side, tat.Child(id)
			}
		}
	}
	groups := map[string][]string{}
	var names []string
	if defs != nil {
		for _, d := range defs.Keys() {
			n := defs.Get(d)
			xm := n.Get(kwMethod.Name)
			if xm == nil {
				continue
			}
			at := root.Child(kw, d)
			if xm.Str() == "" {
				l.problem(at.Child(kwMethod.Name), "x-method must be a non-empty string (a method name)", "")
				continue
			}
			name := xm.Str()
			side := n.StrOf(kwSide.Name)
			if side != "" && side != "agent" && side != "client" {
				l.problem(at.Child(kwSide.Name), fmt.Sprintf("x-side must be \"agent\" or \"client\" (the side that handles the method), not %q", side), "")
				continue
			}
			if h, ok := handled[name]; ok && side != "" && side != h {
				l.problem(at.Child(kwSide.Name), fmt.Sprintf("x-side %q disagrees with meta.json, which lists %q for the %s", side, name, h), "make x-side and meta.json agree (an overlay can set x-side)")
				continue
			}
			if _, ok := handled[name]; !ok {
				if side == "" {
					l.problem(at.Child(kwMethod.Name), fmt.Sprintf("method %q: neither x-side nor meta.json says which side handles it", name), "add \"x-side\" (overlay) or list it in meta.json")
					continue
				}
				handled[name], handledAt[name] = side, at.Child(kwSide.Name)
			}
			if groups[name] == nil {
				names = append(names, name)
			}
			groups[name] = append(groups[name], d)
		}
	}
	if len(handled) == 0 {
		return nil
	}
	var out []*inferred
	for _, name := range names {
		ds := groups[name]
		var params, results []string
		for _, d := range ds {
			if strings.HasSuffix(d, "Response") {
				results = append(results, d)
			} else {
				params = append(params, d)
			}
		}
		at := root.Child(kw, ds[0])
		if len(params) != 1 || len(results) > 1 {
			l.problem(at.Child(kwMethod.Name), fmt.Sprintf("method %q: cannot tell its params from its result among %s (one def, and at most one *Response def)", name, strings.Join(ds, ", ")), "add an x-methods entry for it naming the params and result")
			continue
		}
		dir, list := ClientToServer, "agentMethods"
		if handled[name] == "client" {
			dir, list = ServerToClient, "clientMethods"
		}
		src := kwSide.Name
		if handledAt[name].Doc != root.Doc {
			src = "meta.json " + list
		}
		pat := root.Child(kw, params[0])
		e := &inferred{name: name, kind: Notification, dir: dir, params: pat, at: pat, published: true,
			source: fmt.Sprintf("%s + x-method on %s", src, strings.Join(ds, ", "))}
		e.paramsOptional = defs.Get(params[0]).Get("required").Len() == 0
		if len(results) == 1 {
			e.kind, e.result = Request, root.Child(kw, results[0])
		}
		out = append(out, e)
	}
	for name := range handled {
		if groups[name] == nil {
			at := handledAt[name]
			out = append(out, &inferred{name: name, at: at, published: true, source: "meta.json",
				missing:    fmt.Sprintf("method %q is in meta.json but no def carries x-method %q", name, name),
				missingFix: "add x-method to its params def (overlay), or an x-methods entry for it"})
		}
	}
	// ACP reserves method names starting with "_" for extensions; its
	// request and notification unions end in an empty-schema branch for them.
	c.extPrefix = "_"
	return out
}

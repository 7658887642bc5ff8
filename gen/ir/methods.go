package ir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/dshgen/dshgen/gen/schemadoc"
)

// MethodEntry is the shape of one x-methods entry. Its JSON Schema (reflected
// from this struct, closed: an unknown key is an error) validates the table.
type MethodEntry struct {
	Kind           string     `json:"kind" jsonschema:"required,enum=request,enum=notification" jsonschema_description:"JSON-RPC 2.0 frame kind the method is sent as."`
	Direction      string     `json:"direction" jsonschema:"required,enum=client-to-server,enum=server-to-client,enum=both" jsonschema_description:"Which side sends the request or notification (both: either side)."`
	Params         *SchemaRef `json:"params" jsonschema:"required" jsonschema_description:"The params type."`
	ParamsOptional bool       `json:"paramsOptional,omitempty" jsonschema_description:"The params member may be absent."`
	Result         *SchemaRef `json:"result,omitempty" jsonschema_description:"Requests only: the result type of a success response."`
	// ResultAlternatives are further result types the validator accepts.
	ResultAlternatives []SchemaRef `json:"resultAlternatives,omitempty" jsonschema_description:"Requests only: further result types a success response may carry instead of result (the validator accepts any; bindings type the result as the union of result and these)."`
	Description        string      `json:"description,omitempty" jsonschema_description:"Documentation for the method."`
	XName              string      `json:"x-name,omitempty" jsonschema_description:"Naming override for the method's identifiers."`
}

// SchemaRef is {"$ref": "..."} naming a type.
type SchemaRef struct {
	Ref string `json:"$ref" jsonschema:"required,minLength=1"`
}

var (
	methodEntrySchemaOnce sync.Once
	methodEntrySchema     *jsonschema.Schema
	methodEntrySchemaJSON []byte
)

// MethodEntrySchema returns the JSON Schema of an x-methods entry, reflected
// from MethodEntry.
func MethodEntrySchema() []byte {
	compiledMethodEntrySchema()
	return methodEntrySchemaJSON
}

func compiledMethodEntrySchema() *jsonschema.Schema {
	methodEntrySchemaOnce.Do(func() {
		r := &invopop.Reflector{DoNotReference: true, ExpandedStruct: true}
		s := r.Reflect(&MethodEntry{})
		raw, err := json.Marshal(s)
		if err != nil {
			panic(err)
		}
		methodEntrySchemaJSON = raw
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource("mem:///x-methods-entry.json", bytes.NewReader(raw)); err != nil {
			panic(err)
		}
		methodEntrySchema = c.MustCompile("mem:///x-methods-entry.json")
	})
	return methodEntrySchema
}

// methods builds the method table: the x-methods table of the root
// (strictly validated), over the table inferred from the schema's own
// conventions (methods_infer.go, METHODS.md). An x-methods entry replaces
// the inferred entry of its method; one that contradicts a table the
// protocol publishes itself (ACP meta.json + x-method) is a problem.
func (l *loader) methods(root loc, m *Model) []*Method {
	conv := l.inferMethods(root)
	if p := root.Node().Get(kwExtensionPrefix.Name); p != nil {
		conv.extPrefix = p.Str()
	}
	m.ExtensionPrefix = conv.extPrefix
	byName := map[string]*inferred{}
	for _, e := range conv.methods {
		byName[e.name] = e
	}
	explicit := l.explicitMethods(root, byName)
	var out []*Method
	for _, e := range conv.methods {
		if explicit[e.name] != nil {
			continue
		}
		if e.missing != "" {
			l.problem(e.at, e.missing, e.missingFix)
			continue
		}
		me := l.inferredMethod(e)
		if me == nil {
			continue
		}
		if e.input {
			m.InputRequests = append(m.InputRequests, me)
		} else {
			out = append(out, me)
		}
	}
	for _, me := range explicit {
		out = append(out, me)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// inferredMethod builds the Method of an inferred entry.
func (l *loader) inferredMethod(e *inferred) *Method {
	me := &Method{Name: e.name, Kind: e.kind, Direction: e.dir, ParamsOptional: e.paramsOptional,
		Pointer: l.pointerOf(e.at), Source: e.source, nameBase: e.name, at: e.at}
	me.Names = Names{goPascal(e.name), upperSnake(e.name), pascal(e.name)}
	if me.Names[LangGo] == "" {
		l.problem(e.at, fmt.Sprintf("method name %q has no letter or digit to name its constants after", e.name), "add an x-methods entry for it with \"x-name\" (overlay)")
		return nil
	}
	if e.noParams {
		me.Params, me.ParamsUndeclared = l.undeclaredParams(e.at), true
	} else {
		me.Params = l.inferredType(e.params, me.Names[LangGo]+"Params")
	}
	if e.kind == Request {
		me.Result = l.inferredType(e.result, me.Names[LangGo]+"Result")
		for _, a := range e.alts {
			me.ResultAlternatives = append(me.ResultAlternatives, l.inferredType(a, ""))
		}
	}
	return me
}

// resultUnions gives every request with result alternatives its
// ResultUnion: an anyOf of Result and the alternatives, in that order,
// decided by the rules of every union (l.union: tagged when a required
// const member tells them apart, else by JSON type, by shape, or ordered
// tries), named Result + "Or" + each alternative. The types are kept apart
// from l.types (they are no schema location) and listed in Model.Decls by
// finish.
func (l *loader) resultUnions(ms []*Method) {
	for _, m := range ms {
		if m.Result == nil || len(m.ResultAlternatives) == 0 {
			continue
		}
		name := m.Result.Name
		var bs []branch
		ok := true
		for i, t := range append([]*Type{m.Result}, m.ResultAlternatives...) {
			if t == nil {
				ok = false
				break
			}
			at, found := l.typeLocs[t]
			if !found {
				ok = false
				break
			}
			if i > 0 {
				name += "Or" + t.Name
			}
			bs = append(bs, branch{at: at, n: at.Node(), index: i})
		}
		if !ok {
			continue
		}
		u := &Type{Name: name, Pointer: m.Pointer, Kind: KindUnion,
			Description: fmt.Sprintf("The result of %s: %s, or what the method may answer instead (%s).", m.Name, m.Result.Name, strings.TrimPrefix(name, m.Result.Name+"Or"))}
		u.Names = typeNames(name, overrides{})
		l.typeLocs[u] = m.at
		l.union(u, m.at, nil, "anyOf", bs)
		m.ResultUnion = u
		l.results = append(l.results, u)
	}
}

// undeclaredParams is the params type of a method whose def declares no
// params member: an object with no members, named like an inline member
// (the def's name + "Params": PingRequest → PingRequestParams), closed when
// the def is (additionalProperties: false: no params at all), else open
// (any members kept). Like a result union it is in Model.Decls, not in
// Model.Types: it is no schema location.
func (l *loader) undeclaredParams(def loc) *Type {
	n := def.Node()
	owner := defName(def)
	if t, ok := l.types[def.Key()]; ok {
		owner = t.Name
	}
	name := owner + "Params"
	t := &Type{Name: name, Pointer: l.pointerOf(def) + "/properties/params", Kind: KindObject,
		Closed:      n.Get("additionalProperties") != nil && n.Get("additionalProperties").Kind() == schemadoc.Bool && !n.Get("additionalProperties").Bool(),
		Description: fmt.Sprintf("The params of %s, which declares no params member: the member may be absent (JSON-RPC 2.0).", owner)}
	t.Names = typeNames(name, overrides{})
	l.typeLocs[t] = def
	l.results = append(l.results, t)
	return t
}

// inferredType is the type at an inferred params/result location: the
// named type there, or the anonymous type its def built for it.
func (l *loader) inferredType(at loc, hint string) *Type {
	n := at.Node()
	if t, ok := l.types[at.Key()]; ok {
		return t
	}
	if isNamed(at, n) {
		return l.typeAt(at)
	}
	r := l.use(at, n, hint)
	if r.Kind == RefNamed {
		return r.Named
	}
	return l.newType(at, n, hint)
}

// explicitMethods reads and strictly validates the x-methods table of the
// root, checking each entry against the published table's entry of the
// same method (conv).
func (l *loader) explicitMethods(root loc, conv map[string]*inferred) map[string]*Method {
	tbl := root.Node().Get(kwMethods.Name)
	if tbl == nil {
		return nil
	}
	at := root.Child(kwMethods.Name)
	if tbl.Kind() != schemadoc.Object {
		l.problem(at, "x-methods must be an object: method name → entry", "")
		return nil
	}
	sch := compiledMethodEntrySchema()
	out := map[string]*Method{}
	for _, name := range tbl.Keys() {
		e := tbl.Get(name)
		eat := at.Child(name)
		if err := sch.Validate(e.Value()); err != nil {
			for _, leaf := range leaves(err) {
				ptr := eat.Ptr + leaf.InstanceLocation
				l.problem(loc{Doc: eat.Doc, Ptr: ptr}, "bad x-methods entry: "+leaf.Message, "")
			}
			continue
		}
		if strings.TrimSpace(name) == "" {
			l.problem(eat, "method name is empty", "")
			continue
		}
		m := &Method{
			Name:           name,
			Kind:           MethodKind(e.StrOf("kind")),
			Direction:      Direction(e.StrOf("direction")),
			Description:    e.StrOf("description"),
			ParamsOptional: e.Get("paramsOptional") != nil && e.Get("paramsOptional").Bool(),
			Pointer:        l.pointerOf(eat),
			Source:         l.pointerOf(eat),
			at:             eat,
		}
		base := name
		if x := e.StrOf(kwName.Name); x != "" {
			base = x
		}
		m.nameBase = base
		m.Names = Names{goPascal(base), upperSnake(base), pascal(base)}
		if m.Names[LangGo] == "" {
			l.problem(eat, fmt.Sprintf("method name %q has no letter or digit to name its constants after", name), "add \"x-name\" to the entry")
		}
		m.Params = l.methodType(eat.Child("params"), e.Get("params"))
		if r := e.Get("result"); r != nil {
			if m.Kind != Request {
				l.problem(eat.Child("result"), "a notification has no result", "remove result or make the method a request")
			} else {
				m.Result = l.methodType(eat.Child("result"), r)
			}
		} else if m.Kind == Request {
			l.problem(eat, "a request needs a result type", "add \"result\": {\"$ref\": ...}")
		}
		for i, a := range e.Get("resultAlternatives").Items() {
			m.ResultAlternatives = append(m.ResultAlternatives, l.methodType(eat.Child("resultAlternatives", i), a))
		}
		if p := conv[name]; p != nil && p.published && p.missing == "" {
			l.checkPublished(eat, e, m, p)
		}
		out[name] = m
	}
	return out
}

// checkPublished reports an x-methods entry that contradicts the table the
// protocol publishes (ACP's meta.json + x-method): a different kind,
// direction, params or result type.
func (l *loader) checkPublished(eat loc, e *node, m *Method, p *inferred) {
	say := func(ptr loc, what, given, published, fix string) {
		l.problem(ptr, fmt.Sprintf("method %q: this entry says %s %s, but the protocol's own table (%s) says %s", m.Name, what, given, p.source, published), fix)
	}
	fix := "remove this x-methods entry (the schema's own metadata already types the method), or make it agree"
	if m.Kind != p.kind {
		say(eat.Child("kind"), "kind", string(m.Kind), string(p.kind), fix)
	}
	if m.Direction != p.dir {
		say(eat.Child("direction"), "direction", string(m.Direction), string(p.dir), fix)
	}
	same := func(child string, got *Type, want loc) {
		if got == nil || want.Doc == nil {
			return
		}
		if got.Pointer != l.pointerOf(want) {
			say(eat.Child(child, "$ref"), child, got.Pointer, l.pointerOf(want), fmt.Sprintf("remove this x-methods entry, or set \"%s\": {\"$ref\": \"%s\"}", child, l.pointerOf(want)))
		}
	}
	same("params", m.Params, p.params)
	if m.Kind == Request && p.kind == Request {
		same("result", m.Result, p.result)
	}
}

// methodType resolves a params/result {"$ref"} to a named type.
func (l *loader) methodType(at loc, n *node) *Type {
	ref := n.StrOf("$ref")
	target, err := l.refTarget(at.Doc, ref)
	if err != nil {
		l.problem(at.Child("$ref"), err.Error(), schemadoc.Hint(err))
		return nil
	}
	tn := target.Node()
	if tn == nil {
		l.problem(at.Child("$ref"), fmt.Sprintf("$ref %q does not resolve", ref), "")
		return nil
	}
	if !isNamed(target, tn) {
		l.problem(at.Child("$ref"), fmt.Sprintf("$ref %q must name a $defs entry", ref), "")
		return nil
	}
	return l.typeAt(target)
}

// leaves returns the leaf causes of a validation error.
func leaves(err error) []*jsonschema.ValidationError {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil
	}
	var out []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// The method maps' names in Go and Python (fixed); TypeScript's come from
// the schema (see methodMaps).
const (
	goRequestMap, goNotificationMap = "Requests", "Notifications"
	pyRequestMap, pyNotificationMap = "REQUESTS", "NOTIFICATIONS"
)

// Top-level schema annotations naming the TypeScript method maps (read by
// the loader into Model.TSRequestMap and TSNotificationMap).
var (
	tsRequestMapKey      = kwTSRequestMap.Name
	tsNotificationMapKey = kwTSNotificationMap.Name
)

// methodMap is one TypeScript method map name and where it comes from.
type methodMap struct {
	name    string
	source  string // the annotation's pointer, or what the name is derived from
	pointer string // JSON pointer fragment for problems
}

var tsIdentRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// methodMaps names the request and notification maps: Go Requests and
// Notifications, Python REQUESTS and NOTIFICATIONS, TypeScript the top-level
// annotations x-ts-request-map / x-ts-notification-map when the schema has
// them (the shipped schema names the upstream HarnessSdkRequestMap and
// HarnessSdkNotificationMap), else <Base>RequestMap / <Base>NotificationMap
// where Base is the schema title in PascalCase with a trailing "Protocol"
// word removed ("Acme Widget Protocol" → AcmeWidgetRequestMap).
func (l *loader) methodMaps(m *Model) []methodMap {
	pick := func(key, given, suffix string) methodMap {
		if given != "" {
			at := loc{Doc: l.set.Root(), Ptr: "/" + key}
			if !tsIdentRe.MatchString(given) {
				l.problem(at, fmt.Sprintf("%q must be a TypeScript identifier (the name of a method map), got %q", key, given), "")
				return methodMap{}
			}
			return methodMap{given, "#/" + key, at.Ptr}
		}
		return methodMap{tsTitleBase(m.Title) + suffix, "the TypeScript " + strings.TrimSuffix(strings.ToLower(suffix), "map") + " map (named from the title; set \"" + key + "\" to name it)", ""}
	}
	req := pick(tsRequestMapKey, m.TSRequestMap, "RequestMap")
	note := pick(tsNotificationMapKey, m.TSNotificationMap, "NotificationMap")
	if req.name != "" && req.name == note.name {
		l.problem(loc{Doc: l.set.Root(), Ptr: note.pointer}, fmt.Sprintf("the request map and the notification map are both named %q", req.name), "set \""+tsRequestMapKey+"\" and \""+tsNotificationMapKey+"\" to two names")
	}
	m.RequestMap = Names{goRequestMap, pyRequestMap, req.name}
	m.NotificationMap = Names{goNotificationMap, pyNotificationMap, note.name}
	return []methodMap{req, note}
}

// tsTitleBase turns a schema title into the identifier base of the
// TypeScript maps: its words of letters and digits, each with its first
// letter upper-cased, without a trailing "Protocol".
func tsTitleBase(title string) string {
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

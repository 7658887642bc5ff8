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
	Direction      string     `json:"direction" jsonschema:"required,enum=client-to-server,enum=server-to-client" jsonschema_description:"Which side sends the request or notification."`
	Params         *SchemaRef `json:"params" jsonschema:"required" jsonschema_description:"The params type."`
	ParamsOptional bool       `json:"paramsOptional,omitempty" jsonschema_description:"The params member may be absent."`
	Result         *SchemaRef `json:"result,omitempty" jsonschema_description:"Requests only: the result type of a success response."`
	Description    string     `json:"description,omitempty" jsonschema_description:"Documentation for the method."`
	XName          string     `json:"x-name,omitempty" jsonschema_description:"Naming override for the method's identifiers."`
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

// methods reads and strictly validates the x-methods table of the root.
func (l *loader) methods(root loc) []*Method {
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
	var out []*Method
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
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
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

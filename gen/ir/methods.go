package ir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/dshgen/dshgen/gen/schemadoc"
	"sort"
	"strings"
	"sync"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v5"
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

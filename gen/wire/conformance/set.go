package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// Frame is one vector line: the side that sends it and its exact text.
type Frame struct {
	Dir  ir.Direction `json:"dir"`
	Line string       `json:"line"`
	// About says what the frame covers (valid vectors only; not on the wire).
	About string `json:"-"`
}

// Invalid is one invalid vector: frames of which the last breaks exactly
// one rule; the validator must report Rule (an error) on that frame.
type Invalid struct {
	Rule   string  `json:"rule"`
	About  string  `json:"about"`
	Frames []Frame `json:"frames"`
}

// Set is the whole generated vector set of one model.
type Set struct {
	Valid   []Frame
	Invalid []Invalid
}

// Generate builds the vector set of m.
func Generate(m *ir.Model) (*Set, error) {
	b := &builder{g: newGenerator(m), m: m, compiled: map[string]*jsonschema.Schema{}, seen: map[string]bool{}, undeclared: map[*ir.Type]bool{}}
	// The validator's fast check spares the library most valid values; a
	// model it cannot compile leaves every value to the library.
	if v, err := validate.New(m, validate.Options{}); err == nil {
		b.g.fast = v
	}
	for _, me := range m.Methods {
		if me.ParamsUndeclared {
			b.undeclared[me.Params] = true
		}
	}
	if err := b.valid(); err != nil {
		return nil, err
	}
	if err := b.invalid(); err != nil {
		return nil, err
	}
	return &b.set, nil
}

type builder struct {
	g        *generator
	m        *ir.Model
	compiled map[string]*jsonschema.Schema
	set      Set
	nextID   int
	seen     map[string]bool // valid lines already emitted
	// undeclared are the params types of defs without a params member
	// (ir.Method.ParamsUndeclared).
	undeclared map[*ir.Type]bool
}

// noParams reports whether me may carry no params at all: its def declares
// no params member and is closed.
func noParams(me *ir.Method) bool { return me.ParamsUndeclared && me.Params.Closed }

func (b *builder) schema(t *ir.Type) (*jsonschema.Schema, error) {
	if s, ok := b.compiled[t.Pointer]; ok {
		return s, nil
	}
	s, err := b.m.Source().Compile(t.Pointer)
	if err != nil {
		return nil, err
	}
	b.compiled[t.Pointer] = s
	return s, nil
}

func (b *builder) build(t *ir.Type, md mode) (any, error) {
	if b.undeclared[t] {
		// The params of a def without a params member: no schema to
		// build from, and an open def takes any object.
		return NewObj(), nil
	}
	s, err := b.schema(t)
	if err != nil {
		return nil, err
	}
	return b.g.build(t, s, md)
}

func opposite(d ir.Direction) ir.Direction {
	if d == ir.ClientToServer {
		return ir.ServerToClient
	}
	return ir.ClientToServer
}

// id mints the next request id: every third one an integer, the others
// strings, so both JsonRpcId forms are exercised.
func (b *builder) id() any {
	b.nextID++
	if b.nextID%3 == 0 {
		return json.Number(fmt.Sprint(b.nextID))
	}
	return fmt.Sprintf("conf-%d", b.nextID)
}

func line(o *Obj) string {
	raw, err := encode(o)
	if err != nil {
		panic(err) // generated values always encode
	}
	return string(raw)
}

func envelope(method *ir.Method, id any, params any, withParams bool) *Obj {
	o := NewObj().Set("jsonrpc", "2.0")
	if method.Kind == ir.Request {
		o.Set("id", id)
	}
	o.Set("method", method.Name)
	if withParams {
		o.Set("params", params)
	}
	return o
}

// add appends a valid exchange (a request and its response, or a
// notification) unless the same lines were already emitted.
func (b *builder) add(about string, fs ...Frame) {
	var key strings.Builder
	for _, f := range fs {
		var o map[string]any
		json.Unmarshal([]byte(f.Line), &o)
		delete(o, "id")
		k, _ := json.Marshal(o)
		key.Write(k)
	}
	if b.seen[key.String()] {
		return
	}
	b.seen[key.String()] = true
	for i := range fs {
		fs[i].About = about
	}
	b.set.Valid = append(b.set.Valid, fs...)
}

// exchange builds one valid request/response pair or notification for
// method in mode md, with the generator's current union choices.
func (b *builder) exchange(method *ir.Method, md mode, about string) error {
	params, err := b.build(method.Params, md)
	if err != nil {
		return err
	}
	withParams := !noParams(method)
	id := b.id()
	fs := []Frame{{Dir: method.Direction, Line: line(envelope(method, id, params, withParams))}}
	if method.Kind == ir.Request {
		result, err := b.build(method.Result, md)
		if err != nil {
			return err
		}
		fs = append(fs, Frame{Dir: opposite(method.Direction), Line: line(NewObj().Set("jsonrpc", "2.0").Set("id", id).Set("result", result))})
	}
	b.add(about, fs...)
	return nil
}

// routes maps each union reachable from root to the variant choices of the
// unions on the way (breadth first, so the shortest way), so that a value
// of root built with those choices contains the union.
func routes(root *ir.Type) map[*ir.Type]map[*ir.Type]int {
	out := map[*ir.Type]map[*ir.Type]int{}
	type item struct {
		t     *ir.Type
		route map[*ir.Type]int
	}
	seen := map[*ir.Type]bool{}
	queue := []item{{root, map[*ir.Type]int{}}}
	push := func(t *ir.Type, route map[*ir.Type]int) {
		if t != nil && !seen[t] {
			seen[t] = true
			queue = append(queue, item{t, route})
		}
	}
	var refs func(r *ir.TypeRef, route map[*ir.Type]int)
	refs = func(r *ir.TypeRef, route map[*ir.Type]int) {
		switch r.Kind {
		case ir.RefNamed:
			push(r.Named, route)
		case ir.RefArray, ir.RefMap:
			refs(r.Elem, route)
		}
	}
	seen[root] = true
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		switch it.t.Kind {
		case ir.KindObject:
			for _, f := range it.t.Fields {
				refs(&f.Type, it.route)
			}
			if it.t.Extra != nil {
				refs(it.t.Extra, it.route)
			}
		case ir.KindAlias:
			refs(it.t.Alias, it.route)
		case ir.KindUnion:
			out[it.t] = it.route
			for i, v := range it.t.Union.Variants {
				r := make(map[*ir.Type]int, len(it.route)+1)
				for k, x := range it.route {
					r[k] = x
				}
				r[it.t] = i
				push(v.Type, r)
			}
		}
	}
	return out
}

// unionsReached lists the unions reachable from t, sorted by name.
func unionsReached(t *ir.Type) []*ir.Type {
	seen := map[*ir.Type]bool{}
	var out []*ir.Type
	var visitRef func(r *ir.TypeRef)
	var visit func(t *ir.Type)
	visitRef = func(r *ir.TypeRef) {
		switch r.Kind {
		case ir.RefNamed:
			visit(r.Named)
		case ir.RefArray, ir.RefMap:
			visitRef(r.Elem)
		}
	}
	visit = func(t *ir.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind {
		case ir.KindObject:
			for _, f := range t.Fields {
				visitRef(&f.Type)
			}
			if t.Extra != nil {
				visitRef(t.Extra)
			}
		case ir.KindAlias:
			visitRef(t.Alias)
		case ir.KindUnion:
			out = append(out, t)
			for _, v := range t.Union.Variants {
				visit(v.Type)
			}
			if t.Union.Unknown != nil && t.Union.Unknown.Fallback != nil {
				visit(t.Union.Unknown.Fallback)
			}
		}
	}
	visit(t)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// valid builds the valid vectors: per method a minimal and a maximal
// exchange (and one without params where they are optional), then for every
// union reachable from each method's params or result one exchange per
// variant and mode, and for open tagged unions one with an unknown tag.
func (b *builder) valid() error {
	methods := append([]*ir.Method(nil), b.m.Methods...)
	// initialize first, so a validator's handshake rule holds for the rest.
	sort.SliceStable(methods, func(i, j int) bool { return methods[i].Name == "initialize" && methods[j].Name != "initialize" })
	for _, me := range methods {
		for _, md := range []mode{minimal, maximal} {
			if err := b.exchange(me, md, fmt.Sprintf("%s %s", me.Name, modeName(md))); err != nil {
				return err
			}
		}
		if me.ParamsOptional {
			id := b.id()
			fs := []Frame{{Dir: me.Direction, Line: line(envelope(me, id, nil, false))}}
			if me.Kind == ir.Request {
				result, err := b.build(me.Result, minimal)
				if err != nil {
					return err
				}
				fs = append(fs, Frame{Dir: opposite(me.Direction), Line: line(NewObj().Set("jsonrpc", "2.0").Set("id", id).Set("result", result))})
			}
			b.add(me.Name+" without params", fs...)
		}
	}
	for _, me := range methods {
		covered := map[*ir.Type]bool{}
		var roots []*ir.Type
		if !me.ParamsUndeclared {
			roots = append(roots, me.Params)
		}
		if me.Result != nil {
			roots = append(roots, me.Result)
		}
		for _, root := range roots {
			b.g.nonEmpty = true
			way := routes(root)
			for _, u := range unionsReached(root) {
				if covered[u] {
					continue
				}
				covered[u] = true
				b.g.choose = map[*ir.Type]int{}
				for k, x := range way[u] {
					b.g.choose[k] = x
				}
				for i, v := range u.Union.Variants {
					b.g.choose[u] = i
					for _, md := range []mode{minimal, maximal} {
						if err := b.exchange(me, md, fmt.Sprintf("%s variant %s=%s %s", u.Name, u.Union.Tag, v.TagValue, modeName(md))); err != nil {
							return err
						}
					}
				}
				if u.Union.By == ir.ByTag && u.Union.Open {
					b.g.choose[u] = -1
					if err := b.exchange(me, minimal, fmt.Sprintf("%s unknown %s (open union: kept)", u.Name, u.Union.Tag)); err != nil {
						return err
					}
				}
				b.g.choose = map[*ir.Type]int{}
			}
			b.g.nonEmpty = false
		}
	}
	return nil
}

func modeName(md mode) string {
	if md == minimal {
		return "minimal"
	}
	return "maximal"
}

// invalid builds the invalid vectors, each breaking one rule.
func (b *builder) invalid() error {
	var req, note *ir.Method
	for _, me := range b.m.Methods {
		if noParams(me) {
			continue
		}
		if me.Kind == ir.Request && req == nil && me.Name != "initialize" {
			req = me
		}
		if me.Kind == ir.Notification && note == nil {
			note = me
		}
	}
	if req == nil {
		for _, me := range b.m.Methods {
			if me.Kind == ir.Request {
				req = me
				break
			}
		}
	}
	var pre []Frame // the handshake, when the protocol has one
	if init := b.m.Method("initialize"); init != nil {
		p, err := b.build(init.Params, minimal)
		if err != nil {
			return err
		}
		r, err := b.build(init.Result, minimal)
		if err != nil {
			return err
		}
		id := b.id()
		pre = []Frame{{Dir: init.Direction, Line: line(envelope(init, id, p, true))},
			{Dir: opposite(init.Direction), Line: line(NewObj().Set("jsonrpc", "2.0").Set("id", id).Set("result", r))}}
	}
	add := func(rule, about string, fs ...Frame) {
		b.set.Invalid = append(b.set.Invalid, Invalid{Rule: rule, About: about, Frames: append(append([]Frame(nil), pre...), fs...)})
	}
	raw := func(dir ir.Direction, s string) Frame { return Frame{Dir: dir, Line: s} }

	// Framing and envelope.
	add("frame.json", "a line that is not JSON", raw(ir.ClientToServer, `{"jsonrpc":"2.0","id":`))
	add("frame.not-object", "a JSON value that is not an object", raw(ir.ClientToServer, `42`))
	add("envelope.kind", "an object that is neither request, response nor notification", raw(ir.ClientToServer, `{"jsonrpc":"2.0"}`))
	if req != nil {
		p, err := b.build(req.Params, minimal)
		if err != nil {
			return err
		}
		r, err := b.build(req.Result, minimal)
		if err != nil {
			return err
		}
		good := func(id any) *Obj {
			return NewObj().Set("jsonrpc", "2.0").Set("id", id).Set("method", req.Name).Set("params", p)
		}
		add("envelope.jsonrpc", `"jsonrpc" is not "2.0"`, raw(req.Direction, line(good(b.id()).Set("jsonrpc", "1.0"))))
		add("envelope.id", "a fractional request id", raw(req.Direction, line(good(json.Number("1.5")))))
		add("method.unknown", "a method the schema does not have", raw(req.Direction, line(good(b.id()).Set("method", "x-conformance/no-such-method"))))
		add("method.direction", "a request sent by the wrong side", raw(opposite(req.Direction), line(good(b.id()))))
		id := b.id()
		add("envelope.response", "a response with neither result nor error", raw(req.Direction, line(good(id))),
			raw(opposite(req.Direction), line(NewObj().Set("jsonrpc", "2.0").Set("id", id))))
		add("response.unknown-id", "a response to an id nobody sent", raw(opposite(req.Direction), line(NewObj().Set("jsonrpc", "2.0").Set("id", "x-conformance-never-sent").Set("result", r))))
		id = b.id()
		add("response.duplicate", "a second response to one request", raw(req.Direction, line(good(id))),
			raw(opposite(req.Direction), line(NewObj().Set("jsonrpc", "2.0").Set("id", id).Set("result", r))),
			raw(opposite(req.Direction), line(NewObj().Set("jsonrpc", "2.0").Set("id", id).Set("result", r))))
		id = b.id()
		add("request.duplicate-id", "a request reusing the id of one still in flight", raw(req.Direction, line(good(id))), raw(req.Direction, line(good(id))))
		// error.schema checks errors against the schema's JsonRpcError (the
		// validator's rule, validate.RuleError); a schema without one has
		// no such rule.
		if b.m.TypeByName("JsonRpcError") != nil {
			id = b.id()
			add("error.schema", "an error response whose code is not an integer", raw(req.Direction, line(good(id))),
				raw(opposite(req.Direction), line(NewObj().Set("jsonrpc", "2.0").Set("id", id).Set("error", NewObj().Set("code", "x").Set("message", "m")))))
		}
		// result.schema: a required member of the result missing, or the result of the wrong type.
		id = b.id()
		bad := any("x-conformance: not the result type")
		if o, ok := r.(*Obj); ok && len(o.Keys) > 0 {
			c := cloneObj(o)
			c.Del(c.Keys[0])
			bad = c
		}
		add("result.schema", "a result that is not the method's result type", raw(req.Direction, line(good(id))),
			raw(opposite(req.Direction), line(NewObj().Set("jsonrpc", "2.0").Set("id", id).Set("result", bad))))
	}
	if note != nil {
		p, err := b.build(note.Params, minimal)
		if err != nil {
			return err
		}
		add("method.kind", "a notification method sent with an id (as a request)", raw(note.Direction, line(NewObj().Set("jsonrpc", "2.0").Set("id", b.id()).Set("method", note.Name).Set("params", p))))
		add("envelope.id", "a notification carrying an id member", raw(note.Direction, line(NewObj().Set("jsonrpc", "2.0").Set("method", note.Name).Set("params", p).Set("id", nil))))
	}
	// params.schema, union.missing-tag and union.unknown-tag per method.
	for _, me := range b.m.Methods {
		if me.ParamsUndeclared {
			continue
		}
		if err := b.paramMutations(me, add); err != nil {
			return err
		}
	}
	return nil
}

func cloneObj(o *Obj) *Obj {
	raw, _ := encode(o)
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	d.Decode(&v)
	return toObj(v).(*Obj)
}

// toObj converts decoded JSON back to ordered objects (member order sorted,
// which is fine for mutated copies).
func toObj(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := NewObj()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.Set(k, toObj(x[k]))
		}
		return o
	case []any:
		for i := range x {
			x[i] = toObj(x[i])
		}
		return x
	}
	return v
}

// paramMutations adds, for one method, params missing a required member,
// params with a member of the wrong JSON type, a closed object with an
// unknown member, a union value without its tag and (closed unions) with an
// unknown tag.
func (b *builder) paramMutations(me *ir.Method, add func(rule, about string, fs ...Frame)) error {
	frame := func(params any) Frame {
		return Frame{Dir: me.Direction, Line: line(envelope(me, b.id(), params, true))}
	}
	t := me.Params
	if t.Kind == ir.KindObject {
		for _, f := range t.Fields {
			if !f.Required {
				continue
			}
			v, err := b.build(t, minimal)
			if err != nil {
				return err
			}
			v.(*Obj).Del(f.Wire)
			add("params.schema", fmt.Sprintf("%s params without required member %q", me.Name, f.Wire), frame(v))
			break
		}
		for _, f := range t.Fields {
			if f.Const != nil || f.Type.Nullable || f.Type.Kind == ir.RefJSON {
				continue
			}
			v, err := b.build(t, minimal)
			if err != nil {
				return err
			}
			var wrong any = "x-conformance: wrong type"
			if f.Type.Kind == ir.RefString || (f.Type.Kind == ir.RefNamed && f.Type.Named.Kind == ir.KindEnum) {
				wrong = json.Number("7")
			}
			v.(*Obj).Set(f.Wire, wrong)
			add("params.schema", fmt.Sprintf("%s params with member %q of the wrong JSON type", me.Name, f.Wire), frame(v))
			break
		}
	}
	// A closed object with an unknown member, deepest first generated.
	v, err := b.build(t, maximal)
	if err != nil {
		return err
	}
	for _, at := range b.g.closed {
		if o, ok := lookup(v, at).(*Obj); ok {
			o.Set(extraMember, "not allowed here")
			add("params.schema", fmt.Sprintf("%s params with an unknown member in the closed object at %s", me.Name, pointerOr(at)), frame(v))
			break
		}
	}
	// Tagged unions: tag removed; tag unknown where the union is closed.
	for _, u := range unionsReached(t) {
		if u.Union.By != ir.ByTag {
			continue
		}
		b.g.choose[u] = 0
		v, err := b.build(t, minimal)
		delete(b.g.choose, u)
		if err != nil {
			return err
		}
		at := ""
		for p, tag := range b.g.tags {
			if tag == u.Union.Tag && lookupUnion(b, v, p, u) {
				if at == "" || p < at {
					at = p
				}
			}
		}
		if at == "" {
			continue
		}
		o := lookup(v, at).(*Obj)
		tagVal := o.Vals[u.Union.Tag]
		o.Del(u.Union.Tag)
		add("union.missing-tag", fmt.Sprintf("%s: a %s value without its %q member", me.Name, u.Name, u.Union.Tag), frame(v))
		if !u.Union.Open {
			o.Set(u.Union.Tag, unknownTag)
			add("union.unknown-tag", fmt.Sprintf("%s: a %s value with an unknown %q (closed union)", me.Name, u.Name, u.Union.Tag), frame(v))
		}
		o.Set(u.Union.Tag, tagVal)
	}
	return nil
}

// lookupUnion reports whether the value at p is a variant of union u (its
// tag is one of u's tag values).
func lookupUnion(b *builder, v any, p string, u *ir.Type) bool {
	o, ok := lookup(v, p).(*Obj)
	if !ok {
		return false
	}
	tag, _ := o.Vals[u.Union.Tag].(string)
	for _, x := range u.Union.Variants {
		if x.TagValue == tag {
			return true
		}
	}
	return false
}

func pointerOr(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// Files renders the set as the committed vector files: valid.log (the
// interleaved capture format dshgen validate and tap use: DIR<TAB>ms<TAB>line,
// ms counting frames) and invalid.jsonl (one labelled vector per line).
func (s *Set) Files() []ir.File {
	v := writeCapture(s.Valid)
	var inv bytes.Buffer
	for _, x := range s.Invalid {
		raw, err := encode(x)
		if err != nil {
			panic(err)
		}
		inv.Write(raw)
		inv.WriteByte('\n')
	}
	return []ir.File{{Path: "valid.log", Data: v}, {Path: "invalid.jsonl", Data: inv.Bytes()}}
}

// writeCapture renders frames in the interleaved capture format, the time
// stamp counting frames (vectors have no clock).
func writeCapture(frames []Frame) []byte {
	var b bytes.Buffer
	for i, f := range frames {
		dir := "C->S"
		if f.Dir == ir.ServerToClient {
			dir = "S->C"
		}
		fmt.Fprintf(&b, "%s\t%d.000\t%s\n", dir, i, f.Line)
	}
	return b.Bytes()
}

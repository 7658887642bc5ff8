// Package conformance generates conformance vectors from a ir.Model — valid
// JSON-RPC frames for every method and every union variant (minimal and
// maximal forms, unknown members and unknown tags where the schema allows
// them, edge values) and invalid frames that each break exactly one rule,
// labelled with the validator's rule id — and runs them through every
// language's bindings.
//
// Values come from the IR; the assertions the IR leaves out (minimum,
// minLength, pattern: from examples, else a shortest match spelled from the
// regular expression; minItems, if/then) are read from the schema, and every valid vector is checked against the schema with the
// validation library before it is kept: a vector the schema rejects is
// repaired (an optional member dropped or added) or the generation fails.
package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// Obj is a JSON object that keeps its member order when encoded.
type Obj struct {
	Keys []string
	Vals map[string]any
}

// NewObj returns an empty ordered object.
func NewObj() *Obj { return &Obj{Vals: map[string]any{}} }

// Set sets member k (appending it when new).
func (o *Obj) Set(k string, v any) *Obj {
	if _, ok := o.Vals[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Vals[k] = v
	return o
}

// Del removes member k.
func (o *Obj) Del(k string) {
	if _, ok := o.Vals[k]; !ok {
		return
	}
	delete(o.Vals, k)
	for i, x := range o.Keys {
		if x == k {
			o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
			break
		}
	}
}

// MarshalJSON writes the members in order, without HTML escaping.
func (o *Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := encode(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := encode(o.Vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// mode is the kind of value generated.
type mode int

const (
	minimal mode = iota // required members only, smallest values
	maximal             // every optional member, edge values, unknown members
)

// The edge values maximal vectors carry.
const (
	edgeString  = "unicode é ☃ 😀, escapes \" \\ / \b\f\n\r\t \u2028 \u0001"
	extraMember = "x-conformance-extra"
	unknownTag  = "x-conformance/unknown"
	maxSafeInt  = 9007199254740991 // 2^53-1
)

// generator builds values for one model.
type generator struct {
	m        *ir.Model
	choose   map[*ir.Type]int // union → variant index to use (-1: unknown tag)
	optional map[string]bool  // instance pointers of optional members, per value
	skipped  map[string]map[string]func() any
	tags     map[string]string // instance pointer → tag member of a tagged-union value
	closed   []string          // instance pointers of closed objects, in generation order
	depth    int
	// nonEmpty makes minimal arrays carry one item, so a union variant
	// chosen for a sweep appears even where it sits inside an array.
	nonEmpty bool
	// fast is the validator whose fast check accepts values without the
	// library (nil: the library checks every value).
	fast *validate.Validator
}

func newGenerator(m *ir.Model) *generator {
	return &generator{m: m, choose: map[*ir.Type]int{}}
}

// constraint reads a numeric keyword of a schema node.
func numKw(n map[string]any, k string) (*big.Rat, bool) {
	v, ok := n[k]
	if !ok {
		return nil, false
	}
	num, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(num.String())
	return r, ok
}

func intKw(n map[string]any, k string) (int, bool) {
	r, ok := numKw(n, k)
	if !ok || !r.IsInt() {
		return 0, false
	}
	return int(r.Num().Int64()), true
}

// value generates a value for a use of r whose schema lives at ptr.
func (g *generator) value(r *ir.TypeRef, ptr, at string, md mode) any {
	node, _ := g.m.Source().Keywords(ptr)
	if r.Nullable && md == minimal {
		return nil
	}
	if ex, ok := node["examples"].([]any); ok && len(ex) > 0 && r.Kind != ir.RefNamed {
		if md == maximal {
			return ex[len(ex)-1]
		}
		return ex[0]
	}
	switch r.Kind {
	case ir.RefString:
		if len(r.Enum) > 0 {
			if md == maximal {
				return r.Enum[len(r.Enum)-1]
			}
			return r.Enum[0]
		}
		s := ""
		if md == maximal {
			s = edgeString
		}
		if n, ok := intKw(node, "minLength"); ok && len([]rune(s)) < n {
			s += strings.Repeat("x", n-len([]rune(s)))
		}
		if n, ok := intKw(node, "maxLength"); ok && len([]rune(s)) > n {
			s = string([]rune(s)[:n])
		}
		if pat, ok := node["pattern"].(string); ok {
			s = matching(pat, s, node)
		}
		return s
	case ir.RefInteger, ir.RefNumber:
		return number(r.Kind == ir.RefInteger, node, md)
	case ir.RefBoolean:
		return md == maximal
	case ir.RefNull:
		return nil
	case ir.RefJSON:
		if md == minimal {
			return NewObj()
		}
		// Integers stop at 2^53-1 here: JavaScript numbers carry no more
		// (the Go and Python tests cover larger ones).
		return NewObj().Set("k", []any{json.Number("1"), "x", nil, true, NewObj().Set("n", json.Number("1.5"))}).Set("max", json.Number("9007199254740991")).Set("neg", json.Number("-9007199254740991"))
	case ir.RefArray:
		n := 0
		if md == maximal {
			n = 2
		} else if g.nonEmpty {
			n = 1
		}
		if lo, ok := intKw(node, "minItems"); ok && n < lo {
			n = lo
		}
		if hi, ok := intKw(node, "maxItems"); ok && n > hi {
			n = hi
		}
		if g.depth > 6 && n > 0 {
			if lo, ok := intKw(node, "minItems"); !ok || lo == 0 {
				n = 0
			}
		}
		out := make([]any, 0, n)
		items, _ := node["items"].(map[string]any)
		itemPtr := ptr + "/items"
		if items == nil {
			itemPtr = ""
		}
		for i := 0; i < n; i++ {
			out = append(out, g.value(r.Elem, itemPtr, at+"/"+strconv.Itoa(i), md))
		}
		if u, _ := node["uniqueItems"].(bool); u {
			out = uniquify(out, items)
		}
		return out
	case ir.RefMap:
		o := NewObj()
		if md == maximal && g.depth <= 6 {
			o.Set("key", g.value(r.Elem, ptr+"/additionalProperties", at+"/key", md))
		}
		return o
	case ir.RefNamed:
		return g.named(r.Named, at, md)
	}
	return nil
}

// matching returns a string the pattern (and the length bounds of node)
// accept: s itself when it does, else the shortest string the pattern's
// syntax tree spells, followed by s where that still matches (so maximal
// vectors keep their edge characters after a required prefix such as
// "^file://"). A pattern Go's regexp cannot parse, or one no candidate
// meets, leaves s as it is (the schema check then names the pattern).
func matching(pat, s string, node map[string]any) string {
	re, err := regexp.Compile(pat)
	if err != nil {
		return s
	}
	tree, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return s
	}
	lo, hasLo := intKw(node, "minLength")
	hi, hasHi := intKw(node, "maxLength")
	fits := func(c string) bool {
		n := len([]rune(c))
		return re.MatchString(c) && (!hasLo || n >= lo) && (!hasHi || n <= hi)
	}
	short, ok := shortest(tree.Simplify())
	for _, c := range []string{s, short + s, short, short + strings.Repeat("x", max(0, lo-len([]rune(short))))} {
		if (ok || c == s) && fits(c) {
			return c
		}
	}
	return s
}

// shortest spells a shortest string a regular expression matches,
// preferring printable characters; false for a part that matches nothing.
func shortest(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= 0x20 {
				return string(max(re.Rune[i], 0x20)), true
			}
		}
		if len(re.Rune) > 0 {
			return string(re.Rune[0]), true
		}
		return "", false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return "x", true
	case syntax.OpCapture:
		return shortest(re.Sub[0])
	case syntax.OpPlus:
		return shortest(re.Sub[0])
	case syntax.OpRepeat:
		one, ok := shortest(re.Sub[0])
		return strings.Repeat(one, re.Min), ok || re.Min == 0
	case syntax.OpConcat:
		var b strings.Builder
		for _, sub := range re.Sub {
			x, ok := shortest(sub)
			if !ok {
				return "", false
			}
			b.WriteString(x)
		}
		return b.String(), true
	case syntax.OpAlternate:
		best, found := "", false
		for _, sub := range re.Sub {
			if x, ok := shortest(sub); ok && (!found || len(x) < len(best)) {
				best, found = x, true
			}
		}
		return best, found
	case syntax.OpNoMatch:
		return "", false
	}
	// Empty matches, anchors, word boundaries, x* and x?: nothing to spell.
	return "", true
}

// uniquify makes array items distinct where they are integers or strings:
// item i is the integer plus i, or minus i where plus would pass the items
// schema's maximum (maximal vectors start at the largest safe integer), or
// the string followed by i.
func uniquify(xs []any, items map[string]any) []any {
	hi, bounded := numKw(items, "maximum")
	if x, ok := numKw(items, "exclusiveMaximum"); ok && (!bounded || x.Cmp(hi) <= 0) {
		hi, bounded = x.Sub(x, big.NewRat(1, 1)), true
	}
	for i := range xs {
		switch v := xs[i].(type) {
		case json.Number:
			n, _ := new(big.Int).SetString(v.String(), 10)
			if n == nil {
				continue
			}
			up := new(big.Int).Add(n, big.NewInt(int64(i)))
			if bounded && new(big.Rat).SetInt(up).Cmp(hi) > 0 {
				up.Sub(n, big.NewInt(int64(i)))
			}
			xs[i] = json.Number(up.String())
		case string:
			xs[i] = v + strconv.Itoa(i)
		}
	}
	return xs
}

// number picks an integer or number within the node's bounds.
func number(integer bool, node map[string]any, md mode) json.Number {
	v := new(big.Rat)
	if md == maximal {
		if integer {
			v.SetInt64(maxSafeInt)
		} else {
			v.SetString("1.5")
		}
	}
	if lo, ok := numKw(node, "minimum"); ok && v.Cmp(lo) < 0 {
		v.Set(lo)
	}
	if lo, ok := numKw(node, "exclusiveMinimum"); ok && v.Cmp(lo) <= 0 {
		v.Add(lo, big.NewRat(1, 1))
	}
	if hi, ok := numKw(node, "maximum"); ok && v.Cmp(hi) > 0 {
		v.Set(hi)
	}
	if hi, ok := numKw(node, "exclusiveMaximum"); ok && v.Cmp(hi) >= 0 {
		v.Sub(hi, big.NewRat(1, 1))
	}
	if v.IsInt() {
		return json.Number(v.Num().String())
	}
	f, _ := v.Float64()
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// named generates a value of a named type.
func (g *generator) named(t *ir.Type, at string, md mode) any {
	g.depth++
	defer func() { g.depth-- }()
	switch t.Kind {
	case ir.KindEnum:
		if md == maximal {
			return t.Enum[len(t.Enum)-1].Value
		}
		return t.Enum[0].Value
	case ir.KindAlias:
		return g.value(t.Alias, t.Pointer, at, md)
	case ir.KindUnion:
		u := t.Union
		i, ok := g.choose[t]
		if !ok {
			i = 0
		}
		if i < 0 && u.By == ir.ByTag {
			return g.unknownVariant(t, at, md)
		}
		if i >= len(u.Variants) {
			i = 0
		}
		v := u.Variants[i]
		if v.Type.Kind == ir.KindEnum || v.Type.Kind == ir.KindAlias {
			return g.named(v.Type, at, md)
		}
		if u.By == ir.ByTag {
			g.tags[at] = u.Tag
		}
		return g.object(v.Type, at, md)
	}
	return g.object(t, at, md)
}

// unknownVariant generates a value with a tag no variant declares: the
// fallback type's shape when the union has a named one, else an object with
// just the tag and an unknown member.
func (g *generator) unknownVariant(t *ir.Type, at string, md mode) any {
	u := t.Union
	var o *Obj
	if u.Unknown != nil && u.Unknown.Fallback != nil {
		o = g.object(u.Unknown.Fallback, at, md)
	} else {
		o = NewObj()
		o.Set(extraMember, "kept")
	}
	o.Set(u.Tag, unknownTag)
	// the tag first, as writers put it
	o.Keys = append([]string{u.Tag}, without(o.Keys, u.Tag)...)
	return o
}

func without(xs []string, x string) []string {
	var out []string
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

// object generates an object of type t.
func (g *generator) object(t *ir.Type, at string, md mode) *Obj {
	o := NewObj()
	if t.Closed {
		g.closed = append(g.closed, at)
	}
	for _, f := range t.Fields {
		f := f
		fat := at + "/" + escape(f.Wire)
		val := func(m mode) func() any {
			return func() any {
				if f.Const != nil {
					var c any
					d := json.NewDecoder(strings.NewReader(*f.Const))
					d.UseNumber()
					d.Decode(&c)
					return c
				}
				return g.value(&f.Type, f.Pointer, fat, m)
			}
		}
		if f.Required {
			o.Set(f.Wire, val(md)())
			continue
		}
		recursive := f.Type.Kind == ir.RefNamed && f.Type.Named.Recursive && g.depth > 3
		if md == maximal && !recursive {
			o.Set(f.Wire, val(md)())
			g.optional[fat] = true
			continue
		}
		if g.skipped[at] == nil {
			g.skipped[at] = map[string]func() any{}
		}
		g.skipped[at][f.Wire] = val(minimal)
	}
	if md == maximal && !t.Closed {
		if t.Extra != nil {
			o.Set(extraMember, g.value(t.Extra, t.Pointer+"/additionalProperties", at+"/"+extraMember, minimal))
		} else {
			o.Set(extraMember, "kept")
		}
		g.optional[at+"/"+extraMember] = true
	}
	return o
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// build generates a value of t and repairs it until the schema at t accepts
// it: a failing optional member is dropped, a missing member the schema
// requires (if/then) is added. A value the validator's fast check accepts
// (g.fast, when set) is one the library accepts; every other value is
// validated by the library, whose errors guide the repair.
func (g *generator) build(t *ir.Type, sch *jsonschema.Schema, md mode) (any, error) {
	g.optional = map[string]bool{}
	g.skipped = map[string]map[string]func() any{}
	g.tags = map[string]string{}
	g.closed = nil
	v := g.named(t, "", md)
	for try := 0; try < 64; try++ {
		inst, err := roundJSON(v)
		if err != nil {
			return nil, err
		}
		if g.fast != nil && g.fast.Accepts(t, inst) {
			return v, nil
		}
		verr := sch.Validate(inst)
		if verr == nil {
			return v, nil
		}
		if !g.repair(v, verr) {
			raw, _ := encode(v)
			return nil, fmt.Errorf("%s: generated value rejected by the schema: %v\n%s", t.Pointer, verr, raw)
		}
	}
	return nil, fmt.Errorf("%s: could not build a value the schema accepts", t.Pointer)
}

// repair changes v once after a validation error; false when it cannot.
func (g *generator) repair(v any, verr error) bool {
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return false
	}
	leaves := g.leaves(ve, v)
	sort.SliceStable(leaves, func(i, j int) bool { return len(leaves[i].InstanceLocation) > len(leaves[j].InstanceLocation) })
	for _, l := range leaves {
		// a member the schema requires here (if/then, dependentRequired)
		if strings.HasSuffix(l.KeywordLocation, "/required") {
			for member, mk := range g.skipped[l.InstanceLocation] {
				if strings.Contains(l.Message, "'"+member+"'") {
					if o, ok := lookup(v, l.InstanceLocation).(*Obj); ok {
						o.Set(member, mk())
						delete(g.skipped[l.InstanceLocation], member)
						return true
					}
				}
			}
		}
		// drop the nearest optional member at or above the failing value
		for p := l.InstanceLocation; p != ""; p = parent(p) {
			if g.optional[p] {
				if o, ok := lookup(v, parent(p)).(*Obj); ok {
					o.Del(unescape(p[strings.LastIndex(p, "/")+1:]))
					delete(g.optional, p)
					return true
				}
			}
		}
	}
	// No optional member at or above a failing value: the failing keyword
	// (if/then, not, dependentSchemas) is about members below it; drop the
	// optional member nearest below, in pointer order so runs agree.
	for _, l := range leaves {
		var below []string
		for p := range g.optional {
			if strings.HasPrefix(p, l.InstanceLocation+"/") && lookup(v, parent(p)) != nil {
				below = append(below, p)
			}
		}
		sort.Slice(below, func(i, j int) bool {
			if len(below[i]) != len(below[j]) {
				return len(below[i]) < len(below[j])
			}
			return below[i] < below[j]
		})
		for _, p := range below {
			if o, ok := lookup(v, parent(p)).(*Obj); ok {
				o.Del(unescape(p[strings.LastIndex(p, "/")+1:]))
				delete(g.optional, p)
				return true
			}
		}
	}
	return false
}

func parent(p string) string {
	i := strings.LastIndex(p, "/")
	if i <= 0 {
		return ""
	}
	return p[:i]
}

func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// lookup follows a JSON pointer through Obj and []any values.
func lookup(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescape(tok)
		switch x := v.(type) {
		case *Obj:
			v = x.Vals[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// roundJSON turns a generated value into the plain form the validation
// library takes.
func roundJSON(v any) (any, error) {
	b, err := encode(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	err = d.Decode(&out)
	return out, err
}

// leaves returns the leaf errors of ve, keeping under each oneOf/anyOf only
// the causes of the branch the value's tag selects (the other branches'
// errors are noise).
func (g *generator) leaves(ve *jsonschema.ValidationError, v any) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, e)
			return
		}
		causes := e.Causes
		if strings.HasSuffix(e.KeywordLocation, "/oneOf") || strings.HasSuffix(e.KeywordLocation, "/anyOf") {
			if idx, ok := g.branchOf(lookup(v, e.InstanceLocation)); ok {
				var keep []*jsonschema.ValidationError
				for _, c := range causes {
					rest := strings.TrimPrefix(c.KeywordLocation, e.KeywordLocation+"/")
					if n, err := strconv.Atoi(strings.SplitN(rest, "/", 2)[0]); err == nil && n == idx {
						keep = append(keep, c)
					}
				}
				if len(keep) > 0 {
					causes = keep
				}
			}
		}
		for _, c := range causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// branchOf finds the oneOf index a tagged value selects: some tagged union
// of the model whose tag member the object has with one of its tag values.
func (g *generator) branchOf(v any) (int, bool) {
	o, ok := v.(*Obj)
	if !ok {
		return 0, false
	}
	for _, t := range g.m.Types {
		if t.Kind != ir.KindUnion || t.Union.By != ir.ByTag {
			continue
		}
		tag, ok := o.Vals[t.Union.Tag].(string)
		if !ok {
			continue
		}
		for _, x := range t.Union.Variants {
			if x.TagValue == tag {
				return x.Index, true
			}
		}
	}
	return 0, false
}

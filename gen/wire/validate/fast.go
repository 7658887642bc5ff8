package validate

// The fast check: a small validator compiled from the same schema document
// for the keywords the shipped schema uses, with tagged oneOf/anyOf
// dispatched on the tag (one map lookup instead of trying every branch).
// It is exact on what it supports: Accept and Reject are the library's
// verdict; Unknown (a keyword it does not implement, a $ref to another
// file) sends the value to the library. Every value it does not accept is
// validated by the library, so every reported error is the library's.
// TestFastAgreesWithLibrary checks the two agree over the mutation corpus.

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/schemadoc"
)

type verdict int8

const (
	accept verdict = iota
	reject
	unknown
)

// JSON type bits.
const (
	tNull uint8 = 1 << iota
	tBool
	tInteger
	tNumber // non-integer numbers; "number" allows tInteger|tNumber
	tString
	tArray
	tObject
)

type fnode struct {
	unsupported bool
	always      *bool // a boolean schema

	types    uint8
	hasConst bool
	constVal any
	enum     []any

	props      map[string]*fnode
	required   []string
	addlFalse  bool
	addl       *fnode
	minProps   int
	maxProps   int
	items      *fnode
	minItems   int
	maxItems   int
	uniqueItem bool

	min, max       *decimal
	exMin, exMax   *decimal
	minF, maxF     float64 // same bounds as float64, for the quick path
	exMinF, exMaxF float64
	boundsExact    bool // every bound is exactly a float64
	minLen, maxLen int
	pattern        *regexp.Regexp

	ref   *fnode
	allOf []*fnode
	anyOf []*fnode
	oneOf []*fnode
	not   *fnode
	ifS   *fnode
	thenS *fnode
	elseS *fnode

	// Tagged oneOf/anyOf: branch by tag value; fallback < 0 when none.
	tag      string
	byTag    map[string]int
	fallback int

	// Set by prepare, for the byte plan (scan.go).
	refOnly, objKw, arrKw bool
}

// annotation keywords the fast check ignores (they assert nothing, or the
// library does not assert them: format with AssertFormat off).
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$defs": true, "definitions": true, "$anchor": true,
	"title": true, "description": true, "examples": true, "default": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "format": true, "discriminator": true,
	"contentMediaType": true, "contentEncoding": true, "contentSchema": true,
}

type fastCompiler struct {
	src   *schemadoc.Set
	id    string
	nodes map[string]*fnode
	v     *Validator
}

// compileFast builds the fast check of every named type's schema node (and
// every node reachable from them), reading the nodes the model was loaded
// from.
func (v *Validator) compileFast() map[string]*fnode {
	src := v.model.Source()
	fc := &fastCompiler{src: src, nodes: map[string]*fnode{}, v: v}
	fc.id = src.Root().Root.Member("$id").Str()
	out := map[string]*fnode{}
	for _, t := range v.model.Types {
		out[t.Pointer] = fc.at(t.Pointer)
	}
	for _, n := range fc.nodes {
		n.prepare()
	}
	return out
}

func (fc *fastCompiler) at(ptr string) *fnode {
	if n, ok := fc.nodes[ptr]; ok {
		return n
	}
	n := &fnode{}
	fc.nodes[ptr] = n
	l, val, ok := fc.src.Lookup(ptr)
	if !ok || !strings.HasPrefix(ptr, "#") {
		// Only the root document's nodes are compiled; a node of a
		// sibling file is left to the library.
		n.unsupported = true
		return n
	}
	fc.fill(n, ptr, val, l.Doc.Draft)
	return n
}

func (fc *fastCompiler) sub(ptr, key string) *fnode {
	return fc.at(ptr + "/" + escapeToken(key))
}

// boundOf reads a numeric keyword's value; ok is false for a number the
// library would not read (it ignores a bound it cannot turn into a
// big.Rat), so that the fast check leaves such a schema to it.
func boundOf(v *schemadoc.Node) (*decimal, bool) {
	if v.Kind() != schemadoc.Number || !tame(v.Number().String()) {
		return nil, false
	}
	d, ok := parseDecimal(v.Number().String())
	return &d, ok
}

func intKw(v *schemadoc.Node) (int, bool) {
	if v.Kind() != schemadoc.Number {
		return 0, false
	}
	i, err := strconv.Atoi(v.Number().String())
	return i, err == nil && i >= 0
}

func (fc *fastCompiler) fill(n *fnode, ptr string, val *schemadoc.Node, draft schemadoc.Draft) {
	n.minProps, n.maxProps, n.maxItems, n.maxLen, n.fallback = 0, -1, -1, -1, -1
	if val.Kind() == schemadoc.Bool {
		b := val.Bool()
		n.always = &b
		return
	}
	if !val.IsObject() {
		n.unsupported = true
		return
	}
	keys := val.Keys()
	if draft.RefIgnoresSiblings() && val.Member("$ref") != nil {
		// Draft-07 and earlier ignore every keyword beside a $ref.
		keys = []string{"$ref"}
	}
	for _, k := range keys {
		x := val.Member(k)
		if annotations[k] || strings.HasPrefix(k, "x-") {
			continue
		}
		var ok bool
		switch k {
		case "type":
			ok = n.setTypes(x)
		case "const":
			n.hasConst, n.constVal, ok = true, x.Value(), true
		case "enum":
			if ok = x.Kind() == schemadoc.Array; ok {
				n.enum = x.Value().([]any)
			}
		case "properties":
			if ok = x.IsObject(); ok {
				n.props = map[string]*fnode{}
				for _, p := range x.Keys() {
					n.props[p] = fc.at(ptr + "/properties/" + escapeToken(p))
				}
			}
		case "required":
			if ok = x.Kind() == schemadoc.Array; ok {
				for _, r := range x.Items() {
					ok = ok && r.Kind() == schemadoc.String
					n.required = append(n.required, r.Str())
				}
			}
		case "additionalProperties":
			if x.Kind() == schemadoc.Bool {
				n.addlFalse, ok = !x.Bool(), true
			} else {
				n.addl, ok = fc.sub(ptr, k), true
			}
		case "minProperties":
			n.minProps, ok = intKw(x)
		case "maxProperties":
			n.maxProps, ok = intKw(x)
		case "items":
			n.items, ok = fc.sub(ptr, k), true
		case "minItems":
			n.minItems, ok = intKw(x)
		case "maxItems":
			n.maxItems, ok = intKw(x)
		case "uniqueItems":
			n.uniqueItem, ok = x.Bool(), x.Kind() == schemadoc.Bool
		case "minimum":
			n.min, ok = boundOf(x)
		case "maximum":
			n.max, ok = boundOf(x)
		case "exclusiveMinimum":
			n.exMin, ok = boundOf(x)
		case "exclusiveMaximum":
			n.exMax, ok = boundOf(x)
		case "minLength":
			n.minLen, ok = intKw(x)
		case "maxLength":
			n.maxLen, ok = intKw(x)
		case "pattern":
			if x.Kind() == schemadoc.String {
				re, err := regexp.Compile(x.Str())
				n.pattern, ok = re, err == nil
			}
		case "$ref":
			if x.Kind() == schemadoc.String {
				s := x.Str()
				if fc.id != "" && strings.HasPrefix(s, fc.id+"#") {
					s = s[len(fc.id):]
				}
				if strings.HasPrefix(s, "#") {
					n.ref, ok = fc.at(s), true
				}
			}
		case "allOf", "anyOf", "oneOf":
			if ok = x.Kind() == schemadoc.Array; ok {
				var list []*fnode
				for i := range x.Items() {
					list = append(list, fc.at(ptr+"/"+k+"/"+strconv.Itoa(i)))
				}
				switch k {
				case "allOf":
					n.allOf = list
				case "anyOf":
					n.anyOf = list
				case "oneOf":
					n.oneOf = list
				}
			}
		case "not":
			n.not, ok = fc.sub(ptr, k), true
		case "if":
			n.ifS, ok = fc.sub(ptr, k), true
		case "then":
			n.thenS, ok = fc.sub(ptr, k), true
		case "else":
			n.elseS, ok = fc.sub(ptr, k), true
		}
		if !ok {
			n.unsupported = true
			return
		}
	}
	n.boundsExact = true
	for _, b := range []struct {
		d *decimal
		f *float64
	}{{n.min, &n.minF}, {n.max, &n.maxF}, {n.exMin, &n.exMinF}, {n.exMax, &n.exMaxF}} {
		if b.d != nil {
			var exact bool
			*b.f, exact = b.d.float64()
			n.boundsExact = n.boundsExact && exact
		}
	}
	if u := fc.v.unions[ptr+"/oneOf"]; u != nil && n.oneOf != nil {
		fc.dispatch(n, ptr, "oneOf", n.oneOf, u)
	} else if u := fc.v.unions[ptr+"/anyOf"]; u != nil && n.anyOf != nil {
		fc.dispatch(n, ptr, "anyOf", n.anyOf, u)
	}
}

func (n *fnode) setTypes(node *schemadoc.Node) bool {
	x := node.Value()
	add := func(s string) bool {
		switch s {
		case "null":
			n.types |= tNull
		case "boolean":
			n.types |= tBool
		case "integer":
			n.types |= tInteger
		case "number":
			n.types |= tInteger | tNumber
		case "string":
			n.types |= tString
		case "array":
			n.types |= tArray
		case "object":
			n.types |= tObject
		default:
			return false
		}
		return true
	}
	switch t := x.(type) {
	case string:
		return add(t)
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok || !add(s) {
				return false
			}
		}
		return true
	}
	return false
}

// dispatch sets up the tag lookup of a tagged union, after proving from
// the schema itself that each branch requires the tag with its own const
// (so no other branch can match a value with that tag) and that the
// fallback's not-enum lists every known tag.
func (fc *fastCompiler) dispatch(n *fnode, ptr, kw string, branches []*fnode, t *ir.Type) {
	u := t.Union
	if u.By != ir.ByTag || u.Tag == "" {
		return
	}
	byTag := map[string]int{}
	fallback := -1
	var notList []any
	for i, b := range branches {
		obj := resolveRef(b)
		if obj == nil || obj.unsupported || !contains(obj.required, u.Tag) || obj.props[u.Tag] == nil {
			return
		}
		tn := resolveRef(obj.props[u.Tag])
		switch {
		case tn.hasConst:
			s, ok := tn.constVal.(string)
			if !ok {
				return
			}
			if _, dup := byTag[s]; dup {
				return
			}
			byTag[s] = i
		case len(tn.enum) == 1:
			s, ok := tn.enum[0].(string)
			if !ok {
				return
			}
			if _, dup := byTag[s]; dup {
				return
			}
			byTag[s] = i
		case tn.not != nil && resolveRef(tn.not).enum != nil && fallback < 0:
			fallback = i
			notList = resolveRef(tn.not).enum
		default:
			return
		}
	}
	if fallback >= 0 {
		listed := map[string]bool{}
		for _, e := range notList {
			if s, ok := e.(string); ok {
				listed[s] = true
			}
		}
		for s := range byTag {
			if !listed[s] {
				return
			}
		}
	}
	n.tag, n.byTag, n.fallback = u.Tag, byTag, fallback
}

func resolveRef(n *fnode) *fnode {
	for i := 0; n != nil && i < 16; i++ {
		if n.ref == nil || n.types != 0 || n.props != nil || n.hasConst || n.enum != nil || n.not != nil || n.oneOf != nil || n.anyOf != nil {
			return n
		}
		n = n.ref
	}
	return n
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func typeBit(v any) uint8 {
	switch x := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBool
	case string:
		return tString
	case json.Number:
		if isInteger(x) {
			return tInteger
		}
		return tNumber
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}

func and(a, b verdict) verdict {
	if a == reject || b == reject {
		return reject
	}
	if a == unknown || b == unknown {
		return unknown
	}
	return accept
}

// Accepts reports whether the fast check accepts val as a value of t (a
// type of the validator's model), val decoded from JSON with numbers as
// json.Number (objects map[string]any, arrays []any). True is the
// validation library's verdict on the schema at t.Pointer (the two agree:
// TestFastAgreesWithLibrary); false means the fast check rejects val or
// cannot tell, and only the library can say which and why.
func (v *Validator) Accepts(t *ir.Type, val any) bool {
	if t == nil {
		return false
	}
	n := v.fast[t.Pointer]
	if n == nil {
		return false
	}
	fb := 0
	return n.check(val, 0, &fb) == accept
}

// check returns whether v is valid against n.
func (n *fnode) check(v any, depth int, fb *int) verdict {
	if n == nil {
		return accept
	}
	if n.unsupported || depth > 10000 {
		return unknown
	}
	if n.always != nil {
		if *n.always {
			return accept
		}
		return reject
	}
	res := accept
	tb := typeBit(v)
	if n.types != 0 && n.types&tb == 0 {
		return reject
	}
	if n.hasConst && !jsonEqual(n.constVal, v) {
		return reject
	}
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			if jsonEqual(e, v) {
				found = true
				break
			}
		}
		if !found {
			return reject
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range n.required {
			if _, ok := x[r]; !ok {
				return reject
			}
		}
		if len(x) < n.minProps || (n.maxProps >= 0 && len(x) > n.maxProps) {
			return reject
		}
		if n.props != nil || n.addlFalse || n.addl != nil {
			for k, pv := range x {
				if p, ok := n.props[k]; ok {
					res = and(res, p.check(pv, depth+1, fb))
				} else if n.addlFalse {
					return reject
				} else if n.addl != nil {
					res = and(res, n.addl.check(pv, depth+1, fb))
				}
				if res == reject {
					return reject
				}
			}
		}
	case []any:
		if len(x) < n.minItems || (n.maxItems >= 0 && len(x) > n.maxItems) {
			return reject
		}
		if n.items != nil {
			for _, e := range x {
				if res = and(res, n.items.check(e, depth+1, fb)); res == reject {
					return reject
				}
			}
		}
		if n.uniqueItem {
			for i := range x {
				for j := i + 1; j < len(x); j++ {
					if jsonEqual(x[i], x[j]) {
						return reject
					}
				}
			}
		}
	case string:
		if n.minLen > 0 || n.maxLen >= 0 {
			c := utf8.RuneCountInString(x)
			if c < n.minLen || (n.maxLen >= 0 && c > n.maxLen) {
				return reject
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			return reject
		}
	case json.Number:
		if n.min != nil || n.max != nil || n.exMin != nil || n.exMax != nil {
			if r := n.checkBounds(x); r != accept {
				return r
			}
		}
	}
	if n.ref != nil {
		if res = and(res, n.ref.check(v, depth+1, fb)); res == reject {
			return reject
		}
	}
	for _, s := range n.allOf {
		if res = and(res, s.check(v, depth+1, fb)); res == reject {
			return reject
		}
	}
	if n.not != nil {
		switch n.not.check(v, depth+1, fb) {
		case accept:
			return reject
		case unknown:
			res = unknown
		}
	}
	if n.ifS != nil {
		switch n.ifS.check(v, depth+1, fb) {
		case accept:
			if n.thenS != nil {
				res = and(res, n.thenS.check(v, depth+1, fb))
			}
		case reject:
			if n.elseS != nil {
				res = and(res, n.elseS.check(v, depth+1, fb))
			}
		default:
			res = unknown
		}
		if res == reject {
			return reject
		}
	}
	if n.oneOf != nil {
		res = and(res, n.checkOneOf(v, depth, fb))
	}
	if n.anyOf != nil && res != reject {
		res = and(res, n.checkAnyOf(v, depth, fb))
	}
	return res
}

// tagBranch returns the branch a tagged union's value selects (ok false
// when the union is not dispatched by tag); -1 when none can match.
func (n *fnode) tagBranch(v any, fb *int) (int, bool) {
	if n.byTag == nil {
		return 0, false
	}
	o, ok := v.(map[string]any)
	if !ok {
		return -1, true // no branch can match a non-object
	}
	tv, ok := o[n.tag]
	if !ok {
		return -1, true // every branch requires the tag
	}
	s, ok := tv.(string)
	if !ok {
		return -1, true
	}
	if i, ok := n.byTag[s]; ok {
		return i, true
	}
	if n.fallback >= 0 && fb != nil {
		*fb++ // an unknown tag: the caller reports it
	}
	return n.fallback, true
}

func (n *fnode) checkOneOf(v any, depth int, fb *int) verdict {
	if i, ok := n.tagBranch(v, fb); ok {
		if i < 0 {
			return reject
		}
		return n.oneOf[i].check(v, depth+1, fb)
	}
	return oneOfVerdict(n.oneOf, func(b *fnode) verdict { return b.check(v, depth+1, fb) })
}

// oneOfVerdict is oneOf over the verdicts try gives for each branch.
func oneOfVerdict(branches []*fnode, try func(*fnode) verdict) verdict {
	matched := 0
	unsure := false
	for _, b := range branches {
		switch try(b) {
		case accept:
			matched++
		case unknown:
			unsure = true
		}
	}
	switch {
	case matched > 1:
		return reject
	case unsure:
		return unknown
	case matched == 1:
		return accept
	}
	return reject
}

func (n *fnode) checkAnyOf(v any, depth int, fb *int) verdict {
	if i, ok := n.tagBranch(v, fb); ok {
		if i < 0 {
			return reject
		}
		return n.anyOf[i].check(v, depth+1, fb)
	}
	return anyOfVerdict(n.anyOf, func(b *fnode) verdict { return b.check(v, depth+1, fb) })
}

// anyOfVerdict is anyOf over the verdicts try gives for each branch.
func anyOfVerdict(branches []*fnode, try func(*fnode) verdict) verdict {
	unsure := false
	for _, b := range branches {
		switch try(b) {
		case accept:
			return accept
		case unknown:
			unsure = true
		}
	}
	if unsure {
		return unknown
	}
	return reject
}

func (n *fnode) checkBounds(x json.Number) verdict {
	s := x.String()
	if n.boundsExact && len(s) <= 15 && !strings.ContainsAny(s, ".eE") {
		// An integer of at most 15 digits and bounds that are exactly
		// float64s: the float comparison is exact.
		f, err := strconv.ParseFloat(s, 64)
		if err == nil {
			if (n.min != nil && f < n.minF) || (n.max != nil && f > n.maxF) ||
				(n.exMin != nil && f <= n.exMinF) || (n.exMax != nil && f >= n.exMaxF) {
				return reject
			}
			return accept
		}
	}
	d, ok := parseDecimal(s)
	if !ok {
		return unknown
	}
	if (n.min != nil && d.cmp(*n.min) < 0) || (n.max != nil && d.cmp(*n.max) > 0) ||
		(n.exMin != nil && d.cmp(*n.exMin) <= 0) || (n.exMax != nil && d.cmp(*n.exMax) >= 0) {
		return reject
	}
	return accept
}

// jsonEqual is JSON value equality (numbers by value).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		return numEqual(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

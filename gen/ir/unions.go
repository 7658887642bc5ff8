package ir

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/dshgen/dshgen/gen/schemadoc"
)

// Union shapes beyond tag / JSON type / closed shape (see "Unions" in
// README.md): branches are first expanded (an inline anyOf inside an anyOf
// is flattened, a "type" list is split into one branch per JSON type), then
// told apart by today's rules, and a union none of them separates is
// decoded by ordered tries (ByTry).

// expand returns the union's branches with nested inline anyOf branches
// flattened (anyOf inside anyOf only: oneOf does not flatten) and type lists
// split into one branch per JSON type.
func (l *loader) expand(kw string, bs []binfo) []binfo {
	var out []binfo
	for _, b := range bs {
		if kw == "anyOf" && !isNamed(b.tat, b.tn) && b.tn.IsObject() && unionKeyword(b.tn) == "anyOf" && onlyUnion(b.tn) {
			var inner []binfo
			for i, x := range b.tn.Get("anyOf").Items() {
				at := b.tat.Child("anyOf", i)
				tat, tn := l.deref(at, x)
				if isNullSchema(tn) {
					continue
				}
				inner = append(inner, binfo{branch: branch{at, x, b.index}, tat: tat, tn: tn, js: jsonTypeOf(tn)})
			}
			out = append(out, l.expand(kw, inner)...)
			continue
		}
		if !isNamed(b.tat, b.tn) && b.tn.IsObject() {
			if parts := typeParts(b.tn); len(parts) > 1 {
				for _, p := range parts {
					x := b
					x.part = p
					x.js = partJSType(p)
					out = append(out, x)
				}
				continue
			}
		}
		out = append(out, b)
	}
	return out
}

// onlyUnion reports whether a schema is nothing but a union (and notes):
// flattening it into its parent keeps its meaning.
func onlyUnion(n *node) bool {
	for _, k := range n.Keys() {
		switch k {
		case "anyOf", "description", "title", "$comment", "examples", "default":
		default:
			return false
		}
	}
	return true
}

// typeParts returns the non-null members of a "type" list of two or more
// types (integer is dropped when number is also listed: it adds nothing).
func typeParts(n *node) []string {
	ts, _ := typeList(n)
	if len(ts) < 2 {
		return nil
	}
	hasNumber := false
	for _, t := range ts {
		if t == "number" {
			hasNumber = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range ts {
		if (t == "integer" && hasNumber) || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

func partJSType(p string) string {
	if p == "integer" {
		return "number"
	}
	return p
}

// partType builds the type of one part of a split type list: an alias of
// the JSON type (string, integer, number, boolean, array of the items,
// map) or, for "object" with properties, an object type.
func (l *loader) partType(b binfo, name string) *Type {
	key := b.tat.Key() + "|type=" + b.part
	if t, ok := l.types[key]; ok {
		return t
	}
	idx := 0
	if tn := b.tn.Get("type"); tn != nil && tn.Kind() == schemadoc.Array {
		for i, it := range tn.Items() {
			if it.Str() == b.part {
				idx = i
			}
		}
	}
	t := &Type{Name: name, Pointer: l.pointerOf(b.tat.Child("type", idx)), Description: b.tn.StrOf("description")}
	t.Names = typeNames(name, overrides{})
	l.types[key] = t
	l.typeLocs[t] = b.tat
	var r TypeRef
	switch b.part {
	case "string":
		r = TypeRef{Kind: RefString}
		if vals, ok := stringEnum(b.tn); ok {
			r.Enum = vals
		}
	case "integer":
		r = TypeRef{Kind: RefInteger}
	case "number":
		r = TypeRef{Kind: RefNumber}
	case "boolean":
		r = TypeRef{Kind: RefBoolean}
	case "array":
		elem := TypeRef{Kind: RefJSON}
		if it := b.tn.Get("items"); it != nil {
			elem = l.use(b.tat.Child("items"), it, name+"Item")
		}
		r = TypeRef{Kind: RefArray, Elem: &elem}
	case "object":
		if p := b.tn.Get("properties"); (p != nil && len(p.Keys()) > 0) || b.tn.Has("required") {
			t.Kind = KindObject
			l.object(t, b.tat, b.tn)
			return t
		}
		elem := TypeRef{Kind: RefJSON}
		if ap := b.tn.Get("additionalProperties"); ap != nil && ap.Kind() == schemadoc.Object {
			elem = l.use(b.tat.Child("additionalProperties"), ap, name+"Value")
		}
		r = TypeRef{Kind: RefMap, Elem: &elem}
	default:
		r = TypeRef{Kind: RefJSON}
	}
	t.Kind, t.Alias = KindAlias, &r
	return t
}

// typeListUnion makes a named type whose schema is a "type" list of two or
// more JSON types a union by JSON type, one variant per type (U + the type:
// RequestIdString, RequestIdInteger).
func (l *loader) typeListUnion(t *Type, at loc, n *node) {
	b := binfo{branch: branch{at, n, 0}, tat: at, tn: n}
	var bs []binfo
	for _, p := range typeParts(n) {
		x := b
		x.part, x.js = p, partJSType(p)
		bs = append(bs, x)
	}
	t.Kind = KindUnion
	u := &Union{Keyword: "type", FallbackIndex: -1, By: ByJSONType}
	t.Union = u
	for _, x := range bs {
		v := &Variant{TagValue: x.js, JSONType: x.js, Index: 0, Pointer: l.pointerOf(at)}
		v.Type = l.partType(x, t.Name+pascal(x.part))
		v.Names = v.Type.Names
		u.Variants = append(u.Variants, v)
	}
}

// branchType returns the named type of a union branch, naming an inline
// branch from what it is (see "Naming inline union branches" in README.md):
// a $ref is the def; a part of a split type list is U + the JSON type; a
// branch with an x-name is that name; an object branch with a string const
// member that tells it from the other branches is U + the const; a titled
// branch is its title when the title is a PascalCase identifier, else U +
// the title; another non-object branch is U + its JSON type (or its string
// const); an object branch is U + "With" + the required members no other
// branch declares. "" (with a problem recorded) when none applies.
func (l *loader) branchType(u *Type, b binfo, all []binfo) *Type {
	if b.part != "" {
		return l.partType(b, u.Name+pascal(b.part))
	}
	if isDefLoc(b.tat) {
		return l.typeAt(b.tat)
	}
	if t, ok := l.types[b.tat.Key()]; ok {
		return t
	}
	if xn := b.tn.StrOf(kwName.Name); xn != "" {
		return l.newType(b.tat, b.tn, xn)
	}
	if val := l.tagValueOf(b, all); val != "" {
		return l.newType(b.tat, b.tn, u.Name+pascal(spellName(val)))
	}
	if title := b.tn.StrOf("title"); title != "" {
		if isPascalIdent(title) {
			// Branches of two unions with one title and equal schemas
			// (ACP's {"title": "ExtNotification"}) are one type.
			if prev, ok := l.titled[title]; ok && prev.schema == b.tn.Compact() {
				return prev.t
			}
			t := l.typeAt(b.tat)
			if l.titled == nil {
				l.titled = map[string]titledBranch{}
			}
			if _, ok := l.titled[title]; !ok {
				l.titled[title] = titledBranch{t, b.tn.Compact()}
			}
			return t
		}
		return l.newType(b.tat, b.tn, u.Name+pascal(title))
	}
	if b.js != "object" {
		suffix := b.js
		if ts, _ := typeList(b.tn); len(ts) == 1 {
			suffix = ts[0]
		}
		if c := b.tn.Get("const"); c != nil && c.Kind() == schemadoc.String {
			suffix = pascal(spellName(c.Str()))
		}
		if suffix == "" {
			suffix = "Value"
		}
		return l.newType(b.tat, b.tn, u.Name+pascal(suffix))
	}
	if own := ownRequired(b, all); len(own) > 0 {
		return l.newType(b.tat, b.tn, u.Name+"With"+pascal(strings.Join(own, " ")))
	}
	l.problem(b.at, "this union branch has no name: it has no title, no tag value and no required member that the other branches lack",
		"name it in an overlay: {\"overlay\": {\""+b.at.Ptr+"\": {\"x-name\": \"...\"}}}")
	return nil
}

// isPascalIdent reports whether s is an ASCII identifier starting with an
// upper-case letter.
func isPascalIdent(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
		case i > 0 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_'):
		default:
			return false
		}
	}
	return s != ""
}

// tagValueOf returns the branch's value of a member that is a required
// string const here and a distinct const (or undeclared) in every other
// branch, the first such member in the branch's property order; "" when
// none.
func (l *loader) tagValueOf(b binfo, all []binfo) string {
	props := b.tn.Get("properties")
	if props == nil || !props.IsObject() {
		return ""
	}
	rq := requiredSet(b.tn)
	for _, k := range props.Keys() {
		if !rq[k] {
			continue
		}
		val, ok := l.constOf(b, k)
		if !ok {
			continue
		}
		distinct := true
		for _, o := range all {
			if o.at.Key() == b.at.Key() && o.part == b.part {
				continue
			}
			if !o.tn.Get("properties").Has(k) {
				continue
			}
			ov, ok := l.constOf(o, k)
			if !ok || ov == val {
				distinct = false
				break
			}
		}
		if distinct {
			return val
		}
	}
	return ""
}

// constOf returns the string const of member k of a branch.
func (l *loader) constOf(b binfo, k string) (string, bool) {
	p := b.tn.Get("properties").Get(k)
	if p == nil {
		return "", false
	}
	_, pn := l.deref(b.tat.Child("properties", k), p)
	c := pn.Get("const")
	if c == nil || c.Kind() != schemadoc.String {
		return "", false
	}
	return c.Str(), true
}

func requiredSet(n *node) map[string]bool {
	rq := map[string]bool{}
	if r := n.Get("required"); r != nil && r.Kind() == schemadoc.Array {
		for _, it := range r.Items() {
			rq[it.Str()] = true
		}
	}
	return rq
}

func requiredList(n *node) []string {
	var out []string
	if r := n.Get("required"); r != nil && r.Kind() == schemadoc.Array {
		for _, it := range r.Items() {
			out = append(out, it.Str())
		}
	}
	return out
}

// ownRequired lists the branch's required members that no other branch
// declares, in the branch's order.
func ownRequired(b binfo, all []binfo) []string {
	var out []string
	for _, r := range requiredList(b.tn) {
		own := true
		for _, o := range all {
			if o.at.Key() == b.at.Key() && o.part == b.part {
				continue
			}
			if o.tn.Get("properties").Has(r) || requiredSet(o.tn)[r] {
				own = false
				break
			}
		}
		if own {
			out = append(out, r)
		}
	}
	return out
}

// acceptsAny reports whether a branch schema accepts every JSON value or
// every object (no type, no required member, no const or enum): such a
// branch is tried last.
func acceptsAny(n *node) bool {
	if n == nil || n.Kind() == schemadoc.Bool {
		return true
	}
	for _, k := range []string{"type", "const", "enum", "anyOf", "oneOf", "allOf", "not", "$ref"} {
		if n.Has(k) && !(k == "type" && n.StrOf("type") == "object") {
			return false
		}
	}
	return len(requiredList(n)) == 0
}

// tryUnion builds a union decoded by ordered tries: the branches in the
// order the validator's matching is tried by every binding — branches that
// accept any value (or any object) last, then more required members first,
// then more declared members first, then the schema's order.
func (l *loader) tryUnion(t *Type, u *Union, bs []binfo) {
	u.By = ByTry
	order := append([]binfo(nil), bs...)
	sort.SliceStable(order, func(i, j int) bool {
		ai, aj := acceptsAny(order[i].tn) && order[i].part == "", acceptsAny(order[j].tn) && order[j].part == ""
		if ai != aj {
			return aj
		}
		ri, rj := len(requiredList(order[i].tn)), len(requiredList(order[j].tn))
		if ri != rj {
			return ri > rj
		}
		return order[i].tn.Get("properties").Len() > order[j].tn.Get("properties").Len()
	})
	for _, b := range order {
		vt := l.branchType(t, b, bs)
		if vt == nil {
			continue
		}
		v := &Variant{JSONType: b.js, Index: b.index, Pointer: l.pointerOf(b.at), Type: vt, Required: requiredList(b.tn)}
		if b.part != "" {
			v.Required = nil
		}
		v.Names = vt.Names
		v.TagValue = vt.Name
		u.Variants = append(u.Variants, v)
	}
	seen := map[*Type]string{}
	for _, v := range u.Variants {
		if prev, dup := seen[v.Type]; dup {
			l.problem(l.locOf(v), fmt.Sprintf("two branches of this union are the one type %s (also %s)", v.Type.Name, prev), "")
		}
		seen[v.Type] = v.Pointer
	}
}

func (l *loader) locOf(v *Variant) loc {
	if at, ok := l.typeLocs[v.Type]; ok {
		return at
	}
	return loc{}
}

// spellName spells an enum value or tag value as words an identifier can be
// made of, injectively for values that are not identifiers: the empty
// string is "Empty", a leading sign is a word ("+1" → "Plus 1", "-1" →
// "Minus 1"), and a value without a letter or digit is spelled symbol by
// symbol ("+" → "Plus", "..." → "Dot Dot Dot"). Other values are returned
// as they are (split into words by the naming rules).
func spellName(v string) string {
	if v == "" {
		return "Empty"
	}
	if !hasAlnum(v) {
		var words []string
		for _, r := range v {
			words = append(words, symbolName(r))
		}
		return strings.Join(words, " ")
	}
	switch v[0] {
	case '+':
		return "Plus " + v[1:]
	case '-':
		return "Minus " + v[1:]
	}
	return v
}

// exactSpelling spells every character that is not a letter or digit by
// its symbol name ("date-time" → "date Minus time"), for two values that
// spellName maps to one identifier.
func exactSpelling(v string) string {
	var b strings.Builder
	for _, r := range v {
		if isAlnum(r) {
			b.WriteRune(r)
			continue
		}
		b.WriteString(" " + symbolName(r) + " ")
	}
	return b.String()
}

func hasAlnum(s string) bool {
	for _, r := range s {
		if isAlnum(r) {
			return true
		}
	}
	return false
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// symbolNames spells punctuation (ASCII names after Unicode's).
var symbolNames = map[rune]string{
	'+': "Plus", '-': "Minus", '/': "Slash", '\\': "Backslash", '.': "Dot", ',': "Comma", ':': "Colon",
	';': "Semicolon", '_': "Underscore", '*': "Star", '&': "Ampersand", '|': "Pipe", '!': "Bang",
	'?': "Question", '=': "Equals", '<': "Less", '>': "Greater", '@': "At", '#': "Hash", '$': "Dollar",
	'%': "Percent", '^': "Caret", '~': "Tilde", '`': "Backtick", '\'': "Quote", '"': "DoubleQuote",
	'(': "LeftParen", ')': "RightParen", '[': "LeftBracket", ']': "RightBracket", '{': "LeftBrace",
	'}': "RightBrace", ' ': "Space", '\t': "Tab", '\n': "Newline",
}

func symbolName(r rune) string {
	if s, ok := symbolNames[r]; ok {
		return s
	}
	return fmt.Sprintf("U%04X", r)
}

// newTypeKey registers and builds a named type under a key of its own (a
// type that shares its schema location with another).
func (l *loader) newTypeKey(key string, at loc, n *node, name string) *Type {
	if t, ok := l.types[key]; ok {
		return t
	}
	t := &Type{Name: name, Pointer: l.pointerOf(at)}
	t.Names = typeNames(name, overrides{})
	l.types[key] = t
	l.typeLocs[t] = at
	return t
}

// allOf builds a type whose schema has allOf (see "allOf" in README.md):
// when every part is an object schema (the type's own members and each
// allOf member, $refs followed, nested allOf flattened), one object type
// with the members of all parts; when the allOf has one member and the
// schema declares no members of its own, an alias of that member. Any
// other allOf is typed as its first member that is not an object (a
// documented fallback: the validator checks the rest). It reports false
// when the schema is left to the other rules.
func (l *loader) allOf(t *Type, at loc, n *node) bool {
	parts, ok := l.allOfParts(at, n, 0)
	own := n.Has("properties") || n.Has("required")
	items := n.Get("allOf").Items()
	if ok {
		t.Kind = KindObject
		l.objectParts(t, at, n, parts)
		return true
	}
	if len(items) == 1 && !own {
		r := l.use(at.Child("allOf", 0), items[0], t.Name+"Value")
		t.Kind, t.Alias = KindAlias, &r
		return true
	}
	for i, it := range items {
		_, tn := l.deref(at.Child("allOf", i), it)
		if jsonTypeOf(tn) != "object" || unionKeyword(tn) != "" {
			r := l.use(at.Child("allOf", i), it, t.Name+"Value")
			t.Kind, t.Alias = KindAlias, &r
			return true
		}
	}
	return false
}

// allOfParts flattens a schema and its allOf members into object parts;
// false when a part is not an object schema (a union, another JSON type).
func (l *loader) allOfParts(at loc, n *node, depth int) ([]objPart, bool) {
	if depth > 32 {
		return nil, false
	}
	ts, _ := typeList(n)
	if unionKeyword(n) != "" || len(ts) > 1 || (len(ts) == 1 && ts[0] != "object") {
		return nil, false
	}
	parts := []objPart{{at, n}}
	if a := n.Get("allOf"); a != nil && a.Kind() == schemadoc.Array {
		for i, it := range a.Items() {
			tat, tn := l.deref(at.Child("allOf", i), it)
			if tn == nil || !tn.IsObject() {
				return nil, false
			}
			sub, ok := l.allOfParts(tat, tn, depth+1)
			if !ok {
				return nil, false
			}
			parts = append(parts, sub...)
		}
	}
	return parts, true
}

// titledBranch is the type made of a titled inline union branch.
type titledBranch struct {
	t      *Type
	schema string
}

// flattenRefs replaces, in an anyOf tried in order, a branch that is a $ref
// to a def that is nothing but an anyOf by that def's branches (MCP's
// JSONRPCMessage lists JSONRPCResponse, itself an anyOf): a union variant
// cannot itself be a union in Go, and anyOf inside anyOf means the same
// flattened.
func (l *loader) flattenRefs(kw string, bs []binfo) []binfo {
	if kw != "anyOf" {
		return bs
	}
	var out []binfo
	for _, b := range bs {
		if b.part == "" && b.tat.Key() != b.at.Key() && b.tn.IsObject() && unionKeyword(b.tn) == "anyOf" && onlyUnionDef(b.tn) {
			var inner []binfo
			for i, x := range b.tn.Get("anyOf").Items() {
				at := b.tat.Child("anyOf", i)
				tat, tn := l.deref(at, x)
				if isNullSchema(tn) {
					continue
				}
				inner = append(inner, binfo{branch: branch{at, x, b.index}, tat: tat, tn: tn, js: jsonTypeOf(tn)})
			}
			out = append(out, l.flattenRefs(kw, l.expand(kw, inner))...)
			continue
		}
		out = append(out, b)
	}
	return out
}

// onlyUnionDef is onlyUnion for a def (dshgen keywords allowed too).
func onlyUnionDef(n *node) bool {
	for _, k := range n.Keys() {
		switch k {
		case "anyOf", "description", "title", "$comment", "examples", "default":
		default:
			if !strings.HasPrefix(k, "x-") {
				return false
			}
		}
	}
	return true
}

// checkUnionTag checks an x-union-tag (usually from an overlay): every
// branch must be an object that requires the member with a string const,
// each branch its own value. Otherwise it records a problem at the
// keyword and reports false: a tag that some valid values lack would make
// the bindings refuse them.
func (l *loader) checkUnionTag(at loc, tag string, bs []binfo) bool {
	seen := map[string]string{}
	for _, b := range bs {
		val, ok := "", false
		if b.js == "object" && b.part == "" && requiredSet(b.tn)[tag] {
			val, ok = l.constOf(b, tag)
		}
		if !ok {
			l.problem(at.Child(kwUnionTag.Name),
				fmt.Sprintf("x-union-tag names member %q, but branch %s does not require it with a string const: values of that branch would not decode", tag, b.at.Ptr),
				"remove the entry (a union no member tells apart is decoded by ordered tries) or name a member every branch requires with a const of its own")
			return false
		}
		if prev, dup := seen[val]; dup {
			l.problem(at.Child(kwUnionTag.Name),
				fmt.Sprintf("x-union-tag names member %q, but branches %s and %s both pin it to %q", tag, prev, b.at.Ptr, val),
				"remove the entry or name a member whose const differs in every branch")
			return false
		}
		seen[val] = b.at.Ptr
	}
	return true
}

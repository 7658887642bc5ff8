package ir

import (
	"fmt"
	"github.com/dshgen/dshgen/gen/schemadoc"
	"sort"
	"strings"
)

// typeAt returns the named type defined at at, building it on first use.
// The type is registered before its members are built, so recursion through
// members resolves to the same *Type.
func (l *loader) typeAt(at loc) *Type {
	if t, ok := l.types[at.Key()]; ok {
		return t
	}
	n := at.Node()
	name := ""
	if isDefLoc(at) {
		name = defName(at)
	}
	if n != nil && n.Kind() == schemadoc.Object && n.StrOf("title") != "" && !isDefLoc(at) {
		name = n.StrOf("title")
	}
	return l.newType(at, n, name)
}

// newType registers and builds a named type called name at at.
func (l *loader) newType(at loc, n *node, name string) *Type {
	t := &Type{Name: name, Pointer: l.pointerOf(at)}
	l.types[at.Key()] = t
	l.typeLocs[t] = at
	if n == nil {
		l.problem(at, "no schema here", "")
		t.Kind, t.Alias = KindAlias, &TypeRef{Kind: RefJSON}
		return t
	}
	t.Names = typeNames(name, overridesOf(n))
	if n.Kind() == schemadoc.Object {
		t.Description = n.StrOf("description")
	}
	l.fill(t, at, n)
	return t
}

// schema shape helpers -------------------------------------------------------

// typeList returns the "type" keyword as a list and whether it includes null.
func typeList(n *node) ([]string, bool) {
	tn := n.Get("type")
	if tn == nil {
		return nil, false
	}
	var out []string
	null := false
	add := func(s string) {
		if s == "null" {
			null = true
			return
		}
		out = append(out, s)
	}
	if tn.Kind() == schemadoc.String {
		add(tn.Str())
	} else if tn.Kind() == schemadoc.Array {
		for _, it := range tn.Items() {
			if it.Kind() == schemadoc.String {
				add(it.Str())
			}
		}
	}
	return out, null
}

// unionKeyword returns "oneOf" or "anyOf" when n is a union node.
func unionKeyword(n *node) string {
	for _, k := range []string{"oneOf", "anyOf"} {
		if v := n.Get(k); v != nil && v.Kind() == schemadoc.Array && len(v.Items()) > 0 {
			return k
		}
	}
	return ""
}

// isNullSchema reports whether n only allows null.
func isNullSchema(n *node) bool {
	if n == nil || n.Kind() != schemadoc.Object {
		return false
	}
	ts, null := typeList(n)
	if null && len(ts) == 0 {
		return true
	}
	if c := n.Get("const"); c != nil && c.Kind() == schemadoc.Null {
		return true
	}
	return false
}

// jsonTypeOf returns the one JSON type a (dereferenced) branch accepts, or "".
func jsonTypeOf(n *node) string {
	if n == nil || n.Kind() != schemadoc.Object {
		return ""
	}
	if c := n.Get("const"); c != nil {
		return c.Kind().String()
	}
	if e := n.Get("enum"); e != nil && e.Kind() == schemadoc.Array && len(e.Items()) > 0 {
		k := e.Items()[0].Kind()
		for _, it := range e.Items() {
			if it.Kind() != k {
				return ""
			}
		}
		return k.String()
	}
	ts, null := typeList(n)
	if len(ts) == 1 && !null {
		if ts[0] == "integer" {
			return "number"
		}
		return ts[0]
	}
	if len(ts) == 0 && (n.Has("properties") || n.Has("additionalProperties") || n.Has("required")) {
		return "object"
	}
	if len(ts) == 0 && n.Has("items") {
		return "array"
	}
	return ""
}

// isJSONValueUnion reports whether the union branches accept every JSON
// value: null, boolean, number, string, array and object (of anything).
func (l *loader) isJSONValueUnion(at loc, kw string, n *node) bool {
	seen := map[string]bool{}
	for i, b := range n.Get(kw).Items() {
		_, bn := l.deref(at.Child(kw, i), b)
		if bn == nil || bn.Kind() != schemadoc.Object {
			return false
		}
		if bn.Has("properties") || bn.Has("required") || bn.Has("const") || bn.Has("enum") {
			return false
		}
		ts, null := typeList(bn)
		if null {
			seen["null"] = true
		}
		for _, t := range ts {
			if t == "integer" {
				t = "integer-only"
			}
			seen[t] = true
		}
	}
	for _, t := range []string{"null", "boolean", "number", "string", "array", "object"} {
		if !seen[t] {
			return false
		}
	}
	return true
}

// fill decides a named type's kind and builds it.
func (l *loader) fill(t *Type, at loc, n *node) {
	if n.Kind() == schemadoc.Bool {
		if !n.Bool() {
			l.problem(at, "the false schema accepts nothing and cannot be a type", "")
		}
		t.Kind, t.Alias = KindAlias, &TypeRef{Kind: RefJSON}
		return
	}
	if n.Kind() != schemadoc.Object {
		l.problem(at, "a schema must be an object or a boolean", "")
		t.Kind, t.Alias = KindAlias, &TypeRef{Kind: RefJSON}
		return
	}
	if l.dynamicRef(at, n) {
		t.Kind, t.Alias = KindAlias, &TypeRef{Kind: RefJSON}
		return
	}
	if n.Has("$ref") {
		// A named alias of another schema.
		r := l.use(at, n, t.Name)
		t.Kind, t.Alias = KindAlias, &r
		return
	}
	if kw := unionKeyword(n); kw != "" {
		switch {
		case l.isJSONValueUnion(at, kw, n):
			t.Kind, t.Alias = KindAlias, &TypeRef{Kind: RefJSON}
		case l.constStrings(at, kw, n) != nil:
			t.Kind = KindEnum
			for i, v := range l.constStrings(at, kw, n) {
				t.Enum = append(t.Enum, &EnumValue{Value: v, Pointer: l.pointerOf(at.Child(kw, i))})
			}
			l.enumNames(t, at, n)
		default:
			branches, nullable := l.nonNullBranches(at, kw, n)
			if len(branches) == 1 {
				r := l.use(branches[0].at, branches[0].n, t.Name+"Value")
				r.Nullable = r.Nullable || nullable
				t.Kind, t.Alias = KindAlias, &r
				return
			}
			if nullable {
				l.problem(at.Child(kw), "a named union cannot include null", "remove the null branch here and allow null where the union is used ({\"anyOf\": [{\"$ref\": ...}, {\"type\": \"null\"}]})")
			}
			t.Kind = KindUnion
			l.union(t, at, n, kw, branches)
		}
		return
	}
	if vals, ok := stringEnum(n); ok {
		t.Kind = KindEnum
		for i, v := range vals {
			p := at.Child("enum", i)
			if !n.Has("enum") {
				p = at.Child("const")
			}
			t.Enum = append(t.Enum, &EnumValue{Value: v, Pointer: l.pointerOf(p)})
		}
		l.enumNames(t, at, n)
		return
	}
	ts, tnull := typeList(n)
	if len(typeParts(n)) > 1 && !n.Has("properties") {
		if tnull && isDefLoc(at) {
			// A nullable type list: the def is the union, null allowed.
			vt := l.newTypeKey(at.Key()+"|nonnull", at.Child("type"), n, t.Name+"Value")
			l.typeListUnion(vt, at, n)
			t.Kind, t.Alias = KindAlias, &TypeRef{Kind: RefNamed, Named: vt, Nullable: true}
			return
		}
		l.typeListUnion(t, at, n)
		return
	}
	if n.Has("allOf") && !n.Has("$ref") {
		if l.allOf(t, at, n) {
			return
		}
	}
	isObj := (len(ts) == 1 && ts[0] == "object") || (len(ts) == 0 && n.Has("properties"))
	if isObj && (n.Has("properties") || n.Has("required")) {
		t.Kind = KindObject
		l.object(t, at, n)
		return
	}
	r := l.shapeRef(at, n, t.Name+"Value")
	t.Kind, t.Alias = KindAlias, &r
}

// stringEnum returns the values of a string enum or a string const.
func stringEnum(n *node) ([]string, bool) {
	if c := n.Get("const"); c != nil {
		if c.Kind() == schemadoc.String {
			return []string{c.Str()}, true
		}
		return nil, false
	}
	e := n.Get("enum")
	if e == nil || e.Kind() != schemadoc.Array || len(e.Items()) == 0 {
		return nil, false
	}
	var out []string
	for _, it := range e.Items() {
		if it.Kind() != schemadoc.String {
			return nil, false
		}
		out = append(out, it.Str())
	}
	return out, true
}

// constStrings returns the values when every union branch is a string const.
func (l *loader) constStrings(at loc, kw string, n *node) []string {
	var out []string
	for i, b := range n.Get(kw).Items() {
		_, bn := l.deref(at.Child(kw, i), b)
		if bn == nil || bn.Kind() != schemadoc.Object {
			return nil
		}
		c := bn.Get("const")
		if c == nil || c.Kind() != schemadoc.String || bn.Has("properties") {
			return nil
		}
		out = append(out, c.Str())
	}
	return out
}

type branch struct {
	at    loc // where the branch is written (…/oneOf/i)
	n     *node
	index int
}

// nonNullBranches returns the union's branches other than a null-only one.
func (l *loader) nonNullBranches(at loc, kw string, n *node) ([]branch, bool) {
	var out []branch
	nullable := false
	for i, b := range n.Get(kw).Items() {
		_, bn := l.deref(at.Child(kw, i), b)
		if isNullSchema(bn) {
			nullable = true
			continue
		}
		out = append(out, branch{at.Child(kw, i), b, i})
	}
	return out, nullable
}

// enumNames computes the Go constant names of an enum's values.
func (l *loader) enumNames(t *Type, at loc, n *node) {
	var custom []string
	if xn := n.Get(kwEnumNames.Name); xn != nil && xn.Kind() == schemadoc.Array {
		for _, it := range xn.Items() {
			custom = append(custom, it.Str())
		}
		if len(custom) != len(t.Enum) {
			l.problem(at.Child(kwEnumNames.Name), fmt.Sprintf("x-enum-names has %d names for %d values", len(custom), len(t.Enum)), "")
			custom = nil
		}
	}
	// Values that are not identifiers are spelled (spellName); two values
	// that still land on one name are both spelled exactly (exactSpelling);
	// a collision left after that (values that differ only in case) is
	// reported by checkNames.
	bases := make([]string, len(t.Enum))
	count := map[string]int{}
	for i, v := range t.Enum {
		bases[i] = spellName(v.Value)
		if custom != nil {
			bases[i] = custom[i]
		}
		count[goPascal(bases[i])]++
	}
	if custom == nil {
		for i, v := range t.Enum {
			if count[goPascal(bases[i])] > 1 {
				bases[i] = exactSpelling(v.Value)
			}
		}
	}
	for i, v := range t.Enum {
		base := bases[i]
		v.Names[LangGo] = t.Names[LangGo] + goPascal(base)
		v.Names[LangPython] = upperSnake(base)
		v.Names[LangTS] = pascal(base)
		if goPascal(base) == "" {
			l.problem(loc{Doc: at.Doc, Ptr: fragOf(v.Pointer)},
				fmt.Sprintf("enum value %q has no letter or digit to name a constant after", v.Value),
				"add \"x-enum-names\": [...] beside the enum with one identifier per value")
			continue
		}
	}
}

// object builds a KindObject type's fields.
func (l *loader) object(t *Type, at loc, n *node) {
	l.objectParts(t, at, n, []objPart{{at, n}})
}

// objPart is one schema whose members an object type has: the type's own
// schema, or one allOf member (a $ref followed).
type objPart struct {
	at loc
	n  *node
}

// objectParts builds a KindObject type's fields from its own schema (at, n)
// and its allOf parts (see allOf): members in the order first declared; a
// member declared by several parts takes the first declaration, unless a
// later one pins a const (the more specific schema); required if any part
// requires it. additionalProperties comes from the type's own schema.
func (l *loader) objectParts(t *Type, at loc, n *node, parts []objPart) {
	required := map[string]bool{}
	for _, p := range parts {
		for k := range requiredSet(p.n) {
			required[k] = true
		}
	}
	declared := map[string]*Field{}
	for _, part := range parts {
		props := part.n.Get("properties")
		if props == nil || props.Kind() != schemadoc.Object {
			continue
		}
		for _, key := range props.Keys() {
			p := props.Get(key)
			pat := part.at.Child("properties", key)
			_, pn := l.deref(pat, p)
			hasConst := pn.Get("const") != nil && !isNamed(pat, p)
			prev := declared[key]
			if prev != nil && (prev.Const != nil || !hasConst) {
				continue
			}
			f := &Field{Wire: key, Pointer: l.pointerOf(pat), Required: required[key]}
			f.Names = fieldNames(key, overridesOf(p))
			if p.Kind() == schemadoc.Object {
				f.Description = p.StrOf("description")
			}
			if prev != nil && f.Description == "" {
				f.Description = prev.Description
			}
			if hasConst {
				c := pn.Get("const")
				s := c.Compact()
				f.Const = &s
				f.Type = TypeRef{Kind: primitiveOf(c)}
			} else {
				f.Type = l.use(pat, p, t.Name+pascal(key))
			}
			if prev != nil {
				*prev = *f
				continue
			}
			declared[key] = f
			t.Fields = append(t.Fields, f)
		}
	}
	for _, part := range parts {
		if rq := part.n.Get("required"); rq != nil && rq.Kind() == schemadoc.Array {
			for i, it := range rq.Items() {
				if declared[it.Str()] == nil {
					l.problem(part.at.Child("required", i), fmt.Sprintf("required member %q is not declared in properties, so no binding can type it", it.Str()), "declare it under properties")
				}
			}
		}
	}
	ap := n.Get("additionalProperties")
	if ap == nil {
		if up := n.Get("unevaluatedProperties"); up != nil && up.Kind() == schemadoc.Bool && !up.Bool() {
			t.Closed = true
		}
		return
	}
	if ap.Kind() == schemadoc.Bool {
		t.Closed = !ap.Bool()
		return
	}
	r := l.use(at.Child("additionalProperties"), ap, t.Name+"Value")
	if r.Kind != RefJSON {
		t.Extra = &r
	}
}

// primitiveOf returns the RefKind of a const value.
func primitiveOf(c *node) RefKind {
	switch c.Kind() {
	case schemadoc.String:
		return RefString
	case schemadoc.Bool:
		return RefBoolean
	case schemadoc.Number:
		if strings.ContainsAny(c.Number().String(), ".eE") {
			return RefNumber
		}
		return RefInteger
	case schemadoc.Null:
		return RefNull
	}
	return RefJSON
}

// use converts one use of a schema (a property, an item, a branch) into a
// TypeRef. Named things become RefNamed; anonymous ones must be expressible
// without a name (primitives, arrays, maps, JSON values, nullable forms).
//
// hint names an anonymous object or union met here (derived from the
// enclosing type and member: TurnStartEvent + data → TurnStartEventData);
// "" means no name can be derived, and such a schema is an error.
func (l *loader) use(at loc, n *node, hint string) TypeRef {
	l.depth++
	defer func() { l.depth-- }()
	if l.depth > 128 {
		l.problem(at, "schema nesting too deep (a $ref loop through non-$defs locations?)", "")
		return TypeRef{Kind: RefJSON}
	}
	if n == nil {
		return TypeRef{Kind: RefJSON}
	}
	if n.Kind() == schemadoc.Bool {
		return TypeRef{Kind: RefJSON}
	}
	if n.Kind() != schemadoc.Object {
		l.problem(at, "a schema must be an object or a boolean", "")
		return TypeRef{Kind: RefJSON}
	}
	if l.dynamicRef(at, n) {
		return TypeRef{Kind: RefJSON}
	}
	if ref := n.StrOf("$ref"); ref != "" {
		target, err := l.refTarget(at.Doc, ref)
		if err != nil {
			l.problem(at.Child("$ref"), err.Error(), schemadoc.Hint(err))
			return TypeRef{Kind: RefJSON}
		}
		tn := target.Node()
		if tn == nil {
			return TypeRef{Kind: RefJSON}
		}
		if isNamed(target, tn) {
			return TypeRef{Kind: RefNamed, Named: l.typeAt(target)}
		}
		return l.use(target, tn, hint)
	}
	if isNamed(at, n) {
		return TypeRef{Kind: RefNamed, Named: l.typeAt(at)}
	}
	return l.shapeRef(at, n, hint)
}

// dynamicRef reports (and records as a problem) a $dynamicRef or
// $recursiveRef: which schema it names depends on the validation path, so
// no binding can type it (the bindings would silently hold any JSON).
func (l *loader) dynamicRef(at loc, n *node) bool {
	for _, kw := range []string{"$dynamicRef", "$recursiveRef"} {
		if n.Has(kw) {
			l.problem(at.Child(kw), kw+" is not supported: the schema it names depends on where validation came from, so no binding can type it", "use $ref to the schema it should name")
			return true
		}
	}
	return false
}

// anonymous names an anonymous object or union at at after hint, or reports
// that it needs a name.
func (l *loader) anonymous(at loc, n *node, hint, what string) TypeRef {
	if hint == "" {
		l.problem(at, what+" needs a name", "give it a \"title\" or move it to $defs and $ref it")
		return TypeRef{Kind: RefJSON}
	}
	if t, ok := l.types[at.Key()]; ok {
		return TypeRef{Kind: RefNamed, Named: t}
	}
	return TypeRef{Kind: RefNamed, Named: l.newType(at, n, hint)}
}

// shapeRef converts an anonymous schema (no $ref, no name) into a TypeRef.
func (l *loader) shapeRef(at loc, n *node, hint string) TypeRef {
	if kw := unionKeyword(n); kw != "" {
		if l.isJSONValueUnion(at, kw, n) {
			return TypeRef{Kind: RefJSON}
		}
		branches, nullable := l.nonNullBranches(at, kw, n)
		if len(branches) == 1 {
			r := l.use(branches[0].at, branches[0].n, hint)
			r.Nullable = r.Nullable || nullable
			return r
		}
		if vals := l.constStrings(at, kw, n); vals != nil {
			return TypeRef{Kind: RefString, Enum: vals}
		}
		return l.anonymous(at, n, hint, "an inline union")
	}
	ts, nullable := typeList(n)
	if vals, ok := stringEnum(n); ok {
		return TypeRef{Kind: RefString, Enum: vals, Nullable: nullable}
	}
	if e := n.Get("enum"); e != nil && e.Kind() == schemadoc.Array {
		// An enum mixing null with strings is a nullable string enum.
		var vals []string
		ok := true
		for _, it := range e.Items() {
			switch it.Kind() {
			case schemadoc.String:
				vals = append(vals, it.Str())
			case schemadoc.Null:
				nullable = true
			default:
				ok = false
			}
		}
		if ok && len(vals) > 0 {
			return TypeRef{Kind: RefString, Enum: vals, Nullable: nullable}
		}
		return enumFallback(e, nullable)
	}
	if c := n.Get("const"); c != nil {
		return TypeRef{Kind: primitiveOf(c)}
	}
	if len(typeParts(n)) > 1 {
		r := l.anonymous(at, n, hint, "a type list")
		r.Nullable = nullable
		return r
	}
	if ap := n.Get("allOf"); ap != nil && ap.Kind() == schemadoc.Array {
		return l.anonymous(at, n, hint, "an inline allOf")
	}
	kind := ""
	if len(ts) == 1 {
		kind = ts[0]
	} else if nullable {
		return TypeRef{Kind: RefNull}
	} else if n.Has("properties") || n.Has("required") || n.Has("additionalProperties") {
		kind = "object"
	} else if n.Has("items") {
		kind = "array"
	}
	var r TypeRef
	switch kind {
	case "string":
		r = TypeRef{Kind: RefString}
	case "integer":
		r = TypeRef{Kind: RefInteger}
	case "number":
		r = TypeRef{Kind: RefNumber}
	case "boolean":
		r = TypeRef{Kind: RefBoolean}
	case "array":
		if n.Has("prefixItems") {
			l.problem(at.Child("prefixItems"), "tuples (prefixItems) are not supported", "use items with one schema")
		}
		elem := TypeRef{Kind: RefJSON}
		if it := n.Get("items"); it != nil {
			elem = l.use(at.Child("items"), it, suffixed(hint, "Item"))
		}
		r = TypeRef{Kind: RefArray, Elem: &elem}
	case "object":
		if p := n.Get("properties"); (p != nil && len(p.Keys()) > 0) || n.Has("required") {
			return l.anonymous(at, n, hint, "an inline object with properties")
		}
		elem := TypeRef{Kind: RefJSON}
		if ap := n.Get("additionalProperties"); ap != nil && ap.Kind() == schemadoc.Object {
			elem = l.use(at.Child("additionalProperties"), ap, suffixed(hint, "Value"))
		}
		r = TypeRef{Kind: RefMap, Elem: &elem}
	default:
		r = TypeRef{Kind: RefJSON}
	}
	r.Nullable = nullable
	return r
}

// union builds a KindUnion type from its non-null branches.
func (l *loader) union(t *Type, at loc, n *node, kw string, branches []branch) {
	u := &Union{Keyword: kw, FallbackIndex: -1}
	t.Union = u
	var bs []binfo
	for _, b := range branches {
		tat, tn := l.deref(b.at, b.n)
		bs = append(bs, binfo{branch: b, tat: tat, tn: tn, js: jsonTypeOf(tn)})
	}
	bs = l.expand(kw, bs)
	if tag := n.StrOf(kwUnionTag.Name); tag != "" && !l.checkUnionTag(at, tag, bs) {
		return
	}
	allObjects := true
	for _, b := range bs {
		if b.js != "object" || b.part != "" {
			allObjects = false
		}
	}
	if allObjects {
		if tag := l.findTag(n, bs); tag != "" {
			u.Tag, u.By = tag, ByTag
			seen := map[string]string{}
			var known []string
			for _, b := range bs {
				p := b.tn.Get("properties").Get(tag)
				if isFallbackTag(p) {
					if u.Open {
						l.problem(b.at, "a union may have only one fallback branch", "")
						continue
					}
					u.Open, u.FallbackIndex, u.FallbackPointer = true, b.index, l.pointerOf(b.at)
					if isNamed(b.tat, b.tn) {
						ft := l.typeAt(b.tat)
						l.fallback[ft] = t
						u.fallbackType = ft
					}
					continue
				}
				_, pn := l.deref(b.tat.Child("properties", tag), p)
				val := pn.Get("const").Str()
				if prev, dup := seen[val]; dup {
					l.problem(b.at, fmt.Sprintf("tag %s=%q is already used by branch %s", tag, val, prev), "give every branch its own tag value")
					continue
				}
				seen[val] = b.at.Ptr
				known = append(known, val)
				v := &Variant{TagValue: val, Index: b.index, Pointer: l.pointerOf(b.at), JSONType: "object"}
				sv := spellName(val)
				v.Names = Names{goPascal(sv), pascal(sv), pascal(sv)}
				if isNamed(b.tat, b.tn) {
					v.Type = l.typeAt(b.tat)
				} else {
					v.Type = l.newType(b.tat, b.tn, t.Name+pascal(sv))
				}
				u.Variants = append(u.Variants, v)
			}
			if u.Open {
				fb := byIndex(bs, u.FallbackIndex)
				l.checkFallbackEnum(fb.tat, fb.tn, tag, known)
			}
			return
		}
	}
	// By JSON type: branches of distinct JSON types.
	distinct := map[string]bool{}
	okTypes := true
	for _, b := range bs {
		if b.js == "" || distinct[b.js] {
			okTypes = false
			break
		}
		distinct[b.js] = true
	}
	if okTypes {
		u.By = ByJSONType
		for _, b := range bs {
			v := &Variant{TagValue: b.js, JSONType: b.js, Index: b.index, Pointer: l.pointerOf(b.at)}
			switch {
			case b.part != "":
				v.Type = l.partType(b, t.Name+pascal(b.part))
			case isNamed(b.tat, b.tn):
				v.Type = l.typeAt(b.tat)
			case b.js == "object" && b.tn.Has("properties"):
				if v.Type = l.branchType(t, b, bs); v.Type == nil {
					continue
				}
			default:
				suffix := b.js
				if ts, _ := typeList(b.tn); len(ts) == 1 {
					suffix = ts[0]
				}
				if c := b.tn.Get("const"); c != nil && c.Kind() == schemadoc.String {
					suffix = c.Str()
				}
				v.Type = l.newType(b.tat, b.tn, t.Name+pascal(suffix))
			}
			v.Names = v.Type.Names
			u.Variants = append(u.Variants, v)
		}
		return
	}
	// By shape: closed objects told apart by their required members.
	if allObjects && l.shapeDistinct(bs2nodes(bs)) {
		u.By = ByShape
		for _, b := range bs {
			vt := l.branchType(t, b, bs)
			if vt == nil {
				continue
			}
			v := &Variant{JSONType: "object", Index: b.index, Pointer: l.pointerOf(b.at), Type: vt}
			v.Names = v.Type.Names
			v.TagValue = v.Type.Name
			if rq := b.tn.Get("required"); rq != nil {
				for _, it := range rq.Items() {
					v.Required = append(v.Required, it.Str())
				}
			}
			u.Variants = append(u.Variants, v)
		}
		return
	}
	// Nothing above separates the branches: ordered tries.
	l.tryUnion(t, u, l.flattenRefs(kw, bs))
}

// binfo is a union branch with its dereferenced target and JSON type.
type binfo struct {
	branch
	tat loc   // dereferenced location
	tn  *node // dereferenced node
	js  string
	// part is the JSON type when the branch is one part of a split "type"
	// list ("" otherwise).
	part string
}

func bs2nodes(xs []binfo) []*node {
	out := make([]*node, len(xs))
	for i, x := range xs {
		out[i] = x.tn
	}
	return out
}

// byIndex returns the branch whose oneOf/anyOf index is idx.
func byIndex(bs []binfo, idx int) binfo {
	for _, b := range bs {
		if b.index == idx {
			return b
		}
	}
	return bs[0]
}

// isFallbackTag reports whether a tag property schema is the open-union
// fallback form {"type": "string", "not": {"enum": [...]}}.
func isFallbackTag(p *node) bool {
	if p == nil || p.Kind() != schemadoc.Object {
		return false
	}
	nt := p.Get("not")
	return nt != nil && nt.Get("enum") != nil && !p.Has("const")
}

// findTag returns the tag member of an all-object union, or "".
func (l *loader) findTag(n *node, branches []binfo) string {
	if tag := n.StrOf(kwUnionTag.Name); tag != "" {
		return tag // checked by checkUnionTag
	}
	if d := n.Get("discriminator"); d != nil {
		if pn := d.StrOf("propertyName"); pn != "" {
			return pn
		}
	}
	var cands map[string]bool
	tagged := 0
	for _, bi := range branches {
		b := bi.tn
		props := b.Get("properties")
		own := map[string]bool{}
		rq := map[string]bool{}
		if r := b.Get("required"); r != nil {
			for _, it := range r.Items() {
				rq[it.Str()] = true
			}
		}
		fallbackOnly := false
		if props != nil {
			for _, k := range props.Keys() {
				p := props.Get(k)
				_, pn := l.deref(bi.tat.Child("properties", k), p)
				if pn != nil && pn.Get("const") != nil && pn.Get("const").Kind() == schemadoc.String && rq[k] {
					own[k] = true
				}
				if isFallbackTag(p) {
					fallbackOnly = true
				}
			}
		}
		if len(own) == 0 && fallbackOnly {
			continue // the fallback branch does not vote
		}
		tagged++
		if cands == nil {
			cands = own
			continue
		}
		for k := range cands {
			if !own[k] {
				delete(cands, k)
			}
		}
	}
	// A discriminator tells branches apart: its values must differ.
	for k := range cands {
		vals := map[string]bool{}
		for _, bi := range branches {
			if c := bi.tn.Get("properties").Get(k).Get("const"); c != nil {
				if vals[c.Str()] {
					delete(cands, k)
					break
				}
				vals[c.Str()] = true
			}
		}
	}
	if tagged == 0 || len(cands) == 0 {
		return ""
	}
	if len(cands) == 1 {
		for k := range cands {
			return k
		}
	}
	for _, pref := range []string{"type", "kind", "op", "mode", "operation"} {
		if cands[pref] {
			return pref
		}
	}
	keys := make([]string, 0, len(cands))
	for k := range cands {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys[0]
}

// checkFallbackEnum checks that the fallback's not-enum lists exactly the
// known tags.
func (l *loader) checkFallbackEnum(at loc, n *node, tag string, known []string) {
	p := n.Get("properties").Get(tag)
	e := p.Get("not").Get("enum")
	listed := map[string]bool{}
	for _, it := range e.Items() {
		listed[it.Str()] = true
	}
	var missing, extra []string
	k := map[string]bool{}
	for _, v := range known {
		k[v] = true
		if !listed[v] {
			missing = append(missing, v)
		}
	}
	for v := range listed {
		if !k[v] {
			extra = append(extra, v)
		}
	}
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		l.problem(at.Child("properties", tag, "not", "enum"),
			fmt.Sprintf("the fallback branch's not-enum must list exactly the known tags (missing %v, not a branch %v)", missing, extra), "")
	}
}

// shapeDistinct reports whether closed object branches each require a
// member no other branch declares.
func (l *loader) shapeDistinct(branches []*node) bool {
	for i, b := range branches {
		ap := b.Get("additionalProperties")
		if ap == nil || ap.Kind() != schemadoc.Bool || ap.Bool() {
			return false
		}
		rq := b.Get("required")
		if rq == nil {
			return false
		}
		found := false
		for _, it := range rq.Items() {
			unique := true
			for j, o := range branches {
				if j != i && o.Get("properties").Has(it.Str()) {
					unique = false
				}
			}
			if unique {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func suffixed(hint, s string) string {
	if hint == "" {
		return ""
	}
	return hint + s
}

// enumFallback types an enum that is not strings (and null): values of one
// JSON type are that type (integers, numbers, booleans); values of several
// types are any JSON value. Either way the validator checks the listed
// values; the binding holds what the schema's JSON types allow (see
// "Unions" in README.md).
func enumFallback(e *node, nullable bool) TypeRef {
	kind := RefKind(-1)
	for _, it := range e.Items() {
		if it.Kind() == schemadoc.Null {
			nullable = true
			continue
		}
		k := primitiveOf(it)
		switch {
		case kind == -1:
			kind = k
		case kind == k:
		case (kind == RefInteger && k == RefNumber) || (kind == RefNumber && k == RefInteger):
			kind = RefNumber
		default:
			return TypeRef{Kind: RefJSON}
		}
	}
	if kind == -1 {
		return TypeRef{Kind: RefNull}
	}
	return TypeRef{Kind: kind, Nullable: nullable && kind != RefJSON}
}

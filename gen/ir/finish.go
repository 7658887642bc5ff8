package ir

import (
	"fmt"
	"go/token"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// finish fills the model's type list and cross links, then checks recursion
// and names.
func (l *loader) finish(m *Model) {
	for _, t := range l.types {
		m.Types = append(m.Types, t)
	}
	sort.Slice(m.Types, func(i, j int) bool {
		if m.Types[i].Name != m.Types[j].Name {
			return m.Types[i].Name < m.Types[j].Name
		}
		return m.Types[i].Pointer < m.Types[j].Pointer
	})
	for _, t := range m.Types {
		m.byPointer[t.Pointer] = t
		if u := l.fallback[t]; u != nil {
			t.FallbackOf = u
		}
	}
	for _, t := range append(append([]*Type(nil), m.Types...), l.results...) {
		if t.Kind == KindUnion {
			for _, v := range t.Union.Variants {
				if v.Type != nil {
					v.Type.Unions = append(v.Type.Unions, t)
				}
			}
		}
	}
	l.unknownVariants(m)
	maps := l.methodMaps(m)
	l.checkCycles(m)
	l.checkNames(m, maps)
}

// unknownVariants gives every tagged union its Unknown variant and lists
// what the bindings declare (Model.Decls).
func (l *loader) unknownVariants(m *Model) {
	for _, t := range append(append([]*Type(nil), m.Types...), l.results...) {
		if t.Kind != KindUnion || t.Union.By != ByTag {
			continue
		}
		u := &Type{Kind: KindUnknown, UnknownOf: t, Unions: []*Type{t}}
		if ft := t.Union.fallbackType; ft != nil {
			u.Name, u.Names, u.Pointer, u.Description, u.Fallback = ft.Name, ft.Names, ft.Pointer, ft.Description, ft
			l.typeLocs[u] = l.typeLocs[ft]
		} else {
			u.Name = t.Name + "Unknown"
			u.Names = typeNames(u.Name, overrides{})
			u.Pointer = t.Pointer
			l.typeLocs[u] = l.typeLocs[t]
		}
		t.Union.Unknown = u
		m.Decls = append(m.Decls, u)
	}
	for _, t := range m.Types {
		if t.FallbackOf == nil {
			m.Decls = append(m.Decls, t)
		}
		// A schema type that is any JSON value and named JsonValue is the
		// TypeScript package's own JsonValue (printed with its
		// description), not a second type escaped to JsonValue_.
		if n := t.Names[LangTS]; n == tsJSONValue+"_" && t.Kind == KindAlias && t.Alias.Kind == RefJSON && !t.Alias.Nullable {
			t.Names[LangTS] = tsJSONValue
		}
	}
	m.Decls = append(m.Decls, l.results...)
	sort.SliceStable(m.Decls, func(i, j int) bool {
		if m.Decls[i].Name != m.Decls[j].Name {
			return m.Decls[i].Name < m.Decls[j].Name
		}
		return m.Decls[i].Pointer < m.Decls[j].Pointer
	})
}

// tsJSONValue is the any-JSON type the TypeScript package declares.
const tsJSONValue = "JsonValue"

// refsOf lists the named types a TypeRef mentions and whether the mention is
// "by value" (required, not nullable, not inside an array or map).
func refsOf(r *TypeRef, byValue bool, visit func(t *Type, byValue bool)) {
	switch r.Kind {
	case RefNamed:
		visit(r.Named, byValue && !r.Nullable)
	case RefArray, RefMap:
		refsOf(r.Elem, false, visit)
	}
}

// edges lists the named types t mentions directly.
func edges(t *Type, visit func(u *Type, byValue bool)) {
	switch t.Kind {
	case KindObject:
		for _, f := range t.Fields {
			refsOf(&f.Type, f.Required, visit)
		}
		if t.Extra != nil {
			refsOf(t.Extra, false, visit)
		}
	case KindAlias:
		refsOf(t.Alias, true, visit)
	case KindUnion:
		for _, v := range t.Union.Variants {
			if v.Type != nil {
				visit(v.Type, false)
			}
		}
	}
}

// checkCycles reports $ref cycles that describe nothing (alias → alias → …)
// and by-value member cycles (no finite JSON value has them), and marks the
// recursive types.
func (l *loader) checkCycles(m *Model) {
	// Alias chains.
	reported := map[*Type]bool{}
	for _, t := range m.Types {
		var chain []*Type
		seen := map[*Type]int{}
		cur := t
		for cur != nil && cur.Kind == KindAlias && cur.Alias.Kind == RefNamed {
			if i, ok := seen[cur]; ok {
				cyc := chain[i:]
				if !reported[cyc[0]] {
					for _, c := range cyc {
						reported[c] = true
					}
					l.cycleProblem(cyc, "a $ref cycle with nothing in between: no JSON value can be checked against it")
				}
				break
			}
			seen[cur] = len(chain)
			chain = append(chain, cur)
			cur = cur.Alias.Named
		}
	}
	// By-value cycles through required, non-nullable object members.
	state := map[*Type]int{} // 0 new, 1 on stack, 2 done
	var stack []*Type
	var dfs func(t *Type)
	dfs = func(t *Type) {
		state[t] = 1
		stack = append(stack, t)
		edges(t, func(u *Type, byValue bool) {
			if !byValue || t.Kind == KindUnion || u.Kind == KindUnion || reported[u] {
				return
			}
			switch state[u] {
			case 0:
				dfs(u)
			case 1:
				for i, s := range stack {
					if s == u {
						cyc := append([]*Type{}, stack[i:]...)
						if !reported[cyc[0]] {
							for _, c := range cyc {
								reported[c] = true
							}
							l.cycleProblem(cyc, "a cycle of required members: no finite JSON value has this shape")
						}
					}
				}
			}
		})
		stack = stack[:len(stack)-1]
		state[t] = 2
	}
	for _, t := range m.Types {
		if state[t] == 0 {
			dfs(t)
		}
	}
	// Recursive: t reaches itself through any mention.
	for _, t := range m.Types {
		seen := map[*Type]bool{}
		var reach func(u *Type) bool
		reach = func(u *Type) bool {
			found := false
			edges(u, func(v *Type, _ bool) {
				if found {
					return
				}
				if v == t {
					found = true
					return
				}
				if !seen[v] {
					seen[v] = true
					found = reach(v)
				}
			})
			return found
		}
		t.Recursive = reach(t)
	}
}

func (l *loader) cycleProblem(cyc []*Type, why string) {
	parts := make([]string, 0, len(cyc)+1)
	for _, c := range cyc {
		parts = append(parts, c.Pointer)
	}
	parts = append(parts, cyc[0].Pointer)
	l.problem(l.typeLocs[cyc[0]], fmt.Sprintf("%s: %s", why, strings.Join(parts, " → ")),
		"break the cycle: make one member optional or nullable, or put it in an array")
}

// claimKey is one identifier in one language namespace (space: an index
// into collisions.spaces).
type claimKey struct {
	space uint32
	lang  uint8
	ident string
}

// claimant is what claimed an identifier: label names it as a collision
// message does (a JSON pointer without '#', or a description such as
// "the generated SDK's Client"); fn marks the function derived from it,
// whose text is only built when two claimants meet.
type claimant struct {
	label string
	fn    bool
}

// text is the claimant as the collision message names it: the label, or
// for a function "<label> (its <Lang> <ident> function)".
func (cl claimant) text(lang Lang, ident string) string {
	if !cl.fn {
		return cl.label
	}
	return cl.label + " (its " + lang.String() + " " + ident + " function)"
}

// collisions gathers claims per language and reports pairs that clash,
// one problem per pair listing every language where the pair collides.
type collisions struct {
	l *loader
	// spaces numbers the namespaces by name ("types", "methods",
	// "sdk client").
	spaces map[string]uint32
	// first is each identifier's first claimant in the namespaces of the
	// whole package (an object's members are checked in a map of their
	// own, see checkNames).
	first map[claimKey]claimant
	pairs map[[2]string][]string // (ptrA, ptrB) → "Lang (ident)"
	order [][2]string
	locs  map[[2]string]loc
}

// newCollisions returns an empty set of claims reporting to l.
func newCollisions(l *loader) *collisions {
	return &collisions{l: l, spaces: map[string]uint32{}, first: map[claimKey]claimant{},
		pairs: map[[2]string][]string{}, locs: map[[2]string]loc{}}
}

// space returns the number of the namespace called name.
func (c *collisions) space(name string) uint32 {
	n, ok := c.spaces[name]
	if !ok {
		n = uint32(len(c.spaces))
		c.spaces[name] = n
	}
	return n
}

// claim claims ident in space for a claimant named label.
func (c *collisions) claim(space string, lang Lang, ident, label string, at loc) {
	c.claimIn(c.first, c.space(space), lang, ident, claimant{label: label}, at)
}

// claimFunc claims ident in space for the function of the claimant named
// label (reported as "<label> (its <Lang> <ident> function)").
func (c *collisions) claimFunc(space string, lang Lang, ident, label string, at loc) {
	c.claimIn(c.first, c.space(space), lang, ident, claimant{label: label, fn: true}, at)
}

// claimIn claims ident in first (the map of every namespace, or one
// object's own members); a second claimant with another text makes a pair.
func (c *collisions) claimIn(first map[claimKey]claimant, space uint32, lang Lang, ident string, who claimant, at loc) {
	if ident == "" {
		return
	}
	key := claimKey{space, uint8(lang), ident}
	prev, ok := first[key]
	if !ok {
		first[key] = who
		return
	}
	if prev == who {
		return
	}
	a, b := prev.text(lang, ident), who.text(lang, ident)
	if a == b {
		return
	}
	pair := [2]string{a, b}
	if _, seen := c.pairs[pair]; !seen {
		c.order = append(c.order, pair)
		c.locs[pair] = at
	}
	c.pairs[pair] = append(c.pairs[pair], fmt.Sprintf("%s (%s)", lang, ident))
}

func (c *collisions) report() {
	for _, pair := range c.order {
		langs := c.pairs[pair]
		c.l.problem(c.locs[pair],
			fmt.Sprintf("name collision in %s: %s and %s map to the same identifier", strings.Join(dedupe(langs), ", "), pair[0], pair[1]),
			"rename one of them, or add \"x-name\" (all languages) or \"x-go-name\"/\"x-python-name\"/\"x-ts-name\" to one of them")
	}
}

func dedupe(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// ptrOnly returns a model pointer as collision messages name it: without
// the '#' of a pointer into the root document ("#/a" → "/a"); a pointer
// into another file ("f.json#/a") is kept as it is.
func ptrOnly(p string) string {
	return strings.TrimPrefix(p, "#")
}

// checkNames reports identifiers that two schema names fold onto.
func (l *loader) checkNames(m *Model, maps []methodMap) {
	unnameable := func(at loc, what, name string, names ...string) {
		for _, n := range names {
			if strings.Trim(n, "_") == "" {
				l.problem(at, fmt.Sprintf("%s %q has no letter or digit to name an identifier after", what, name),
					"add \"x-name\" (or x-go-name/x-python-name/x-ts-name) with an identifier")
				return
			}
		}
	}
	goIdent := func(at loc, what, name, ident string) {
		if strings.Trim(ident, "_") != "" && (!token.IsIdentifier(ident) || !token.IsExported(ident)) {
			l.problem(at, fmt.Sprintf("%s %q: Go identifier %q is not an exported Go identifier", what, name, ident),
				"make the x-go-name (or x-name) an identifier that starts with an upper-case letter")
		}
	}
	tsIdent := func(at loc, what, name, ident string) {
		if strings.Trim(ident, "_") != "" && !isUnicodeIdent(ident) {
			l.problem(at, fmt.Sprintf("%s %q: TypeScript name %q is not an identifier", what, name, ident),
				"make the x-ts-name (or x-name) an identifier")
		}
	}
	pyIdent := func(at loc, what, name, ident string) {
		if strings.Trim(ident, "_") != "" && !isIdent(ident, false) {
			l.problem(at, fmt.Sprintf("%s %q: Python name %q is not an identifier", what, name, ident),
				"make the x-python-name (or x-name) an identifier")
		}
	}
	for _, t := range m.Decls {
		at := l.typeLocs[t]
		unnameable(at, "type", t.Name, t.Names[:]...)
		goIdent(at, "type", t.Name, t.Names.Of(LangGo))
		pyIdent(at, "type", t.Name, t.Names.Of(LangPython))
		tsIdent(at, "type", t.Name, t.Names.Of(LangTS))
		for _, f := range t.Fields {
			fat := loc{Doc: at.Doc, Ptr: fragOf(f.Pointer)}
			unnameable(fat, "member", f.Wire, f.Names.Of(LangGo), f.Names.Of(LangPython))
			goIdent(fat, "member", f.Wire, strings.TrimSuffix(f.Names.Of(LangGo), "_"))
			pyIdent(fat, "member", f.Wire, f.Names.Of(LangPython))
		}
	}
	for _, me := range m.Methods {
		pyIdent(loc{Doc: l.set.Root(), Ptr: ptrOnly(me.Pointer)}, "method", me.Name, me.Names.Of(LangPython))
	}
	c := newCollisions(l)
	// What the generated runtimes declare comes first, so a name derived
	// from the schema (a Decode function, a method constant, a map name)
	// that lands on one of them is reported.
	r := mustReserved()
	root := loc{Doc: l.set.Root()}
	for _, n := range r.goPackage.Sorted() {
		c.claim("types", LangGo, n, r.goPackage[n], root)
	}
	for _, n := range r.pyMethods.Sorted() {
		c.claim("methods", LangPython, n, r.pyMethods[n], root)
	}
	l.claimSDKTypes(c, m)
	schemaJSON := false // the schema's any-JSON type takes the runtime's JsonValue (see unknownVariants)
	for _, t := range m.Decls {
		schemaJSON = schemaJSON || t.Names[LangTS] == tsJSONValue
	}
	for _, n := range r.tsTypes.Sorted() {
		if slices.Contains(sdkTypes[LangTS], n) {
			continue // the template's declaration of the SDK type claimed above
		}
		if n != tsJSONValue || !schemaJSON {
			c.claim("types", LangTS, n, r.tsTypes[n], root)
		}
	}
	// An object's members are a namespace of their own (its Go struct's
	// fields, its Python class's attributes), checked in a map of their
	// own that is emptied for the next object.
	members := map[claimKey]claimant{}
	for _, t := range m.Decls {
		at := l.typeLocs[t]
		tp := ptrOnly(t.Pointer)
		if t.Kind == KindUnknown {
			tp += " (the unknown-tag variant of " + ptrOnly(t.UnknownOf.Pointer) + ")"
		}
		for _, lang := range Langs {
			c.claim("types", lang, t.Names.Of(lang), tp, at)
		}
		goName := t.Names.Of(LangGo)
		switch {
		case t.Kind == KindUnion:
			// the Go Decode<Union> function shares the package namespace
			c.claimFunc("types", LangGo, "Decode"+goName, tp, at)
		case t.Kind == KindAlias && t.Alias.Kind != RefNamed:
			c.claimFunc("types", LangGo, "decode"+goName, tp, at)
		}
		if t.Kind == KindUnion || t.Kind == KindEnum || t.Kind == KindAlias {
			pyName := t.Names.Of(LangPython)
			c.claimFunc("types", LangPython, "decode_"+pyName, tp, at)
			c.claimFunc("types", LangPython, "encode_"+pyName, tp, at)
		}
		if t.Kind == KindEnum {
			for _, v := range t.Enum {
				c.claim("types", LangGo, v.Names.Of(LangGo), ptrOnly(v.Pointer), loc{Doc: at.Doc, Ptr: fragOf(v.Pointer)})
			}
		}
		if t.Kind == KindObject {
			clear(members)
			for _, f := range t.Fields {
				fat := loc{Doc: at.Doc, Ptr: fragOf(f.Pointer)}
				c.claimIn(members, 0, LangGo, f.Names.Of(LangGo), claimant{label: ptrOnly(f.Pointer)}, fat)
				c.claimIn(members, 0, LangPython, f.Names.Of(LangPython), claimant{label: ptrOnly(f.Pointer)}, fat)
			}
		}
	}
	for _, me := range m.Methods {
		at := loc{Doc: l.set.Root(), Ptr: ptrOnly(me.Pointer)}
		c.claim("types", LangGo, "Method"+me.Names.Of(LangGo), ptrOnly(me.Pointer), at)
		c.claim("methods", LangPython, me.Names.Of(LangPython), ptrOnly(me.Pointer), at)
		c.claim("methods", LangTS, me.Names.Of(LangTS), ptrOnly(me.Pointer), at)
	}
	// The TypeScript map names share the package's export namespace (the
	// Go and Python ones are fixed and reserved, see reserved.go).
	for _, mp := range maps {
		c.claim("types", LangTS, mp.name, mp.source, loc{Doc: l.set.Root(), Ptr: mp.pointer})
	}
	l.checkSDKNames(c, m.SDK)
	c.report()
}

// fragOf returns the JSON pointer fragment of a model pointer ("#/a/b" or
// "file.json#/a/b" → "/a/b").
func fragOf(p string) string {
	if i := strings.Index(p, "#"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// isUnicodeIdent reports whether s is an ECMAScript-style identifier
// (letters, digits, _ and $; not starting with a digit).
func isUnicodeIdent(s string) bool {
	for i, r := range s {
		ok := r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))
		if !ok {
			return false
		}
	}
	return s != ""
}

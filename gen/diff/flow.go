package diff

import "github.com/dshgen/dshgen/gen"

// dirSet is the set of directions a payload type travels in.
type dirSet uint8

const (
	dirC2S dirSet = 1 << iota
	dirS2C
	dirBoth = dirC2S | dirS2C
)

// names lists the directions in report order.
func (d dirSet) names() []string {
	var out []string
	if d&dirC2S != 0 {
		out = append(out, string(gen.ClientToServer))
	}
	if d&dirS2C != 0 {
		out = append(out, string(gen.ServerToClient))
	}
	return out
}

func dirOf(d gen.Direction) dirSet {
	if d == gen.ServerToClient {
		return dirS2C
	}
	return dirC2S
}

func opposite(d dirSet) dirSet {
	switch d {
	case dirC2S:
		return dirS2C
	case dirS2C:
		return dirC2S
	}
	return d
}

// flows computes, for every type reachable from a method, the directions it
// travels in: params are sent in the method's direction, a request's result
// the other way, and every type reachable through members, items, map
// values, union variants (and the fallback) and aliases inherits them.
func flows(m *gen.Model) map[*gen.Type]dirSet {
	out := map[*gen.Type]dirSet{}
	var visit func(t *gen.Type, d dirSet)
	var visitRef func(r *gen.TypeRef, d dirSet)
	visitRef = func(r *gen.TypeRef, d dirSet) {
		if r == nil {
			return
		}
		switch r.Kind {
		case gen.RefNamed:
			visit(r.Named, d)
		case gen.RefArray, gen.RefMap:
			visitRef(r.Elem, d)
		}
	}
	visit = func(t *gen.Type, d dirSet) {
		if t == nil || out[t]&d == d {
			return
		}
		out[t] |= d
		switch t.Kind {
		case gen.KindObject:
			for _, f := range t.Fields {
				visitRef(&f.Type, d)
			}
			visitRef(t.Extra, d)
		case gen.KindUnion:
			for _, v := range t.Union.Variants {
				visit(v.Type, d)
			}
			visit(t.Union.UnknownType, d)
		case gen.KindAlias:
			visitRef(t.Alias, d)
		}
	}
	for _, me := range m.Methods {
		d := dirOf(me.Direction)
		visit(me.Params, d)
		if me.Result != nil {
			visit(me.Result, opposite(d))
		}
	}
	// A fallback branch travels with its union even when it is inline-named.
	for _, t := range m.Types {
		if t.FallbackOf != nil {
			if d := out[t.FallbackOf]; d != 0 && out[t]&d != d {
				visit(t, d)
			}
		}
	}
	return out
}

// refsOf calls visit for every use of a named type inside t, with a label
// for the use site relative to t ("data", "items[]", "|text").
func refsOf(t *gen.Type, visit func(label string, u *gen.Type)) {
	var ref func(label string, r *gen.TypeRef)
	ref = func(label string, r *gen.TypeRef) {
		if r == nil {
			return
		}
		switch r.Kind {
		case gen.RefNamed:
			visit(label, r.Named)
		case gen.RefArray:
			ref(label+"[]", r.Elem)
		case gen.RefMap:
			ref(label+"{}", r.Elem)
		}
	}
	switch t.Kind {
	case gen.KindObject:
		for _, f := range t.Fields {
			ref("."+f.Wire, &f.Type)
		}
		ref(".*", t.Extra)
	case gen.KindUnion:
		for _, v := range t.Union.Variants {
			if v.Type != nil {
				visit("|"+v.TagValue, v.Type)
			}
		}
		if t.Union.UnknownType != nil {
			visit("|*", t.Union.UnknownType)
		}
	case gen.KindAlias:
		ref("=", t.Alias)
	}
}

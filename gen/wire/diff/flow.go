package diff

import "github.com/dshgen/dshgen/gen/ir"

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
		out = append(out, string(ir.ClientToServer))
	}
	if d&dirS2C != 0 {
		out = append(out, string(ir.ServerToClient))
	}
	return out
}

func dirOf(d ir.Direction) dirSet {
	switch d {
	case ir.ServerToClient:
		return dirS2C
	case ir.Both:
		return dirBoth
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
func flows(m *ir.Model) map[*ir.Type]dirSet {
	out := map[*ir.Type]dirSet{}
	var visit func(t *ir.Type, d dirSet)
	var visitRef func(r *ir.TypeRef, d dirSet)
	visitRef = func(r *ir.TypeRef, d dirSet) {
		if r == nil {
			return
		}
		switch r.Kind {
		case ir.RefNamed:
			visit(r.Named, d)
		case ir.RefArray, ir.RefMap:
			visitRef(r.Elem, d)
		}
	}
	visit = func(t *ir.Type, d dirSet) {
		if t == nil || out[t]&d == d {
			return
		}
		out[t] |= d
		switch t.Kind {
		case ir.KindObject:
			for _, f := range t.Fields {
				visitRef(&f.Type, d)
			}
			visitRef(t.Extra, d)
		case ir.KindUnion:
			for _, v := range t.Union.Variants {
				visit(v.Type, d)
			}
			if t.Union.Unknown != nil {
				visit(t.Union.Unknown.Fallback, d)
			}
		case ir.KindAlias:
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
func refsOf(t *ir.Type, visit func(label string, u *ir.Type)) {
	var ref func(label string, r *ir.TypeRef)
	ref = func(label string, r *ir.TypeRef) {
		if r == nil {
			return
		}
		switch r.Kind {
		case ir.RefNamed:
			visit(label, r.Named)
		case ir.RefArray:
			ref(label+"[]", r.Elem)
		case ir.RefMap:
			ref(label+"{}", r.Elem)
		}
	}
	switch t.Kind {
	case ir.KindObject:
		for _, f := range t.Fields {
			ref("."+f.Wire, &f.Type)
		}
		ref(".*", t.Extra)
	case ir.KindUnion:
		for _, v := range t.Union.Variants {
			if v.Type != nil {
				visit("|"+v.TagValue, v.Type)
			}
		}
		if t.Union.Unknown != nil && t.Union.Unknown.Fallback != nil {
			visit("|*", t.Union.Unknown.Fallback)
		}
	case ir.KindAlias:
		ref("=", t.Alias)
	}
}

package validate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// maxWalkDepth bounds the IR walk (deeper values are left to the library).
const maxWalkDepth = 256

// openReach returns the set of types from which an open union can be
// reached through fields, variants, aliases, arrays and maps (recursion
// handled by iterating to a fixed point).
func openReach(m *ir.Model) map[*ir.Type]bool {
	reach := map[*ir.Type]bool{}
	var refReaches func(r *ir.TypeRef) bool
	refReaches = func(r *ir.TypeRef) bool {
		for r != nil {
			switch r.Kind {
			case ir.RefNamed:
				return reach[r.Named]
			case ir.RefArray, ir.RefMap:
				r = r.Elem
			default:
				return false
			}
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for _, t := range m.Types {
			if reach[t] {
				continue
			}
			r := false
			switch t.Kind {
			case ir.KindUnion:
				if t.Union != nil {
					r = t.Union.Open
					for _, v := range t.Union.Variants {
						r = r || (v.Type != nil && reach[v.Type])
					}
				}
			case ir.KindObject:
				for _, f := range t.Fields {
					r = r || refReaches(&f.Type)
				}
				r = r || refReaches(t.Extra)
			case ir.KindAlias:
				r = refReaches(t.Alias)
			}
			if r {
				reach[t] = true
				changed = true
			}
		}
	}
	return reach
}

// walker follows a value along the IR and reports the unknown tags of open
// unions, which the schema accepts (through the fallback branch) and the
// validator reports as warnings.
type walker struct {
	v   *Validator
	out []issue
	// path holds the pointer tokens of the current value; the pointer
	// string is only built for an issue.
	path []string
}

func (w *walker) ptr(extra string) string {
	var b strings.Builder
	for _, t := range w.path {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	if extra != "" {
		b.WriteByte('/')
		b.WriteString(escapeToken(extra))
	}
	return b.String()
}

func (w *walker) push(tok string) { w.path = append(w.path, tok) }
func (w *walker) pop()            { w.path = w.path[:len(w.path)-1] }

func (w *walker) walkRef(r *ir.TypeRef, val any, depth int) {
	if r == nil || val == nil || depth > maxWalkDepth {
		return
	}
	switch r.Kind {
	case ir.RefNamed:
		w.walkType(r.Named, val, depth+1)
	case ir.RefArray:
		if !w.v.openReachRef(r.Elem) {
			return
		}
		if a, ok := val.([]any); ok {
			for i, x := range a {
				w.push(strconv.Itoa(i))
				w.walkRef(r.Elem, x, depth+1)
				w.pop()
			}
		}
	case ir.RefMap:
		if !w.v.openReachRef(r.Elem) {
			return
		}
		if o, ok := val.(map[string]any); ok {
			for _, k := range sortedKeys(o) {
				w.push(k)
				w.walkRef(r.Elem, o[k], depth+1)
				w.pop()
			}
		}
	}
}

func (w *walker) walkType(t *ir.Type, val any, depth int) {
	if t == nil || !w.v.openReach[t] || depth > maxWalkDepth {
		return
	}
	switch t.Kind {
	case ir.KindObject:
		o, ok := val.(map[string]any)
		if !ok {
			return
		}
		declared := map[string]bool{}
		for _, f := range t.Fields {
			declared[f.Wire] = true
			if x, ok := o[f.Wire]; ok && w.v.openReachRef(&f.Type) {
				w.push(f.Wire)
				w.walkRef(&f.Type, x, depth+1)
				w.pop()
			}
		}
		if t.Extra != nil && w.v.openReachRef(t.Extra) {
			for _, k := range sortedKeys(o) {
				if !declared[k] {
					w.push(k)
					w.walkRef(t.Extra, o[k], depth+1)
					w.pop()
				}
			}
		}
	case ir.KindAlias:
		w.walkRef(t.Alias, val, depth+1)
	case ir.KindUnion:
		u := t.Union
		if u == nil {
			return
		}
		switch u.By {
		case ir.ByTag:
			o, ok := val.(map[string]any)
			if !ok {
				return
			}
			tag, ok := o[u.Tag].(string)
			if !ok {
				return
			}
			for _, x := range u.Variants {
				if x.TagValue == tag {
					w.walkType(x.Type, val, depth+1)
					return
				}
			}
			if u.Open {
				w.out = append(w.out, issue{
					ptr: w.ptr(u.Tag), schema: u.FallbackPointer,
					rule: RuleUnionUnknownTag, sev: Warning,
					msg: fmt.Sprintf("unknown %s %s %q (not one of its %s; accepted by the open union's fallback branch)", t.Name, u.Tag, tag, Count(len(u.Variants), "known tag")),
				})
			}
		case ir.ByJSONType:
			jt := jsonType(val)
			for _, x := range u.Variants {
				if x.JSONType == jt || (jt == "integer" && x.JSONType == "number") {
					w.walkType(x.Type, val, depth+1)
					return
				}
			}
		case ir.ByShape:
			o, ok := val.(map[string]any)
			if !ok {
				return
			}
			for _, x := range u.Variants {
				all := len(x.Required) > 0
				for _, r := range x.Required {
					if _, ok := o[r]; !ok {
						all = false
						break
					}
				}
				if all {
					w.walkType(x.Type, val, depth+1)
					return
				}
			}
		}
	}
}

func (v *Validator) openReachRef(r *ir.TypeRef) bool {
	for r != nil {
		switch r.Kind {
		case ir.RefNamed:
			return v.openReach[r.Named]
		case ir.RefArray, ir.RefMap:
			r = r.Elem
		default:
			return false
		}
	}
	return false
}

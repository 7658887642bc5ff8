package diff

import (
	"encoding/json"
	"math/big"

	"github.com/dshgen/dshgen/gen/ir"
)

// rawDocs reads schema nodes by the IR's pointers ("#/..." in the root
// file, "other.json#/..." in a file beside it) for what the IR does not
// carry: the validator-only constraints. The nodes are the ones the model
// was loaded from (gen/schemadoc), so no file is read again.
type rawDocs struct {
	m *ir.Model
}

func newRawDocs(m *ir.Model) *rawDocs { return &rawDocs{m: m} }

// node returns the schema node at an IR pointer as plain Go values (nil
// when there is none).
func (r *rawDocs) node(ptr string) any {
	if _, n, ok := r.m.Source().Lookup(ptr); ok {
		return n.Value()
	}
	return nil
}

// constraintNode returns the node whose constraints apply to a value
// schema: the node itself, or the one non-null branch of a nullable
// anyOf/oneOf written inline.
func constraintNode(n any) map[string]any {
	m, _ := n.(map[string]any)
	if m == nil {
		return nil
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		bs, _ := m[kw].([]any)
		if len(bs) != 2 {
			continue
		}
		var other map[string]any
		nulls := 0
		for _, b := range bs {
			bm, _ := b.(map[string]any)
			if isNullNode(bm) {
				nulls++
			} else {
				other = bm
			}
		}
		if nulls == 1 && other != nil {
			merged := map[string]any{}
			for k, v := range other {
				merged[k] = v
			}
			for k, v := range m { // constraints beside the anyOf apply too
				if _, dup := merged[k]; !dup && k != kw {
					merged[k] = v
				}
			}
			return merged
		}
	}
	return m
}

func isNullNode(m map[string]any) bool {
	if m == nil {
		return false
	}
	if t, ok := m["type"].(string); ok && t == "null" {
		return true
	}
	if c, ok := m["const"]; ok && c == nil {
		return true
	}
	return false
}

// childNode returns member key of a (constraint) node, for array items and
// map values.
func childNode(n map[string]any, key string) map[string]any {
	if n == nil {
		return nil
	}
	return constraintNode(n[key])
}

// Constraint keywords, by how a change of value is judged.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"}
	exactKeys   = []string{"pattern", "format", "multipleOf"}
)

// constraintChange is one compared keyword.
type constraintChange struct {
	key      string
	old, new any // nil when absent
	rule     string
}

// compareConstraints lists the constraint keywords that differ between two
// value schemas, in a fixed order.
func compareConstraints(o, n map[string]any) []constraintChange {
	var out []constraintChange
	num := func(v any) *big.Rat {
		jn, ok := v.(json.Number)
		if !ok {
			return nil
		}
		r, ok := new(big.Rat).SetString(jn.String())
		if !ok {
			return nil
		}
		return r
	}
	bound := func(key string, lower bool) {
		ov, nv := get(o, key), get(n, key)
		on, nn := num(ov), num(nv)
		switch {
		case on == nil && nn == nil:
			return
		case on == nil:
			out = append(out, constraintChange{key, nil, nv, "constraint-tightened"})
		case nn == nil:
			out = append(out, constraintChange{key, ov, nil, "constraint-loosened"})
		default:
			c := nn.Cmp(on)
			if c == 0 {
				return
			}
			tight := (c > 0) == lower
			rule := "constraint-loosened"
			if tight {
				rule = "constraint-tightened"
			}
			out = append(out, constraintChange{key, ov, nv, rule})
		}
	}
	for _, k := range lowerBounds {
		bound(k, true)
	}
	for _, k := range upperBounds {
		bound(k, false)
	}
	ou, _ := get(o, "uniqueItems").(bool)
	nu, _ := get(n, "uniqueItems").(bool)
	if ou != nu {
		rule := "constraint-loosened"
		if nu {
			rule = "constraint-tightened"
		}
		out = append(out, constraintChange{"uniqueItems", ou, nu, rule})
	}
	for _, k := range exactKeys {
		ov, nv := get(o, k), get(n, k)
		switch {
		case ov == nil && nv == nil:
		case ov == nil:
			out = append(out, constraintChange{k, nil, nv, "constraint-tightened"})
		case nv == nil:
			out = append(out, constraintChange{k, ov, nil, "constraint-loosened"})
		case jsonText(ov) != jsonText(nv):
			if k == "multipleOf" {
				// A new multipleOf that divides the old one allows more.
				on, nn := num(ov), num(nv)
				if on != nil && nn != nil && nn.Sign() > 0 && on.Sign() > 0 {
					if q := new(big.Rat).Quo(on, nn); q.IsInt() {
						out = append(out, constraintChange{k, ov, nv, "constraint-loosened"})
						continue
					}
					if q := new(big.Rat).Quo(nn, on); q.IsInt() {
						out = append(out, constraintChange{k, ov, nv, "constraint-tightened"})
						continue
					}
				}
			}
			out = append(out, constraintChange{k, ov, nv, "constraint-changed"})
		}
	}
	return out
}

func get(m map[string]any, k string) any {
	if m == nil {
		return nil
	}
	return m[k]
}

// jsonText renders a raw value compactly (for messages and comparisons).
func jsonText(v any) string {
	if v == nil {
		return "(none)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}

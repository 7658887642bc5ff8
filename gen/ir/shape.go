package ir

import (
	"encoding/json"
	"strings"
)

// Shape renders a type use as a short wire shape for doc comments, the same
// in every language: string, integer, number, boolean, null, "a" | "b" (an
// inline enum), any JSON, a type's schema name, [T, ...] (an array),
// {string: T} (a map), with " | null" where null is allowed.
func (r *TypeRef) Shape() string {
	var s string
	switch r.Kind {
	case RefString:
		s = "string"
		if len(r.Enum) > 0 {
			s = strings.Join(quoted(r.Enum), " | ")
		}
	case RefInteger:
		s = "integer"
	case RefNumber:
		s = "number"
	case RefBoolean:
		s = "boolean"
	case RefJSON:
		return "any JSON"
	case RefNull:
		return "null"
	case RefNamed:
		s = r.Named.Name
	case RefArray:
		s = "[" + r.Elem.Shape() + ", ...]"
	case RefMap:
		s = "{string: " + r.Elem.Shape() + "}"
	default:
		s = "?"
	}
	if r.Nullable {
		s += " | null"
	}
	return s
}

// Shape renders an object type's members as a wire shape for doc comments:
// {"a": string, "b"?: integer, ...}, with "?" on members that may be
// absent, const members by their value and "..." when undeclared members
// are allowed.
func (t *Type) Shape() string {
	parts := make([]string, 0, len(t.Fields)+1)
	for _, f := range t.Fields {
		s := quote(f.Wire)
		if f.Optional() {
			s += "?"
		}
		if f.Const != nil {
			s += ": " + *f.Const
		} else {
			s += ": " + f.Type.Shape()
		}
		parts = append(parts, s)
	}
	if !t.Closed {
		parts = append(parts, "...")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// quote renders s as a JSON string (no HTML escaping).
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func quoted(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = quote(x)
	}
	return out
}

package schemadoc

import (
	"path/filepath"
	"reflect"
	"testing"
)

// metaValidateBoth meta-validates the schema text whole and in pieces of
// at most a few bytes (metaPieceBytes lowered), and returns the problems
// of each (nil for none) and the number of pieces.
func metaValidateBoth(t *testing.T, schema string) (whole, pieces []Problem, n int) {
	t.Helper()
	path := filepath.Join(write(t, t.TempDir(), map[string]string{"s.json": schema}), "s.json")
	run := func(limit int) ([]Problem, int) {
		defer func(n int) { metaPieceBytes = n }(metaPieceBytes)
		metaPieceBytes = limit
		s, err := Open(Source{Path: path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		if p := s.metaPieces(); p != nil {
			n = len(p.groups)
		}
		if err := s.MetaValidate(); err != nil {
			return problemsOf(t, err), n
		}
		return nil, n
	}
	whole, _ = run(1 << 30)
	pieces, n = run(8)
	return whole, pieces, n
}

// TestMetaValidatePieces: a document over metaPieceBytes is meta-validated
// in pieces with the same problems as whole: the library's message, file,
// line and pointer, for a meta-schema error in an entry the root reaches,
// in one it does not, and in the root's own members; a $ref loop the
// library refuses is found in the root's piece and, as in a whole compile,
// not in entries the root does not reach.
func TestMetaValidatePieces(t *testing.T) {
	const head = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "T",`
	cases := []struct {
		name, schema string
		pointers     []string
	}{
		{"valid", head + `"$ref": "#/$defs/A",
  "$defs": {"A": {"properties": {"b": {"$ref": "#/$defs/B"}}}, "B": {"type": "string"}, "C": {"items": {"$ref": "#/$defs/B"}}},
  "x-methods": {"ping": {"params": {"$ref": "#/$defs/C"}}}}`, nil},
		{"reached entry", head + `"$ref": "#/$defs/A",
  "$defs": {"A": {"properties": {"b": {"$ref": "#/$defs/B"}}}, "B": {"type": "strin"}, "C": {"type": "object"}}}`, []string{"/$defs/B/type"}},
		{"unreached entry", head + `"$ref": "#/$defs/A",
  "$defs": {"A": {"type": "object"}, "B": {"type": "object"},
    "C": {"minimum": "zero"}}}`, []string{"/$defs/C/minimum"}},
		{"root member", head + `"$ref": "#/$defs/A", "required": "a",
  "$defs": {"A": {"type": "object"}, "B": {"type": "object"}}}`, []string{"/required"}},
		{"definitions", head + `"$ref": "#/definitions/A",
  "definitions": {"A": {"type": "object"}, "B": {"type": 5}}}`, []string{"/definitions/B/type"}},
		{"reached loop", head + `"$ref": "#/$defs/A",
  "$defs": {"A": {"allOf": [{"$ref": "#/$defs/B"}]}, "B": {"anyOf": [{"$ref": "#/$defs/A"}]}, "C": {"type": "object"}}}`, []string{""}},
		{"unreached loop", head + `"$ref": "#/$defs/A",
  "$defs": {"A": {"type": "object"}, "B": {"allOf": [{"$ref": "#/$defs/C"}]}, "C": {"anyOf": [{"$ref": "#/$defs/B"}]}}}`, nil},
		{"extension member reached", head + `"$ref": "#/x-shapes/A",
  "x-shapes": {"A": {"$ref": "#/$defs/B"}}, "$defs": {"B": {"type": "strin"}, "C": {"type": "object"}}}`, []string{"/$defs/B/type"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			whole, pieces, n := metaValidateBoth(t, c.schema)
			if n < 2 {
				t.Fatalf("%d pieces, want several", n)
			}
			if !reflect.DeepEqual(whole, pieces) {
				t.Fatalf("whole: %v\npieces: %v", whole, pieces)
			}
			var got []string
			for _, p := range pieces {
				got = append(got, p.Pointer)
			}
			if !reflect.DeepEqual(got, c.pointers) {
				t.Errorf("problems at %q, want %q: %v", got, c.pointers, pieces)
			}
		})
	}
}

// TestMetaValidatePiecesSeveral: in pieces, a meta-schema error in each of
// two entries the root does not reach is reported, each at its pointer
// (the whole document's compile stops at one of them).
func TestMetaValidatePiecesSeveral(t *testing.T) {
	whole, pieces, _ := metaValidateBoth(t, `{"$defs": {"A": {"type": "strin"}, "B": {"type": "object"}, "C": {"minimum": "zero"}}}`)
	if len(whole) != 1 || len(pieces) != 2 || !hasProblem(pieces, "/$defs/A/type", "not a valid draft 2020-12 schema") ||
		!hasProblem(pieces, "/$defs/C/minimum", "not a valid draft 2020-12 schema") || !hasProblem(pieces, whole[0].Pointer, whole[0].Msg) {
		t.Errorf("whole: %v\npieces: %v", whole, pieces)
	}
}

// TestMetaValidateWhole: a document the pieces could not cut by JSON
// pointer alone is compiled whole.
func TestMetaValidateWhole(t *testing.T) {
	for _, schema := range []string{
		`{"$defs": {"A": {"$dynamicRef": "#meta"}, "B": {"$dynamicAnchor": "meta"}}}`,
		`{"$defs": {"A": {"$anchor": "a"}, "B": {"type": "object"}}}`,
		`{"$ref": "#/$defs", "$defs": {"A": {"type": "object"}}}`,
		`{"$defs": 5, "type": "object"}`,
	} {
		_, _, n := metaValidateBoth(t, schema)
		if n != 0 {
			t.Errorf("%s: cut into %d pieces", schema, n)
		}
	}
}

package ir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// loadWith writes a schema (and an overlay when not "") into a scratch
// directory and loads them.
func loadWith(t *testing.T, schemaText, overlayText string) (*ir.Model, error, string) {
	t.Helper()
	dir := t.TempDir()
	sp := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(sp, []byte(schemaText), 0o644); err != nil {
		t.Fatal(err)
	}
	src := ir.Source{Path: sp}
	op := ""
	if overlayText != "" {
		op = filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(op, []byte(overlayText), 0o644); err != nil {
			t.Fatal(err)
		}
		src.Overlays = []string{op}
	}
	m, err := ir.LoadSource(src)
	return m, err, op
}

func mustLoad(t *testing.T, schemaText, overlayText string) *ir.Model {
	t.Helper()
	m, err, _ := loadWith(t, schemaText, overlayText)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func variantNames(t *testing.T, m *ir.Model, ptr string) (ir.UnionBy, string) {
	t.Helper()
	u := m.TypeByPointer(ptr)
	if u == nil || u.Kind != ir.KindUnion {
		t.Fatalf("%s: not a union: %+v", ptr, u)
	}
	var names []string
	for _, v := range u.Union.Variants {
		names = append(names, v.Type.Name)
	}
	return u.Union.By, strings.Join(names, " ")
}

const draft = `"$schema": "https://json-schema.org/draft/2020-12/schema"`

// Open objects that no tag, JSON type or closed shape separates are decoded
// by ordered tries: more required members first, then more declared
// members, a branch that accepts any object last; inline branches are named from a const member that tells
// them apart, a non-identifier title, the JSON type, or the required
// members no other branch declares — and adding an unrelated branch renames
// none of them.
func TestUnionByTriesAndBranchNames(t *testing.T) {
	base := `{` + draft + `, "$defs": {
	  "Any": {"type": "object"},
	  "McpServer": {"anyOf": [
	    {"type": "object", "properties": {"type": {"const": "http"}, "url": {"type": "string"}}, "required": ["type", "url"]},
	    {"title": "stdio", "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
	    {"type": "object", "properties": {"blob": {"type": "string"}, "name": {"type": "string"}}, "required": ["blob"]},
	    {"type": "array", "items": {"type": "string"}},
	    {"$ref": "#/$defs/Any"}
	    %s
	  ]}}}`
	want := "McpServerHttp McpServerWithBlob McpServerStdio McpServerArray Any"
	m := mustLoad(t, strings.Replace(base, "%s", "", 1), "")
	if by, got := variantNames(t, m, "#/$defs/McpServer"); by != ir.ByTry || got != want {
		t.Fatalf("got %v %s, want by ordered tries %s", by, got, want)
	}
	m = mustLoad(t, strings.Replace(base, "%s", `, {"type": "object", "properties": {"id": {"type": "integer"}, "size": {}, "kind": {}}, "required": ["id", "size", "kind"]}`, 1), "")
	if _, got := variantNames(t, m, "#/$defs/McpServer"); got != "McpServerWithIdSizeKind McpServerHttp McpServerWithBlob McpServerStdio McpServerArray Any" {
		t.Fatalf("after adding a branch: %s", got)
	}
	for _, n := range []string{"McpServerWithIdSizeKind"} {
		if ty := m.TypeByName(n); ty == nil || ty.Names.Of(ir.LangGo) != "McpServerWithIDSizeKind" {
			t.Errorf("%s: %+v", n, ty)
		}
	}
}

// A branch none of the rules can name is a problem that asks for an x-name
// (an overlay entry gives it), never a numbered name; two branches that the
// rules name alike are a collision naming both pointers.
func TestUnnamableBranchAndOverlayName(t *testing.T) {
	s := `{` + draft + `, "$defs": {"U": {"anyOf": [
	  {"type": "object", "properties": {"a": {"type": "string"}}},
	  {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
	]}}}`
	_, err, _ := loadWith(t, s, "")
	var le *ir.LoadError
	if !errors.As(err, &le) || len(le.Problems) != 1 || le.Problems[0].Pointer != "/$defs/U/anyOf/0" || !strings.Contains(le.Problems[0].Hint, "x-name") || le.Problems[0].Line == 0 {
		t.Fatalf("want one problem at /$defs/U/anyOf/0 asking for x-name, got %v", err)
	}
	ov := `{"overlay": {"/$defs/U/anyOf/0": {"x-name": "Alpha"}, "/$defs/U/anyOf/1": {"x-go-name": "BetaGo"}}}`
	m := mustLoad(t, s, ov)
	if _, got := variantNames(t, m, "#/$defs/U"); got != "UWithB Alpha" {
		t.Fatalf("variants %s", got)
	}
	if b := m.TypeByName("UWithB"); b == nil || b.Names.Of(ir.LangGo) != "BetaGo" || b.Names.Of(ir.LangPython) != "UWithB" {
		t.Fatalf("x-go-name from the overlay: %+v", b)
	}

	coll := `{` + draft + `, "$defs": {"U": {"anyOf": [
	  {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}, {"type": "string"}]},
	  "UString": {"type": "object", "properties": {"x": {"type": "string"}}}}}`
	_, err, _ = loadWith(t, coll, "")
	if err == nil || !strings.Contains(err.Error(), "/$defs/U/anyOf/1") || !strings.Contains(err.Error(), "/$defs/UString") {
		t.Fatalf("want a collision naming both pointers, got %v", err)
	}
}

// Enum values that are not identifiers are spelled injectively; x-enum-names
// from an overlay pins them.
func TestEnumSpelling(t *testing.T) {
	s := `{` + draft + `, "$defs": {"Op": {"enum": ["+", "-", "+1", "-1", "", "a/b", "date-time", "date_time", "..."]}}}`
	m := mustLoad(t, s, "")
	var got []string
	for _, v := range m.TypeByName("Op").Enum {
		got = append(got, v.Names.Of(ir.LangGo))
	}
	want := "OpPlus OpMinus OpPlus1 OpMinus1 OpEmpty OpAB OpDateMinusTime OpDateUnderscoreTime OpDotDotDot"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %s\nwant %s", strings.Join(got, " "), want)
	}
	m = mustLoad(t, `{`+draft+`, "$defs": {"Op": {"enum": ["+", "-"]}}}`, `{"overlay": {"/$defs/Op": {"x-enum-names": ["add", "sub"]}}}`)
	if e := m.TypeByName("Op").Enum; e[0].Names.Of(ir.LangGo) != "OpAdd" || e[1].Names.Of(ir.LangPython) != "SUB" {
		t.Fatalf("x-enum-names from the overlay: %+v %+v", e[0], e[1])
	}
	_, err, _ := loadWith(t, `{`+draft+`, "$defs": {"Op": {"enum": ["ab", "AB"]}}}`, "")
	if err == nil || !strings.Contains(err.Error(), "/$defs/Op/enum/1") {
		t.Fatalf("values differing only in case: want a collision, got %v", err)
	}
}

// Type lists become unions by JSON type; allOf parts merge into one object
// (a later part's const wins); a nested inline anyOf is flattened.
func TestTypeListsAllOfNested(t *testing.T) {
	s := `{` + draft + `, "$defs": {
	  "Id": {"type": ["string", "integer"]},
	  "MaybeId": {"type": ["string", "integer", "null"]},
	  "Error": {"type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}, "required": ["code", "message"]},
	  "Holder": {"type": "object", "properties": {
	    "err": {"allOf": [{"$ref": "#/$defs/Error"}, {"properties": {"code": {"const": -32020}}, "required": ["code"]}]},
	    "v": {"anyOf": [{"type": "boolean"}, {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": ["string", "number"]}]}]}
	  }}}}`
	m := mustLoad(t, s, "")
	if by, got := variantNames(t, m, "#/$defs/Id"); by != ir.ByJSONType || got != "IdString IdInteger" {
		t.Errorf("Id: %v %s", by, got)
	}
	if a := m.TypeByName("MaybeId"); a == nil || a.Kind != ir.KindAlias || !a.Alias.Nullable || a.Alias.Named == nil || a.Alias.Named.Kind != ir.KindUnion {
		t.Errorf("MaybeId: %+v", a)
	}
	e := m.TypeByName("HolderErr")
	if e == nil || e.Kind != ir.KindObject || len(e.Fields) != 2 || e.Fields[0].Const == nil || *e.Fields[0].Const != "-32020" || !e.Fields[1].Required {
		t.Fatalf("HolderErr: %+v", e)
	}
	if by, got := variantNames(t, m, "#/$defs/Holder/properties/v"); by != ir.ByJSONType || got != "HolderVBoolean HolderVArray HolderVString HolderVNumber" {
		t.Errorf("HolderV: %v %s", by, got)
	}
}

// x-union-tag (an overlay entry) picks the tag of a union; naming a member
// some branch does not require with a const is a problem at the overlay's
// line, as is an overlay pointer that is not in the schema.
func TestUnionTagOverlay(t *testing.T) {
	s := `{` + draft + `, "$defs": {"U": {"anyOf": [
	  {"type": "object", "properties": {"kind": {"const": "a"}, "mode": {"const": "x"}}, "required": ["kind", "mode"]},
	  {"type": "object", "properties": {"kind": {"const": "b"}, "mode": {"const": "y"}}, "required": ["kind"]}
	]}}}`
	m := mustLoad(t, s, `{"overlay": {"/$defs/U": {"x-union-tag": "kind"}}}`)
	if u := m.TypeByName("U"); u.Union.By != ir.ByTag || u.Union.Tag != "kind" {
		t.Fatalf("U: %v %q", u.Union.By, u.Union.Tag)
	}
	for _, c := range []struct{ overlay, ptr, msg string }{
		{`{"overlay": {"/$defs/U": {"x-union-tag": "mode"}}}`, "x-union-tag", "does not require it"},
		{`{"overlay": {"/$defs/Nope": {"x-name": "N"}}}`, "Nope", "no node at /$defs/Nope"},
	} {
		_, err, op := loadWith(t, s, c.overlay)
		var le *ir.LoadError
		if !errors.As(err, &le) || len(le.Problems) == 0 {
			t.Fatalf("%s: want a problem, got %v", c.overlay, err)
		}
		p := le.Problems[0]
		if p.File != op || p.Line == 0 || !strings.Contains(p.Pointer, c.ptr) || !strings.Contains(p.Msg+" "+p.Hint, c.msg) || p.Hint == "" {
			t.Errorf("%s: problem %+v", c.overlay, p)
		}
	}
}

// Enums that are not strings: one JSON type is that type, mixed types any
// JSON value (never a refusal).
func TestNonStringEnums(t *testing.T) {
	m := mustLoad(t, `{`+draft+`, "$defs": {"H": {"type": "object", "properties": {
	  "code": {"enum": [1, 2, 3]}, "ratio": {"enum": [1, 2.5, null]}, "flag": {"enum": [true]}, "mixed": {"enum": ["a", 1]}}}}}`, "")
	want := map[string]string{"code": "integer", "ratio": "number | null", "flag": "boolean", "mixed": "any JSON"}
	for _, f := range m.TypeByName("H").Fields {
		if got := f.Type.Shape(); got != want[f.Wire] {
			t.Errorf("%s: %s, want %s", f.Wire, got, want[f.Wire])
		}
	}
}

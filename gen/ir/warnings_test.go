package ir

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaWarnings: a schema with no method at all and a root "x-"
// keyword that is a likely misspelling of one dshgen reads load with a
// warning each (file, line, pointer, fix); a schema whose methods are
// declared, declared empty or inferred, and a vendor keyword far from any
// dshgen reads, load with none.
func TestSchemaWarnings(t *testing.T) {
	const defs = `"$defs": {"AddParams": {"type": "object", "properties": {"text": {"type": "string"}}}}`
	const entry = `{"todo/add": {"kind": "notification", "direction": "client-to-server", "params": {"$ref": "#/$defs/AddParams"}}}`
	cases := []struct {
		name, doc string
		want      []string // one fragment per warning, in order
	}{
		{"misspelt x-methods", `{"x-methds": ` + entry + `,
 ` + defs + `}`, []string{":1: /x-methds: dshgen reads no keyword x-methds: did you mean x-methods? (fix: rename it to x-methods)", ":1: no JSON-RPC method: the schema has no x-methods"}},
		{"no method table", `{` + defs + `}`, []string{"no JSON-RPC method: the schema has no x-methods and none could be inferred"}},
		{"misspelt beside methods", `{"x-methods": ` + entry + `, "x-request-di": "r{counter}", ` + defs + `}`, []string{"/x-request-di: dshgen reads no keyword x-request-di: did you mean x-request-id?"}},
		{"methods", `{"x-methods": ` + entry + `, ` + defs + `}`, nil},
		{"methods declared empty", `{"x-methods": {}, ` + defs + `}`, nil},
		{"vendor keyword", `{"x-methods": ` + entry + `, "x-vendor-build": "7", ` + defs + `}`, nil},
	}
	for _, c := range cases {
		m, err := loadDoc(t, c.doc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(m.Warnings) != len(c.want) {
			t.Errorf("%s: warnings %v, want %d", c.name, m.Warnings, len(c.want))
			continue
		}
		for i, w := range c.want {
			if got := m.Warnings[i].String(); !strings.Contains(got, w) {
				t.Errorf("%s: warning %q lacks %q", c.name, got, w)
			}
		}
	}
}

// TestPublishedSchemasNoWarnings: the published protocols declare no
// x-methods; their methods are inferred, so they load without a warning.
func TestPublishedSchemasNoWarnings(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "protocols")
	for _, src := range []Source{
		{Path: filepath.Join(shared, "acp", "schema.json")},
		{Path: filepath.Join(shared, "mcp", "2025-11-25", "schema.json")},
		{Path: filepath.Join(shared, "mcp", "2026-07-28", "schema.json")},
		{Path: filepath.Join("..", "..", "testdata", "published", "mcp-2024-11-05", "schema.json"),
			Overlays: []string{filepath.Join("..", "..", "testdata", "published", "mcp-2024-11-05", "overlay.json")}},
	} {
		m, err := LoadSource(src)
		if err != nil {
			t.Fatalf("%s: %v", src.Path, err)
		}
		if len(m.Methods) == 0 || len(m.Warnings) > 0 {
			t.Errorf("%s: %d methods, warnings %v", src.Path, len(m.Methods), m.Warnings)
		}
	}
}

// TestEditDistance: Levenshtein distance by rune, and Nearest within a
// bound.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"x-methds", "x-methods", 1}, {"schem", "schema", 1}, {"kitten", "sitting", 3}, {"é", "e", 1}, {"abc", "", 3}} {
		if got := EditDistance(c.a, c.b); got != c.d || EditDistance(c.b, c.a) != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
	known := []string{"schema", "revision", "out"}
	if got := Nearest("schem", known, 2); got != "schema" {
		t.Errorf("Nearest(schem) = %q", got)
	}
	if got := Nearest("package", known, 2); got != "" {
		t.Errorf("Nearest(package) = %q, want none", got)
	}
}

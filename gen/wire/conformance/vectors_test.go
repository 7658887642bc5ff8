package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

func TestGenerateShipped(t *testing.T) {
	m, err := ir.Load(filepath.Join("..", "..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d valid frames, %d invalid vectors", len(s.Valid), len(s.Invalid))
	for _, f := range s.Files() {
		os.WriteFile(filepath.Join(t.TempDir(), f.Path), f.Data, 0o644)
		t.Logf("%s: %d bytes", f.Path, len(f.Data))
	}
}

// TestGenerateSecondProtocol: a schema whose strings carry patterns
// without examples (the MCP subset's "^file://" root URIs) still gets
// vectors, every one checked against the schema by Generate.
func TestGenerateSecondProtocol(t *testing.T) {
	m, err := ir.Load(filepath.Join("..", "..", "..", "testdata", "second-protocol", "mcp.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Valid) < 100 || len(s.Invalid) < 30 {
		t.Errorf("%d valid frames, %d invalid vectors", len(s.Valid), len(s.Invalid))
	}
}

func TestMatching(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		node       map[string]any
		want       string
	}{
		{"^file://", "", nil, "file://"},
		{"^file://", "é☃", nil, "file://é☃"},
		{"é", "é☃", nil, "é☃"},
		{"^[a-z]{3}-[0-9]+$", "", nil, "aaa-0"},
		{"^(foo|ba)$", "zz", nil, "ba"},
		{"^x+$", "", map[string]any{"minLength": json.Number("3")}, "xxx"},
		{"^[\\x00-\\x1f]$", "", nil, "\x00"},
		{"(", "kept", nil, "kept"},
	} {
		node := c.node
		if node == nil {
			node = map[string]any{}
		}
		if got := matching(c.pattern, c.s, node); got != c.want {
			t.Errorf("matching(%q, %q) = %q, want %q", c.pattern, c.s, got, c.want)
		}
	}
}

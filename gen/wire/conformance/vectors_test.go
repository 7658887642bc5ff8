package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// shippedVectors generates the vector set of the shipped schema (0.0.1).
func shippedVectors(t *testing.T) *Set {
	t.Helper()
	m, err := ir.Load(filepath.Join("..", "..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGenerateShipped(t *testing.T) {
	s := shippedVectors(t)
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

// TestUniquifyStaysInBounds: a uniqueItems array of integers made distinct
// stays within the items' maximum (the shipped schema's sourceEventSeqs:
// items up to 9007199254740991, maximal vectors start there), and the
// maximal SessionEventNotification vectors keep the member instead of
// losing it to a repair.
func TestUniquifyStaysInBounds(t *testing.T) {
	for _, c := range []struct {
		items map[string]any
		want  []string
	}{
		{map[string]any{"maximum": json.Number("9007199254740991")}, []string{"9007199254740991", "9007199254740990"}},
		{map[string]any{"exclusiveMaximum": json.Number("9007199254740992")}, []string{"9007199254740991", "9007199254740990"}},
		{nil, []string{"9007199254740991", "9007199254740992"}},
	} {
		got := uniquify([]any{json.Number("9007199254740991"), json.Number("9007199254740991")}, c.items)
		if got[0] != json.Number(c.want[0]) || got[1] != json.Number(c.want[1]) {
			t.Errorf("items %v: got %v, want %v", c.items, got, c.want)
		}
	}
	kept := 0
	for _, f := range shippedVectors(t).Valid {
		if strings.Contains(f.Line, `"sourceEventSeqs":[9007199254740991,9007199254740990]`) {
			kept++
		}
	}
	if kept == 0 {
		t.Error("no maximal vector keeps sourceEventSeqs")
	}
}

package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

func TestGenerateShipped(t *testing.T) {
	m, err := ir.Load(filepath.Join("..", "..", "..", "schema", "dsh-sdk-protocol.schema.json"))
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

package ir_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/schemadoc"
)

// A real published draft-07 JSON-RPC schema (MCP 2024-11-05, unmodified;
// testdata/published/README.md): it loads as draft-07, meta-validates
// against draft-07, and the IR reads "definitions" as it reads "$defs".
// The problems left are the union and type-list decisions the IR does not
// make yet; this list shrinks as it learns them (update it then).
func TestPublishedDraft07Schema(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "published", "mcp-2024-11-05")
	path := filepath.Join(dir, "schema.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != "a5a9e77495c5d239f951ba6fd2103f93134a71d45f476f250deaa5bff53d3e47" {
		t.Fatalf("%s is not the published file (sha256 %x)", path, sum)
	}
	set, err := schemadoc.Open(schemadoc.Source{Path: path}, ir.Keywords())
	if err != nil {
		t.Fatal(err)
	}
	if d := set.Root().Draft; d != schemadoc.Draft7 {
		t.Fatalf("draft %v, want draft-07", d)
	}
	if err := set.MetaValidate(); err != nil {
		t.Fatalf("meta-validation against draft-07: %v", err)
	}
	_, err = ir.LoadSource(ir.Source{Path: path, Overlays: []string{filepath.Join(dir, "overlay.json")}})
	le, ok := err.(*ir.LoadError)
	if !ok {
		t.Fatalf("want the known problems as a *ir.LoadError, got %v", err)
	}
	var got []string
	for _, p := range le.Problems {
		if p.File != path || p.Line == 0 || !strings.HasPrefix(p.Pointer, "/definitions/") {
			t.Errorf("problem not located in the schema's definitions: %s", p)
		}
		got = append(got, p.Pointer)
	}
	sort.Strings(got)
	want := []string{
		"/definitions/EmbeddedResource/properties/resource/anyOf", // TextResourceContents | BlobResourceContents
		"/definitions/ProgressToken/type",                         // ["string", "integer"]
		"/definitions/ReadResourceResult/properties/contents/items/anyOf",
		"/definitions/RequestId/type",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%v\nwant (at) %v", err, want)
	}
}

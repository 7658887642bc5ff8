package ir_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/schemadoc"
)

// A real published draft-07 JSON-RPC schema (MCP 2024-11-05, unmodified;
// testdata/published/README.md): it loads as draft-07, meta-validates
// against draft-07, and the IR reads "definitions" as it reads "$defs".
// It loads without a problem: its untagged unions are decoded by ordered
// tries and its type lists are unions by JSON type.
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
	m, err := ir.LoadSource(ir.Source{Path: path, Overlays: []string{filepath.Join(dir, "overlay.json")}})
	if err != nil {
		t.Fatalf("the published schema must load: %v", err)
	}
	// The union and type-list decisions it needs (see gen/ir/README.md "Unions").
	for _, c := range []struct {
		ptr  string
		by   ir.UnionBy
		vars string
	}{
		{"#/definitions/EmbeddedResource/properties/resource", ir.ByTry, "TextResourceContents BlobResourceContents"},
		{"#/definitions/ReadResourceResult/properties/contents/items", ir.ByTry, "TextResourceContents BlobResourceContents"},
		{"#/definitions/ProgressToken", ir.ByJSONType, "ProgressTokenString ProgressTokenInteger"},
		{"#/definitions/RequestId", ir.ByJSONType, "RequestIdString RequestIdInteger"},
	} {
		ty := m.TypeByPointer(c.ptr)
		if ty == nil || ty.Kind != ir.KindUnion {
			t.Errorf("%s: not a union: %+v", c.ptr, ty)
			continue
		}
		var names []string
		for _, v := range ty.Union.Variants {
			names = append(names, v.Type.Name)
		}
		if ty.Union.By != c.by || strings.Join(names, " ") != c.vars {
			t.Errorf("%s: %v %v, want %v %s", c.ptr, ty.Union.By, names, c.by, c.vars)
		}
	}
}

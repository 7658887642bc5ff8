package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// synthetic returns the shipped schema copied n times over: every $defs
// entry and x-methods entry i times under a prefixed name, every $ref
// rewritten to its own copy. It is the "schema 20 times larger" of the
// generation benchmark.
func synthetic(tb testing.TB, n int) []byte {
	raw, err := os.ReadFile(filepath.Join("..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	methods := doc["x-methods"].(map[string]any)
	outDefs := map[string]any{}
	outMethods := map[string]any{}
	for i := 0; i < n; i++ {
		prefix := fmt.Sprintf("S%d", i)
		rewrite := func(v any) any {
			b, _ := json.Marshal(v)
			s := strings.ReplaceAll(string(b), `"#/$defs/`, `"#/$defs/`+prefix)
			var out any
			json.Unmarshal([]byte(s), &out)
			return out
		}
		for k, v := range defs {
			outDefs[prefix+k] = rewrite(v)
		}
		for k, v := range methods {
			outMethods[strings.ToLower(prefix)+"."+k] = rewrite(v)
		}
	}
	doc["$defs"] = outDefs
	doc["x-methods"] = outMethods
	delete(doc, "$ref")
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func benchGenerate(b *testing.B, name string, raw []byte) {
	b.SetBytes(int64(len(raw)))
	for i := 0; i < b.N; i++ {
		m, err := ir.LoadBytes(name, raw)
		if err != nil {
			b.Fatal(err)
		}
		files, err := generateAll(m, []string{"all"}, ir.Options{Version: version})
		if err != nil {
			b.Fatal(err)
		}
		if len(files) == 0 {
			b.Fatal("no files")
		}
	}
}

// BenchmarkGenerateShipped: load + IR + every emitter on the shipped schema (in memory).
func BenchmarkGenerateShipped(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		b.Fatal(err)
	}
	benchGenerate(b, "dsh-sdk-protocol.schema.json", raw)
}

// BenchmarkGenerate20x: the same on a schema 20 times larger.
func BenchmarkGenerate20x(b *testing.B) {
	benchGenerate(b, "synthetic-20x.schema.json", synthetic(b, 20))
}

// TestSyntheticSchemaLoads keeps the benchmark input honest: the 20x schema
// is a valid schema with 20 times the types and methods.
func TestSyntheticSchemaLoads(t *testing.T) {
	one, err := ir.LoadBytes("one.json", synthetic(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	twenty, err := ir.LoadBytes("twenty.json", synthetic(t, 20))
	if err != nil {
		t.Fatal(err)
	}
	if len(twenty.Types) != 20*len(one.Types) || len(twenty.Methods) != 20*len(one.Methods) {
		t.Fatalf("types %d vs %d, methods %d vs %d", len(twenty.Types), len(one.Types), len(twenty.Methods), len(one.Methods))
	}
}

package emit_test

import (
	"path/filepath"
	"testing"

	"github.com/dshgen/dshgen/gen/emit"
	"github.com/dshgen/dshgen/gen/ir"
)

// BenchmarkEmit times each emitter on the shipped schema (the model loaded
// once); BenchmarkLoad the loader. go test -bench . ./gen/emit
func BenchmarkEmit(b *testing.B) {
	m, err := ir.Load(filepath.Join(root, "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range emit.All {
		b.Run(e.Lang, func(b *testing.B) {
			for range b.N {
				if _, err := e.Emit(m, ir.Options{Version: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	for range b.N {
		if _, err := ir.Load(filepath.Join(root, "schema", "0.0.1", "dsh-sdk-protocol.schema.json")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPublishedProtocols times what `dshgen generate` does for a
// published schema, minus writing: load (with the overlay) and emit all
// three languages. Numbers in gen/ir/README.md "Unions".
func BenchmarkPublishedProtocols(b *testing.B) {
	shared := filepath.Join(root, "..", "shared", "protocols")
	for _, p := range publishedProtocols {
		b.Run(p.name, func(b *testing.B) {
			for range b.N {
				m := loadProtocol(b, shared, p.name, p.schema)
				for _, e := range emit.All {
					if _, err := e.Emit(m, ir.Options{Version: "bench"}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

package validate_test

import (
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// BenchmarkLoadShipped: ir.LoadBytes of the shipped schema (read, parse,
// reference checks, meta-validation, IR) — what generate pays.
func BenchmarkLoadShipped(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ir.LoadBytes(schema.FileName, schema.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadAndNewShipped: the load plus validate.New (compiling every
// method's params/result and the fast check) — what a tap or validate run
// pays before its first frame.
func BenchmarkLoadAndNewShipped(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, err := ir.LoadBytes(schema.FileName, schema.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := validate.New(m, validate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadAndNewVerified: the same for a verified shipped schema
// (meta-validation skipped, the library compiled on first use) — what
// a tap start pays with the shipped schema.
func BenchmarkLoadAndNewVerified(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, err := ir.LoadSource(ir.Source{Path: schema.FileName, Bytes: schema.Bytes(), Verified: schema.Verified()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := validate.New(m, validate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

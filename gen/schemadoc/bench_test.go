package schemadoc_test

import (
	"testing"

	"github.com/dshgen/dshgen/gen/schemadoc"
	"github.com/dshgen/dshgen/schema"
)

// BenchmarkParseShipped: the shipped schema (0.26 MB) into nodes.
func BenchmarkParseShipped(b *testing.B) {
	raw := schema.Bytes()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := schemadoc.Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenShipped: parse, reference checks and the validation
// library's meta-validation of the shipped schema (what every command pays
// before the IR is built).
func BenchmarkOpenShipped(b *testing.B) {
	raw := schema.Bytes()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := schemadoc.Open(schemadoc.Source{Path: schema.FileName, Bytes: raw}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.MetaValidate(); err != nil {
			b.Fatal(err)
		}
	}
}

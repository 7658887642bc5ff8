package ir_test

import (
	"errors"
	"path/filepath"
	"sort"
	"testing"

	"github.com/dshgen/dshgen/gen/emit/golang"
	"github.com/dshgen/dshgen/gen/emit/python"
	"github.com/dshgen/dshgen/gen/emit/typescript"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// Fuzz target for the schema loader (issue 9). Seeds are in
// testdata/fuzz/FuzzLoad/ (the bug-report case schemas, the bad schemas, a
// few hostile schemas); `go test` runs them as regression tests.
//
//	go test -run XXX -fuzz FuzzLoad -fuzztime 10m ./gen/
//
// The schema is loaded from an empty temporary directory, so a relative
// $ref finds no sibling (and a remote one is refused, never fetched).

// FuzzLoad loads arbitrary bytes as a schema and checks that the loader
// never panics and returns either a model or a *ir.LoadError listing at
// least one problem, each with a file and a message, sorted; and that a
// model it accepts goes through the Go, Python and TypeScript emitters and the
// validator's compiler without a panic (an emitter may refuse a model with
// an error, but must not crash).
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `{"$defs":{}}`, `{"$defs":{"A":{"type":"string"}}}`,
		`{"$defs":{"A":{"$ref":"#/$defs/A"}}}`,
		`{"$defs":{"A":{"$ref":"http://127.0.0.1:9/x.json"}}}`,
		`{"$defs":{"A":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"required":["a"]}}}`,
		`{"$defs":{"U":{"oneOf":[{"type":"object","properties":{"t":{"const":"a"}},"required":["t"]},{"type":"object","properties":{"t":{"const":"b"}},"required":["t"]}]}}}`,
		`{"$defs":{"E":{"enum":["+","a b","","1st"]}}}`,
		`{"x-methods":{"m":{"kind":"request","direction":"client-to-server","params":{"$ref":"#/$defs/P"},"result":{"$ref":"#/$defs/P"}}},"$defs":{"P":{"type":"object"}}}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "fuzz.schema.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ir.LoadBytes(path, data)
		if err != nil {
			if m != nil {
				t.Fatalf("both a model and an error: %v", err)
			}
			var le *ir.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error is a %T, not a *ir.LoadError: %v", err, err)
			}
			if len(le.Problems) == 0 {
				t.Fatalf("LoadError without problems")
			}
			for _, p := range le.Problems {
				if p.File == "" || p.Msg == "" || p.Line < 0 {
					t.Fatalf("problem without file, message or with a bad line: %+v", p)
				}
			}
			if !sort.SliceIsSorted(le.Problems, func(i, j int) bool {
				a, b := le.Problems[i], le.Problems[j]
				if a.File != b.File {
					return a.File < b.File
				}
				if a.Line != b.Line {
					return a.Line < b.Line
				}
				return a.Pointer < b.Pointer
			}) {
				t.Fatalf("problems not sorted: %v", err)
			}
			_ = err.Error()
			return
		}
		if m == nil {
			t.Fatalf("neither a model nor an error")
		}
		for _, ty := range m.Types {
			if ty.Pointer == "" {
				t.Fatalf("type without a pointer: %+v", ty)
			}
			for _, l := range ir.Langs {
				if ty.Names.Of(l) == "" {
					// Found here once (testdata/fuzz/FuzzLoad/196ac0de75e3410a,
					// TestLoadRefusesUnnameableNames; fixed in 5f0d8a1).
					t.Fatalf("type %s has no %s name", ty.Pointer, l)
				}
			}
		}
		o := ir.Options{Version: "fuzz"}
		_, _ = golang.Emit(m, o)
		_, _ = python.Emit(m, o)
		_, _ = typescript.Emit(m, o)
		_, _ = validate.New(m, validate.Options{})
	})
}

package ir_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// Loader-level checks from the hostile corpus (issue 9; the end-to-end run
// over testdata/hostile is gen/hardinputs).

// TestLoadRefusesUnnameableNames: a $defs key or member name with no letter
// or digit gives no identifier in Go or Python (the enum values' check,
// "has no letter or digit to name a constant after", has no counterpart for
// types and members). The loader must refuse it with the pointer and the
// x-name fix; it returned a model whose names were empty, and the Go
// emitter then failed in gofmt on invalid source naming no pointer. Found
// by FuzzLoad: testdata/fuzz/FuzzLoad/196ac0de75e3410a is {"$defs":{"":{}}}
// (fixed in 5f0d8a1; kept as a regression test).
func TestLoadRefusesUnnameableNames(t *testing.T) {
	for _, c := range []struct{ schema, pointer string }{
		{`{"$defs":{"":{}}}`, "/$defs/"},
		{`{"$defs":{"🎉":{"type":"object"}}}`, "/$defs/🎉"},
		{`{"$defs":{"+":{"type":"string"}}}`, "/$defs/+"},
		{`{"$defs":{"Ok":{"type":"object","properties":{"":{"type":"string"}}}}}`, "/$defs/Ok/properties/"},
		{`{"$defs":{"Ok":{"type":"object","properties":{"_":{"type":"string"}}}}}`, "/$defs/Ok/properties/_"},
		{`{"$defs":{"Ok":{"type":"object","properties":{"-":{"type":"string"}}}}}`, "/$defs/Ok/properties/-"},
	} {
		m, err := ir.LoadBytes(filepath.Join(t.TempDir(), "s.json"), []byte(c.schema))
		var le *ir.LoadError
		if !errors.As(err, &le) {
			names := ""
			if m != nil {
				for _, ty := range m.Types {
					names += ty.Pointer + " → " + strings.Join(ty.Names[:], "|") + "; "
				}
			}
			t.Errorf("%s: loaded without error (types: %s), want a *ir.LoadError naming %s with the x-name fix", c.schema, names, c.pointer)
			continue
		}
		found := false
		for _, p := range le.Problems {
			if p.Pointer == c.pointer && strings.Contains(p.Hint+p.Msg, "x-name") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: %v\nwant a problem at %s with the x-name fix", c.schema, err, c.pointer)
		}
	}
}

// Package emit lists the three emitters, each of which prints one
// language's bindings from the IR (gen/ir) alone: gen/emit/golang,
// gen/emit/python and gen/emit/typescript. Its tests are the golden driver
// over testdata/cases (expected output in testdata/golden, rewritten with
// go test ./gen/emit -update), the compile checks of that output, and the
// checks that keep the emitters to the IR (README.md).
package emit

import (
	"github.com/dshgen/dshgen/gen/emit/golang"
	"github.com/dshgen/dshgen/gen/emit/python"
	"github.com/dshgen/dshgen/gen/emit/typescript"
	"github.com/dshgen/dshgen/gen/ir"
)

// Emitter is one target language.
type Emitter struct {
	// Lang is the --lang name and the first path element of its files.
	Lang string
	// ID is the language in the IR's naming decisions (ir.CheckPackage).
	ID   ir.Lang
	Emit func(*ir.Model, ir.Options) ([]ir.File, error)
}

// All are the emitters, in output order.
var All = []Emitter{
	{"go", ir.LangGo, golang.Emit},
	{"python", ir.LangPython, python.Emit},
	{"ts", ir.LangTS, typescript.Emit},
}

package golang

import (
	"fmt"

	"golang.org/x/mod/module"

	"github.com/dshgen/dshgen/gen/ir"
)

// GoVersion is the go directive of the go.mod written with
// ir.Options.GoModule: the oldest Go whose language the generated package
// needs (generics, and the per-iteration loop variables of Go 1.22). The
// Go module test vets the package at this version, whose stdversion check
// reports any standard-library symbol newer than it.
const GoVersion = "1.22"

// goMod returns go/<package>/go.mod declaring o.GoModule: no require lines,
// since generated Go imports the standard library only.
func goMod(m *ir.Model, o ir.Options, dir string) (ir.File, error) {
	if err := module.CheckImportPath(o.GoModule); err != nil {
		return ir.File{}, fmt.Errorf("--go-module: %w", err)
	}
	data := fmt.Sprintf("// %s\n\nmodule %s\n\ngo %s\n", m.Header(o), o.GoModule, GoVersion)
	return ir.File{Path: dir + "/go.mod", Data: []byte(data)}, nil
}

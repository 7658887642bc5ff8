package golang

import (
	"fmt"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// GoVersion is the go directive of the go.mod written with
// ir.Options.GoModule: the oldest Go whose language the generated package
// needs (generics, and the per-iteration loop variables of Go 1.22). The
// Go module test vets the package at this version, whose stdversion check
// reports any standard-library symbol newer than it.
const GoVersion = "1.22"

// goMod returns go/<package>/go.mod declaring o.GoModule: no require lines,
// since generated Go imports the standard library only. The CLI checks the
// module path against Go's rules (golang.org/x/mod/module) first; here a
// path that would break the go.mod's syntax is refused.
func goMod(m *ir.Model, o ir.Options, dir string) (ir.File, error) {
	if strings.ContainsFunc(o.GoModule, func(r rune) bool { return r <= ' ' || r == '"' || r == '`' || r == 0x7f }) {
		return ir.File{}, fmt.Errorf("go module path %q: contains a space, quote or control character", o.GoModule)
	}
	var b strings.Builder
	for _, l := range m.HeaderLines(o) {
		b.WriteString("// " + l + "\n")
	}
	data := fmt.Sprintf("%s\nmodule %s\n\ngo %s\n", b.String(), o.GoModule, GoVersion)
	return ir.File{Path: dir + "/go.mod", Data: []byte(data)}, nil
}

// Command pygen writes the Python bindings of one schema (a stopgap for
// "dshgen generate" while the CLI is written, and the generator the Python
// checks use for the case schemas):
//
//	go run ./gen/emit/python/internal/pygen -schema schema/0.0.1/dsh-sdk-protocol.schema.json -out out
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/emit/python"
	"github.com/dshgen/dshgen/gen/ir"
)

func main() {
	schema := flag.String("schema", "schema/0.0.1/dsh-sdk-protocol.schema.json", "schema file")
	out := flag.String("out", "out", "output root (files go under <out>/python)")
	pkg := flag.String("package", "", "Python package name (default dshproto)")
	version := flag.String("version", "dev", "dshgen version written into headers")
	flag.Parse()
	m, err := ir.Load(*schema)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	files, err := python.Emit(m, ir.Options{Package: *pkg, Version: *version})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := output.Write([]output.Target{{Dir: *out, Files: files}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

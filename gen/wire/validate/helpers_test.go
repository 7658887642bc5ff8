package validate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
)

// moduleRoot returns the repository root (the directory with go.mod).
func moduleRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	t.Fatal("go.mod not found")
	return ""
}

// sharedDir returns ../shared beside the module root (skips without it).
func sharedDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(moduleRoot(t), "..", "shared")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("../shared not found: %v", err)
	}
	return d
}

func caseDir(t testing.TB, name string) string {
	return filepath.Join(moduleRoot(t), "testdata", "validate", "cases", name)
}

func newValidator(t testing.TB, schemaPath string, o Options) *Validator {
	t.Helper()
	m, err := ir.Load(schemaPath)
	if err != nil {
		t.Fatalf("load %s: %v", schemaPath, err)
	}
	v, err := New(m, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// shipped returns a validator for the shipped schema.
func shipped(t testing.TB, o Options) *Validator {
	return newValidator(t, filepath.Join(moduleRoot(t), "schema", "0.0.1", "dsh-sdk-protocol.schema.json"), o)
}

// run validates data as one NDJSON (or capture) input.
func run(t testing.TB, v *Validator, name string, data []byte, in Input) Result {
	t.Helper()
	in.Name = name
	res, err := v.ValidateReader(bytes.NewReader(data), in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func errorsOf(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Severity == Error {
			out = append(out, f)
		}
	}
	return out
}

func dumpFindings(fs []Finding) string {
	var b strings.Builder
	for i := range fs {
		b.WriteString(TextLine(&fs[i]))
		b.WriteByte('\n')
	}
	return b.String()
}

// feedLines feeds NDJSON text line by line to a stream with the given
// directions (one per line; "" = infer) and returns all findings.
func feedLines(s *Stream, dirs []ir.Direction, lines ...string) []Finding {
	var out []Finding
	for i, l := range lines {
		var d ir.Direction
		if i < len(dirs) {
			d = dirs[i]
		}
		fl := frame.Line{Num: i + 1, Bytes: []byte(l), Size: int64(len(l)), LF: true}
		out = append(out, s.Feed(d, &fl)...)
	}
	out = append(out, s.Close()...)
	SortFindings(out)
	return out
}

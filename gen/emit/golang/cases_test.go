package golang_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/emit/golang"
	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/corpus"
)

// TestCasesGo generates Go from each bug-report case schema
// (testdata/cases, copied from ../shared/cases) into a scratch module, checks
// that it is gofmt-clean and vets, and runs the case's expectations
// (testdata/golang/cases/<case>.go.txt) against the generated package.
func TestCasesGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go tool is needed to compile generated code")
	}
	root := corpus.RepoRoot()
	cases := []struct{ name, schema string }{
		{"01-discriminated-oneof-const", "schema.json"},
		{"02-object-oneof-not-flattened", "schema.json"},
		{"04-no-numbered-variant-names", "schema-titled.json"},
		{"06-reserved-words", "schema.json"},
		{"07-description-escaping", "schema.json"},
		{"09-null-vs-absent", "schema.json"},
		{"11-additional-properties", "schema.json"},
		{"13-recursive-ref", "schema-ok.json"},
	}
	common, err := os.ReadFile(filepath.Join(root, "testdata", "golang", "cases", "common.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	jv, err := os.ReadFile(filepath.Join(root, "gen", "wire", "jsonvalue", "jsonvalue.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			caseDir := filepath.Join(root, "testdata", "cases", c.name)
			m, err := ir.Load(filepath.Join(caseDir, c.schema))
			if err != nil {
				t.Fatal(err)
			}
			files, err := golang.Emit(m, ir.Options{Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := output.Write([]output.Target{{Dir: dir, Files: files, NoManifest: true}}); err != nil {
				t.Fatal(err)
			}
			check, err := os.ReadFile(filepath.Join(root, "testdata", "golang", "cases", c.name+".go.txt"))
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "go.mod"), []byte("module example.com/casecheck\n\ngo 1.26\n"))
			write(t, filepath.Join(dir, "jsonvalue", "jsonvalue.go"), jv)
			write(t, filepath.Join(dir, "common_test.go"), common)
			write(t, filepath.Join(dir, "check_test.go"), check)
			write(t, filepath.Join(dir, "doc.go"), []byte("// Package check runs one case's expectations.\npackage check\n"))
			run(t, dir, nil, "gofmt", "-l", "go")
			run(t, dir, nil, "go", "vet", "./...")
			run(t, dir, []string{"CASE_DIR=" + caseDir}, "go", "test", "-count=1", ".")
			if c.name == "07-description-escaping" {
				for _, f := range files {
					for i, line := range strings.Split(string(f.Data), "\n") {
						if strings.HasPrefix(line, "//go:") || strings.HasPrefix(line, "//line ") {
							t.Errorf("%s:%d: a description became a directive: %q", f.Path, i+1, line)
						}
					}
				}
				out := run(t, dir, nil, "go", "doc", "-all", "./go/dshproto", "GlobRule")
				if !strings.Contains(strings.Join(strings.Fields(out), " "), "A comment closer */ appears here") {
					t.Errorf("go doc GlobRule lacks the description text:\n%s", out)
				}
			}
		})
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a command in dir and fails the test on a non-zero exit or, for
// gofmt -l, on any output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	if name == "gofmt" && out.Len() > 0 {
		t.Fatalf("generated Go is not gofmt-clean:\n%s", out.String())
	}
	return out.String()
}

package python

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/ir"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/python/golden")

// root is the repository root (tests run in gen/emit/python).
const root = "../../.."

// caseSchema returns the schema a case directory generates from and the
// package name its bindings get ("case" + the case number).
func caseSchema(dir string) (schema, pkg string) {
	base := filepath.Base(dir)
	pkg = "case" + strings.SplitN(base, "-", 2)[0]
	for _, n := range []string{"schema-titled.json", "schema-ok.json", "schema.json"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return filepath.Join(dir, n), pkg
		}
	}
	return "", pkg
}

func caseDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root, "testdata/python/cases/*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("no cases under testdata/python/cases")
	}
	return out
}

func emitCase(t *testing.T, dir string) []ir.File {
	t.Helper()
	schema, pkg := caseSchema(dir)
	m, err := ir.Load(schema)
	if err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	files, err := Emit(m, ir.Options{Package: pkg, Version: "test"})
	if err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	return files
}

// TestGolden compares the emitter's output for every case schema with the
// golden files (go test ./gen/emit/python -update rewrites them).
func TestGolden(t *testing.T) {
	for _, dir := range caseDirs(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			files := emitCase(t, dir)
			golden := filepath.Join(root, "testdata/python/golden", name)
			if *update {
				if err := os.RemoveAll(golden); err != nil {
					t.Fatal(err)
				}
				if _, err := output.Write([]output.Target{{Dir: golden, Files: files, NoManifest: true}}); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := map[string]bool{}
			for _, f := range files {
				want[f.Path] = true
				got, err := os.ReadFile(filepath.Join(golden, filepath.FromSlash(f.Path)))
				if err != nil {
					t.Errorf("%s: %v (run go test ./gen/emit/python -update)", f.Path, err)
					continue
				}
				if !bytes.Equal(got, f.Data) {
					t.Errorf("%s differs from the golden file (run go test ./gen/emit/python -update and review the diff)", f.Path)
				}
			}
			filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(golden, p)
					if !want[filepath.ToSlash(rel)] {
						t.Errorf("stale golden file %s", rel)
					}
				}
				return nil
			})
		})
	}
}

// TestDeterministic emits every case and the shipped schema twice and
// expects the same bytes; every path is under python/ and every file starts
// with the provenance header.
func TestDeterministic(t *testing.T) {
	schemas := []string{filepath.Join(root, "schema/dsh-sdk-protocol.schema.json")}
	for _, d := range caseDirs(t) {
		s, _ := caseSchema(d)
		schemas = append(schemas, s)
	}
	for _, s := range schemas {
		m, err := ir.Load(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		a, err := Emit(m, ir.Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Emit(m, ir.Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Fatalf("%s: %d files, then %d", s, len(a), len(b))
		}
		header := "# " + m.Header(ir.Options{Version: "test"})
		for i := range a {
			if a[i].Path != b[i].Path || !bytes.Equal(a[i].Data, b[i].Data) {
				t.Errorf("%s: %s differs between two runs", s, a[i].Path)
			}
			if !strings.HasPrefix(a[i].Path, "python/") {
				t.Errorf("%s: path %s is not under python/", s, a[i].Path)
			}
			if !strings.HasPrefix(string(a[i].Data), header+"\n") {
				t.Errorf("%s: %s does not start with the header", s, a[i].Path)
			}
			if len(a[i].Data) > 1<<20 {
				t.Errorf("%s: %s is %d bytes (over 1 MiB)", s, a[i].Path, len(a[i].Data))
			}
		}
	}
}

// TestImport generates every case into a temporary directory and imports
// it with warnings as errors (an invalid escape in a docstring is a
// warning), then byte-compiles it.
func TestImport(t *testing.T) {
	py := os.Getenv("DSHGEN_PYTHON")
	if py == "" {
		py = "python3"
	}
	if _, err := exec.LookPath(py); err != nil {
		t.Skipf("%s not found", py)
	}
	for _, dir := range caseDirs(t) {
		files := emitCase(t, dir)
		_, pkg := caseSchema(dir)
		out := t.TempDir()
		if _, err := output.Write([]output.Target{{Dir: out, Files: files, NoManifest: true}}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(py, "-W", "error", "-c", "import "+pkg+"; import "+pkg+".types, "+pkg+".methods")
		cmd.Dir = filepath.Join(out, "python")
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: import failed: %v\n%s", filepath.Base(dir), err, b)
		}
		cmd = exec.Command(py, "-W", "error", "-m", "compileall", "-q", pkg)
		cmd.Dir = filepath.Join(out, "python")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: compileall failed: %v\n%s", filepath.Base(dir), err, b)
		}
	}
}

// TestNameProblems: names the generated modules define themselves are
// reported, not printed twice.
func TestNameProblems(t *testing.T) {
	schema := []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema",
"x-methods":{"requests":{"kind":"notification","direction":"server-to-client","params":{"$ref":"#/$defs/P"}}},
"$defs":{"P":{"type":"object","properties":{"a":{"type":"string"}}},
"Q":{"type":"object","x-python-name":"fail_type","properties":{"a":{"type":"string"}}},
"R":{"type":"object","properties":{"b":{"type":"string","x-python-name":"not-ident"}}}}}`)
	m, err := ir.LoadBytes("names.schema.json", schema)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Emit(m, ir.Options{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"REQUESTS", "fail_type", `"not-ident" is not an identifier`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}
	if _, err := Emit(m, ir.Options{Package: "not-an-identifier"}); err == nil {
		t.Error("a package name that is not an identifier was accepted")
	}
}

// TestDocEscaping checks the docstring and literal printers on the traps
// of case 07.
func TestDocEscaping(t *testing.T) {
	for in, want := range map[string]string{
		`a """ b`:       `a \"\"\" b`,
		`ends with "`:   `ends with \"`,
		`C:\temp\new \`: `C:\\temp\\new \\`,
		`""`:            `\"\"`,
		`say "hi" now`:  `say "hi" now`,
	} {
		if got := docText(in); got != want {
			t.Errorf("docText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := pyStr("a\"b\\c\u2028\x01"); got != `"a\"b\\c\u2028\x01"` {
		t.Errorf("pyStr: %s", got)
	}
}
